// Private to sim/: what the stream command files share. cmd_stream.cc
// holds the entries (XADD XRANGE XREVRANGE XLEN XDEL XTRIM XREAD XSETID,
// XREADGROUP's parsing and blocking) and registers the family;
// cmd_stream_groups.cc holds the consumer groups (XGROUP, XREADGROUP's
// reads, XACK XPENDING XCLAIM XAUTOCLAIM XINFO). Not part of the public
// API. Sources: Redis 7.0 src/t_stream.c (streamGenericParseIDOrReply,
// streamParseIntervalIDOrReply, streamIncrID, streamDecrID,
// streamReplyWithRange); facts only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/internal.h"
#include "sim/resp/reply.h"
#include "sim/stream.h"

namespace redsim::sim {

inline constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
// A group's entries-read when unknown (SCG_INVALID_ENTRIES_READ).
inline constexpr int64_t kInvalidEntriesRead = -1;

// "ERR Invalid stream ID specified as stream command argument"
resp::Reply bad_id();

// ---- Ids ---------------------------------------------------------------------

// Redis's string2ull: decimal digits only, no overflow.
inline bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return false;
  }
  *out = v;
  return true;
}

// streamGenericParseIDOrReply: "-" / "+" (when `allow_minmax`), "ms" (the
// sequence is `missing_seq`), "ms-seq", and, when `seq_given` is given,
// "ms-*" (*seq_given false). False when `s` is none of them.
inline bool parse_id(std::string_view s, uint64_t missing_seq, bool allow_minmax, StreamId* out,
                     bool* seq_given = nullptr) {
  if (seq_given) *seq_given = true;
  if (allow_minmax && s == "-") {
    *out = StreamId{};
    return true;
  }
  if (allow_minmax && s == "+") {
    *out = StreamId::max();
    return true;
  }
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    if (!parse_u64(s, &out->ms)) return false;
    out->seq = missing_seq;
    return true;
  }
  if (!parse_u64(s.substr(0, dash), &out->ms)) return false;
  std::string_view seq = s.substr(dash + 1);
  if (seq_given && seq == "*") {
    *seq_given = false;
    out->seq = 0;
    return true;
  }
  return parse_u64(seq, &out->seq);
}

// The ids argv[first..] (no "-"/"+"), as XDEL and XACK take them; false at
// the first that is not an id (the caller answers bad_id()).
inline bool parse_ids(const Argv& argv, size_t first, std::vector<StreamId>* out) {
  for (size_t i = first; i < argv.size(); ++i) {
    StreamId id;
    if (!parse_id(argv[i], 0, false, &id)) return false;
    out->push_back(id);
  }
  return true;
}

// streamParseIntervalIDOrReply: an interval end, "(" for exclusive.
inline bool parse_interval_id(std::string_view s, uint64_t missing_seq, StreamId* out,
                              bool* exclusive) {
  *exclusive = false;
  if (s.size() > 1 && s[0] == '(') {
    *exclusive = true;
    return parse_id(s.substr(1), missing_seq, false, out);
  }
  return parse_id(s, missing_seq, true, out);
}

// streamIncrID / streamDecrID: the next / previous id; false at the end of
// the id space.
inline bool incr_id(StreamId* id) {
  if (id->seq == kU64Max) {
    if (id->ms == kU64Max) return false;
    ++id->ms;
    id->seq = 0;
  } else {
    ++id->seq;
  }
  return true;
}

inline bool decr_id(StreamId* id) {
  if (id->seq == 0) {
    if (id->ms == 0) return false;
    --id->ms;
    id->seq = kU64Max;
  } else {
    --id->seq;
  }
  return true;
}

// ---- Reading (defined in cmd_stream.cc) --------------------------------------

resp::Reply id_reply(StreamId id);
// [id, [field, value, ...]]
resp::Reply entry_reply(StreamId id, const Stream::Fields& f);
// The stream at `key`; nullptr when absent (*wrong on another type).
Stream* read_stream(CommandContext& ctx, std::string_view key, bool* wrong);
// The entries in [start, end], ascending (or descending when `rev`), at
// most `count` of them (0: all).
std::vector<std::pair<StreamId, const Stream::Fields*>> range(const Stream& s, StreamId start,
                                                              StreamId end, bool rev,
                                                              int64_t count);

// ---- XREADGROUP's reads of one stream (defined in cmd_stream_groups.cc) ------

// ">": the entries after the group's last id (at most `count`, 0: all)
// delivered to `consumer` (created if new): the group's last id and
// entries-read move on, and without `noack` each entry joins the PEL with
// one delivery. Appends them to `entries`; false when there is nothing
// new (the stream then gets no row in the reply).
bool read_group_new(CommandContext& ctx, const std::string& key, Stream& s, StreamGroup& g,
                    std::string_view consumer, bool noack, int64_t count,
                    std::vector<resp::Reply>* entries);
// An id: the consumer's own pending entries after `after` (a deleted one
// as [id, nil]), each delivered once more.
void read_group_history(CommandContext& ctx, const std::string& key, Stream& s, StreamGroup& g,
                        std::string_view consumer, StreamId after, int64_t count,
                        std::vector<resp::Reply>* entries);

// The group commands' handlers (cmd_stream_groups.cc); register_stream_commands
// registers them.
// streamEstimateDistanceFromFirstEverEntry: the entries_read of a group
// whose last delivered id is `id`, or kInvalidEntriesRead when unknown.
int64_t estimate_entries_read(const Stream& s, StreamId id);

resp::Reply xgroup(CommandContext& ctx);
resp::Reply xack(CommandContext& ctx);
resp::Reply xpending(CommandContext& ctx);
resp::Reply xclaim(CommandContext& ctx);
resp::Reply xautoclaim(CommandContext& ctx);
resp::Reply xinfo(CommandContext& ctx);

}  // namespace redsim::sim

// Stream commands: XADD XRANGE XREVRANGE XLEN XDEL XTRIM XREAD XGROUP
// XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM XINFO XSETID, on the Stream
// value of sim/stream.h; XREAD and XREADGROUP with BLOCK block on the
// server clock (sim/blocking.h). Error texts are Redis 7.0.15's (checked
// against redis-server 7.0.15). Sources: Redis 7.0 src/t_stream.c
// (streamParseAddOrTrimArgsOrReply, streamTrim, xreadCommand,
// streamReplyWithRange, xclaimCommand, xautoclaimCommand,
// streamEstimateDistanceFromFirstEverEntry, xinfoReplyWithStreamInfo) and
// the stream command pages; facts only.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/blocking.h"
#include "sim/cmd_admin.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kInvalidEntriesRead = -1;  // SCG_INVALID_ENTRIES_READ

Reply bad_id() {
  return Reply::error("ERR Invalid stream ID specified as stream command argument");
}

// Redis's string2ull: decimal digits only, no overflow.
bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return false;
  }
  *out = v;
  return true;
}

// streamGenericParseIDOrReply: "-" / "+" (when allowed), "ms" (the
// sequence is `missing_seq`), "ms-seq", and with `seq_wildcard`
// "ms-*" (*seq_given false).
bool parse_id(std::string_view s, uint64_t missing_seq, bool allow_minmax, StreamId* out,
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

bool incr_id(StreamId* id) {
  if (id->seq == kU64Max) {
    if (id->ms == kU64Max) return false;
    ++id->ms;
    id->seq = 0;
  } else {
    ++id->seq;
  }
  return true;
}

bool decr_id(StreamId* id) {
  if (id->seq == 0) {
    if (id->ms == 0) return false;
    --id->ms;
    id->seq = kU64Max;
  } else {
    --id->seq;
  }
  return true;
}

// streamParseIntervalIDOrReply: an interval end, "(" for exclusive.
bool parse_interval_id(std::string_view s, uint64_t missing_seq, StreamId* out, bool* exclusive) {
  *exclusive = false;
  if (s.size() > 1 && s[0] == '(') {
    *exclusive = true;
    return parse_id(s.substr(1), missing_seq, false, out);
  }
  return parse_id(s, missing_seq, true, out);
}

Reply id_reply(StreamId id) { return Reply::bulk(id.str()); }

Reply fields_reply(const Stream::Fields& f) {
  std::vector<Reply> out;
  out.reserve(f.size());
  for (const std::string& s : f) out.push_back(Reply::bulk(s));
  return Reply::array(std::move(out));
}

Reply entry_reply(StreamId id, const Stream::Fields& f) {
  return Reply::array({id_reply(id), fields_reply(f)});
}

Stream* read_stream(CommandContext& ctx, std::string_view key, bool* wrong) {
  Entry* e = lookup_typed(ctx, key, ValueType::kStream, wrong);
  return e == nullptr ? nullptr : &e->stream();
}

int64_t config_int(CommandContext& ctx, std::string_view name, int64_t fallback) {
  auto& others = ctx.server.config().others;
  auto it = others.find(name);
  int64_t v = 0;
  if (it != others.end() && parse_int64(it->second, &v)) return v;
  return fallback;
}

// ---- Nodes (see Stream::Node) and deletion ---------------------------------

size_t node_of(const Stream& s, StreamId id) {
  auto it = std::upper_bound(s.nodes.begin(), s.nodes.end(), id,
                             [](StreamId v, const Stream::Node& n) { return v < n.first; });
  return static_cast<size_t>(it - s.nodes.begin()) - 1;
}

uint64_t entry_bytes(const Stream::Fields& f) {
  uint64_t n = 4;
  for (const std::string& s : f) n += s.size() + 2;
  return n;
}

void append_entry(CommandContext& ctx, Stream& s, StreamId id, Stream::Fields fields) {
  const int64_t max_entries = config_int(ctx, "stream-node-max-entries", 100);
  const int64_t max_bytes = config_int(ctx, "stream-node-max-bytes", 4096);
  const uint64_t bytes = entry_bytes(fields);
  bool fresh = s.nodes.empty();
  if (!fresh) {
    const Stream::Node& back = s.nodes.back();
    if (max_entries > 0 && back.added >= static_cast<uint64_t>(max_entries)) fresh = true;
    if (max_bytes > 0 && back.bytes + bytes >= static_cast<uint64_t>(max_bytes)) fresh = true;
  }
  if (fresh) {
    s.nodes.push_back(Stream::Node{id, id, 0, 0, 16});
  }
  Stream::Node& node = s.nodes.back();
  node.last = id;
  ++node.added;
  ++node.live;
  node.bytes += bytes;
  s.entries.emplace(id, std::move(fields));
  s.last_id = id;
  ++s.entries_added;
}

// Removes the entry `id` (present) and its node once empty.
void erase_entry(Stream& s, StreamId id) {
  s.entries.erase(id);
  size_t n = node_of(s, id);
  if (n < s.nodes.size() && --s.nodes[n].live == 0) {
    s.nodes.erase(s.nodes.begin() + static_cast<std::ptrdiff_t>(n));
  }
}

// ---- Trimming (streamTrim) --------------------------------------------------

struct TrimArgs {
  enum Strategy { kNone, kMaxLen, kMinId } strategy = kNone;
  bool approx = false;
  int64_t maxlen = 0;
  StreamId minid;
  int64_t limit = -1;  // -1: not given
};

int64_t trim(CommandContext& ctx, Stream& s, const TrimArgs& t) {
  if (t.strategy == TrimArgs::kNone) return 0;
  int64_t limit = t.limit;
  if (limit < 0) limit = t.approx ? 100 * config_int(ctx, "stream-node-max-entries", 100) : 0;
  int64_t deleted = 0;
  while (!s.nodes.empty()) {
    if (t.strategy == TrimArgs::kMaxLen && static_cast<int64_t>(s.size()) <= t.maxlen) break;
    Stream::Node& node = s.nodes.front();
    const int64_t live = static_cast<int64_t>(node.live);
    bool whole = t.strategy == TrimArgs::kMaxLen ? static_cast<int64_t>(s.size()) - live >= t.maxlen
                                                 : node.last < t.minid;
    if (whole) {
      if (limit > 0 && deleted + live > limit) break;
      auto end = s.nodes.size() > 1 ? s.entries.lower_bound(s.nodes[1].first) : s.entries.end();
      s.entries.erase(s.entries.begin(), end);
      s.nodes.erase(s.nodes.begin());
      deleted += live;
      continue;
    }
    if (t.approx) break;
    // Exact: entry by entry within this node.
    while (!s.entries.empty()) {
      auto it = s.entries.begin();
      if (t.strategy == TrimArgs::kMaxLen ? static_cast<int64_t>(s.size()) <= t.maxlen
                                          : !(it->first < t.minid)) {
        break;
      }
      erase_entry(s, it->first);
      ++deleted;
    }
    break;
  }
  return deleted;
}

// MAXLEN|MINID [=|~] threshold [LIMIT count] at argv[*i]; false with *error.
bool parse_trim_option(const Argv& argv, size_t* i, TrimArgs* t, bool* limit_seen, Reply* error) {
  std::string_view opt = argv[*i];
  size_t left = argv.size() - *i - 1;
  if ((equals_ci(opt, "maxlen") || equals_ci(opt, "minid")) && left >= 1) {
    bool maxlen = equals_ci(opt, "maxlen");
    if ((maxlen && t->strategy == TrimArgs::kMinId) ||
        (!maxlen && t->strategy == TrimArgs::kMaxLen)) {
      *error = Reply::error(
          "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
      return false;
    }
    size_t v = *i + 1;
    t->approx = false;
    if ((argv[v] == "~" || argv[v] == "=") && left >= 2) {
      t->approx = argv[v] == "~";
      ++v;
    }
    if (maxlen) {
      if (!parse_int64(argv[v], &t->maxlen)) {
        *error = errors::not_integer();
        return false;
      }
      if (t->maxlen < 0) {
        *error = Reply::error("ERR The MAXLEN argument must be >= 0.");
        return false;
      }
      t->strategy = TrimArgs::kMaxLen;
    } else {
      if (!parse_id(argv[v], 0, false, &t->minid)) {
        *error = bad_id();
        return false;
      }
      t->strategy = TrimArgs::kMinId;
    }
    *i = v + 1;
    return true;
  }
  if (equals_ci(opt, "limit") && left >= 1) {
    if (!parse_int64(argv[*i + 1], &t->limit)) {
      *error = errors::not_integer();
      return false;
    }
    if (t->limit < 0) {
      *error = Reply::error("ERR The LIMIT argument must be >= 0.");
      return false;
    }
    *limit_seen = true;
    *i += 2;
    return true;
  }
  *error = errors::syntax();
  return false;
}

bool check_limit(const TrimArgs& t, bool limit_seen, Reply* error) {
  if (!limit_seen) return true;
  if (t.strategy == TrimArgs::kNone) {
    *error = Reply::error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return false;
  }
  if (!t.approx) {
    *error = Reply::error("ERR syntax error, LIMIT cannot be used without the special ~ option");
    return false;
  }
  return true;
}

// ---- XADD -------------------------------------------------------------------

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
Reply xadd(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  TrimArgs t;
  bool limit_seen = false;
  bool nomkstream = false;
  size_t i = 2;
  Reply error;
  // Options until the id: the first argument that is none of them.
  while (i < argv.size()) {
    std::string_view a = argv[i];
    size_t left = argv.size() - i - 1;
    if (equals_ci(a, "nomkstream")) {
      nomkstream = true;
      ++i;
    } else if ((equals_ci(a, "maxlen") || equals_ci(a, "minid") || equals_ci(a, "limit")) &&
               left >= 1) {
      if (!parse_trim_option(argv, &i, &t, &limit_seen, &error)) return error;
    } else {
      break;
    }
  }
  if (!check_limit(t, limit_seen, &error)) return error;
  if (i >= argv.size() || (argv.size() - i - 1) % 2 != 0 || argv.size() - i - 1 == 0) {
    return errors::arity("xadd");
  }
  bool auto_id = argv[i] == "*";
  StreamId id;
  bool seq_given = true;
  if (!auto_id) {
    if (!parse_id(argv[i], 0, false, &id, &seq_given)) return bad_id();
    if (seq_given && id.ms == 0 && id.seq == 0) {
      return Reply::error("ERR The ID specified in XADD must be greater than 0-0");
    }
  }
  const std::string& key = argv[1];
  bool wrong = false;
  Stream* s = read_stream(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  Db& db = current_db(ctx);
  if (s == nullptr) {
    if (nomkstream) return Reply::nil();
  }
  const StreamId last = s == nullptr ? StreamId{} : s->last_id;
  if (auto_id) {
    if (last == StreamId::max()) {
      return Reply::error(
          "ERR The stream has exhausted the last possible ID, unable to add more items");
    }
    const uint64_t now = static_cast<uint64_t>(std::max<int64_t>(ctx.now_ms, 0));
    if (now > last.ms) {
      id = StreamId{now, 0};
    } else {
      id = last;
      incr_id(&id);
    }
  } else if (!seq_given) {
    if (id.ms < last.ms || (id.ms == last.ms && last.seq == kU64Max)) {
      return Reply::error(
          "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    }
    id.seq = id.ms == last.ms ? last.seq + 1 : 0;
  } else if (!(last < id)) {
    return Reply::error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
  }
  if (s == nullptr) s = &db.add(key, Stream()).stream();
  Stream::Fields fields(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
  append_entry(ctx, *s, id, std::move(fields));
  db.touch(key);
  notify_keyspace_event(ctx, notify::kStream, "xadd", key);
  if (trim(ctx, *s, t) > 0) notify_keyspace_event(ctx, notify::kStream, "xtrim", key);
  db.signal_ready(key);
  return id_reply(id);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
Reply xtrim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  TrimArgs t;
  bool limit_seen = false;
  Reply error;
  size_t i = 2;
  while (i < argv.size()) {
    if (!parse_trim_option(argv, &i, &t, &limit_seen, &error)) return error;
  }
  if (t.strategy == TrimArgs::kNone) return errors::syntax();
  if (!check_limit(t, limit_seen, &error)) return error;
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::integer(0);
  int64_t deleted = trim(ctx, *s, t);
  if (deleted > 0) {
    current_db(ctx).touch(argv[1]);
    notify_keyspace_event(ctx, notify::kStream, "xtrim", argv[1]);
  }
  return Reply::integer(deleted);
}

Reply xlen(CommandContext& ctx) {
  bool wrong = false;
  Stream* s = read_stream(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s == nullptr ? 0 : static_cast<int64_t>(s->size()));
}

// XDEL key id [id ...]
Reply xdel(CommandContext& ctx) {
  bool wrong = false;
  Stream* s = read_stream(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::integer(0);  // xdelCommand parses the ids after this
  std::vector<StreamId> ids;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    StreamId id;
    if (!parse_id(ctx.argv[i], 0, false, &id)) return bad_id();
    ids.push_back(id);
  }
  int64_t deleted = 0;
  for (StreamId id : ids) {
    if (!s->entries.contains(id)) continue;
    erase_entry(*s, id);
    if (s->max_deleted_id < id) s->max_deleted_id = id;
    ++deleted;
  }
  if (deleted > 0) {
    current_db(ctx).touch(ctx.argv[1]);
    notify_keyspace_event(ctx, notify::kStream, "xdel", ctx.argv[1]);
  }
  return Reply::integer(deleted);
}

// ---- XRANGE / XREVRANGE -----------------------------------------------------

// The entries in [start, end], ascending or not, at most count (0: all).
std::vector<std::pair<StreamId, const Stream::Fields*>> range(const Stream& s, StreamId start,
                                                              StreamId end, bool rev,
                                                              int64_t count) {
  std::vector<std::pair<StreamId, const Stream::Fields*>> out;
  if (end < start) return out;
  if (!rev) {
    for (auto it = s.entries.lower_bound(start); it != s.entries.end() && !(end < it->first);
         ++it) {
      if (count > 0 && static_cast<int64_t>(out.size()) >= count) break;
      out.emplace_back(it->first, &it->second);
    }
  } else {
    auto it = s.entries.upper_bound(end);
    while (it != s.entries.begin()) {
      --it;
      if (it->first < start) break;
      if (count > 0 && static_cast<int64_t>(out.size()) >= count) break;
      out.emplace_back(it->first, &it->second);
    }
  }
  return out;
}

Reply range_generic(CommandContext& ctx, bool rev) {
  const Argv& argv = ctx.argv;
  std::string_view a = rev ? argv[3] : argv[2];
  std::string_view b = rev ? argv[2] : argv[3];
  StreamId start, end;
  bool start_ex = false, end_ex = false;
  if (!parse_interval_id(a, 0, &start, &start_ex)) return bad_id();
  if (start_ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
  if (!parse_interval_id(b, kU64Max, &end, &end_ex)) return bad_id();
  if (end_ex && !decr_id(&end)) return Reply::error("ERR invalid end ID for the interval");
  int64_t count = -1;
  for (size_t i = 4; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "count") && i + 1 < argv.size()) {
      if (!parse_int64(argv[i + 1], &count)) return errors::not_integer();
      if (count < 0) count = 0;
      ++i;
    } else {
      return errors::syntax();
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::array({});
  if (count == 0) return Reply::nil_array();  // xrangeGenericCommand: a stream, COUNT 0
  std::vector<Reply> out;
  for (auto& [id, f] : range(*s, start, end, rev, count < 0 ? 0 : count)) {
    out.push_back(entry_reply(id, *f));
  }
  return Reply::array(std::move(out));
}

Reply xrange(CommandContext& ctx) { return range_generic(ctx, false); }
Reply xrevrange(CommandContext& ctx) { return range_generic(ctx, true); }

// ---- Groups -----------------------------------------------------------------

bool has_tombstones(const Stream& s, StreamId start) {
  if (s.entries.empty() || s.max_deleted_id == StreamId{}) return false;
  if (s.max_deleted_id < s.first_id())
    return false;  // the latest tombstone is before the first entry
  return !(s.max_deleted_id < start);
}

// streamEstimateDistanceFromFirstEverEntry.
int64_t estimate_entries_read(const Stream& s, StreamId id) {
  if (s.entries_added == 0) return 0;
  if (s.entries.empty() && !(s.last_id < id)) return static_cast<int64_t>(s.entries_added);
  if (id == s.last_id) return static_cast<int64_t>(s.entries_added);
  if (s.last_id < id) return kInvalidEntriesRead;
  StreamId first = s.first_id();
  if (s.max_deleted_id == StreamId{} || s.max_deleted_id < first) {
    if (id < first) return static_cast<int64_t>(s.entries_added - s.size());
    if (id == first) return static_cast<int64_t>(s.entries_added - s.size() + 1);
  }
  return kInvalidEntriesRead;
}

Reply lag_reply(const Stream& s, const StreamGroup& g) {
  if (s.entries_added == 0) return Reply::integer(0);
  if (g.entries_read != kInvalidEntriesRead && !has_tombstones(s, g.last_id)) {
    return Reply::integer(static_cast<int64_t>(s.entries_added) - g.entries_read);
  }
  int64_t read = estimate_entries_read(s, g.last_id);
  if (read != kInvalidEntriesRead) {
    return Reply::integer(static_cast<int64_t>(s.entries_added) - read);
  }
  return Reply::nil();
}

Reply entries_read_reply(const StreamGroup& g) {
  return g.entries_read == kInvalidEntriesRead ? Reply::nil() : Reply::integer(g.entries_read);
}

// The consumer `name` of `g` (of the stream at `key`), created when
// missing with an "xgroup-createconsumer" event; its seen-time is now.
StreamConsumer& consumer_of(CommandContext& ctx, std::string_view key, StreamGroup& g,
                            std::string_view name) {
  auto it = g.consumers.find(name);
  if (it == g.consumers.end()) {
    it = g.consumers.emplace(std::string(name), StreamConsumer{}).first;
    notify_keyspace_event(ctx, notify::kStream, "xgroup-createconsumer", key);
  }
  it->second.seen_time_ms = ctx.now_ms;
  return it->second;
}

// Moves the pending entry `id` of `g` to `to` (named `name`).
void move_nack(StreamGroup& g, StreamId id, StreamNack& nack, StreamConsumer& to,
               std::string_view name) {
  if (nack.consumer != name) {
    auto old = g.consumers.find(nack.consumer);
    if (old != g.consumers.end()) old->second.pending.erase(id);
    nack.consumer = std::string(name);
  }
  to.pending.insert(id);
}

// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER|HELP
Reply xgroup(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string sub = admin::lower(argv[1]);
  const size_t argc = argv.size();
  if (sub == "help") {
    if (argc != 2) return admin::sub_arity("xgroup", sub);
    return help_reply(
        "XGROUP",
        {"CREATE <key> <groupname> <id|$> [option]",
         "    Create a new consumer group. Options are:", "    * MKSTREAM",
         "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
         "      Set the group's entries_read counter (internal use).",
         "CREATECONSUMER <key> <groupname> <consumer>",
         "    Create a new consumer in the specified group.",
         "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
         "DESTROY <key> <groupname>", "    Remove the specified group.",
         "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
         "    Set the current group ID and entries_read counter."});
  }
  struct Arity {
    std::string_view name;
    int arity;
  };
  constexpr Arity kArity[] = {
      {"create", -5}, {"setid", -5}, {"destroy", 4}, {"createconsumer", 5}, {"delconsumer", 5}};
  const Arity* found = nullptr;
  for (const Arity& a : kArity) {
    if (a.name == sub) found = &a;
  }
  if (found == nullptr) return admin::unknown_subcommand(argv[1], "XGROUP");
  if (found->arity > 0 ? argc != static_cast<size_t>(found->arity)
                       : argc < static_cast<size_t>(-found->arity)) {
    return admin::sub_arity("xgroup", sub);
  }
  auto bad_options = [&] {
    return Reply::error("ERR unknown subcommand or wrong number of arguments for '" +
                        std::string(argv[1]) + "'. Try XGROUP HELP.");
  };
  // Options of CREATE / SETID.
  bool mkstream = false;
  int64_t entries_read = kInvalidEntriesRead;
  if (sub == "create" || sub == "setid") {
    for (size_t i = 5; i < argc; ++i) {
      if (sub == "create" && equals_ci(argv[i], "mkstream")) {
        mkstream = true;
      } else if (equals_ci(argv[i], "entriesread") && i + 1 < argc) {
        if (!parse_int64(argv[i + 1], &entries_read)) return errors::not_integer();
        if (entries_read < 0 && entries_read != kInvalidEntriesRead) {
          return Reply::error("ERR value for ENTRIESREAD must be positive or -1");
        }
        ++i;
      } else {
        return bad_options();
      }
    }
  }
  const std::string& key = argv[2];
  const std::string& name = argv[3];
  bool wrong = false;
  Stream* s = read_stream(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  Db& db = current_db(ctx);
  if (s == nullptr && !(sub == "create" && mkstream)) {
    return Reply::error(
        "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
        "to use the MKSTREAM option to create an empty stream automatically.");
  }
  StreamGroup* g = nullptr;
  if (s != nullptr) {
    auto it = s->groups.find(name);
    if (it != s->groups.end()) g = &it->second;
  }
  auto nogroup = [&] {
    return Reply::error("NOGROUP No such consumer group '" + name + "' for key name '" + key + "'");
  };
  if (sub == "create" || sub == "setid") {
    if (sub == "setid" && g == nullptr) return nogroup();  // before the id, as xgroupCommand
    StreamId id;
    if (argv[4] == "$") {
      id = s == nullptr ? StreamId{} : s->last_id;
    } else if (!parse_id(argv[4], 0, true, &id)) {
      return bad_id();
    }
    if (sub == "create") {
      if (g != nullptr) return Reply::error("BUSYGROUP Consumer Group name already exists");
      // Redis 7.0.15 signals no modified key for XGROUP, XSETID, XACK,
      // XCLAIM, XAUTOCLAIM or XREADGROUP (a WATCH survives them), but for a
      // stream MKSTREAM creates.
      if (s == nullptr) {
        s = &db.add(key, Stream()).stream();
        db.touch(key);
      }
      StreamGroup group;
      group.last_id = id;
      group.entries_read = entries_read;
      s->groups.emplace(name, std::move(group));
      notify_keyspace_event(ctx, notify::kStream, "xgroup-create", key);
      return Reply::ok();
    }
    if (g == nullptr) return nogroup();
    g->last_id = id;
    g->entries_read = entries_read;
    notify_keyspace_event(ctx, notify::kStream, "xgroup-setid", key);
    return Reply::ok();
  }
  if (sub == "destroy") {
    if (g == nullptr) return Reply::integer(0);
    s->groups.erase(name);
    db.signal_ready(key);  // its blocked XREADGROUP clients get NOGROUP
    notify_keyspace_event(ctx, notify::kStream, "xgroup-destroy", key);
    return Reply::integer(1);
  }
  if (g == nullptr) return nogroup();
  const std::string& consumer = argv[4];
  if (sub == "createconsumer") {
    if (g->consumers.contains(consumer)) return Reply::integer(0);
    consumer_of(ctx, key, *g, consumer);
    return Reply::integer(1);
  }
  // delconsumer: its pending entries go with it.
  auto it = g->consumers.find(consumer);
  if (it == g->consumers.end()) return Reply::integer(0);
  int64_t pending = static_cast<int64_t>(it->second.pending.size());
  for (StreamId id : it->second.pending) g->pending.erase(id);
  g->consumers.erase(it);
  notify_keyspace_event(ctx, notify::kStream, "xgroup-delconsumer", key);
  return Reply::integer(pending);
}

// ---- XREAD / XREADGROUP -----------------------------------------------------

Reply xread_generic(CommandContext& ctx, bool group_mode) {
  const Argv& argv = ctx.argv;
  const std::string_view name = group_mode ? "xreadgroup" : "xread";
  int64_t count = 0;
  std::optional<int64_t> deadline;
  bool block = false;
  bool noack = false;
  std::string group, consumer;
  bool group_given = false;
  size_t streams_at = 0;
  Reply error;
  for (size_t i = 1; i < argv.size(); ++i) {
    size_t left = argv.size() - i - 1;
    if (equals_ci(argv[i], "block") && left >= 1) {
      if (!parse_block_timeout(ctx, argv[i + 1], false, &deadline, &error)) return error;
      block = true;
      ++i;
    } else if (equals_ci(argv[i], "count") && left >= 1) {
      if (!parse_int64(argv[i + 1], &count)) return errors::not_integer();
      if (count < 0) count = 0;
      ++i;
    } else if (equals_ci(argv[i], "streams") && left >= 1) {
      streams_at = i + 1;
      break;
    } else if (group_mode && equals_ci(argv[i], "group") && left >= 2) {
      group = argv[i + 1];
      consumer = argv[i + 2];
      group_given = true;
      i += 2;
    } else if (group_mode && equals_ci(argv[i], "noack")) {
      noack = true;
    } else {
      return errors::syntax();
    }
  }
  if (streams_at == 0) return errors::syntax();
  const size_t nargs = argv.size() - streams_at;
  if (nargs % 2 != 0) {
    return Reply::error("ERR Unbalanced '" + std::string(name) +
                        "' list of streams: for each stream key an ID or '$' must be specified.");
  }
  if (group_mode && !group_given) {
    return Reply::error("ERR Missing GROUP option for XREADGROUP");
  }
  const size_t nkeys = nargs / 2;
  struct Target {
    std::string key;
    StreamId id;            // read entries after it
    bool new_only = false;  // ">"
    Stream* s = nullptr;
    StreamGroup* g = nullptr;
  };
  std::vector<Target> targets(nkeys);
  // Ids first (their errors come before type and group errors), then keys.
  for (size_t k = 0; k < nkeys; ++k) {
    Target& t = targets[k];
    t.key = argv[streams_at + k];
    std::string_view id = argv[streams_at + nkeys + k];
    if (id == ">") {
      if (!group_mode) {
        return Reply::error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
      }
      t.new_only = true;
    } else if (id == "$") {
      if (group_mode) {
        return Reply::error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
      }
    } else if (!parse_id(id, 0, true, &t.id)) {
      return bad_id();
    }
  }
  std::vector<std::string> keys;
  for (size_t k = 0; k < nkeys; ++k) {
    Target& t = targets[k];
    bool wrong = false;
    t.s = read_stream(ctx, t.key, &wrong);
    if (wrong) return errors::wrong_type();
    std::string_view id = argv[streams_at + nkeys + k];
    if (id == "$") t.id = t.s == nullptr ? StreamId{} : t.s->last_id;
    if (group_mode) {
      if (t.s != nullptr) {
        auto g = t.s->groups.find(group);
        if (g != t.s->groups.end()) t.g = &g->second;
      }
      if (t.g == nullptr) {
        return Reply::error("NOGROUP No such key '" + t.key + "' or consumer group '" + group +
                            "' in XREADGROUP with GROUP option");
      }
    }
    keys.push_back(t.key);
  }
  std::vector<Reply> out;  // [key, entries] pairs
  for (Target& t : targets) {
    std::vector<Reply> entries;
    if (!group_mode) {
      if (t.s == nullptr || !(t.id < t.s->last_id)) continue;
      StreamId start = t.id;
      if (!incr_id(&start)) continue;
      for (auto& [id, f] : range(*t.s, start, StreamId::max(), false, count)) {
        entries.push_back(entry_reply(id, *f));
      }
      if (entries.empty()) continue;
    } else if (t.new_only) {
      StreamGroup& g = *t.g;
      if (!(g.last_id < t.s->last_id)) continue;
      StreamId start = g.last_id;
      if (!incr_id(&start)) continue;
      auto served = range(*t.s, start, StreamId::max(), false, count);
      if (served.empty()) continue;
      StreamConsumer& c = consumer_of(ctx, t.key, g, consumer);
      for (auto& [id, f] : served) {
        if (g.last_id < id) {
          if (g.entries_read != kInvalidEntriesRead && !has_tombstones(*t.s, id)) {
            ++g.entries_read;
          } else {
            g.entries_read = estimate_entries_read(*t.s, id);
          }
          g.last_id = id;
        }
        if (!noack) {
          auto [it, fresh] = g.pending.try_emplace(id);
          StreamNack& nack = it->second;
          if (fresh) nack.consumer = consumer;
          move_nack(g, id, nack, c, consumer);
          nack.delivery_time_ms = ctx.now_ms;
          nack.delivery_count = 1;
        }
        entries.push_back(entry_reply(id, *f));
      }
    } else {
      // History: this consumer's pending entries after the id.
      StreamGroup& g = *t.g;
      StreamConsumer& c = consumer_of(ctx, t.key, g, consumer);
      StreamId start = t.id;
      if (incr_id(&start)) {
        for (auto it = c.pending.lower_bound(start); it != c.pending.end(); ++it) {
          if (count > 0 && static_cast<int64_t>(entries.size()) >= count) break;
          auto e = t.s->entries.find(*it);
          if (e == t.s->entries.end()) {
            // A deleted entry: its id and a null array; its NACK is left as it is.
            entries.push_back(Reply::array({id_reply(*it), Reply::nil_array()}));
            continue;
          }
          entries.push_back(entry_reply(e->first, e->second));
          StreamNack& nack = g.pending[*it];
          nack.delivery_time_ms = ctx.now_ms;
          ++nack.delivery_count;
        }
      }
    }
    out.push_back(Reply::bulk(t.key));
    out.push_back(Reply::array(std::move(entries)));
  }
  if (!out.empty()) {
    if (ctx.session.protocol() == resp::Protocol::kResp3) return Reply::map(std::move(out));
    std::vector<Reply> pairs;
    for (size_t i = 0; i < out.size(); i += 2) {
      pairs.push_back(Reply::array({std::move(out[i]), std::move(out[i + 1])}));
    }
    return Reply::array(std::move(pairs));
  }
  bool may_wait = block;
  if (group_mode) {
    // Only new entries (">") are worth waiting for.
    for (const Target& t : targets) {
      if (!t.new_only) may_wait = false;
    }
  }
  if (!may_wait) return Reply::nil_array();
  // Re-run with "$" resolved to the ids seen now, as Redis keeps them.
  Argv rerun = argv;
  for (size_t k = 0; k < nkeys; ++k) {
    if (rerun[streams_at + nkeys + k] == "$") rerun[streams_at + nkeys + k] = targets[k].id.str();
  }
  return block_or_reply(ctx, keys, deadline, Reply::nil_array(), std::move(rerun),
                        ValueType::kStream);
}

Reply xread(CommandContext& ctx) { return xread_generic(ctx, false); }
Reply xreadgroup(CommandContext& ctx) { return xread_generic(ctx, true); }

// ---- XACK / XPENDING / XCLAIM / XAUTOCLAIM ----------------------------------

StreamGroup* find_group(CommandContext& ctx, const std::string& key, const std::string& group,
                        Stream** stream, bool* wrong) {
  Stream* s = read_stream(ctx, key, wrong);
  if (stream) *stream = s;
  if (s == nullptr) return nullptr;
  auto it = s->groups.find(group);
  return it == s->groups.end() ? nullptr : &it->second;
}

Reply nogroup(const std::string& key, const std::string& group) {
  return Reply::error("NOGROUP No such key '" + key + "' or consumer group '" + group + "'");
}

// XACK key group id [id ...]
Reply xack(CommandContext& ctx) {
  bool wrong = false;
  StreamGroup* g = find_group(ctx, ctx.argv[1], ctx.argv[2], nullptr, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return Reply::integer(0);  // xackCommand parses the ids after this
  std::vector<StreamId> ids;
  for (size_t i = 3; i < ctx.argv.size(); ++i) {
    StreamId id;
    if (!parse_id(ctx.argv[i], 0, false, &id)) return bad_id();
    ids.push_back(id);
  }
  int64_t acked = 0;
  for (StreamId id : ids) {
    auto it = g->pending.find(id);
    if (it == g->pending.end()) continue;
    auto c = g->consumers.find(it->second.consumer);
    if (c != g->consumers.end()) c->second.pending.erase(id);
    g->pending.erase(it);
    ++acked;
  }
  return Reply::integer(acked);
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
Reply xpending(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const size_t argc = argv.size();
  bool extended = argc > 3;
  int64_t min_idle = 0;
  StreamId start, end;
  int64_t count = 0;
  const std::string* consumer = nullptr;
  if (extended) {
    size_t i = 3;
    if (equals_ci(argv[i], "idle") && argc > 4) {
      if (!parse_int64(argv[4], &min_idle)) return errors::not_integer();
      if (argc < 8) return errors::syntax();
      i = 5;
    } else if (argc < 6) {
      return errors::syntax();
    }
    if (argc > i + 4) return errors::syntax();
    bool ex = false;
    if (!parse_interval_id(argv[i], 0, &start, &ex)) return bad_id();
    if (ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
    if (!parse_interval_id(argv[i + 1], kU64Max, &end, &ex)) return bad_id();
    if (ex && !decr_id(&end)) return Reply::error("ERR invalid end ID for the interval");
    if (!parse_int64(argv[i + 2], &count)) return errors::not_integer();
    if (count < 0) count = 0;
    if (argc == i + 4) consumer = &argv[i + 3];
  }
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], nullptr, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  if (!extended) {
    if (g->pending.empty()) {
      return Reply::array({Reply::integer(0), Reply::nil(), Reply::nil(), Reply::nil_array()});
    }
    std::vector<Reply> by_consumer;
    for (const auto& [name, c] : g->consumers) {
      if (c.pending.empty()) continue;
      by_consumer.push_back(
          Reply::array({Reply::bulk(name), Reply::bulk(std::to_string(c.pending.size()))}));
    }
    return Reply::array({Reply::integer(static_cast<int64_t>(g->pending.size())),
                         id_reply(g->pending.begin()->first), id_reply(g->pending.rbegin()->first),
                         Reply::array(std::move(by_consumer))});
  }
  std::vector<Reply> out;
  if (count == 0 || end < start) return Reply::array({});
  auto emit = [&](StreamId id, const StreamNack& nack) {
    int64_t idle = std::max<int64_t>(ctx.now_ms - nack.delivery_time_ms, 0);
    if (min_idle > 0 && idle < min_idle) return;
    out.push_back(Reply::array({id_reply(id), Reply::bulk(nack.consumer), Reply::integer(idle),
                                Reply::integer(static_cast<int64_t>(nack.delivery_count))}));
  };
  if (consumer != nullptr) {
    auto c = g->consumers.find(*consumer);
    if (c == g->consumers.end()) return Reply::array({});
    for (auto it = c->second.pending.lower_bound(start);
         it != c->second.pending.end() && !(end < *it) && static_cast<int64_t>(out.size()) < count;
         ++it) {
      emit(*it, g->pending[*it]);
    }
  } else {
    for (auto it = g->pending.lower_bound(start);
         it != g->pending.end() && !(end < it->first) && static_cast<int64_t>(out.size()) < count;
         ++it) {
      emit(it->first, it->second);
    }
  }
  return Reply::array(std::move(out));
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms]
//   [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]
Reply xclaim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  Stream* s = nullptr;
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], &s, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  int64_t min_idle = 0;
  if (!parse_int64(argv[4], &min_idle)) {
    return Reply::error("ERR Invalid min-idle-time argument for XCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  std::vector<StreamId> ids;
  size_t i = 5;
  for (; i < argv.size(); ++i) {
    StreamId id;
    if (!parse_id(argv[i], 0, false, &id)) break;
    ids.push_back(id);
  }
  int64_t delivery_time = -1;
  int64_t retrycount = -1;
  bool force = false, justid = false;
  std::optional<StreamId> lastid;
  for (; i < argv.size(); ++i) {
    size_t left = argv.size() - i - 1;
    std::string_view o = argv[i];
    int64_t v = 0;
    if (equals_ci(o, "force")) {
      force = true;
    } else if (equals_ci(o, "justid")) {
      justid = true;
    } else if (equals_ci(o, "idle") && left >= 1) {
      if (!parse_int64(argv[++i], &v)) {
        return Reply::error("ERR Invalid IDLE option argument for XCLAIM");
      }
      delivery_time = ctx.now_ms - v;
    } else if (equals_ci(o, "time") && left >= 1) {
      if (!parse_int64(argv[++i], &v)) {
        return Reply::error("ERR Invalid TIME option argument for XCLAIM");
      }
      delivery_time = v;
    } else if (equals_ci(o, "retrycount") && left >= 1) {
      if (!parse_int64(argv[++i], &retrycount)) {
        return Reply::error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
    } else if (equals_ci(o, "lastid") && left >= 1) {
      StreamId id;
      if (!parse_id(argv[++i], 0, false, &id)) return bad_id();
      lastid = id;
    } else {
      return Reply::error("ERR Unrecognized XCLAIM option '" + std::string(o) + "'");
    }
  }
  if (delivery_time != -1 && (delivery_time < 0 || delivery_time > ctx.now_ms)) {
    delivery_time = ctx.now_ms;
  }
  if (delivery_time == -1) delivery_time = ctx.now_ms;
  if (lastid && g->last_id < *lastid) g->last_id = *lastid;
  const std::string& name = argv[3];
  std::vector<Reply> out;
  for (StreamId id : ids) {
    auto nack_it = g->pending.find(id);
    auto entry = s->entries.find(id);
    if (entry == s->entries.end()) {
      // A deleted entry leaves the PEL (Redis 7.0).
      if (nack_it != g->pending.end()) {
        auto c = g->consumers.find(nack_it->second.consumer);
        if (c != g->consumers.end()) c->second.pending.erase(id);
        g->pending.erase(nack_it);
      }
      continue;
    }
    if (nack_it == g->pending.end()) {
      if (!force) continue;
      nack_it = g->pending.emplace(id, StreamNack{ctx.now_ms, 0, name}).first;
    }
    StreamNack& nack = nack_it->second;
    if (min_idle > 0 && ctx.now_ms - nack.delivery_time_ms < min_idle) continue;
    StreamConsumer& c = consumer_of(ctx, argv[1], *g, name);
    move_nack(*g, id, nack, c, name);
    nack.delivery_time_ms = delivery_time;
    if (retrycount >= 0) {
      nack.delivery_count = static_cast<uint64_t>(retrycount);
    } else if (!justid) {
      ++nack.delivery_count;
    }
    out.push_back(justid ? id_reply(id) : entry_reply(id, entry->second));
  }
  return Reply::array(std::move(out));
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
Reply xautoclaim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  // Every argument is checked before the key and group (unlike XCLAIM).
  int64_t min_idle = 0;
  if (!parse_int64(argv[4], &min_idle)) {
    return Reply::error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  bool ex = false;
  if (!parse_interval_id(argv[5], 0, &start, &ex)) return bad_id();
  if (ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
  int64_t count = 100;
  bool justid = false;
  for (size_t i = 6; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "count") && i + 1 < argv.size()) {
      constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max() / (16 * 10);
      if (!parse_int64(argv[i + 1], &count) || count < 1 || count > kMaxCount) {
        return Reply::error("ERR COUNT must be > 0");
      }
      ++i;
    } else if (equals_ci(argv[i], "justid")) {
      justid = true;
    } else {
      return errors::syntax();
    }
  }
  Stream* s = nullptr;
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], &s, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  const std::string& name = argv[3];
  StreamConsumer* c = nullptr;
  std::vector<Reply> claimed, deleted;
  int64_t attempts = count * 10;
  auto it = g->pending.lower_bound(start);
  while (it != g->pending.end() && count > 0 && attempts-- > 0) {
    StreamId id = it->first;
    auto entry = s->entries.find(id);
    if (entry == s->entries.end()) {
      auto owner = g->consumers.find(it->second.consumer);
      if (owner != g->consumers.end()) owner->second.pending.erase(id);
      it = g->pending.erase(it);
      deleted.push_back(id_reply(id));
      --count;  // a deleted entry uses up the COUNT too
      continue;
    }
    StreamNack& nack = it->second;
    if (min_idle > 0 && ctx.now_ms - nack.delivery_time_ms < min_idle) {
      ++it;
      continue;
    }
    if (c == nullptr) c = &consumer_of(ctx, argv[1], *g, name);
    move_nack(*g, id, nack, *c, name);
    nack.delivery_time_ms = ctx.now_ms;
    if (!justid) ++nack.delivery_count;
    claimed.push_back(justid ? id_reply(id) : entry_reply(id, entry->second));
    --count;
    ++it;
  }
  // The consumer is created only when an entry is claimed (7.0.15, as XCLAIM).
  StreamId cursor = it == g->pending.end() ? StreamId{} : it->first;
  return Reply::array(
      {id_reply(cursor), Reply::array(std::move(claimed)), Reply::array(std::move(deleted))});
}

// ---- XSETID / XINFO ---------------------------------------------------------

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
Reply xsetid(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  StreamId id;
  if (!parse_id(argv[2], 0, false, &id)) return bad_id();
  int64_t entries_added = -1;
  std::optional<StreamId> max_deleted;
  for (size_t i = 3; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "entriesadded") && i + 1 < argv.size()) {
      if (!parse_int64(argv[i + 1], &entries_added)) return errors::not_integer();
      if (entries_added < 0) {
        return Reply::error("ERR entries_added must be positive");
      }
      ++i;
    } else if (equals_ci(argv[i], "maxdeletedid") && i + 1 < argv.size()) {
      StreamId m;
      if (!parse_id(argv[i + 1], 0, false, &m)) return bad_id();
      if (id < m) {
        return Reply::error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      }
      max_deleted = m;
      ++i;
    } else {
      return errors::syntax();
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::error("ERR no such key");
  // The top item first, then entries_added (xsetidCommand's order).
  if (!s->entries.empty() && id < s->entries.rbegin()->first) {
    return Reply::error(
        "ERR The ID specified in XSETID is smaller than the target stream top item");
  }
  if (entries_added >= 0 && static_cast<uint64_t>(entries_added) < s->size()) {
    return Reply::error(
        "ERR The entries_added specified in XSETID is smaller than the target stream length");
  }
  s->last_id = id;
  if (entries_added >= 0) s->entries_added = static_cast<uint64_t>(entries_added);
  if (max_deleted) s->max_deleted_id = *max_deleted;
  notify_keyspace_event(ctx, notify::kStream, "xsetid", argv[1]);
  return Reply::ok();
}

Reply xinfo(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string sub = admin::lower(argv[1]);
  const size_t argc = argv.size();
  if (sub == "help") {
    if (argc != 2) return admin::sub_arity("xinfo", sub);
    return help_reply(
        "XINFO", {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
                  "GROUPS <key>", "    Show the stream consumer groups.",
                  "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream."});
  }
  if (sub != "stream" && sub != "groups" && sub != "consumers") {
    return admin::unknown_subcommand(argv[1], "XINFO");
  }
  if ((sub == "stream" && argc < 3) || (sub == "groups" && argc != 3) ||
      (sub == "consumers" && argc != 4)) {
    return admin::sub_arity("xinfo", sub);
  }
  bool full = false;
  int64_t count = 10;
  if (sub == "stream" && argc > 3) {
    if (!equals_ci(argv[3], "full") || (argc != 4 && argc != 6) ||
        (argc == 6 && !equals_ci(argv[4], "count"))) {
      return Reply::error(
          "ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.");
    }
    full = true;
    if (argc == 6) {
      if (!parse_int64(argv[5], &count)) return errors::not_integer();
      if (count < 0) count = 10;
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[2], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::error("ERR no such key");
  auto idle_of = [&](int64_t t) { return Reply::integer(std::max<int64_t>(ctx.now_ms - t, 0)); };
  if (sub == "consumers") {
    auto g = s->groups.find(argv[3]);
    if (g == s->groups.end()) {
      return Reply::error("NOGROUP No such consumer group '" + argv[3] + "' for key name '" +
                          argv[2] + "'");
    }
    std::vector<Reply> out;
    for (const auto& [name, c] : g->second.consumers) {
      out.push_back(Reply::map({Reply::bulk("name"), Reply::bulk(name), Reply::bulk("pending"),
                                Reply::integer(static_cast<int64_t>(c.pending.size())),
                                Reply::bulk("idle"), idle_of(c.seen_time_ms)}));
    }
    return Reply::array(std::move(out));
  }
  if (sub == "groups") {
    std::vector<Reply> out;
    for (const auto& [name, g] : s->groups) {
      out.push_back(Reply::map(
          {Reply::bulk("name"), Reply::bulk(name), Reply::bulk("consumers"),
           Reply::integer(static_cast<int64_t>(g.consumers.size())), Reply::bulk("pending"),
           Reply::integer(static_cast<int64_t>(g.pending.size())), Reply::bulk("last-delivered-id"),
           id_reply(g.last_id), Reply::bulk("entries-read"), entries_read_reply(g),
           Reply::bulk("lag"), lag_reply(*s, g)}));
    }
    return Reply::array(std::move(out));
  }
  const int64_t nodes = static_cast<int64_t>(s->nodes.size());
  std::vector<Reply> out = {
      Reply::bulk("length"),
      Reply::integer(static_cast<int64_t>(s->size())),
      Reply::bulk("radix-tree-keys"),
      Reply::integer(nodes),
      Reply::bulk("radix-tree-nodes"),
      Reply::integer(nodes + 1),
      Reply::bulk("last-generated-id"),
      id_reply(s->last_id),
      Reply::bulk("max-deleted-entry-id"),
      id_reply(s->max_deleted_id),
      Reply::bulk("entries-added"),
      Reply::integer(static_cast<int64_t>(s->entries_added)),
      Reply::bulk("recorded-first-entry-id"),
      id_reply(s->first_id()),
  };
  if (!full) {
    out.push_back(Reply::bulk("groups"));
    out.push_back(Reply::integer(static_cast<int64_t>(s->groups.size())));
    auto edge = [&](bool last) {
      if (s->entries.empty()) return Reply::nil();
      const auto& e = last ? *s->entries.rbegin() : *s->entries.begin();
      return entry_reply(e.first, e.second);
    };
    out.push_back(Reply::bulk("first-entry"));
    out.push_back(edge(false));
    out.push_back(Reply::bulk("last-entry"));
    out.push_back(edge(true));
    return Reply::map(std::move(out));
  }
  std::vector<Reply> entries;
  for (auto& [id, f] : range(*s, StreamId{}, StreamId::max(), false, count)) {
    entries.push_back(entry_reply(id, *f));
  }
  out.push_back(Reply::bulk("entries"));
  out.push_back(Reply::array(std::move(entries)));
  std::vector<Reply> groups;
  for (const auto& [name, g] : s->groups) {
    std::vector<Reply> pel;
    for (const auto& [id, nack] : g.pending) {
      if (count > 0 && static_cast<int64_t>(pel.size()) >= count) break;
      pel.push_back(Reply::array({id_reply(id), Reply::bulk(nack.consumer),
                                  Reply::integer(nack.delivery_time_ms),
                                  Reply::integer(static_cast<int64_t>(nack.delivery_count))}));
    }
    std::vector<Reply> consumers;
    for (const auto& [cname, c] : g.consumers) {
      std::vector<Reply> cpel;
      for (StreamId id : c.pending) {
        if (count > 0 && static_cast<int64_t>(cpel.size()) >= count) break;
        auto n = g.pending.find(id);
        if (n == g.pending.end()) continue;
        cpel.push_back(
            Reply::array({id_reply(id), Reply::integer(n->second.delivery_time_ms),
                          Reply::integer(static_cast<int64_t>(n->second.delivery_count))}));
      }
      consumers.push_back(
          Reply::map({Reply::bulk("name"), Reply::bulk(cname), Reply::bulk("seen-time"),
                      Reply::integer(c.seen_time_ms), Reply::bulk("pel-count"),
                      Reply::integer(static_cast<int64_t>(c.pending.size())),
                      Reply::bulk("pending"), Reply::array(std::move(cpel))}));
    }
    groups.push_back(
        Reply::map({Reply::bulk("name"), Reply::bulk(name), Reply::bulk("last-delivered-id"),
                    id_reply(g.last_id), Reply::bulk("entries-read"), entries_read_reply(g),
                    Reply::bulk("lag"), lag_reply(*s, g), Reply::bulk("pel-count"),
                    Reply::integer(static_cast<int64_t>(g.pending.size())), Reply::bulk("pending"),
                    Reply::array(std::move(pel)), Reply::bulk("consumers"),
                    Reply::array(std::move(consumers))}));
  }
  out.push_back(Reply::bulk("groups"));
  out.push_back(Reply::array(std::move(groups)));
  return Reply::map(std::move(out));
}

constexpr SubcommandSpec kXgroupSubcommands[] = {
    {"create", -5, kCmdWrite | kCmdDenyOom},
    {"createconsumer", 5, kCmdWrite | kCmdDenyOom},
    {"delconsumer", 5, kCmdWrite},
    {"destroy", 4, kCmdWrite},
    {"help", 2, 0},
    {"setid", -5, kCmdWrite},
};
constexpr SubcommandSpec kXinfoSubcommands[] = {
    {"consumers", 4, kCmdReadonly},
    {"groups", 3, kCmdReadonly},
    {"help", 2, 0},
    {"stream", -3, kCmdReadonly},
};

}  // namespace

void register_stream_commands(CommandTable& table) {
  table.add({"xadd", -5, kCmdWrite | kCmdDenyOom | kCmdFast, &xadd});
  table.add({"xrange", -4, kCmdReadonly, &xrange});
  table.add({"xrevrange", -4, kCmdReadonly, &xrevrange});
  table.add({"xlen", 2, kCmdReadonly | kCmdFast, &xlen});
  table.add({"xdel", -3, kCmdWrite | kCmdFast, &xdel});
  table.add({"xtrim", -4, kCmdWrite, &xtrim});
  table.add({"xread", -4, kCmdReadonly, &xread});
  table.add({"xreadgroup", -7, kCmdWrite, &xreadgroup});
  table.add({"xgroup", -2, kCmdContainer, &xgroup});
  table.add({"xack", -4, kCmdWrite | kCmdFast, &xack});
  table.add({"xpending", -3, kCmdReadonly, &xpending});
  table.add({"xclaim", -6, kCmdWrite | kCmdFast, &xclaim});
  table.add({"xautoclaim", -6, kCmdWrite | kCmdFast, &xautoclaim});
  table.add({"xsetid", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &xsetid});
  table.add({"xinfo", -2, kCmdContainer, &xinfo});
  table.add_subcommands("xgroup", kXgroupSubcommands);
  table.add_subcommands("xinfo", kXinfoSubcommands);
}

}  // namespace redsim::sim

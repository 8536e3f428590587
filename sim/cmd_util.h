// Private to sim/: helpers the collection command families (lists, sets,
// sorted sets, keys, strings, hashes) share: typed lookups, the
// delete-when-empty rule, Redis's float parsing and printing, and the
// stable cursor of the SCAN family. Not part of the public API.
//
// Sources: Redis 7.0 src/object.c (getDoubleFromObject, getLongDoubleFromObject),
// src/networking.c (addReplyDouble: "%.17g", "inf", "-inf"), src/util.c
// (ld2string), src/db.c (scanGenericCommand); facts only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/internal.h"
#include "sim/resp/reply.h"

namespace redsim::sim {

// The live entry at `key` in the command's db when it holds `type`;
// nullptr when the key is absent, or when it holds another type (then
// *wrong_type is true).
Entry* lookup_typed(CommandContext& ctx, std::string_view key, ValueType type, bool* wrong_type);

// The end of a write to a collection at `key`: Redis deletes a key whose
// collection became empty; otherwise the key is touched (signalModifiedKey).
void finish_write(Db& db, std::string_view key, bool now_empty);

// SREM, ZREM: erases the members argv[2..] from `c` (nullptr when the key
// is absent), then ends the write and notifies `event` of class `type`
// (and "del" when the key went away). The reply: how many were erased.
template <class Collection>
resp::Reply remove_members(CommandContext& ctx, Collection* c, int type, std::string_view event) {
  if (c == nullptr) return resp::Reply::integer(0);
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.argv.size() && !c->empty(); ++i) {
    if (c->erase(ctx.argv[i])) ++removed;
  }
  ctx.add_dirty(removed);
  if (removed > 0) {
    bool empty = c->empty();
    finish_write(current_db(ctx), ctx.argv[1], empty);
    notify_keyspace_event(ctx, type, event, ctx.argv[1]);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  }
  return resp::Reply::integer(removed);
}

// The end of a *STORE (SINTERSTORE, ZUNIONSTORE, ZRANGESTORE,
// GEOSEARCHSTORE, SORT ... STORE, ...): `result`, a collection of `size`
// elements, replaces whatever `dst` held (its TTL too), the key is touched
// and `event` of class `type` is notified; an empty result deletes `dst`
// instead ("del" when it was there). The reply: `size`. Source: Redis 7.0
// t_set.c sinterGenericCommand / t_zset.c zunionInterDiffGenericCommand
// (setKey or dbDelete, then the event).
resp::Reply store_value(CommandContext& ctx, const std::string& dst, Value result, size_t size,
                        int type, std::string_view event);
template <class Collection>
resp::Reply store_collection(CommandContext& ctx, const std::string& dst, Collection result,
                             int type, std::string_view event) {
  const size_t size = result.size();
  return store_value(ctx, dst, Value(Boxed<Collection>(std::move(result))), size, type, event);
}

// ---- Random members: SRANDMEMBER, HRANDFIELD, ZRANDMEMBER -------------------

// Larger replies than this are refused with "ERR value is not an integer
// or out of range" instead of exhausting memory (Redis would try to build
// them and stall the server).
inline constexpr uint64_t kMaxRandomReply = uint64_t{1} << 26;

// The count of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER: an integer ("ERR
// value is not an integer or out of range") other than INT64_MIN, whose
// negation does not fit ("ERR value is out of range, value must between
// -9223372036854775807 and 9223372036854775807"). Source: Redis 7.0
// getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX).
bool parse_random_count(std::string_view arg, int64_t* count, resp::Reply* error);

// HRANDFIELD key count [WITHVALUES] and ZRANDMEMBER key count [WITHSCORES]
// (argv.size() >= 3), checked in Redis 7.0's order (hrandfieldCommand,
// zrandmemberCommand): the count (above), at most one more argument and it
// `with_option` (a syntax error otherwise), then with the option a count
// whose doubled reply would overflow: "ERR value is out of range".
struct RandomCount {
  int64_t count = 0;  // negative: |count| draws that may repeat
  uint64_t n = 0;     // |count|
  bool with = false;  // WITHVALUES / WITHSCORES given
};
bool parse_random_count_with(const Argv& argv, std::string_view with_option, RandomCount* out,
                             resp::Reply* error);

// `k` distinct positions of [0, n), drawn uniformly with
// Server::random_below (a partial Fisher-Yates), in draw order.
std::vector<size_t> distinct_positions(Server& server, size_t n, size_t k);

// How a random-members command answers a count (not 0) over a collection
// of `size` (> 0) elements: the positions, in reply order. A negative
// count: |count| independent draws (also a count of 1 when `draw_one`,
// ZRANDMEMBER's case); a count at least `size`: every position, ascending
// or, with `whole_descending`, from the last down (ZRANDMEMBER answers its
// whole set from the highest rank); otherwise distinct_positions. False
// (and nothing drawn) when the draws would exceed kMaxRandomReply.
struct RandomPick {
  bool draw_one = false;
  bool whole_descending = false;
};
bool random_positions(Server& server, size_t size, int64_t count, RandomPick pick,
                      std::vector<size_t>* out);

// ---- Options shared across families ------------------------------------------

// SINTERCARD and ZINTERCARD: the arguments from argv[first] on, each
// "LIMIT limit" (a later one wins). *limit: 0 for none. A limit that is not
// a non-negative integer: "ERR LIMIT can't be negative"; anything else: a
// syntax error. Source: Redis 7.0 t_set.c sinterCardCommand, t_zset.c
// zunionInterDiffGenericCommand (facts only).
bool parse_intercard_limit(const Argv& argv, size_t first, int64_t* limit, resp::Reply* error);

// ---- Lists: what the list commands and the blocking ones share ------------
// (defined in cmd_list.cc)

enum class ListEnd { kHead, kTail };

// LEFT (the head) or RIGHT (the tail), any case; false otherwise (a syntax
// error for the caller), as Redis's getListPositionFromObjectOrReply.
bool parse_list_end(std::string_view s, ListEnd* out);

// Removes and returns the element at `end` of `l` (non-empty).
std::string pop_list_end(List& l, ListEnd end);

// LPOP / RPOP key count and the pops of BLPOP, LMPOP, BLMPOP: up to
// `count` elements from `end` of the list `l` at `key` (non-empty), in pop
// order; then "lpop"/"rpop", and the key deleted ("del") if it emptied.
std::vector<std::string> pop_list(CommandContext& ctx, const std::string& key, List& l, ListEnd end,
                                  int64_t count);

// The move of LMOVE / RPOPLPUSH / BLMOVE / BRPOPLPUSH (and a blocked
// BLMOVE served again) once the source `src` holds the list `from`
// (non-empty), to the list at `dst` (which may be `src`). In Redis 7.0's
// order (t_list.c lmoveGenericCommand and lmoveHandlePush): WRONGTYPE when
// `dst` holds another type (nothing moves); else pop at `wherefrom`, push
// at `whereto` of `dst` (created when absent; touched; "lpush"/"rpush"),
// then "lpop"/"rpop" on `src`, and only then `src` is deleted ("del") if
// it is empty, so a move from a key onto itself keeps its element. The
// reply: the element.
resp::Reply list_move(CommandContext& ctx, const std::string& src, List& from,
                      const std::string& dst, ListEnd wherefrom, ListEnd whereto);

// Redis's string2d (getDoubleFromObject): strtod over the whole text, no
// leading space, no NaN; "inf", "+inf", "-inf" accepted. False otherwise.
bool parse_double(std::string_view s, double* out);
// Redis's string2ld (getLongDoubleFromObject), for INCRBYFLOAT/HINCRBYFLOAT.
bool parse_long_double(std::string_view s, long double* out);

// addReplyDouble in Redis 7.0 (RESP2): "inf", "-inf", else printf "%.17g".
std::string format_double(double d);
// ld2string(..., LD_STR_HUMAN): "%.17Lf" with trailing zeros (and a
// trailing '.') removed; INCRBYFLOAT's reply and stored value.
std::string format_long_double(long double d);

// Redis's float-argument error texts.
namespace errors {
resp::Reply not_float();  // ERR value is not a valid float
}

// The SCAN family's cursor over a collection of names: scan_hash
// (sim/keyspace.h) orders them.

// Parses a SCAN-family cursor (strtoull over the whole text, as Redis's
// parseScanCursorOrReply); false when invalid ("ERR invalid cursor").
bool parse_scan_cursor(std::string_view s, uint64_t* out);

// SCAN options shared by SCAN, HSCAN, SSCAN, ZSCAN: MATCH pattern,
// COUNT n (>= 1), TYPE name (SCAN only). An error reply when bad.
struct ScanOptions {
  std::string pattern;  // empty: no MATCH
  bool has_pattern = false;
  int64_t count = 10;
  std::string type;  // empty: no TYPE
  bool has_type = false;
};
bool parse_scan_options(const Argv& argv, size_t first, bool allow_type, ScanOptions* out,
                        resp::Reply* error);

// One page of a scan over `names` (any order): the names whose scan_hash is
// at or after `cursor`, in (hash, name) order, at least `count` of them
// (fewer at the end; a page never splits names of equal hash). Returns the
// indices into `names` and sets *next to the cursor to continue from (0 at
// the end).
std::vector<size_t> scan_page(const std::vector<std::string_view>& names, uint64_t cursor,
                              int64_t count, uint64_t* next);

// One collection as HSCAN, SSCAN and ZSCAN walk it: elements 0..size-1.
struct ScanView {
  size_t size = 0;
  // A compact encoding (listpack, intset): Redis returns it whole in one
  // call, with the cursor 0.
  bool whole = false;
  // Element i's field or member: what MATCH tests and the cursor hashes.
  std::function<std::string_view(size_t)> name;
  // Appends element i to the reply (the member, or field and value, or
  // member and score).
  std::function<void(size_t, std::vector<resp::Reply>*)> emit;
};

// HSCAN, SSCAN, ZSCAN: key cursor [MATCH pattern] [COUNT count]. Checks the
// cursor ("ERR invalid cursor"), the options, then the type of the key
// (WRONGTYPE), in that order; `view` describes the entry found at the key.
// The reply: [next cursor, elements]; an absent key gives ["0", []].
resp::Reply scan_collection(CommandContext& ctx, ValueType type,
                            const std::function<ScanView(Entry&)>& view);

// Families registered by another family's register_* (sim/command.h):
// SORT SORT_RO (cmd_sort.cc) from register_key_commands; BITCOUNT BITPOS
// BITOP BITFIELD BITFIELD_RO (cmd_bitops.cc) from register_string_commands.
void register_sort_commands(CommandTable& table);
// DUMP (cmd_dump.cc) and RESTORE (cmd_restore.cc) from register_key_commands.
void register_dump_commands(CommandTable& table);
// GEOADD GEOPOS GEODIST GEOHASH GEORADIUS* GEOSEARCH* (cmd_geo.cc) from
// register_zset_commands.
void register_geo_commands(CommandTable& table);
void register_bitmap_commands(CommandTable& table);
// PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST (cmd_hll.cc) from register_string_commands.
void register_hll_commands(CommandTable& table);

}  // namespace redsim::sim

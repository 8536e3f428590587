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
  if (removed > 0) {
    bool empty = c->empty();
    finish_write(current_db(ctx), ctx.argv[1], empty);
    notify_keyspace_event(ctx, type, event, ctx.argv[1]);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  }
  return resp::Reply::integer(removed);
}

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
// DUMP RESTORE (cmd_dump.cc) from register_key_commands.
void register_dump_commands(CommandTable& table);
// GEOADD GEOPOS GEODIST GEOHASH GEORADIUS* GEOSEARCH* (cmd_geo.cc) from
// register_zset_commands.
void register_geo_commands(CommandTable& table);
void register_bitmap_commands(CommandTable& table);
// PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST (cmd_hll.cc) from register_string_commands.
void register_hll_commands(CommandTable& table);

}  // namespace redsim::sim

// Private to sim/: what DUMP (cmd_dump.cc, the writer) and RESTORE
// (cmd_restore.cc, the reader) share: the payload framing's version, the
// RDB type numbers and the CRC-64. Not part of the public API.
//
// The payload framing is Redis 7.0's: one RDB object (type byte, then the
// value), the RDB version as 2 little-endian bytes (10), and a CRC-64 (Jones
// polynomial, reflected, as Redis's crc64.c) of everything before it as 8
// little-endian bytes.
//
// Source: Redis 7.0 rdb.h (RDB_VERSION, RDB_TYPE_* numbers), crc64.c;
// facts only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sim/internal.h"
#include "sim/resp/reply.h"

namespace redsim::sim::rdb {

constexpr uint16_t kRdbVersion = 10;
// rdb.h's RDB_TYPE_* numbers: the payload's format, not sim/keyspace.h's
// ValueType (the order of Value's alternatives), though the first names
// match; kList is 1 here and 2 there, kHash 4 here and 1 there.
enum RdbType : uint8_t {
  kString = 0,
  kList = 1,
  kSet = 2,
  kZset = 3,
  kHash = 4,
  kZset2 = 5,
  kIntset = 11,
  kHashListpack = 16,
  kZsetListpack = 17,
  kListQuicklist2 = 18,
  kListZiplist = 10,       // Redis <= 3.0
  kZsetZiplist = 12,       // Redis <= 6.2 (RDB 9)
  kHashZiplist = 13,       // Redis <= 6.2
  kListQuicklist = 14,     // Redis 3.2 to 6.2: ziplist nodes
  kStreamListpacks = 15,   // Redis 5.0 to 6.2 (RDB 9): no first/deleted ids, no entries_read
  kStreamListpacks2 = 19,  // Redis 7.0 (RDB 10)
};

// The CRC-64 of `data` (crc64.c: Jones polynomial, reflected, initial 0).
uint64_t crc64(std::string_view data);
// Continues a CRC-64 over more data (crc64(a + b) == crc64_update(crc64(a), b)).
uint64_t crc64_update(uint64_t crc, std::string_view data);

// rdbSaveLen / rdbSaveRawString (integer and LZF encodings as DUMP uses them).
void put_len(std::string* out, uint64_t len);
void put_string(std::string* out, std::string_view s);
// DUMP's payload of `e` (type byte, value, version, CRC-64); "" for a
// stream, which the fake does not serialize.
std::string dump_payload(const Entry& e);

// The opcodes of an RDB file (rdb.h RDB_OPCODE_*).
enum RdbOpcode : uint8_t {
  kOpFunction2 = 245,
  kOpModuleAux = 247,
  kOpIdle = 248,
  kOpFreq = 249,
  kOpAux = 250,
  kOpResizeDb = 251,
  kOpExpireTimeMs = 252,
  kOpExpireTime = 253,
  kOpSelectDb = 254,
  kOpEof = 255,
};

// One key of an RDB file, as load_file hands it over.
struct LoadedKey {
  int db = 0;
  std::string key;
  Entry entry;             // expire_ms set from the file's EXPIRETIME(_MS)
  int64_t expire_ms = -1;  // -1: none
};
// rdbLoadRio over a whole file ("REDIS" + 4 version digits, opcodes, keys,
// EOF, CRC-64 unless it is 0): calls `on_key` for every key; AUX fields
// are skipped. "" or why the file cannot be loaded.
std::string load_file(std::string_view file, const EncodingLimits& limits,
                      const std::function<void(LoadedKey&&)>& on_key);

}  // namespace redsim::sim::rdb

namespace redsim::sim {

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
// [FREQ frequency] (cmd_restore.cc); register_dump_commands adds it.
resp::Reply restore_command(CommandContext& ctx);

}  // namespace redsim::sim

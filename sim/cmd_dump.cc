// DUMP with Redis 7.0's payload framing (sim/rdb.h); RESTORE, the reader,
// is in cmd_restore.cc.
//
// What DUMP writes: strings as RDB strings (integers up to 32 bits in
// Redis's integer encodings, over 20 bytes LZF-compressed when that saves
// at least 4 bytes, else raw); lists,
// sets, hashes and sorted sets in the plain RDB types (LIST, SET, HASH,
// ZSET_2), which redis-server 7.0 loads. So a string dumps byte for byte
// as Redis dumps it (an HLL too); collections do not (Redis writes its
// listpack/intset/quicklist encodings).
//
// Source: Redis 7.0 rdb.h/rdb.c (type numbers, length and string
// encodings, rdbSaveRawString, rdbSaveLzfStringObject), lzf_c.c and lzfP.h
// (lzf_compress), crc64.c, cluster.c dumpCommand (behaviour and error
// texts); facts only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/rdb.h"

namespace redsim::sim {

using resp::Reply;

namespace rdb {

uint64_t crc64(std::string_view data) { return crc64_update(0, data); }

uint64_t crc64_update(uint64_t crc, std::string_view data) {
  constexpr uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ULL;  // 0xad93d23594c935a9 reflected
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ kPolyReflected : crc >> 1;
  }
  return crc;
}

}  // namespace rdb

namespace {

using enum rdb::RdbType;
using rdb::crc64;
using rdb::kRdbVersion;

// ---- writing ---------------------------------------------------------------

void put_len(std::string* out, uint64_t len) {
  if (len < (1u << 6)) {
    out->push_back(static_cast<char>(len));
  } else if (len < (1u << 14)) {
    out->push_back(static_cast<char>(0x40 | (len >> 8)));
    out->push_back(static_cast<char>(len & 0xff));
  } else if (len <= UINT32_MAX) {
    out->push_back(static_cast<char>(0x80));
    for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((len >> s) & 0xff));
  } else {
    out->push_back(static_cast<char>(0x81));
    for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((len >> s) & 0xff));
  }
}

void put_le(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// lzf_compress as the liblzf Debian's redis-server 7.0.15 links (3.6, the
// settings Redis's own copy uses too: HLOG 16, VERY_FAST, 16-bit literal
// and back-reference opcodes), with an empty hash table. Returns false when
// the result would not fit in `limit` bytes (liblzf returns 0 then).
// Redis leaves the table uninitialised, so a stale slot from an earlier
// compression could in principle make it pick another (valid) match; with
// an empty table the output is the one a fresh process gives.
bool lzf_compress(std::string_view in, size_t limit, std::string* out) {
  constexpr int kHlog = 16;
  constexpr uint32_t kHsize = 1u << kHlog;
  constexpr size_t kMaxOff = 1u << 13;
  constexpr size_t kMaxRef = (1u << 8) + (1u << 3);
  constexpr int kMaxLit = 1 << 5;
  const size_t n = in.size();
  if (n < 3 || limit == 0) return false;
  std::vector<uint32_t> htab(kHsize, 0);  // input positions; 0 never matches
  auto at = [&](size_t i) { return static_cast<uint8_t>(in[i]); };
  auto slot = [](uint32_t h) { return ((h >> (24 - kHlog)) - h * 5) & (kHsize - 1); };
  std::string o(limit + 8, '\0');
  size_t op = 1;  // a literal run's length byte goes at op - lit - 1
  size_t ip = 0;
  int lit = 0;
  // Copies in[ip] into the open literal run; a run that reaches 32 bytes
  // gets its length byte and a byte is kept for the next run's.
  auto emit_literal = [&] {
    ++lit;
    o[op++] = in[ip++];
    if (lit == kMaxLit) {
      o[op - static_cast<size_t>(lit) - 1] = static_cast<char>(lit - 1);
      lit = 0;
      ++op;
    }
  };
  uint32_t hval = (static_cast<uint32_t>(at(0)) << 8) | at(1);
  while (ip + 2 < n) {
    hval = (hval << 8) | at(ip + 2);
    const size_t ref = htab[slot(hval)];
    htab[slot(hval)] = static_cast<uint32_t>(ip);
    const size_t off = ip - ref - 1;
    if (ref > 0 && ref < ip && off < kMaxOff && at(ref + 2) == at(ip + 2) && at(ref) == at(ip) &&
        at(ref + 1) == at(ip + 1)) {
      size_t len = 2;
      const size_t maxlen = std::min(n - ip - len, kMaxRef);
      if (op + 3 + 1 >= limit && op - (lit == 0 ? 1 : 0) + 3 + 1 >= limit) return false;
      o[op - static_cast<size_t>(lit) - 1] = static_cast<char>(lit - 1);
      if (lit == 0) --op;
      // Up to 16 bytes compared without the length bound first, as liblzf
      // does when more than 16 may match.
      bool stopped = false;
      if (maxlen > 16) {
        for (int k = 0; k < 16 && !stopped; ++k) {
          ++len;
          stopped = at(ref + len) != at(ip + len);
        }
      }
      if (!stopped) {
        do {
          ++len;
        } while (len < maxlen && at(ref + len) == at(ip + len));
      }
      len -= 2;
      ++ip;
      if (len < 7) {
        o[op++] = static_cast<char>((off >> 8) + (len << 5));
      } else {
        o[op++] = static_cast<char>((off >> 8) + (7 << 5));
        o[op++] = static_cast<char>(len - 7);
      }
      o[op++] = static_cast<char>(off & 0xff);
      lit = 0;
      ++op;
      ip += len + 1;
      if (ip + 2 >= n) break;
      ip -= 2;
      hval = (static_cast<uint32_t>(at(ip)) << 8) | at(ip + 1);
      for (int k = 0; k < 2; ++k) {
        hval = (hval << 8) | at(ip + 2);
        htab[slot(hval)] = static_cast<uint32_t>(ip);
        ++ip;
      }
    } else {
      if (op >= limit) return false;
      emit_literal();
    }
  }
  if (op + 3 > limit) return false;
  while (ip < n) emit_literal();
  o[op - static_cast<size_t>(lit) - 1] = static_cast<char>(lit - 1);
  if (lit == 0) --op;
  o.resize(op);
  *out = std::move(o);
  return true;
}

// rdbSaveRawString (rdbcompression yes): up to 11 bytes that are a
// canonical integer within 32 bits use the integer encodings; over 20 bytes
// the LZF form (0xc3, compressed length, length, data) when it compresses
// to at most length - 4 bytes; else the raw bytes.
void put_string(std::string* out, std::string_view s) {
  int64_t v = 0;
  if (s.size() <= 11 && parse_int64(s, &v) && std::to_string(v) == s) {
    if (v >= INT8_MIN && v <= INT8_MAX) {
      out->push_back(static_cast<char>(0xc0));
      put_le(out, static_cast<uint64_t>(v), 1);
      return;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
      out->push_back(static_cast<char>(0xc1));
      put_le(out, static_cast<uint64_t>(v), 2);
      return;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
      out->push_back(static_cast<char>(0xc2));
      put_le(out, static_cast<uint64_t>(v), 4);
      return;
    }
  }
  std::string packed;
  if (s.size() > 20 && lzf_compress(s, s.size() - 4, &packed)) {
    out->push_back(static_cast<char>(0xc3));
    put_len(out, packed.size());
    put_len(out, s.size());
    out->append(packed);
    return;
  }
  put_len(out, s.size());
  out->append(s);
}

std::string serialize(const Entry& e) {
  std::string out;
  switch (e.type()) {
    case ValueType::kString:
      out.push_back(static_cast<char>(kString));
      put_string(&out, e.str());
      break;
    case ValueType::kList:
      out.push_back(static_cast<char>(kList));
      put_len(&out, e.list().size());
      for (const std::string& s : e.list()) put_string(&out, s);
      break;
    case ValueType::kSet:
      out.push_back(static_cast<char>(kSet));
      put_len(&out, e.set().size());
      for (const std::string& s : e.set().members()) put_string(&out, s);
      break;
    case ValueType::kHash:
      out.push_back(static_cast<char>(kHash));
      put_len(&out, e.hash().size());
      for (const auto& [f, v] : e.hash().entries()) {
        put_string(&out, f);
        put_string(&out, v);
      }
      break;
    case ValueType::kZset: {
      out.push_back(static_cast<char>(kZset2));
      const Zset& z = e.zset();
      put_len(&out, z.size());
      // Redis writes from the highest rank down.
      for (size_t i = z.size(); i > 0; --i) {
        put_string(&out, z.at(i - 1).member);
        uint64_t bits = 0;
        double d = z.at(i - 1).score;
        std::memcpy(&bits, &d, sizeof bits);
        put_le(&out, bits, 8);
      }
      break;
    }
    case ValueType::kStream:
      break;  // refused by dump() before it gets here
  }
  put_le(&out, kRdbVersion, 2);
  put_le(&out, crc64(out), 8);
  return out;
}

Reply dump(CommandContext& ctx) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::nil();
  // Redis writes a stream as RDB_TYPE_STREAM_LISTPACKS_2; the fake does not
  // (its streams are not listpacks), so it says so rather than send a
  // payload Redis could not read.
  if (e->type() == ValueType::kStream) {
    return Reply::error("ERR DUMP of a stream is not supported by redsim");
  }
  return Reply::bulk(serialize(*e));
}

}  // namespace

namespace rdb {

void put_len(std::string* out, uint64_t len) { sim::put_len(out, len); }
void put_string(std::string* out, std::string_view s) { sim::put_string(out, s); }
std::string dump_payload(const Entry& e) {
  return e.type() == ValueType::kStream ? std::string() : serialize(e);
}

}  // namespace rdb

void register_dump_commands(CommandTable& table) {
  table.add({"dump", 2, kCmdReadonly, &dump});
  table.add({"restore", -4, kCmdWrite | kCmdDenyOom, &restore_command});
}

}  // namespace redsim::sim

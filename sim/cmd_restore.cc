// RESTORE with Redis 7.0's payload framing (sim/rdb.h); DUMP, the writer,
// is in cmd_dump.cc.
//
// What RESTORE reads: what DUMP writes (strings, the plain RDB types LIST,
// SET, HASH, ZSET_2), plus Redis's own 7.0 encodings (LZF strings,
// intset, hash/zset listpacks, quicklist 2, ziplist-free), so the payloads
// redis-server 7.0.15 dumps restore here.
// Older payloads load too: ziplist-based lists, hashes and sorted sets, and
// the 6.2 stream listpacks.
//
// Source: Redis 7.0 rdb.h/rdb.c (type numbers, length and string
// encodings, rdbLoadObject), listpack.c (entry encodings), ziplist.c,
// intset.c, t_stream.c, lzf_d.c, crc64.c, cluster.c
// restoreCommand/verifyDumpPayload (behaviour and error texts); facts only.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_stream.h"
#include "sim/cmd_util.h"
#include "sim/rdb.h"

namespace redsim::sim {

using resp::Reply;

namespace {

using enum rdb::RdbType;
using rdb::crc64;
using rdb::kRdbVersion;

// ---- reading ---------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }

  uint8_t byte() {
    if (pos_ >= data_.size()) return fail(), 0;
    return static_cast<uint8_t>(data_[pos_++]);
  }
  std::string_view bytes(uint64_t n) {
    if (n > data_.size() - pos_) return fail(), std::string_view();
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  uint64_t le(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(byte()) << (8 * i);
    return v;
  }
  // rdbLoadLen: *encoded when the value is a special string encoding.
  uint64_t len(bool* encoded = nullptr) {
    if (encoded != nullptr) *encoded = false;
    uint8_t b = byte();
    switch (b >> 6) {
      case 0:
        return b & 0x3f;
      case 1:
        return (static_cast<uint64_t>(b & 0x3f) << 8) | byte();
      case 2: {
        int n = b == 0x80 ? 4 : (b == 0x81 ? 8 : 0);
        if (n == 0) return fail(), 0;
        uint64_t v = 0;
        for (int i = 0; i < n; ++i) v = (v << 8) | byte();
        return v;
      }
      default:
        if (encoded == nullptr) return fail(), 0;
        *encoded = true;
        return b & 0x3f;
    }
  }
  // rdbGenericLoadStringObject: raw, integer or LZF-compressed.
  std::string string() {
    bool encoded = false;
    uint64_t n = len(&encoded);
    if (!ok_) return {};
    if (!encoded) return std::string(bytes(n));
    switch (n) {
      case 0:
        return std::to_string(static_cast<int8_t>(le(1)));
      case 1:
        return std::to_string(static_cast<int16_t>(le(2)));
      case 2:
        return std::to_string(static_cast<int32_t>(le(4)));
      case 3: {
        uint64_t clen = len();
        uint64_t ulen = len();
        std::string_view c = bytes(clen);
        std::string out;
        if (!ok_ || !lzf_decompress(c, ulen, &out)) return fail(), std::string();
        return out;
      }
      default:
        return fail(), std::string();
    }
  }
  void fail() { ok_ = false; }

 private:
  static bool lzf_decompress(std::string_view in, uint64_t ulen, std::string* out) {
    size_t i = 0;
    while (i < in.size()) {
      unsigned ctrl = static_cast<unsigned char>(in[i++]);
      if (ctrl < 32) {
        size_t run = ctrl + 1;
        if (i + run > in.size()) return false;
        out->append(in.substr(i, run));
        i += run;
      } else {
        size_t run = ctrl >> 5;
        if (run == 7) {
          if (i >= in.size()) return false;
          run += static_cast<unsigned char>(in[i++]);
        }
        if (i >= in.size()) return false;
        size_t back = ((ctrl & 0x1f) << 8) + static_cast<unsigned char>(in[i++]) + 1;
        if (back > out->size()) return false;
        size_t from = out->size() - back;
        for (size_t k = 0; k < run + 2; ++k) out->push_back((*out)[from + k]);
      }
      if (out->size() > ulen) return false;
    }
    return out->size() == ulen;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The elements of a listpack blob, integers as decimal text.
std::optional<std::vector<std::string>> listpack_entries(std::string_view lp) {
  if (lp.size() < 7) return std::nullopt;
  Reader r(lp);
  const uint64_t total = r.le(4);
  r.le(2);  // element count (may be the "unknown" 65535)
  if (total != lp.size()) return std::nullopt;
  std::vector<std::string> out;
  for (;;) {
    uint8_t b = r.byte();
    if (!r.ok()) return std::nullopt;
    if (b == 0xff) break;
    uint64_t entry = 0;  // encoding + data bytes, for the back length
    if ((b & 0x80) == 0) {
      out.push_back(std::to_string(b & 0x7f));
      entry = 1;
    } else if ((b & 0xc0) == 0x80) {
      uint64_t n = b & 0x3f;
      out.emplace_back(r.bytes(n));
      entry = 1 + n;
    } else if ((b & 0xe0) == 0xc0) {
      int64_t v = (static_cast<int64_t>(b & 0x1f) << 8) | r.byte();
      if (v >= (1 << 12)) v -= (1 << 13);
      out.push_back(std::to_string(v));
      entry = 2;
    } else if ((b & 0xf0) == 0xe0) {
      uint64_t n = (static_cast<uint64_t>(b & 0x0f) << 8) | r.byte();
      out.emplace_back(r.bytes(n));
      entry = 2 + n;
    } else if (b == 0xf0) {
      uint64_t n = r.le(4);
      out.emplace_back(r.bytes(n));
      entry = 5 + n;
    } else if (b >= 0xf1 && b <= 0xf4) {
      const int n = b == 0xf1 ? 2 : (b == 0xf2 ? 3 : (b == 0xf3 ? 4 : 8));
      uint64_t u = r.le(n);
      int64_t v = 0;
      if (n == 8) {
        v = static_cast<int64_t>(u);
      } else {
        const uint64_t sign = uint64_t{1} << (8 * n - 1);
        v = (u & sign) ? static_cast<int64_t>(u | ~((sign << 1) - 1)) : static_cast<int64_t>(u);
      }
      out.push_back(std::to_string(v));
      entry = 1 + static_cast<uint64_t>(n);
    } else {
      return std::nullopt;
    }
    const int backlen = entry < 128         ? 1
                        : entry < 16384     ? 2
                        : entry < 2097152   ? 3
                        : entry < 268435456 ? 4
                                            : 5;
    r.bytes(static_cast<uint64_t>(backlen));
    if (!r.ok()) return std::nullopt;
  }
  if (!r.at_end()) return std::nullopt;
  return out;
}

// The elements of a ziplist blob (ziplist.c, the encoding before listpack
// that RDB 9 payloads use), integers as decimal text.
std::optional<std::vector<std::string>> ziplist_entries(std::string_view zl) {
  if (zl.size() < 11) return std::nullopt;
  Reader r(zl);
  const uint64_t total = r.le(4);
  r.le(4);  // tail offset
  r.le(2);  // element count (may be the "unknown" 65535)
  if (total != zl.size()) return std::nullopt;
  std::vector<std::string> out;
  for (;;) {
    uint8_t b = r.byte();
    if (!r.ok()) return std::nullopt;
    if (b == 0xff) break;
    if (b == 0xfe) r.le(4);  // prevlen: 1 byte, or 0xfe and 4 bytes
    const uint8_t enc = r.byte();
    if (!r.ok()) return std::nullopt;
    switch (enc >> 6) {
      case 0:
        out.emplace_back(r.bytes(enc & 0x3f));
        break;
      case 1:
        out.emplace_back(r.bytes((static_cast<uint64_t>(enc & 0x3f) << 8) | r.byte()));
        break;
      case 2: {
        uint64_t n = 0;
        for (int i = 0; i < 4; ++i) n = (n << 8) | r.byte();
        out.emplace_back(r.bytes(n));
        break;
      }
      default: {
        int64_t v = 0;
        if (enc == 0xc0) {
          v = static_cast<int16_t>(r.le(2));
        } else if (enc == 0xd0) {
          v = static_cast<int32_t>(r.le(4));
        } else if (enc == 0xe0) {
          v = static_cast<int64_t>(r.le(8));
        } else if (enc == 0xf0) {
          uint64_t u = r.le(3);
          v = (u & 0x800000) ? static_cast<int64_t>(u) - 0x1000000 : static_cast<int64_t>(u);
        } else if (enc == 0xfe) {
          v = static_cast<int8_t>(r.byte());
        } else if (enc >= 0xf1 && enc <= 0xfd) {
          v = (enc & 0x0f) - 1;
        } else {
          return std::nullopt;
        }
        out.push_back(std::to_string(v));
      }
    }
    if (!r.ok()) return std::nullopt;
  }
  if (!r.at_end()) return std::nullopt;
  return out;
}

// A listpack element holding an integer (as listpack_entries prints it).
bool lp_int(const std::string& s, int64_t* out) { return parse_int64(s, out); }

// streamDecodeID / rdbLoadRaw of a stream id: 16 bytes, ms then seq, big endian.
bool raw_id(std::string_view b, StreamId* id) {
  if (b.size() != 16) return false;
  id->ms = id->seq = 0;
  for (int i = 0; i < 8; ++i) id->ms = (id->ms << 8) | static_cast<unsigned char>(b[i]);
  for (int i = 8; i < 16; ++i) id->seq = (id->seq << 8) | static_cast<unsigned char>(b[i]);
  return true;
}

// One stream listpack node (t_stream.c's layout): the master entry (count,
// deleted, the master fields, a 0 terminator), then per entry its flags,
// ms and seq deltas from `master`, its fields (or only values when flagged
// SAMEFIELDS) and its lp-count. Live entries go to `s`; the node's shape
// to s.nodes. False on a malformed node.
bool load_stream_node(StreamId master, std::string_view lp, Stream& s) {
  constexpr int64_t kDeleted = 1;
  constexpr int64_t kSameFields = 2;
  auto items = listpack_entries(lp);
  if (!items || items->empty()) return false;  // "Empty listpack inside stream"
  const std::vector<std::string>& v = *items;
  size_t i = 0;
  auto next_int = [&](int64_t* out) { return i < v.size() && lp_int(v[i++], out); };
  int64_t count = 0;
  int64_t deleted = 0;
  int64_t master_fields = 0;
  if (!next_int(&count) || !next_int(&deleted) || !next_int(&master_fields)) return false;
  if (count < 0 || deleted < 0 || master_fields < 0 ||
      static_cast<uint64_t>(master_fields) > v.size() - i) {
    return false;
  }
  std::vector<std::string> fields(v.begin() + static_cast<std::ptrdiff_t>(i),
                                  v.begin() + static_cast<std::ptrdiff_t>(i + master_fields));
  i += static_cast<size_t>(master_fields);
  int64_t terminator = 0;
  if (!next_int(&terminator)) return false;
  Stream::Node node;
  node.first = master;
  node.last = master;
  node.bytes = lp.size();
  int64_t seen_live = 0;
  int64_t seen_deleted = 0;
  while (i < v.size()) {
    int64_t flags = 0;
    int64_t ms_diff = 0;
    int64_t seq_diff = 0;
    if (!next_int(&flags) || !next_int(&ms_diff) || !next_int(&seq_diff)) return false;
    StreamId id{master.ms + static_cast<uint64_t>(ms_diff),
                master.seq + static_cast<uint64_t>(seq_diff)};
    Stream::Fields f;
    if (flags & kSameFields) {
      if (fields.size() > v.size() - i) return false;
      for (const std::string& name : fields) {
        f.push_back(name);
        f.push_back(v[i++]);
      }
    } else {
      int64_t n = 0;
      if (!next_int(&n) || n < 0 || static_cast<uint64_t>(n) > (v.size() - i) / 2) return false;
      for (int64_t k = 0; k < 2 * n; ++k) f.push_back(v[i++]);
    }
    int64_t lp_count = 0;
    if (!next_int(&lp_count)) return false;
    if (id < master || (s.nodes.empty() ? false : !(s.nodes.back().last < id))) return false;
    if (!(node.last < id) && !(id == master && seen_live + seen_deleted == 0)) return false;
    node.last = id;
    if (flags & kDeleted) {
      ++seen_deleted;
    } else {
      ++seen_live;
      s.entries.emplace(id, std::move(f));
    }
  }
  if (seen_live != count || seen_deleted != deleted) return false;
  node.added = static_cast<uint64_t>(count + deleted);
  node.live = static_cast<uint64_t>(count);
  s.nodes.push_back(node);
  return true;
}

// rdbLoadObject's RDB_TYPE_STREAM_LISTPACKS(_2): the nodes, the length and
// ids, then each consumer group with its PEL and consumers. A 6.2 payload
// (kStreamListpacks) has no first and max-deleted ids nor entries_added
// (Redis takes the length) nor a group's entries_read (estimated from its
// last id, streamEstimateDistanceFromFirstEverEntry).
std::optional<Stream> load_stream(Reader& r, uint8_t type) {
  Stream s;
  for (uint64_t n = r.len(); r.ok() && n > 0; --n) {
    std::string key = r.string();
    std::string lp = r.string();
    StreamId master;
    if (!r.ok() || !raw_id(key, &master)) return std::nullopt;
    if (!load_stream_node(master, lp, s)) return std::nullopt;
  }
  const uint64_t length = r.len();
  s.last_id.ms = r.len();
  s.last_id.seq = r.len();
  if (!r.ok() || length != s.entries.size()) return std::nullopt;
  if (type == kStreamListpacks2) {
    r.len();  // first id: the first entry's, which the fake reads off its entries
    r.len();
    s.max_deleted_id.ms = r.len();
    s.max_deleted_id.seq = r.len();
    s.entries_added = r.len();
  } else {
    s.entries_added = length;
  }
  if (!s.entries.empty() && s.last_id < s.entries.rbegin()->first) return std::nullopt;
  for (uint64_t groups = r.len(); r.ok() && groups > 0; --groups) {
    std::string name = r.string();
    StreamGroup g;
    g.last_id.ms = r.len();
    g.last_id.seq = r.len();
    if (type == kStreamListpacks2) {
      g.entries_read = static_cast<int64_t>(r.len());
    } else {
      g.entries_read = estimate_entries_read(s, g.last_id);
    }
    for (uint64_t pel = r.len(); r.ok() && pel > 0; --pel) {
      StreamId id;
      if (!raw_id(r.bytes(16), &id)) return std::nullopt;
      StreamNack nack;
      nack.delivery_time_ms = static_cast<int64_t>(r.le(8));
      nack.delivery_count = r.len();
      if (!r.ok() || !g.pending.emplace(id, std::move(nack)).second) return std::nullopt;
    }
    for (uint64_t consumers = r.len(); r.ok() && consumers > 0; --consumers) {
      std::string cname = r.string();
      StreamConsumer c;
      c.seen_time_ms = static_cast<int64_t>(r.le(8));
      for (uint64_t pel = r.len(); r.ok() && pel > 0; --pel) {
        StreamId id;
        if (!raw_id(r.bytes(16), &id)) return std::nullopt;
        auto it = g.pending.find(id);
        // "Consumer PEL entry not found in group global PEL"
        if (it == g.pending.end() || !it->second.consumer.empty()) return std::nullopt;
        it->second.consumer = cname;
        c.pending.insert(id);
      }
      if (!r.ok() || !g.consumers.emplace(std::move(cname), std::move(c)).second) {
        return std::nullopt;
      }
    }
    // Every pending entry has an owner (the fake's groups need one).
    for (const auto& [id, nack] : g.pending) {
      if (nack.consumer.empty()) return std::nullopt;
    }
    if (!r.ok() || !s.groups.emplace(std::move(name), std::move(g)).second) return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  return s;
}

// rdbLoadObject for the types above; nullopt on a bad payload.
std::optional<Entry> read_object(Reader& r, uint8_t type, const EncodingLimits& limits) {
  Entry e;
  switch (type) {
    case kString:
      e.value = r.string();
      break;
    case kList: {
      List l;
      for (uint64_t n = r.len(); r.ok() && n > 0; --n) l.push_back(r.string());
      e.value = std::move(l);
      break;
    }
    case kListQuicklist2: {
      List l;
      for (uint64_t n = r.len(); r.ok() && n > 0; --n) {
        const uint64_t container = r.len();
        std::string blob = r.string();
        if (!r.ok()) break;
        if (container == 1) {
          l.push_back(std::move(blob));
        } else if (container == 2) {
          auto items = listpack_entries(blob);
          if (!items) return std::nullopt;
          for (std::string& s : *items) l.push_back(std::move(s));
        } else {
          return std::nullopt;
        }
      }
      e.value = std::move(l);
      break;
    }
    case kListZiplist:
    case kListQuicklist: {
      List l;
      for (uint64_t n = type == kListZiplist ? 1 : r.len(); r.ok() && n > 0; --n) {
        auto items = ziplist_entries(r.string());
        if (!r.ok() || !items || items->empty()) return std::nullopt;
        for (std::string& s : *items) l.push_back(std::move(s));
      }
      e.value = std::move(l);
      break;
    }
    case kHashZiplist:
    case kZsetZiplist: {
      auto items = ziplist_entries(r.string());
      if (!r.ok() || !items || items->size() % 2 != 0) return std::nullopt;
      if (type == kHashZiplist) {
        Hash h;
        for (size_t i = 0; i < items->size(); i += 2) {
          if (!h.set((*items)[i], (*items)[i + 1], limits)) return std::nullopt;  // duplicate
        }
        e.value = std::move(h);
      } else {
        Zset z;
        for (size_t i = 0; i < items->size(); i += 2) {
          double d = 0;
          if (!parse_double((*items)[i + 1], &d) || std::isnan(d)) return std::nullopt;
          z.set((*items)[i], d, limits);
        }
        e.value = std::move(z);
      }
      break;
    }
    case kSet: {
      Set s;
      for (uint64_t n = r.len(); r.ok() && n > 0; --n) s.add(r.string(), limits);
      e.value = std::move(s);
      break;
    }
    case kIntset: {
      std::string blob = r.string();
      Reader ir(blob);
      const uint64_t width = ir.le(4);
      const uint64_t count = ir.le(4);
      if (width != 2 && width != 4 && width != 8) return std::nullopt;
      Set s;
      for (uint64_t i = 0; i < count && ir.ok(); ++i) {
        const uint64_t u = ir.le(static_cast<int>(width));
        int64_t v = width == 2   ? static_cast<int16_t>(u)
                    : width == 4 ? static_cast<int32_t>(u)
                                 : static_cast<int64_t>(u);
        s.add(std::to_string(v), limits);
      }
      if (!ir.ok() || !ir.at_end()) return std::nullopt;
      e.value = std::move(s);
      break;
    }
    case kHash: {
      Hash h;
      for (uint64_t n = r.len(); r.ok() && n > 0; --n) {
        std::string f = r.string();
        std::string v = r.string();
        h.set(f, v, limits);
      }
      e.value = std::move(h);
      break;
    }
    case kHashListpack: {
      auto items = listpack_entries(r.string());
      if (!r.ok() || !items || items->size() % 2 != 0) return std::nullopt;
      Hash h;
      for (size_t i = 0; i < items->size(); i += 2) h.set((*items)[i], (*items)[i + 1], limits);
      e.value = std::move(h);
      break;
    }
    case kZset:
    case kZset2: {
      Zset z;
      for (uint64_t n = r.len(); r.ok() && n > 0; --n) {
        std::string m = r.string();
        double d = 0;
        if (type == kZset2) {
          uint64_t bits = r.le(8);
          std::memcpy(&d, &bits, sizeof d);
        } else {
          uint8_t dl = r.byte();
          if (dl == 253) {
            d = std::numeric_limits<double>::quiet_NaN();
          } else if (dl == 254) {
            d = std::numeric_limits<double>::infinity();
          } else if (dl == 255) {
            d = -std::numeric_limits<double>::infinity();
          } else if (!parse_double(r.bytes(dl), &d)) {
            return std::nullopt;
          }
        }
        if (std::isnan(d)) return std::nullopt;
        z.set(m, d, limits);
      }
      e.value = std::move(z);
      break;
    }
    case kZsetListpack: {
      auto items = listpack_entries(r.string());
      if (!r.ok() || !items || items->size() % 2 != 0) return std::nullopt;
      Zset z;
      for (size_t i = 0; i < items->size(); i += 2) {
        double d = 0;
        if (!parse_double((*items)[i + 1], &d)) return std::nullopt;
        z.set((*items)[i], d, limits);
      }
      e.value = std::move(z);
      break;
    }
    case kStreamListpacks:
    case kStreamListpacks2: {
      std::optional<Stream> s = load_stream(r, type);
      if (!s) return std::nullopt;
      e.value = std::move(*s);
      break;
    }
    default:
      return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  // Redis never stores an empty collection (a stream may be empty).
  if (!e.is_string() && e.type() != ValueType::kStream) {
    bool empty = e.is_list()   ? e.list().empty()
                 : e.is_set()  ? e.set().empty()
                 : e.is_hash() ? e.hash().empty()
                               : e.zset().empty();
    if (empty) return std::nullopt;
  }
  return e;
}

std::optional<Entry> deserialize(std::string_view payload, const EncodingLimits& limits) {
  Reader r(payload.substr(0, payload.size() - 10));
  const uint8_t type = r.byte();
  std::optional<Entry> e = read_object(r, type, limits);
  if (!e || !r.at_end()) return std::nullopt;
  return e;
}

// verifyDumpPayload: the version and the CRC-64 footer.
bool payload_ok(std::string_view p) {
  if (p.size() < 10) return false;
  const size_t n = p.size();
  const uint16_t version = static_cast<uint16_t>(static_cast<unsigned char>(p[n - 10]) |
                                                 (static_cast<unsigned char>(p[n - 9]) << 8));
  if (version > kRdbVersion) return false;
  uint64_t want = 0;
  for (int i = 0; i < 8; ++i)
    want |= static_cast<uint64_t>(static_cast<unsigned char>(p[n - 8 + i])) << (8 * i);
  return crc64(p.substr(0, n - 8)) == want;
}

}  // namespace

// rdbLoadRioWithLoadingCtx: the header, then opcodes and keys until EOF.
std::string rdb::load_file(std::string_view file, const EncodingLimits& limits,
                           const std::function<void(LoadedKey&&)>& on_key) {
  if (file.size() < 9 || file.substr(0, 5) != "REDIS") return "Wrong signature trying to load DB";
  int version = 0;
  for (char c : file.substr(5, 4)) {
    if (c < '0' || c > '9') return "Wrong signature trying to load DB";
    version = version * 10 + (c - '0');
  }
  if (version < 1 || version > kRdbVersion) {
    return "Can't handle RDB format version " + std::to_string(version);
  }
  Reader r(file.substr(9));
  int db = 0;
  int64_t expire_ms = -1;
  while (true) {
    const uint8_t type = r.byte();
    if (!r.ok()) return "Short read or OOM loading DB";
    if (type == kOpEof) break;
    switch (type) {
      case kOpExpireTime:
        expire_ms = static_cast<int64_t>(r.le(4)) * 1000;
        continue;
      case kOpExpireTimeMs:
        expire_ms = static_cast<int64_t>(r.le(8));
        continue;
      case kOpFreq:
        r.byte();
        continue;
      case kOpIdle:
        r.len();
        continue;
      case kOpSelectDb:
        db = static_cast<int>(r.len());
        continue;
      case kOpResizeDb:
        r.len();
        r.len();
        continue;
      case kOpAux:
        r.string();
        r.string();
        continue;
      case kOpFunction2:
        return "redsim does not load functions from an RDB file";
      case kOpModuleAux:
        return "redsim does not load module data from an RDB file";
      default:
        break;
    }
    LoadedKey k;
    k.db = db;
    k.key = r.string();
    std::optional<Entry> e = read_object(r, type, limits);
    if (!r.ok() || !e) return "Bad data format loading key type " + std::to_string(type);
    k.entry = std::move(*e);
    k.expire_ms = std::exchange(expire_ms, -1);
    on_key(std::move(k));
  }
  const size_t body = file.size() - r.remaining();
  if (version >= 5 && r.remaining() >= 8) {
    const uint64_t want = r.le(8);
    if (want != 0 && crc64(file.substr(0, body)) != want) return "Wrong RDB checksum";
  }
  return "";
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
// [FREQ frequency]. IDLETIME and FREQ are checked, not kept (no LRU/LFU).
Reply restore_command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool replace = false;
  bool absttl = false;
  bool idle = false;
  bool freq = false;
  for (size_t j = 4; j < argv.size(); ++j) {
    const bool more = j + 1 < argv.size();
    if (equals_ci(argv[j], "replace")) {
      replace = true;
    } else if (equals_ci(argv[j], "absttl")) {
      absttl = true;
    } else if (equals_ci(argv[j], "idletime") && more && !freq) {
      int64_t v = 0;
      if (!parse_int64(argv[j + 1], &v)) return errors::not_integer();
      if (v < 0) return Reply::error("ERR Invalid IDLETIME value, must be >= 0");
      idle = true;
      ++j;
    } else if (equals_ci(argv[j], "freq") && more && !idle) {
      int64_t v = 0;
      if (!parse_int64(argv[j + 1], &v)) return errors::not_integer();
      if (v < 0 || v > 255) return Reply::error("ERR Invalid FREQ value, must be >= 0 and <= 255");
      freq = true;
      ++j;
    } else {
      return errors::syntax();
    }
  }
  Db& db = current_db(ctx);
  const std::string& key = argv[1];
  if (!replace && db.lookup(key, ctx.now_ms) != nullptr) {
    return Reply::error("BUSYKEY Target key name already exists.");
  }
  int64_t ttl = 0;
  if (!parse_int64(argv[2], &ttl)) return errors::not_integer();
  if (ttl < 0) return Reply::error("ERR Invalid TTL value, must be >= 0");
  if (!payload_ok(argv[3])) return Reply::error("ERR DUMP payload version or checksum are wrong");
  std::optional<Entry> value = deserialize(argv[3], ServerAccess::keyspace(ctx.server).limits());
  if (!value) return Reply::error("ERR Bad data format");
  const bool deleted = replace && db.remove(key);
  if (ttl != 0 && !absttl) ttl += ctx.now_ms;
  if (ttl != 0 && ttl <= ctx.now_ms) {
    if (deleted) notify_keyspace_event(ctx, notify::kGeneric, "del", key);
    return Reply::ok();
  }
  Entry& stored = db.put(key, std::move(*value));
  if (ttl != 0) db.set_expire(key, stored, ttl);
  db.touch(key);
  ctx.add_dirty(1);  // restoreCommand: one change, a replaced key included
  notify_keyspace_event(ctx, notify::kGeneric, "restore", key);
  return Reply::ok();
}

}  // namespace redsim::sim

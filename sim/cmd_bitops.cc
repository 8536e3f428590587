// Bitmap commands over string values: BITCOUNT (BYTE|BIT ranges), BITPOS,
// BITOP AND|OR|XOR|NOT, BITFIELD and BITFIELD_RO (GET, SET, INCRBY on
// i1..i64 and u1..u63 fields at a bit offset or a "#n" field index, with
// OVERFLOW WRAP|SAT|FAIL). Bit 0 is the most significant bit of the first
// byte, as SETBIT/GETBIT number them.
//
// Source: Redis 7.0 bitops.c behaviour (facts only), texts checked against
// redis-server 7.0.15:
// - BITCOUNT/BITPOS ranges are inclusive, negative from the end, clamped;
//   BITPOS of a clear bit without an explicit end treats the string as
//   padded with zeros (the first bit past it); with an end given, -1.
// - BITOP pads shorter inputs with zero bytes, stores a raw string of the
//   longest input's length (deletes the destination when that is 0) and
//   replies with that length.
// - BITFIELD parses every operation first, then grows the string to the
//   highest bit any SET/INCRBY touches, then runs them in order. FAIL skips
//   the write and answers nil for that operation; SAT clamps; WRAP wraps.
//   The key is signalled ("setbit") only when it was created or grown or a
//   field's value really changed (7.0.15).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr const char* kBitOffsetError = "ERR bit offset is not an integer or out of range";

int64_t popcount(std::string_view s, size_t from, size_t to) {  // bytes [from, to]
  int64_t n = 0;
  for (size_t i = from; i <= to; ++i) n += std::popcount(static_cast<unsigned char>(s[i]));
  return n;
}

int bit_at(std::string_view s, uint64_t bit) {
  return (static_cast<unsigned char>(s[bit >> 3]) >> (7 - (bit & 7))) & 1;
}

// BITCOUNT key [start end [BYTE|BIT]].
Reply bitcount(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  Entry* e = current_db(ctx).lookup(argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(0);
  if (!e->is_string()) return errors::wrong_type();
  const std::string& s = e->str();
  int64_t start = 0;
  int64_t end = 0;
  bool isbit = false;
  if (argv.size() == 4 || argv.size() == 5) {
    int64_t total = static_cast<int64_t>(s.size());
    if (!parse_int64(argv[2], &start) || !parse_int64(argv[3], &end)) return errors::not_integer();
    if (argv.size() == 5) {
      if (equals_ci(argv[4], "bit")) {
        isbit = true;
      } else if (!equals_ci(argv[4], "byte")) {
        return errors::syntax();
      }
    }
    if (isbit) total <<= 3;
    if (start < 0 && end < 0 && start > end) return Reply::integer(0);
    if (start < 0) start += total;
    if (end < 0) end += total;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= total) end = total - 1;
  } else if (argv.size() == 2) {
    end = static_cast<int64_t>(s.size()) - 1;
  } else {
    return errors::syntax();
  }
  if (start > end) return Reply::integer(0);
  if (!isbit)
    return Reply::integer(popcount(s, static_cast<size_t>(start), static_cast<size_t>(end)));
  // Whole bytes in the middle, single bits at the edges.
  int64_t count = 0;
  uint64_t b = static_cast<uint64_t>(start);
  const uint64_t last = static_cast<uint64_t>(end);
  while (b <= last && (b & 7) != 0) count += bit_at(s, b++);
  while (b + 7 <= last) {
    count += std::popcount(static_cast<unsigned char>(s[b >> 3]));
    b += 8;
  }
  while (b <= last) count += bit_at(s, b++);
  return Reply::integer(count);
}

// BITPOS key bit [start [end [BYTE|BIT]]].
Reply bitpos(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  int64_t bit = 0;
  if (!parse_int64(argv[2], &bit)) return errors::not_integer();
  if (bit != 0 && bit != 1) return Reply::error("ERR The bit argument must be 1 or 0.");
  Entry* e = current_db(ctx).lookup(argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(bit ? -1 : 0);
  if (!e->is_string()) return errors::wrong_type();
  const std::string& s = e->str();
  int64_t start = 0;
  int64_t end = 0;
  bool isbit = false;
  bool end_given = false;
  if (argv.size() >= 4 && argv.size() <= 6) {
    int64_t total = static_cast<int64_t>(s.size());
    if (!parse_int64(argv[3], &start)) return errors::not_integer();
    if (argv.size() == 6) {
      if (equals_ci(argv[5], "bit")) {
        isbit = true;
      } else if (!equals_ci(argv[5], "byte")) {
        return errors::syntax();
      }
    }
    if (argv.size() >= 5) {
      if (!parse_int64(argv[4], &end)) return errors::not_integer();
      end_given = true;
    } else {
      end = isbit ? (total << 3) + 7 : total - 1;
    }
    if (isbit) total <<= 3;
    if (start < 0) start += total;
    if (end < 0) end += total;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= total) end = total - 1;
  } else if (argv.size() == 3) {
    end = static_cast<int64_t>(s.size()) - 1;
  } else {
    return errors::syntax();
  }
  if (start > end) return Reply::integer(-1);
  // The range in bits.
  uint64_t first = static_cast<uint64_t>(start);
  uint64_t last = static_cast<uint64_t>(end);
  if (!isbit) {
    first <<= 3;
    last = (last << 3) + 7;
  }
  const unsigned char skip = bit ? 0x00 : 0xff;  // a byte holding no wanted bit
  uint64_t b = first;
  while (b <= last) {
    if ((b & 7) == 0 && b + 7 <= last && static_cast<unsigned char>(s[b >> 3]) == skip) {
      b += 8;
      continue;
    }
    if (bit_at(s, b) == bit) return Reply::integer(static_cast<int64_t>(b));
    ++b;
  }
  if (bit == 1 || end_given) return Reply::integer(-1);
  // Looking for a clear bit with no end given: the string is zero-padded,
  // so the answer is the first bit of the byte after the range.
  return Reply::integer(static_cast<int64_t>(((last >> 3) + 1) << 3));
}

// BITOP AND|OR|XOR|NOT destkey key [key ...].
Reply bitop(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  enum class Op { kAnd, kOr, kXor, kNot } op;
  if (equals_ci(argv[1], "and")) {
    op = Op::kAnd;
  } else if (equals_ci(argv[1], "or")) {
    op = Op::kOr;
  } else if (equals_ci(argv[1], "xor")) {
    op = Op::kXor;
  } else if (equals_ci(argv[1], "not")) {
    op = Op::kNot;
  } else {
    return errors::syntax();
  }
  if (op == Op::kNot && argv.size() != 4) {
    return Reply::error("ERR BITOP NOT must be called with a single source key.");
  }
  Db& db = current_db(ctx);
  std::vector<std::string> srcs;
  size_t maxlen = 0;
  for (size_t j = 3; j < argv.size(); ++j) {
    Entry* e = db.lookup(argv[j], ctx.now_ms);
    if (e == nullptr) {
      srcs.emplace_back();
      continue;
    }
    if (!e->is_string()) return errors::wrong_type();
    srcs.push_back(e->str());
    maxlen = std::max(maxlen, e->str().size());
  }
  const std::string& dst = argv[2];
  if (maxlen == 0) {
    if (db.remove(dst)) notify_keyspace_event(ctx, notify::kGeneric, "del", dst);
    return Reply::integer(0);
  }
  std::string res(maxlen, '\0');
  auto byte_of = [](const std::string& s, size_t i) -> unsigned char {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
  };
  for (size_t i = 0; i < maxlen; ++i) {
    unsigned char out = byte_of(srcs[0], i);
    if (op == Op::kNot) out = static_cast<unsigned char>(~out);
    for (size_t k = 1; k < srcs.size(); ++k) {
      const unsigned char v = byte_of(srcs[k], i);
      if (op == Op::kAnd) {
        out &= v;
      } else if (op == Op::kOr) {
        out |= v;
      } else {
        out ^= v;
      }
    }
    res[i] = static_cast<char>(out);
  }
  Entry& stored = db.set_string(dst, std::move(res), /*keep_ttl=*/false);
  stored.str_encoding = StringEncoding::kRaw;
  notify_keyspace_event(ctx, notify::kString, "set", dst);
  return Reply::integer(static_cast<int64_t>(maxlen));
}

// ---- BITFIELD ---------------------------------------------------------------

enum class Overflow { kWrap, kSat, kFail };

uint64_t get_unsigned(std::string_view s, uint64_t offset, int bits) {
  uint64_t v = 0;
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint64_t byte = offset >> 3;
    const int b = byte < s.size() ? bit_at(s, offset) : 0;
    v = (v << 1) | static_cast<uint64_t>(b);
  }
  return v;
}

int64_t get_signed(std::string_view s, uint64_t offset, int bits) {
  uint64_t v = get_unsigned(s, offset, bits);
  if (bits < 64 && (v & (uint64_t{1} << (bits - 1)))) v |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(v);
}

void set_bits(std::string& s, uint64_t offset, int bits, uint64_t value) {
  for (int j = 0; j < bits; ++j, ++offset) {
    const bool on = (value >> (bits - 1 - j)) & 1;
    unsigned char& c = reinterpret_cast<unsigned char&>(s[offset >> 3]);
    const unsigned mask = 1u << (7 - (offset & 7));
    c = static_cast<unsigned char>(on ? (c | mask) : (c & ~mask));
  }
}

// checkUnsignedBitfieldOverflow: nonzero on overflow, *limit the value to
// write under WRAP or SAT.
int unsigned_overflow(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* limit) {
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const int64_t maxincr = static_cast<int64_t>(max - value);
  const int64_t minincr = static_cast<int64_t>(-value);
  auto wrap = [&]() {
    *limit = (value + static_cast<uint64_t>(incr)) & ~(~uint64_t{0} << bits);
    return 1;
  };
  if (value > max || (incr > 0 && incr > maxincr)) {
    if (ow == Overflow::kWrap) return wrap();
    if (ow == Overflow::kSat) *limit = max;
    return 1;
  }
  if (incr < 0 && incr < minincr) {
    if (ow == Overflow::kWrap) return wrap();
    if (ow == Overflow::kSat) *limit = 0;
    return -1;
  }
  return 0;
}

// checkSignedBitfieldOverflow.
int signed_overflow(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* limit) {
  const int64_t max =
      bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const int64_t maxincr =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const int64_t minincr =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  auto wrap = [&]() {
    uint64_t c = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      const uint64_t mask = ~uint64_t{0} << bits;
      if (c & (uint64_t{1} << (bits - 1))) {
        c |= mask;
      } else {
        c &= ~mask;
      }
    }
    *limit = static_cast<int64_t>(c);
    return 1;
  };
  if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
    if (ow == Overflow::kWrap) return wrap();
    if (ow == Overflow::kSat) *limit = max;
    return 1;
  }
  if (value < min || (bits != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr)) {
    if (ow == Overflow::kWrap) return wrap();
    if (ow == Overflow::kSat) *limit = min;
    return -1;
  }
  return 0;
}

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind;
  bool sign;
  int bits;
  uint64_t offset;
  int64_t value;
  Overflow overflow;
};

Reply bitfield_generic(CommandContext& ctx, bool read_only) {
  const Argv& argv = ctx.argv;
  std::vector<FieldOp> ops;
  Overflow ow = Overflow::kWrap;
  bool writes = false;
  uint64_t highest = 0;
  const uint64_t max_bytes = static_cast<uint64_t>(ctx.server.config().proto_max_bulk_len);
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t rem = argv.size() - j - 1;
    const std::string& sub = argv[j];
    FieldOp::Kind kind;
    if (equals_ci(sub, "get") && rem >= 2) {
      kind = FieldOp::kGet;
    } else if (equals_ci(sub, "set") && rem >= 3) {
      kind = FieldOp::kSet;
    } else if (equals_ci(sub, "incrby") && rem >= 3) {
      kind = FieldOp::kIncrBy;
    } else if (equals_ci(sub, "overflow") && rem >= 1) {
      const std::string& t = argv[++j];
      if (equals_ci(t, "wrap")) {
        ow = Overflow::kWrap;
      } else if (equals_ci(t, "sat")) {
        ow = Overflow::kSat;
      } else if (equals_ci(t, "fail")) {
        ow = Overflow::kFail;
      } else {
        return Reply::error("ERR Invalid OVERFLOW type specified");
      }
      continue;
    } else {
      return errors::syntax();
    }
    // getBitfieldTypeFromArgument: i1..i64, u1..u63.
    const std::string& type = argv[j + 1];
    int64_t bits = 0;
    const bool sign = !type.empty() && type[0] == 'i';
    if (type.empty() || (type[0] != 'i' && type[0] != 'u') ||
        !parse_int64(std::string_view(type.c_str() + 1), &bits) || bits < 1 ||
        (sign && bits > 64) || (!sign && bits > 63)) {
      return Reply::error(
          "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
          "but i64 is.");
    }
    // getBitOffsetFromArgument: a plain offset, or "#n" meaning n * bits.
    const std::string& off = argv[j + 2];
    const bool hash = !off.empty() && off[0] == '#';
    int64_t offset = 0;
    if (!parse_int64(std::string_view(off).substr(hash ? 1 : 0), &offset)) {
      return Reply::error(kBitOffsetError);
    }
    if (hash) {
      if (offset < 0 || offset > std::numeric_limits<int64_t>::max() / bits) {
        return Reply::error(kBitOffsetError);
      }
      offset *= bits;
    }
    if (offset < 0 || static_cast<uint64_t>(offset >> 3) >= max_bytes) {
      return Reply::error(kBitOffsetError);
    }
    FieldOp op{kind, sign, static_cast<int>(bits), static_cast<uint64_t>(offset), 0, ow};
    if (kind != FieldOp::kGet) {
      writes = true;
      highest = std::max(highest, op.offset + op.bits - 1);
      if (!parse_int64(argv[j + 3], &op.value)) return errors::not_integer();
    }
    ops.push_back(op);
    j += kind == FieldOp::kGet ? 2 : 3;
  }
  Db& db = current_db(ctx);
  const std::string& key = argv[1];
  if (writes && read_only) {
    return Reply::error("ERR BITFIELD_RO only supports the GET subcommand");
  }
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e != nullptr && !e->is_string()) return errors::wrong_type();
  // Created or grown: a change even when no field's value changes (7.0.15
  // counts a write only then, or when a value really changed).
  bool grown = false;
  if (writes) {
    if (e == nullptr) {
      e = &db.add(key, std::string());
      grown = true;
    }
    const size_t need = static_cast<size_t>((highest >> 3) + 1);
    if (e->str().size() < need) {
      e->str().resize(need, '\0');
      grown = true;
    }
    e->str_encoding = StringEncoding::kRaw;
  }
  std::vector<Reply> out;
  out.reserve(ops.size());
  int changes = 0;
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::kGet) {
      std::string_view s = e == nullptr ? std::string_view() : std::string_view(e->str());
      out.push_back(
          op.sign ? Reply::integer(get_signed(s, op.offset, op.bits))
                  : Reply::integer(static_cast<int64_t>(get_unsigned(s, op.offset, op.bits))));
      continue;
    }
    std::string& s = e->str();
    if (op.sign) {
      const int64_t old = get_signed(s, op.offset, op.bits);
      int64_t wrapped = 0;
      int64_t next = 0;
      int64_t ret = 0;
      int overflow = 0;
      if (op.kind == FieldOp::kIncrBy) {
        overflow = signed_overflow(old, op.value, op.bits, op.overflow, &wrapped);
        next = overflow ? wrapped
                        : static_cast<int64_t>(static_cast<uint64_t>(old) +
                                               static_cast<uint64_t>(op.value));
        ret = next;
      } else {
        next = op.value;
        overflow = signed_overflow(next, 0, op.bits, op.overflow, &wrapped);
        if (overflow) next = wrapped;
        ret = old;
      }
      if (overflow && op.overflow == Overflow::kFail) {
        out.push_back(Reply::nil());
      } else {
        out.push_back(Reply::integer(ret));
        set_bits(s, op.offset, op.bits, static_cast<uint64_t>(next));
        if (grown || old != next) ++changes;
      }
    } else {
      const uint64_t old = get_unsigned(s, op.offset, op.bits);
      uint64_t wrapped = 0;
      uint64_t next = 0;
      uint64_t ret = 0;
      int overflow = 0;
      if (op.kind == FieldOp::kIncrBy) {
        next = old + static_cast<uint64_t>(op.value);
        overflow = unsigned_overflow(old, op.value, op.bits, op.overflow, &wrapped);
        if (overflow) next = wrapped;
        ret = next;
      } else {
        next = static_cast<uint64_t>(op.value);
        overflow = unsigned_overflow(next, 0, op.bits, op.overflow, &wrapped);
        if (overflow) next = wrapped;
        ret = old;
      }
      if (overflow && op.overflow == Overflow::kFail) {
        out.push_back(Reply::nil());
      } else {
        out.push_back(Reply::integer(static_cast<int64_t>(ret)));
        set_bits(s, op.offset, op.bits, next);
        if (grown || old != next) ++changes;
      }
    }
  }
  ctx.add_dirty(changes);
  if (changes > 0) {
    db.touch(key);
    notify_keyspace_event(ctx, notify::kString, "setbit", key);
  }
  return Reply::array(std::move(out));
}

Reply bitfield(CommandContext& ctx) { return bitfield_generic(ctx, false); }
Reply bitfield_ro(CommandContext& ctx) { return bitfield_generic(ctx, true); }

}  // namespace

void register_bitmap_commands(CommandTable& table) {
  table.add({"bitcount", -2, kCmdReadonly, &bitcount});
  table.add({"bitpos", -3, kCmdReadonly, &bitpos});
  table.add({"bitop", -4, kCmdWrite | kCmdDenyOom, &bitop});
  table.add({"bitfield", -2, kCmdWrite | kCmdDenyOom, &bitfield});
  table.add({"bitfield_ro", -2, kCmdReadonly | kCmdFast, &bitfield_ro});
}

}  // namespace redsim::sim

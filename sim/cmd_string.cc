// String commands: SET (NX XX GET EX PX EXAT PXAT KEEPTTL) SETNX SETEX
// PSETEX GET GETSET GETDEL GETEX MGET MSET MSETNX INCR INCRBY DECR DECRBY
// INCRBYFLOAT APPEND STRLEN GETRANGE SETRANGE SETBIT GETBIT.
// Source: Redis 7.0 command docs and src/t_string.c behaviour, texts
// verified against redis-server 7.0.15.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
// proto-max-bulk-len's default: APPEND refuses to grow a string past it.
constexpr size_t kMaxStringBytes = 512ull * 1024 * 1024;

enum SetFlag : unsigned {
  kSetNx = 1 << 0,
  kSetXx = 1 << 1,
  kSetGet = 1 << 2,
  kSetKeepTtl = 1 << 3,
  kSetEx = 1 << 4,
  kSetPx = 1 << 5,
  kSetExAt = 1 << 6,
  kSetPxAt = 1 << 7,
};
constexpr unsigned kSetAnyExpire = kSetEx | kSetPx | kSetExAt | kSetPxAt;

// The flag of the expire option `opt` (EX, PX, EXAT, PXAT) when `flags`
// holds no other expire option (the same one twice is allowed: the last
// time wins); 0 otherwise.
unsigned expire_option(std::string_view opt, unsigned flags) {
  const unsigned expire = equals_ci(opt, "ex")     ? kSetEx
                          : equals_ci(opt, "px")   ? kSetPx
                          : equals_ci(opt, "exat") ? kSetExAt
                          : equals_ci(opt, "pxat") ? kSetPxAt
                                                   : 0u;
  return (flags & (kSetAnyExpire & ~expire)) ? 0 : expire;
}

// getExpireMillisecondsOrReply: `arg` is the time in the unit of `flags`;
// on success `*deadline_ms` is absolute. An error reply otherwise.
bool parse_set_expire(CommandContext& ctx, std::string_view name, const std::string& arg,
                      unsigned flags, int64_t* deadline_ms, Reply* error) {
  int64_t v = 0;
  if (!parse_int64(arg, &v)) {
    *error = errors::not_integer();
    return false;
  }
  bool seconds = flags & (kSetEx | kSetExAt);
  if (v <= 0 || (seconds && v > kInt64Max / 1000)) {
    *error = errors::invalid_expire(name);
    return false;
  }
  if (seconds) v *= 1000;
  if (flags & (kSetEx | kSetPx)) {
    // Redis adds with wrap-around and then refuses a non-positive result.
    if (v > kInt64Max - ctx.now_ms) {
      *error = errors::invalid_expire(name);
      return false;
    }
    v += ctx.now_ms;
  }
  *deadline_ms = v;
  return true;
}

// setGenericCommand. `expire_arg` is null when there is no deadline to set.
// With kSetGet the reply is the old value (or a WRONGTYPE error); otherwise
// `ok` on success and `aborted` when NX/XX stopped the write.
Reply set_generic(CommandContext& ctx, std::string_view name, unsigned flags,
                  const std::string& key, size_t value_arg, const std::string* expire_arg, Reply ok,
                  Reply aborted) {
  int64_t deadline = Entry::kNoExpire;
  if (expire_arg != nullptr) {
    Reply error;
    if (!parse_set_expire(ctx, name, *expire_arg, flags, &deadline, &error)) return error;
  }
  Db& db = current_db(ctx);
  Entry* e = db.lookup(key, ctx.now_ms);
  Reply old_value;  // nil
  if (flags & kSetGet) {
    if (e != nullptr) {
      if (!e->is_string()) return errors::wrong_type();
      old_value = Reply::bulk(e->str());
    }
  }
  if (((flags & kSetNx) && e != nullptr) || ((flags & kSetXx) && e == nullptr)) {
    return (flags & kSetGet) ? old_value : aborted;
  }
  // The value's bytes are moved from the request when the transport allows
  // it (Server::execute_consuming): a big SET costs the value once.
  Entry& stored = db.set_string(key, ctx.take_arg(value_arg), flags & kSetKeepTtl);
  if (deadline != Entry::kNoExpire) db.set_expire(key, stored, deadline);
  // setGenericCommand: "set", then "expire" when a deadline came with it.
  notify_keyspace_event(ctx, notify::kString, "set", key);
  if (deadline != Entry::kNoExpire) notify_keyspace_event(ctx, notify::kGeneric, "expire", key);
  return (flags & kSetGet) ? old_value : ok;
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]
// (parseExtendedStringArgumentsOrReply: a repeated option is fine, a
// conflicting one is a syntax error, the last time given wins).
Reply set(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  unsigned flags = 0;
  const std::string* expire_arg = nullptr;
  for (size_t i = 3; i < argv.size(); ++i) {
    const std::string& opt = argv[i];
    bool has_next = i + 1 < argv.size();
    if (equals_ci(opt, "nx") && !(flags & kSetXx)) {
      flags |= kSetNx;
    } else if (equals_ci(opt, "xx") && !(flags & kSetNx)) {
      flags |= kSetXx;
    } else if (equals_ci(opt, "get")) {
      flags |= kSetGet;
    } else if (equals_ci(opt, "keepttl") && !(flags & kSetAnyExpire)) {
      flags |= kSetKeepTtl;
    } else if (unsigned expire = expire_option(opt, flags);
               expire != 0 && has_next && !(flags & kSetKeepTtl)) {
      flags |= expire;
      expire_arg = &argv[++i];
    } else {
      return errors::syntax();
    }
  }
  return set_generic(ctx, "set", flags, argv[1], 2, expire_arg, Reply::ok(), Reply::nil());
}

Reply setnx(CommandContext& ctx) {
  return set_generic(ctx, "setnx", kSetNx, ctx.argv[1], 2, nullptr, Reply::integer(1),
                     Reply::integer(0));
}

Reply setex(CommandContext& ctx) {
  return set_generic(ctx, "setex", kSetEx, ctx.argv[1], 3, &ctx.argv[2], Reply::ok(), Reply::nil());
}

Reply psetex(CommandContext& ctx) {
  return set_generic(ctx, "psetex", kSetPx, ctx.argv[1], 3, &ctx.argv[2], Reply::ok(),
                     Reply::nil());
}

Reply get(CommandContext& ctx) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::nil();
  if (!e->is_string()) return errors::wrong_type();
  return Reply::bulk(e->str());
}

// GETSET: GET, then a plain SET (the deadline is dropped).
Reply getset(CommandContext& ctx) {
  Db& db = current_db(ctx);
  Entry* e = db.lookup(ctx.argv[1], ctx.now_ms);
  Reply old_value;
  if (e != nullptr) {
    if (!e->is_string()) return errors::wrong_type();
    old_value = Reply::bulk(e->str());
  }
  db.set_string(ctx.argv[1], ctx.take_arg(2), /*keep_ttl=*/false);
  notify_keyspace_event(ctx, notify::kString, "set", ctx.argv[1]);
  return old_value;
}

Reply getdel(CommandContext& ctx) {
  Db& db = current_db(ctx);
  Entry* e = db.lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::nil();
  if (!e->is_string()) return errors::wrong_type();
  Reply value = Reply::bulk(std::move(e->str()));
  db.remove(ctx.argv[1]);
  notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  return value;
}

// MGET: a missing key or one of another type is nil, never an error.
Reply mget(CommandContext& ctx) {
  Db& db = current_db(ctx);
  std::vector<Reply> values;
  values.reserve(ctx.argv.size() - 1);
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    Entry* e = db.lookup(ctx.argv[i], ctx.now_ms);
    values.push_back(e != nullptr && e->is_string() ? Reply::bulk(e->str()) : Reply::nil());
  }
  return Reply::array(std::move(values));
}

Reply mset(CommandContext& ctx) {
  if (ctx.argv.size() % 2 == 0) return errors::arity("mset");
  Db& db = current_db(ctx);
  for (size_t i = 1; i + 1 < ctx.argv.size(); i += 2) {
    db.set_string(ctx.argv[i], ctx.argv[i + 1], /*keep_ttl=*/false);
    notify_keyspace_event(ctx, notify::kString, "set", ctx.argv[i]);
  }
  return Reply::ok();
}

// incrDecrCommand: the deadline is kept.
Reply incr_by(CommandContext& ctx, int64_t by) {
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  int64_t value = 0;
  if (e != nullptr) {
    if (!e->is_string()) return errors::wrong_type();
    if (!parse_int64(e->str(), &value)) return errors::not_integer();
  }
  if ((by < 0 && value < 0 && by < kInt64Min - value) ||
      (by > 0 && value > 0 && by > kInt64Max - value)) {
    return errors::overflow();
  }
  value += by;
  if (e != nullptr) {
    e->str() = std::to_string(value);
    e->str_encoding = StringEncoding::kByContent;
    db.touch(key);
  } else {
    db.set_string(key, std::to_string(value), /*keep_ttl=*/false);
  }
  // incrDecrCommand: "incrby" for INCR, DECR, INCRBY and DECRBY alike.
  notify_keyspace_event(ctx, notify::kString, "incrby", key);
  return Reply::integer(value);
}

Reply incr(CommandContext& ctx) { return incr_by(ctx, 1); }
Reply decr(CommandContext& ctx) { return incr_by(ctx, -1); }

Reply incrby(CommandContext& ctx) {
  int64_t by = 0;
  if (!parse_int64(ctx.argv[2], &by)) return errors::not_integer();
  return incr_by(ctx, by);
}

Reply decrby(CommandContext& ctx) {
  int64_t by = 0;
  if (!parse_int64(ctx.argv[2], &by)) return errors::not_integer();
  // Negating INT64_MIN would overflow: Redis has its own text for it.
  if (by == kInt64Min) return Reply::error("ERR decrement would overflow");
  return incr_by(ctx, -by);
}

Reply append(CommandContext& ctx) {
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  const std::string& tail = ctx.argv[2];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e == nullptr) {
    db.set_string(key, tail, /*keep_ttl=*/false);
    notify_keyspace_event(ctx, notify::kString, "append", key);
    return Reply::integer(static_cast<int64_t>(tail.size()));
  }
  if (!e->is_string()) return errors::wrong_type();
  if (e->str().size() + tail.size() > kMaxStringBytes) {
    return Reply::error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  e->str() += tail;
  e->str_encoding = StringEncoding::kRaw;  // dbUnshareStringValue
  db.touch(key);
  notify_keyspace_event(ctx, notify::kString, "append", key);
  return Reply::integer(static_cast<int64_t>(e->str().size()));
}

Reply strlen(CommandContext& ctx) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(0);
  if (!e->is_string()) return errors::wrong_type();
  return Reply::integer(static_cast<int64_t>(e->str().size()));
}

// GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]: options are
// checked first, the time only once the key is known to be a string.
Reply getex(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  unsigned flags = 0;
  bool persist = false;
  const std::string* expire_arg = nullptr;
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::string& opt = argv[i];
    bool has_next = i + 1 < argv.size();
    if (equals_ci(opt, "persist") && !(flags & kSetAnyExpire)) {
      persist = true;
    } else if (unsigned expire = expire_option(opt, flags); expire != 0 && has_next && !persist) {
      flags |= expire;
      expire_arg = &argv[++i];
    } else {
      return errors::syntax();
    }
  }
  Db& db = current_db(ctx);
  const std::string& key = argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e == nullptr) return Reply::nil();
  if (!e->is_string()) return errors::wrong_type();
  int64_t deadline = Entry::kNoExpire;
  if (expire_arg != nullptr) {
    Reply error;
    if (!parse_set_expire(ctx, "getex", *expire_arg, flags, &deadline, &error)) return error;
  }
  Reply value = Reply::bulk(e->str());
  if ((flags & (kSetExAt | kSetPxAt)) && deadline <= ctx.now_ms) {
    db.remove(key);  // checkAlreadyExpired
    notify_keyspace_event(ctx, notify::kGeneric, "del", key);
  } else if (persist) {
    if (e->has_expire()) {
      db.set_expire(key, *e, Entry::kNoExpire);
      db.touch(key);
      notify_keyspace_event(ctx, notify::kGeneric, "persist", key);
    }
  } else if (expire_arg != nullptr) {
    db.set_expire(key, *e, deadline);
    db.touch(key);
    notify_keyspace_event(ctx, notify::kGeneric, "expire", key);
  }
  return value;
}

// MSETNX: all or nothing; any existing key stops it.
Reply msetnx(CommandContext& ctx) {
  if (ctx.argv.size() % 2 == 0) return errors::arity("msetnx");
  Db& db = current_db(ctx);
  for (size_t i = 1; i < ctx.argv.size(); i += 2) {
    if (db.lookup(ctx.argv[i], ctx.now_ms) != nullptr) return Reply::integer(0);
  }
  for (size_t i = 1; i + 1 < ctx.argv.size(); i += 2) {
    db.set_string(ctx.argv[i], ctx.argv[i + 1], /*keep_ttl=*/false);
    notify_keyspace_event(ctx, notify::kString, "set", ctx.argv[i]);
  }
  return Reply::integer(1);
}

// INCRBYFLOAT: long double arithmetic, printed "%.17Lf" without trailing
// zeros; the deadline is kept.
Reply incrbyfloat(CommandContext& ctx) {
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  long double value = 0;
  long double by = 0;
  if (e != nullptr && !e->is_string()) return errors::wrong_type();
  if ((e != nullptr && !parse_long_double(e->str(), &value)) ||
      !parse_long_double(ctx.argv[2], &by)) {
    return errors::not_float();
  }
  value += by;
  if (std::isnan(value) || std::isinf(value)) {
    return Reply::error("ERR increment would produce NaN or Infinity");
  }
  std::string text = format_long_double(value);
  if (e != nullptr) {
    e->str() = text;
    db.touch(key);
  } else {
    e = &db.set_string(key, text, /*keep_ttl=*/false);
  }
  e->str_encoding = StringEncoding::kNotInt;
  notify_keyspace_event(ctx, notify::kString, "incrbyfloat", key);
  return Reply::bulk(std::move(text));
}

// GETRANGE key start end: inclusive, negative from the end, clamped.
Reply getrange(CommandContext& ctx) {
  int64_t start = 0;
  int64_t end = 0;
  if (!parse_int64(ctx.argv[2], &start) || !parse_int64(ctx.argv[3], &end)) {
    return errors::not_integer();
  }
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::bulk("");
  if (!e->is_string()) return errors::wrong_type();
  const std::string& s = e->str();
  const int64_t n = static_cast<int64_t>(s.size());
  if (start < 0 && end < 0 && start > end) return Reply::bulk("");
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= n) end = n - 1;
  if (start > end || n == 0) return Reply::bulk("");
  return Reply::bulk(s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest
// common subsequence by Redis 7.0's dynamic programming table (t_string.c
// lcsCommand, facts only): the string, or LEN its length, or IDX a map
// {"matches": [[[a_start, a_end], [b_start, b_end] (, len)], ...], "len": n}
// whose ranges run from the strings' ends backwards. An absent key is "".
Reply lcs(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  Db& db = current_db(ctx);
  Entry* ea = db.lookup(argv[1], ctx.now_ms);
  Entry* eb = db.lookup(argv[2], ctx.now_ms);
  if ((ea != nullptr && !ea->is_string()) || (eb != nullptr && !eb->is_string())) {
    return Reply::error("ERR The specified keys must contain string values");
  }
  const std::string a = ea == nullptr ? std::string() : ea->str();
  const std::string b = eb == nullptr ? std::string() : eb->str();
  bool getidx = false;
  bool getlen = false;
  bool withmatchlen = false;
  int64_t minmatchlen = 0;
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string& o = argv[j];
    const bool more = j + 1 < argv.size();
    if (equals_ci(o, "idx")) {
      getidx = true;
    } else if (equals_ci(o, "len")) {
      getlen = true;
    } else if (equals_ci(o, "withmatchlen")) {
      withmatchlen = true;
    } else if (equals_ci(o, "minmatchlen") && more) {
      if (!parse_int64(argv[j + 1], &minmatchlen)) return errors::not_integer();
      if (minmatchlen < 0) minmatchlen = 0;
      ++j;
    } else {
      return errors::syntax();
    }
  }
  if (getidx && getlen) {
    return Reply::error("ERR If you want both the length and indexes, please just use IDX.");
  }
  const uint64_t alen = a.size();
  const uint64_t blen = b.size();
  if ((alen + 1) * (blen + 1) * sizeof(uint32_t) >
      static_cast<uint64_t>(ctx.server.config().proto_max_bulk_len)) {
    return Reply::error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  std::vector<uint32_t> dp((alen + 1) * (blen + 1), 0);
  auto at = [&](uint64_t i, uint64_t j) -> uint32_t& { return dp[j + i * (blen + 1)]; };
  for (uint64_t i = 1; i <= alen; ++i) {
    for (uint64_t j = 1; j <= blen; ++j) {
      if (a[i - 1] == b[j - 1]) {
        at(i, j) = at(i - 1, j - 1) + 1;
      } else {
        at(i, j) = std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  const uint32_t total = at(alen, blen);
  if (getlen) return Reply::integer(total);
  std::string result(total, '\0');
  std::vector<Reply> matches;
  uint64_t idx = total;
  uint64_t a_start = alen;  // alen: no range open
  uint64_t a_end = 0;
  uint64_t b_start = 0;
  uint64_t b_end = 0;
  uint64_t i = alen;
  uint64_t j = blen;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --idx;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != alen) emit = true;
    }
    const uint64_t match_len = a_end - a_start + 1;
    if (emit) {
      if (getidx && (minmatchlen == 0 || match_len >= static_cast<uint64_t>(minmatchlen))) {
        std::vector<Reply> m;
        m.push_back(Reply::array({Reply::integer(static_cast<int64_t>(a_start)),
                                  Reply::integer(static_cast<int64_t>(a_end))}));
        m.push_back(Reply::array({Reply::integer(static_cast<int64_t>(b_start)),
                                  Reply::integer(static_cast<int64_t>(b_end))}));
        if (withmatchlen) m.push_back(Reply::integer(static_cast<int64_t>(match_len)));
        matches.push_back(Reply::array(std::move(m)));
      }
      a_start = alen;
    }
  }
  if (getidx) {
    return Reply::map({Reply::bulk("matches"), Reply::array(std::move(matches)), Reply::bulk("len"),
                       Reply::integer(total)});
  }
  return Reply::bulk(std::move(result));
}

// SETRANGE key offset value: zero-pads; an empty value changes nothing.
Reply setrange(CommandContext& ctx) {
  int64_t offset = 0;
  if (!parse_int64(ctx.argv[2], &offset)) return errors::not_integer();
  if (offset < 0) return Reply::error("ERR offset is out of range");
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  const std::string& value = ctx.argv[3];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e != nullptr && !e->is_string()) return errors::wrong_type();
  if (value.empty())
    return Reply::integer(e == nullptr ? 0 : static_cast<int64_t>(e->str().size()));
  if (static_cast<uint64_t>(offset) + value.size() > kMaxStringBytes) {
    return Reply::error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  if (e == nullptr) e = &db.add(key, std::string());
  std::string& s = e->str();
  const size_t at = static_cast<size_t>(offset);
  if (s.size() < at + value.size()) s.resize(at + value.size(), '\0');
  s.replace(at, value.size(), value);
  e->str_encoding = StringEncoding::kRaw;
  db.touch(key);
  notify_keyspace_event(ctx, notify::kString, "setrange", key);
  return Reply::integer(static_cast<int64_t>(s.size()));
}

// A SETBIT/GETBIT offset: 0 .. 2^32-1 (512 MB of bits).
bool parse_bit_offset(const std::string& arg, size_t* out) {
  int64_t v = 0;
  if (!parse_int64(arg, &v) || v < 0 || static_cast<uint64_t>(v >> 3) >= kMaxStringBytes) {
    return false;
  }
  *out = static_cast<size_t>(v);
  return true;
}

// SETBIT key offset 0|1: the previous bit; bit 0 is the first byte's MSB.
Reply setbit(CommandContext& ctx) {
  size_t offset = 0;
  if (!parse_bit_offset(ctx.argv[2], &offset)) {
    return Reply::error("ERR bit offset is not an integer or out of range");
  }
  int64_t on = 0;
  if (!parse_int64(ctx.argv[3], &on) || (on & ~int64_t{1}) != 0) {
    return Reply::error("ERR bit is not an integer or out of range");
  }
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e != nullptr && !e->is_string()) return errors::wrong_type();
  // Redis 7.0 signals the key (WATCH, keyspace events) only when it was
  // created, grew, or the bit really changed.
  bool dirty = e == nullptr;
  if (e == nullptr) e = &db.add(key, std::string());
  std::string& s = e->str();
  const size_t byte = offset >> 3;
  if (s.size() <= byte) {
    s.resize(byte + 1, '\0');
    dirty = true;
  }
  const unsigned mask = 1u << (7 - (offset & 7));
  unsigned char c = static_cast<unsigned char>(s[byte]);
  const int64_t old = (c & mask) ? 1 : 0;
  c = static_cast<unsigned char>(on ? (c | mask) : (c & ~mask));
  s[byte] = static_cast<char>(c);
  e->str_encoding = StringEncoding::kRaw;  // unshared either way, as dbUnshareStringValue does
  if (dirty || old != on) {
    db.touch(key);
    notify_keyspace_event(ctx, notify::kString, "setbit", key);
  }
  return Reply::integer(old);
}

Reply getbit(CommandContext& ctx) {
  size_t offset = 0;
  if (!parse_bit_offset(ctx.argv[2], &offset)) {
    return Reply::error("ERR bit offset is not an integer or out of range");
  }
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(0);
  if (!e->is_string()) return errors::wrong_type();
  const std::string& s = e->str();
  const size_t byte = offset >> 3;
  if (byte >= s.size()) return Reply::integer(0);
  return Reply::integer((static_cast<unsigned char>(s[byte]) >> (7 - (offset & 7))) & 1);
}

}  // namespace

void register_string_commands(CommandTable& table) {
  register_bitmap_commands(table);
  register_hll_commands(table);
  table.add({"set", -3, kCmdWrite | kCmdDenyOom, &set});
  table.add({"setnx", 3, kCmdWrite | kCmdDenyOom | kCmdFast, &setnx});
  table.add({"setex", 4, kCmdWrite | kCmdDenyOom, &setex});
  table.add({"psetex", 4, kCmdWrite | kCmdDenyOom, &psetex});
  table.add({"get", 2, kCmdReadonly | kCmdFast, &get});
  table.add({"getset", 3, kCmdWrite | kCmdDenyOom | kCmdFast, &getset});
  table.add({"getdel", 2, kCmdWrite | kCmdFast, &getdel});
  table.add({"mget", -2, kCmdReadonly | kCmdFast, &mget});
  table.add({"mset", -3, kCmdWrite | kCmdDenyOom, &mset});
  table.add({"incr", 2, kCmdWrite | kCmdDenyOom | kCmdFast, &incr});
  table.add({"incrby", 3, kCmdWrite | kCmdDenyOom | kCmdFast, &incrby});
  table.add({"decr", 2, kCmdWrite | kCmdDenyOom | kCmdFast, &decr});
  table.add({"decrby", 3, kCmdWrite | kCmdDenyOom | kCmdFast, &decrby});
  table.add({"append", 3, kCmdWrite | kCmdDenyOom, &append});
  table.add({"strlen", 2, kCmdReadonly | kCmdFast, &strlen});
  table.add({"getex", -2, kCmdWrite | kCmdFast, &getex});
  table.add({"msetnx", -3, kCmdWrite | kCmdDenyOom, &msetnx});
  table.add({"incrbyfloat", 3, kCmdWrite | kCmdDenyOom | kCmdFast, &incrbyfloat});
  table.add({"getrange", 4, kCmdReadonly, &getrange});
  table.add({"substr", 4, kCmdReadonly, &getrange});
  table.add({"lcs", -3, kCmdReadonly, &lcs});
  table.add({"setrange", 4, kCmdWrite | kCmdDenyOom, &setrange});
  table.add({"setbit", 4, kCmdWrite | kCmdDenyOom, &setbit});
  table.add({"getbit", 3, kCmdReadonly | kCmdFast, &getbit});
}

}  // namespace redsim::sim

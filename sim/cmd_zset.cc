// Sorted set commands: ZADD (NX XX GT LT CH INCR) ZINCRBY ZREM ZSCORE ZMSCORE
// ZCARD ZRANK ZREVRANK ZCOUNT, ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES)
// and the legacy ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX, ZREMRANGEBYSCORE ZREMRANGEBYRANK ZPOPMIN ZPOPMAX ZSCAN.
// Scores print as Redis 7.0's addReplyDouble ("%.17g", "inf", "-inf").
// A sorted set whose last member goes is deleted. Source: Redis 7.0
// command docs and src/t_zset.c behaviour, texts verified against
// redis-server 7.0.15.
#include "sim/cmd_zset.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/glob.h"

namespace redsim::sim {

using resp::Reply;

namespace {

Zset* read_zset(CommandContext& ctx, bool* wrong) {
  Entry* e = lookup_typed(ctx, ctx.argv[1], ValueType::kZset, wrong);
  return e == nullptr ? nullptr : &e->zset();
}

Reply score_reply(double d) { return Reply::bulk(format_double(d)); }
// A score as addReplyDouble sends it alone (ZSCORE, ZMSCORE, ZINCRBY, ZADD
// INCR): a double in RESP3, the same text as a bulk string in RESP2.
Reply score_double(double d) { return Reply::double_text(format_double(d)); }

// A listpack stores a zero score as the integer 0: -0 reads back as 0.
double stored_score(const Zset& z, double d) { return z.listpack() && d == 0 ? 0.0 : d; }

enum ZaddFlag : unsigned { kZNx = 1, kZXx = 2, kZGt = 4, kZLt = 8, kZCh = 16, kZIncr = 32 };

// zsetAdd for one member. Returns false on a NaN result. *processed is
// false when a flag stopped the write (the INCR reply is then nil).
bool zset_add(Zset& z, std::string_view member, double score, unsigned flags, bool* added,
              bool* updated, bool* processed, double* new_score, const EncodingLimits& limits) {
  *added = *updated = *processed = false;
  const double* cur = z.score(member);
  if (cur != nullptr) {
    if (flags & kZNx) return true;
    double next = score;
    if (flags & kZIncr) {
      next = *cur + score;
      if (std::isnan(next)) return false;
    }
    if (((flags & kZLt) && next >= *cur) || ((flags & kZGt) && next <= *cur)) return true;
    *processed = true;
    *new_score = next;
    if (next != *cur) {
      z.set(member, stored_score(z, next), limits);
      *updated = true;
    }
    return true;
  }
  if (flags & kZXx) return true;
  z.set(member, stored_score(z, score), limits);
  *added = *processed = true;
  *new_score = score;
  return true;
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
// ZINCRBY comes here with kZIncr and no options to parse.
Reply zadd_generic(CommandContext& ctx, unsigned flags, bool parse_options) {
  const Argv& argv = ctx.argv;
  size_t idx = 2;
  for (; parse_options && idx < argv.size(); ++idx) {
    const std::string& o = argv[idx];
    if (equals_ci(o, "nx")) {
      flags |= kZNx;
    } else if (equals_ci(o, "xx")) {
      flags |= kZXx;
    } else if (equals_ci(o, "ch")) {
      flags |= kZCh;
    } else if (equals_ci(o, "incr")) {
      flags |= kZIncr;
    } else if (equals_ci(o, "gt")) {
      flags |= kZGt;
    } else if (equals_ci(o, "lt")) {
      flags |= kZLt;
    } else {
      break;
    }
  }
  size_t elements = argv.size() - idx;
  if (elements == 0 || elements % 2 != 0) return errors::syntax();
  elements /= 2;
  if ((flags & kZNx) && (flags & kZXx)) {
    return Reply::error("ERR XX and NX options at the same time are not compatible");
  }
  if (((flags & kZNx) && (flags & (kZGt | kZLt))) || ((flags & kZGt) && (flags & kZLt))) {
    return Reply::error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if ((flags & kZIncr) && elements > 1) {
    return Reply::error("ERR INCR option supports a single increment-element pair");
  }
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    if (!parse_double(argv[idx + 2 * j], &scores[j])) return errors::not_float();
  }
  Db& db = current_db(ctx);
  const std::string& key = argv[1];
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  const bool incr = flags & kZIncr;
  int64_t added = 0;
  int64_t updated = 0;
  bool any_processed = false;
  double last_score = 0;
  if (z == nullptr && !(flags & kZXx)) {
    Zset fresh;
    fresh.note_length(argv[idx + 1].size(), ServerAccess::keyspace(ctx.server).limits());
    z = &db.add(key, std::move(fresh)).zset();
  }
  if (z != nullptr) {
    for (size_t j = 0; j < elements; ++j) {
      bool a = false;
      bool u = false;
      bool p = false;
      if (!zset_add(*z, argv[idx + 2 * j + 1], scores[j], flags, &a, &u, &p, &last_score,
                    ServerAccess::keyspace(ctx.server).limits())) {
        ctx.add_dirty(added + updated);
        if (added + updated > 0) {
          db.touch(key);
        } else if (z->empty()) {
          db.remove(key);
        }
        return Reply::error("ERR resulting score is not a number (NaN)");
      }
      added += a;
      updated += u;
      any_processed |= p;
    }
    ctx.add_dirty(added + updated);
    if (added + updated > 0) {
      db.touch(key);
      notify_keyspace_event(ctx, notify::kZset, incr ? "zincr" : "zadd", key);
    } else if (z->empty()) {
      db.remove(key);  // created, then nothing was added
    }
  }
  if (incr) return any_processed ? score_double(last_score) : Reply::nil();
  return Reply::integer((flags & kZCh) ? added + updated : added);
}

Reply zadd(CommandContext& ctx) { return zadd_generic(ctx, 0, true); }

// ZINCRBY key increment member: ZADD INCR key increment member.
Reply zincrby(CommandContext& ctx) { return zadd_generic(ctx, kZIncr, false); }

Reply zrem(CommandContext& ctx) {
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return remove_members(ctx, z, notify::kZset, "zrem");
}

Reply zscore(CommandContext& ctx) {
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  const double* s = z == nullptr ? nullptr : z->score(ctx.argv[2]);
  return s == nullptr ? Reply::nil() : score_double(*s);
}

Reply zmscore(CommandContext& ctx) {
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    const double* s = z == nullptr ? nullptr : z->score(ctx.argv[i]);
    out.push_back(s == nullptr ? Reply::nil() : score_double(*s));
  }
  return Reply::array(std::move(out));
}

Reply zcard(CommandContext& ctx) {
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(z == nullptr ? 0 : static_cast<int64_t>(z->size()));
}

Reply rank_generic(CommandContext& ctx, bool reverse) {
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (z == nullptr || z->score(ctx.argv[2]) == nullptr) return Reply::nil();
  size_t r = z->rank(ctx.argv[2]);
  return Reply::integer(static_cast<int64_t>(reverse ? z->size() - 1 - r : r));
}

Reply zrank(CommandContext& ctx) { return rank_generic(ctx, false); }
Reply zrevrank(CommandContext& ctx) { return rank_generic(ctx, true); }

// ---- ranges ----------------------------------------------------------------

// zslParseRange: "(" makes a bound exclusive; the rest is strtod's, whole.
struct ScoreRange {
  double min, max;
  bool minex = false, maxex = false;
  bool contains(double v) const {
    return (minex ? v > min : v >= min) && (maxex ? v < max : v <= max);
  }
};

bool parse_score_bound(const std::string& s, double* v, bool* ex) {
  const char* p = s.c_str();
  *ex = false;
  if (!s.empty() && s[0] == '(') {
    *ex = true;
    ++p;
  }
  char* end = nullptr;
  *v = std::strtod(p, &end);
  return end == s.c_str() + s.size() && !std::isnan(*v);
}

bool parse_score_range(const std::string& min, const std::string& max, ScoreRange* r) {
  return parse_score_bound(min, &r->min, &r->minex) && parse_score_bound(max, &r->max, &r->maxex);
}

// zslParseLexRange: "-" and "+" the ends, "(x" exclusive, "[x" inclusive.
struct LexBound {
  enum Kind { kMin, kMax, kValue } kind = kValue;
  std::string value;
  bool ex = false;
};

bool parse_lex_bound(const std::string& s, LexBound* b) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
      if (s.size() != 1) return false;
      b->kind = LexBound::kMax;
      b->ex = true;
      return true;
    case '-':
      if (s.size() != 1) return false;
      b->kind = LexBound::kMin;
      b->ex = true;
      return true;
    case '(':
    case '[':
      b->kind = LexBound::kValue;
      b->ex = s[0] == '(';
      b->value = s.substr(1);
      return true;
    default:
      return false;
  }
}

struct LexRange {
  LexBound min, max;
  bool gte_min(std::string_view v) const {
    if (min.kind == LexBound::kMin) return true;
    if (min.kind == LexBound::kMax) return false;
    return min.ex ? v > min.value : v >= min.value;
  }
  bool lte_max(std::string_view v) const {
    if (max.kind == LexBound::kMax) return true;
    if (max.kind == LexBound::kMin) return false;
    return max.ex ? v < max.value : v <= max.value;
  }
  bool contains(std::string_view v) const { return gte_min(v) && lte_max(v); }
  // zslIsInLexRange's test for ranges that are empty whatever the members.
  bool empty() const {
    int cmp = 0;
    if (min.kind == max.kind && min.kind != LexBound::kValue) {
      cmp = 0;
    } else if (min.kind == LexBound::kMin || max.kind == LexBound::kMax) {
      cmp = -1;
    } else if (min.kind == LexBound::kMax || max.kind == LexBound::kMin) {
      cmp = 1;
    } else {
      cmp = min.value.compare(max.value);
    }
    return cmp > 0 || (cmp == 0 && (min.ex || max.ex));
  }
};

// Rank bounds (negative from the end) clamped to [first, last]; false when empty.
bool clamp_ranks(int64_t start, int64_t end, size_t size, size_t* first, size_t* last) {
  const int64_t n = static_cast<int64_t>(size);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *first = static_cast<size_t>(start);
  *last = static_cast<size_t>(end);
  return true;
}

}  // namespace

// Members with their scores as Redis 7.0 sends a scored range: flat
// [member, score, ...] in RESP2; with WITHSCORES in RESP3 an array of
// [member, double] pairs (zrangeResultEmitCBufferForClient).
Reply scored_reply(CommandContext& ctx, const std::vector<const Zset::Item*>& items,
                   bool withscores) {
  const bool resp3 = SessionAccess::protocol(ctx.session) == resp::Protocol::kResp3;
  std::vector<Reply> out;
  out.reserve(items.size() * (withscores && !resp3 ? 2 : 1));
  for (const Zset::Item* item : items) {
    if (!withscores) {
      out.push_back(Reply::bulk(item->member));
    } else if (resp3) {
      out.push_back(Reply::array({Reply::bulk(item->member), score_double(item->score)}));
    } else {
      out.push_back(Reply::bulk(item->member));
      out.push_back(score_reply(item->score));
    }
  }
  return Reply::array(std::move(out));
}

// The end of ZRANGESTORE, ZUNIONSTORE, ...: `items` (copied first: they
// may live in the destination) replace `dst` (and its TTL) and `event` is
// notified; an empty result deletes `dst` ("del"). The reply: the count.
Reply store_zset(CommandContext& ctx, const std::string& dst,
                 const std::vector<const Zset::Item*>& items, std::string_view event) {
  const EncodingLimits& limits = ServerAccess::keyspace(ctx.server).limits();
  Zset result;
  for (const Zset::Item* item : items) result.set(item->member, item->score, limits);
  if (result.listpack()) {
    // Redis builds the result, then converts it to a listpack: -0 reads back as 0.
    Zset zeroed;
    for (const Zset::Item* item : items) {
      zeroed.set(item->member, stored_score(result, item->score), limits);
    }
    result = std::move(zeroed);
  }
  return store_collection(ctx, dst, std::move(result), notify::kZset, event);
}

namespace {

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// zrangeGenericCommand: the options after min and max, the conflict
// checks, the range parse, then the lookup.
// ZRANGESTORE (`store`) reads dst src min max: every index one further.
Reply zrange_generic(CommandContext& ctx, RangeType type, Direction dir, bool store = false) {
  const Argv& argv = ctx.argv;
  const size_t base = store ? 1 : 0;
  bool withscores = false;
  int64_t offset = 0;
  int64_t limit = -1;
  for (size_t j = 4 + base; j < argv.size(); ++j) {
    size_t left = argv.size() - j - 1;
    if (!store && equals_ci(argv[j], "withscores")) {
      withscores = true;
    } else if (equals_ci(argv[j], "limit") && left >= 2) {
      if (!parse_int64(argv[j + 1], &offset) || !parse_int64(argv[j + 2], &limit)) {
        return errors::not_integer();
      }
      j += 2;
    } else if (dir == Direction::kAuto && equals_ci(argv[j], "rev")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && equals_ci(argv[j], "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && equals_ci(argv[j], "byscore")) {
      type = RangeType::kScore;
    } else {
      return errors::syntax();
    }
  }
  if (dir == Direction::kAuto) dir = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  if (limit != -1 && type == RangeType::kRank) {
    return Reply::error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (withscores && type == RangeType::kLex) {
    return Reply::error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  const bool reverse = dir == Direction::kReverse;
  // Score and lex ranges are given max first when reversed.
  const std::string& min_arg =
      reverse && type != RangeType::kRank ? argv[3 + base] : argv[2 + base];
  const std::string& max_arg =
      reverse && type != RangeType::kRank ? argv[2 + base] : argv[3 + base];
  int64_t start = 0;
  int64_t end = 0;
  ScoreRange sr{};
  LexRange lr;
  switch (type) {
    case RangeType::kAuto:
    case RangeType::kRank:
      if (!parse_int64(min_arg, &start) || !parse_int64(max_arg, &end)) {
        return errors::not_integer();
      }
      break;
    case RangeType::kScore:
      if (!parse_score_range(min_arg, max_arg, &sr)) {
        return Reply::error("ERR min or max is not a float");
      }
      break;
    case RangeType::kLex:
      if (!parse_lex_bound(min_arg, &lr.min) || !parse_lex_bound(max_arg, &lr.max)) {
        return Reply::error("ERR min or max not valid string range item");
      }
      break;
  }
  bool wrong = false;
  Entry* src = lookup_typed(ctx, argv[1 + base], ValueType::kZset, &wrong);
  if (wrong) return errors::wrong_type();
  Zset* z = src == nullptr ? nullptr : &src->zset();
  std::vector<const Zset::Item*> picked;
  auto deliver = [&]() {
    if (store) return store_zset(ctx, argv[1], picked, "zrangestore");
    return scored_reply(ctx, picked, withscores);
  };
  if (z == nullptr) return deliver();
  auto emit = [&](const Zset::Item& item) { picked.push_back(&item); };
  const size_t n = z->size();
  if (type == RangeType::kRank) {
    size_t first = 0;
    size_t last = 0;
    if (!clamp_ranks(start, end, n, &first, &last)) return deliver();
    for (size_t r = first; r <= last; ++r) emit(z->at(reverse ? n - 1 - r : r));
    return deliver();
  }
  if (offset < 0) return deliver();
  if (type == RangeType::kLex) {
    // zzlFirstInLexRange / zzlLastInLexRange, then LIMIT: Redis assumes the
    // members share one score; with mixed scores its walk (from the end,
    // to the first member past the near bound, then while within the far
    // bound) is what decides, so the fake walks the same way.
    auto rank_of = [&](size_t k) { return reverse ? n - 1 - k : k; };
    if (lr.empty() || !lr.gte_min(z->at(n - 1).member) || !lr.lte_max(z->at(0).member)) {
      return deliver();
    }
    size_t k = 0;
    for (; k < n; ++k) {
      const std::string& m = z->at(rank_of(k)).member;
      if (reverse ? lr.lte_max(m) : lr.gte_min(m)) break;
    }
    if (k == n) return deliver();
    const std::string& first = z->at(rank_of(k)).member;
    if (!(reverse ? lr.gte_min(first) : lr.lte_max(first))) return deliver();
    k += static_cast<size_t>(std::min<int64_t>(offset, static_cast<int64_t>(n)));
    for (int64_t taken = 0; k < n && (limit < 0 || taken < limit); ++k, ++taken) {
      const Zset::Item& item = z->at(rank_of(k));
      if (!(reverse ? lr.gte_min(item.member) : lr.lte_max(item.member))) break;
      emit(item);
    }
    return deliver();
  }
  int64_t skipped = 0;
  int64_t taken = 0;
  for (size_t k = 0; k < n && (limit < 0 || taken < limit); ++k) {
    const Zset::Item& item = z->at(reverse ? n - 1 - k : k);
    if (!sr.contains(item.score)) continue;
    if (skipped < offset) {
      ++skipped;
      continue;
    }
    emit(item);
    ++taken;
  }
  return deliver();
}

// ZRANGE and its older forms, each a fixed range type and direction.
template <RangeType kType, Direction kDir>
Reply zrange_as(CommandContext& ctx) {
  return zrange_generic(ctx, kType, kDir);
}

// ZCOUNT, ZREMRANGEBYSCORE key min max: the score range, then the sorted
// set at key (nullptr when absent). An error reply when either is bad.
std::optional<Reply> read_score_range_and_zset(CommandContext& ctx, ScoreRange* sr, Zset** z) {
  if (!parse_score_range(ctx.argv[2], ctx.argv[3], sr)) {
    return Reply::error("ERR min or max is not a float");
  }
  bool wrong = false;
  *z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return std::nullopt;
}

Reply zcount(CommandContext& ctx) {
  ScoreRange sr{};
  Zset* z = nullptr;
  if (std::optional<Reply> error = read_score_range_and_zset(ctx, &sr, &z)) return *error;
  int64_t count = 0;
  if (z != nullptr) {
    for (const Zset::Item& item : z->items()) count += sr.contains(item.score);
  }
  return Reply::integer(count);
}

// The end of a removal from the sorted set at argv[1]: the key is touched
// (or deleted when emptied), `event` is notified, then "del" when the key
// went away. Source: Redis 7.0 t_zset.c zremrangeGenericCommand and
// genericZpopCommand (the event, then dbDelete and "del").
void finish_removal(CommandContext& ctx, const Zset& z, std::string_view event) {
  const bool empty = z.empty();
  finish_write(current_db(ctx), ctx.argv[1], empty);
  notify_keyspace_event(ctx, notify::kZset, event, ctx.argv[1]);
  if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
}

Reply zremrangebyscore(CommandContext& ctx) {
  ScoreRange sr{};
  Zset* z = nullptr;
  if (std::optional<Reply> error = read_score_range_and_zset(ctx, &sr, &z)) return *error;
  if (z == nullptr) return Reply::integer(0);
  // Items in a score range are contiguous in (score, member) order.
  size_t first = 0;
  while (first < z->size() && !sr.contains(z->at(first).score)) ++first;
  size_t last = first;
  while (last < z->size() && sr.contains(z->at(last).score)) ++last;
  if (last == first) return Reply::integer(0);
  z->erase_ranks(first, last);
  ctx.add_dirty(static_cast<int64_t>(last - first));
  finish_removal(ctx, *z, "zremrangebyscore");
  return Reply::integer(static_cast<int64_t>(last - first));
}

Reply zremrangebyrank(CommandContext& ctx) {
  int64_t start = 0;
  int64_t end = 0;
  if (!parse_int64(ctx.argv[2], &start) || !parse_int64(ctx.argv[3], &end)) {
    return errors::not_integer();
  }
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  size_t first = 0;
  size_t last = 0;
  if (z == nullptr || !clamp_ranks(start, end, z->size(), &first, &last)) return Reply::integer(0);
  z->erase_ranks(first, last + 1);
  ctx.add_dirty(static_cast<int64_t>(last - first + 1));
  finish_removal(ctx, *z, "zremrangebyrank");
  return Reply::integer(static_cast<int64_t>(last - first + 1));
}

// ZPOPMIN / ZPOPMAX key [count]: a flat [member, score, ...] array.
Reply zpop_generic(CommandContext& ctx, bool max) {
  if (ctx.argv.size() > 3) return errors::syntax();
  int64_t count = 1;
  if (ctx.argv.size() == 3 && (!parse_int64(ctx.argv[2], &count) || count < 0)) {
    return Reply::error("ERR value is out of range, must be positive");
  }
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (z == nullptr || count == 0) return Reply::array({});
  std::vector<Reply> out;
  size_t k = std::min(static_cast<size_t>(count), z->size());
  // RESP3: [member, double] without a count, [[member, double], ...] with one.
  const bool resp3 = SessionAccess::protocol(ctx.session) == resp::Protocol::kResp3;
  const bool has_count = ctx.argv.size() == 3;
  for (size_t i = 0; i < k; ++i) {
    const Zset::Item& item = z->at(max ? z->size() - 1 - i : i);
    if (resp3 && has_count) {
      out.push_back(Reply::array({Reply::bulk(item.member), score_double(item.score)}));
    } else {
      out.push_back(Reply::bulk(item.member));
      out.push_back(resp3 ? score_double(item.score) : score_reply(item.score));
    }
  }
  if (max) {
    z->erase_ranks(z->size() - k, z->size());
  } else {
    z->erase_ranks(0, k);
  }
  ctx.add_dirty(static_cast<int64_t>(k));  // genericZpopCommand: one per member
  if (k > 0) finish_removal(ctx, *z, max ? "zpopmax" : "zpopmin");
  return Reply::array(std::move(out));
}

Reply zpopmin(CommandContext& ctx) { return zpop_generic(ctx, false); }
Reply zpopmax(CommandContext& ctx) { return zpop_generic(ctx, true); }

// ZSCAN key cursor [MATCH pattern] [COUNT count]: a listpack answers whole
// in one call (cursor 0), in score order, as Redis does.
Reply zscan(CommandContext& ctx) {
  return scan_collection(ctx, ValueType::kZset, [](Entry& e) {
    const Zset& z = e.zset();
    return ScanView{
        .size = z.size(),
        .whole = z.listpack(),
        .name = [&z](size_t i) { return std::string_view(z.at(i).member); },
        .emit =
            [&z](size_t i, std::vector<Reply>* out) {
              out->push_back(Reply::bulk(z.at(i).member));
              out->push_back(score_reply(z.at(i).score));
            },
    };
  });
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count].
Reply zrangestore(CommandContext& ctx) {
  return zrange_generic(ctx, RangeType::kAuto, Direction::kAuto, /*store=*/true);
}

// ZLEXCOUNT / ZREMRANGEBYLEX key min max: the ranks [first, last] in the
// lex range; false when empty. As Redis walks a listpack (zzlFirstInLexRange,
// then on while zzlLexValueLteMax): with mixed scores the run ends at the
// first member past max, not at the last one within it.
bool lex_ranks(const Zset& z, const LexRange& lr, size_t* first, size_t* last) {
  const size_t n = z.size();
  if (n == 0 || lr.empty() || !lr.gte_min(z.at(n - 1).member) || !lr.lte_max(z.at(0).member)) {
    return false;
  }
  size_t f = 0;
  while (f < n && !lr.gte_min(z.at(f).member)) ++f;
  if (f == n || !lr.lte_max(z.at(f).member)) return false;
  size_t l = f;
  while (l + 1 < n && lr.lte_max(z.at(l + 1).member)) ++l;
  *first = f;
  *last = l;
  return true;
}

// ZLEXCOUNT / ZREMRANGEBYLEX key min max: the range (its errors first),
// then the key; `z` stays nullptr when the key is absent or nothing is in
// the range, else [first, last] are the ranks in it.
struct LexHit {
  Zset* z = nullptr;
  size_t first = 0;
  size_t last = 0;
  int64_t count() const { return z == nullptr ? 0 : static_cast<int64_t>(last - first + 1); }
};
std::optional<Reply> read_lex_hit(CommandContext& ctx, LexHit* hit) {
  LexRange lr;
  if (!parse_lex_bound(ctx.argv[2], &lr.min) || !parse_lex_bound(ctx.argv[3], &lr.max)) {
    return Reply::error("ERR min or max not valid string range item");
  }
  bool wrong = false;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (z != nullptr && lex_ranks(*z, lr, &hit->first, &hit->last)) hit->z = z;
  return std::nullopt;
}

Reply zlexcount(CommandContext& ctx) {
  LexHit hit;
  if (std::optional<Reply> error = read_lex_hit(ctx, &hit)) return *error;
  return Reply::integer(hit.count());
}

Reply zremrangebylex(CommandContext& ctx) {
  LexHit hit;
  if (std::optional<Reply> error = read_lex_hit(ctx, &hit)) return *error;
  if (hit.z == nullptr) return Reply::integer(0);
  hit.z->erase_ranks(hit.first, hit.last + 1);
  ctx.add_dirty(hit.count());
  const bool empty = hit.z->empty();
  finish_write(current_db(ctx), ctx.argv[1], empty);
  notify_keyspace_event(ctx, notify::kZset, "zremrangebylex", ctx.argv[1]);
  if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  return Reply::integer(hit.count());
}

// ZRANDMEMBER key [count [WITHSCORES]], as SRANDMEMBER: a positive count
// distinct members (the whole set, highest first, when count >= size), a negative
// one |count| independent draws.
Reply zrandmember(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool wrong = false;
  if (argv.size() == 2) {
    Zset* z = read_zset(ctx, &wrong);
    if (wrong) return errors::wrong_type();
    if (z == nullptr) return Reply::nil();
    return Reply::bulk(z->at(static_cast<size_t>(ctx.server.random_below(z->size()))).member);
  }
  RandomCount rc;
  Reply error;
  if (!parse_random_count_with(argv, "withscores", &rc, &error)) return error;
  Zset* z = read_zset(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (z == nullptr || rc.count == 0) return Reply::array({});
  std::vector<size_t> positions;
  // A count of 1 is a draw, and the whole sorted set comes from the highest
  // rank down (as 7.0.15 answers).
  if (!random_positions(ctx.server, z->size(), rc.count,
                        RandomPick{.draw_one = true, .whole_descending = true}, &positions)) {
    return errors::not_integer();
  }
  std::vector<const Zset::Item*> picked;
  picked.reserve(positions.size());
  for (size_t i : positions) picked.push_back(&z->at(i));
  return scored_reply(ctx, picked, rc.with);
}

}  // namespace

void register_zset_commands(CommandTable& table) {
  register_geo_commands(table);
  table.add({"zadd", -4, kCmdWrite | kCmdDenyOom | kCmdFast, &zadd});
  table.add({"zincrby", 4, kCmdWrite | kCmdDenyOom | kCmdFast, &zincrby});
  table.add({"zrem", -3, kCmdWrite | kCmdFast, &zrem});
  table.add({"zscore", 3, kCmdReadonly | kCmdFast, &zscore});
  table.add({"zmscore", -3, kCmdReadonly | kCmdFast, &zmscore});
  table.add({"zcard", 2, kCmdReadonly | kCmdFast, &zcard});
  table.add({"zrank", 3, kCmdReadonly | kCmdFast, &zrank});
  table.add({"zrevrank", 3, kCmdReadonly | kCmdFast, &zrevrank});
  table.add({"zcount", 4, kCmdReadonly | kCmdFast, &zcount});
  table.add({"zrange", -4, kCmdReadonly, &zrange_as<RangeType::kAuto, Direction::kAuto>});
  table.add({"zrevrange", -4, kCmdReadonly, &zrange_as<RangeType::kRank, Direction::kReverse>});
  table.add(
      {"zrangebyscore", -4, kCmdReadonly, &zrange_as<RangeType::kScore, Direction::kForward>});
  table.add(
      {"zrevrangebyscore", -4, kCmdReadonly, &zrange_as<RangeType::kScore, Direction::kReverse>});
  table.add({"zrangebylex", -4, kCmdReadonly, &zrange_as<RangeType::kLex, Direction::kForward>});
  table.add({"zrevrangebylex", -4, kCmdReadonly, &zrange_as<RangeType::kLex, Direction::kReverse>});
  table.add({"zremrangebyscore", 4, kCmdWrite, &zremrangebyscore});
  table.add({"zremrangebyrank", 4, kCmdWrite, &zremrangebyrank});
  table.add({"zpopmin", -2, kCmdWrite | kCmdFast, &zpopmin});
  table.add({"zpopmax", -2, kCmdWrite | kCmdFast, &zpopmax});
  table.add({"zscan", -3, kCmdReadonly, &zscan});
  table.add({"zunion", -3, kCmdReadonly, &zunion});
  table.add({"zinter", -3, kCmdReadonly, &zinter});
  table.add({"zdiff", -3, kCmdReadonly, &zdiff});
  table.add({"zunionstore", -4, kCmdWrite | kCmdDenyOom, &zunionstore});
  table.add({"zinterstore", -4, kCmdWrite | kCmdDenyOom, &zinterstore});
  table.add({"zdiffstore", -4, kCmdWrite | kCmdDenyOom, &zdiffstore});
  table.add({"zintercard", -3, kCmdReadonly, &zintercard});
  table.add({"zrangestore", -5, kCmdWrite | kCmdDenyOom, &zrangestore});
  table.add({"zlexcount", 4, kCmdReadonly | kCmdFast, &zlexcount});
  table.add({"zremrangebylex", 4, kCmdWrite, &zremrangebylex});
  table.add({"zrandmember", -2, kCmdReadonly, &zrandmember});
}

}  // namespace redsim::sim

// The sorted-set algebra: ZUNION ZINTER ZDIFF (WEIGHTS, AGGREGATE,
// WITHSCORES), ZUNIONSTORE ZINTERSTORE ZDIFFSTORE and ZINTERCARD (LIMIT);
// plain sets count as sorted sets whose members score 1. Argument checks
// in Redis 7.0's order (numkeys, every key's type, then the options);
// results ordered as Redis's skiplist orders them (score, then member).
// Source: Redis 7.0 src/t_zset.c (zunionInterDiffGenericCommand,
// zunionInterAggregate), texts verified against redis-server 7.0.15;
// facts only.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/cmd_zset.h"

namespace redsim::sim {

using resp::Reply;

namespace {

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// zunionInterAggregate: a NaN sum (inf + -inf) is 0.
void aggregate_into(double* target, double value, Aggregate agg) {
  switch (agg) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0.0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

// One input of the algebra: a sorted set, or a set whose members score 1.
struct Source {
  const Entry* entry = nullptr;  // nullptr: absent key (empty)
  double weight = 1.0;
  size_t size() const {
    if (entry == nullptr) return 0;
    return entry->is_zset() ? entry->zset().size() : entry->set().size();
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    if (entry == nullptr) return;
    if (entry->is_zset()) {
      for (const Zset::Item& it : entry->zset().items()) fn(it.member, it.score);
    } else {
      for (const std::string& m : entry->set().members()) fn(m, 1.0);
    }
  }
  const double* find(std::string_view member, double* one) const {
    if (entry == nullptr) return nullptr;
    if (entry->is_zset()) return entry->zset().score(member);
    *one = 1.0;
    return entry->set().contains(member) ? one : nullptr;
  }
};

// zunionInterDiffGenericCommand. `numkeys_at` is the numkeys argument's
// index; `dst` the STORE destination (nullptr: reply); `card_only` ZINTERCARD.
Reply zset_algebra(CommandContext& ctx, SetOp op, size_t numkeys_at, const std::string* dst,
                   bool card_only) {
  const Argv& argv = ctx.argv;
  int64_t setnum = 0;
  if (!parse_int64(argv[numkeys_at], &setnum)) return errors::not_integer();
  if (setnum < 1) {
    std::string name = argv[0];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Reply::error("ERR at least 1 input key is needed for '" + name + "' command");
  }
  if (setnum > static_cast<int64_t>(argv.size() - numkeys_at - 1)) return errors::syntax();
  std::vector<Source> src(static_cast<size_t>(setnum));
  size_t j = numkeys_at + 1;
  for (size_t i = 0; i < src.size(); ++i, ++j) {
    Entry* e = current_db(ctx).lookup(argv[j], ctx.now_ms);
    if (e != nullptr && !e->is_zset() && !e->is_set()) return errors::wrong_type();
    src[i].entry = e;
  }
  Aggregate agg = Aggregate::kSum;
  bool withscores = false;
  int64_t limit = 0;
  Reply error;
  if (card_only && !parse_intercard_limit(argv, j, &limit, &error)) return error;
  while (!card_only && j < argv.size()) {
    const size_t remaining = argv.size() - j;
    if (op != SetOp::kDiff && remaining >= src.size() + 1 && equals_ci(argv[j], "weights")) {
      ++j;
      for (Source& s : src) {
        if (!parse_double(argv[j], &s.weight)) {
          return Reply::error("ERR weight value is not a float");
        }
        ++j;
      }
    } else if (op != SetOp::kDiff && remaining >= 2 && equals_ci(argv[j], "aggregate")) {
      const std::string& a = argv[j + 1];
      if (equals_ci(a, "sum")) {
        agg = Aggregate::kSum;
      } else if (equals_ci(a, "min")) {
        agg = Aggregate::kMin;
      } else if (equals_ci(a, "max")) {
        agg = Aggregate::kMax;
      } else {
        return errors::syntax();
      }
      j += 2;
    } else if (dst == nullptr && equals_ci(argv[j], "withscores")) {
      withscores = true;
      ++j;
    } else {
      return errors::syntax();
    }
  }
  // The result, ordered as Redis's skiplist orders it.
  std::vector<std::pair<std::string, double>> acc;
  std::unordered_map<std::string, size_t> where;
  int64_t cardinality = 0;
  if (op == SetOp::kInter) {
    std::vector<Source> by_size = src;
    std::stable_sort(by_size.begin(), by_size.end(),
                     [](const Source& a, const Source& b) { return a.size() < b.size(); });
    if (by_size[0].size() > 0) {
      bool done = false;
      by_size[0].for_each([&](const std::string& m, double v) {
        if (done) return;
        double score = by_size[0].weight * v;
        if (std::isnan(score)) score = 0;
        for (size_t k = 1; k < by_size.size(); ++k) {
          double one = 0;
          const double* other =
              by_size[k].entry == by_size[0].entry ? &v : by_size[k].find(m, &one);
          if (other == nullptr) return;
          aggregate_into(&score, *other * by_size[k].weight, agg);
        }
        if (card_only) {
          ++cardinality;
          if (limit != 0 && cardinality >= limit) done = true;
          return;
        }
        acc.emplace_back(m, score);
      });
    }
  } else if (op == SetOp::kUnion) {
    for (const Source& s : src) {
      s.for_each([&](const std::string& m, double v) {
        double score = s.weight * v;
        if (std::isnan(score)) score = 0;
        auto [it, added] = where.try_emplace(m, acc.size());
        if (added) {
          acc.emplace_back(m, score);
        } else {
          aggregate_into(&acc[it->second].second, score, agg);
        }
      });
    }
  } else if (src[0].size() > 0) {
    src[0].for_each([&](const std::string& m, double v) {
      for (size_t k = 1; k < src.size(); ++k) {
        double one = 0;
        if (src[k].find(m, &one) != nullptr) return;
      }
      acc.emplace_back(m, v);
    });
  }
  if (card_only) return Reply::integer(cardinality);
  std::vector<Zset::Item> items;
  items.reserve(acc.size());
  for (auto& [m, score] : acc) items.push_back(Zset::Item{score, std::move(m)});
  std::sort(items.begin(), items.end(), [](const Zset::Item& a, const Zset::Item& b) {
    return a.score != b.score ? a.score < b.score : a.member < b.member;
  });
  std::vector<const Zset::Item*> ptrs;
  ptrs.reserve(items.size());
  for (const Zset::Item& it : items) ptrs.push_back(&it);
  if (dst != nullptr) {
    const char* event =
        op == SetOp::kUnion ? "zunionstore" : (op == SetOp::kInter ? "zinterstore" : "zdiffstore");
    return store_zset(ctx, *dst, ptrs, event);
  }
  return scored_reply(ctx, ptrs, withscores);
}

}  // namespace

Reply zunion(CommandContext& ctx) { return zset_algebra(ctx, SetOp::kUnion, 1, nullptr, false); }
Reply zinter(CommandContext& ctx) { return zset_algebra(ctx, SetOp::kInter, 1, nullptr, false); }
Reply zdiff(CommandContext& ctx) { return zset_algebra(ctx, SetOp::kDiff, 1, nullptr, false); }
Reply zunionstore(CommandContext& ctx) {
  return zset_algebra(ctx, SetOp::kUnion, 2, &ctx.argv[1], false);
}
Reply zinterstore(CommandContext& ctx) {
  return zset_algebra(ctx, SetOp::kInter, 2, &ctx.argv[1], false);
}
Reply zdiffstore(CommandContext& ctx) {
  return zset_algebra(ctx, SetOp::kDiff, 2, &ctx.argv[1], false);
}
Reply zintercard(CommandContext& ctx) { return zset_algebra(ctx, SetOp::kInter, 1, nullptr, true); }

}  // namespace redsim::sim

#include "sim/world/exhaustive.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "sim/world/explore.h"
#include "sim/world/scheduler.h"

namespace redsim::world {

namespace {

// Commands whose only key is argv[1] (Redis's key specs: first = last = 1).
constexpr std::array<std::string_view, 56> kFirstKeyCommands = {
    "APPEND",    "DECR",        "DECRBY",  "EXPIRE",        "EXPIREAT", "EXPIRETIME",
    "GET",       "GETDEL",      "GETEX",   "GETSET",        "HDEL",     "HEXISTS",
    "HGET",      "HGETALL",     "HINCRBY", "HKEYS",         "HLEN",     "HMGET",
    "HMSET",     "HSET",        "HSETNX",  "HVALS",         "INCR",     "INCRBY",
    "LLEN",      "LPOP",        "LPUSH",   "LRANGE",        "PERSIST",  "PEXPIRE",
    "PEXPIREAT", "PEXPIRETIME", "PSETEX",  "PTTL",          "RPOP",     "RPUSH",
    "SADD",      "SCARD",       "SET",     "SETEX",         "SETNX",    "SISMEMBER",
    "SMEMBERS",  "SREM",        "STRLEN",  "TTL",           "TYPE",     "ZADD",
    "ZCARD",     "ZINCRBY",     "ZRANGE",  "ZRANGEBYSCORE", "ZREM",     "ZREMRANGEBYSCORE",
    "ZSCORE",    "INCRBYFLOAT"};
// Commands whose every argument is a key.
constexpr std::array<std::string_view, 5> kAllKeyCommands = {"DEL", "EXISTS", "MGET", "TOUCH",
                                                             "UNLINK"};
// Pub/sub commands (no keys; they publish or change subscriptions).
constexpr std::array<std::string_view, 8> kPubSubCommands = {
    "PUBLISH",    "SPUBLISH",     "SUBSCRIBE",  "UNSUBSCRIBE",
    "PSUBSCRIBE", "PUNSUBSCRIBE", "SSUBSCRIBE", "SUNSUBSCRIBE"};
// Scripts: any key (Redis asks scripts to declare their keys in KEYS, but a
// standalone server runs them anyway, and so does ours); they may publish
// (Redisson's unlock does).
constexpr std::array<std::string_view, 6> kScriptCommands = {"EVAL",       "EVALSHA", "EVAL_RO",
                                                             "EVALSHA_RO", "FCALL",   "FCALL_RO"};

bool among(std::string_view name, auto& table) {
  return std::find(table.begin(), table.end(), name) != table.end();
}

}  // namespace

bool Footprint::commutes_with(const Footprint& other) const {
  if (server != other.server) return true;
  if (pubsub && other.pubsub) return false;
  if ((any_key && (other.any_key || !other.keys.empty())) || (other.any_key && !keys.empty())) {
    return false;
  }
  for (const std::string& k : keys) {
    if (std::find(other.keys.begin(), other.keys.end(), k) != other.keys.end()) return false;
  }
  return true;
}

std::shared_ptr<const Footprint> command_footprint(size_t server,
                                                   const std::vector<std::string>& argv) {
  if (argv.empty()) return nullptr;
  std::string name = argv[0];
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  auto f = std::make_shared<Footprint>();
  f->server = server;
  if (name == "PING" || name == "ECHO") return f;
  if (among(name, kFirstKeyCommands)) {
    if (argv.size() < 2) return f;  // an arity error touches nothing
    f->keys.push_back(argv[1]);
    return f;
  }
  if (among(name, kAllKeyCommands)) {
    f->keys.assign(argv.begin() + 1, argv.end());
    return f;
  }
  if (among(name, kPubSubCommands)) {
    f->pubsub = true;
    return f;
  }
  if (among(name, kScriptCommands)) {
    f->any_key = true;
    f->pubsub = true;
    return f;
  }
  return nullptr;
}

uint32_t Chooser::choose(uint32_t options, bool tie) {
  uint32_t chosen = 0;
  if (points_.size() < prefix_.size()) chosen = std::min(prefix_[points_.size()], options - 1);
  points_.push_back(ChoicePoint{.options = options, .chosen = chosen, .tie = tie});
  return chosen;
}

std::string format_schedule(const std::vector<uint32_t>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(i) + "=" + std::to_string(choices[i]);
  }
  return out;
}

std::vector<uint32_t> parse_schedule(const std::string& text) {
  std::vector<uint32_t> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item(text.data() + at, comma - at);
    const size_t eq = item.find('=');
    size_t pos = 0;
    uint32_t option = 0;
    const bool ok = eq != std::string_view::npos &&
                    std::from_chars(item.data(), item.data() + eq, pos).ec == std::errc() &&
                    std::from_chars(item.data() + eq + 1, item.data() + item.size(), option).ec ==
                        std::errc() &&
                    pos < 100000 && (out.empty() || pos >= out.size());
    if (!ok) throw std::invalid_argument("bad schedule entry '" + std::string(item) + "'");
    out.resize(pos + 1, 0);
    out[pos] = option;
    at = comma + 1;
  }
  return out;
}

ExhaustiveResult search_schedules(
    int bound, const std::function<ScheduleRun(const std::vector<uint32_t>&)>& run,
    uint64_t max_runs) {
  ExhaustiveResult result;
  std::vector<uint32_t> prefix;
  for (uint64_t runs = 0; runs < max_runs; ++runs) {
    const ScheduleRun r = run(prefix);
    if (r.pruned) {
      ++result.pruned;
    } else {
      ++result.schedules;
      if (r.failed) {
        std::vector<uint32_t> choices;
        for (const ChoicePoint& p : r.points) choices.push_back(p.chosen);
        while (!choices.empty() && choices.back() == 0) choices.pop_back();
        result.counterexample = std::move(choices);
        return result;
      }
    }
    // Backtrack: the deepest point with an untried option inside the bound.
    std::vector<int> deviations_before(r.points.size() + 1, 0);
    for (size_t i = 0; i < r.points.size(); ++i) {
      const ChoicePoint& p = r.points[i];
      deviations_before[i + 1] = deviations_before[i] + (!p.tie && p.chosen > 0 ? 1 : 0);
    }
    bool advanced = false;
    for (size_t i = r.points.size(); i-- > 0;) {
      const ChoicePoint& p = r.points[i];
      if (p.chosen + 1 >= p.options) continue;
      if (!p.tie && p.chosen == 0 && deviations_before[i] + 1 > bound) continue;
      prefix.clear();
      for (size_t j = 0; j < i; ++j) prefix.push_back(r.points[j].chosen);
      prefix.push_back(p.chosen + 1);
      advanced = true;
      break;
    }
    if (!advanced) {
      result.complete = true;
      return result;
    }
  }
  return result;
}

ExhaustiveResult explore_exhaustive(const ExplorePlan& plan, uint64_t max_runs) {
  return search_schedules(
      plan.strategy.bound,
      [&plan](const std::vector<uint32_t>& prefix) {
        ExplorePlan p = plan;
        p.strategy.schedule = prefix;
        ExploreOutcome out = run_plan(p);
        return ScheduleRun{.failed = !out.violations.empty(),
                           .pruned = out.pruned,
                           .points = std::move(out.choices)};
      },
      max_runs);
}

}  // namespace redsim::world

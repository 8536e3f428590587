#include "sim/world/pct.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "sim/world/schedule.h"

namespace redsim::world {

Strategy parse_strategy(std::string_view text) {
  if (text == "random") return Strategy{};
  if (text == "pct") return Strategy{.depth = 3};
  constexpr std::string_view kPrefix = "pct:";
  if (text.starts_with(kPrefix)) {
    const std::string_view digits = text.substr(kPrefix.size());
    int depth = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), depth);
    if (ec == std::errc() && end == digits.data() + digits.size() && depth >= 1 && depth <= 8) {
      return Strategy{.depth = depth};
    }
    throw std::invalid_argument("pct depth must be 1..8, got '" + std::string(digits) + "'");
  }
  if (text == "exhaustive") return Strategy{.bound = 2};
  constexpr std::string_view kExhaustive = "exhaustive:";
  if (text.starts_with(kExhaustive)) {
    std::string_view rest = text.substr(kExhaustive.size());
    std::string_view schedule;
    if (const size_t at = rest.find('@'); at != std::string_view::npos) {
      schedule = rest.substr(at + 1);
      rest = rest.substr(0, at);
    }
    int bound = -1;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), bound);
    if (ec != std::errc() || end != rest.data() + rest.size() || bound < 0 || bound > 8) {
      throw std::invalid_argument("exhaustive bound must be 0..8, got '" + std::string(rest) + "'");
    }
    Strategy out{.bound = bound};
    out.schedule = parse_schedule(std::string(schedule), &out.narrow);
    if (std::all_of(out.narrow.begin(), out.narrow.end(), [](uint64_t m) { return m == 0; })) {
      out.narrow.clear();
    }
    return out;
  }
  throw std::invalid_argument("unknown strategy '" + std::string(text) +
                              "'; one of random, pct, pct:D, exhaustive, exhaustive:B");
}

std::string strategy_name(const Strategy& strategy) {
  if (strategy.exhaustive()) {
    const std::string schedule = format_schedule(strategy.schedule, strategy.narrow);
    return "exhaustive:" + std::to_string(strategy.bound) +
           (schedule.empty() ? "" : "@" + schedule);
  }
  return strategy.depth == 0 ? "random" : "pct:" + std::to_string(strategy.depth);
}

PctPriorities::PctPriorities(int depth, uint64_t steps, uint64_t seed)
    : depth_(std::max(depth, 1)), rng_(seed) {
  const uint64_t k = std::max<uint64_t>(steps, 1);
  for (int i = 1; i < depth_; ++i) {
    change_points_.push_back(static_cast<uint64_t>(rng_.uniform(1, static_cast<int64_t>(k))));
  }
  std::sort(change_points_.begin(), change_points_.end());
}

uint64_t PctPriorities::priority(uint32_t pid) {
  if (pid == 0) return 0;
  if (priorities_.size() <= pid) priorities_.resize(pid + 1, 0);
  if (priorities_[pid] == 0) {
    // Random and, with overwhelming probability, distinct; all above the
    // change points' priorities 1 .. depth-1. (Ties fall back to pid order.)
    priorities_[pid] = (rng_.next_u64() >> 2) + static_cast<uint64_t>(depth_);
  }
  return priorities_[pid];
}

void PctPriorities::step(uint32_t pid) {
  ++steps_;
  priority(pid);
  // Several change points may share a step: the process drops to the lowest.
  while (next_change_ < change_points_.size() && change_points_[next_change_] == steps_) {
    ++next_change_;
    if (pid != 0) {
      priorities_[pid] = static_cast<uint64_t>(depth_) - static_cast<uint64_t>(next_change_);
    }
  }
}

std::pair<size_t, size_t> PctPriorities::rank(uint32_t pid) {
  const uint64_t mine = priority(pid);
  size_t above = 0, seen = 0;
  for (uint32_t other = 1; other < priorities_.size(); ++other) {
    if (priorities_[other] == 0) continue;
    ++seen;
    if (other == pid) continue;
    if (priorities_[other] > mine || (priorities_[other] == mine && other < pid)) ++above;
  }
  return {above, seen};
}

}  // namespace redsim::world

#include "tools/yardstick/coverage.h"

#include <algorithm>
#include <map>
#include <utility>

namespace redsim::world {

std::vector<LockStep> lock_steps(const History& history) {
  std::vector<LockStep> out;
  using K = LockStep::Kind;
  for (const HistoryEvent& e : history.events()) {
    switch (e.kind) {
      case EventKind::kEnterCritical:
        out.push_back({K::kEnter, e.process});
        break;
      case EventKind::kLeaveCritical:
        out.push_back({K::kLeave, e.process});
        break;
      case EventKind::kKeyState:
        out.push_back({e.text == "absent" ? K::kKeyGone : K::kKeySet, e.process});
        break;
      case EventKind::kAcquireEnd:
        if (e.value != 1) out.push_back({K::kAcquireFailed, e.process});
        break;
      case EventKind::kHold:
        if (e.text == "unlock-rejected") out.push_back({K::kUnlockRejected, e.process});
        break;
      case EventKind::kProcessCrash:
        out.push_back({K::kCrash, e.process});
        break;
      case EventKind::kProcessPause:
        out.push_back({K::kPause, e.process});
        break;
      case EventKind::kProcessResume:
        out.push_back({K::kResume, e.process});
        break;
      default:
        break;
    }
  }
  return out;
}

std::set<uint64_t> coverage_of(const std::vector<LockStep>& steps) {
  std::set<ProcessId> inside;
  ProcessId owner = 0;  // who last set the key (0: nobody, or expiry's write)
  bool key = false;
  std::set<ProcessId> crashed;
  // The abstract state: inside (0..2) | key (0..1) | owner inside, outside,
  // crashed (0..2) | someone inside without owning the key (0..1).
  auto state = [&]() -> uint64_t {
    const uint64_t n = std::min<size_t>(inside.size(), 2);
    uint64_t where = 0;
    if (key && owner != 0) where = inside.count(owner) ? 1 : crashed.count(owner) ? 2 : 0;
    bool stranger = false;
    for (ProcessId p : inside) stranger = stranger || !key || p != owner;
    return n | (uint64_t{key} << 2) | (where << 3) | (uint64_t{stranger} << 5);
  };
  std::set<uint64_t> out;
  uint64_t before = state();
  for (const LockStep& s : steps) {
    switch (s.kind) {
      case LockStep::Kind::kEnter:
        inside.insert(s.process);
        break;
      case LockStep::Kind::kLeave:
        inside.erase(s.process);
        break;
      case LockStep::Kind::kKeySet:
        key = true;
        owner = s.process;
        break;
      case LockStep::Kind::kKeyGone:
        key = false;
        owner = 0;
        break;
      case LockStep::Kind::kCrash:
        crashed.insert(s.process);
        inside.erase(s.process);
        break;
      default:
        break;
    }
    const uint64_t after = state();
    out.insert(mix64((before << 16) ^ (static_cast<uint64_t>(s.kind) << 8) ^ after));
    before = after;
  }
  return out;
}

ExplorePlan mutate_plan(const ExplorePlan& plan, Prng& rng, const MutationLimits& limits) {
  ExplorePlan out = plan;
  const int mutations = static_cast<int>(rng.uniform(1, 3));
  for (int m = 0; m < mutations; ++m) {
    const int64_t what = rng.uniform(0, 3);
    if (what == 0 || out.clients.empty()) {
      out.seed = rng.uniform(1, int64_t{1} << 40);
      continue;
    }
    if (what == 3 && out.clients.size() >= 2) {
      const size_t a = static_cast<size_t>(rng.below(out.clients.size()));
      const size_t b = static_cast<size_t>(rng.below(out.clients.size()));
      std::swap(out.clients[a].attempts, out.clients[b].attempts);
      continue;
    }
    ClientPlan& c = out.clients[static_cast<size_t>(rng.below(out.clients.size()))];
    if (c.attempts.empty()) continue;
    Attempt& a = c.attempts[static_cast<size_t>(rng.below(c.attempts.size()))];
    // Whole milliseconds, as the generators draw them.
    auto nudge = [&rng](int64_t v, int64_t max) {
      const int64_t step = std::max<int64_t>(max / 4000, 1) * 1000;
      const int64_t moved = v + rng.uniform(-step, step) / 1000 * 1000;
      return std::clamp<int64_t>(moved, 0, max);
    };
    if (what == 1) {
      a.think_us = nudge(a.think_us, limits.think_max_us);
    } else {
      a.work_us = nudge(a.work_us, limits.work_max_us);
    }
  }
  return out;
}

ExplorePlan CoverageCorpus::next(const std::function<ExplorePlan()>& fresh) {
  if (!corpus_.empty() && rng_.uniform(0, 3) != 0) {
    // Newer entries first: they are the frontier.
    const size_t n = corpus_.size();
    const size_t back = static_cast<size_t>(rng_.below(std::min<size_t>(n, 8)));
    return mutate_plan(corpus_[n - 1 - back], rng_, limits_);
  }
  return fresh();
}

bool CoverageCorpus::add(const ExplorePlan& plan, const History& history) {
  bool fresh = false;
  for (uint64_t edge : coverage_of(lock_steps(history))) fresh = seen_.insert(edge).second || fresh;
  if (fresh) corpus_.push_back(plan);
  return fresh;
}

}  // namespace redsim::world

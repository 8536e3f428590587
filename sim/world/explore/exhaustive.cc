#include "sim/world/explore/exhaustive.h"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/world/explore/explore.h"

namespace redsim::world {

namespace {

// Phase 1 places at most this many deviations (exhaustive.h, "The order of
// the search"): one-fault bugs are found in at most 1 + P schedules (P: the
// default run's deviation options). Pairs would cost about P * P / 2
// placement runs before phase 2 starts (get-del seed 3 at bound 2: its
// two-pause race at schedule 13,569 with pairs, 960 without; 725 with no
// phase 1), so two-deviation bugs are left to the depth-first phase.
constexpr int kPlacementDeviations = 1;

// The options of `points` with the trailing zeros cut: the schedule's
// canonical form (every point past a prefix takes option 0).
std::vector<uint32_t> schedule_of(const std::vector<ChoicePoint>& points) {
  std::vector<uint32_t> out;
  for (const ChoicePoint& p : points) out.push_back(p.chosen);
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

std::vector<uint32_t> trimmed(std::vector<uint32_t> s) {
  while (!s.empty() && s.back() == 0) s.pop_back();
  return s;
}

}  // namespace

ExhaustiveResult search_schedules(
    int bound, const std::function<ScheduleRun(const std::vector<uint32_t>&)>& run,
    uint64_t max_runs) {
  ExhaustiveResult result;
  uint64_t runs = 0;
  // Phase 1, placements: every choice of at most `bound` deviations with
  // every tie at option 0, fewest deviations first, then earliest first.
  // The runs' choice points are kept, by schedule: phase 2 meets each of
  // these schedules again and takes its points from here instead of
  // running it twice (a run is a pure function of its schedule).
  std::map<std::vector<uint32_t>, std::vector<ChoicePoint>> placed;
  struct Node {
    std::vector<ChoicePoint> points;
    size_t from;  // the first point a further deviation may take
  };
  std::vector<Node> level;
  auto judge = [&](const std::vector<uint32_t>& schedule, ScheduleRun r) -> bool {
    ++runs;
    // All ties at option 0 leave every sleep set empty: never pruned.
    ++result.schedules;
    ++result.placements;
    if (r.failed) {
      result.counterexample = schedule_of(r.points);
      return true;
    }
    placed.emplace(trimmed(schedule), r.points);
    return false;
  };
  {
    ScheduleRun r = run({});
    std::vector<ChoicePoint> points = r.points;
    if (judge({}, std::move(r))) return result;
    level.push_back(Node{std::move(points), 0});
  }
  const int placement_bound = std::min(bound, kPlacementDeviations);
  for (int d = 1; d <= placement_bound && !level.empty(); ++d) {
    std::vector<Node> next;
    for (const Node& n : level) {
      for (size_t j = n.from; j < n.points.size(); ++j) {
        const ChoicePoint& p = n.points[j];
        if (p.tie || p.chosen != 0) continue;
        for (uint32_t option = 1; option < p.options; ++option) {
          if (runs >= max_runs) return result;
          std::vector<uint32_t> schedule(j + 1, 0);
          for (size_t k = 0; k < j; ++k) schedule[k] = n.points[k].chosen;
          schedule[j] = option;
          ScheduleRun r = run(schedule);
          std::vector<ChoicePoint> points =
              d < placement_bound ? r.points : std::vector<ChoicePoint>{};
          if (judge(schedule, std::move(r))) return result;
          if (d < placement_bound) next.push_back(Node{std::move(points), j + 1});
        }
      }
    }
    level = std::move(next);
  }

  // Phase 2: the whole bounded space, depth first (tie orders included).
  std::vector<uint32_t> prefix;
  while (runs < max_runs) {
    ScheduleRun r;
    if (auto it = placed.find(trimmed(prefix)); it != placed.end()) {
      r.points = it->second;  // judged in phase 1
    } else {
      r = run(prefix);
      ++runs;
      if (r.pruned) {
        ++result.pruned;
      } else {
        ++result.schedules;
        if (r.failed) {
          result.counterexample = schedule_of(r.points);
          return result;
        }
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

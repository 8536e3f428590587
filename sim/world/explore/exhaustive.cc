#include "sim/world/explore/exhaustive.h"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/world/explore/explore.h"

namespace redsim::world {

namespace {

// Phase 1 (exhaustive.h, "The order of the search") does not place pairs
// of arbitrary deviations: they would cost about P * P / 2 runs (P: the
// default run's deviation options) before phase 2 starts (get-del seed 3
// at bound 2: its two-pause race at schedule 13,569 with pairs, 960
// without).
// Phase 1 places single deviations, each stall followed at once by its
// burst (the same stall at its process's next points of that kind, up to
// the bound). Measured at bound 3 over seeds 1-20, 300 runs each: get-del
// 16 / 20 seeds found, median 45 schedules (bursts after all singles: 14 /
// 20, median 171); setnx-expire median 16 (10).
bool is_stall(ChoiceKind kind) {
  return kind == ChoiceKind::kPause || kind == ChoiceKind::kTaskPause;
}

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
  return search_schedules(
      bound,
      [&run](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>&) {
        return run(prefix);
      },
      max_runs);
}

ExhaustiveResult search_schedules(
    int bound,
    const std::function<ScheduleRun(const std::vector<uint32_t>&, const std::vector<uint64_t>&)>&
        run_with,
    uint64_t max_runs) {
  // Phase 1 runs every tie at option 0: no event sleeps, no mask matters.
  auto run = [&run_with](const std::vector<uint32_t>& schedule) { return run_with(schedule, {}); };
  ExhaustiveResult result;
  uint64_t runs = 0;
  // Phase 1, placements, every tie at option 0: the default schedule, then
  // each single deviation, earliest first, a stall followed by its burst.
  // The runs' choice points are kept, by schedule: phase 2 meets each of
  // these schedules again and takes its points from here instead of
  // running it twice (a run is a pure function of its schedule).
  std::map<std::vector<uint32_t>, std::vector<ChoicePoint>> placed;
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
  std::vector<ChoicePoint> first;  // the default run's points
  {
    ScheduleRun r = run({});
    first = r.points;
    if (judge({}, std::move(r))) return result;
  }
  // Each single placement, then (when it is a stall) its burst: the same
  // stall again at the same process's next point of that kind, up to
  // `bound` stalls in all, each burst step one run (exhaustive.h, "The
  // order of the search").
  auto extend = [&](std::vector<ChoicePoint> points, size_t at, uint32_t option) {
    std::vector<uint32_t> schedule(at + 1, 0);
    for (size_t k = 0; k < at; ++k) schedule[k] = points[k].chosen;
    schedule[at] = option;
    return schedule;
  };
  auto burst = [&](std::vector<ChoicePoint> points, size_t j) -> bool {
    const ChoicePoint p = points[j];
    for (int d = 2; d <= bound; ++d) {
      size_t k = j + 1;
      while (k < points.size() && (points[k].tie || points[k].chosen != 0 ||
                                   points[k].kind != p.kind || points[k].owner != p.owner)) {
        ++k;
      }
      if (k == points.size() || runs >= max_runs) return false;
      std::vector<uint32_t> schedule = extend(points, k, p.chosen);
      if (placed.contains(trimmed(schedule))) return false;  // never twice (cannot happen)
      ScheduleRun r = run(schedule);
      points = r.points;
      if (judge(schedule, std::move(r))) return true;
      j = k;
    }
    return false;
  };
  for (size_t j = 0; j < first.size() && bound >= 1; ++j) {
    const ChoicePoint& p = first[j];
    if (p.tie || p.chosen != 0) continue;
    for (uint32_t option = 1; option < p.options; ++option) {
      if (runs >= max_runs) return result;
      std::vector<uint32_t> schedule = extend(first, j, option);
      ScheduleRun r = run(schedule);
      std::vector<ChoicePoint> points = r.points;
      if (judge(schedule, std::move(r))) return result;
      if (!is_stall(p.kind)) continue;
      if (burst(std::move(points), j)) return result;
    }
  }

  // Phase 2: the whole bounded space, depth first (tie orders included).
  std::vector<uint32_t> prefix;
  // Per prefix point: the options tried there (in earlier sibling runs, all
  // from the same prefix) whose events touched only their own task.
  std::vector<uint64_t> narrow;
  while (runs < max_runs) {
    ScheduleRun r;
    if (auto it = placed.find(trimmed(prefix)); it != placed.end()) {
      r.points = it->second;  // judged in phase 1
    } else {
      r = run_with(prefix, narrow);
      ++runs;
      if (r.pruned) {
        ++result.pruned;
      } else {
        ++result.schedules;
        if (r.failed) {
          result.counterexample = schedule_of(r.points);
          result.counterexample_narrow = narrow;
          result.counterexample_narrow.resize(result.counterexample->size(), 0);
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
      // Points before i keep what is known of them; point i learns what its
      // option just tried did; points past i start afresh.
      narrow.resize(i + 1, 0);
      if (p.tie && p.narrow && p.chosen < 64) narrow[i] |= uint64_t{1} << p.chosen;
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
      [&plan](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
        ExplorePlan p = plan;
        p.strategy.schedule = prefix;
        p.strategy.narrow = narrow;
        ExploreOutcome out = run_plan(p);
        return ScheduleRun{.failed = !out.violations.empty(),
                           .pruned = out.pruned,
                           .points = std::move(out.choices)};
      },
      max_runs);
}

}  // namespace redsim::world

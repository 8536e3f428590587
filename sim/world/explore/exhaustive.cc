#include "sim/world/explore/exhaustive.h"

#include "sim/world/explore/explore.h"

namespace redsim::world {

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

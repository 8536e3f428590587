// Test helper shared by the exhaustive explorer's tests: the outcomes a
// search reaches, to compare a reduced search with an unreduced one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/explore.h"
#include "sim/world/history.h"

namespace redsim::world {

// Every history `plan` reaches at bound 0 (with or without the sleep-set
// reduction), each as the sorted multiset of its checked events with their
// times (process starts and message records left out: the order of one
// microsecond's records and the client ids aside); `*complete`: the search
// ran its whole space within `max_runs` runs.
inline std::set<std::vector<std::string>> outcomes(ExplorePlan plan, bool reduce, bool* complete,
                                                   uint64_t max_runs = 3'000) {
  std::set<std::vector<std::string>> out;
  plan.strategy = Strategy{.bound = 0, .reduce = reduce};
  const ExhaustiveResult r = search_schedules(
      0,
      [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
        ExplorePlan p = plan;
        p.strategy.schedule = prefix;
        p.strategy.narrow = narrow;
        ExploreOutcome o = run_plan(p);
        if (!o.pruned) {
          std::vector<std::string> events;
          for (const HistoryEvent& e : o.history.events()) {
            if (e.kind == EventKind::kProcessStart || e.kind == EventKind::kProcessRestart ||
                e.kind == EventKind::kMessageSent || e.kind == EventKind::kMessageDelivered ||
                e.kind == EventKind::kMessageLost) {
              continue;
            }
            events.push_back(std::to_string(e.t_us) + " " + render_event(o.history, e, 200));
          }
          std::sort(events.begin(), events.end());
          out.insert(std::move(events));
        }
        return ScheduleRun{.failed = false, .pruned = o.pruned, .points = std::move(o.choices)};
      },
      max_runs);
  *complete = r.complete;
  return out;
}

}  // namespace redsim::world

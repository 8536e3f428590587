// The lifecycle component (lifecycle.h): construction of the strategy state,
// the run loop, history events.
#include "sim/world/lifecycle.h"

#include <stdexcept>
#include <utility>

#include "sim/world/processes.h"

namespace redsim::world::detail {

Lifecycle::Lifecycle(WorldOptions opts) : options_(std::move(opts)), root_(options_.seed) {
  if (options_.servers == 0) throw std::invalid_argument("WorldOptions::servers must be >= 1");
  history_.set_server_count(options_.servers);
  if (options_.strategy.depth > 0) {
    // Its own stream: the random strategy's draws are left as they were.
    pct_ = std::make_unique<PctPriorities>(options_.strategy.depth, options_.pct_steps,
                                           root_.fork("pct").next_u64());
    sched_.set_priorities(pct_.get());
  }
  if (options_.strategy.exhaustive()) {
    chooser_ = std::make_unique<Chooser>(options_.strategy.schedule, options_.strategy.narrow);
    const FaultPlan& f = options_.faults;
    sched_.set_chooser(chooser_.get(), options_.strategy.reduce,
                       /*messages_take_time=*/f.latency_min.count() >= 1,
                       options_.strategy.task_runs_commute, options_.strategy.fence_writes);
    // Partitions (case 14) and servers' own draws per command (case 15)
    // keep footprints under finer rules; a server crash only when its
    // restart never falls in the crash's microsecond (a server-side event
    // then starts no event of its own microsecond: "Ties that need no
    // choice"). Failovers need replicas.
    footprints_ = options_.strategy.reduce && !f.delay_ppm && options_.replicas == 0 &&
                  (!f.server_crash_ppm || f.server_down_min.count() >= 1);
    sched_.set_server_faults(/*sessions_reset=*/static_cast<bool>(f.partition_ppm),
                             /*commands_draw=*/f.server_crash_ppm || f.server_clock_jump_ppm,
                             /*commands_break_links=*/static_cast<bool>(f.server_crash_ppm));
  }
}

Scheduler::Stop Lifecycle::run() {
  const Scheduler::Stop stop = sched_.run(options_.time_limit_us);
  history_.set_end_us(now());
  return stop;
}

void Lifecycle::run_until(int64_t t_us) {
  sched_.run_until(t_us);
  history_.set_end_us(now());
}

HistoryEvent Lifecycle::event(EventKind kind, const Process* p, TaskId task) const {
  HistoryEvent e;
  e.t_us = now();
  e.kind = kind;
  e.process = p != nullptr ? p->pid : 0;
  e.task = task;
  return e;
}

HistoryEvent& Lifecycle::record_event(EventKind kind, const Process* p, TaskId task) {
  HistoryEvent& e = history_.add_new();
  e.t_us = now();
  e.kind = kind;
  e.process = p != nullptr ? p->pid : 0;
  e.task = task;
  return e;
}

std::vector<ChoicePoint> Lifecycle::choice_points() const {
  return chooser_ ? chooser_->points() : std::vector<ChoicePoint>{};
}

}  // namespace redsim::world::detail

// Bounded exhaustive exploration: every schedule of a small world, up to a
// bound, with a sleep-set partial-order reduction.
//
//   world::ExplorePlan plan = world::generate_plan(lock::LockKind::kGetDel, 7, 2);
//   plan.strategy = world::parse_strategy("exhaustive:2");
//   world::ExhaustiveResult r = world::explore_exhaustive(plan);
//   // r.counterexample: the choices of a failing schedule (replay with
//   //   plan.strategy.schedule = *r.counterexample; world::run_plan(plan));
//   // otherwise "no violation in all r.schedules schedules up to bound 2".
//
// What a schedule is. A world is deterministic given its seed except at its
// choice points, which under the exhaustive strategy a Chooser answers
// instead of the seed:
//   - ties: the events due at the same virtual microsecond (message
//     deliveries, timer firings, task wake-ups, fault events) may run in any
//     order, except that one connection's messages in one direction stay
//     FIFO; option i runs the i-th awake one (schedule order);
//   - latency: each one-way message latency is the plan's latency_min_us
//     (option 0) or latency_max_us (option 1), when they differ;
//   - faults of the plan's fixed set, at each fault point of a client (every
//     Env call): a crash (when crash_ppm > 0), a process pause and a task
//     pause of pause_max_us, cut to the stall budget (when pause_ppm /
//     task_pause_ppm > 0); option 0 is "no fault". Faults outside this set
//     (loss, partitions, clock jumps, server faults) keep their seeded draws.
// A schedule is the sequence of options taken, in the order the choice points
// are met; every point past a given prefix takes option 0. A run is a pure
// function of (plan, schedule), so a schedule replays from its printed text.
//
// The bound: a latency or fault option other than 0 is a deviation, and a
// search with bound B runs every schedule with at most B deviations (delay
// bounding in the sense of Emmi, Qadeer, Rakamaric, "Delay-bounded
// scheduling", POPL 2011: few deviations from a default find most bugs).
// Tie orders are not bounded: every distinct order of same-time events is
// run, up to the reduction below. "No violation in all N schedules up to
// bound B" thus means: for this plan (its clients, attempts, think and work
// times, lease), every interleaving of same-time events combined with every
// choice of at most B extreme latencies and injected faults keeps the checked
// properties. Timings between the extremes are not covered.
//
// The reduction: sleep sets (Godefroid, "Partial-Order Methods for the
// Verification of Concurrent Systems", LNCS 1032, 1996, ch. 5), not DPOR
// (Flanagan, Godefroid, POPL 2005). Sleep sets need only a static
// independence relation and no backtracking-set bookkeeping across runs: the
// sleep set at each tie is the awake events ordered before the chosen one,
// which a replayed prefix reconstructs exactly, so the DFS stays a plain
// enumeration of choice sequences. After an event runs, the sleeping events
// dependent on it wake; a tie whose events are all asleep ends the run as
// redundant (counted as pruned, not as a schedule, and not judged).
// Independence (Scheduler): two events are independent when they belong to
// two different client processes and neither runs on a server (a request's
// delivery, replication, server faults and the active expiry cycle are
// server-side; an event inherits this from the event that scheduled it).
// Client-side events of different processes touch disjoint state: each
// process's fiber, clock, links and random streams; what they share is the
// server, reached only through server-side events. So they commute, neither
// enables nor disables the other, and their latency and fault choices are
// their own: the sleep-set theorem (every Mazurkiewicz trace of the bounded
// space is run at least once) holds, and the deviation count of a trace does
// not depend on its linearisation, so the bound and the reduction agree.
// Two assumptions, stated: the checkers judge a history by virtual times and
// causality, not by the order two concurrent same-microsecond records were
// appended; and client processes share no memory outside the world (the
// fenced kind's storage is shared, so run_plan switches the reduction off
// for it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/world/schedule.h"

namespace redsim::world {

struct ExplorePlan;

// What one run of a schedule reports to the search.
struct ScheduleRun {
  bool failed = false;  // ignored when pruned
  bool pruned = false;
  std::vector<ChoicePoint> points;
};

struct ExhaustiveResult {
  uint64_t schedules = 0;  // runs completed and judged (the N of "all N schedules")
  uint64_t pruned = 0;     // runs the sleep sets cut short as redundant
  bool complete = false;   // the whole bounded space was run (false: stopped by max_runs)
  std::optional<std::vector<uint32_t>> counterexample;  // the first failing schedule's choices
};

// Depth-first search over choice sequences with at most `bound` deviations:
// runs `run(prefix)` from the empty prefix, then backtracks to the deepest
// choice point with an untried option within the bound, until a run fails,
// the space is exhausted, or `max_runs` runs were made.
ExhaustiveResult search_schedules(
    int bound, const std::function<ScheduleRun(const std::vector<uint32_t>&)>& run,
    uint64_t max_runs = 1'000'000);

// The search over `plan` (plan.strategy must be exhaustive; its schedule is
// ignored): every schedule of run_plan(plan) up to plan.strategy.bound.
ExhaustiveResult explore_exhaustive(const ExplorePlan& plan, uint64_t max_runs = 1'000'000);

}  // namespace redsim::world

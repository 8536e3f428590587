// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of
// Finding Bugs", ASPLOS 2010), adapted to a world with virtual time.
//
//   WorldOptions o;
//   o.strategy = parse_strategy("pct:3");   // or {.depth = 3}
//   o.pct_steps = 40;                       // k, see below
//
// The paper's scheduler runs one thread at a time: every thread gets a
// random distinct priority (d .. d+n-1), d-1 change points are drawn among
// the first k steps, the highest-priority runnable thread always runs, and
// at the i-th change point the running thread drops to priority d-i. A bug
// of depth d (one that needs d ordering constraints between events of
// different threads) is then found with probability at least 1/(n k^(d-1))
// per run: 1/n to pick the right first thread, 1/k per change point to hit
// the right step.
//
// In redsim's world nothing runs "next" by choice: events happen at virtual
// times. What is left to chance, and what PCT decides here:
//   - the order of events that fall at the same microsecond (Scheduler):
//     the event of the higher-priority process runs first (each event
//     belongs to the process it was scheduled for or from; events of no
//     process, such as the active expiry cycle, rank below every process);
//   - message latency (the network): a process's one-way latency is drawn
//     from the slice of [latency_min, latency_max] that its priority
//     rank gives it (the highest-priority process in the lowest n-th, the
//     lowest in the highest), so a low-priority process's requests arrive
//     after a high-priority one's that were sent at about the same time.
// n is the number of client processes of the world; a step is one message
// a process sends (a request, or a server's reply or push to it), and k
// (WorldOptions::pct_steps) bounds the steps in which change points fall:
// explore.cc sets it to an estimate of the messages of the plan. The change
// point at step i demotes the process whose message that is.
//
// Where this departs from the paper, so the bound is a heuristic here, not
// a theorem: processes are not serialised (a fiber runs until it blocks, and
// events at different times keep their time order whatever the
// priorities), latency is still drawn inside the plan's range (the timing
// budget of the safe kinds holds, so a correct lock is never flagged), and
// faults (pauses, crashes, losses) stay random as before. A bug of depth d
// whose d-1 orderings are all decided by same-time ties or latencies is
// found with probability about 1/(n k^(d-1)) per run; depth 1 needs only the
// right process to rank highest or lowest.
//
// Deterministic: priorities and change points are drawn from the world's
// seed (their own stream), so a seed replays exactly under the same
// strategy.
//
// Measured (tools/yardstick, bench/README.md): on redsim's broken kinds
// under the budgeted plans pct:3 fails 1.3-1.7x as many seeds as random
// (get-del 3.2 % vs 2.4 %, blind-del 0.43 % vs 0.25 %, setnx-expire 0.80 %
// vs 0.47 % of 6000 seeds); pct:2 is no better than random. These bugs are
// decided mostly by timing (a holder outliving its lease, a crash between
// two commands) that the budget bounds, not by orderings PCT controls, so
// random stays the default and PCT sits behind `--strategy`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world/prng.h"

namespace redsim::world {

// How an exploration orders what is left to chance.
struct Strategy {
  int depth = 0;  // 0: random (latencies drawn uniformly, ties in schedule order); d >= 1: PCT
  // >= 0: exhaustive (sim/world/explore/exhaustive.h): a search runs every schedule
  // with at most `bound` latency / fault deviations; a single run follows
  // `schedule` (the options taken at its choice points, then option 0).
  int bound = -1;
  std::vector<uint32_t> schedule = {};
  // Per point of `schedule`: the options known to touch only their own task
  // (Chooser; filled by the search, printed with a counterexample; empty:
  // none known, which only reduces less).
  std::vector<uint64_t> narrow = {};
  bool reduce = true;  // exhaustive: the sleep-set reduction (off: every tie order)
  // exhaustive, with `reduce`: two runs of different tasks of one process
  // commute unless one reached beyond its task (a wake-up of another task,
  // an Event signal, a task's start or end, a pause, a teardown). Sound only
  // for code whose tasks share memory solely next to such operations
  // (exhaustive.h, case 5): run_plan sets it for the ReentrantLock family
  // with one task per client; off for users' locks (the harness).
  bool task_runs_commute = false;
  // exhaustive, with `reduce`: the processes write the world's
  // FencedResources (memory they all share): two runs of different
  // processes that (may) write one are dependent (exhaustive.h, case 13).
  // harness::explore_exhaustive sets it; off, such worlds need reduce = false.
  bool fence_writes = false;
  bool exhaustive() const { return bound >= 0; }
  bool random() const { return depth == 0 && bound < 0; }
  bool operator==(const Strategy&) const = default;
};

// "random", "pct" (= pct:3), "pct:D" with D in 1..8, "exhaustive" (=
// exhaustive:2), "exhaustive:B" with B in 0..8, or "exhaustive:B@SCHEDULE"
// (one schedule, format_schedule's text: "3=1,17=2/1"). Throws
// std::invalid_argument naming the problem.
Strategy parse_strategy(std::string_view text);
// "random", "pct:D", "exhaustive:B" or "exhaustive:B@SCHEDULE" (a schedule
// with a non-zero option).
std::string strategy_name(const Strategy& strategy);

// The priorities of one world's processes under PCT. Processes are numbered
// from 1 as ProcessId; 0 is "no process".
class PctPriorities {
 public:
  // depth >= 1; steps (k) >= 1.
  PctPriorities(int depth, uint64_t steps, uint64_t seed);

  // The current priority of `pid` (higher runs first); 0 for pid 0. A
  // process's priority is drawn on first use and only ever drops.
  uint64_t priority(uint32_t pid);
  // Counts one step of `pid`; at a change point, demotes it.
  void step(uint32_t pid);
  // pid's rank among the processes seen so far (0 = highest) and their count.
  std::pair<size_t, size_t> rank(uint32_t pid);

 private:
  int depth_;
  Prng rng_;
  uint64_t steps_ = 0;
  std::vector<uint64_t> change_points_;  // sorted step numbers, 1-based
  size_t next_change_ = 0;
  std::vector<uint64_t> priorities_;  // by pid; 0 = not drawn yet
};

}  // namespace redsim::world

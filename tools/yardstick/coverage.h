// Coverage feedback for exploration (issue 11, item 3): an abstract-state
// signal read from a run's history, and a corpus of plans that reached new
// abstract states, mutated in preference to fresh draws, in the spirit of
// coverage-guided fuzzing (AFL's corpus of inputs that hit new edges; here
// the "edges" are transitions between abstract states of the lock).
//
//   world::CoverageCorpus corpus(/*seed=*/1, {.work_max_us = 50'000});
//   for (uint64_t i = 1; i <= n; ++i) {
//     world::ExplorePlan plan = corpus.next([&] { return fresh_plan(i); });
//     world::ExploreOutcome out = world::run_plan(plan);
//     if (!out.violations.empty()) break;        // found after i runs
//     corpus.add(plan, out.history);             // kept when it covered something new
//   }
//
// The abstract state, after each event of the history that bears on the
// lock: how many processes are inside the critical section (0, 1, 2+);
// whether the lock key exists, and whether its owner (the process whose
// command last set it) is inside, outside, or gone; whether some process
// is inside without owning the key. A transition is (state, the kind of
// event, state after); the coverage of a run is its set of transitions.
// Deliberately coarse: a signal that distinguishes every timing would make
// every run "new" and the corpus would be a random sample again.
//
// Measured on the yardstick (bench/README.md): it found no zoo bug and no
// broken kind in fewer plans than random sampling (equal on 5 zoo rows,
// slower elsewhere: the coarse states are all reached early, and mutating
// plans that reached them spends draws fresh plans use better). So it is
// not a `redsim check` strategy nor in the harness (issue 11 keeps coverage
// only where it wins): it lives with the yardstick, the measurement that
// judged it, and ships in no library.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "sim/world/explore/explore.h"
#include "sim/world/history.h"
#include "sim/world/prng.h"

namespace redsim::world {

// One step of the lock's abstract history: what happened, and to whom.
struct LockStep {
  enum class Kind : uint8_t {
    kEnter,           // a process entered the critical section
    kLeave,           // ... left it
    kKeySet,          // the lock key was written (value: the writer)
    kKeyGone,         // the lock key was deleted or expired
    kAcquireFailed,   // an acquisition gave up or failed
    kUnlockRejected,  // an unlock found the lock not held
    kCrash,           // a process crashed
    kPause,           // a process paused
    kResume,          // ... resumed
  };
  Kind kind;
  ProcessId process = 0;  // who (kKeySet: the writer; 0 for expiry)
};

// The lock steps of a history, in order. The only function here that reads
// history events (so a change of the history's representation touches it
// alone).
std::vector<LockStep> lock_steps(const History& history);

// The transitions of the abstract state along `steps` (hashes; see above).
std::set<uint64_t> coverage_of(const std::vector<LockStep>& steps);

// How far a mutation may move a plan's timings (the generator's ranges, so
// a mutated plan keeps the budget that keeps a correct lock clean).
struct MutationLimits {
  int64_t think_max_us = 50'000;
  int64_t work_max_us = 50'000;
};

// A copy of `plan` with one to three of: a new world seed (other latencies
// and random faults), one attempt's think or work time moved by up to a
// quarter of its range (clamped to the limits), two clients' attempt lists
// swapped.
ExplorePlan mutate_plan(const ExplorePlan& plan, Prng& rng, const MutationLimits& limits);

class CoverageCorpus {
 public:
  CoverageCorpus(uint64_t seed, MutationLimits limits) : rng_(seed), limits_(limits) {}

  // The next plan to run: a mutation of a corpus plan (three times in four
  // once the corpus holds one), else `fresh()`.
  ExplorePlan next(const std::function<ExplorePlan()>& fresh);
  // Feeds a run back: keeps `plan` when its history covered a transition no
  // earlier run did. Returns whether it did.
  bool add(const ExplorePlan& plan, const History& history);

  size_t size() const { return corpus_.size(); }
  size_t covered() const { return seen_.size(); }

 private:
  Prng rng_;
  MutationLimits limits_;
  std::vector<ExplorePlan> corpus_;
  std::set<uint64_t> seen_;
};

}  // namespace redsim::world

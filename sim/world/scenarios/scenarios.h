// Scenarios: named, scripted runs from the distributed-locking literature,
// each with the verdict it must produce. A scenario builds a world with a
// fixed schedule (1 ms one-way latency, faults at chosen times), runs it,
// and judges the history with the checkers.
//
//   const world::Scenario* s = world::find_scenario("expire-then-delete");
//   world::ScenarioResult r = s->run(/*seed=*/1);
//   r.passed();    // observed verdict == s->expected
//
//   // The fault-free ones also run against a real server (lock/hiredis):
//   cli::RealTimeRunner real({.make_env = make_hiredis_env});   // tools/cli
//   if (s->run_on) r = world::run_scenario_real(*s, real);
//
// The seed only changes client ids, tokens and jitter; the schedule is the
// scenario's own, so every seed must give the expected verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "sim/world/checkers.h"
#include "sim/world/history.h"
#include "sim/world/runner.h"

namespace redsim::world {

enum class Verdict : uint8_t {
  kSafe,             // every checker passed
  kMutualExclusion,  // two owners inside the critical section at once
  kLiveness,         // a free lock was not taken by a waiter within the bound
  kHoldCount,        // a reentrant hold count differed from the model
  kExpectation,      // a scenario-specific expectation failed (see the findings)
};

// "safe", "violation: mutual exclusion", "violation: liveness",
// "violation: hold count", "violation: expectation".
std::string_view verdict_name(Verdict verdict);

// The verdict a set of violations amounts to: the first present of mutual
// exclusion, liveness, hold count, expectation; kSafe when empty.
Verdict verdict_of(const std::vector<Violation>& violations);

struct ScenarioResult {
  Verdict expected = Verdict::kSafe;
  Verdict observed = Verdict::kSafe;
  uint64_t seed = 0;
  std::vector<Violation> violations;
  std::vector<std::string> findings;  // scenario-specific measurements, one line each
  History history;
  bool passed() const { return observed == expected; }
};

struct Scenario {
  std::string name;
  lock::LockKind kind;
  Verdict expected;
  std::string description;  // one line
  std::string source;       // where the failure (or its fix) is described
  // Runs it in the simulation.
  std::function<ScenarioResult(uint64_t seed)> run;
  // Runs its workload on any runner (SimRunner, RealTimeRunner); empty when
  // the scenario needs an injected fault, which only the simulation has.
  std::function<ScenarioResult(ScenarioRunner& runner)> run_on;
  // Empty when run_on is set; else the fault it injects ("a pause of client
  // A before its DEL"), for the message refusing a real run.
  std::string needs_fault;
  // What `scenario list` shows as its lock when `kind` does not name it (a
  // semaphore or a MultiLock is no LockKind); empty: lock_kind_name(kind).
  std::string lock_name{};
};

// s.lock_name, or lock_kind_name(s.kind) when that is empty.
std::string_view scenario_lock_name(const Scenario& s);

// Every scenario, in catalogue order.
std::span<const Scenario> all_scenarios();
// Runs a fault-free scenario on `runner` (a real-time runner whose clients
// talk to real servers, cli::RealTimeRunner), after deleting the keys the
// scenarios use. The verdict rules are the simulation's, with the runner's
// timing_slack added to each timing bound. Throws std::invalid_argument
// when the scenario needs a fault (saying which), and what the runner's Envs
// or the server throw (lock::ConnectionError).
ScenarioResult run_scenario_real(const Scenario& scenario, ScenarioRunner& runner);

// nullptr when there is no scenario of that name.
const Scenario* find_scenario(std::string_view name);

}  // namespace redsim::world

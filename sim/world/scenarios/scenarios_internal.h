// Private to the scenario catalogue (sim/world/scenarios*.cc): the helpers
// every scenario shares and the run function of each scenario, grouped by
// the file that defines it. Not part of the public API; sim/world/scenarios/scenarios.h
// is. scenarios.cc holds the catalogue (names, verdicts, descriptions, in the
// order `redsim scenario list` shows) and these helpers; each family file
// holds the scripted worlds of one topic:
//
//   scenarios_string_locks.cc  broken string locks (GET-DEL, SETNX+EXPIRE, DEL)
//   scenarios_reentrant.cc     Redisson hold counts and unlock retries
//   scenarios_pubsub.cc        waking waiters by the unlock message
//   scenarios_watchdog.cc      the watchdog renewing, dying, failing
//   scenarios_pause.cc         a GC pause past the lease, with and without fencing
//   scenarios_failover.cc      a failover before replication
//   scenarios_fair.cc          FairLock with a skewed client clock
//   scenarios_redlock.cc       Redlock over five servers
//   scenarios_redisson_issues.cc  Redisson's issues (lost messages) and
//                              ReadWriteLock (its catalogue entries too)
//   scenarios_semaphore_multi.cc  semaphores, MultiLock, spin lock (with
//                              their own catalogue entries)
//   scenarios_interop.cc       redis-py's Lock and node-redlock's bugs (issue 14)
//   scenarios_zookeeper.cc     Curator's InterProcessMutex on the ZooKeeper node
//                              (issue 17; its catalogue entries too)
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lock/lock.h"
#include "lock/reentrant_lock.h"
#include "sim/world/runner.h"
#include "sim/world/scenarios/scenarios.h"
#include "sim/world/world.h"

namespace redsim::world::scenarios_detail {

using lock::LockKind;
using std::chrono::milliseconds;

// The one lock every scenario fights over, and a counter some bump.
inline constexpr const char* kKey = "lock:orders";
inline constexpr const char* kStatsKey = "stats:done";
inline constexpr int64_t kMs = 1000;
constexpr Micros ms(int64_t v) { return Micros(v * kMs); }

// "12.345 ms" from microseconds.
std::string fmt_ms(int64_t us);

// Every scenario: 1 ms one-way latency, nothing random but ids and jitter.
WorldOptions scenario_options(uint64_t seed);

// The string kinds in every scenario: a 100 ms lease, polled every 2..5 ms.
std::unique_ptr<lock::DistributedLock> string_lock(LockKind kind, lock::Env& env);

// An acquire attempt the liveness checker can see. wait <= 0: one attempt.
bool acquire(ClientEnv& env, lock::DistributedLock& lk, Micros wait);

// enter, sleep `work`, leave: the critical section the checkers judge.
void critical_section(ClientEnv& env, Micros work);

void unlock_and_record(ClientEnv& env, lock::DistributedLock& lk);

// A violation of the "expectation" checker: a scenario-specific check failed.
Violation expectation_failed(std::string what);

// What a scenario adds to the checkers' verdict: its own violations and the
// findings printed with the result.
struct Judged {
  std::vector<Violation> extra;
  std::vector<std::string> findings;
};

// Runs mutual exclusion and liveness (and hold counts if asked) over the
// world's history, adds `j`, and sets the observed verdict.
ScenarioResult judge(const ScenarioRunner& world, Verdict expected, int64_t liveness_bound_us,
                     Judged j, bool hold_counts = false);

lock::ReentrantLockOptions reentrant_options(int64_t watchdog_ms = 30000);

// lk.lock() (watchdog lease) as an acquire attempt the liveness checker sees.
void lock_recorded(ClientEnv& env, lock::ReentrantLock& lk);

// scenarios_string_locks.cc
ScenarioResult run_expire_then_delete(LockKind kind, Verdict expected, uint64_t seed);
ScenarioResult run_setnx_expire_crash(LockKind kind, Verdict expected, uint64_t seed);
ScenarioResult run_blind_del(LockKind kind, Verdict expected, uint64_t seed);

// scenarios_reentrant.cc
ScenarioResult run_reentrant_hold_count(ScenarioRunner& world, Verdict expected);
ScenarioResult run_unlock_not_owner(ScenarioRunner& world, Verdict expected);
ScenarioResult run_unlock_retry(bool latch, Verdict expected, uint64_t seed);

// scenarios_pubsub.cc
ScenarioResult run_pubsub_wakeup(ScenarioRunner& world, Verdict expected);
ScenarioResult run_lost_wakeup(LockKind, Verdict expected, uint64_t seed);

// scenarios_watchdog.cc
ScenarioResult run_watchdog_renews(ScenarioRunner& world, Verdict expected);
ScenarioResult run_watchdog_dies(Verdict expected, uint64_t seed);
ScenarioResult run_watchdog_error(bool stops_on_error, Verdict expected, uint64_t seed);

// scenarios_pause.cc
ScenarioResult run_pause_past_lease_string(LockKind kind, Verdict expected, uint64_t seed);
ScenarioResult run_pause_past_lease_reentrant(Verdict expected, uint64_t seed);
ScenarioResult run_pause_past_lease_fenced(LockKind, Verdict expected, uint64_t seed);

// scenarios_failover.cc
ScenarioResult run_failover(bool replica_check, Verdict expected, uint64_t seed);

// scenarios_fair.cc
ScenarioResult run_fair_skewed_clock(LockKind, Verdict expected, uint64_t seed, int64_t skew_ms,
                                     milliseconds thread_wait);

// scenarios_redlock.cc
ScenarioResult run_redlock_clock_jump(Verdict expected, uint64_t seed, int64_t jump_ms);
ScenarioResult run_redlock_restart(Verdict expected, uint64_t seed, int64_t down_ms);
ScenarioResult run_redlock_paused_replies(Verdict expected, uint64_t seed);

// scenarios_redisson_issues.cc: appends its scenarios to the catalogue.
void append_redisson_issue_scenarios(std::vector<Scenario>& c);
// scenarios_semaphore_multi.cc: appends its scenarios to the catalogue.
void add_semaphore_multi_scenarios(std::vector<Scenario>& c);
// scenarios_interop.cc: appends its catalogue entries (names, verdicts,
// sources with the issue numbers) to `c`.
void add_interop_scenarios(std::vector<Scenario>& c);
// scenarios_zookeeper.cc: Curator's InterProcessMutex on the simulated
// ZooKeeper node (issue 17), with its catalogue entries.
void add_zookeeper_scenarios(std::vector<Scenario>& c);

}  // namespace redsim::world::scenarios_detail

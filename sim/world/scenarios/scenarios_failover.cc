// Scenario: a failover before the lock reached the replica, with and
// without Redisson's replica check (WAIT).
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <string>

#include "lock/errors.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// failover-loses-lock: one replica, replication lag 200 ms. A takes the lock
// at t~3 ms; the primary fails at t=80 ms before the write reached the
// replica, which is promoted empty; B asks the new primary at t=90 ms and
// gets the lock while A still holds it. With the replica check
// (sync_replicas 1, sync_timeout 50 ms), A's WAIT sees 0 replicas, A
// releases and fails its acquisition instead: one holder only.
ScenarioResult run_failover(bool replica_check, Verdict expected, uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.replicas = 1;
  options.replication_lag_min_us = 200 * kMs;
  options.replication_lag_max_us = 200 * kMs;
  SimRunner runner(options);
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options();
  if (replica_check) {
    lock_options.sync_replicas = 1;
    lock_options.sync_timeout = milliseconds(50);
  }
  std::string a_result;
  world.spawn_process("A", [&a_result, lock_options](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    env.record_acquire_start(kKey, Micros(0));
    try {
      lk.lock();
    } catch (const lock::Error& e) {
      env.record_acquire_end(kKey, false);
      a_result = std::string("acquisition failed: ") + e.what();
      env.record(a_result);
      return;
    }
    env.record_acquire_end(kKey, true);
    a_result = "acquired";
    critical_section(env, ms(500));
    env.record(lk.release() ? "unlocked" : "unlock: not held (the lock was lost)");
  });
  world.spawn_process(
      "B",
      [lock_options](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, lock_options);
        env.record_acquire_start(kKey, ms(1000));
        bool ok = false;
        try {
          ok = lk.try_lock_for(ms(1000));
        } catch (const lock::Error& e) {
          env.record(std::string("acquisition failed: ") + e.what());
        }
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(100));
        env.record(lk.release() ? "unlocked" : "unlock: not held");
      },
      ms(90));
  world.failover(0, ms(80));
  world.run();
  Judged j;
  j.findings.push_back("A: " + a_result);
  if (replica_check && a_result == "acquired") {
    j.extra.push_back(expectation_failed("A's acquisition passed the replica check"));
  }
  return judge(runner, expected, 1000 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

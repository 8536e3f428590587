// Scenarios: Redisson's watchdog renewing a held lock, dying with its
// holder, and failing one renewal.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <algorithm>
#include <string>

#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// watchdog-renews: A holds a watchdog lock (30 s lease) for 100 s; the
// watchdog renews it every 10 s; B tries all along and never gets in.
// Against a real server every duration is multiplied by long_time_scale().
ScenarioResult run_watchdog_renews(ScenarioRunner& world, Verdict expected) {
  const double scale = world.long_time_scale();
  auto scaled = [scale](int64_t v_ms) {
    return Micros(static_cast<int64_t>(static_cast<double>(v_ms * kMs) * scale));
  };
  const int64_t watchdog_ms = std::max<int64_t>(1, scaled(30000).count() / kMs);
  world.spawn("A", [&](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options(watchdog_ms));
    lock_recorded(env, lk);
    critical_section(env, scaled(100000) + world.timing_slack());
    lk.unlock();
    env.record("unlocked");
  });
  world.spawn(
      "B",
      [&](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options(watchdog_ms));
        env.record_acquire_start(kKey, scaled(200000));
        bool ok = lk.try_lock_for(scaled(200000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(10));
        lk.unlock();
      },
      scaled(1000) + world.timing_slack());
  world.run();
  Judged j;
  int renewals = 0;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.kind == EventKind::kCommand && e.process == 1 && e.task != 1) ++renewals;
  }
  const std::string every = fmt_ms(watchdog_ms * kMs / 3);
  j.findings.push_back("watchdog commands from A's background task: " + std::to_string(renewals) +
                       " (one every " + every + " while held)");
  if (renewals < 9) {
    j.extra.push_back(expectation_failed("the watchdog did not renew every " + every));
  }
  return judge(world, expected, scaled(2000).count() + world.timing_slack().count(), std::move(j));
}

// watchdog-dies-with-holder: A holds a watchdog lock and crashes at t=5 s;
// nothing renews it any more, so it frees within the 30 s watchdog timeout
// and the waiting B takes it.
ScenarioResult run_watchdog_dies(Verdict expected, uint64_t seed) {
  int64_t b_acquired_us = -1;
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    critical_section(env, ms(600000));
    lk.unlock();
  });
  world.spawn_process(
      "B",
      [&b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(60000));
        bool ok = lk.try_lock_for(ms(60000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(1000));
  world.crash_process(a, ms(5000));
  world.run();
  Judged j;
  if (b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("B never took the lock after A crashed"));
  } else {
    j.findings.push_back("B took the lock " + fmt_ms(b_acquired_us - 5000 * kMs) +
                         " after A crashed (watchdog timeout 30000 ms)");
  }
  // Free from the crash until the lease ends: at most the watchdog timeout.
  return judge(runner, expected, 31000 * kMs, std::move(j));
}

// watchdog after a transient error: A holds a watchdog lock (3 s timeout,
// renewed every 1 s) for 5 s; A is cut from the server from t=990 ms to
// t=1500 ms, so its first renewal fails. Stopping for good (the old
// Redisson behaviour) lets the lease set at t=1 ms run out at t=3001 ms,
// under its holder, and B gets in; retrying renews at t~2.5 s and A keeps it.
ScenarioResult run_watchdog_error(bool stops_on_error, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options(3000);
  lock_options.watchdog_stops_on_error = stops_on_error;
  ProcessId a = world.spawn_process("A", [lock_options](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    lock_recorded(env, lk);
    critical_section(env, ms(5000));
    env.record(lk.release() ? "unlocked" : "unlock: not held (the lease ran out)");
  });
  int64_t b_acquired_us = -1;
  world.spawn_process(
      "B",
      [lock_options, &b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, lock_options);
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(100));
        lk.unlock();
      },
      ms(100));
  world.partition(a, 0, ms(990), ms(1500));
  world.run();
  Judged j;
  int failed = 0, renewed = 0;
  for (const HistoryEvent& e : runner.history().events()) {
    if (e.kind != EventKind::kTrace || e.process != a) continue;
    if (e.text.starts_with("watchdog could not renew")) ++failed;
    if (e.text.starts_with("watchdog renewed")) ++renewed;
  }
  j.findings.push_back("A's watchdog: " + std::to_string(failed) + " failed renewal(s), " +
                       std::to_string(renewed) + " renewal(s); B took the lock at " +
                       (b_acquired_us < 0 ? std::string("never") : fmt_ms(b_acquired_us)));
  if (failed == 0) j.extra.push_back(expectation_failed("no renewal failed: the fault missed"));
  return judge(runner, expected, 4000 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

// Scenarios: Redisson's reentrant lock keeping its hold count: nested
// locks, an unlock by a non-owner, an unlock retried after a lost reply.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <string>

#include "lock/errors.h"
#include "lock/script.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// reentrant-hold-count: A locks three times; B cannot take the lock until
// A's hold count is back to 0; a fourth unlock by A is refused.
ScenarioResult run_reentrant_hold_count(ScenarioRunner& world, Verdict expected) {
  Judged j;
  struct Shared {
    bool b_refused_while_held = true;
    bool b_acquired_after = false;
    bool extra_unlock_refused = false;
  } s;
  // In the real world every step of A is stretched by the timing slack, so
  // B's three tries still land while A holds the lock (0 in the simulation).
  const Micros step = ms(20) + world.timing_slack();
  world.spawn("A", [&s, step](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    env.enter_critical(kKey);
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    for (int i = 0; i < 2; ++i) {
      lk.lock();
      env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    }
    for (int i = 0; i < 2; ++i) {
      env.sleep_for(step);
      lk.unlock();
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    }
    env.sleep_for(step);
    env.leave_critical(kKey);
    lk.unlock();
    env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    if (const lock::UnlockResult r = lk.release()) {
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    } else {
      s.extra_unlock_refused = r.error().reason == lock::UnlockError::Reason::kNotHeld;
      env.record_hold(kKey, HoldOp::kUnlockRejected, lk.hold_count());
      env.record("4th unlock: not held: " + r.error().message);
    }
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        for (int i = 0; i < 3; ++i) {
          env.sleep_for(ms(15));
          if (lk.try_lock()) {
            s.b_refused_while_held = false;
            env.record("try_lock succeeded while A held the lock");
            lk.unlock();
          }
        }
        env.record_acquire_start(kKey, ms(1000));
        bool ok = lk.try_lock_for(ms(1000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s.b_acquired_after = true;
        env.enter_critical(kKey);
        env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
        env.leave_critical(kKey);
        lk.unlock();
        env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
      },
      ms(2) + world.timing_slack());
  world.run();
  if (!s.b_refused_while_held)
    j.extra.push_back(expectation_failed("B took the lock while A held it"));
  if (!s.b_acquired_after) j.extra.push_back(expectation_failed("B never took the freed lock"));
  if (!s.extra_unlock_refused) {
    j.extra.push_back(expectation_failed("A's unlock beyond its holds was not refused"));
  }
  j.findings.push_back("B refused 3 times while A's hold count was > 0; A's 4th unlock: " +
                       std::string(s.extra_unlock_refused ? "not held" : "accepted"));
  return judge(world, expected, 200 * kMs + world.timing_slack().count(), std::move(j),
               /*hold_counts=*/true);
}

// unlock-not-owner: B unlocks a lock A holds: unlock() throws nothing, B's
// last_unlock() says kNotHeld, and A's lock (its hash field and hold count)
// is intact.
ScenarioResult run_unlock_not_owner(ScenarioRunner& world, Verdict expected) {
  struct Shared {
    std::string b_error;
    int64_t a_count_after = -1;
    bool a_held_after = false;
  } s;
  world.spawn("A", [&s](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    critical_section(env, ms(50));
    s.a_held_after = lk.is_held_by_current_thread();
    s.a_count_after = lk.hold_count();
    lk.unlock();
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        lk.unlock();  // BasicLockable: throws nothing; the outcome is kept
        const std::optional<lock::UnlockResult> last = lk.last_unlock();
        if (last && !*last && last->error().reason == lock::UnlockError::Reason::kNotHeld) {
          s.b_error = last->error().message;
          env.record("unlock: not held: " + s.b_error);
        } else {
          env.record("unlock by a non-owner succeeded");
        }
      },
      ms(10));
  world.run();
  Judged j;
  if (s.b_error.empty())
    j.extra.push_back(expectation_failed("B's unlock was not reported as not held"));
  if (!s.a_held_after || s.a_count_after != 1) {
    j.extra.push_back(expectation_failed("A's lock was not intact after B's unlock"));
  }
  j.findings.push_back("B: not held \"" + s.b_error + "\"; A still holds it, hold count " +
                       std::to_string(s.a_count_after));
  return judge(world, expected, 200 * kMs + world.timing_slack().count(), std::move(j));
}

// unlock retried after a lost reply: A holds the lock twice (hold count 2)
// and unlocks once at t=100 ms; the reply is delayed past A's 50 ms command
// timeout, so the unlock throws TimeoutError inside the lock and is sent
// again (unlock_retries 1). Without the latch the retry releases a second
// hold: A believes it holds 1, Redis says 0 (and the lock is free). With
// Redisson's unlock latch the retry returns the first attempt's result.
ScenarioResult run_unlock_retry(bool latch, Verdict expected, uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.command_timeout = Micros{50 * kMs};
  SimRunner runner(options);
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options();
  lock_options.unlock_retries = 1;
  lock_options.unlock_latch = latch;
  int64_t count_after_first = -1;
  ProcessId a = world.spawn_process("A", [lock_options, &count_after_first](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    lock_recorded(env, lk);
    env.enter_critical(kKey);
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    lk.lock();
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    env.sleep_for(ms(100) - env.now().time_since_epoch());
    lk.unlock();  // its reply is delayed: TimeoutError, sent again
    count_after_first = lk.hold_count();
    env.record_hold(kKey, HoldOp::kUnlock, count_after_first);
    env.sleep_for(ms(20));
    env.leave_critical(kKey);
    if (lk.release()) {
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    } else {
      env.record("last unlock: not held (the retry had released it)");
      env.record_hold(kKey, HoldOp::kUnlockRejected, lk.hold_count());
    }
  });
  // The unlock scripts are in the server's cache already (as after a first
  // use), so A's EVALSHA runs the unlock at once instead of answering NOSCRIPT.
  for (const char* name : {"reentrant_unlock", "reentrant_unlock_latch"}) {
    world.server().execute(*world.server().connect(),
                           {"SCRIPT", "LOAD", lock::Script::get(name).text()});
  }
  // The unlock runs at t=101 ms; its reply (sent then) arrives 100 ms late.
  world.delay_messages(a, 0, Micros(100500), ms(102), ms(100));
  world.run();
  Judged j;
  j.findings.push_back("hold count after one unlock of two holds: " +
                       std::to_string(count_after_first) + " (expected 1)");
  return judge(runner, expected, 200 * kMs, std::move(j), /*hold_counts=*/true);
}

}  // namespace redsim::world::scenarios_detail

// Scenarios: a waiter woken by the unlock message (Redisson's LockPubSub),
// and one whose message is lost.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <memory>
#include <string>

#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// pubsub-wakeup: B waits on a lock A holds with a 10 s lease; A unlocks at
// t~200 ms; the unlock message wakes B, which holds the lock within one
// round trip, not after the lease.
ScenarioResult run_pubsub_wakeup(ScenarioRunner& world, Verdict expected) {
  struct Shared {
    int64_t unlocked_us = -1;
    int64_t b_acquired_us = -1;
  } s;
  world.spawn("A", [&s](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    env.record_acquire_start(kKey, Micros(0));
    bool ok = lk.try_lock_for(Micros(0), milliseconds(10000));
    env.record_acquire_end(kKey, ok);
    if (!ok) return;
    critical_section(env, ms(200));
    lk.unlock();
    s.unlocked_us = env.now().time_since_epoch().count();
    env.record("unlocked");
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(30000));
        bool ok = lk.try_lock_for(ms(30000), milliseconds(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s.b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(20) + world.timing_slack());  // after A holds it, also in real time
  world.run();
  Judged j;
  if (s.unlocked_us < 0 || s.b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("A never unlocked or B never acquired"));
  } else {
    // From A's unlock reply: the push reaches B 1 ms after the script ran,
    // B's acquire takes one more round trip (2 ms).
    int64_t handoff = s.b_acquired_us - s.unlocked_us;
    j.findings.push_back("hand-off: B held the lock " + fmt_ms(handoff) +
                         " after A's unlock returned (lease was 10000 ms)");
    if (handoff > 5 * kMs + world.timing_slack().count()) {
      j.extra.push_back(expectation_failed("B was not woken by the unlock message: hand-off took " +
                                           fmt_ms(handoff)));
    }
  }
  return judge(world, expected, 10 * kMs + world.timing_slack().count(), std::move(j));
}

// lost-wakeup: A holds the lock with a 2 s lease and unlocks at t~302 ms. B,
// waiting since t=50 ms, saw PTTL ~1950 ms and subscribed, but its
// connections are cut from t=250 to t=400 ms: the unlock message is lost and
// B subscribes again only after it was published. B must not wait forever:
// it wakes when the PTTL it saw runs out and takes the lock then.
ScenarioResult run_lost_wakeup(LockKind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  struct Shared {
    int64_t unlocked_us = -1, b_acquired_us = -1;
  };
  auto s = std::make_shared<Shared>();
  world.spawn_process("A", [s](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    env.record_acquire_start(kKey, Micros(0));
    bool ok = lk.try_lock_for(Micros(0), milliseconds(2000));
    env.record_acquire_end(kKey, ok);
    if (!ok) return;
    critical_section(env, ms(300));
    lk.unlock();
    s->unlocked_us = env.now().time_since_epoch().count();
    env.record("unlocked");
  });
  ProcessId b = world.spawn_process(
      "B",
      [s](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000), milliseconds(2000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s->b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(50));
  world.partition(b, 0, ms(250), ms(400));
  world.run();
  Judged j;
  if (s->b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("B never took the lock: a lost wake-up"));
  } else {
    j.findings.push_back("A unlocked at " + fmt_ms(s->unlocked_us) +
                         "; B, whose wake-up was lost, " + "took the lock at " +
                         fmt_ms(s->b_acquired_us) + " (A's lease would have ended at 2001 ms)");
    if (s->b_acquired_us > 2010 * kMs) {
      j.extra.push_back(expectation_failed("B waited past the PTTL it saw"));
    }
    if (s->b_acquired_us < 1900 * kMs) {
      j.extra.push_back(expectation_failed("B was woken early: the unlock message was not lost"));
    }
  }
  // B may wait out the PTTL it saw (A's 2 s lease) but no longer.
  return judge(runner, expected, 2000 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

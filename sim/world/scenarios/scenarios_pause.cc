// Scenarios: a GC pause past the lease, from the locking debate
// (Kleppmann 2016), with a string lock, with Redisson's watchdog, and with
// fencing tokens. Each runs only in the simulation: it injects a fault at
// a chosen time.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <memory>
#include <optional>
#include <string>

#include "lock/fenced_lock.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// pause-past-lease: A takes the lock (100 ms lease) at t=0 and is paused at
// t=10 ms for 150 ms (a GC pause) inside its critical section; its lease
// runs out at t=101 ms, B takes the lock, and A resumes at t=160 ms still
// believing it holds the lock: it writes beside B.
ScenarioResult run_pause_past_lease_string(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(50));  // the write: done at t=160 ms, after the pause
    unlock_and_record(env, *lk);
  });
  world.spawn_process(
      "B",
      [kind](ProcessEnv& env) {
        auto lk = string_lock(kind, env);
        if (!acquire(env, *lk, ms(1000))) return;
        critical_section(env, ms(90));
        unlock_and_record(env, *lk);
      },
      ms(20));
  world.pause_process(a, ms(10), ms(150));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

// The same with ReentrantLock and its watchdog (lock_watchdog_timeout 3 s,
// renewed every 1 s): A is paused from t=500 ms for 4 s, its watchdog with
// it, so the lease set at t=1 ms runs out at t=3001 ms and B gets in.
ScenarioResult run_pause_past_lease_reentrant(Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options(3000));
    lock_recorded(env, lk);
    critical_section(env, ms(5000));
    env.record(lk.release() ? "unlocked" : "unlock: not held (the lease ran out)");
  });
  world.spawn_process(
      "B",
      [](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options(3000));
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(2000));
        lk.unlock();
      },
      ms(100));
  world.pause_process(a, ms(500), ms(4000));
  world.run();
  return judge(runner, expected, 4000 * kMs, {});
}

// pause-past-lease-fenced: the same pause with FencedLock (100 ms lease) and
// a FencedResource. A's token is 1, B's is 2; B writes first, A's write
// after the pause carries token 1 and is rejected. The critical sections do
// overlap in time (a lease cannot prevent that); what the fencing token
// guarantees is that the storage only sees increasing tokens, so the
// verdict comes from check_fencing and from the rejection itself.
ScenarioResult run_pause_past_lease_fenced(LockKind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto storage = std::make_shared<FencedResource>("storage");
  struct Shared {
    int64_t a_token = 0, b_token = 0;
    bool a_rejected = false, b_accepted = false;
  };
  auto s = std::make_shared<Shared>();
  auto client = [storage, s](bool is_a) {
    return [storage, s, is_a](ProcessEnv& env) {
      lock::FencedLock lk(env, kKey, reentrant_options());
      env.record_acquire_start(kKey, is_a ? Micros(0) : ms(1000));
      std::optional<int64_t> token =
          lk.try_lock_and_get_token(is_a ? Micros(0) : ms(1000), milliseconds(100));
      env.record_acquire_end(kKey, token.has_value());
      if (!token) return;
      (is_a ? s->a_token : s->b_token) = *token;
      env.sleep_for(is_a ? ms(50) : ms(10));  // A's sleep is where the pause hits
      const bool ok = storage->write(env, *token);
      if (is_a) s->a_rejected = !ok;
      if (!is_a) s->b_accepted = ok;
      env.record(std::string("write with token ") + std::to_string(*token) +
                 (ok ? ": accepted" : ": rejected (stale token)"));
      env.sleep_for(ms(is_a ? 0 : 80));
      env.record(lk.release() ? "unlocked" : "unlock: not held (the lease ran out)");
    };
  };
  ProcessId a = world.spawn_process("A", client(true));
  world.spawn_process("B", client(false), ms(20));
  world.pause_process(a, ms(10), ms(150));
  world.run();
  Judged j;
  j.extra = check_fencing(runner.history());
  if (!s->a_rejected) j.extra.push_back(expectation_failed("A's stale write was not rejected"));
  if (!s->b_accepted) j.extra.push_back(expectation_failed("B's write was not accepted"));
  j.findings.push_back("tokens: A " + std::to_string(s->a_token) + ", B " +
                       std::to_string(s->b_token) +
                       "; A's write after its pause: " + (s->a_rejected ? "rejected" : "accepted") +
                       "; storage's highest token: " + std::to_string(storage->max_token()));
  return judge(runner, expected, 200 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

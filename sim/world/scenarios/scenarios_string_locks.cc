// Scenarios: string locks broken in ways the seed documents describe, each
// next to SimpleLock under the same schedule (which must stay safe).
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <string>

#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

namespace {

// B starts at t=10 ms and waits for the lock, then works 90 ms (inside its
// own 100 ms lease); C starts at t=120 ms and waits too. If A's late unlock
// deletes B's lock, C enters beside B.
void spawn_victim_and_intruder(World& world, LockKind kind) {
  auto waiter = [kind](Micros work) {
    return [kind, work](ProcessEnv& env) {
      auto lk = string_lock(kind, env);
      if (!acquire(env, *lk, ms(1000))) return;
      critical_section(env, work);
      unlock_and_record(env, *lk);
    };
  };
  world.spawn_process("B", waiter(ms(90)), ms(10));
  world.spawn_process("C", waiter(ms(20)), ms(120));
}

}  // namespace

// expire-then-delete: A's unlock is GET, compare, DEL. A is paused (a GC
// pause) while its GET's reply is on the wire; its key expires, B takes the
// lock, A resumes and its DEL removes B's lock; C then enters beside B.
// With SimpleLock the same schedule is harmless: the compare-and-delete is
// one script, so it runs entirely before the expiry (or entirely after).
ScenarioResult run_expire_then_delete(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(95));  // leaves at t=97 ms, inside the 100 ms lease
    unlock_and_record(env, *lk);    // request executes at t=98 ms
  });
  spawn_victim_and_intruder(world, kind);
  // The reply to A's first unlock command arrives at t=99 ms: pause A just before.
  world.pause_process(a, Micros(98500), ms(50));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

// setnx-expire-crash: SETNX, then EXPIRE as a second command; A crashes in
// between, so the lock never expires and B waits in vain. SimpleLock's
// SET NX PX is one command: the lock expires after its lease and B gets it.
ScenarioResult run_setnx_expire_crash(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(10));
    unlock_and_record(env, *lk);
  });
  world.spawn_process(
      "B",
      [kind](ProcessEnv& env) {
        auto lk = string_lock(kind, env);
        if (!acquire(env, *lk, ms(5000))) return;
        critical_section(env, ms(10));
        unlock_and_record(env, *lk);
      },
      ms(5));
  // The acquire's first command runs at t=1 ms; its reply arrives at t=2 ms.
  world.crash_process(a, Micros(1500));
  world.run();
  Judged j;
  auto pttl = world.server().execute(*world.server().connect(), {"PTTL", kKey});
  j.findings.push_back("PTTL " + std::string(kKey) +
                       " at the end: " + std::to_string(pttl.integer()) +
                       (pttl.integer() == -1 ? " (no expiry: nobody can ever take it)" : ""));
  return judge(runner, expected, 200 * kMs, std::move(j));
}

// blind-del: A's unlock is a plain DEL. A leaves its critical section, is
// paused (GC) before the DEL, its key expires and B takes the lock; A's late
// DEL removes B's lock and C enters beside B.
ScenarioResult run_blind_del(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(80));
    env.connection().call({"INCR", kStatsKey});  // bookkeeping after the work
    unlock_and_record(env, *lk);
  });
  spawn_victim_and_intruder(world, kind);
  // The INCR's reply arrives at t=84 ms: A is paused from t=83.5 ms for 60 ms.
  world.pause_process(a, Micros(83500), ms(60));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

}  // namespace redsim::world::scenarios_detail

// Scenarios: Redlock over five servers (antirez's algorithm; Kleppmann's and
// antirez's 2016 exchange). Lease 1000 ms, so the drift allowance is
// 0.01 x 1000 + 2 = 12 ms; each server has 1 ms one-way latency and a 50 ms
// per-server timeout. A holder works only while validity_left() > 0 and then
// lets the lock expire (no unlock), so nothing but expiry frees its servers.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <algorithm>
#include <functional>
#include <string>

#include "lock/redlock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

namespace {

constexpr size_t kRedlockServers = 5;

lock::RedlockOptions redlock_options() {
  lock::RedlockOptions o;
  o.lease = milliseconds(1000);
  return o;
}

struct RedlockRun {
  int64_t a_entered_us = -1, a_left_us = -1, b_entered_us = -1;
  bool a_acquired = false;
};

// A: one attempt at t=0; inside while its validity lasts (at most `work`).
void redlock_holder(ProcessEnv& env, RedlockRun& run, Micros work) {
  lock::Redlock lk(env, kKey, redlock_options());
  env.record_acquire_start(kKey, Micros(0));
  run.a_acquired = lk.try_lock();
  env.record_acquire_end(kKey, run.a_acquired);
  env.record(run.a_acquired ? "acquired a quorum within the validity"
                            : "acquisition rejected (no quorum, or no validity left)");
  if (!run.a_acquired) return;
  env.enter_critical(kKey);
  run.a_entered_us = env.now().time_since_epoch().count();
  env.sleep_for(std::min(work, lk.validity_left()));
  run.a_left_us = env.now().time_since_epoch().count();
  env.leave_critical(kKey);
  env.record("validity over: left the section, the lock expires by itself");
}

// B: tries for 3 s from its start, then works 100 ms and unlocks.
void redlock_second(ProcessEnv& env, RedlockRun& run) {
  lock::Redlock lk(env, kKey, redlock_options());
  env.record_acquire_start(kKey, ms(3000));
  const bool ok = lk.try_lock_for(ms(3000));
  env.record_acquire_end(kKey, ok);
  if (!ok) return;
  env.enter_critical(kKey);
  run.b_entered_us = env.now().time_since_epoch().count();
  env.sleep_for(std::min(ms(100), lk.validity_left()));
  env.leave_critical(kKey);
  env.record(lk.release() ? "unlocked" : "unlock: not held");
}

WorldOptions redlock_world(uint64_t seed) {
  WorldOptions o = scenario_options(seed);
  o.servers = kRedlockServers;
  return o;
}

// Kleppmann's split: A reaches servers 0, 1, 2 only (3 and 4 are cut off:
// a quorum of 3), B reaches 2, 3, 4 only; at t=100 ms `fault` strikes
// server 2 (a clock jump, a crash and restart); B starts at t=150 ms.
ScenarioResult run_redlock_split(Verdict expected, uint64_t seed,
                                 const std::function<void(World&)>& fault,
                                 const std::string& what) {
  SimRunner runner(redlock_world(seed));
  World& world = runner.world();
  RedlockRun run;
  ProcessId a = world.spawn_process(
      "A", [&run](ProcessEnv& env) { redlock_holder(env, run, Micros::max()); });
  ProcessId b = world.spawn_process(
      "B", [&run](ProcessEnv& env) { redlock_second(env, run); }, ms(150));
  world.partition(a, 3, Micros(0), ms(5000));
  world.partition(a, 4, Micros(0), ms(5000));
  world.partition(b, 0, Micros(0), ms(5000));
  world.partition(b, 1, Micros(0), ms(5000));
  fault(world);
  world.run();
  Judged j;
  if (!run.a_acquired) j.extra.push_back(expectation_failed("A did not get its quorum"));
  j.findings.push_back(what + "; A inside " + fmt_ms(run.a_entered_us) + " .. " +
                       fmt_ms(run.a_left_us) + " (its validity), B entered at " +
                       (run.b_entered_us < 0 ? std::string("never") : fmt_ms(run.b_entered_us)));
  return judge(runner, expected, 5000 * kMs, std::move(j));
}

}  // namespace

ScenarioResult run_redlock_clock_jump(Verdict expected, uint64_t seed, int64_t jump_ms) {
  return run_redlock_split(
      expected, seed, [jump_ms](World& w) { w.jump_server_clock(2, ms(100), ms(jump_ms)); },
      "server 2's clock jumped " + std::to_string(jump_ms) +
          " ms forward at t=100 ms (drift allowance 12 ms)");
}

ScenarioResult run_redlock_restart(Verdict expected, uint64_t seed, int64_t down_ms) {
  return run_redlock_split(
      expected, seed,
      [down_ms](World& w) {
        w.crash_server(2, ms(100));
        w.restart_server(2, ms(100 + down_ms));
      },
      "server 2 crashed at t=100 ms (no persistence) and restarted empty " +
          std::to_string(down_ms) + " ms later");
}

// antirez's reply: A sends its first SET at t=0 and is paused from t=1.5 ms
// for 1100 ms, past the 1000 ms lease, while the reply is on its way; after
// the pause every server answers OK, but A measures the elapsed time on its
// own clock, finds no validity left, releases and fails. B (t=1300 ms) then
// takes the lock normally.
ScenarioResult run_redlock_paused_replies(Verdict expected, uint64_t seed) {
  SimRunner runner(redlock_world(seed));
  World& world = runner.world();
  RedlockRun run;
  ProcessId a = world.spawn_process(
      "A", [&run](ProcessEnv& env) { redlock_holder(env, run, Micros::max()); });
  world.spawn_process(
      "B", [&run](ProcessEnv& env) { redlock_second(env, run); }, ms(1300));
  world.pause_process(a, Micros(1500), ms(1100));
  world.run();
  Judged j;
  int oks = 0;
  for (const HistoryEvent& e : runner.history().events()) {
    if (e.kind == EventKind::kCommand && e.process == a && !e.argv.empty() && e.argv[0] == "SET" &&
        e.reply.is_status() && e.reply.str() == "OK") {
      ++oks;
    }
  }
  j.findings.push_back("A's SETs answered OK: " + std::to_string(oks) + " of 5 (quorum 3); A " +
                       (run.a_acquired ? "kept the lock" : "rejected it: elapsed > lease") +
                       "; B entered at " +
                       (run.b_entered_us < 0 ? std::string("never") : fmt_ms(run.b_entered_us)));
  if (oks < 3) j.extra.push_back(expectation_failed("A did not get a quorum of OK replies"));
  if (run.a_acquired) j.extra.push_back(expectation_failed("A accepted a lock past its lease"));
  if (run.b_entered_us < 0) j.extra.push_back(expectation_failed("B never took the lock"));
  return judge(runner, expected, 5000 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

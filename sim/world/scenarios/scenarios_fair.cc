// Scenario: Redisson's FairLock with one client's clock running ahead.
// Their catalogue entries (names, verdicts, sources) are in scenarios.cc.
#include <memory>
#include <string>
#include <vector>

#include "lock/fair_lock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

// Redisson's fair lock keeps each waiter's place until a time computed on
// the caller's clock (the holder's lease end plus threadWaitTime: 5 s before
// Redisson 3.13.3, 300 s since, redisson#2883). B queues at t=10 ms, C at
// t=20 ms; C's clock runs `skew_ms` ahead. A skew beyond B's reservation
// makes C see B as expired, drop it and go first: the FIFO guarantee holds
// only while clocks agree within the reservation.
ScenarioResult run_fair_skewed_clock(LockKind, Verdict expected, uint64_t seed, int64_t skew_ms,
                                     milliseconds thread_wait) {
  const lock::FairLockOptions fair{.thread_wait = thread_wait};
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto order = std::make_shared<std::vector<std::string>>();
  world.spawn_process("A", [fair](ProcessEnv& env) {
    lock::FairLock lk(env, kKey, fair);
    env.record_acquire_start(kKey, Micros::max());
    lk.lock(milliseconds(1000));
    env.record_acquire_end(kKey, true);
    critical_section(env, ms(100));
    lk.unlock();
  });
  auto waiter = [order, fair](std::string name) {
    return [order, fair, name](ProcessEnv& env) {
      lock::FairLock lk(env, kKey, fair);
      env.record_acquire_start(kKey, Micros::max());
      lk.lock(milliseconds(1000));
      env.record_acquire_end(kKey, true);
      order->push_back(name);
      env.record(name + " acquired");
      critical_section(env, ms(10));
      lk.unlock();
    };
  };
  world.spawn_process("B", waiter("B"), ms(10));
  const ProcessId c = world.spawn_process("C", waiter("C"), ms(20));
  world.jump_process_clock(c, Micros(0), ms(skew_ms));
  world.run();
  Judged j;
  std::string got;
  for (const std::string& n : *order) got += (got.empty() ? "" : ", ") + n;
  j.findings.push_back("threadWaitTime " + std::to_string(thread_wait.count()) + " ms, C's clock " +
                       std::to_string(skew_ms) + " ms ahead; order of the waiters: " + got +
                       " (queued B, then C)");
  if (*order != std::vector<std::string>{"B", "C"}) {
    j.extra.push_back(expectation_failed("FIFO broken: the waiters acquired in the order " + got +
                                         ", though B queued first"));
  }
  // Nobody waits behind a reservation here: each unlock tells the next
  // waiter (a live waiter dropped by C re-queues behind it).
  return judge(runner, expected, 6000 * kMs, std::move(j));
}

}  // namespace redsim::world::scenarios_detail

// Scenarios: the semaphore, permit-expirable semaphore, MultiLock and spin
// lock families, each a violation and its safe twin, and the Redisson issues
// of those kinds (#5761/#5762, #2172, #4456, #5484). Unlike the other family
// files, this one also holds its catalogue entries (add_semaphore_multi_scenarios),
// which scenarios.cc appends after its own.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/multi_lock.h"
#include "lock/permit_expirable_semaphore.h"
#include "lock/script.h"
#include "lock/semaphore.h"
#include "lock/spin_lock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

namespace {

// The semaphores: one permit, so the critical section is a mutex's.
constexpr const char* kSemKey = "semaphore:pool";
// MultiLock's second lock (the first is kKey).
constexpr const char* kKey2 = "lock:stock";

void load_scripts(World& world, std::initializer_list<const char*> names) {
  // In the server's cache already (as after a first use), so an EVALSHA runs
  // at once instead of answering NOSCRIPT.
  for (const char* name : names) {
    world.server().execute(*world.server().connect(),
                           {"SCRIPT", "LOAD", lock::Script::get(name).text()});
  }
}

void set_permits(World& world, int64_t n) {
  world.server().execute(*world.server().connect(), {"SET", kSemKey, std::to_string(n)});
}

bool sem_acquire(ProcessEnv& env, lock::Semaphore& sem, std::optional<Micros> wait) {
  env.record_acquire_start(kKey, wait.value_or(Micros::max()));
  bool ok = true;
  if (wait) {
    ok = sem.try_acquire_for(1, *wait);
  } else {
    sem.acquire(1);
  }
  env.record_acquire_end(kKey, ok);
  env.record(ok ? "took a permit" : "gave up");
  return ok;
}

// ---- Semaphore ----

// A takes the one permit and works 200 ms. B's try_acquire_for(50 ms) fails,
// and B releases a permit anyway, as a `try { tryAcquire } finally { release }`
// does: RSemaphore.release checks nothing, so the count becomes 1 while A
// still holds its permit, and C, arriving at t=100 ms, enters beside A.
// With `release_only_taken`, B releases only what it took: C waits for A.
ScenarioResult run_semaphore_release_unacquired(bool release_only_taken, Verdict expected,
                                                uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  set_permits(world, 1);
  world.spawn_process("A", [](ProcessEnv& env) {
    lock::Semaphore sem(env, kSemKey);
    if (!sem_acquire(env, sem, ms(1000))) return;
    critical_section(env, ms(200));
    sem.release(1);
  });
  world.spawn_process(
      "B",
      [release_only_taken](ProcessEnv& env) {
        lock::Semaphore sem(env, kSemKey);
        const bool took = sem_acquire(env, sem, ms(50));
        if (took) critical_section(env, ms(10));
        if (took || !release_only_taken) {
          sem.release(1);
          env.record(took ? "released its permit" : "released a permit it never took");
        }
      },
      ms(10));
  world.spawn_process(
      "C",
      [](ProcessEnv& env) {
        lock::Semaphore sem(env, kSemKey);
        if (!sem_acquire(env, sem, ms(2000))) return;
        critical_section(env, ms(50));
        sem.release(1);
      },
      ms(100));
  world.run();
  return judge(runner, expected, 500 * kMs, {});
}

// A holds the one permit until t~300 ms; B waits in acquire() from t=50 ms.
// B's connections are cut from t=250 to t=400 ms, so A's release message
// never reaches it. Waiting for the message only (RedissonSemaphore.acquire:
// latch.acquire() without a timeout), B sleeps on though a permit is free;
// with a re-check every 500 ms it finds the permit at its next attempt.
ScenarioResult run_semaphore_lost_release(std::optional<Micros> recheck, Verdict expected,
                                          uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.time_limit_us = 20000 * kMs;
  SimRunner runner(options);
  World& world = runner.world();
  set_permits(world, 1);
  world.spawn_process("A", [](ProcessEnv& env) {
    lock::Semaphore sem(env, kSemKey);
    if (!sem_acquire(env, sem, ms(1000))) return;
    critical_section(env, ms(300));
    sem.release(1);
    env.record("released");
  });
  const ProcessId b = world.spawn_process(
      "B",
      [recheck](ProcessEnv& env) {
        lock::Semaphore sem(env, kSemKey, {.recheck_interval = recheck});
        sem_acquire(env, sem, std::nullopt);
        critical_section(env, ms(10));
        sem.release(1);
      },
      ms(50));
  world.partition(b, 0, ms(250), ms(400));
  world.run();
  return judge(runner, expected, 1000 * kMs, {});
}

// ---- PermitExpirableSemaphore ----

// A takes the one permit with a 1000 ms lease at t~2 ms and works 300 ms.
// C, from t=50 ms, waits for a permit; its clock runs `skew_ms` ahead.
// Expiry is judged on the caller's clock (Redisson passes
// System.currentTimeMillis()): 5 s ahead, C finds A's permit expired,
// reclaims it and enters beside A; 200 ms ahead, A's permit still has
// ~750 ms to run, and C waits for A's release.
ScenarioResult run_pe_semaphore_skewed_clock(int64_t skew_ms, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  set_permits(world, 1);
  auto worker = [](Micros start_wait, Micros work) {
    return [start_wait, work](ProcessEnv& env) {
      lock::PermitExpirableSemaphore sem(env, kSemKey);
      env.record_acquire_start(kKey, start_wait);
      const std::optional<std::string> id = sem.try_acquire_for(start_wait, milliseconds(1000));
      env.record_acquire_end(kKey, id.has_value());
      if (!id) return;
      critical_section(env, work);
      env.record(sem.try_release(*id) ? "released its permit"
                                      : "release refused: its permit had been reclaimed");
    };
  };
  world.spawn_process("A", worker(ms(1000), ms(300)));
  const ProcessId c = world.spawn_process("C", worker(ms(3000), ms(50)), ms(50));
  world.jump_process_clock(c, Micros(0), ms(skew_ms));
  world.run();
  return judge(runner, expected, 500 * kMs, {});
}

// ---- MultiLock ----

struct MultiParty {
  lock::ReentrantLock first, second;
  lock::MultiLock multi;
  MultiParty(ProcessEnv& env, lock::MultiLockOptions options)
      : first(env, kKey, lock::ReentrantLockOptions{.default_lease = milliseconds(10000)}),
        second(env, kKey2, lock::ReentrantLockOptions{.default_lease = milliseconds(10000)}),
        multi(env, {&first, &second}, options) {}
};

void multi_unlock(ProcessEnv& env, lock::MultiLock& multi) {
  const lock::UnlockResult r = multi.release();
  env.record(r ? "unlocked both"
               : "unlock failed at the first lock not held (the others were left): " +
                     r.error().message);
}

// A and B each try_lock(lease 10 s) a MultiLock over two locks, without a
// wait (Redisson's waitTime -1), B 50 ms after A, while A works 200 ms.
// Before redisson#2172's fix each lock got a lease of 2 x waitTime = -2 ms,
// and PEXPIRE -2 deletes it: A's locks are gone at once and B takes them too.
ScenarioResult run_multilock_no_wait(bool before_fix, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto party = [before_fix](Micros work) {
    return [before_fix, work](ProcessEnv& env) {
      MultiParty p(env, {.lease_before_2172 = before_fix});
      env.record_acquire_start(kKey, Micros(0));
      const bool ok = p.multi.try_lock(milliseconds(10000));
      env.record_acquire_end(kKey, ok);
      env.record(ok ? "took both" : "gave up (no wait)");
      if (!ok) return;
      critical_section(env, work);
      multi_unlock(env, p.multi);
    };
  };
  world.spawn_process("A", party(ms(200)));
  world.spawn_process("B", party(ms(50)), ms(50));
  world.run();
  return judge(runner, expected, 500 * kMs, {});
}

// A takes a MultiLock with lock(lease 10 s) and works 200 ms; B calls lock()
// at t=50 ms. Before redisson#5484's fix lock(leaseTime, unit) passed the
// count on as milliseconds: A's locks lived 10 ms, B took them beside A, and
// A's unlock failed at the first lock ("not locked by current thread", the
// report's exception). Fixed: B waits for A's unlock.
ScenarioResult run_multilock_lease_unit(bool before_fix, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto party = [before_fix](Micros work) {
    return [before_fix, work](ProcessEnv& env) {
      MultiParty p(env, {.lease_unit_before_5484 = before_fix});
      env.record_acquire_start(kKey, Micros::max());
      p.multi.lock(milliseconds(10000));
      env.record_acquire_end(kKey, true);
      critical_section(env, work);
      multi_unlock(env, p.multi);
    };
  };
  world.spawn_process("A", party(ms(200)));
  world.spawn_process("B", party(ms(50)), ms(50));
  world.run();
  return judge(runner, expected, 500 * kMs, {});
}

// A's MultiLock takes its first lock; the reply to its second acquire is
// delayed past A's 50 ms command timeout, though the script ran: the second
// lock is held in A's name and A does not know it. Propagating the error
// (redsim's old MultiLock, Redisson before #1606) leaves that lock until its
// 10 s lease ends: B, waiting from t=100 ms, gets in only then. Redisson
// master counts the timeout as a failure and unlocks the lock in doubt;
// A starts over, works 100 ms, and B follows within the bound.
ScenarioResult run_multilock_in_doubt(bool errors_propagate, Verdict expected, uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.command_timeout = Micros(50 * kMs);
  SimRunner runner(options);
  World& world = runner.world();
  load_scripts(world, {"reentrant_acquire", "reentrant_unlock"});
  const ProcessId a = world.spawn_process("A", [errors_propagate](ProcessEnv& env) {
    MultiParty p(env, {.errors_propagate = errors_propagate});
    env.record_acquire_start(kKey, ms(1000));
    bool ok = false;
    try {
      ok = p.multi.try_lock_for(ms(1000));
    } catch (const lock::TimeoutError& e) {
      env.record(std::string("multi-lock threw: ") + e.what());
    }
    env.record_acquire_end(kKey, ok);
    if (!ok) return;
    critical_section(env, ms(100));
    multi_unlock(env, p.multi);
  });
  world.spawn_process(
      "B",
      [](ProcessEnv& env) {
        MultiParty p(env, {});
        env.record_acquire_start(kKey, ms(20000));
        const bool ok = p.multi.try_lock_for(ms(20000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(10));
        multi_unlock(env, p.multi);
      },
      ms(100));
  // A's first acquire runs at t=1 ms (reply at 2), its second at t=3 ms:
  // that reply, sent at 3 ms, arrives 100 ms late.
  world.delay_messages(a, 0, Micros(2500), Micros(3500), ms(100));
  world.run();
  return judge(runner, expected, 2000 * kMs, {});
}

// ---- SpinLock ----

// A takes a spin lock with a `lease_ms` lease and works 300 ms; B spins for
// it from t=20 ms (backoff 1, 2, 4, ... 128 ms; no pub/sub). A 100 ms lease
// runs out under A and B's next attempt takes the lock beside A; with
// 1000 ms, B takes it after A's unlock, at most one backoff (128 ms) later,
// though no message tells it.
ScenarioResult run_spin_lease(int64_t lease_ms, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto party = [lease_ms](Micros wait, Micros work) {
    return [lease_ms, wait, work](ProcessEnv& env) {
      lock::SpinLock lk(env, kKey, {.default_lease = milliseconds(lease_ms)});
      if (!acquire(env, lk, wait)) return;
      critical_section(env, work);
      unlock_and_record(env, lk);
    };
  };
  world.spawn_process("A", party(ms(1000), ms(300)));
  world.spawn_process("B", party(ms(3000), ms(10)), ms(20));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

}  // namespace

void add_semaphore_multi_scenarios(std::vector<Scenario>& c) {
  auto add = [&c](std::string name, std::string lock_name, LockKind kind, Verdict expected,
                  std::string description, std::string source, std::string fault,
                  std::function<ScenarioResult(uint64_t)> fn) {
    Scenario s{std::move(name),   kind,          expected, std::move(description),
               std::move(source), std::move(fn), {},       std::move(fault)};
    s.lock_name = std::move(lock_name);
    c.push_back(std::move(s));
  };
  const std::string rsemaphore = "Redisson RedissonSemaphore.releaseAsync (INCRBY, no owner)";
  add("semaphore-release-untaken", "semaphore", LockKind::kReentrant, Verdict::kMutualExclusion,
      "a 1-permit semaphore: B's finally-release after a failed tryAcquire makes a permit up; C "
      "enters beside A",
      rsemaphore, "a scripted misuse: B releases a permit it never took", [](uint64_t seed) {
        return run_semaphore_release_unacquired(false, Verdict::kMutualExclusion, seed);
      });
  add("semaphore-release-taken", "semaphore", LockKind::kReentrant, Verdict::kSafe,
      "the same schedule where B releases only a permit it took: C waits for A's release",
      rsemaphore, "a scripted schedule: B's tryAcquire fails and it releases nothing",
      [](uint64_t seed) { return run_semaphore_release_unacquired(true, Verdict::kSafe, seed); });
  const std::string r5762 =
      "redisson#5762 (and redisson#5761 for locks): waiters missed release messages and waited "
      "their "
      "timeout or hung. The reported cause (a message landing before an async waiter's "
      "listener was registered) was fixed in 3.28.0 by keeping the permit, as redsim's "
      "LockEntry does, and cannot occur for redsim's blocking waiters; a message lost on the "
      "network still hangs RedissonSemaphore.acquire(), which waits for messages only";
  add("semaphore-lost-release-5762", "semaphore", LockKind::kReentrant, Verdict::kLiveness,
      "acquire() waits for the release message only (as Redisson): the message is lost and B "
      "sleeps on beside a free permit",
      r5762, "a partition of client B from t=250 to t=400 ms (the release message is lost)",
      [](uint64_t seed) {
        return run_semaphore_lost_release(std::nullopt, Verdict::kLiveness, seed);
      });
  add("semaphore-lost-release-poll", "semaphore", LockKind::kReentrant, Verdict::kSafe,
      "the same lost message with SemaphoreOptions::recheck_interval 500 ms: B finds the permit "
      "at its next re-check",
      r5762 + "; the re-check is redsim's option, not Redisson's",
      "a partition of client B from t=250 to t=400 ms (the release message is lost)",
      [](uint64_t seed) { return run_semaphore_lost_release(ms(500), Verdict::kSafe, seed); });
  const std::string rpes =
      "Redisson RedissonPermitExpirableSemaphore.tryAcquireAsync (expiry on the caller's "
      "System.currentTimeMillis())";
  add("pe-semaphore-skewed-clock", "pe-semaphore", LockKind::kReentrant, Verdict::kMutualExclusion,
      "C's clock runs 5 s ahead: it sees A's 1 s permit as expired, reclaims it and enters "
      "beside A",
      rpes, "C's process clock +5000 ms from the start", [](uint64_t seed) {
        return run_pe_semaphore_skewed_clock(5000, Verdict::kMutualExclusion, seed);
      });
  add("pe-semaphore-small-skew", "pe-semaphore", LockKind::kReentrant, Verdict::kSafe,
      "C's clock runs 200 ms ahead, less than A's lease left: C waits for A's release", rpes,
      "C's process clock +200 ms from the start",
      [](uint64_t seed) { return run_pe_semaphore_skewed_clock(200, Verdict::kSafe, seed); });
  add("multilock-no-wait-2172", "multi-lock", LockKind::kReentrant, Verdict::kMutualExclusion,
      "MultiLock try_lock with a lease and no wait, before the fix: each lock's lease is -2 ms, "
      "deleted at once; B takes both beside A",
      "redisson#2172 (RedissonMultiLock acquired by several threads with waitTime -1 and a "
      "leaseTime; fixed in 3.11.0)",
      "the old lease computation (MultiLockOptions::lease_before_2172: PEXPIRE -2 after each lock)",
      [](uint64_t seed) { return run_multilock_no_wait(true, Verdict::kMutualExclusion, seed); });
  add("multilock-no-wait", "multi-lock", LockKind::kReentrant, Verdict::kSafe,
      "the same calls with today's MultiLock: the locks keep the lease; B's try_lock fails",
      "redisson#2172's fix: newLeaseTime = leaseTime without a wait; return false",
      "a scripted schedule: B tries 50 ms after A took both",
      [](uint64_t seed) { return run_multilock_no_wait(false, Verdict::kSafe, seed); });
  add("multilock-lease-unit-5484", "multi-lock", LockKind::kReentrant, Verdict::kMutualExclusion,
      "MultiLock lock(10 s) before the fix: the locks get 10 ms; B takes both beside A, and A's "
      "unlock stops at the first lock not held",
      "redisson#5484 (RedissonMultiLock: \"attempt to unlock lock, not locked by current "
      "thread\" after lock(10, SECONDS); fixed in 3.25.0)",
      "the old lease unit (MultiLockOptions::lease_unit_before_5484: 10 s taken as 10 ms)",
      [](uint64_t seed) {
        return run_multilock_lease_unit(true, Verdict::kMutualExclusion, seed);
      });
  add("multilock-lease-unit", "multi-lock", LockKind::kReentrant, Verdict::kSafe,
      "the same lock(10 s) with today's MultiLock: 10 s leases; B waits for A's unlock",
      "redisson#5484's fix (RedissonMultiLock.lockInterruptibly converts the lease to ms)",
      "a scripted schedule: B calls lock() 50 ms after A took both",
      [](uint64_t seed) { return run_multilock_lease_unit(false, Verdict::kSafe, seed); });
  const std::string r4456 =
      "redisson#4456 (a MultiLock acquisition cut short leaves locks held; reported for a "
      "cancelled coroutine, which has no counterpart here, and closed without a fix: shown "
      "through a timed-out acquire instead); redisson#1606 (release a lock in doubt)";
  add("multilock-in-doubt-4456", "multi-lock", LockKind::kReentrant, Verdict::kLiveness,
      "an acquire of A's second lock times out after it ran; the error propagates and the lock "
      "stays held by nobody who knows, until its 10 s lease",
      r4456, "A's second acquire reply delayed 100 ms past its 50 ms command timeout",
      [](uint64_t seed) { return run_multilock_in_doubt(true, Verdict::kLiveness, seed); });
  add("multilock-in-doubt", "multi-lock", LockKind::kReentrant, Verdict::kSafe,
      "the same timeout with today's MultiLock: a failure, the lock in doubt is unlocked, A "
      "starts over; B follows A",
      "Redisson RedissonMultiLock.tryLock (RedisResponseTimeoutException: "
      "unlockInner(lock)), redisson#1606",
      "A's second acquire reply delayed 100 ms past its 50 ms command timeout",
      [](uint64_t seed) { return run_multilock_in_doubt(false, Verdict::kSafe, seed); });
  add("spin-lease-runs-out", "spin", LockKind::kSpin, Verdict::kMutualExclusion,
      "a spin lock with a 100 ms lease: A works 300 ms, the lease runs out, B's next backoff "
      "attempt takes it beside A",
      "Redisson RedissonSpinLock (RLock's hash, exponential backoff, no pub/sub)",
      "a scripted schedule: A works 300 ms on a 100 ms lease",
      [](uint64_t seed) { return run_spin_lease(100, Verdict::kMutualExclusion, seed); });
  add("spin-lease-holds", "spin", LockKind::kSpin, Verdict::kSafe,
      "the same work within a 1000 ms lease: B, told nothing, takes the lock at its next backoff "
      "attempt after A's unlock",
      "Redisson RedissonSpinLock, LockOptions.ExponentialBackOff (1..128 ms)",
      "a scripted schedule: B spins from t=20 ms while A works 300 ms",
      [](uint64_t seed) { return run_spin_lease(1000, Verdict::kSafe, seed); });
}

}  // namespace redsim::world::scenarios_detail

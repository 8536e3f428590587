// Scenarios: bugs from Redisson's issue tracker, each reproduced with the
// behaviour Redisson had then (kept as a named option) and run again with
// today's, and the read-write lock's own family. Their catalogue entries
// are at the bottom of this file (append_redisson_issue_scenarios), so the
// family files of other topics stay untouched.
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "lock/fair_lock.h"
#include "lock/fenced_lock.h"
#include "lock/read_write_lock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

namespace {

// The lock a lost-message scenario's processes use: the kind under test,
// seen through its ReentrantLock machinery (ReadWriteLock: its write half
// for B, its read half for A; see run_lost_message).
struct LostMessageLock {
  LostMessageLock(LockKind kind, lock::Env& env, const lock::ReentrantLockOptions& options,
                  bool holder_writes = false)
      : holder_writes(holder_writes),
        rw(kind == LockKind::kReadWrite ? std::make_unique<lock::ReadWriteLock>(env, kKey, options)
                                        : nullptr),
        plain(kind == LockKind::kFenced ? std::make_unique<lock::FencedLock>(env, kKey, options)
              : kind == LockKind::kReentrant
                  ? std::make_unique<lock::ReentrantLock>(env, kKey, options)
                  : nullptr) {}
  lock::ReentrantLock& holder() {
    if (!rw) return *plain;
    if (holder_writes) return rw->write_lock();
    return rw->read_lock();
  }
  lock::ReentrantLock& waiter() {
    return rw ? static_cast<lock::ReentrantLock&>(rw->write_lock()) : *plain;
  }
  bool holder_writes;
  std::unique_ptr<lock::ReadWriteLock> rw;
  std::unique_ptr<lock::ReentrantLock> plain;
};

// Found by reading one run's timeline (every seed schedules alike): A's
// unlock is sent at 54.5 ms and B's replies in [55, 55.4) ms are 5 ms late,
// so A's message reaches B before the reply to B's second attempt. When B's
// first acquire script is not yet in the server's cache (ReadWriteLock with
// A reading: NOSCRIPT, then EVAL) everything of B's comes 2 ms later.
constexpr int64_t kUnlockSentUs = 54500;
constexpr int64_t kDelayFromUs = 55000;
constexpr int64_t kDelayToUs = 55400;
constexpr int64_t kNoscriptUs = 2000;

// B: from 20 ms, waits up to 5 s for the write lock, writes 10 ms, unlocks
// (the writer of the rw-reader-pause and rw-reentry-lease scenarios).
void spawn_writer_b(World& world, const lock::ReentrantLockOptions& options) {
  world.spawn_process(
      "B",
      [options](ProcessEnv& env) {
        lock::ReadWriteLock rw(env, kKey, options);
        if (!acquire(env, rw.write_lock(), ms(5000))) return;
        critical_section(env, ms(10));
        unlock_and_record(env, rw.write_lock());
      },
      ms(20));
}

}  // namespace

// lost-message-*: A holds the lock under the watchdog (3 s); B's lock()
// fails, subscribes, fails again; A's unlock runs on the server just after
// B's second attempt and its message reaches B while B's reply is still on
// the wire (B's replies are delayed 5 ms for that one message), so it
// lands before B waits. Kept (Redisson's latch; its async waiters since
// 3.28): B's wait returns at once and it takes the lock. Dropped (async
// waiters before 3.28, redisson#5761/#5762): B sleeps the PTTL it saw,
// about the whole watchdog timeout, while the lock is free. For
// ReadWriteLock, A reads and B writes: a read unlock publishes 0. With
// holder_writes A writes, and its unlock publishes READ_UNLOCK_MESSAGE (1),
// which LockPubSub.onMessage turns into release(getQueueLength()): with B
// not yet queued nothing is kept, even on Redisson master.
ScenarioResult run_lost_message(LockKind kind, bool keep_early_message, Verdict expected,
                                uint64_t seed, bool holder_writes) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::ReentrantLockOptions options = reentrant_options(3000);
  options.keep_early_message = keep_early_message;
  struct Shared {
    int64_t unlocked_us = -1, b_acquired_us = -1;
  };
  auto s = std::make_shared<Shared>();
  const int64_t shift_us = kind == LockKind::kReadWrite && !holder_writes ? kNoscriptUs : 0;
  world.spawn_process("A", [s, kind, options, holder_writes, shift_us](ProcessEnv& env) {
    LostMessageLock lk(kind, env, options, holder_writes);
    lock_recorded(env, lk.holder());
    env.enter_critical(kKey);
    env.sleep_for(Micros(kUnlockSentUs + shift_us) - env.now().time_since_epoch());
    env.leave_critical(kKey);
    lk.holder().unlock();
    s->unlocked_us = env.now().time_since_epoch().count();
    env.record("unlocked");
  });
  ProcessId b = world.spawn_process(
      "B",
      [s, kind, options](ProcessEnv& env) {
        LostMessageLock lk(kind, env, options);
        env.record_acquire_start(kKey, ms(60000));  // lock(): no deadline
        lk.waiter().lock();
        env.record_acquire_end(kKey, true);
        s->b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.waiter().unlock();
      },
      ms(50));
  world.delay_messages(b, 0, Micros(kDelayFromUs + shift_us), Micros(kDelayToUs + shift_us), ms(5));
  world.run();
  Judged j;
  if (s->b_acquired_us < 0 || s->unlocked_us < 0) {
    j.extra.push_back(expectation_failed("A or B did not finish"));
  } else {
    j.findings.push_back("A unlocked at " + fmt_ms(s->unlocked_us) + "; B took the lock at " +
                         fmt_ms(s->b_acquired_us) + " (watchdog timeout 3000 ms)");
  }
  return judge(runner, expected, 500 * kMs, std::move(j));
}

// rwlock-reader-pause-*: A holds the read lock (a 100 ms lease, or the
// watchdog with 3 s) and pauses 150 ms inside its critical section; B waits
// for the write lock. A fixed lease runs out under the paused reader and B
// writes while A still reads; the watchdog's 3 s outlast the pause.
ScenarioResult run_rw_reader_pause(bool watchdog, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const lock::ReentrantLockOptions options = reentrant_options(3000);
  ProcessId a = world.spawn_process("A", [options, watchdog](ProcessEnv& env) {
    lock::ReadWriteLock rw(env, kKey, options);
    env.record_acquire_start(kKey, Micros(0));
    if (watchdog) {
      rw.read_lock().lock();
    } else {
      rw.read_lock().lock(milliseconds(100));
    }
    env.record_acquire_end(kKey, true);
    critical_section(env, ms(200));
    unlock_and_record(env, rw.read_lock());
  });
  spawn_writer_b(world, options);
  world.pause_process(a, ms(30), ms(150));
  world.run();
  return judge(runner, expected, 500 * kMs, Judged{});
}

// rwlock-expired-reader-dropped: C takes the read lock with a 300 ms lease
// and crashes at 10 ms, never unlocking; A reads with a 10 s lease and
// unlocks at ~100 ms; B asks for the write lock at 150 ms. A's release set
// the hash's expiry to the longest live hold's (C's, ~200 ms left), so B
// writes at ~300 ms; with one expiry that only grows (redsim before issue
// 14) B waited for A's released 10 s.
// rwlock-writer-sleeps-stale-pttl: the same, B asking at 20 ms, before A's
// release: B sleeps the PTTL it saw then (~10 s), since a read release that
// leaves holds behind publishes nothing and the expiry of C's hold publishes
// nothing either; Redisson master does the same
// (RedissonReadLock.unlockInnerAsync publishes only when it deletes the hash).
ScenarioResult run_rw_expired_reader(int64_t b_start_ms, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const lock::ReentrantLockOptions options = reentrant_options(3000);
  int64_t b_acquired_us = -1;
  ProcessId c = world.spawn_process("C", [options](ProcessEnv& env) {
    lock::ReadWriteLock rw(env, kKey, options);
    rw.read_lock().lock(milliseconds(300));
    env.record("read-locked for 300 ms");
    env.sleep_for(ms(60000));
    unlock_and_record(env, rw.read_lock());
  });
  world.spawn_process(
      "A",
      [options](ProcessEnv& env) {
        lock::ReadWriteLock rw(env, kKey, options);
        env.record_acquire_start(kKey, Micros(0));
        rw.read_lock().lock(milliseconds(10000));
        env.record_acquire_end(kKey, true);
        critical_section(env, ms(90));
        unlock_and_record(env, rw.read_lock());
      },
      ms(5));
  world.spawn_process(
      "B",
      [options, &b_acquired_us](ProcessEnv& env) {
        lock::ReadWriteLock rw(env, kKey, options);
        if (!acquire(env, rw.write_lock(), ms(20000))) return;
        b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        unlock_and_record(env, rw.write_lock());
      },
      ms(b_start_ms));
  world.crash_process(c, ms(10));
  world.run();
  Judged j;
  if (b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("B never took the write lock"));
  } else {
    j.findings.push_back("B took the write lock at " + fmt_ms(b_acquired_us) +
                         " (C's read lease ends at ~301 ms, A's released one at ~10005 ms)");
    if (expected == Verdict::kSafe && b_acquired_us > 1000 * kMs) {
      j.extra.push_back(expectation_failed("B waited for a released reader's lease"));
    }
  }
  // C's hold is no waiter's business: the liveness bound covers the lock
  // being free (after C's lease) and not taken.
  return judge(runner, expected, 500 * kMs, std::move(j));
}

// rwlock-reentry-lease-1110*: A takes the write lock with a 1000 ms lease,
// re-enters it with 100 ms and works 300 ms inside both holds; B waits for
// the write lock. Before redisson#1110 the re-entry set the expiry to 100 ms
// and B wrote at ~105 ms, inside A's work; since, it is PTTL + 100 ms.
ScenarioResult run_rw_reentry_lease(bool before_1110, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::ReentrantLockOptions options = reentrant_options(3000);
  options.write_reentry_sets_lease_before_1110 = before_1110;
  world.spawn_process("A", [options](ProcessEnv& env) {
    lock::ReadWriteLock rw(env, kKey, options);
    env.record_acquire_start(kKey, Micros(0));
    rw.write_lock().lock(milliseconds(1000));
    rw.write_lock().lock(milliseconds(100));
    env.record_acquire_end(kKey, true);
    critical_section(env, ms(300));
    unlock_and_record(env, rw.write_lock());
    unlock_and_record(env, rw.write_lock());
  });
  spawn_writer_b(world, options);
  world.run();
  return judge(runner, expected, 500 * kMs, Judged{});
}

// lease-carried-4818*: one ReentrantLock object: A locks with a 10 s
// lease, unlocks, then lock()s with the watchdog (3 s) and crashes at
// 100 ms, before the watchdog's first renewal (at 1 s). Before
// redisson#4818 the second acquisition set the 10 s carried from the first,
// so the lock outlives A by ~10 s; since, the watchdog's 3 s.
ScenarioResult run_lease_carried(bool before_4818, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::ReentrantLockOptions options = reentrant_options(3000);
  options.lease_carried_before_4818 = before_4818;
  int64_t b_acquired_us = -1;
  ProcessId a = world.spawn_process("A", [options](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, options);
    lk.lock(milliseconds(10000));
    lk.unlock();
    lock_recorded(env, lk);
    critical_section(env, ms(60000));
    lk.unlock();
  });
  world.spawn_process(
      "B",
      [options, &b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, options);
        if (!acquire(env, lk, ms(30000))) return;
        b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(50));
  world.crash_process(a, ms(100));
  world.run();
  Judged j;
  if (b_acquired_us >= 0) {
    j.findings.push_back("A crashed at 100 ms; B took the lock at " + fmt_ms(b_acquired_us));
  }
  // Free from the crash until the lease ends: at most the watchdog's 3 s.
  return judge(runner, expected, 3500 * kMs, std::move(j));
}

// The waiter of the two watchdog-outlives-* pairs: B asks for the lock at
// 20 ms and waits up to 30 s; the run is judged on whether it got in.
ScenarioResult run_waiter_b_and_judge(SimRunner& runner, const lock::ReentrantLockOptions& options,
                                      Verdict expected) {
  int64_t b_acquired_us = -1;
  runner.world().spawn_process(
      "B",
      [options, &b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, options);
        if (!acquire(env, lk, ms(30000))) return;
        b_acquired_us = env.now().time_since_epoch().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(20));
  runner.world().run();
  Judged j;
  j.findings.push_back(b_acquired_us < 0 ? "B never took the lock within its 30 s wait"
                                         : "B took the lock at " + fmt_ms(b_acquired_us));
  return judge(runner, expected, 3500 * kMs, std::move(j));
}

// watchdog-outlives-holder-1626*: A's task takes the lock and then never
// unlocks (the thread died holding it, or forgot it), while A's process
// lives on for 60 s. Under the watchdog (3 s) the lock is renewed for as
// long as the process lives and B waits in vain; with a 3 s lease it frees
// 3 s after the last renewal would have been.
ScenarioResult run_watchdog_outlives_holder(bool watchdog, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const lock::ReentrantLockOptions options = reentrant_options(3000);
  world.spawn_process("A", [options, watchdog](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, options);
    env.record_acquire_start(kKey, Micros(0));
    if (watchdog) {
      lk.lock();
    } else {
      lk.lock(milliseconds(3000));
    }
    env.record_acquire_end(kKey, true);
    critical_section(env, ms(50));
    env.record("the holding task is gone without unlocking; the process lives on");
    env.sleep_for(ms(60000));
  });
  return run_waiter_b_and_judge(runner, options, expected);
}

// watchdog-outlives-thread-3521*: a worker task of A takes the lock with
// try_lock() (the watchdog, 3 s) and then dies of an exception, while A's
// process lives on for 60 s. The report's test: the thread's RuntimeException
// ends it before unlock(), and the renewal goes on for the client. The
// maintainer's answer ("throw new RuntimeException() is the reason") puts
// the fix in the caller: unlock in a finally. Here the worker's exception
// is caught at the top of the task (a Java thread dies, its process lives);
// the fixed twin holds the lock through std::unique_lock, which unlocks as
// the exception unwinds. No Redisson option: the renewal is for the client,
// not for the thread, on master as in 2021.
ScenarioResult run_watchdog_outlives_thread(bool unlock_on_unwind, Verdict expected,
                                            uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const lock::ReentrantLockOptions options = reentrant_options(3000);
  world.spawn_process("A", [options, unlock_on_unwind](ProcessEnv& env) {
    env.spawn("worker", [&env, options, unlock_on_unwind] {
      lock::ReentrantLock lk(env, kKey, options);
      try {
        if (!acquire(env, lk, Micros(0))) return;
        if (unlock_on_unwind) {
          std::unique_lock<lock::ReentrantLock> guard(lk, std::adopt_lock);
          critical_section(env, ms(50));
          throw std::runtime_error("RuntimeException in the worker");
        }
        critical_section(env, ms(50));
        throw std::runtime_error("RuntimeException in the worker");
      } catch (const std::runtime_error& e) {
        env.record(std::string("the worker thread died: ") + e.what() +
                   (unlock_on_unwind ? " (the guard unlocked)" : " (no unlock)"));
      }
    });
    env.sleep_for(ms(60000));
  });
  return run_waiter_b_and_judge(runner, options, expected);
}

// fair-waiter-dropped-3004*: A holds a FairLock (watchdog 3 s) for 12 s;
// B queues at 10 ms, its place kept until the lease it saw plus
// thread_wait; C queues at 9 s. With thread_wait 5 s B's place ended at
// ~8 s and C's attempt drops B from the queue although B still waits: C goes
// first and B re-queues behind it. With today's 300 s B keeps its place.
ScenarioResult run_fair_waiter_dropped(milliseconds thread_wait, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const lock::FairLockOptions options{.lock_watchdog_timeout = milliseconds(3000),
                                      .thread_wait = thread_wait};
  struct Shared {
    int64_t b_us = -1, c_us = -1;
  };
  auto s = std::make_shared<Shared>();
  world.spawn_process("A", [options](ProcessEnv& env) {
    lock::FairLock lk(env, kKey, options);
    lock_recorded(env, lk);
    critical_section(env, ms(12000));
    lk.unlock();
  });
  auto waiter = [options, s](bool is_b) {
    return [options, s, is_b](ProcessEnv& env) {
      lock::FairLock lk(env, kKey, options);
      // lock(): no wait of its own, so the place is kept thread_wait
      // beyond the one ahead (a tryLock(wait) would keep it `wait`).
      env.record_acquire_start(kKey, ms(60000));
      lk.lock();
      env.record_acquire_end(kKey, true);
      (is_b ? s->b_us : s->c_us) = env.now().time_since_epoch().count();
      critical_section(env, ms(10));
      lk.unlock();
    };
  };
  world.spawn_process("B", waiter(true), ms(10));
  world.spawn_process("C", waiter(false), ms(9000));
  world.run();
  Judged j;
  j.findings.push_back("B (queued at 10 ms) took the lock at " + fmt_ms(s->b_us) +
                       ", C (queued at 9 s) at " + fmt_ms(s->c_us));
  if (s->b_us < 0 || s->c_us < 0 || s->c_us < s->b_us) {
    j.extra.push_back(expectation_failed("FIFO broken: C, queued after B, went first"));
  }
  return judge(runner, expected, 10000 * kMs, std::move(j));
}

void append_redisson_issue_scenarios(std::vector<Scenario>& c) {
  auto add = [&c](std::string name, LockKind kind, Verdict expected, std::string description,
                  std::string source, std::string fault,
                  std::function<ScenarioResult(uint64_t)> fn) {
    Scenario s{std::move(name),   kind,          expected, std::move(description),
               std::move(source), std::move(fn), {},       std::move(fault)};
    c.push_back(std::move(s));
  };
  const std::string early =
      "A's unlock message reaches B between B's second attempt and its wait (B's reply 5 ms late)";
  struct LostKind {
    const char* suffix;
    LockKind kind;
    const char* what;
  };
  for (const LostKind& k :
       {LostKind{"rlock", LockKind::kReentrant, "RLock"},
        LostKind{"fenced", LockKind::kFenced, "FencedLock"},
        LostKind{"rwlock", LockKind::kReadWrite, "ReadWriteLock (A reads, B writes)"}}) {
    const LockKind kind = k.kind;
    add(std::string("lost-message-5761-") + k.suffix, kind, Verdict::kLiveness,
        std::string("redisson#5761/#5762, ") + k.what +
            ": an unlock message that finds no waiter is dropped (async waiters before 3.28); "
            "B sleeps ~3 s (its PTTL) on a free lock",
        "redisson#5761, #5762 (fixed in 3.28.0 by RedissonLockEntry.addListener taking the "
        "latch's permit); #3891, #4744 describe the same window",
        early, [kind](uint64_t seed) {
          return run_lost_message(kind, false, Verdict::kLiveness, seed, false);
        });
    add(std::string("lost-message-5761-") + k.suffix + "-fixed", kind, Verdict::kSafe,
        std::string("redisson#5761/#5762 fixed, ") + k.what +
            ": the early message leaves a permit; B's wait returns at once",
        "Redisson RedissonLockEntry (a Semaphore latch; addListener since 3.28.0)", early,
        [kind](uint64_t seed) {
          return run_lost_message(kind, true, Verdict::kSafe, seed, false);
        });
  }
  add("lost-message-rwlock-write-unlock", LockKind::kReadWrite, Verdict::kLiveness,
      "redisson#3891 on today's code: a write unlock's message 1 landing before B waits wakes "
      "nobody (release(queueLength) with no one queued); B sleeps ~3 s",
      "Redisson LockPubSub.onMessage (READ_UNLOCK_MESSAGE), RedissonWriteLock.unlockInnerAsync; "
      "redisson#3891 (open)",
      early, [](uint64_t seed) {
        return run_lost_message(LockKind::kReadWrite, true, Verdict::kLiveness, seed, true);
      });
  add("rwlock-reentry-lease-1110", LockKind::kReadWrite, Verdict::kMutualExclusion,
      "redisson#1110: a 100 ms write re-entry inside a 1000 ms hold sets the expiry to 100 ms; "
      "another writer gets in during the outer hold",
      "redisson#1110 (RedissonWriteLock.tryLockInnerAsync set the re-entry's lease alone)",
      "no fault: a nested 100 ms hold kept 300 ms (simulation only)",
      [](uint64_t seed) { return run_rw_reentry_lease(true, Verdict::kMutualExclusion, seed); });
  add("rwlock-reentry-lease-1110-fixed", LockKind::kReadWrite, Verdict::kSafe,
      "redisson#1110 fixed: the re-entry sets PTTL + 100 ms; the other writer waits",
      "RedissonWriteLock.tryLockInnerAsync (pexpire(currentExpire + leaseTime))",
      "no fault: a nested 100 ms hold kept 300 ms (simulation only)",
      [](uint64_t seed) { return run_rw_reentry_lease(false, Verdict::kSafe, seed); });
  add("lease-carried-4818", LockKind::kReentrant, Verdict::kLiveness,
      "redisson#4818/#5623: lock() after lock(10 s) on one object sets 10 s, not the watchdog's "
      "3 s; the holder crashes and the lock outlives it by ~10 s",
      "redisson#4818 (internalLockLeaseTime carried between acquisitions; fixed in 3.19.2), "
      "#5623",
      "a crash of client A at t=100 ms, before its first renewal",
      [](uint64_t seed) { return run_lease_carried(true, Verdict::kLiveness, seed); });
  add("lease-carried-4818-fixed", LockKind::kReentrant, Verdict::kSafe,
      "redisson#4818 fixed: the watchdog acquisition sets 3 s; the lock frees 3 s after the crash",
      "RedissonLock.tryAcquireAsync (the watchdog's lease for leaseTime <= 0)",
      "a crash of client A at t=100 ms, before its first renewal",
      [](uint64_t seed) { return run_lease_carried(false, Verdict::kSafe, seed); });
  add("watchdog-outlives-holder-1626", LockKind::kReentrant, Verdict::kLiveness,
      "redisson#1626/#5115: a task that never unlocks a watchdog lock keeps it for as long as "
      "its process lives; B waits in vain (by design, still on master)",
      "redisson#1626, #5115 (the watchdog renews for the client, not for the thread); #7272's "
      "cause, an async renewal scheduled after the cancel, cannot happen here: on_acquired "
      "starts the watchdog before lock() returns",
      "no fault: A's task stops before unlocking while its process lives 60 s (simulation "
      "only)",
      [](uint64_t seed) { return run_watchdog_outlives_holder(true, Verdict::kLiveness, seed); });
  add("watchdog-outlives-holder-1626-lease", LockKind::kReentrant, Verdict::kSafe,
      "the same forgotten lock taken with a 3 s lease instead of the watchdog: it frees after 3 s",
      "Redisson RLock.lock(leaseTime, unit) (no renewal with a lease)",
      "no fault: A's task stops before unlocking while its process lives 60 s (simulation "
      "only)",
      [](uint64_t seed) { return run_watchdog_outlives_holder(false, Verdict::kSafe, seed); });
  add("watchdog-outlives-thread-3521", LockKind::kReentrant, Verdict::kLiveness,
      "redisson#3521: a worker thread takes a watchdog lock with tryLock() and dies of an "
      "exception before unlock(); its process lives on and the watchdog keeps renewing; B waits "
      "in vain",
      "redisson#3521 (closed as a question: the exception is the reason; renewal is per client, "
      "not per thread)",
      "no fault: A's worker task throws 50 ms after taking the lock (simulation only)",
      [](uint64_t seed) { return run_watchdog_outlives_thread(false, Verdict::kLiveness, seed); });
  add("watchdog-outlives-thread-3521-fixed", LockKind::kReentrant, Verdict::kSafe,
      "redisson#3521 as the maintainer answers it: the worker unlocks in a finally "
      "(std::unique_lock); the exception unlocks and B takes the lock",
      "redisson#3521 (unlock in finally); RedissonBaseLock.unlockAsync0 cancels the renewal",
      "no fault: A's worker task throws 50 ms after taking the lock (simulation only)",
      [](uint64_t seed) { return run_watchdog_outlives_thread(true, Verdict::kSafe, seed); });
  const milliseconds old_wait = lock::FairLockOptions::kThreadWaitBefore2883;
  add("fair-waiter-dropped-3004", LockKind::kFair, Verdict::kExpectation,
      "redisson#3004: a waiter queued longer than threadWaitTime (5 s) is dropped by a later "
      "one, which goes first; its hang needs the pre-#4705 negative reply (here it re-queues)",
      "redisson#3004 (waiters dropped as expired while alive; Redisson 3.13.x), #2883/#3730 "
      "(threadWaitTime raised to 300 s)",
      "no fault: A holds 12 s while B waits (simulation only)", [old_wait](uint64_t seed) {
        return run_fair_waiter_dropped(old_wait, Verdict::kExpectation, seed);
      });
  add("fair-waiter-dropped-3004-fixed", LockKind::kFair, Verdict::kSafe,
      "redisson#3004 with today's threadWaitTime (300 s): B keeps its place; FIFO holds",
      "Redisson RedissonFairLock (Config.fairLockWaitTimeout 300,000 ms)",
      "no fault: A holds 12 s while B waits (simulation only)", [](uint64_t seed) {
        return run_fair_waiter_dropped(lock::FairLockOptions{}.thread_wait, Verdict::kSafe, seed);
      });
  add("rwlock-reader-pause-past-lease", LockKind::kReadWrite, Verdict::kMutualExclusion,
      "a reader with a 100 ms lease is paused 150 ms; its hold expires and a writer writes while "
      "it reads",
      "Kleppmann (2016), GC pause figure, with Redisson's RReadWriteLock",
      "a 150 ms pause of reader A inside its critical section",
      [](uint64_t seed) { return run_rw_reader_pause(false, Verdict::kMutualExclusion, seed); });
  add("rwlock-reader-pause-watchdog", LockKind::kReadWrite, Verdict::kSafe,
      "the same pause with the read watchdog (3 s, renewing its rwlock_timeout keys): the writer "
      "waits",
      "Redisson RedissonReadLock, renewal.ReadLockTask",
      "a 150 ms pause of reader A inside its "
      "critical section",
      [](uint64_t seed) { return run_rw_reader_pause(true, Verdict::kSafe, seed); });
  add("rwlock-expired-reader-dropped", LockKind::kReadWrite, Verdict::kSafe,
      "a released 10 s reader no longer holds the writer: the hash's TTL becomes the live "
      "reader's (300 ms)",
      "Redisson RedissonReadLock.unlockInnerAsync (per-hold {name}:<id>:rwlock_timeout:N keys)",
      "a crash of reader C at t=10 ms (it never unlocks)",
      [](uint64_t seed) { return run_rw_expired_reader(150, Verdict::kSafe, seed); });
  add("rwlock-writer-sleeps-stale-pttl", LockKind::kReadWrite, Verdict::kLiveness,
      "as on Redisson master: a writer already waiting sleeps the 10 s PTTL it saw; the read "
      "release that shortened the TTL to 300 ms published nothing",
      "RedissonReadLock.unlockInnerAsync (publishes only when it deletes the hash); "
      "redisson#3891/#4744 report writers sleeping until the lease",
      "a crash of reader C at t=10 ms (it never unlocks)",
      [](uint64_t seed) { return run_rw_expired_reader(20, Verdict::kLiveness, seed); });
}

}  // namespace redsim::world::scenarios_detail

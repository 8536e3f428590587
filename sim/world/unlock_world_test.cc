// Unlocking in the simulated world: std::unique_lock whose lease ran out, a
// crash while an unlock() called from a noexcept destructor waits for its
// reply, a task that keeps calling after its process crashed, and the
// watchdog after an unlock whose request was lost (issue 14, item 2).
#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/lock.h"
#include "lock/reentrant_lock.h"
#include "lock/simple_lock.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

size_t count_kind(const History& h, EventKind kind, ProcessId pid) {
  size_t n = 0;
  for (const auto& e : h.events()) n += e.kind == kind && e.process == pid;
  return n;
}

bool has_result(const History& h, ProcessId pid, const std::string& text) {
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kResult && e.process == pid && e.text == text) return true;
  }
  return false;
}

std::optional<lock::UnlockError::Reason> failure_of(const std::optional<lock::UnlockResult>& r) {
  if (!r || r->has_value()) return std::nullopt;
  return r->error().reason;
}

WorldOptions one_ms_latency() {
  WorldOptions o;
  o.faults.latency_min = Micros{1000};
  o.faults.latency_max = Micros{1000};
  return o;
}

// The guard's destructor calls unlock() after the lease ran out: nothing is
// thrown (BasicLockable), the process runs its next statements, and the
// outcome is still there to read.
TEST(WorldUnlock, UniqueLockOutlivingItsLeaseKeepsTheProcessRunning) {
  for (lock::LockKind kind : {lock::LockKind::kSimple, lock::LockKind::kReentrant,
                              lock::LockKind::kFair, lock::LockKind::kRedlock}) {
    World w(one_ms_latency());
    std::optional<lock::UnlockResult> outcome;
    const ProcessId pid = w.spawn_process("A", [&](ProcessEnv& env) {
      auto lk = lock::make_lock(kind, env, "k", {.lease = milliseconds(100)});
      {
        std::unique_lock guard(*lk);
        env.sleep_for(milliseconds(300));  // the lease runs out in here
      }
      env.record("after the guard");
      outcome = lk->last_unlock();
      env.record(outcome && !*outcome ? "unlock: " + outcome->error().message : "unlocked");
    });
    w.run();
    SCOPED_TRACE(std::string(lock::lock_kind_name(kind)));
    EXPECT_EQ(w.process_state(pid), ProcessState::kEnded);
    EXPECT_EQ(count_kind(w.history(), EventKind::kTaskError, pid), 0u);
    EXPECT_TRUE(has_result(w.history(), pid, "after the guard"));
    if (kind == lock::LockKind::kFair) {
      // RedissonFairLock.unlockInnerAsync answers 1 for a lock that is gone.
      ASSERT_TRUE(outcome.has_value());
      EXPECT_TRUE(outcome->has_value()) << "a gone fair lock unlocks normally, as in Redisson";
    } else {
      EXPECT_EQ(failure_of(outcome), lock::UnlockError::Reason::kNotHeld);
    }
  }
}

// A crash lands while unlock(), called from std::unique_lock's (noexcept)
// destructor, waits for its reply. The blocked call fails with ClosedError,
// which release() turns into kConnection; the destructor returns normally
// and the task runs to its end. (A forced unwind from inside the unlock
// would have reached the noexcept destructor: std::terminate.)
TEST(WorldUnlock, CrashDuringUnlockInUniqueLockDestructorDoesNotTerminate) {
  World w(one_ms_latency());
  ProcessId pid = 0;
  bool after_guard = false;
  std::optional<lock::UnlockResult> outcome;
  pid = w.spawn_process("A", [&](ProcessEnv& env) {
    lock::SimpleLock lk(env, "k", {.lease = std::chrono::seconds(10)});
    {
      std::unique_lock guard(lk);
      env.sleep_for(milliseconds(10));
      // Half a round trip from now: the unlock's request is on the wire.
      w.crash_process(pid, w.now() + microseconds(500));
    }
    after_guard = true;
    outcome = lk.last_unlock();
    env.record("not recorded: the process is gone");
  });
  w.run();
  EXPECT_EQ(w.process_state(pid), ProcessState::kCrashed);
  EXPECT_TRUE(after_guard);
  EXPECT_EQ(failure_of(outcome), lock::UnlockError::Reason::kConnection);
  EXPECT_EQ(count_kind(w.history(), EventKind::kTaskError, pid), 0u);
  EXPECT_FALSE(has_result(w.history(), pid, "not recorded: the process is gone"));
}

// A task that swallows every ClosedError and retries forever after its
// process crashed is unwound after World's bound on such calls, so the crash
// still ends it (and its destructors run).
TEST(WorldUnlock, RetryLoopAfterACrashIsUnwound) {
  World w;
  int attempts_after_crash = 0;
  bool cleaned = false;
  struct Cleanup {
    bool* done;
    ~Cleanup() { *done = true; }
  };
  const ProcessId pid = w.spawn_process("A", [&](ProcessEnv& env) {
    Cleanup c{&cleaned};
    bool crashed = false;
    for (;;) {
      try {
        env.sleep_for(milliseconds(5));
        env.connection().call({"PING"});
      } catch (const lock::ClosedError&) {
        crashed = true;
      }
      attempts_after_crash += crashed ? 1 : 0;
    }
  });
  w.crash_process(pid, milliseconds(12));
  w.run();
  EXPECT_EQ(w.process_state(pid), ProcessState::kCrashed);
  EXPECT_TRUE(cleaned);
  EXPECT_GT(attempts_after_crash, 10);
  EXPECT_LE(attempts_after_crash, 1000);
}

// Issue 14, item 2: an unlock whose request is lost fails (kConnection) and
// must still stop the watchdog, as Redisson's unlockAsync0 cancels renewal
// whatever the outcome. The lock then expires after its lease.
TEST(WorldUnlock, LostUnlockStopsTheWatchdogAndTheLockExpires) {
  World w;
  std::optional<lock::UnlockResult> outcome;
  bool held_after_failed_unlock = false;
  std::optional<bool> locked_later;
  const ProcessId pid = w.spawn_process("A", [&](ProcessEnv& env) {
    lock::ReentrantLock lk(env, "k", {.lock_watchdog_timeout = milliseconds(300)});
    lk.lock();                         // watchdog: renews every 100 ms
    env.sleep_for(milliseconds(150));  // between two renewals
    lk.unlock();                       // its request is lost
    outcome = lk.last_unlock();
    env.sleep_for(milliseconds(2));  // past the loss window
    held_after_failed_unlock = lk.is_held_by_current_thread();
    env.sleep_for(milliseconds(1000));  // three leases: renewed, it would live on
    locked_later = lk.is_locked();
  });
  w.lose_messages(pid, 0, milliseconds(150), milliseconds(151), Loss::kRequest);
  w.run();
  EXPECT_EQ(failure_of(outcome), lock::UnlockError::Reason::kConnection);
  EXPECT_TRUE(held_after_failed_unlock) << "the unlock never reached Redis";
  ASSERT_TRUE(locked_later.has_value());
  EXPECT_FALSE(*locked_later) << "the watchdog kept renewing a lock whose unlock failed";
  size_t stopped = 0;
  for (const auto& e : w.history().events()) {
    stopped += e.kind == EventKind::kTrace && e.process == pid &&
               e.text.find("watchdog stopped") != std::string::npos;
  }
  EXPECT_GE(stopped, 1u);
}

}  // namespace
}  // namespace redsim::world

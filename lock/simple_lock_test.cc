#include "lock/simple_lock.h"

#include <gtest/gtest.h>

#include <mutex>

#include "lock/errors.h"
#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

std::string get(DirectWorld& world, const std::string& key) {
  return world.server.execute(*world.server.connect(), {"GET", key}).str();
}

TEST(SimpleLock, AcquiresWithSetNxPx) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SimpleLock lock(a, "k", {.lease = 10s});
  ASSERT_TRUE(lock.try_lock());
  ASSERT_EQ(a.calls.size(), 1u);
  EXPECT_EQ(a.calls[0], (Argv{"SET", "k", lock.owner(), "NX", "PX", "10000"}));
  EXPECT_EQ(get(world, "k"), lock.owner());
  EXPECT_EQ(lock.remaining_lease().ttl, 10000ms);
  EXPECT_TRUE(lock.is_locked());
  EXPECT_TRUE(lock.is_held_by_current_thread());
}

TEST(SimpleLock, ExcludesAnotherProcess) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k"), lb(b, "k");
  la.lock();
  EXPECT_FALSE(lb.try_lock());
  EXPECT_FALSE(lb.is_held_by_current_thread());
  EXPECT_TRUE(lb.is_locked());
  la.unlock();
  EXPECT_FALSE(la.is_locked());
  EXPECT_TRUE(lb.try_lock());
}

TEST(SimpleLock, TokenIsFreshPerAcquisition) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SimpleLock lock(a, "k");
  lock.lock();
  const std::string first = lock.owner();
  lock.unlock();
  EXPECT_EQ(lock.owner(), "");
  lock.lock();
  EXPECT_NE(lock.owner(), first);
  EXPECT_EQ(first.rfind("client-a:1:", 0), 0u) << first;
  EXPECT_EQ(first.size(), std::string("client-a:1:").size() + 16);
}

TEST(SimpleLock, ExpiryAfterLeaseLetsTheOtherIn) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 1000ms}), lb(b, "k", {.lease = 1000ms});
  la.lock();
  world.clock.advance_ms(1000);
  EXPECT_FALSE(lb.try_lock())
      << "at the deadline the key still lives (expired when now > deadline)";
  world.clock.advance_ms(1);
  EXPECT_TRUE(lb.try_lock());
}

TEST(SimpleLock, CompareAndDeleteNeverDeletesAnothersLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 1000ms}), lb(b, "k", {.lease = 1000ms});
  la.lock();
  world.clock.advance_ms(1001);
  ASSERT_TRUE(lb.try_lock());
  const std::string b_token = lb.owner();

  EXPECT_EQ(failure_of(la.release()),
            UnlockError::Reason::kNotHeld);  // A's lease ran out: reported, not hidden
  EXPECT_EQ(get(world, "k"), b_token);       // B's lock intact
  EXPECT_TRUE(lb.is_held_by_current_thread());
  EXPECT_FALSE(la.release().has_value()) << "the acquisition is over after the failed unlock";
  lb.unlock();
  EXPECT_FALSE(lb.is_locked());
}

TEST(SimpleLock, UnlockWithoutLockThrowsAndSendsNothing) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SimpleLock lock(a, "k");
  EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
  EXPECT_FALSE(lock.release().has_value());
  EXPECT_TRUE(a.calls.empty());
}

TEST(SimpleLock, LostLockMessageSaysTheLeaseRanOut) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SimpleLock lock(a, "k", {.lease = 50ms});
  lock.lock();
  world.clock.advance_ms(51);
  const UnlockResult r = lock.release();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().reason, UnlockError::Reason::kNotHeld);
  EXPECT_NE(r.error().message.find("lost before unlock"), std::string::npos) << r.error().message;
  EXPECT_EQ(failure_of(*lock.last_unlock()), UnlockError::Reason::kNotHeld);
}

TEST(SimpleLock, TryLockForRetriesWithBackoffAndStopsAtTheDeadline) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 10s});
  SimpleLock lb(b, "k", {.lease = 10s, .retry_backoff_min = 2ms, .retry_backoff_max = 8ms});
  la.lock();
  const auto start = b.now();
  EXPECT_FALSE(lb.try_lock_for(37ms));
  EXPECT_EQ(b.now() - start, 37ms) << "retried up to the deadline, never past it";
  EXPECT_EQ(b.slept, 37ms);
  EXPECT_GE(b.calls.size(), 6u);   // 37 ms with sleeps of at most 8 ms
  EXPECT_LE(b.calls.size(), 38u);  // and at least 1 ms (half of the 2 ms minimum)
}

TEST(SimpleLock, TryLockForZeroMakesOneAttempt) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k"), lb(b, "k");
  la.lock();
  EXPECT_FALSE(lb.try_lock_for(0ms));
  EXPECT_EQ(b.calls.size(), 1u);
  EXPECT_EQ(b.slept, 0ms);
}

TEST(SimpleLock, TryLockForGetsTheLockOnceReleased) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 10s}), lb(b, "k", {.lease = 10s});
  la.lock();
  int attempts = 0;
  b.before_call = [&](const Argv&) {
    if (++attempts == 3) la.unlock();
  };
  EXPECT_TRUE(lb.try_lock_for(5s));
  EXPECT_EQ(attempts, 3);
  EXPECT_LT(b.slept, 1s);
  EXPECT_EQ(get(world, "k"), lb.owner());
}

TEST(SimpleLock, LockBlocksUntilTheLeaseRunsOut) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 300ms}), lb(b, "k");
  la.lock();
  lb.lock();
  EXPECT_GT(b.slept, 300ms);
  EXPECT_LE(b.slept, 400ms);  // the last sleep is at most retry_backoff_max
  EXPECT_TRUE(lb.is_held_by_current_thread());
}

TEST(SimpleLock, WorksWithStdUniqueLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k"), lb(b, "k");
  {
    std::unique_lock guard(la);
    EXPECT_TRUE(guard.owns_lock());
    std::unique_lock other(lb, std::try_to_lock);
    EXPECT_FALSE(other.owns_lock());
    std::unique_lock timed(lb, 20ms);  // TimedLockable: try_lock_for
    EXPECT_FALSE(timed.owns_lock());
  }
  EXPECT_FALSE(lb.is_locked());
  std::unique_lock guard(lb, 20ms);
  EXPECT_TRUE(guard.owns_lock());
}

TEST(SimpleLock, RejectsBadOptions) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  EXPECT_THROW(SimpleLock(a, "k", {.lease = 0ms}), std::invalid_argument);
  EXPECT_THROW(SimpleLock(a, "k", {.retry_backoff_min = 10ms, .retry_backoff_max = 1ms}),
               std::invalid_argument);
}

}  // namespace
}  // namespace redsim::lock

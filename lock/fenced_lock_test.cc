#include "lock/fenced_lock.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/lock.h"
#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(FencedLock, TokenKeySharesTheLocksSlot) {
  EXPECT_EQ(FencedLock::token_key_name("orders:42"), "redisson_lock_token:{orders:42}");
  EXPECT_EQ(FencedLock::token_key_name("{orders}:42"), "redisson_lock_token:{orders}:42");
}

TEST(FencedLock, EveryAcquisitionReentriesIncludedGetsTheNextToken) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  FencedLock lock(a, "k", {.default_lease = 10s});
  EXPECT_EQ(lock.token(), std::nullopt);
  EXPECT_EQ(lock.current_token(), 0);
  EXPECT_EQ(lock.lock_and_get_token(), 1);
  EXPECT_EQ(lock.try_lock_and_get_token(), 2) << "a re-entry gets a token too";
  EXPECT_EQ(lock.lock_and_get_token(5s), 3);
  EXPECT_EQ(lock.hold_count(), 3);
  EXPECT_EQ(lock.token(), 3);
  EXPECT_EQ(lock.current_token(), 3);
  EXPECT_EQ(run(world, {"GET", "redisson_lock_token:{k}"}), Reply::bulk("3"));
  EXPECT_EQ(run(world, {"HGETALL", "k"}),
            Reply::array({Reply::bulk("client-a:1"), Reply::bulk("3")}));
  lock.unlock();
  lock.unlock();
  lock.unlock();
  EXPECT_FALSE(lock.is_locked());
  EXPECT_EQ(lock.token(), 3) << "the token names the acquisition; unlock keeps it";
  EXPECT_EQ(run(world, {"PTTL", "redisson_lock_token:{k}"}), Reply::integer(-1))
      << "the counter never expires";
}

TEST(FencedLock, ABusyLockGivesNoTokenAndTheNextHolderAHigherOne) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  FencedLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  EXPECT_EQ(la.lock_and_get_token(), 1);
  EXPECT_EQ(lb.try_lock_and_get_token(), std::nullopt);
  EXPECT_EQ(lb.try_lock_and_get_token(100ms, 10s), std::nullopt);
  EXPECT_EQ(lb.token(), std::nullopt);
  EXPECT_EQ(lb.current_token(), 1) << "a failed attempt takes no token";
  la.unlock();
  EXPECT_EQ(lb.try_lock_and_get_token(), 2);
}

TEST(FencedLock, TheHolderAfterAnExpiredLeaseHasTheHigherToken) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  FencedLock la(a, "k", {.default_lease = 100ms}), lb(b, "k", {.default_lease = 100ms});
  const int64_t stale = la.lock_and_get_token();
  world.clock.advance_ms(101);  // a is "paused" past its lease
  const int64_t fresh = lb.lock_and_get_token();
  EXPECT_GT(fresh, stale);
  EXPECT_FALSE(la.release().has_value()) << "a's hold is gone";
  EXPECT_TRUE(lb.is_held_by_current_thread());
}

TEST(FencedLock, TasksOfOneProcessKeepTheirOwnTokens) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  FencedLock lock(a, "k", {.default_lease = 10s});
  EXPECT_EQ(lock.lock_and_get_token(), 1);
  a.set_task_id(2);
  EXPECT_EQ(lock.try_lock_and_get_token(), std::nullopt);
  EXPECT_EQ(lock.token(), std::nullopt);
  a.set_task_id(1);
  EXPECT_EQ(lock.token(), 1);
}

TEST(FencedLock, WatchdogRenewsWithoutTakingTokens) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  FencedLock lock(a, "k", {.lock_watchdog_timeout = 300ms});
  EXPECT_EQ(lock.lock_and_get_token(), 1);
  ASSERT_EQ(a.spawned.size(), 1u);
  // The watchdog task renews until the hold is gone; stop it after two rounds.
  int renewals = 0;
  a.before_wait = [&] {
    if (++renewals == 3) {
      a.set_task_id(1);  // the owner, not the watchdog task
      lock.unlock();
      a.set_task_id(1000);
    }
  };
  a.run_spawned(0, /*task=*/1000);
  a.before_wait = nullptr;
  EXPECT_GE(renewals, 3);
  EXPECT_EQ(lock.current_token(), 1);
}

TEST(FencedLock, MakeLockBuildsOne) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  auto lock = make_lock(LockKind::kFenced, a, "k", {.lease = 1s});
  EXPECT_TRUE(is_reentrant_kind(lock->kind()));
  EXPECT_EQ(lock->kind_name(), "fenced");
  ASSERT_NE(dynamic_cast<FencedLock*>(lock.get()), nullptr);
  lock->lock();
  EXPECT_EQ(dynamic_cast<FencedLock&>(*lock).token(), 1);
  EXPECT_EQ(lock->remaining_lease().ttl, 1000ms);
}

TEST(FencedLock, AWrongTypeTokenKeyIsAnUnexpectedReply) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  run(world, {"HSET", "redisson_lock_token:{k}", "f", "v"});
  FencedLock lock(a, "k", {.default_lease = 1s});
  EXPECT_THROW(lock.try_lock(), UnexpectedReply);
  EXPECT_FALSE(lock.is_locked()) << "the script failed before it wrote the lock";
}

}  // namespace
}  // namespace redsim::lock

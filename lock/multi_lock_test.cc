#include "lock/multi_lock.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/lock_test_util.h"
#include "lock/reentrant_lock.h"
#include "lock/simple_lock.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(MultiLock, TakesAllAndReleasesAll) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s});
  SimpleLock y(a, "y", {.lease = 10s});
  MultiLock both(a, {&x, &y});
  EXPECT_EQ(both.size(), 2u);
  EXPECT_TRUE(both.try_lock());
  EXPECT_TRUE(x.is_held_by_current_thread());
  EXPECT_TRUE(y.is_held_by_current_thread());
  both.unlock();
  EXPECT_FALSE(x.is_locked());
  EXPECT_FALSE(y.is_locked());
  EXPECT_EQ(failure_of(both.release()), UnlockError::Reason::kNotHeld);
}

TEST(MultiLock, AFailedAttemptReleasesWhatItTook) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock ax(a, "x", {.default_lease = 10s}), ay(a, "y", {.default_lease = 10s}),
      az(a, "z", {.default_lease = 10s});
  ReentrantLock bz(b, "z", {.default_lease = 10s});
  bz.lock();
  MultiLock all(a, {&ax, &ay, &az});
  EXPECT_FALSE(all.try_lock());
  EXPECT_FALSE(ax.is_locked()) << "x was taken, then given back";
  EXPECT_FALSE(ay.is_locked());
  EXPECT_FALSE(all.try_lock_for(500ms));
  EXPECT_FALSE(ax.is_locked());
  EXPECT_GE(a.now() - EnvTime(), Micros(500ms)) << "it waited out its budget";
  bz.unlock();
  EXPECT_TRUE(all.try_lock_for(500ms));
  EXPECT_TRUE(az.is_held_by_current_thread());
  all.unlock();
}

TEST(MultiLock, WaitsForTheLastLockAndStartsOverWhileTimeRemains) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock ax(a, "x", {.default_lease = 10s}), ay(a, "y", {.default_lease = 10s});
  ReentrantLock by(b, "y", {.default_lease = 300ms});
  ASSERT_TRUE(by.try_lock());  // b's lease frees y after 300 ms
  MultiLock both(a, {&ax, &ay});
  EXPECT_TRUE(both.try_lock_for(2s));
  EXPECT_TRUE(ax.is_held_by_current_thread());
  EXPECT_TRUE(ay.is_held_by_current_thread());
  EXPECT_GE(world.now_ms(), 300ms);
}

TEST(MultiLock, AnErrorMidwayCountsAsAFailureAndReleasesTheTakenLocks) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  world.server.execute(*world.server.connect(), {"SET", "y", "not a hash"});
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock both(a, {&x, &y});
  EXPECT_FALSE(both.try_lock()) << "RedissonMultiLock: catch (Exception e) -> lockAcquired = false";
  EXPECT_FALSE(x.is_locked());
}

TEST(MultiLock, ErrorsPropagateIsRedsimsOldBehaviour) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  world.server.execute(*world.server.connect(), {"SET", "y", "not a hash"});
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock both(a, {&x, &y}, {.errors_propagate = true});
  EXPECT_THROW(both.try_lock(), UnexpectedReply);
  EXPECT_FALSE(x.is_locked());
}

TEST(MultiLock, ALeaseReArmsEveryLockOnceAllAreTaken) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock both(a, {&x, &y});
  ASSERT_TRUE(both.try_lock_for(1s, 3s));
  EXPECT_LE(x.remaining_lease().ttl.value(), 3s);
  EXPECT_GT(x.remaining_lease().ttl.value(), 2s);
  EXPECT_LE(y.remaining_lease().ttl.value(), 3s);
  both.unlock();
}

// RedissonMultiLock.tryLock(waitTime, leaseTime, unit): each lock is taken
// with newLeaseTime (2 x waitTime with a wait, else leaseTime), then
// re-armed to leaseTime once all are taken; without a lease each keeps its own.
TEST(MultiLock, EachLockIsTakenWithTwiceTheWaitThenReArmedToTheLease) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  SimpleLock z(a, "z", {.lease = 7s});
  // The lease ARGV[1] of each reentrant_acquire (EVALSHA sha 1 key lease owner).
  std::vector<std::string> leases;
  a.before_call = [&](const Argv& argv) {
    if (argv[0] == "EVALSHA" && argv.size() == 6) leases.push_back(argv[3] + "=" + argv[4]);
  };
  MultiLock both(a, {&x, &y});
  ASSERT_TRUE(both.try_lock_for(1500ms, 3s));
  EXPECT_EQ(leases, (std::vector<std::string>{"x=3000", "y=3000"}));
  EXPECT_LE(x.remaining_lease().ttl.value(), 3s);
  both.unlock();

  leases.clear();
  ASSERT_TRUE(both.try_lock_for(4s, 1s));
  EXPECT_EQ(leases, (std::vector<std::string>{"x=8000", "y=8000"}))
      << "a lock taken early outlives the wait for the others";
  EXPECT_LE(y.remaining_lease().ttl.value(), 1s) << "then every lock is cut to the lease";
  both.unlock();

  leases.clear();
  ASSERT_TRUE(both.try_lock(2s));
  EXPECT_EQ(leases, (std::vector<std::string>{"x=2000", "y=2000"})) << "no wait: the lease";
  both.unlock();

  leases.clear();
  ASSERT_TRUE(both.try_lock_for(1s));
  EXPECT_EQ(leases, (std::vector<std::string>{"x=10000", "y=10000"})) << "no lease: their own";
  both.unlock();

  MultiLock mixed(a, {&x, &z});
  ASSERT_TRUE(mixed.try_lock_for(1s, 3s));
  EXPECT_TRUE(z.is_held_by_current_thread()) << "a kind without a per-call lease keeps its own";
  EXPECT_LE(z.remaining_lease().ttl.value(), 3s) << "and is re-armed like the others";
  mixed.unlock();
}

TEST(MultiLock, BeforeTheFixOf2172ALeaseWithoutWaitDeletesEachLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock old(a, {&x, &y}, {.lease_before_2172 = true});
  ASSERT_TRUE(old.try_lock(10s));
  EXPECT_FALSE(x.is_locked()) << "PEXPIRE -2 deleted it";
  EXPECT_FALSE(y.is_locked());
  MultiLock fixed(a, {&x, &y});
  ASSERT_TRUE(fixed.try_lock(10s));
  EXPECT_TRUE(x.is_locked());
  EXPECT_TRUE(y.is_locked());
}

TEST(MultiLock, UnlockStopsAtTheFirstLockNotHeldUnlessRedLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock both(a, {&x, &y});
  ASSERT_TRUE(both.try_lock());
  world.server.execute(*world.server.connect(), {"DEL", "x"});  // x's lease "ran out"
  EXPECT_EQ(failure_of(both.release()), UnlockError::Reason::kNotHeld);
  EXPECT_TRUE(y.is_held_by_current_thread()) << "locks.forEach(Lock::unlock) stopped at x";
  y.unlock();
  MultiLock red(a, {&x, &y}, {.red_lock = true});
  ASSERT_TRUE(red.try_lock());
  world.server.execute(*world.server.connect(), {"DEL", "x"});
  EXPECT_EQ(failure_of(red.release()), UnlockError::Reason::kNotHeld);
  EXPECT_FALSE(y.is_locked()) << "RedissonRedLock.unlock releases every lock";
}

TEST(MultiLock, RedLockNeedsAMajority) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock ax(a, "x", {.default_lease = 10s}), ay(a, "y", {.default_lease = 10s}),
      az(a, "z", {.default_lease = 10s});
  ReentrantLock bx(b, "x", {.default_lease = 10s}), by(b, "y", {.default_lease = 10s});
  ASSERT_TRUE(bx.try_lock());
  MultiLock red(a, {&ax, &ay, &az}, {.red_lock = true});
  EXPECT_TRUE(red.try_lock()) << "y and z are 2 of 3";
  EXPECT_TRUE(az.is_held_by_current_thread());
  red.unlock();
  ASSERT_TRUE(by.try_lock());
  EXPECT_FALSE(red.try_lock()) << "only z of 3";
  EXPECT_FALSE(az.is_locked()) << "the minority taken is given back";
}

TEST(MultiLock, IsLockable) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock x(a, "x", {.default_lease = 10s}), y(a, "y", {.default_lease = 10s});
  MultiLock both(a, {&x, &y});
  {
    std::scoped_lock guard(both);
    EXPECT_TRUE(x.is_locked());
    EXPECT_TRUE(y.is_locked());
  }
  EXPECT_FALSE(x.is_locked());
  EXPECT_THROW(MultiLock(a, {}), std::invalid_argument);
  EXPECT_THROW(MultiLock(a, {&x, nullptr}), std::invalid_argument);
}

}  // namespace
}  // namespace redsim::lock

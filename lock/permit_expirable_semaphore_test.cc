// PermitExpirableSemaphore on the fake (more against a real redis-server in
// real_redis_test.cc).
#include "lock/permit_expirable_semaphore.h"

#include <gtest/gtest.h>

#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(PermitExpirableSemaphore, KeysAndChannelAreRedissons) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  PermitExpirableSemaphore sem(a, "s"), tagged(a, "{s}:1");
  EXPECT_EQ(sem.timeout_key(), "{s}:timeout");
  EXPECT_EQ(sem.channel(), "redisson_sc:{s}");
  EXPECT_EQ(tagged.timeout_key(), "{s}:1:timeout");
}

TEST(PermitExpirableSemaphore, CountIsASemaphoresAndLeasesMustBePositive) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  PermitExpirableSemaphore sem(a, "s");
  EXPECT_TRUE(sem.try_set_permits(2));
  EXPECT_FALSE(sem.try_set_permits(5));
  EXPECT_EQ(sem.add_permits(1), 3);
  EXPECT_EQ(Semaphore(a, "s").available_permits(), 3);
  EXPECT_THROW(sem.try_acquire(0ms), std::invalid_argument);
  EXPECT_THROW(sem.try_acquire_for(1s, -1ms), std::invalid_argument);
  EXPECT_THROW(sem.update_lease_time("id", 0ms), std::invalid_argument);
}

// Redisson's acquire(-1) / tryAcquire() take a permit that never expires
// (nonExpirableTimeout); a lease of -1 used to be refused here.
TEST(PermitExpirableSemaphore, APermitThatNeverExpires) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  PermitExpirableSemaphore sem(a, "s");
  ASSERT_TRUE(sem.try_set_permits(1));
  const auto id = sem.try_acquire(kNeverExpires);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(run(world, {"ZSCORE", sem.timeout_key(), *id}), Reply::bulk("922337203685477"));
  world.clock.advance_ms(24 * 3600 * 1000);
  EXPECT_EQ(sem.available_permits(), 0) << "still held a day later";
  EXPECT_FALSE(sem.try_acquire(10s).has_value());
  EXPECT_TRUE(sem.try_release(*id));
  EXPECT_EQ(sem.available_permits(), 1);
}

}  // namespace
}  // namespace redsim::lock

#include "lock/semaphore.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(Semaphore, ChannelIsRedissons) {
  EXPECT_EQ(Semaphore::channel_name("s"), "redisson_sc:{s}");
  EXPECT_EQ(Semaphore::channel_name("{s}:1"), "redisson_sc:{s}:1");
}

TEST(Semaphore, TrySetPermitsOnlyOnce) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  Semaphore sem(a, "s");
  EXPECT_EQ(sem.available_permits(), 0);
  EXPECT_TRUE(sem.try_set_permits(3));
  EXPECT_FALSE(sem.try_set_permits(7));
  EXPECT_EQ(sem.available_permits(), 3);
  EXPECT_EQ(run(world, {"GET", "s"}), Reply::bulk("3"));
  EXPECT_THROW(sem.try_set_permits(-1), std::invalid_argument);
}

TEST(Semaphore, AcquireTakesAllOrNothing) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  Semaphore sa(a, "s"), sb(b, "s");
  sa.try_set_permits(3);
  EXPECT_TRUE(sa.try_acquire(2));
  EXPECT_FALSE(sb.try_acquire(2)) << "only one left";
  EXPECT_EQ(sb.available_permits(), 1) << "a failed attempt takes nothing";
  EXPECT_TRUE(sb.try_acquire());
  EXPECT_FALSE(sb.try_acquire());
  EXPECT_EQ(sa.available_permits(), 0);
  sa.release(2);
  EXPECT_EQ(sb.available_permits(), 2);
  EXPECT_THROW(sa.try_acquire(0), std::invalid_argument);
  EXPECT_THROW(sa.release(-1), std::invalid_argument);
}

TEST(Semaphore, ReleaseWakesAWaiterAndPublishesTheCount) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  Semaphore sa(a, "s"), sb(b, "s");
  sa.try_set_permits(1);
  ASSERT_TRUE(sa.try_acquire());
  int waits = 0;
  b.before_wait = [&] {
    if (++waits == 1) sa.release();
  };
  EXPECT_TRUE(sb.try_acquire_for(1, 10s));
  EXPECT_EQ(waits, 1);
  EXPECT_EQ(b.waited, 0us) << "woken by the message at once";
  EXPECT_EQ(b.active_subscriptions(), 0u) << "unsubscribed after";
  EXPECT_EQ(sb.available_permits(), 0);
}

TEST(Semaphore, AWaiterGivesUpAtItsDeadlineAndRechecksWithoutMessages) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  Semaphore sa(a, "s"), sb(b, "s", {.recheck_interval = 100ms});
  int attempts = 0;
  b.before_call = [&](const Argv& argv) { attempts += argv[0] == "EVALSHA" ? 1 : 0; };
  EXPECT_FALSE(sb.try_acquire_for(1, 350ms));
  EXPECT_EQ(b.waited, 350ms);
  // At 0 ms (twice: before and after subscribing), 100, 200 and 300 ms;
  // none at 350 ms, when the wait is over (RedissonSemaphore.tryAcquire).
  EXPECT_EQ(attempts, 5);
  b.before_call = nullptr;
  // A plain SET publishes nothing; the recheck still finds the permit.
  int waits = 0;
  b.before_wait = [&] {
    if (++waits == 2) run(world, {"SET", "s", "1"});
  };
  EXPECT_TRUE(sb.try_acquire_for(1, 10s));
  EXPECT_EQ(waits, 2);
}

// RedissonSemaphore.tryAcquire(wait): after the subscription, one attempt,
// then latch.tryAcquire(time left): no re-check without a message.
TEST(Semaphore, AWaiterWaitsForTheMessageOnlyByDefault) {
  DirectWorld world;
  DirectEnv b(world, "client-b");
  Semaphore sb(b, "s");
  int attempts = 0;
  b.before_call = [&](const Argv& argv) { attempts += argv[0] == "EVALSHA" ? 1 : 0; };
  int waits = 0;
  b.before_wait = [&] {
    if (++waits == 1) run(world, {"SET", "s", "1"});  // a plain SET: no message
  };
  EXPECT_FALSE(sb.try_acquire_for(1, 10s)) << "the permit came without a message";
  EXPECT_EQ(attempts, 2) << "before and after subscribing; none while waiting";
  EXPECT_EQ(b.waited, 10s);
}

TEST(Semaphore, AddAndDrain) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  Semaphore sem(a, "s");
  EXPECT_EQ(sem.add_permits(5), 5);
  EXPECT_EQ(sem.add_permits(-2), 3);
  EXPECT_EQ(sem.drain_permits(), 3);
  EXPECT_EQ(sem.available_permits(), 0);
  EXPECT_FALSE(sem.try_acquire());
  Semaphore absent(a, "never-set");
  EXPECT_EQ(absent.drain_permits(), 0);
  EXPECT_EQ(run(world, {"EXISTS", "never-set"}), Reply::integer(0))
      << "draining does not create the key (RedissonSemaphore.drainPermitsAsync)";
}

TEST(Semaphore, WrongTypeIsAnUnexpectedReply) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  run(world, {"HSET", "s", "f", "v"});
  Semaphore sem(a, "s");
  EXPECT_THROW(sem.try_acquire(), UnexpectedReply);
  EXPECT_THROW(sem.available_permits(), UnexpectedReply);
  EXPECT_THROW(sem.release(), UnexpectedReply);
}

}  // namespace
}  // namespace redsim::lock

#include "lock/lock_entry.h"

#include <gtest/gtest.h>

#include "lock/lock_test_util.h"
#include "lock/reentrant_lock.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

// Redisson's LockPubSub.onMessage releases one permit of the entry's latch
// for UNLOCK_MESSAGE (0): one waiter per process, where every local waiter
// used to be woken.
TEST(LockEntry, TheWaitersOfAProcessShareOneSubscriptionAndMessageZeroWakesOne) {
  DirectWorld world;
  DirectEnv b(world, "client-b");
  LockEntry first(b, "ch"), second(b, "ch");
  EXPECT_EQ(b.subscribe_calls, 1) << "the second waiter joins the first's subscription";
  run(world, {"PUBLISH", "ch", "0"});
  EXPECT_TRUE(first.wait_for(1s)) << "the one permit";
  EXPECT_FALSE(second.wait_for(1s)) << "message 0 wakes one waiter, not both";
  EXPECT_EQ(b.waited, 1s);

  run(world, {"PUBLISH", "ch", "0"});
  run(world, {"PUBLISH", "ch", "0"});
  EXPECT_TRUE(second.wait_for(1s));
  EXPECT_TRUE(first.wait_for(1s)) << "two messages, two permits";

  first.close();
  EXPECT_EQ(b.active_subscriptions(), 1u) << "the last waiter unsubscribes";
  second.close();
  EXPECT_EQ(b.active_subscriptions(), 0u);
  LockEntry again(b, "ch");
  EXPECT_EQ(b.subscribe_calls, 2) << "a new subscription once everyone left";
  again.close();
}

TEST(LockEntry, AnotherMessageWakesEveryWaiterWaitingNow) {
  DirectWorld world;
  DirectEnv b(world, "client-b");
  LockEntry first(b, "ch"), second(b, "ch");
  int waits = 0;
  b.before_wait = [&] {
    // While `first` waits, `second` waits too; READ_UNLOCK_MESSAGE (1) then
    // comes: both are released (LockPubSub: release(queueLength)).
    if (++waits == 1) {
      EXPECT_TRUE(second.wait_for(1s));
    } else if (waits == 2) {
      run(world, {"PUBLISH", "ch", "1"});
    }
  };
  EXPECT_TRUE(first.wait_for(1s));
  EXPECT_EQ(b.waited, 0s);
  b.before_wait = nullptr;
  EXPECT_FALSE(first.wait_for(1s)) << "no permit kept for message 1";
  first.close();
  second.close();
}

TEST(LockEntry, EntriesArePerProcessAndChannel) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  LockEntry ea(a, "ch"), eb(b, "ch"), other(b, "ch2");
  EXPECT_EQ(a.subscribe_calls, 1);
  EXPECT_EQ(b.subscribe_calls, 2);
  run(world, {"PUBLISH", "ch", "0"});
  EXPECT_TRUE(ea.wait_for(1s)) << "each process hears the message";
  EXPECT_TRUE(eb.wait_for(1s));
  EXPECT_FALSE(other.wait_for(1s));
  ea.close();
  eb.close();
  other.close();
}

// SemaphorePubSub.onMessage: latch.release(min(acquired(), permits)): a
// release publishing n available permits wakes at most n of the process's
// waiters, and never more than it has.
TEST(LockEntry, ASemaphoreMessageWakesAsManyWaitersAsPermitsReleased) {
  DirectWorld world;
  DirectEnv b(world, "client-b");
  using Policy = LockEntry::WakePolicy;
  LockEntry first(b, "sc", Policy::kSemaphore), second(b, "sc", Policy::kSemaphore),
      third(b, "sc", Policy::kSemaphore);
  run(world, {"PUBLISH", "sc", "2"});
  EXPECT_TRUE(first.wait_for(1s));
  EXPECT_TRUE(second.wait_for(1s));
  EXPECT_FALSE(third.wait_for(1s)) << "2 permits, 2 waiters woken";

  run(world, {"PUBLISH", "sc", "10"});
  EXPECT_TRUE(first.wait_for(1s));
  EXPECT_TRUE(second.wait_for(1s));
  EXPECT_TRUE(third.wait_for(1s));
  EXPECT_FALSE(first.wait_for(1s)) << "min(3 waiters, 10): 3 permits, not 10";

  run(world, {"PUBLISH", "sc", "0"});
  run(world, {"PUBLISH", "sc", "-1"});
  run(world, {"PUBLISH", "sc", "x"});
  EXPECT_FALSE(second.wait_for(1s)) << "no permits available: nobody wakes";
  first.close();
  second.close();
  third.close();
  EXPECT_EQ(b.active_subscriptions(), 0u);
}

}  // namespace
}  // namespace redsim::lock

// RedisPyLock against the fake server: redis-py's Lock (redis/lock.py) as
// its own tests and docstrings describe it.
#include "lock/redis_py_lock.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(RedisPyLock, AcquireSetsATokenWithTimeoutOrNone) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  RedisPyLock timed(a, "t", {.timeout = 10s});
  ASSERT_TRUE(timed.acquire());
  EXPECT_EQ(run(world, {"PTTL", "t"}), Reply::integer(10000));
  EXPECT_EQ(timed.owner().size(), 32u) << "uuid1().hex: 32 hex digits";
  EXPECT_EQ(run(world, {"GET", "t"}), Reply::bulk(timed.owner()));
  RedisPyLock forever(a, "f");
  ASSERT_TRUE(forever.acquire());
  EXPECT_EQ(run(world, {"PTTL", "f"}), Reply::integer(-1)) << "timeout None: no expiry";
  EXPECT_TRUE(forever.locked());
  EXPECT_TRUE(forever.owned());
  EXPECT_TRUE(forever.release().has_value());
  EXPECT_FALSE(forever.locked());
}

TEST(RedisPyLock, NonBlockingAndBlockingTimeout) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  RedisPyLock la(a, "k", {.timeout = 10s});
  RedisPyLock lb(b, "k", {.timeout = 10s, .sleep = 100ms, .blocking_timeout = 1050ms});
  ASSERT_TRUE(la.acquire());
  EXPECT_FALSE(lb.acquire(false, std::nullopt));
  const auto before = world.now_ms();
  EXPECT_FALSE(lb.acquire());
  // Tries at 0, 100, ..., 1000 ms; a try at 1100 would pass the deadline.
  EXPECT_EQ(world.now_ms() - before, 1000ms);
  EXPECT_FALSE(lb.owned());
}

TEST(RedisPyLock, ReleaseErrorsAreLockErrorAndLockNotOwnedError) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  RedisPyLock la(a, "k", {.timeout = 1s});
  const UnlockResult never = la.release();
  ASSERT_FALSE(never);
  EXPECT_EQ(never.error().message.rfind("LockError: Cannot release a lock that's not owned", 0), 0u)
      << never.error().message;
  ASSERT_TRUE(la.acquire());
  world.clock.advance_us(1001 * 1000);
  RedisPyLock lb(b, "k", {.timeout = 1s});
  ASSERT_TRUE(lb.acquire());
  const UnlockResult lost = la.release();
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().message.rfind("LockNotOwnedError: Cannot release a lock that's no longer "
                                       "owned",
                                       0),
            0u);
  EXPECT_TRUE(lb.owned()) << "the other holder's key is untouched";
  EXPECT_EQ(la.owner(), "") << "LockNotOwnedError clears the token";
}

TEST(RedisPyLock, ExtendAddsOrReplacesTheTtl) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  RedisPyLock lk(a, "k", {.timeout = 10s});
  EXPECT_EQ(lk.extend(1s).error().message.rfind("LockError: Cannot extend an unlocked lock", 0),
            0u);
  ASSERT_TRUE(lk.acquire());
  world.clock.advance_us(4000 * 1000);
  ASSERT_TRUE(lk.extend(5s));
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(11000)) << "6000 left + 5000";
  ASSERT_TRUE(lk.extend(3s, true));
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(3000)) << "replace_ttl";
  ASSERT_TRUE(lk.reacquire());
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(10000)) << "back to the timeout";
  run(world, {"PERSIST", "k"});
  EXPECT_FALSE(lk.extend(1s)) << "no TTL: the script answers 0";
  run(world, {"SET", "k", "other"});
  const UnlockResult gone = lk.reacquire();
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().message.rfind("LockNotOwnedError: Cannot reacquire", 0), 0u);
  RedisPyLock untimed(a, "u");
  ASSERT_TRUE(untimed.acquire());
  EXPECT_EQ(untimed.extend(1s).error().message.rfind(
                "LockError: Cannot extend a lock with no timeout", 0),
            0u);
  EXPECT_EQ(untimed.reacquire().error().message.rfind(
                "LockError: Cannot reacquire a lock with no timeout", 0),
            0u);
}

// thread_local=True: each task sees its own token; False: the object's one,
// so a task releases what another task of the process acquired (redis-py#416).
TEST(RedisPyLock, TokenPerTaskOrShared) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  RedisPyLock per_task(a, "p", {.timeout = 10s});
  a.set_task_id(1);
  ASSERT_TRUE(per_task.acquire());
  a.set_task_id(2);
  EXPECT_FALSE(per_task.owned());
  EXPECT_EQ(failure_of(per_task.release()), UnlockError::Reason::kNotHeld);
  EXPECT_TRUE(per_task.locked());
  RedisPyLock shared(a, "s", {.timeout = 10s, .thread_local_token = false});
  a.set_task_id(1);
  ASSERT_TRUE(shared.acquire());
  a.set_task_id(2);
  EXPECT_TRUE(shared.owned());
  EXPECT_TRUE(shared.release().has_value());
  EXPECT_FALSE(shared.locked());
}

// redis-py#4258: the token survives a release that met a connection error,
// so release() can be called again; before it, the token was already gone.
TEST(RedisPyLock, FailedReleaseKeepsTheTokenUnlessClearedBefore) {
  for (bool clear_before : {false, true}) {
    DirectWorld world;
    DirectEnv a(world, "client-a");
    RedisPyLock lk(a, "k", {.clear_token_before_release = clear_before});
    ASSERT_TRUE(lk.acquire());
    a.before_call = [](const Argv&) { throw TimeoutError("injected: no reply"); };
    EXPECT_EQ(failure_of(lk.release()), UnlockError::Reason::kConnection);
    a.before_call = nullptr;
    const UnlockResult again = lk.release();
    EXPECT_EQ(again.has_value(), !clear_before) << "clear_before=" << clear_before;
    EXPECT_EQ(run(world, {"EXISTS", "k"}), Reply::integer(clear_before ? 1 : 0))
        << "clear_before=" << clear_before << ": the lock without timeout stays forever";
  }
}

}  // namespace
}  // namespace redsim::lock

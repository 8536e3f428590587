#include "lock/spin_lock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(SpinLock, IsReentrantAndPublishesNothing) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SpinLock lk(a, "k", {.default_lease = 10s});
  EXPECT_EQ(lk.kind(), LockKind::kSpin);
  DirectEnv b(world, "client-b");
  int messages = 0;
  b.subscribe("redisson_lock__channel:{k}", [&](const std::string&) { ++messages; });
  ASSERT_TRUE(lk.try_lock());
  ASSERT_TRUE(lk.try_lock());
  EXPECT_EQ(lk.hold_count(), 2);
  lk.unlock();
  lk.unlock();
  EXPECT_FALSE(lk.is_locked());
  EXPECT_EQ(messages, 0) << "RedissonSpinLock.unlockInnerAsync publishes nothing";
  ReentrantLock plain(a, "k", {.default_lease = 10s});
  ASSERT_TRUE(plain.try_lock());
  plain.unlock();
  EXPECT_EQ(messages, 1) << "where RedissonLock's unlock does";
  ASSERT_TRUE(lk.try_lock());
  EXPECT_TRUE(lk.force_unlock());
  EXPECT_EQ(messages, 1) << "nor does its force unlock";
}

// RedissonSpinLock.unlockInnerAsync always reads and writes the unlock
// latch, redisson_unlock_latch:{<key>}:<request id>, with the result.
TEST(SpinLock, UnlocksThroughTheUnlockLatchByDefault) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SpinLock lk(a, "k", {.default_lease = 10s});
  ASSERT_TRUE(lk.try_lock());
  ASSERT_TRUE(lk.release());
  EXPECT_EQ(unlock_latches(world), 0u) << "each unlock DELs its latch after the reply";
  lose_unlock_latch_dels(a);
  ASSERT_TRUE(lk.try_lock());
  ASSERT_TRUE(lk.try_lock());
  ASSERT_TRUE(lk.release());
  ASSERT_TRUE(lk.release());
  const Reply keys = run(world, {"KEYS", "redisson_unlock_latch:{k}:*"});
  ASSERT_EQ(keys.elements().size(), 2u) << "one latch per unlock request";
  std::vector<std::string> results;
  for (const Reply& key : keys.elements()) results.push_back(run(world, {"GET", key.str()}).str());
  std::sort(results.begin(), results.end());
  EXPECT_EQ(results, (std::vector<std::string>{"0", "1"}));
  EXPECT_FALSE(lk.is_locked());

  run(world, {"FLUSHALL"});
  SpinLock without(a, "k", {.default_lease = 10s, .unlock_latch = false});
  ASSERT_TRUE(without.try_lock());
  ASSERT_TRUE(without.release());
  EXPECT_EQ(run(world, {"KEYS", "redisson_unlock_latch:*"}).elements().size(), 0u);
}

// RedissonSpinLock.tryLock: no subscription; sleeps 1, 2+j, 4+j, ... ms
// (ExponentialBackOffPolicy, jitter j in [0, failures)) up to 128 ms.
TEST(SpinLock, AWaiterBacksOffExponentiallyWithoutSubscribing) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SpinLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  ASSERT_TRUE(la.try_lock());
  int attempts = 0;
  b.before_call = [&](const Argv& argv) { attempts += argv[0] == "EVALSHA" ? 1 : 0; };
  const EnvTime start = b.now();
  EXPECT_FALSE(lb.try_lock_for(1s));
  EXPECT_EQ(b.subscribe_calls, 0);
  EXPECT_EQ(b.waited, 0s) << "it sleeps; it waits on no event";
  EXPECT_GE(b.now() - start, 1s);
  // 1 + 2 + 4 + ... + 64 = 127 ms in 8 sleeps (jitter adds at most 28 ms),
  // then 128 ms each: about 15 attempts in 1 s, never one per ms.
  EXPECT_GE(attempts, 12);
  EXPECT_LE(attempts, 17);
  la.unlock();
  EXPECT_TRUE(lb.try_lock_for(1s));
  EXPECT_THROW(SpinLock(a, "k", {}, {.initial = 0ms}), std::invalid_argument);
}

}  // namespace
}  // namespace redsim::lock

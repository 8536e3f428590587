// The lock tests that need no injected fault, written once and run against
// both worlds (two_worlds_test_util.h) with identical assertions.
#include <gtest/gtest.h>

#include <mutex>

#include "lock/errors.h"
#include "lock/hiredis/two_worlds_test_util.h"
#include "lock/lock_test_util.h"
#include "lock/reentrant_lock.h"
#include "lock/simple_lock.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using testing_util::await;
using testing_util::expect_three_holds_unwind;
using testing_util::failure_of;
using testing_util::RealLockWorld;
using testing_util::signal;
using testing_util::SimLockWorld;

template <class W>
class LockSuite : public ::testing::Test {};

struct WorldName {
  template <class W>
  static std::string GetName(int) {
    return W::kName;
  }
};
using Worlds = ::testing::Types<SimLockWorld, RealLockWorld>;
TYPED_TEST_SUITE(LockSuite, Worlds, WorldName);

const ReentrantLockOptions kTenSeconds{.lock_watchdog_timeout = 30s, .default_lease = 10s};

TYPED_TEST(LockSuite, ReentrancyAndHoldCounts) {
  TypeParam world;
  std::string owner;
  world.run({[&](Env& env) {
    ReentrantLock lock(env, "k", kTenSeconds);
    lock.lock();
    lock.lock();
    EXPECT_TRUE(lock.try_lock());
    EXPECT_EQ(lock.hold_count(), 3);
    owner = lock.owner();
    EXPECT_EQ(owner, env.client_id() + ":" + std::to_string(env.task_id()));
    signal(env, "held");
    expect_three_holds_unwind(lock);
  }});
  EXPECT_EQ(world.redis({"EXISTS", "k"}), Reply::integer(0));
  EXPECT_EQ(world.redis({"EXISTS", "held"}), Reply::integer(1));
}

TYPED_TEST(LockSuite, HashHoldsOwnerAndHoldCount) {
  TypeParam world;
  Reply seen;
  std::string owner;
  world.run({[&](Env& env) {
    ReentrantLock lock(env, "k", kTenSeconds);
    lock.lock();
    lock.lock();
    owner = lock.owner();
    seen = env.connection().call({"HGETALL", "k"});
    const Reply pttl = env.connection().call({"PTTL", "k"});
    EXPECT_GT(pttl.integer(), 9000);
    EXPECT_LE(pttl.integer(), 10000);
  }});
  EXPECT_EQ(seen, Reply::array({Reply::bulk(owner), Reply::bulk("2")}));
}

TYPED_TEST(LockSuite, OtherOwnerIsRefusedAndItsUnlockIsNotHeld) {
  TypeParam world;
  world.run({[](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               lock.lock();
               signal(env, "held");
               ASSERT_TRUE(await(env, "checked"));
               EXPECT_EQ(lock.hold_count(), 1) << "the refused unlock left the lock alone";
               lock.unlock();
             },
             [](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               ASSERT_TRUE(await(env, "held"));
               EXPECT_FALSE(lock.try_lock());
               EXPECT_TRUE(lock.is_locked());
               EXPECT_FALSE(lock.is_held_by_current_thread());
               EXPECT_EQ(lock.hold_count(), 0);
               lock.unlock();  // throws nothing; the outcome is kept
               const auto last = lock.last_unlock();
               ASSERT_TRUE(last.has_value());
               ASSERT_FALSE(last->has_value());
               EXPECT_EQ(last->error().message,
                         "attempt to unlock lock, not locked by current thread by node id: " +
                             env.client_id() + " thread-id: " + std::to_string(env.task_id()));
               EXPECT_FALSE(lock.release().has_value());
               signal(env, "checked");
             }});
  EXPECT_EQ(world.redis({"EXISTS", "k"}), Reply::integer(0));
}

TYPED_TEST(LockSuite, ForceUnlockDeletesAnyonesLock) {
  TypeParam world;
  world.run({[](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               lock.lock();
               lock.lock();
               signal(env, "held");
               ASSERT_TRUE(await(env, "forced"));
               EXPECT_FALSE(lock.is_locked());
               EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
             },
             [](Env& env) {
               ReentrantLock lock(env, "k");
               ASSERT_TRUE(await(env, "held"));
               EXPECT_TRUE(lock.force_unlock());
               EXPECT_FALSE(lock.force_unlock()) << "nothing left to delete";
               signal(env, "forced");
             }});
}

TYPED_TEST(LockSuite, UnlockMessageWakesTheWaiter) {
  TypeParam world;
  Micros waited{0};
  bool acquired = false;
  world.run({[](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               lock.lock();
               signal(env, "held");
               env.sleep_for(200ms);
               lock.unlock();
             },
             [&](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               ASSERT_TRUE(await(env, "held"));
               const auto start = env.now();
               acquired = lock.try_lock_for(20s);
               waited = env.now() - start;
               EXPECT_TRUE(lock.is_held_by_current_thread());
               lock.unlock();
             }});
  EXPECT_TRUE(acquired);
  // The holder's lease is 10 s: taking the lock well before it shows the
  // unlock message woke the waiter (without it the waiter sleeps a PTTL).
  EXPECT_LT(waited, Micros(5s));
}

TYPED_TEST(LockSuite, WatchdogRenewsAndStopsOnUnlock) {
  TypeParam world;
  world.run({[](Env& env) {
    ReentrantLock lock(env, "k", {.lock_watchdog_timeout = 300ms});
    lock.lock();  // no lease: the watchdog renews every 100 ms
    env.sleep_for(1000ms);
    EXPECT_TRUE(lock.is_held_by_current_thread()) << "renewed past three leases";
    const auto left = lock.remaining_lease().ttl.value_or(0ms);
    EXPECT_GT(left, 0ms);
    EXPECT_LE(left, 300ms);
    const std::string owner = lock.owner();
    lock.unlock();
    EXPECT_FALSE(lock.is_locked());
    // A key that looks like our lock again: a watchdog still running would
    // renew it (its renewal only checks the owner field).
    env.connection().call({"HSET", "k", owner, "1"});
    env.connection().call({"PEXPIRE", "k", "200"});
    env.sleep_for(400ms);
    EXPECT_EQ(env.connection().call({"EXISTS", "k"}), Reply::integer(0))
        << "the watchdog stopped on unlock";
  }});
}

TYPED_TEST(LockSuite, ReentrantLockExpiresAfterItsLease) {
  TypeParam world;
  world.run({[](Env& env) {
               ReentrantLock lock(env, "k");
               lock.lock(300ms);
               signal(env, "held");
               env.sleep_for(500ms);
               EXPECT_FALSE(lock.is_held_by_current_thread());
               EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
             },
             [](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               ASSERT_TRUE(await(env, "held"));
               EXPECT_FALSE(lock.try_lock());
               EXPECT_TRUE(lock.try_lock_for(5s)) << "free once the lease ran out";
               lock.unlock();
             }});
}

TYPED_TEST(LockSuite, SimpleLockExpiresAfterItsLease) {
  TypeParam world;
  world.run({[](Env& env) {
               SimpleLock lock(env, "k", {.lease = 300ms});
               lock.lock();
               EXPECT_TRUE(lock.is_held_by_current_thread());
               signal(env, "held");
               env.sleep_for(500ms);
               EXPECT_FALSE(lock.is_locked());
               EXPECT_EQ(lock.remaining_lease(), RemainingLease{});
               EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
             },
             [](Env& env) {
               SimpleLock lock(env, "k", {.lease = 10s});
               ASSERT_TRUE(await(env, "held"));
               EXPECT_FALSE(lock.try_lock());
               EXPECT_TRUE(lock.try_lock_for(5s));
               lock.unlock();
             }});
}

TYPED_TEST(LockSuite, SimpleLockRefusesOthersAndTheirUnlock) {
  TypeParam world;
  world.run({[](Env& env) {
               SimpleLock lock(env, "k", {.lease = 10s});
               EXPECT_TRUE(lock.try_lock());
               signal(env, "held");
               ASSERT_TRUE(await(env, "checked"));
               EXPECT_TRUE(lock.is_held_by_current_thread());
               lock.unlock();
               EXPECT_FALSE(lock.is_locked());
             },
             [](Env& env) {
               SimpleLock lock(env, "k", {.lease = 10s});
               ASSERT_TRUE(await(env, "held"));
               EXPECT_FALSE(lock.try_lock());
               EXPECT_FALSE(lock.is_held_by_current_thread());
               EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
               signal(env, "checked");
             }});
}

TYPED_TEST(LockSuite, WorksWithStdUniqueLock) {
  TypeParam world;
  world.run({[](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               {
                 std::unique_lock guard(lock);
                 std::unique_lock again(lock);  // reentrant
                 EXPECT_EQ(lock.hold_count(), 2);
                 signal(env, "held");
                 ASSERT_TRUE(await(env, "checked"));
               }
               EXPECT_FALSE(lock.is_locked());
               signal(env, "released");
             },
             [](Env& env) {
               ReentrantLock lock(env, "k", kTenSeconds);
               ASSERT_TRUE(await(env, "held"));
               {
                 std::unique_lock other(lock, 50ms);
                 EXPECT_FALSE(other.owns_lock());
                 std::unique_lock tried(lock, std::try_to_lock);
                 EXPECT_FALSE(tried.owns_lock());
               }
               signal(env, "checked");
               ASSERT_TRUE(await(env, "released"));
               std::unique_lock guard(lock, std::try_to_lock);
               EXPECT_TRUE(guard.owns_lock());
             }});
  EXPECT_EQ(world.redis({"EXISTS", "k"}), Reply::integer(0));
}

// 8 clients, 200 critical sections each, every one a non-atomic
// read-modify-write of a Redis counter (GET, then SET): only mutual exclusion
// makes the final count exact.
template <class W, class MakeLock>
void count_under_contention(MakeLock make_lock) {
  constexpr int kClients = 8, kSections = 200;
  W world;
  std::vector<testing_util::Body> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back([&](Env& env) {
      auto lock = make_lock(env);
      for (int i = 0; i < kSections; ++i) {
        std::unique_lock guard(*lock);
        const Reply value = env.connection().call({"GET", "counter"});
        const int64_t n = value.is_bulk() ? std::stoll(value.str()) : 0;
        env.connection().call({"SET", "counter", std::to_string(n + 1)});
      }
    });
  }
  world.run(std::move(clients));
  EXPECT_EQ(world.redis({"GET", "counter"}), Reply::bulk(std::to_string(kClients * kSections)));
}

TYPED_TEST(LockSuite, SimpleLockCounterIsExactUnderContention) {
  count_under_contention<TypeParam>([](Env& env) {
    return std::make_unique<SimpleLock>(
        env, "k", LockOptions{.lease = 10s, .retry_backoff_min = 1ms, .retry_backoff_max = 8ms});
  });
}

TYPED_TEST(LockSuite, ReentrantLockCounterIsExactUnderContention) {
  count_under_contention<TypeParam>(
      [](Env& env) { return std::make_unique<ReentrantLock>(env, "k", kTenSeconds); });
}

}  // namespace
}  // namespace redsim::lock

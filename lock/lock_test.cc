#include "lock/lock.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "lock/errors.h"
#include "lock/fair_lock.h"
#include "lock/lock_test_util.h"
#include "lock/read_write_lock.h"
#include "lock/redlock.h"
#include "lock/reentrant_lock.h"
#include "lock/simple_lock.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(LockKind, NamesRoundTrip) {
  EXPECT_EQ(all_lock_kinds().size(), 12u);
  for (LockKind kind : all_lock_kinds()) {
    EXPECT_EQ(parse_lock_kind(lock_kind_name(kind)), kind);
  }
  EXPECT_EQ(parse_lock_kind("get-del"), LockKind::kGetDel);
  EXPECT_EQ(lock_kind_name(LockKind::kSetnxExpire), "setnx-expire");
  EXPECT_EQ(parse_lock_kind("GET-DEL"), std::nullopt);
  EXPECT_EQ(parse_lock_kind("redlock"), LockKind::kRedlock);
  EXPECT_EQ(parse_lock_kind("fair"), LockKind::kFair);
  EXPECT_EQ(parse_lock_kind("Fair"), std::nullopt);
  EXPECT_EQ(parse_lock_kind("spin"), LockKind::kSpin);
}

TEST(MakeLock, RejectsAZeroLeaseForStringKinds) {
  DirectWorld world;
  DirectEnv env(world, "client-a");
  for (LockKind kind :
       {LockKind::kSimple, LockKind::kSetnxExpire, LockKind::kGetDel, LockKind::kBlindDel,
        LockKind::kRedlock, LockKind::kRedisPy, LockKind::kNodeRedlock}) {
    EXPECT_THROW(make_lock(kind, env, "k", {.lease = 0ms}), std::invalid_argument);
    EXPECT_THROW(make_lock(kind, env, "k", {.lease = kWatchdog}), std::invalid_argument);
  }
  EXPECT_THROW(make_lock(LockKind::kReentrant, env, "k", {.lease = 0ms}), std::invalid_argument)
      << "no sentinel: a zero lease is an error, not the watchdog";
  auto reentrant = make_lock(LockKind::kReentrant, env, "k", {.lease = kWatchdog});
  reentrant->lock();
  EXPECT_EQ(env.spawned.size(), 1u) << "kWatchdog means the watchdog";
}

// Redisson's lock() without a leaseTime uses the watchdog (RedissonLock.lock
// -> tryAcquireAsync(leaseTime -1) -> lockWatchdogTimeout, renewed); so does
// make_lock for the reentrant kinds unless a lease is given. It used to give
// them a fixed 30 s lease and no watchdog.
TEST(MakeLock, ReentrantKindsGetTheWatchdogUnlessALeaseIsGiven) {
  for (LockKind kind : {LockKind::kReentrant, LockKind::kFenced, LockKind::kReadWrite,
                        LockKind::kFair, LockKind::kSpin}) {
    DirectWorld world;
    DirectEnv env(world, "client-a");
    auto watched = make_lock(kind, env, "k", {.lock_watchdog_timeout = 9s});
    watched->lock();
    EXPECT_EQ(env.spawned.size(), 1u) << lock_kind_name(kind) << ": the watchdog";
    EXPECT_EQ(watched->remaining_lease().ttl, 9s) << lock_kind_name(kind);
    watched->unlock();
    auto leased = make_lock(kind, env, "k2", {.lease = 30s, .lock_watchdog_timeout = 9s});
    leased->lock();
    EXPECT_EQ(env.spawned.size(), 1u) << lock_kind_name(kind) << ": a given lease, no watchdog";
    EXPECT_EQ(leased->remaining_lease().ttl, 30s) << lock_kind_name(kind);
  }
  DirectWorld world;
  DirectEnv env(world, "client-a");
  auto simple = make_lock(LockKind::kSimple, env, "k");
  simple->lock();
  EXPECT_EQ(simple->remaining_lease().ttl, LockOptions::kStringLease) << "string kinds: 30 s";
}

class EveryKind : public ::testing::TestWithParam<LockKind> {};

TEST_P(EveryKind, ExcludesThenHandsOver) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  auto la = make_lock(GetParam(), a, "k", {.lease = 10s});
  auto lb = make_lock(GetParam(), b, "k", {.lease = 10s});
  EXPECT_EQ(la->kind(), GetParam());
  EXPECT_EQ(la->kind_name(), lock_kind_name(GetParam()));
  EXPECT_EQ(la->key(), "k");

  EXPECT_EQ(la->owner().empty(), !is_reentrant_kind(GetParam()));
  la->lock();
  EXPECT_FALSE(la->owner().empty());
  EXPECT_TRUE(la->is_held_by_current_thread());
  EXPECT_FALSE(lb->try_lock());
  EXPECT_FALSE(lb->try_lock_for(100ms));
  EXPECT_FALSE(lb->is_held_by_current_thread());
  EXPECT_EQ(la->remaining_lease().ttl, 9900ms);
  la->unlock();
  EXPECT_FALSE(la->is_locked());
  {
    std::unique_lock guard(*lb, 1s);
    EXPECT_TRUE(guard.owns_lock());
    EXPECT_TRUE(la->is_locked());
  }
  EXPECT_FALSE(lb->is_locked());
  if (GetParam() == LockKind::kFair) {
    EXPECT_TRUE(lb->release().has_value()) << "RedissonFairLock: a gone lock unlocks normally";
  } else {
    EXPECT_EQ(failure_of(lb->release()), UnlockError::Reason::kNotHeld);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryKind,
                         ::testing::ValuesIn(all_lock_kinds().begin(), all_lock_kinds().end()),
                         [](const auto& info) {
                           std::string name(lock_kind_name(info.param));
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace redsim::lock

namespace redsim::lock {
namespace {

// Movable, not copyable: a copy would share one token or one watchdog.
static_assert(!std::is_copy_constructible_v<SimpleLock> &&
              std::is_move_constructible_v<SimpleLock>);
static_assert(!std::is_copy_constructible_v<ReentrantLock> &&
              std::is_move_constructible_v<ReentrantLock>);
static_assert(!std::is_copy_constructible_v<FairLock> && std::is_move_constructible_v<FairLock>);
static_assert(!std::is_copy_constructible_v<Redlock> && std::is_move_constructible_v<Redlock>);
static_assert(!std::is_copy_constructible_v<ReadWriteLock> &&
              std::is_move_constructible_v<ReadWriteLock>);

TEST(LockTime, TryLockUntilWaitsUntilTheDeadlineOnTheEnvClock) {
  testing_util::DirectWorld world;
  testing_util::DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = std::chrono::seconds(10)});
  SimpleLock lb(b, "k", {.lease = std::chrono::seconds(10)});
  ASSERT_TRUE(la.try_lock());
  const EnvTime start = b.now();
  EXPECT_FALSE(lb.try_lock_until(start - std::chrono::seconds(1))) << "past: one attempt";
  EXPECT_EQ(b.now(), start);
  EXPECT_FALSE(lb.try_lock_until(start + std::chrono::milliseconds(300)));
  EXPECT_EQ(b.now(), start + std::chrono::milliseconds(300)) << "it slept up to the deadline";
}

TEST(LockTime, MovedLockReleasesWhatTheOriginalTook) {
  testing_util::DirectWorld world;
  testing_util::DirectEnv a(world, "client-a");
  SimpleLock first(a, "k", {.lease = std::chrono::seconds(10)});
  ASSERT_TRUE(first.try_lock());
  SimpleLock moved(std::move(first));
  EXPECT_TRUE(moved.release().has_value());
  EXPECT_FALSE(moved.is_locked());
}

}  // namespace
}  // namespace redsim::lock

// The broken variants do what the articles say, driven step by step.
#include <gtest/gtest.h>

#include "lock/blind_del_lock.h"
#include "lock/errors.h"
#include "lock/get_del_lock.h"
#include "lock/lock_test_util.h"
#include "lock/setnx_expire_lock.h"
#include "lock/simple_lock.h"

namespace redsim::lock {
namespace {

using namespace testing_util;
using world::SimulatedCrash;

// --- SetnxExpireLock (seed 004, error example 1) ---

TEST(SetnxExpireLock, AcquiresWithTwoCommands) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SetnxExpireLock lock(a, "k", {.lease = 10s});
  ASSERT_TRUE(lock.try_lock());
  ASSERT_EQ(a.calls.size(), 2u);
  EXPECT_EQ(a.calls[0], (Argv{"SETNX", "k", lock.owner()}));
  EXPECT_EQ(a.calls[1], (Argv{"PEXPIRE", "k", "10000"}));
  EXPECT_EQ(lock.remaining_lease().ttl, 10000ms);
  lock.unlock();
  EXPECT_FALSE(lock.is_locked());
}

TEST(SetnxExpireLock, CrashBetweenSetnxAndExpireLeavesALockThatNeverExpires) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SetnxExpireLock la(a, "k", {.lease = 1000ms}), lb(b, "k", {.lease = 1000ms});
  a.before_call = [](const Argv& argv) {
    if (argv[0] == "PEXPIRE") throw SimulatedCrash{};  // the process dies here
  };
  EXPECT_THROW(la.try_lock(), SimulatedCrash);  // not swallowed by lock code
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(-1));

  world.clock.advance_ms(100 * 1000);  // a hundred leases later
  EXPECT_EQ(lb.remaining_lease(), RemainingLease::from_pttl(-1));
  EXPECT_FALSE(lb.try_lock_for(5s));  // nobody ever gets it: the liveness failure
  EXPECT_TRUE(lb.is_locked());
}

TEST(SetnxExpireLock, ConnectionErrorOnExpirePropagatesAndLeavesTheKeySet) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  SetnxExpireLock lock(a, "k");
  a.before_call = [](const Argv& argv) {
    if (argv[0] == "PEXPIRE") throw IoError("connection reset");
  };
  EXPECT_THROW(lock.lock(), IoError);
  EXPECT_FALSE(lock.believes_held());
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(-1));
}

TEST(SimpleLock, TheSameCrashPointDoesNotExistForSetNxPx) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  SimpleLock la(a, "k", {.lease = 1000ms}), lb(b, "k", {.lease = 1000ms});
  ASSERT_TRUE(la.try_lock());
  ASSERT_EQ(a.calls.size(), 1u) << "one command, so no crash point between set and expiry";
  EXPECT_GT(run(world, {"PTTL", "k"}).integer(), 0);
  world.clock.advance_ms(1001);  // the holder "crashed": its lease runs out
  EXPECT_TRUE(lb.try_lock());
}

// --- GetDelLock (seed 004 wrongUnLock1, seed 003 unlock, seed 002's race) ---

TEST(GetDelLock, ReleasesItsOwnLockWithGetThenDel) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  GetDelLock lock(a, "k");
  lock.lock();
  a.calls.clear();
  lock.unlock();
  ASSERT_EQ(a.calls.size(), 2u);
  EXPECT_EQ(a.calls[0], (Argv{"GET", "k"}));
  EXPECT_EQ(a.calls[1], (Argv{"DEL", "k"}));
  EXPECT_FALSE(lock.is_locked());
}

TEST(GetDelLock, ExpireBetweenGetAndDelDeletesAnothersLock) {
  DirectWorld world;
  Race<GetDelLock> race(world, {.lease = 1000ms});
  auto& [a, b, c, la, lb, lc] = race;
  la.lock();
  a.before_call = [&](const Argv& argv) {
    if (argv[0] != "DEL") return;
    // Between A's GET (it matched) and A's DEL: A's lease runs out, B acquires.
    world.clock.advance_ms(1001);
    ASSERT_TRUE(lb.try_lock());
  };
  EXPECT_TRUE(la.release().has_value()) << "A believes it released its own lock";
  EXPECT_TRUE(lb.believes_held());
  EXPECT_FALSE(lb.is_locked()) << "A's DEL removed B's lock";
  EXPECT_TRUE(lc.try_lock()) << "so C enters while B is inside: two holders";
  EXPECT_EQ(run(world, {"GET", "k"}).str(), lc.owner());
  EXPECT_EQ(failure_of(lb.release()), UnlockError::Reason::kNotHeld);  // B finds its lock gone
}

TEST(GetDelLock, GetShowingAnotherTokenDoesNotDelete) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  GetDelLock la(a, "k", {.lease = 1000ms}), lb(b, "k", {.lease = 1000ms});
  la.lock();
  world.clock.advance_ms(1001);
  ASSERT_TRUE(lb.try_lock());
  EXPECT_EQ(failure_of(la.release()), UnlockError::Reason::kNotHeld);
  EXPECT_TRUE(lb.is_held_by_current_thread());
}

TEST(SimpleLock, TheExpireThenDeleteScheduleIsSafe) {
  DirectWorld world;
  Race<SimpleLock> race(world, {.lease = 1000ms});
  auto& [a, b, c, la, lb, lc] = race;
  la.lock();
  a.before_call = [&](const Argv&) {
    // The whole release is one script: the latest the expiry can land is before it.
    world.clock.advance_ms(1001);
    ASSERT_TRUE(lb.try_lock());
  };
  EXPECT_FALSE(la.release().has_value());
  EXPECT_TRUE(lb.is_held_by_current_thread());
  EXPECT_FALSE(lc.try_lock());
}

// --- BlindDelLock (seeds 002 and 003: deleting someone else's lock) ---

TEST(BlindDelLock, UnlockAfterExpiryDeletesTheNextHoldersLock) {
  DirectWorld world;
  Race<BlindDelLock> race(world, {.lease = 1000ms});
  auto& [a, b, c, la, lb, lc] = race;
  la.lock();
  world.clock.advance_ms(1001);
  ASSERT_TRUE(lb.try_lock());
  a.calls.clear();
  EXPECT_NO_THROW(la.unlock()) << "blind: it cannot tell";
  EXPECT_EQ(a.calls, (std::vector<Argv>{{"DEL", "k"}}));
  EXPECT_TRUE(lc.try_lock()) << "B's lock is gone: C enters beside B";
  EXPECT_TRUE(lb.believes_held());
}

}  // namespace
}  // namespace redsim::lock

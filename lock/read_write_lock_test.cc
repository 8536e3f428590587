#include "lock/read_write_lock.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/lock_test_util.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(ReadWriteLock, ChannelIsRedissons) {
  EXPECT_EQ(ReadWriteLock::channel_name("orders"), "redisson_rwlock:{orders}");
  EXPECT_EQ(ReadWriteLock::channel_name("{o}:1"), "redisson_rwlock:{o}:1");
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock rw(a, "orders");
  EXPECT_EQ(rw.read_lock().channel(), "redisson_rwlock:{orders}");
  EXPECT_EQ(rw.write_lock().channel(), "redisson_rwlock:{orders}");
}

TEST(ReadWriteLock, ReadersShareAndKeepWritersOut) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b"), c(world, "client-c");
  ReadWriteLock ra(a, "k", {.default_lease = 10s}), rb(b, "k", {.default_lease = 10s}),
      rc(c, "k", {.default_lease = 10s});
  ra.read_lock().lock();
  ra.read_lock().lock();
  EXPECT_TRUE(rb.read_lock().try_lock());
  EXPECT_EQ(ra.mode(), "read");
  EXPECT_EQ(run(world, {"HGETALL", "k"}),
            Reply::array({Reply::bulk("mode"), Reply::bulk("read"), Reply::bulk("client-a:1"),
                          Reply::bulk("2"), Reply::bulk("client-b:1"), Reply::bulk("1")}));
  EXPECT_EQ(ra.read_lock().hold_count(), 2);
  EXPECT_FALSE(rc.write_lock().try_lock());
  EXPECT_FALSE(rc.write_lock().try_lock_for(200ms));
  ra.read_lock().unlock();
  ra.read_lock().unlock();
  EXPECT_FALSE(rc.write_lock().try_lock()) << "b still reads";
  rb.read_lock().unlock();
  EXPECT_EQ(ra.mode(), std::nullopt);
  EXPECT_TRUE(rc.write_lock().try_lock());
  EXPECT_EQ(rc.mode(), "write");
  EXPECT_TRUE(rc.write_lock().is_held_by_current_thread());
  EXPECT_FALSE(rc.read_lock().is_held_by_current_thread());
}

TEST(ReadWriteLock, AWriterKeepsEveryoneElseOut) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReadWriteLock ra(a, "k", {.default_lease = 10s}), rb(b, "k", {.default_lease = 10s});
  ra.write_lock().lock();
  ra.write_lock().lock();
  EXPECT_EQ(ra.write_lock().hold_count(), 2);
  EXPECT_EQ(run(world, {"HGET", "k", "client-a:1:write"}), Reply::bulk("2"));
  EXPECT_FALSE(rb.read_lock().try_lock());
  EXPECT_FALSE(rb.write_lock().try_lock());
  a.set_task_id(2);  // another task of the same process is another owner
  EXPECT_FALSE(ra.read_lock().try_lock());
  a.set_task_id(1);
  ra.write_lock().unlock();
  EXPECT_FALSE(rb.read_lock().try_lock());
  ra.write_lock().unlock();
  EXPECT_TRUE(rb.read_lock().try_lock());
}

// redisson#1110: a re-entry with a shorter lease used to cut the first
// hold's lease short; RedissonWriteLock now sets PTTL + lease.
TEST(ReadWriteLock, AWriteReentryAddsItsLeaseToWhatIsLeft) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k");
  ASSERT_TRUE(ra.write_lock().try_lock_for(0ms, 10s));
  world.clock.advance_ms(4000);
  ASSERT_TRUE(ra.write_lock().try_lock_for(0ms, 1s));
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(7000)) << "6000 left + 1000, not 1000";
  EXPECT_EQ(ra.write_lock().hold_count(), 2);
}

TEST(ReadWriteLock, AWriterMayReadAndDowngrades) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReadWriteLock ra(a, "k", {.default_lease = 10s}), rb(b, "k", {.default_lease = 10s});
  ra.write_lock().lock();
  EXPECT_TRUE(ra.read_lock().try_lock());
  EXPECT_EQ(ra.mode(), "write");
  EXPECT_FALSE(rb.read_lock().try_lock());
  ra.write_lock().unlock();
  EXPECT_EQ(ra.mode(), "read") << "the writer's read hold remains: a downgrade";
  EXPECT_TRUE(rb.read_lock().try_lock());
  EXPECT_FALSE(ra.write_lock().try_lock()) << "a reader does not upgrade";
  ra.read_lock().unlock();
  rb.read_lock().unlock();
  EXPECT_FALSE(ra.read_lock().is_locked());
}

TEST(ReadWriteLock, AReaderCannotUpgrade) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k", {.default_lease = 10s});
  ra.read_lock().lock();
  EXPECT_FALSE(ra.write_lock().try_lock_for(300ms));
  EXPECT_EQ(ra.mode(), "read");
  EXPECT_EQ(failure_of(ra.write_lock().release()), UnlockError::Reason::kNotHeld);
  ra.read_lock().unlock();
  EXPECT_EQ(failure_of(ra.read_lock().release()), UnlockError::Reason::kNotHeld);
}

TEST(ReadWriteLock, UnlockWakesAWaitingWriter) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReadWriteLock ra(a, "k", {.default_lease = 30s}), rb(b, "k", {.default_lease = 30s});
  ra.read_lock().lock();
  int waits = 0;
  b.before_wait = [&] {
    if (++waits == 1) ra.read_lock().unlock();  // publishes on the shared channel
  };
  EXPECT_TRUE(rb.write_lock().try_lock_for(10s));
  EXPECT_EQ(waits, 1);
  EXPECT_LT(b.waited, 1s) << "woken by the message, not by the 30 s PTTL";
}

TEST(ReadWriteLock, ReadLeasesOnlyGrowAndExpireTheHash) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReadWriteLock ra(a, "k"), rb(b, "k");
  ra.read_lock().lock(5s);
  rb.read_lock().lock(1s);
  EXPECT_EQ(ra.read_lock().remaining_lease().ttl, 5000ms) << "b's shorter lease does not cut a's";
  world.clock.advance_ms(5001);
  EXPECT_FALSE(ra.read_lock().is_locked());
  EXPECT_TRUE(rb.write_lock().try_lock());
}

TEST(ReadWriteLock, WatchdogRenewsEitherHalf) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k", {.lock_watchdog_timeout = 300ms});
  ra.write_lock().lock();
  ra.read_lock().lock();
  ASSERT_EQ(a.spawned.size(), 2u);
  int rounds = 0;
  a.before_wait = [&] {
    if (++rounds == 4) {
      a.set_task_id(1);
      ra.write_lock().unlock();
      a.set_task_id(1000);
    }
  };
  a.run_spawned(0);  // the write watchdog: renews until the write hold goes
  EXPECT_EQ(rounds, 4);
  EXPECT_EQ(ra.mode(), "read");
  a.before_wait = nullptr;
  world.clock.advance_ms(250);
  EXPECT_TRUE(ra.read_lock().is_held_by_current_thread());
}

TEST(ReadWriteLock, EachReadHoldHasATimeoutKey) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k");
  ra.read_lock().lock(5s);
  ra.read_lock().lock(1s);
  EXPECT_EQ(ReadWriteLock::key_prefix("k"), "{k}");
  EXPECT_EQ(ReadWriteLock::key_prefix("{o}:1"), "{o}:1");
  EXPECT_EQ(run(world, {"PTTL", "{k}:client-a:1:rwlock_timeout:1"}), Reply::integer(5000));
  EXPECT_EQ(run(world, {"PTTL", "{k}:client-a:1:rwlock_timeout:2"}), Reply::integer(1000));
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(5000));
  ra.read_lock().unlock();
  EXPECT_EQ(run(world, {"EXISTS", "{k}:client-a:1:rwlock_timeout:2"}), Reply::integer(0))
      << "the release deletes its own hold's key";
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(5000));
}

TEST(ReadWriteLock, AReleaseShortensTheHashToTheLongestLiveHold) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b"), c(world, "client-c");
  ReadWriteLock ra(a, "k"), rb(b, "k"), rc(c, "k");
  ra.read_lock().lock(5s);
  rb.read_lock().lock(1s);
  ra.read_lock().unlock();
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(1000))
      << "a writer waits for b's lease only, not for a's which is gone";
  world.clock.advance_ms(1001);
  EXPECT_TRUE(rc.write_lock().try_lock());
}

TEST(ReadWriteLock, AnExpiredReaderIsDroppedByTheNextRelease) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b"), c(world, "client-c");
  ReadWriteLock ra(a, "k"), rb(b, "k"), rc(c, "k");
  rb.read_lock().lock(100ms);  // b never unlocks: its hold's key expires
  ra.read_lock().lock(10s);
  world.clock.advance_ms(200);
  EXPECT_FALSE(rc.write_lock().try_lock());
  ra.read_lock().unlock();
  EXPECT_EQ(run(world, {"EXISTS", "k"}), Reply::integer(0))
      << "no live hold left: the hash goes with b's stale field";
  EXPECT_TRUE(rc.write_lock().try_lock());
}

TEST(ReadWriteLock, ReadWatchdogRenewsItsTimeoutKeys) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k", {.lock_watchdog_timeout = 300ms});
  ra.read_lock().lock();
  ASSERT_EQ(a.spawned.size(), 1u);
  int rounds = 0;
  a.before_wait = [&] {
    if (++rounds == 5) {  // t = 400 ms: past the first lease, kept by the renewals
      EXPECT_EQ(run(world, {"PTTL", "{k}:client-a:1:rwlock_timeout:1"}), Reply::integer(300));
      EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(300));
      a.set_task_id(1);
      ra.read_lock().unlock();
      a.set_task_id(1000);
    }
  };
  a.run_spawned(0);
  EXPECT_EQ(rounds, 5);
  EXPECT_EQ(ra.mode(), std::nullopt);
}

TEST(ReadWriteLock, UnlockMessagesAreRedissons) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), watcher(world, "watcher");
  std::vector<std::string> messages;
  watcher.subscribe(ReadWriteLock::channel_name("k"),
                    [&](const std::string& m) { messages.push_back(m); });
  ReadWriteLock ra(a, "k", {.default_lease = 10s});
  ra.read_lock().lock();
  ra.read_lock().unlock();
  ra.write_lock().lock();
  ra.write_lock().unlock();
  ra.write_lock().lock();
  ra.read_lock().lock();
  ra.write_lock().unlock();  // a downgrade: nobody is told
  EXPECT_EQ(messages, (std::vector<std::string>{"0", "1"}));
}

TEST(ReadWriteLock, ForceUnlockAndIsLockedGoByMode) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReadWriteLock ra(a, "k", {.default_lease = 10s}), rb(b, "k", {.default_lease = 10s});
  ra.read_lock().lock();
  EXPECT_TRUE(rb.read_lock().is_locked());
  EXPECT_FALSE(rb.write_lock().is_locked());
  EXPECT_FALSE(rb.write_lock().force_unlock()) << "the write half leaves a read lock alone";
  EXPECT_EQ(ra.mode(), "read");
  EXPECT_TRUE(rb.read_lock().force_unlock());
  EXPECT_EQ(ra.mode(), std::nullopt);
  ra.write_lock().lock();
  EXPECT_TRUE(rb.write_lock().is_locked());
  EXPECT_FALSE(rb.read_lock().is_locked()) << "a writer without reads";
  ra.read_lock().lock();
  EXPECT_TRUE(rb.read_lock().is_locked()) << "the writer also reads";
  EXPECT_FALSE(rb.read_lock().force_unlock());
  EXPECT_TRUE(rb.write_lock().force_unlock());
  EXPECT_EQ(ra.mode(), std::nullopt);
}

// On by default for both halves: RedissonReadLock and RedissonWriteLock
// .unlockInnerAsync always read and write the latch; unlock_latch = false
// sends the scripts without it.
TEST(ReadWriteLock, UnlockLatchAnswersARetryWithTheFirstResult) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReadWriteLock ra(a, "k", {.default_lease = 10s});
  ra.write_lock().lock();
  ASSERT_TRUE(ra.write_lock().release());
  EXPECT_EQ(unlock_latches(world), 0u) << "each unlock DELs its latch after the reply";
  lose_unlock_latch_dels(a);
  ra.read_lock().lock();
  ra.read_lock().lock();
  ASSERT_TRUE(ra.read_lock().release());
  EXPECT_EQ(ra.read_lock().hold_count(), 1);
  const Reply keys = run(world, {"KEYS", "redisson_unlock_latch:{k}:*"});
  ASSERT_TRUE(keys.is_array());
  EXPECT_EQ(keys.elements().size(), 1u);
  EXPECT_EQ(run(world, {"GET", keys.elements()[0].str()}), Reply::bulk("0"));
  ASSERT_TRUE(ra.read_lock().release());
  ASSERT_TRUE(ra.write_lock().try_lock());
  ASSERT_TRUE(ra.write_lock().release());
  EXPECT_EQ(run(world, {"KEYS", "redisson_unlock_latch:{k}:*"}).elements().size(), 3u)
      << "one latch per unlock request, read or write";

  run(world, {"FLUSHALL"});
  ReadWriteLock without(a, "k", {.default_lease = 10s, .unlock_latch = false});
  ASSERT_TRUE(without.read_lock().try_lock());
  ASSERT_TRUE(without.read_lock().release());
  ASSERT_TRUE(without.write_lock().try_lock());
  ASSERT_TRUE(without.write_lock().release());
  EXPECT_EQ(run(world, {"KEYS", "redisson_unlock_latch:*"}).elements().size(), 0u);
  EXPECT_EQ(without.mode(), std::nullopt);
}

}  // namespace
}  // namespace redsim::lock

#include "lock/reentrant_lock.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>

#include "lock/errors.h"
#include "lock/lock_test_util.h"
#include "lock/script.h"
#include "sim/world/world.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

bool is_renewal(const Argv& argv) {
  return argv.size() > 1 && argv[0] == "EVALSHA" &&
         argv[1] == Script::get("reentrant_renew").sha1_hex();
}

TEST(ReentrantLock, ChannelNameIsRedissons) {
  EXPECT_EQ(ReentrantLock::channel_name("orders:42"), "redisson_lock__channel:{orders:42}");
  EXPECT_EQ(ReentrantLock::channel_name("{orders}:42"), "redisson_lock__channel:{orders}:42");
}

TEST(ReentrantLock, HashHoldsOwnerAndHoldCount) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s});
  lock.lock();
  EXPECT_EQ(lock.owner(), "client-a:1");
  EXPECT_EQ(run(world, {"HGETALL", "k"}),
            Reply::array({Reply::bulk("client-a:1"), Reply::bulk("1")}));
  lock.lock();
  EXPECT_TRUE(lock.try_lock());
  EXPECT_EQ(lock.hold_count(), 3);
  expect_three_holds_unwind(lock);
}

TEST(ReentrantLock, UnlockWithHoldsLeftRearmsTheLease) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k");
  lock.lock(5s);
  lock.lock(5s);
  world.clock.advance_ms(4000);
  EXPECT_EQ(lock.remaining_lease().ttl, 1000ms);
  lock.unlock();
  EXPECT_EQ(lock.remaining_lease().ttl, 5000ms);
}

TEST(ReentrantLock, OtherProcessesAndOtherTasksAreOtherOwners) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  la.lock();
  EXPECT_FALSE(lb.try_lock());
  EXPECT_TRUE(lb.is_locked());
  EXPECT_FALSE(lb.is_held_by_current_thread());

  a.set_task_id(2);  // another task of the same process
  EXPECT_FALSE(la.try_lock());
  EXPECT_FALSE(la.is_held_by_current_thread());
  EXPECT_EQ(la.hold_count(), 0);
  EXPECT_EQ(failure_of(la.release()), UnlockError::Reason::kNotHeld);
  a.set_task_id(1);
  EXPECT_TRUE(la.is_held_by_current_thread());
  EXPECT_EQ(la.hold_count(), 1);
}

TEST(ReentrantLock, UnlockByNonOwnerThrowsRedissonsMessageAndLeavesTheLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  b.set_task_id(7);
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k");
  la.lock();
  la.lock();
  world.clock.advance_ms(1000);
  lb.unlock();  // BasicLockable: throws nothing
  const std::optional<UnlockResult> last = lb.last_unlock();
  ASSERT_TRUE(last.has_value());
  ASSERT_FALSE(last->has_value());
  EXPECT_EQ(last->error().reason, UnlockError::Reason::kNotHeld);
  EXPECT_EQ(last->error().message,
            "attempt to unlock lock, not locked by current thread by node id: client-b "
            "thread-id: 7");
  EXPECT_EQ(la.hold_count(), 2);
  EXPECT_EQ(la.remaining_lease().ttl, 9000ms) << "the failed unlock did not touch the lease";
  EXPECT_FALSE(lb.release().has_value());
}

TEST(ReentrantLock, UnlockAfterTheLeaseRanOutThrows) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k");
  lock.lock(1s);
  world.clock.advance_ms(1001);
  EXPECT_FALSE(lock.is_locked());
  EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
}

TEST(ReentrantLock, IsLockedAndRemainingLease) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k");
  EXPECT_FALSE(lock.is_locked());
  EXPECT_EQ(lock.remaining_lease(), RemainingLease{});
  lock.lock(10s);
  EXPECT_TRUE(lock.is_locked());
  EXPECT_EQ(lock.remaining_lease().ttl, 10000ms);
  world.clock.advance_ms(4000);
  EXPECT_EQ(lock.remaining_lease().ttl, 6000ms);
  world.clock.advance_ms(6001);
  EXPECT_FALSE(lock.is_locked());
  EXPECT_EQ(lock.remaining_lease(), RemainingLease{});
  run(world, {"HSET", "k", "someone:1", "1"});  // a lock with no expiry
  EXPECT_EQ(lock.remaining_lease(), RemainingLease::from_pttl(-1));
}

TEST(ReentrantLock, FullUnlockPublishesOnTheChannel) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), observer(world, "observer");
  ReentrantLock lock(a, "k", {.default_lease = 10s});
  std::vector<std::string> messages;
  observer.subscribe(lock.channel(), [&](const std::string& m) { messages.push_back(m); });
  lock.lock();
  lock.lock();
  lock.unlock();
  EXPECT_TRUE(messages.empty()) << "a hold is left: no message";
  lock.unlock();
  EXPECT_EQ(messages, (std::vector<std::string>{"0"}));
  EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
  EXPECT_EQ(messages.size(), 1u) << "a refused unlock publishes nothing";
}

TEST(ReentrantLock, ForceUnlockDeletesAnyonesLockAndPublishes) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b"), observer(world, "observer");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k");
  int messages = 0;
  observer.subscribe(la.channel(), [&](const std::string&) { ++messages; });
  la.lock();
  la.lock();
  EXPECT_TRUE(lb.force_unlock());
  EXPECT_FALSE(la.is_locked());
  EXPECT_EQ(messages, 1);
  EXPECT_FALSE(lb.force_unlock()) << "nothing left to delete";
  EXPECT_EQ(messages, 1);
  EXPECT_EQ(failure_of(la.release()), UnlockError::Reason::kNotHeld);
}

TEST(ReentrantLock, WaiterIsWokenByTheUnlockMessage) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  la.lock();
  int waits = 0;
  b.before_wait = [&] {
    if (++waits == 1) la.unlock();  // the holder leaves while B waits
  };
  const auto start = b.now();
  EXPECT_TRUE(lb.try_lock_for(20s));
  EXPECT_EQ(waits, 1);
  EXPECT_EQ(b.now() - start, 0us) << "woken by the message, not by the 10 s lease";
  EXPECT_TRUE(lb.is_held_by_current_thread());
  EXPECT_EQ(b.subscribe_calls, 1);
  EXPECT_EQ(b.active_subscriptions(), 0u) << "unsubscribed when done";
  EXPECT_EQ(b.server_subscriptions(), 0u);
}

TEST(ReentrantLock, WaiterSubscribesBeforeItsSecondAttempt) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  la.lock();
  // Subscriptions in place at each acquire attempt: none for the first, then
  // one, so an unlock after any failed attempt is delivered.
  std::vector<int> subscribed_at_attempt;
  b.before_call = [&](const Argv& argv) {
    if (argv[0] == "EVALSHA") {
      subscribed_at_attempt.push_back(static_cast<int>(b.active_subscriptions()));
    }
  };
  EXPECT_FALSE(lb.try_lock_for(5s));
  // Two attempts: before and after subscribing; none after the 5 s wait ran
  // out (RedissonLock.tryLock returns false when the time left is <= 0).
  ASSERT_EQ(subscribed_at_attempt.size(), 2u);
  EXPECT_EQ(subscribed_at_attempt[0], 0);
  for (size_t i = 1; i < subscribed_at_attempt.size(); ++i) {
    EXPECT_EQ(subscribed_at_attempt[i], 1) << "attempt " << i;
  }
}

TEST(ReentrantLock, WaiterWaitsAtMostTheRemainingWait) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  la.lock();
  const auto start = b.now();
  EXPECT_FALSE(lb.try_lock_for(3s));
  EXPECT_EQ(b.now() - start, 3s);
  EXPECT_EQ(b.waited, 3s);
  EXPECT_EQ(b.active_subscriptions(), 0u);
  EXPECT_EQ(la.hold_count(), 1);
}

TEST(ReentrantLock, WaiterWaitsAtMostThePttlThenAcquires) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  la.lock();
  world.clock.advance_ms(3000);
  const auto start = b.now();
  EXPECT_TRUE(lb.try_lock_for(60s)) << "A never unlocks: its lease runs out";
  // 7000 ms (the PTTL), then 1 ms: at the deadline the key still lives.
  EXPECT_EQ(b.now() - start, 7001ms);
  EXPECT_TRUE(lb.is_held_by_current_thread());
}

TEST(ReentrantLock, LockWaitsUntilAcquired) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k"), lb(b, "k");
  la.lock(2s);
  lb.lock(2s);
  EXPECT_EQ(b.waited, 2001ms);
  EXPECT_EQ(lb.hold_count(), 1);
}

TEST(ReentrantLock, WatchdogOnlyWithoutALease) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.lock_watchdog_timeout = 9s});
  lock.lock(5s);
  EXPECT_TRUE(a.spawned.empty());
  EXPECT_EQ(lock.remaining_lease().ttl, 5000ms);
  lock.unlock();

  lock.lock();
  ASSERT_EQ(a.spawned.size(), 1u);
  EXPECT_EQ(lock.remaining_lease().ttl, 9000ms) << "lease = lock_watchdog_timeout";
  lock.lock();
  EXPECT_TRUE(lock.try_lock());
  EXPECT_EQ(a.spawned.size(), 1u) << "re-entry does not start a second watchdog";
}

TEST(ReentrantLock, WatchdogRenewsEveryThirdUntilTheLockIsGone) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.lock_watchdog_timeout = 3s}), lb(b, "k");
  la.lock();
  ASSERT_EQ(a.spawned.size(), 1u);
  const auto start = a.now();
  std::vector<std::chrono::microseconds> renewals;
  a.before_call = [&](const Argv& argv) {
    if (!is_renewal(argv)) return;
    renewals.push_back(a.now() - start);
    EXPECT_TRUE(lb.is_locked()) << "alive at " << (a.now() - start).count() << " us";
    if (renewals.size() == 4) {
      EXPECT_TRUE(lb.force_unlock());  // past 3 s: renewed, not expired
    }
  };
  a.run_spawned(0);  // returns when a renewal finds the lock gone
  EXPECT_EQ(renewals, (std::vector<std::chrono::microseconds>{1s, 2s, 3s, 4s}));
  EXPECT_NE(a.traces.back().find("no longer held"), std::string::npos) << a.traces.back();
}

TEST(ReentrantLock, WatchdogRenewalUsesTheOwnerNotTheWatchdogsTask) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.lock_watchdog_timeout = 3s});
  lock.lock();
  int renewals = 0;
  a.before_call = [&](const Argv& argv) {
    if (!is_renewal(argv)) return;
    EXPECT_EQ(argv.back(), "client-a:1");
    if (++renewals == 2) {
      a.set_task_id(1);  // the owner task unlocks; the watchdog must then stop
      lock.unlock();
      a.set_task_id(1000);
    }
  };
  a.run_spawned(0, 1000);
  EXPECT_EQ(renewals, 2);
  EXPECT_FALSE(lock.is_locked());
}

// A renewal that cannot reach Redis is tried again at the next interval
// (the default): one failure does not cost the lock.
TEST(ReentrantLock, WatchdogRetriesAfterARenewalError) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.lock_watchdog_timeout = 3s}), lb(b, "k");
  la.lock();
  int attempts = 0;
  a.before_call = [&](const Argv& argv) {
    if (!is_renewal(argv)) return;
    if (++attempts == 1) throw IoError("connection reset (test)");
    if (attempts == 3) {
      EXPECT_TRUE(lb.force_unlock());
    }
  };
  a.run_spawned(0);  // returns when a renewal finds the lock gone
  EXPECT_EQ(attempts, 3) << "failed, renewed, then found the lock gone";
}

// watchdog_stops_on_error: the old behaviour, for the watchdog-gives-up
// scenario: the first failure ends the renewals and the lease runs out.
TEST(ReentrantLock, WatchdogStopsOnErrorWhenAskedTo) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock la(a, "k", {.lock_watchdog_timeout = 3s, .watchdog_stops_on_error = true});
  la.lock();
  int attempts = 0;
  a.before_call = [&](const Argv& argv) {
    if (is_renewal(argv) && ++attempts == 1) throw IoError("connection reset (test)");
  };
  a.run_spawned(0);
  EXPECT_EQ(attempts, 1);
  world.clock.advance_ms(2001);  // 1 s passed in the watchdog's wait; the 3 s lease ends
  EXPECT_FALSE(la.is_locked());
}

// An unlock whose reply is lost after it ran (the hook runs it, then throws
// TimeoutError) and is sent again (unlock_retries 1): without the latch the
// retry releases a second hold; with it, the retry answers the first result.
void lose_first_unlock_reply(DirectWorld& world, DirectEnv& env, const std::string& script) {
  run(world, {"SCRIPT", "LOAD", Script::get(script).text()});
  auto lost = std::make_shared<bool>(false);
  env.before_call = [&world, lost, sha = Script::get(script).sha1_hex()](const Argv& argv) {
    if (*lost || argv.size() < 2 || argv[0] != "EVALSHA" || argv[1] != sha) return;
    *lost = true;
    run(world, argv);
    throw TimeoutError("reply lost (test)");
  };
}

TEST(ReentrantLock, RetriedUnlockReleasesASecondHoldWithoutTheLatch) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s, .unlock_retries = 1, .unlock_latch = false});
  lock.lock();
  lock.lock();
  lose_first_unlock_reply(world, a, "reentrant_unlock");
  lock.unlock();
  EXPECT_EQ(lock.hold_count(), 0) << "one unlock() released both holds";
  EXPECT_FALSE(lock.is_locked());
}

// The latch is on by default, as RedissonLock.unlockInnerAsync always has it.
TEST(ReentrantLock, UnlockLatchReleasesOneHoldPerUnlock) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s, .unlock_retries = 1});
  lock.lock();
  lock.lock();
  lose_first_unlock_reply(world, a, "reentrant_unlock_latch");
  lock.unlock();
  EXPECT_EQ(lock.hold_count(), 1);
  EXPECT_TRUE(lock.is_held_by_current_thread());
  lock.unlock();
  EXPECT_FALSE(lock.is_locked());
  // Nothing is left: each unlock() DELs its latch once the script answered.
  EXPECT_EQ(run(world, {"DBSIZE"}), Reply::integer(0));
}

// Redisson sends the latch's DEL without awaiting it
// (RedissonBaseLock.unlockInnerAsync: writeAsync in thenApply): unlock()
// costs the script's round trip only, and the DEL lands after it.
TEST(ReentrantLock, UnlockDoesNotWaitForTheLatchDel) {
  world::WorldOptions o;
  o.faults.latency_distribution = world::LatencyDistribution::kFixed;
  o.faults.latency_min = world::Micros{1000};
  world::World w(o);
  world::Micros took{-1};
  int64_t latches_at_return = -1;
  w.spawn_process("holder", [&](world::ProcessEnv& env) {
    ReentrantLock lock(env, "k", {.default_lease = 10s});
    lock.lock();
    lock.unlock();  // the first EVALSHA of each script loads it (NOSCRIPT, then EVAL)
    env.sleep_for(10ms);
    lock.lock();
    const auto before = env.now();
    lock.unlock();
    took = env.now() - before;
    latches_at_return = static_cast<int64_t>(
        w.server()
            .execute(*w.server().connect(), {"KEYS", "redisson_unlock_latch:*"})
            .elements()
            .size());
    env.sleep_for(10ms);  // the DEL's task runs meanwhile
  });
  w.run();
  EXPECT_EQ(took, world::Micros{2000}) << "one round trip of 2 x 1 ms, not two";
  EXPECT_EQ(latches_at_return, 1) << "the DEL was still on its way";
  EXPECT_EQ(w.server().execute(*w.server().connect(), {"DBSIZE"}), Reply::integer(0));
}

// RedissonBaseLock.unlockInnerAsync: the latch's TTL is (timeout +
// retryDelay.calcDelay(retryAttempts)) x retryAttempts; with Redisson's
// defaults (3000 ms, 4, EqualJitterDelay(1000 ms, 2000 ms)) 16 to 20 s.
TEST(ReentrantLock, UnlockLatchTtlFollowsRedissonsRetrySettings) {
  const RedissonRetrySettings defaults;
  EXPECT_EQ(redisson_unlock_latch_ttl(defaults, 0), 16000ms) << "jitter 0: (3000 + 1000) x 4";
  EXPECT_EQ(redisson_unlock_latch_ttl(defaults, 1000), 20000ms) << "jitter 1000: (3000 + 2000) x 4";
  EXPECT_EQ(redisson_unlock_latch_ttl(defaults, 1001), 16000ms) << "the draw is taken mod 1001";
  // base x 2^n below max: e = 100 x 2^2 = 400, half 200, jitter in [0, 200].
  const RedissonRetrySettings small{
      .timeout = 50ms, .attempts = 2, .delay_base = 100ms, .delay_max = 1000ms};
  EXPECT_EQ(redisson_unlock_latch_ttl(small, 0), 500ms) << "(50 + 200) x 2";
  EXPECT_EQ(redisson_unlock_latch_ttl(small, 200), 900ms) << "(50 + 400) x 2";
  EXPECT_EQ(redisson_unlock_latch_ttl({.timeout = 0ms, .attempts = 0}, 7), 1ms) << "at least 1 ms";
  EXPECT_EQ(
      redisson_unlock_latch_ttl({.timeout = std::chrono::milliseconds::max(), .attempts = 4}, 0),
      std::chrono::milliseconds::max())
      << "saturates as Redisson's Long.MAX_VALUE";
}

// A latch whose DEL is lost lives the TTL drawn from the retry settings (or
// the fixed unlock_latch_ttl), then expires by itself.
TEST(ReentrantLock, ALatchWhoseDelIsLostExpiresAfterItsTtl) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  lose_unlock_latch_dels(a);
  ReentrantLock drawn(a, "k", {.default_lease = 10s});
  drawn.lock();
  drawn.unlock();
  const Reply keys = run(world, {"KEYS", "redisson_unlock_latch:{k}:*"});
  ASSERT_EQ(keys.elements().size(), 1u);
  const int64_t ttl = run(world, {"PTTL", keys.elements()[0].str()}).integer();
  EXPECT_GE(ttl, 15990);
  EXPECT_LE(ttl, 20000);
  world.clock.advance_ms(ttl + 1);
  EXPECT_EQ(unlock_latches(world), 0u);

  ReentrantLock fixed(a, "k", {.default_lease = 10s, .unlock_latch_ttl = 250ms});
  fixed.lock();
  fixed.unlock();
  const Reply again = run(world, {"KEYS", "redisson_unlock_latch:{k}:*"});
  ASSERT_EQ(again.elements().size(), 1u);
  EXPECT_EQ(run(world, {"PTTL", again.elements()[0].str()}), Reply::integer(250));
  EXPECT_THROW(ReentrantLock(a, "k", {.unlock_latch_ttl = 0ms}), std::invalid_argument);
  EXPECT_THROW(ReentrantLock(a, "k", {.retry = {.attempts = -1}}), std::invalid_argument);
}

TEST(ReentrantLock, UnlockRetriesGiveUpAfterTheLimit) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s, .unlock_retries = 2});
  lock.lock();
  int sent = 0;
  a.before_call = [&](const Argv& argv) {
    if (argv[0] == "EVALSHA" && argv.size() > 1 &&
        argv[1] == Script::get("reentrant_unlock_latch").sha1_hex()) {
      ++sent;
      throw IoError("connection reset (test)");
    }
  };
  EXPECT_NO_THROW(lock.unlock());
  EXPECT_EQ(sent, 3) << "the first send and two retries";
  const std::optional<UnlockResult> last = lock.last_unlock();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(failure_of(*last), UnlockError::Reason::kConnection);
  EXPECT_NE(last->error().message.find("connection reset (test)"), std::string::npos);
}

TEST(ReentrantLock, WatchdogStopsPromptlyOnFullUnlock) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.lock_watchdog_timeout = 3s});
  lock.lock();
  lock.lock();
  lock.unlock();
  lock.unlock();
  const auto before = a.now();
  a.calls.clear();
  a.run_spawned(0);
  EXPECT_EQ(a.now(), before) << "no wait: the stop signal was already there";
  EXPECT_TRUE(a.calls.empty());
}

TEST(ReentrantLock, WatchdogOutlivesTheLockObject) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  {
    ReentrantLock lock(a, "k", {.lock_watchdog_timeout = 3s});
    lock.lock();
  }
  ReentrantLock lb(b, "k");
  int renewals = 0;
  a.before_call = [&](const Argv& argv) {
    if (is_renewal(argv) && ++renewals == 3) lb.force_unlock();
  };
  a.run_spawned(0);
  EXPECT_EQ(renewals, 3);
}

TEST(ReentrantLock, NewWatchdogAfterTheOldOneStopped) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k");
  lock.lock();
  lock.unlock();
  lock.lock();
  EXPECT_EQ(a.spawned.size(), 2u);
}

TEST(ReentrantLock, WorksWithStdUniqueLock) {
  DirectWorld world;
  DirectEnv a(world, "client-a"), b(world, "client-b");
  ReentrantLock la(a, "k", {.default_lease = 10s}), lb(b, "k", {.default_lease = 10s});
  {
    std::unique_lock guard(la);
    std::unique_lock again(la);  // reentrant
    EXPECT_EQ(la.hold_count(), 2);
    std::unique_lock other(lb, 50ms);
    EXPECT_FALSE(other.owns_lock());
  }
  EXPECT_FALSE(la.is_locked());
  std::unique_lock guard(lb, std::try_to_lock);
  EXPECT_TRUE(guard.owns_lock());
}

TEST(ReentrantLock, TryLockForWithLeaseUsesThatLease) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  ReentrantLock lock(a, "k");
  EXPECT_TRUE(lock.try_lock_for(1s, 4s));
  EXPECT_EQ(lock.remaining_lease().ttl, 4000ms);
  EXPECT_TRUE(a.spawned.empty());
}

TEST(ReentrantLock, OnALockWithoutTtlAWaiterWaitsForTheMessageOnly) {
  for (const bool recheck : {false, true}) {
    DirectWorld world;
    DirectEnv a(world, "client-a"), b(world, "client-b");
    ReentrantLockOptions options{.default_lease = 10s};
    if (recheck) options.recheck_without_ttl = 100ms;
    ReentrantLock la(a, "k", options), lb(b, "k", options);
    la.lock();
    ASSERT_EQ(run(world, {"PERSIST", "k"}), Reply::integer(1));  // the lock now has no TTL
    int waits = 0;
    b.before_wait = [&] { ++waits; };
    EXPECT_FALSE(lb.try_lock_for(1s));
    EXPECT_EQ(b.waited, 1s);
    // RedissonLock.tryLock: latch.tryAcquire(time left) when ttl < 0; the
    // option re-checks every 100 ms, as redsim did before.
    EXPECT_EQ(waits, recheck ? 10 : 1) << (recheck ? "recheck_without_ttl" : "default");
  }
}

}  // namespace
}  // namespace redsim::lock

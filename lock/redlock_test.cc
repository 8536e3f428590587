#include "lock/redlock.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "sim/world/checkers.h"
#include "sim/world/direct_env.h"
#include "sim/world/world.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using world::ProcessEnv;
using world::World;
using world::WorldOptions;

World make_world(size_t servers, int64_t latency_us = 0) {
  WorldOptions options;
  options.seed = 5;
  options.servers = servers;
  options.faults.latency_min = Micros{latency_us};
  options.faults.latency_max = Micros{latency_us};
  return World(options);
}

Reply on(World& w, size_t server, const Argv& argv) {
  return w.server(server).execute(*w.server(server).connect(), argv);
}

TEST(Redlock, DriftIsOnePercentPlusTwoMs) {
  world::DirectWorld dw;
  world::DirectEnv env(dw, "client-a");
  Redlock lock(env, "k", {.lease = 10s});
  EXPECT_EQ(lock.drift(10s), Micros(102000));
  EXPECT_EQ(lock.drift(100ms), Micros(3000));
  EXPECT_EQ(lock.quorum(), 1u);
  EXPECT_THROW(Redlock(env, "k", {.lease = 0ms}), std::invalid_argument);
  EXPECT_THROW(Redlock(env, "k", {.retry_delay_min = 5ms, .retry_delay_max = 1ms}),
               std::invalid_argument);
}

TEST(Redlock, TakesEveryServerAndReleasesEveryServer) {
  World w = make_world(5, 100);
  std::string token;
  Micros validity{0};
  bool released = false;
  w.spawn_process("a", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 1s});
    EXPECT_EQ(lock.quorum(), 3u);
    ASSERT_TRUE(lock.try_lock());
    token = lock.owner();
    validity = lock.validity_left();
    EXPECT_TRUE(lock.is_held_by_current_thread());
    EXPECT_TRUE(lock.is_locked());
    const auto pttl = lock.remaining_lease().ttl.value_or(0ms);
    EXPECT_GT(pttl, 990ms);
    EXPECT_LE(pttl, 1000ms);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(w.server(i).execute(*w.server(i).connect(), {"GET", "k"}), Reply::bulk(token));
    }
    released = lock.release().has_value();
  });
  w.run();
  EXPECT_TRUE(released);
  EXPECT_FALSE(token.empty());
  // 5 sequential round trips of 200 us and the 12 ms drift.
  EXPECT_EQ(validity, Micros(1000000 - 5 * 200 - 12000));
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(on(w, i, {"EXISTS", "k"}), Reply::integer(0));
}

TEST(Redlock, NeedsAQuorumAndCleansUpAfterAFailedAttempt) {
  World w = make_world(5);
  for (size_t i : {0u, 2u, 4u}) on(w, i, {"SET", "k", "someone-else", "PX", "60000"});
  bool first = true;
  w.spawn_process("a", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 1s});
    first = lock.try_lock();  // only 2 of 5
    EXPECT_FALSE(lock.is_held_by_current_thread());
  });
  w.run();
  EXPECT_FALSE(first);
  for (size_t i : {1u, 3u}) EXPECT_EQ(on(w, i, {"EXISTS", "k"}), Reply::integer(0)) << i;
  for (size_t i : {0u, 2u, 4u}) EXPECT_EQ(on(w, i, {"GET", "k"}), Reply::bulk("someone-else"));

  on(w, 4, {"DEL", "k"});  // now 3 of 5 are free: a quorum
  bool second = false;
  w.spawn_process("b", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 1s});
    second = lock.try_lock();
    EXPECT_EQ(lock.remaining_lease().ttl, 1000ms);
  });
  w.run();
  EXPECT_TRUE(second);
}

TEST(Redlock, AnAttemptSlowerThanTheLeaseFailsAndReleases) {
  World w = make_world(5, 3000);  // 6 ms per round trip, 30 ms for five
  bool taken = true;
  w.spawn_process("a", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 30ms});
    taken = lock.try_lock();
    EXPECT_LE(lock.validity_left(), 0us);
  });
  w.run();
  EXPECT_FALSE(taken) << "validity = 30 - 30 - 2.3 ms < 0";
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(on(w, i, {"EXISTS", "k"}), Reply::integer(0));
}

TEST(Redlock, ExtendRenewsOnlyAStillHeldLock) {
  World w = make_world(3);
  bool extended = false, late = true;
  std::chrono::milliseconds after_extend{0};
  w.spawn_process("a", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 100ms});
    ASSERT_TRUE(lock.try_lock());
    env.sleep_for(60ms);
    extended = lock.extend(500ms);
    after_extend = lock.remaining_lease().ttl.value_or(0ms);
    EXPECT_GT(lock.validity_left(), 400ms);
    env.sleep_for(600ms);  // past the extended lease
    late = lock.extend(500ms);
    EXPECT_FALSE(lock.release().has_value()) << "the lease ran out: not held";
  });
  w.run();
  EXPECT_TRUE(extended);
  EXPECT_EQ(after_extend, 500ms);
  EXPECT_FALSE(late);
}

TEST(Redlock, AWaiterRetriesUntilTheHolderLetsGo) {
  World w = make_world(3, 200);
  int64_t b_got_us = -1, a_released_us = -1;
  w.spawn_process("a", [&](ProcessEnv& env) {
    Redlock lock(env, "k", {.lease = 10s});
    ASSERT_TRUE(lock.try_lock());
    env.sleep_for(300ms);
    a_released_us = env.now().time_since_epoch().count();
    lock.unlock();
  });
  w.spawn_process(
      "b",
      [&](ProcessEnv& env) {
        Redlock lock(env, "k", {.lease = 10s, .retry_delay_min = 10ms, .retry_delay_max = 20ms});
        EXPECT_FALSE(lock.try_lock());
        if (lock.try_lock_for(2s)) b_got_us = env.now().time_since_epoch().count();
        lock.unlock();
      },
      Micros(5000));
  w.run();
  ASSERT_GE(b_got_us, 0);
  EXPECT_GT(b_got_us, a_released_us);
  EXPECT_LT(b_got_us, a_released_us + 30000) << "one retry delay (<= 20 ms) and round trips";
}

TEST(Redlock, MakeLockBuildsOne) {
  world::DirectWorld dw;
  world::DirectEnv env(dw, "client-a");
  auto lock = make_lock(LockKind::kRedlock, env, "k", {.lease = 5s});
  EXPECT_EQ(lock->kind_name(), "redlock");
  EXPECT_TRUE(lock->try_lock());
  EXPECT_EQ(lock->remaining_lease().ttl, 5000ms);
  lock->unlock();
  EXPECT_FALSE(lock->is_locked());
}

}  // namespace
}  // namespace redsim::lock

// NodeRedlock in the simulated world: node-redlock v5's Redlock
// (src/index.ts) over 3 or 5 servers.
#include "lock/node_redlock.h"

#include <gtest/gtest.h>

#include "lock/errors.h"
#include "sim/world/direct_env.h"
#include "sim/world/world.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using world::ProcessEnv;
using world::World;
using world::WorldOptions;

World make_world(size_t servers, int64_t latency_us) {
  WorldOptions options;
  options.seed = 7;
  options.servers = servers;
  options.faults.latency_min = Micros(latency_us);
  options.faults.latency_max = Micros(latency_us);
  return World(options);
}

Reply on(World& w, size_t server, const Argv& argv) {
  return w.server(server).execute(*w.server(server).connect(), argv);
}

int64_t at_ms(ProcessEnv& env) { return env.now().time_since_epoch().count() / 1000; }

TEST(NodeRedlock, DriftRoundsOnePercentAndAddsTwoMs) {
  world::DirectWorld dw;
  world::DirectEnv env(dw, "client-a");
  NodeRedlock lock(env, "k");
  EXPECT_EQ(lock.drift(10000ms), 102ms);
  EXPECT_EQ(lock.drift(150ms), 4ms) << "Math.round(1.5) = 2";
  EXPECT_EQ(lock.drift(149ms), 3ms);
  EXPECT_THROW(NodeRedlock(env, "k", {.duration = 0ms}), std::invalid_argument);
  EXPECT_THROW(NodeRedlock(env, "k", {.retry_count = -2}), std::invalid_argument);
}

// The five calls go out at once: the quorum is reached after one EVALSHA
// (NOSCRIPT) and one EVAL round trip, 4 ms, not 5 x 4; the expiration counts
// from the attempt's start.
TEST(NodeRedlock, AcquiresOnAllServersInParallel) {
  World w = make_world(5, 1000);
  std::optional<EnvTime> expiration;
  int64_t took_ms = -1;
  bool released = false;
  w.spawn_process("a", [&](ProcessEnv& env) {
    NodeRedlock lock(env, "k", {.duration = 1000ms});
    const int64_t start = at_ms(env);
    ASSERT_TRUE(lock.try_lock());
    took_ms = at_ms(env) - start;
    expiration = lock.expiration();
    EXPECT_TRUE(lock.is_held_by_current_thread());
    released = lock.release().has_value();
  });
  w.run();
  EXPECT_EQ(took_ms, 4);
  ASSERT_TRUE(expiration);
  EXPECT_EQ(expiration->time_since_epoch(), Micros(1000000 - 12000));
  EXPECT_TRUE(released);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(on(w, i, {"EXISTS", "k"}), Reply::integer(0));
}

// retryCount retries after retryDelay +- retryJitter, then ExecutionError;
// a minority's key is cleaned by the failed acquire.
TEST(NodeRedlock, RetriesThenGivesUpAndCleansTheMinority) {
  World w = make_world(3, 0);
  on(w, 0, {"SET", "k", "other"});
  on(w, 1, {"SET", "k", "other"});
  int64_t took_ms = -1;
  bool ok = true;
  w.spawn_process("a", [&](ProcessEnv& env) {
    NodeRedlock lock(env, "k", {.retry_count = 3, .retry_delay = 200ms, .retry_jitter = 100ms});
    const int64_t start = at_ms(env);
    ok = lock.acquire(1000ms, 3);
    took_ms = at_ms(env) - start;
  });
  w.run();
  EXPECT_FALSE(ok);
  EXPECT_GE(took_ms, 3 * 100);
  EXPECT_LE(took_ms, 3 * 300);
  EXPECT_EQ(on(w, 2, {"EXISTS", "k"}), Reply::integer(0)) << "the minority's key released";
  EXPECT_EQ(on(w, 0, {"GET", "k"}), Reply::bulk("other"));
}

// Redlock.extend refuses an expired lock without asking the servers; a held
// one is re-SET with the new duration.
TEST(NodeRedlock, ExtendRefusesAnExpiredLock) {
  World w = make_world(3, 0);
  UnlockResult fresh, expired;
  Reply pttl_after;
  w.spawn_process("a", [&](ProcessEnv& env) {
    NodeRedlock lock(env, "k", {.duration = 1000ms});
    ASSERT_TRUE(lock.try_lock());
    env.sleep_for(500ms);
    fresh = lock.extend(2000ms);
    pttl_after = env.connection(1).call({"PTTL", "k"});
    env.sleep_for(2100ms);
    expired = lock.extend(2000ms);
  });
  w.run();
  EXPECT_TRUE(fresh.has_value());
  EXPECT_EQ(pttl_after, Reply::integer(2000));
  ASSERT_FALSE(expired);
  EXPECT_EQ(
      expired.error().message.rfind("ExecutionError: Cannot extend an already-expired lock.", 0),
      0u);
}

// node-redlock#65/#168: the release script answers 0 where the key expired,
// so releasing an expired lock fails the quorum after every retry; PR #362's
// script counts a gone key as released.
TEST(NodeRedlock, ReleasingAnExpiredLockFailsTheQuorumUnlessMissingCounts) {
  for (bool missing_counts : {false, true}) {
    World w = make_world(3, 0);
    UnlockResult r;
    int64_t took_ms = -1;
    w.spawn_process("a", [&](ProcessEnv& env) {
      NodeRedlock lock(env, "k",
                       {.duration = 100ms,
                        .retry_count = 2,
                        .retry_delay = 200ms,
                        .retry_jitter = 0ms,
                        .release_counts_missing = missing_counts});
      ASSERT_TRUE(lock.try_lock());
      env.sleep_for(150ms);
      const int64_t start = at_ms(env);
      r = lock.release();
      took_ms = at_ms(env) - start;
    });
    w.run();
    EXPECT_EQ(r.has_value(), missing_counts);
    EXPECT_EQ(took_ms, missing_counts ? 0 : 400) << "two retries 200 ms apart";
  }
}

// Redlock.using extends before the expiration; the routine outlives the
// first duration and the lock is never lost.
TEST(NodeRedlock, UsingExtendsAutomatically) {
  World w = make_world(3, 1000);
  bool ran = false, aborted = true;
  std::vector<int64_t> pttls;
  w.spawn_process("a", [&](ProcessEnv& env) {
    NodeRedlock lock(env, "k");
    ran = lock.run_using(1000ms, [&](const AbortSignal& signal) {
      for (int i = 0; i < 6; ++i) {
        env.sleep_for(500ms);
        const Reply r = env.connection(0).call({"PTTL", "k"});
        pttls.push_back(r.integer());
      }
      aborted = signal.aborted();
    });
    EXPECT_EQ(lock.last_unlock().value_or(std::unexpected(UnlockError{})).has_value(), true);
  });
  w.run();
  EXPECT_TRUE(ran);
  EXPECT_FALSE(aborted);
  ASSERT_EQ(pttls.size(), 6u);
  for (int64_t p : pttls) EXPECT_GT(p, 0);
  EXPECT_EQ(on(w, 0, {"EXISTS", "k"}), Reply::integer(0)) << "released after the routine";
  EXPECT_THROW(
      {
        world::DirectWorld dw;
        world::DirectEnv env(dw, "c");
        NodeRedlock(env, "k").run_using(550ms, [](const AbortSignal&) {});
      },
      std::invalid_argument);
}

}  // namespace
}  // namespace redsim::lock

// Lock tests against real redis-server processes (Debian's 7.0.15), each
// started by the test on a free loopback port and stopped at its end. They
// cover what the fake lacks on this branch (WAIT) and Redlock over N
// independent real servers.
#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/real_redis_test_util.h"
#include "lock/redlock.h"
#include "lock/reentrant_lock.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using testing::RedisServerProcess;
using testing::SocketConnection;
using testing::SocketEnv;

// A primary with no replicas: WAIT 1 100 answers 0 after its timeout, so the
// replica check must fail the acquisition and give the hold back.
TEST(RealRedis, ReplicaCheckWithoutReplicasFailsAndReleases) {
  RedisServerProcess server;
  SocketEnv env({server.port()}, "client-a");
  EXPECT_EQ(env.connection().call({"WAIT", "1", "50"}), Reply::integer(0));
  ReentrantLock lock(env, "k", {.default_lease = 10s, .sync_replicas = 1, .sync_timeout = 100ms});
  try {
    lock.try_lock();
    ADD_FAILURE() << "acquired although no replica acknowledged";
  } catch (const ReplicaSyncError& e) {
    EXPECT_NE(std::string(e.what()).find("only 0 of 1 replicas"), std::string::npos) << e.what();
  }
  EXPECT_EQ(env.connection().call({"EXISTS", "k"}), Reply::integer(0));
  EXPECT_EQ(env.spawned, 0) << "no watchdog for a failed acquisition";

  // Asking for zero replicas is the option switched off: no WAIT, it holds.
  ReentrantLock plain(env, "k", {.default_lease = 10s});
  EXPECT_TRUE(plain.try_lock());
  EXPECT_EQ(plain.hold_count(), 1);
  plain.unlock();
}

TEST(RealRedis, RedlockOverThreeServers) {
  RedisServerProcess s0, s1, s2;
  SocketEnv a({s0.port(), s1.port(), s2.port()}, "client-a", 1);
  SocketEnv b({s0.port(), s1.port(), s2.port()}, "client-b", 2);
  Redlock la(a, "k", {.lease = 5s, .retry_delay_min = 1ms, .retry_delay_max = 5ms});
  Redlock lb(b, "k", {.lease = 5s, .retry_delay_min = 1ms, .retry_delay_max = 5ms});
  ASSERT_TRUE(la.try_lock());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a.connection(i).call({"GET", "k"}), Reply::bulk(la.owner())) << "server " << i;
  }
  EXPECT_GT(la.validity_left(), 4800ms);
  EXPECT_FALSE(lb.try_lock());
  EXPECT_FALSE(lb.try_lock_for(50ms));
  EXPECT_TRUE(la.extend(8s));
  EXPECT_GT(la.remaining_lease(), 7900ms);
  la.unlock();
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(a.connection(i).call({"EXISTS", "k"}), Reply::integer(0));

  // One server down: 2 of 3 is still a quorum.
  s2.stop();
  ASSERT_TRUE(lb.try_lock());
  EXPECT_TRUE(lb.is_held_by_current_thread());
  EXPECT_FALSE(la.try_lock());
  lb.unlock();

  // Two down: no quorum; the one reachable server is cleaned up.
  s1.stop();
  EXPECT_FALSE(la.try_lock());
  EXPECT_EQ(a.connection(0).call({"EXISTS", "k"}), Reply::integer(0));
}

// A server that answers too late counts as a failure (the per-server
// timeout): DEBUG SLEEP holds server 1 for 300 ms, longer than the 50 ms
// timeout, and 2 of 3 still make the quorum.
TEST(RealRedis, RedlockPerServerTimeout) {
  RedisServerProcess s0, s1, s2;
  SocketEnv a({s0.port(), s1.port(), s2.port()}, "client-a");
  SocketConnection sleeper(s1.port());
  std::thread slow([&] {
    try {
      sleeper.call({"DEBUG", "SLEEP", "0.3"});
    } catch (const Error&) {
    }
  });
  std::this_thread::sleep_for(30ms);  // the sleep has begun
  Redlock lock(a, "k", {.lease = 5s, .server_timeout = 50ms});
  const bool taken = lock.try_lock();
  slow.join();
  EXPECT_TRUE(taken);
  EXPECT_EQ(a.connection(0).call({"GET", "k"}), Reply::bulk(lock.owner()));
  lock.unlock();
}

}  // namespace
}  // namespace redsim::lock

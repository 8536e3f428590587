// FairLock in both worlds (two_worlds_test_util.h): the fake with simulated fibers and
// a real redis-server through hiredis with real threads, same assertions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lock/fair_lock.h"
#include "lock/hiredis/two_worlds_test_util.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using testing_util::await;
using testing_util::Body;
using testing_util::RealLockWorld;
using testing_util::signal;
using testing_util::SimLockWorld;

template <class W>
class FairSuite : public ::testing::Test {};

struct WorldName {
  template <class W>
  static std::string GetName(int) {
    return W::kName;
  }
};
using Worlds = ::testing::Types<SimLockWorld, RealLockWorld>;
TYPED_TEST_SUITE(FairSuite, Worlds, WorldName);

const FairLockOptions kTenSeconds{.lock_watchdog_timeout = 30s, .default_lease = 10s};
constexpr const char* kQueue = "redisson_lock_queue:{k}";

// Polls LLEN of the queue every 2 ms until it is at least `n`.
bool await_queued(Env& env, int64_t n) {
  const auto deadline = env.now() + Micros(10s);
  while (env.now() < deadline) {
    if (env.connection().call({"LLEN", kQueue}).integer() >= n) return true;
    env.sleep_for(2ms);
  }
  return false;
}

// A holder and three waiters that queue one after the other (each starts
// once the one before is in the queue): they get the lock in that order,
// each woken by its own channel (the lease is 10 s; a waiter not told would
// sleep until the place ahead of it ends, seconds later).
TYPED_TEST(FairSuite, WaitersGetTheLockInQueueOrder) {
  TypeParam world;
  std::vector<Micros> waited(3);
  std::vector<Body> clients;
  clients.push_back([](Env& env) {
    FairLock lock(env, "k", kTenSeconds);
    lock.lock();
    signal(env, "held");
    EXPECT_TRUE(await_queued(env, 3));
    lock.unlock();
  });
  for (int i = 0; i < 3; ++i) {
    clients.push_back([i, &waited](Env& env) {
      FairLock lock(env, "k", kTenSeconds);
      ASSERT_TRUE(await(env, "held"));
      ASSERT_TRUE(await_queued(env, i));
      const auto start = env.now();
      lock.lock();
      waited[static_cast<size_t>(i)] = env.now() - start;
      env.connection().call({"RPUSH", "order", std::to_string(i + 1)});
      env.sleep_for(20ms);
      lock.unlock();
    });
  }
  world.run(std::move(clients));
  EXPECT_EQ(world.redis({"LRANGE", "order", "0", "-1"}),
            Reply::array({Reply::bulk("1"), Reply::bulk("2"), Reply::bulk("3")}));
  EXPECT_EQ(world.redis({"EXISTS", "k", kQueue, "redisson_lock_timeout:{k}"}), Reply::integer(0));
  for (const Micros w : waited) EXPECT_LT(w, Micros(5s));
}

}  // namespace
}  // namespace redsim::lock

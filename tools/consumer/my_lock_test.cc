// A user's own Redis lock, tested with redsim's public testing harness.
// This is the README's example; tools/consumer_project_test.sh builds it
// against the installed package.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <string>

#include "lock/env.h"
#include "sim/world/testing/generators.h"
#include "sim/world/testing/gtest.h"

using namespace std::chrono_literals;
namespace harness = redsim::harness;

enum class Unlock { kGetThenDel, kCompareAndDelete };

// The lock under test, written against redsim::lock::Env only (the same
// code runs against a real Redis through another Env): SET NX PX with a
// 100 ms lease, polling every 2 ms while waiting.
class MyLock {
 public:
  MyLock(redsim::lock::Env& env, std::string key, Unlock how)
      : env_(env), key_(std::move(key)), how_(how) {}

  bool try_lock_for(std::chrono::microseconds wait) {
    token_ = env_.client_id() + ":" + std::to_string(env_.task_id()) + ":" +
             std::to_string(env_.random_u64());
    const auto deadline = env_.now() + wait;
    for (;;) {
      if (env_.connection().call({"SET", key_, token_, "NX", "PX", "100"}).is_status()) return true;
      if (env_.now() >= deadline) return false;
      env_.sleep_for(2ms);
    }
  }

  bool unlock() {
    if (how_ == Unlock::kGetThenDel) {  // two commands: the lease can end in between
      const auto current = env_.connection().call({"GET", key_});
      if (!current.is_bulk() || current.str() != token_) return false;
      env_.connection().call({"DEL", key_});
      return true;
    }
    const auto deleted = env_.connection().call(
        {"EVAL",
         "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) "
         "else return 0 end",
         "1", key_, token_});
    return deleted.is_integer() && deleted.integer() == 1;
  }

 private:
  redsim::lock::Env& env_;
  std::string key_;
  Unlock how_;
  std::string token_;
};

harness::LockFactory my_lock(Unlock how) {
  return harness::lock_factory(
      [how](redsim::lock::Env& env, const std::string& key) { return MyLock(env, key, how); });
}

// A is paused right after the first reply of its unlock, past its lease;
// B takes the expired lock; A's late DEL removes B's lock; C enters beside B.
TEST(MyLock, GetThenDelUnlockBreaksOnExpireThenDelete) {
  const harness::RunResult r =
      harness::run_expire_then_delete(my_lock(Unlock::kGetThenDel), {.lease = 100ms});
  EXPECT_TRUE(r.has("mutual-exclusion")) << harness::report(r, "");
}

TEST(MyLock, CompareAndDeleteUnlockSurvivesExpireThenDelete) {
  EXPECT_TRUE(harness::is_safe(
      harness::run_expire_then_delete(my_lock(Unlock::kCompareAndDelete), {.lease = 100ms})));
}

// Five simulated clients, three attempts each, 0..2 ms latency.
class MyLockWorld : public harness::LockWorldTest {};

TEST_F(MyLockWorld, FiveClientsTakeTurns) {
  world_options().faults.latency_max = 2ms;
  spawn_clients(5, my_lock(Unlock::kCompareAndDelete), {.attempts = 3, .work = 10ms});
  run();
  EXPECT_TRUE(no_violations());
}

// Random schedules: 2..8 clients, latency, pauses and crashes within the
// 100 ms lease. A failure prints the shrunk plan, its seed and timeline.
RC_GTEST_PROP(MyLock, NeverTwoHoldersAtOnce, ()) {
  const auto plan = *harness::gen_plan(100ms);
  harness::rc_assert_safe(plan, harness::run_plan(plan, my_lock(Unlock::kCompareAndDelete)));
}

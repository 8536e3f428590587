// Running ahead (Processes::run_ahead, Scheduler::next_ahead): a task that
// blocks runs the next events on its own stack when they resume no fiber,
// and goes on without a switch when its own run comes next. It must change
// nothing a run records: each world here runs twice, once with the default
// 256 KiB fiber stacks (they run ahead) and once with 128 KiB stacks (less
// than Processes::kAheadStackBytes: every event runs on the scheduler's
// stack), and the two histories must be equal, byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/reentrant_lock.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr size_t kAheadStack = 256 * 1024;
constexpr size_t kNoAheadStack = 128 * 1024;

// Three clients contend for one ReentrantLock (commands, pub/sub waits,
// the unlock latch's detached DELs) under `faults`, with `seed`.
std::string contention_history(size_t stack_bytes, const FaultPlan& faults, uint64_t seed,
                               int pct_depth = 0) {
  WorldOptions options;
  options.seed = seed;
  options.strategy.depth = pct_depth;
  options.faults = faults;
  options.fiber_stack_bytes = stack_bytes;
  options.command_timeout = milliseconds(50);
  World w(options);
  for (int i = 0; i < 3; ++i) {
    w.spawn_process("c" + std::to_string(i), [](ProcessEnv& env) {
      lock::ReentrantLockOptions lock_options;
      lock_options.lock_watchdog_timeout = milliseconds(300);  // a watchdog task renews it
      lock::ReentrantLock lk(env, "orders", lock_options);
      for (int k = 0; k < 6; ++k) {
        try {
          if (!lk.try_lock_for(milliseconds(300))) continue;
          env.enter_critical("orders");
          env.sleep_for(microseconds(500));
          env.leave_critical("orders");
          lk.unlock();
        } catch (const lock::Error&) {
          // Lost replies and timeouts: the next round tries again.
        }
      }
    });
  }
  w.run();
  EXPECT_GT(w.history().size(), 50u);
  return w.history().canonical();
}

TEST(RunAhead, ZeroLatencyHistoriesAreUnchanged) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    EXPECT_EQ(contention_history(kAheadStack, {}, seed),
              contention_history(kNoAheadStack, {}, seed))
        << "seed " << seed;
  }
}

// Every client-side fault (pauses, whose end replays held deliveries, task
// pauses, crashes and restarts, lost requests and replies, timeouts,
// delays, partitions) with latencies of 0 or more.
FaultPlan every_fault() {
  FaultPlan faults;
  faults.latency_min = microseconds(0);
  faults.latency_max = microseconds(200);
  faults.pause_ppm = base::Ppm(20'000);
  faults.pause_min = milliseconds(1);
  faults.pause_max = milliseconds(20);
  faults.task_pause_ppm = base::Ppm(20'000);
  faults.loss_ppm = base::Ppm(10'000);
  faults.lost_reply_ppm = base::Ppm(10'000);
  faults.crash_ppm = base::Ppm(2'000);
  faults.restart_ppm = base::Ppm(500'000);
  faults.restart_min = milliseconds(1);
  faults.restart_max = milliseconds(5);
  faults.delay_ppm = base::Ppm(20'000);
  faults.delay_min = microseconds(100);
  faults.delay_max = milliseconds(2);
  faults.partition_ppm = base::Ppm(5'000);
  faults.partition_min = milliseconds(1);
  faults.partition_max = milliseconds(10);
  return faults;
}

TEST(RunAhead, HistoriesWithLatencyAndFaultsAreUnchanged) {
  const FaultPlan faults = every_fault();
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(contention_history(kAheadStack, faults, seed),
              contention_history(kNoAheadStack, faults, seed))
        << "seed " << seed;
  }
}

TEST(RunAhead, PctHistoriesAreUnchanged) {
  const FaultPlan faults = every_fault();
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    EXPECT_EQ(contention_history(kAheadStack, faults, seed, /*pct_depth=*/3),
              contention_history(kNoAheadStack, faults, seed, /*pct_depth=*/3))
        << "seed " << seed;
  }
}

// Scripts whose C recursion is as deep as Lua and cjson allow run on the
// task's stack when it runs ahead: the 192 KiB it keeps must hold them.
std::vector<std::string> deep_script_replies(size_t stack_bytes) {
  WorldOptions options;
  options.fiber_stack_bytes = stack_bytes;
  World w(options);
  std::vector<std::string> replies;
  w.spawn_process("deep", [&replies](ProcessEnv& env) {
    lock::Connection& c = env.connection();
    // pcall within pcall until Lua's C stack limit stops it.
    replies.push_back(c.call({"EVAL",
                              "local function f(n) local ok, r = pcall(f, n + 1) "
                              "if ok then return r end return n end return f(1)",
                              "0"})
                          .debug_string());
    // cjson's deepest nesting (its decode_max_depth, 1000).
    replies.push_back(c.call({"EVAL",
                              "local s = string.rep('[', 1000) .. string.rep(']', 1000) "
                              "local v = cjson.decode(s) local d = 0 "
                              "while type(v) == 'table' do d = d + 1 v = v[1] end return d",
                              "0"})
                          .debug_string());
    // A pattern match at its recursion limit.
    replies.push_back(
        c.call({"EVAL", "return string.find(string.rep('a', 150), string.rep('a?', 150))", "0"})
            .debug_string());
  });
  w.run();
  return replies;
}

TEST(RunAhead, DeepScriptsRunOnATasksStack) {
  const std::vector<std::string> ahead = deep_script_replies(kAheadStack);
  ASSERT_EQ(ahead.size(), 3u);
  EXPECT_EQ(ahead[0].rfind("(integer) ", 0), 0u) << ahead[0];  // the depth Lua stopped at
  EXPECT_EQ(ahead[1], "(integer) 1000");
  EXPECT_EQ(ahead[2], "(integer) 1");
  EXPECT_EQ(ahead, deep_script_replies(kNoAheadStack));
}

}  // namespace
}  // namespace redsim::world

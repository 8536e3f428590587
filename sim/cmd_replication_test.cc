// WAIT. Expected texts are what redis-server 7.0.15 answered to the same
// commands (port 24001, no replicas).
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ReplicationCommandsTest : public ServerTest {};

TEST_F(ReplicationCommandsTest, WaitArgumentErrors) {
  EXPECT_EQ(run({"WAIT"}), Err("ERR wrong number of arguments for 'wait' command"));
  EXPECT_EQ(run({"WAIT", "1", "0", "x"}), Err("ERR wrong number of arguments for 'wait' command"));
  EXPECT_EQ(run({"WAIT", "a", "0"}), Err(kNotInt));
  EXPECT_EQ(run({"WAIT", "0", "a"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(run({"WAIT", "0", "1.5"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(run({"WAIT", "0", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(run({"EVAL", "return redis.call('wait',0,0)", "0"}),
            Err("ERR This Redis command is not allowed from script script: "
                "bf73943552e0faee9594d9a1c5ba3d14c7dccd99, on @user_script:1."));
}

TEST_F(ReplicationCommandsTest, WaitWithoutReplicasAnswersZeroAndAsksToBlock) {
  EXPECT_EQ(run({"WAIT", "-1", "0"}), Int(0));
  EXPECT_FALSE(s_->take_blocked_wait().has_value());  // 0 >= -1: satisfied
  EXPECT_EQ(run({"WAIT", "1", "10"}), Int(0));
  auto blocked = s_->take_blocked_wait();
  ASSERT_TRUE(blocked.has_value());
  EXPECT_EQ(blocked->numreplicas, 1);
  EXPECT_EQ(blocked->timeout_ms, 10);
  EXPECT_FALSE(s_->take_blocked_wait().has_value());
}

TEST_F(ReplicationCommandsTest, WaitInsideMultiNeverBlocks) {
  EXPECT_EQ(run({"MULTI"}), Status("OK"));
  EXPECT_EQ(run({"WAIT", "1", "100"}), Status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), resp::Reply::array({Int(0)}));
  EXPECT_FALSE(s_->take_blocked_wait().has_value());
}

TEST_F(ReplicationCommandsTest, HooksSeeWritesAndAnswerWait) {
  int writes = 0;
  uint64_t offset = 0;
  ReplicationHooks hooks;
  hooks.after_write = [&](Session& s) {
    ++writes;
    s.set_repl_offset(++offset);
  };
  hooks.acked_replicas = [&](uint64_t o) { return o <= 1 ? int64_t{2} : int64_t{1}; };
  server_->set_replication_hooks(hooks);
  run({"GET", "k"});
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(run({"WAIT", "2", "0"}), Int(2));  // offset 0: everything acknowledged
  run({"SET", "k", "v"});
  run({"EVAL", "return 1", "0"});
  EXPECT_EQ(writes, 2);
  EXPECT_EQ(s_->repl_offset(), 2u);
  EXPECT_EQ(run({"WAIT", "2", "0"}), Int(1));
  EXPECT_TRUE(s_->take_blocked_wait().has_value());
}

}  // namespace
}  // namespace redsim::sim

// Blocking commands and their serving order (sim/blocking.h). Expected
// texts are what redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class BlockingTest : public ServerTest {
 protected:
  // The replies of the blocks that ended, as (session id, reply).
  std::vector<std::pair<uint64_t, resp::Reply>> unblocked() {
    std::vector<std::pair<uint64_t, resp::Reply>> out;
    for (auto& u : server_->take_unblocked()) out.emplace_back(u.session->id(), u.reply);
    return out;
  }
  std::unique_ptr<Session> b_ = server_->connect();
  std::unique_ptr<Session> c_ = server_->connect();
};

TEST_F(BlockingTest, ServesAtOnceWhenDataIsThere) {
  run({"RPUSH", "l", "a", "b"});
  EXPECT_EQ(run({"BLPOP", "none", "l", "0"}), Bulks({"l", "a"}));
  EXPECT_EQ(run({"BRPOP", "l", "0"}), Bulks({"l", "b"}));
  EXPECT_EQ(run({"EXISTS", "l"}), Int(0));
  EXPECT_FALSE(s_->blocked());
  run({"ZADD", "z", "1", "a", "2", "b"});
  EXPECT_EQ(run({"BZPOPMAX", "z", "0"}), Arr({Bulk("z"), Bulk("b"), Bulk("2")}));
  EXPECT_EQ(run({"ZMPOP", "1", "z", "MIN", "COUNT", "5"}),
            Arr({Bulk("z"), Arr({Bulks({"a", "1"})})}));
  EXPECT_EQ(run({"ZMPOP", "1", "z", "MIN"}), resp::Reply::nil_array());
  run({"RPUSH", "l", "a", "b", "c"});
  EXPECT_EQ(run({"LMPOP", "2", "x", "l", "RIGHT", "COUNT", "2"}),
            Arr({Bulk("l"), Bulks({"c", "b"})}));
  EXPECT_EQ(run({"BLMOVE", "l", "m", "LEFT", "RIGHT", "0"}), Bulk("a"));
  EXPECT_EQ(run({"LRANGE", "m", "0", "-1"}), Bulks({"a"}));
}

TEST_F(BlockingTest, ArgumentErrors) {
  EXPECT_EQ(run({"BLPOP", "l", "abc"}), Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(run({"BLPOP", "l", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(run({"BLPOP", "l", "1e20"}), Err("ERR timeout is negative"));
  EXPECT_EQ(run({"LMPOP", "0", "a", "LEFT"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(run({"LMPOP", "2", "a", "LEFT"}), Err(kSyntax));
  EXPECT_EQ(run({"LMPOP", "1", "a", "LEFT", "COUNT", "0"}),
            Err("ERR count should be greater than 0"));
  EXPECT_EQ(run({"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"}), Err(kSyntax));
  // BLMPOP checks everything else before its timeout.
  EXPECT_EQ(run({"BLMPOP", "-1", "1", "a", "UP"}), Err(kSyntax));
  EXPECT_EQ(run({"BLMOVE", "a", "b", "UP", "LEFT", "x"}), Err(kSyntax));
  EXPECT_EQ(run({"BLMOVE", "a", "b", "LEFT", "LEFT", "x"}),
            Err("ERR timeout is not a float or out of range"));
  run({"SET", "s", "v"});
  EXPECT_EQ(run({"BLPOP", "s", "0"}), Err(kWrongType));
  EXPECT_EQ(run({"CLIENT", "UNBLOCK", "1", "foo"}),
            Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
  EXPECT_FALSE(s_->blocked());
}

TEST_F(BlockingTest, FirstBlockedFirstServed) {
  run(*s_, {"BLPOP", "q", "0"});
  run(*b_, {"BRPOP", "q", "0"});
  EXPECT_TRUE(s_->blocked());
  EXPECT_TRUE(b_->blocked());
  EXPECT_EQ(run(*c_, {"INFO", "clients"}).str().find("blocked_clients:2") != std::string::npos,
            true);
  EXPECT_EQ(run(*c_, {"RPUSH", "q", "x"}), Int(1));
  auto got = unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, s_->id());
  EXPECT_EQ(got[0].second, Bulks({"q", "x"}));
  EXPECT_FALSE(s_->blocked());
  EXPECT_TRUE(b_->blocked());
  EXPECT_EQ(run(*c_, {"RPUSH", "q", "y", "z"}), Int(2));
  got = unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, Bulks({"q", "z"}));  // BRPOP: the tail
  EXPECT_EQ(run(*c_, {"LRANGE", "q", "0", "-1"}), Bulks({"y"}));
}

TEST_F(BlockingTest, ServedAtTheEndOfExecNotInBetween) {
  run(*s_, {"BLPOP", "q", "0"});
  run(*c_, {"MULTI"});
  run(*c_, {"RPUSH", "q", "a"});
  run(*c_, {"LPOP", "q"});
  run(*c_, {"RPUSH", "q", "b"});
  EXPECT_EQ(run(*c_, {"EXEC"}), Arr({Int(1), Bulk("a"), Int(1)}));
  auto got = unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, Bulks({"q", "b"}));
  // A push and a DEL in one EXEC: the key is gone when served, nobody wakes.
  run(*s_, {"BLPOP", "q", "0"});
  run(*c_, {"MULTI"});
  run(*c_, {"RPUSH", "q", "a"});
  run(*c_, {"DEL", "q"});
  run(*c_, {"EXEC"});
  EXPECT_TRUE(unblocked().empty());
  EXPECT_TRUE(s_->blocked());
}

TEST_F(BlockingTest, InsideMultiAndScriptsNeverBlocks) {
  run({"MULTI"});
  run({"BLPOP", "q", "0"});
  run({"BZPOPMIN", "z", "0"});
  run({"BLMOVE", "q", "r", "LEFT", "LEFT", "0"});
  EXPECT_EQ(run({"EXEC"}), Arr({resp::Reply::nil_array(), resp::Reply::nil_array(), Nil()}));
  // Redis 7.0's blocking commands are "noscript".
  EXPECT_EQ(run({"EVAL", "return redis.pcall('blpop', 'q', 0)", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('bzpopmax', 'z', 0)", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_FALSE(s_->blocked());
}

TEST_F(BlockingTest, TimeoutOnTheServerClock) {
  run(*s_, {"BLPOP", "q", "0.5"});
  run(*b_, {"BZPOPMIN", "z", "0.2"});
  EXPECT_EQ(server_->next_block_deadline_ms(), now_ms() + 200);
  advance_ms(200);
  EXPECT_EQ(server_->time_out_blocked(), 0u);  // due once now > deadline
  advance_ms(1);
  EXPECT_EQ(server_->time_out_blocked(), 1u);
  auto got = unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, b_->id());
  EXPECT_EQ(got[0].second, resp::Reply::nil_array());
  advance_ms(300);
  EXPECT_EQ(server_->time_out_blocked(), 1u);
  EXPECT_EQ(unblocked()[0].first, s_->id());
}

// list.tcl "$pop: with 0.001 timeout should not block indefinitely":
// Redis rounds the timeout up to whole ms (ceill), so 0.001 s is 1 ms and
// 0.0001 s too; only 0 blocks forever.
TEST_F(BlockingTest, TinyTimeoutsRoundUpToOneMillisecond) {
  run(*s_, {"BLPOP", "q", "0.001"});
  EXPECT_EQ(server_->next_block_deadline_ms(), now_ms() + 1);
  run(*b_, {"BLMPOP", "0.0001", "1", "q", "LEFT"});
  EXPECT_EQ(server_->next_block_deadline_ms(), now_ms() + 1);
  advance_ms(2);
  EXPECT_EQ(server_->time_out_blocked(), 2u);
  EXPECT_FALSE(s_->blocked());
  EXPECT_FALSE(b_->blocked());
  run(*s_, {"BRPOP", "q", "0.0015"});
  EXPECT_EQ(server_->next_block_deadline_ms(), now_ms() + 2);
}

TEST_F(BlockingTest, ClientUnblock) {
  run(*s_, {"BLMOVE", "q", "r", "LEFT", "LEFT", "0"});
  std::string id = std::to_string(s_->id());
  EXPECT_EQ(run(*c_, {"CLIENT", "UNBLOCK", id}), Int(1));
  EXPECT_EQ(unblocked()[0].second, resp::Reply::nil_array());  // as redis-server 7.0.15
  EXPECT_EQ(run(*c_, {"CLIENT", "UNBLOCK", id}), Int(0));
  run(*s_, {"BLPOP", "q", "0"});
  EXPECT_EQ(run(*c_, {"CLIENT", "UNBLOCK", id, "ERROR"}), Int(1));
  EXPECT_EQ(unblocked()[0].second, Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
}

TEST_F(BlockingTest, LinkedMovesServeEachOtherInOneCommand) {
  run(*s_, {"BLMOVE", "l1", "l2", "LEFT", "LEFT", "0"});
  run(*b_, {"BRPOPLPUSH", "l2", "l3", "0"});
  EXPECT_EQ(run(*c_, {"RPUSH", "l1", "v"}), Int(1));
  auto got = unblocked();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].second, Bulk("v"));
  EXPECT_EQ(got[1].second, Bulk("v"));
  EXPECT_EQ(run(*c_, {"LRANGE", "l3", "0", "-1"}), Bulks({"v"}));
  EXPECT_EQ(run(*c_, {"EXISTS", "l1", "l2"}), Int(0));
}

// Redis's "Self-referential BRPOPLPUSH" (unit/type/list): the served move
// pops the only element and pushes it back onto the same list, which must
// stay (it crashed redsim server: the emptied source was deleted before the
// push to the same key).
TEST_F(BlockingTest, SelfReferentialMoveKeepsTheElement) {
  run(*s_, {"BRPOPLPUSH", "blist", "blist", "0"});
  EXPECT_EQ(run(*c_, {"RPUSH", "blist", "foo"}), Int(1));
  auto got = unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, Bulk("foo"));
  EXPECT_EQ(run(*c_, {"LRANGE", "blist", "0", "-1"}), Bulks({"foo"}));
  EXPECT_EQ(run(*c_, {"BLMOVE", "blist", "blist", "LEFT", "RIGHT", "0"}), Bulk("foo"));
  EXPECT_EQ(run(*c_, {"LRANGE", "blist", "0", "-1"}), Bulks({"foo"}));
}

TEST_F(BlockingTest, DisconnectEndsTheBlockSilently) {
  run(*b_, {"BLPOP", "q", "0"});
  b_.reset();
  EXPECT_EQ(server_->blocked_clients(), 0u);
  run(*c_, {"RPUSH", "q", "x"});
  EXPECT_TRUE(unblocked().empty());
  EXPECT_EQ(run(*c_, {"LLEN", "q"}), Int(1));
}

TEST_F(BlockingTest, WrongTypeKeyDoesNotWake) {
  run(*s_, {"BLPOP", "q", "0"});
  run(*c_, {"SET", "q", "v"});
  EXPECT_TRUE(unblocked().empty());
  EXPECT_TRUE(s_->blocked());
}

}  // namespace
}  // namespace redsim::sim

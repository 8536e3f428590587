// Hash commands. Expected texts, values and field orders are what
// redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class HashTest : public ServerTest {};

TEST_F(HashTest, InsertionOrderLikeListpack) {
  EXPECT_EQ(run({"HSET", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(run({"HSET", "h", "b", "20", "d", "4"}), Int(1));
  EXPECT_EQ(run({"HGETALL", "h"}), Bulks({"a", "1", "b", "20", "c", "3", "d", "4"}));
  EXPECT_EQ(run({"HDEL", "h", "b", "x"}), Int(1));
  EXPECT_EQ(run({"HGETALL", "h"}), Bulks({"a", "1", "c", "3", "d", "4"}));
  EXPECT_EQ(run({"HSET", "h", "b", "5"}), Int(1));
  EXPECT_EQ(run({"HKEYS", "h"}), Bulks({"a", "c", "d", "b"}));
  EXPECT_EQ(run({"HVALS", "h"}), Bulks({"1", "3", "4", "5"}));
  EXPECT_EQ(run({"HLEN", "h"}), Int(4));
}

TEST_F(HashTest, RepeatedFieldInOneHset) {
  EXPECT_EQ(run({"HSET", "h", "a", "1", "a", "2", "a", "3"}), Int(1));
  EXPECT_EQ(run({"HGET", "h", "a"}), Bulk("3"));
}

TEST_F(HashTest, HsetArity) {
  const char* hset = "ERR wrong number of arguments for 'hset' command";
  const char* hmset = "ERR wrong number of arguments for 'hmset' command";
  EXPECT_EQ(run({"HSET", "h", "a"}), Err(hset));
  EXPECT_EQ(run({"HSET", "h"}), Err(hset));
  EXPECT_EQ(run({"HSET", "h", "a", "1", "b"}), Err(hset));
  EXPECT_EQ(run({"HMSET", "h", "a"}), Err(hmset));
  EXPECT_EQ(run({"HMSET", "h", "a", "1", "b"}), Err(hmset));
  EXPECT_EQ(run({"EXISTS", "h"}), Int(0));
  EXPECT_EQ(run({"HMSET", "h", "x", "9"}), Ok());
}

TEST_F(HashTest, HsetnxHgetHmgetHexists) {
  EXPECT_EQ(run({"HSETNX", "h", "x", "9"}), Int(1));
  EXPECT_EQ(run({"HSETNX", "h", "x", "10"}), Int(0));
  EXPECT_EQ(run({"HGET", "h", "x"}), Bulk("9"));
  EXPECT_EQ(run({"HGET", "h", "nof"}), Nil());
  EXPECT_EQ(run({"HGET", "nokey", "f"}), Nil());
  run({"HSET", "h", "a", "1"});
  EXPECT_EQ(run({"HMGET", "h", "x", "nof", "a"}), Arr({Bulk("9"), Nil(), Bulk("1")}));
  EXPECT_EQ(run({"HMGET", "nokey", "a", "b"}), Arr({Nil(), Nil()}));
  EXPECT_EQ(run({"HEXISTS", "h", "x"}), Int(1));
  EXPECT_EQ(run({"HEXISTS", "h", "nof"}), Int(0));
  EXPECT_EQ(run({"HEXISTS", "nokey", "nof"}), Int(0));
  EXPECT_EQ(run({"HLEN", "nokey"}), Int(0));
  EXPECT_EQ(run({"HGETALL", "nokey"}), Arr({}));
  EXPECT_EQ(run({"HKEYS", "nokey"}), Arr({}));
  EXPECT_EQ(run({"HVALS", "nokey"}), Arr({}));
}

TEST_F(HashTest, HdelRemovesTheKeyWithItsLastField) {
  run({"HSET", "h", "a", "1", "b", "2"});
  EXPECT_EQ(run({"HDEL", "h", "a", "b", "c"}), Int(2));
  EXPECT_EQ(run({"EXISTS", "h"}), Int(0));
  EXPECT_EQ(run({"HDEL", "h", "a"}), Int(0));
}

TEST_F(HashTest, Hincrby) {
  EXPECT_EQ(run({"HINCRBY", "h", "n", "5"}), Int(5));
  EXPECT_EQ(run({"HINCRBY", "h", "n", "-7"}), Int(-2));
  EXPECT_EQ(run({"HGET", "h", "n"}), Bulk("-2"));
  EXPECT_EQ(run({"HINCRBY", "h", "n", "abc"}), Err(kNotInt));
  EXPECT_EQ(run({"HINCRBY", "h", "n", "1.5"}), Err(kNotInt));
  run({"HSET", "h", "s", "abc", "z", "007"});
  EXPECT_EQ(run({"HINCRBY", "h", "s", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(run({"HINCRBY", "h", "z", "1"}), Err("ERR hash value is not an integer"));
  run({"HSET", "h", "big", "9223372036854775807", "neg", "-9223372036854775808"});
  EXPECT_EQ(run({"HINCRBY", "h", "big", "1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(run({"HINCRBY", "h", "neg", "-1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(run({"HINCRBY", "h", "big", "-9223372036854775808"}), Int(-1));
}

TEST_F(HashTest, WrongType) {
  run({"SET", "str", "v"});
  for (auto argv : std::vector<Argv>{{"HSET", "str", "a", "b"},
                                     {"HMSET", "str", "a", "b"},
                                     {"HSETNX", "str", "a", "b"},
                                     {"HGET", "str", "a"},
                                     {"HMGET", "str", "a"},
                                     {"HDEL", "str", "a"},
                                     {"HEXISTS", "str", "a"},
                                     {"HINCRBY", "str", "a", "1"},
                                     {"HGETALL", "str"},
                                     {"HKEYS", "str"},
                                     {"HVALS", "str"},
                                     {"HLEN", "str"}}) {
    EXPECT_EQ(server_->execute(*s_, argv), Err(kWrongType)) << argv[0];
  }
  EXPECT_EQ(run({"HINCRBY", "str", "a", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"GET", "str"}), Bulk("v"));
}

TEST_F(HashTest, ArityErrors) {
  for (auto [argv, name] :
       std::vector<std::pair<Argv, std::string>>{{{"HINCRBY", "h", "f"}, "hincrby"},
                                                 {{"HDEL", "h"}, "hdel"},
                                                 {{"HGET", "h"}, "hget"},
                                                 {{"HMGET", "h"}, "hmget"},
                                                 {{"HEXISTS", "h"}, "hexists"},
                                                 {{"HLEN"}, "hlen"},
                                                 {{"HGETALL"}, "hgetall"},
                                                 {{"HKEYS"}, "hkeys"},
                                                 {{"HVALS"}, "hvals"},
                                                 {{"HSETNX", "h", "a"}, "hsetnx"}}) {
    EXPECT_EQ(server_->execute(*s_, argv),
              Err("ERR wrong number of arguments for '" + name + "' command"))
        << name;
  }
}

}  // namespace
}  // namespace redsim::sim

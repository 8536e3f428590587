// Sorted set commands. Expected texts, values and score formats are what
// redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ZsetTest : public ServerTest {};

TEST_F(ZsetTest, ZaddFlagsAndErrors) {
  EXPECT_EQ(run({"ZADD", "z", "nx", "xx", "1", "a"}),
            Err("ERR XX and NX options at the same time are not compatible"));
  const char* gtlt = "ERR GT, LT, and/or NX options at the same time are not compatible";
  EXPECT_EQ(run({"ZADD", "z", "gt", "lt", "1", "a"}), Err(gtlt));
  EXPECT_EQ(run({"ZADD", "z", "nx", "gt", "1", "a"}), Err(gtlt));
  EXPECT_EQ(run({"ZADD", "z", "incr", "1", "a", "2", "b"}),
            Err("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(run({"ZADD", "z", "1"}), Err("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(run({"ZADD", "z", "1", "a", "2"}), Err(kSyntax));
  EXPECT_EQ(run({"ZADD", "z", "x", "1", "a"}), Err(kSyntax));
  EXPECT_EQ(run({"ZADD", "z", "nan", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"ZADD", "z", "1e400", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"ZADD", "z", " 1", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"EXISTS", "z"}), Int(0));
  EXPECT_EQ(run({"ZADD", "z", "incr", "nx", "1", "a"}), Bulk("1"));
  EXPECT_EQ(run({"ZADD", "z", "incr", "nx", "1", "a"}), Nil());
  EXPECT_EQ(run({"ZADD", "z", "xx", "incr", "1", "zz"}), Nil());
  EXPECT_EQ(run({"ZADD", "z", "5", "a", "3", "b"}), Int(1));
  EXPECT_EQ(run({"ZADD", "z", "gt", "ch", "4", "a", "6", "b", "1", "c"}), Int(2));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "WITHSCORES"}), Bulks({"c", "1", "a", "5", "b", "6"}));
  EXPECT_EQ(run({"ZADD", "z", "lt", "7", "a"}), Int(0));
  EXPECT_EQ(run({"ZADD", "z", "gt", "incr", "-1", "a"}), Nil());
  EXPECT_EQ(run({"ZADD", "z", "lt", "ch", "incr", "-1", "a"}), Bulk("4"));
  EXPECT_EQ(run({"ZADD", "z", "incr", "inf", "a"}), Bulk("inf"));
  EXPECT_EQ(run({"ZINCRBY", "z", "-inf", "a"}), Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(run({"ZADD", "z", "ch", "1", "a", "2", "a"}), Int(2));  // inf -> 1 -> 2
  EXPECT_EQ(run({"ZADD", "z", "ch", "2", "a", "2", "a"}), Int(0));
  EXPECT_EQ(run({"ZADD", "z", "ch", "nx", "9", "c"}), Int(0));
  EXPECT_EQ(run({"ZADD", "z", "xx", "9", "new"}), Int(0));
  EXPECT_EQ(run({"ZSCORE", "z", "new"}), Nil());
  EXPECT_EQ(run({"ZADD", "nz", "xx", "1", "a"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "nz"}), Int(0));
}

TEST_F(ZsetTest, ScoreFormatting) {
  EXPECT_EQ(run({"ZADD", "z", "0.1", "a", "1", "b", "inf", "c", "-inf", "d"}), Int(4));
  EXPECT_EQ(run({"ZSCORE", "z", "a"}), Bulk("0.10000000000000001"));
  EXPECT_EQ(run({"ZINCRBY", "z", "0.2", "a"}), Bulk("0.30000000000000004"));
  EXPECT_EQ(run({"ZADD", "z", "0x10", "e", "1e-320", "f", "12345678901234567890", "g"}), Int(3));
  EXPECT_EQ(run({"ZSCORE", "z", "e"}), Bulk("16"));
  EXPECT_EQ(run({"ZSCORE", "z", "f"}), Bulk("9.9998886718268301e-321"));
  EXPECT_EQ(run({"ZSCORE", "z", "g"}), Bulk("1.2345678901234567e+19"));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "0", "WITHSCORES"}), Bulks({"d", "-inf"}));
  EXPECT_EQ(run({"ZADD", "z", "-0", "h"}), Int(1));
  EXPECT_EQ(run({"ZSCORE", "z", "h"}), Bulk("0"));  // a listpack keeps -0 as 0
  const std::string long_member(70, 'x');
  EXPECT_EQ(run({"ZADD", "zs", "-0", long_member}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zs"}), Bulk("skiplist"));
  EXPECT_EQ(run({"ZSCORE", "zs", long_member}), Bulk("-0"));
  EXPECT_EQ(run({"EVAL", "return redis.call('ZSCORE', KEYS[1], 'a')", "1", "z"}),
            Bulk("0.30000000000000004"));
}

TEST_F(ZsetTest, Ranges) {
  EXPECT_EQ(run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "REV"}), Bulks({"e", "d", "c", "b", "a"}));
  EXPECT_EQ(run({"ZRANGE", "z", "1", "3", "WITHSCORES"}), Bulks({"b", "2", "c", "3", "d", "4"}));
  EXPECT_EQ(run({"ZRANGE", "z", "(1", "4", "BYSCORE"}), Bulks({"b", "c", "d"}));
  EXPECT_EQ(run({"ZRANGE", "z", "4", "(1", "BYSCORE", "REV", "WITHSCORES"}),
            Bulks({"d", "4", "c", "3", "b", "2"}));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "LIMIT", "1", "2"}),
            Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
                "BYLEX"));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"}), Bulks({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(run({"ZRANGE", "z", "1", "5", "BYSCORE", "LIMIT", "1", "2"}), Bulks({"b", "c"}));
  EXPECT_EQ(run({"ZRANGE", "z", "1", "5", "BYSCORE", "LIMIT", "1", "-1"}),
            Bulks({"b", "c", "d", "e"}));
  EXPECT_EQ(run({"ZRANGE", "z", "1", "5", "BYSCORE", "LIMIT", "-1", "2"}), Arr({}));
  EXPECT_EQ(run({"ZRANGE", "z", "-", "+", "BYLEX"}), Bulks({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(run({"ZRANGE", "z", "[b", "(d", "BYLEX"}), Bulks({"b", "c"}));
  EXPECT_EQ(run({"ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "0", "2"}), Bulks({"e", "d"}));
  EXPECT_EQ(run({"ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"}),
            Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"}), Err(kSyntax));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "REV", "REV"}), Err(kSyntax));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "LIMIT", "0"}), Err(kSyntax));
  EXPECT_EQ(run({"ZRANGE", "z", "a", "b", "BYLEX"}),
            Err("ERR min or max not valid string range item"));
  EXPECT_EQ(run({"ZRANGE", "z", "x", "1"}), Err(kNotInt));
  EXPECT_EQ(run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "0", "2"}),
            Bulks({"a", "1", "b", "2"}));
  EXPECT_EQ(run({"ZRANGEBYSCORE", "z", "1", "5", "REV"}), Err(kSyntax));
  EXPECT_EQ(run({"ZRANGEBYSCORE", "z", "(a", "2"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(run({"ZRANGEBYSCORE", "z", "", "1"}), Bulks({"a"}));  // strtod reads "" as 0
  EXPECT_EQ(run({"ZREVRANGEBYSCORE", "z", "5", "1", "LIMIT", "1", "2", "WITHSCORES"}),
            Bulks({"d", "4", "c", "3"}));
  EXPECT_EQ(run({"ZREVRANGE", "z", "0", "0", "WITHSCORES"}), Bulks({"e", "5"}));
  EXPECT_EQ(run({"ZRANGE", "noz", "0", "-1"}), Arr({}));
  EXPECT_EQ(run({"ZCOUNT", "z", "(1", "+inf"}), Int(4));
  EXPECT_EQ(run({"ZCOUNT", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(run({"ZRANK", "z", "c"}), Int(2));
  EXPECT_EQ(run({"ZREVRANK", "z", "c"}), Int(2));
  EXPECT_EQ(run({"ZRANK", "z", "nope"}), Nil());
  EXPECT_EQ(run({"ZRANK", "noz", "a"}), Nil());
  EXPECT_EQ(run({"ZCARD", "z"}), Int(5));
}

TEST_F(ZsetTest, BylexWalksLikeRedisOnMixedScores) {
  // Members d b c by score; Redis starts at the first member >= min and
  // stops at the first one past max, so nothing is found here.
  EXPECT_EQ(run({"ZADD", "z", "-1", "d", "0", "b", "1", "c"}), Int(3));
  EXPECT_EQ(run({"ZRANGE", "z", "[b", "(c", "BYLEX"}), Arr({}));
  EXPECT_EQ(run({"ZRANGE", "z", "-", "(c", "BYLEX"}), Arr({}));
  EXPECT_EQ(run({"ZRANGE", "z", "[a", "+", "BYLEX"}), Bulks({"d", "b", "c"}));
  EXPECT_EQ(run({"ZRANGE", "z", "+", "[c", "BYLEX", "REV"}), Bulks({"c"}));
  EXPECT_EQ(run({"ZRANGE", "z", "-", "-", "BYLEX"}), Arr({}));
  EXPECT_EQ(run({"ZRANGE", "z", "[c", "[b", "BYLEX"}), Arr({}));
}

TEST_F(ZsetTest, RemovalsAndPops) {
  EXPECT_EQ(run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(run({"ZPOPMIN", "z", "1", "2"}), Err(kSyntax));
  EXPECT_EQ(run({"ZPOPMIN", "z", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(run({"ZPOPMIN", "noz"}), Arr({}));
  EXPECT_EQ(run({"ZPOPMIN", "z", "0"}), Arr({}));
  EXPECT_EQ(run({"ZPOPMIN", "z"}), Bulks({"a", "1"}));
  EXPECT_EQ(run({"ZPOPMAX", "z", "2"}), Bulks({"e", "5", "d", "4"}));
  EXPECT_EQ(run({"ZREMRANGEBYRANK", "z", "0", "0"}), Int(1));
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1"}), Bulks({"c"}));
  EXPECT_EQ(run({"ZADD", "w", "1", "a", "1", "b", "1", "c", "2", "d"}), Int(4));
  EXPECT_EQ(run({"ZREMRANGEBYSCORE", "w", "(0", "1"}), Int(3));
  EXPECT_EQ(run({"ZREMRANGEBYSCORE", "w", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(run({"ZREMRANGEBYRANK", "w", "x", "1"}), Err(kNotInt));
  EXPECT_EQ(run({"ZREMRANGEBYRANK", "w", "5", "10"}), Int(0));
  EXPECT_EQ(run({"ZREMRANGEBYRANK", "w", "-1", "-1"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "w"}), Int(0));
  EXPECT_EQ(run({"ZREM", "z", "c", "d", "nope"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "z"}), Int(0));
  EXPECT_EQ(run({"ZMSCORE", "noz", "a"}), Arr({Nil()}));
}

TEST_F(ZsetTest, EncodingThresholds) {
  for (int i = 0; i < 128; ++i) run({"ZADD", "z", std::to_string(i), "m" + std::to_string(i)});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "z"}), Bulk("listpack"));
  EXPECT_EQ(run({"ZADD", "z", "500", "last"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "z"}), Bulk("skiplist"));
  EXPECT_EQ(run({"ZADD", "y", "1", "a"}), Int(1));
  EXPECT_EQ(run({"ZADD", "y", "1", std::string(65, 'm')}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "y"}), Bulk("skiplist"));
  EXPECT_EQ(run({"TYPE", "y"}), Status("zset"));
}

TEST_F(ZsetTest, WrongType) {
  EXPECT_EQ(run({"SET", "s", "v"}), Ok());
  for (auto argv : std::vector<Argv>{{"ZADD", "s", "1", "a"},
                                     {"ZSCORE", "s", "a"},
                                     {"ZRANGE", "s", "0", "1"},
                                     {"ZRANGEBYSCORE", "s", "0", "1"},
                                     {"ZCOUNT", "s", "0", "1"},
                                     {"ZPOPMIN", "s"},
                                     {"ZRANK", "s", "a"},
                                     {"ZREM", "s", "a"},
                                     {"ZINCRBY", "s", "1", "a"}}) {
    EXPECT_EQ(server_->execute(*s_, argv), Err(kWrongType)) << argv[0];
  }
}

TEST_F(ZsetTest, UnionInterDiff) {
  run({"ZADD", "z1", "1", "a", "2", "b", "3", "c"});
  run({"ZADD", "z2", "10", "b", "20", "c", "30", "d"});
  EXPECT_EQ(run({"ZUNION", "2", "z1", "z2", "WEIGHTS", "2", "3", "WITHSCORES"}),
            Bulks({"a", "2", "b", "34", "c", "66", "d", "90"}));
  EXPECT_EQ(run({"ZINTER", "2", "z1", "z2", "AGGREGATE", "MAX", "WITHSCORES"}),
            Bulks({"b", "10", "c", "20"}));
  EXPECT_EQ(run({"ZDIFF", "2", "z1", "z2", "WITHSCORES"}), Bulks({"a", "1"}));
  EXPECT_EQ(run({"ZDIFF", "2", "z1", "z2", "WEIGHTS", "1", "2"}), Err(kSyntax));
  EXPECT_EQ(run({"ZUNION", "0", "z1"}),
            Err("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(run({"ZUNION", "3", "z1", "z2"}), Err(kSyntax));
  EXPECT_EQ(run({"ZUNION", "2", "z1", "z2", "WEIGHTS", "1", "x"}),
            Err("ERR weight value is not a float"));
  EXPECT_EQ(run({"ZUNIONSTORE", "d", "2", "z1", "z2"}), Int(4));
  EXPECT_EQ(run({"ZRANGE", "d", "0", "-1", "WITHSCORES"}),
            Bulks({"a", "1", "b", "12", "c", "23", "d", "30"}));
  EXPECT_EQ(run({"ZUNIONSTORE", "d", "2", "z1", "z2", "WITHSCORES"}), Err(kSyntax));
  EXPECT_EQ(run({"ZINTERSTORE", "d", "2", "z1", "nokey"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "d"}), Int(0));
  EXPECT_EQ(run({"ZINTERCARD", "2", "z1", "z2", "LIMIT", "1"}), Int(1));
  // inf + -inf sums to 0.
  run({"ZADD", "zi", "inf", "x"});
  EXPECT_EQ(run({"ZUNION", "2", "zi", "zi", "WEIGHTS", "1", "-1", "WITHSCORES"}),
            Bulks({"x", "0"}));
  // A set's members score 1.
  run({"SADD", "s", "b", "q"});
  EXPECT_EQ(run({"ZINTER", "2", "z1", "s", "WITHSCORES"}), Bulks({"b", "3"}));
}

TEST_F(ZsetTest, RangestoreLexcountRemrangebylexRandmember) {
  run({"ZADD", "z1", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(run({"ZRANGESTORE", "d", "z1", "0", "-1", "REV", "LIMIT", "0", "1"}),
            Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
                "BYLEX"));
  EXPECT_EQ(run({"ZRANGESTORE", "d", "z1", "(1", "+inf", "BYSCORE"}), Int(2));
  EXPECT_EQ(run({"ZRANGE", "d", "0", "-1"}), Bulks({"b", "c"}));
  EXPECT_EQ(run({"ZRANGESTORE", "d", "z1", "0", "-1", "WITHSCORES"}), Err(kSyntax));
  EXPECT_EQ(run({"ZRANGESTORE", "d", "nokey", "0", "-1"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "d"}), Int(0));
  run({"ZADD", "lx", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"});
  EXPECT_EQ(run({"ZLEXCOUNT", "lx", "[b", "(d"}), Int(2));
  EXPECT_EQ(run({"ZLEXCOUNT", "lx", "foo", "+"}),
            Err("ERR min or max not valid string range item"));
  EXPECT_EQ(run({"ZREMRANGEBYLEX", "lx", "[b", "(d"}), Int(2));
  EXPECT_EQ(run({"ZRANGE", "lx", "0", "-1"}), Bulks({"a", "d", "e"}));
  EXPECT_EQ(run({"ZRANDMEMBER", "nokey"}), Nil());
  EXPECT_EQ(run({"ZRANDMEMBER", "z1", "0"}), Arr({}));
  // The whole set, highest first, when the count covers it.
  EXPECT_EQ(run({"ZRANDMEMBER", "z1", "10", "WITHSCORES"}), Bulks({"c", "3", "b", "2", "a", "1"}));
  EXPECT_EQ(run({"ZRANDMEMBER", "z1", "-5"}).elements().size(), 5u);
  EXPECT_EQ(run({"ZRANDMEMBER", "z1", "1", "2", "3"}), Err(kSyntax));
}

TEST_F(ZsetTest, ListpackLimitsFollowConfig) {
  EXPECT_EQ(run({"CONFIG", "SET", "zset-max-ziplist-entries", "1"}), Ok());
  run({"ZADD", "zz", "1", "a"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zz"}), Bulk("listpack"));
  run({"ZADD", "zz", "2", "b"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zz"}), Bulk("skiplist"));
  run({"ZREM", "zz", "b"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zz"}), Bulk("skiplist"));  // never converts back
  EXPECT_EQ(run({"CONFIG", "SET", "zset-max-listpack-entries", "0"}), Ok());
  run({"ZADD", "zz0", "1", "a"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zz0"}), Bulk("skiplist"));
  EXPECT_EQ(
      run({"CONFIG", "SET", "zset-max-listpack-entries", "128", "zset-max-ziplist-value", "3"}),
      Ok());
  run({"ZADD", "zl", "1", "abcd"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "zl"}), Bulk("skiplist"));
  EXPECT_EQ(run({"CONFIG", "GET", "zset-max-listpack-value"}),
            Arr({Bulk("zset-max-listpack-value"), Bulk("3")}));
}

TEST_F(ZsetTest, Resp3ScoredRepliesArePairs) {
  run({"ZADD", "z", "1", "a", "2", "b", "3", "c"});
  run({"HELLO", "3"});
  const resp::Reply one = resp::Reply::double_value(1);
  EXPECT_EQ(run({"ZRANGE", "z", "0", "0", "WITHSCORES"}), Arr({Arr({Bulk("a"), one})}));
  EXPECT_EQ(run({"ZUNION", "1", "z", "WITHSCORES"}).elements().size(), 3u);
  EXPECT_EQ(run({"ZPOPMIN", "z"}), Arr({Bulk("a"), one}));
  EXPECT_EQ(run({"ZPOPMAX", "z", "1"}), Arr({Arr({Bulk("c"), resp::Reply::double_value(3)})}));
}

}  // namespace
}  // namespace redsim::sim

// Set commands. Expected texts and values are what redis-server 7.0.15
// answered to the same commands; random choices are checked for their
// shape and for replaying under the same seed.
#include <gtest/gtest.h>

#include <set>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class SetTest : public ServerTest {};

std::multiset<std::string> as_multiset(const resp::Reply& r) {
  std::multiset<std::string> out;
  for (const auto& e : r.elements()) out.insert(e.str());
  return out;
}

TEST_F(SetTest, IntsetOrderAndConversion) {
  EXPECT_EQ(run({"SADD", "s", "3", "1", "2", "-5", "1"}), Int(4));
  EXPECT_EQ(run({"SMEMBERS", "s"}), Bulks({"-5", "1", "2", "3"}));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s"}), Bulk("intset"));
  EXPECT_EQ(run({"TYPE", "s"}), Status("set"));
  EXPECT_EQ(run({"SADD", "s", "01"}), Int(1));  // not canonical: no longer an intset
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s"}), Bulk("hashtable"));
  EXPECT_EQ(run({"SREM", "s", "01"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s"}), Bulk("hashtable"));  // never converts back
  for (int i = 0; i < 512; ++i) run({"SADD", "big", std::to_string(i)});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "big"}), Bulk("intset"));
  EXPECT_EQ(run({"SADD", "big", "512"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "big"}), Bulk("hashtable"));
  EXPECT_EQ(run({"SCARD", "big"}), Int(513));
  EXPECT_EQ(run({"SISMEMBER", "big", "511"}), Int(1));
}

TEST_F(SetTest, MembershipAndRemoval) {
  EXPECT_EQ(run({"SADD", "s", "a", "b"}), Int(2));
  EXPECT_EQ(run({"SISMEMBER", "s", "a"}), Int(1));
  EXPECT_EQ(run({"SISMEMBER", "nos", "a"}), Int(0));
  EXPECT_EQ(run({"SMISMEMBER", "s", "a", "z", "b"}), Arr({Int(1), Int(0), Int(1)}));
  EXPECT_EQ(run({"SMISMEMBER", "nos", "1", "2"}), Arr({Int(0), Int(0)}));
  EXPECT_EQ(run({"SMISMEMBER", "s"}),
            Err("ERR wrong number of arguments for 'smismember' command"));
  EXPECT_EQ(run({"SREM", "s", "a", "b", "c"}), Int(2));
  EXPECT_EQ(run({"EXISTS", "s"}), Int(0));
  EXPECT_EQ(run({"SCARD", "nos"}), Int(0));
  EXPECT_EQ(run({"SMEMBERS", "nos"}), Arr({}));
  EXPECT_EQ(run({"SADD", "s"}), Err("ERR wrong number of arguments for 'sadd' command"));
  EXPECT_EQ(run({"SET", "str", "v"}), Ok());
  EXPECT_EQ(run({"SADD", "str", "a"}), Err(kWrongType));
  EXPECT_EQ(run({"SMEMBERS", "str"}), Err(kWrongType));
  EXPECT_EQ(run({"SPOP", "str"}), Err(kWrongType));
}

TEST_F(SetTest, SpopAndSrandmemberShapes) {
  EXPECT_EQ(run({"SPOP", "nos"}), Nil());
  EXPECT_EQ(run({"SPOP", "nos", "2"}), Arr({}));
  EXPECT_EQ(run({"SRANDMEMBER", "nos"}), Nil());
  EXPECT_EQ(run({"SRANDMEMBER", "nos", "-2"}), Arr({}));
  EXPECT_EQ(run({"SADD", "s", "3", "1", "2", "-5"}), Int(4));
  EXPECT_EQ(run({"SPOP", "s", "0"}), Arr({}));
  EXPECT_EQ(run({"SRANDMEMBER", "s", "0"}), Arr({}));
  EXPECT_EQ(run({"SRANDMEMBER", "s", "10"}), Bulks({"-5", "1", "2", "3"}));
  EXPECT_EQ(run({"SPOP", "s", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(run({"SPOP", "s", "1", "2"}), Err(kSyntax));
  EXPECT_EQ(run({"SRANDMEMBER", "s", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"SRANDMEMBER", "s", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  resp::Reply some = run({"SRANDMEMBER", "s", "3"});
  ASSERT_EQ(some.elements().size(), 3u);
  std::set<std::string> distinct;
  for (const auto& e : some.elements()) distinct.insert(e.str());
  EXPECT_EQ(distinct.size(), 3u);
  resp::Reply many = run({"SRANDMEMBER", "s", "-20"});
  ASSERT_EQ(many.elements().size(), 20u);
  for (const auto& e : many.elements()) EXPECT_EQ(run({"SISMEMBER", "s", e.str()}), Int(1));
  resp::Reply popped = run({"SPOP", "s", "3"});
  ASSERT_EQ(popped.elements().size(), 3u);
  EXPECT_EQ(run({"SCARD", "s"}), Int(1));
  for (const auto& e : popped.elements()) EXPECT_EQ(run({"SISMEMBER", "s", e.str()}), Int(0));
  EXPECT_TRUE(run({"SPOP", "s"}).is_bulk());
  EXPECT_EQ(run({"EXISTS", "s"}), Int(0));
  EXPECT_EQ(run({"SADD", "u", "1", "x"}), Int(2));
  EXPECT_EQ(as_multiset(run({"SPOP", "u", "5"})), (std::multiset<std::string>{"1", "x"}));
  EXPECT_EQ(run({"EXISTS", "u"}), Int(0));
}

TEST(SetSeed, SameSeedSameDraws) {
  auto draws = [](uint64_t seed) {
    ManualClock clock;
    ServerOptions options;
    options.seed = seed;
    Server server(clock, options);
    auto s = server.connect();
    server.execute(*s, {"SADD", "s", "a", "b", "c", "d", "e", "f", "g", "h"});
    std::vector<resp::Reply> out;
    out.push_back(server.execute(*s, {"SRANDMEMBER", "s", "-10"}));
    out.push_back(server.execute(*s, {"SPOP", "s", "3"}));
    out.push_back(server.execute(*s, {"SPOP", "s"}));
    return out;
  };
  EXPECT_EQ(draws(7), draws(7));
  EXPECT_NE(draws(7), draws(8));
}

TEST_F(SetTest, SscanPagesEveryMember) {
  EXPECT_EQ(run({"SADD", "small", "2", "1"}), Int(2));
  EXPECT_EQ(run({"SSCAN", "small", "0", "COUNT", "1"}), Arr({Bulk("0"), Bulks({"1", "2"})}));
  for (int i = 0; i < 100; ++i) run({"SADD", "s", "m" + std::to_string(i)});
  std::multiset<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    resp::Reply r = run({"SSCAN", "s", cursor, "COUNT", "7"});
    cursor = r.elements()[0].str();
    for (const auto& e : r.elements()[1].elements()) seen.insert(e.str());
    ++calls;
  } while (cursor != "0" && calls < 1000);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_GT(calls, 10);
  EXPECT_EQ(run({"SSCAN", "s", "x"}), Err("ERR invalid cursor"));
}

// A RESP3 set reaches a RESP2 session as an array.
resp::Reply SetOf(std::initializer_list<std::string> items) { return Bulks(items); }

TEST_F(SetTest, AlgebraAndStoreForms) {
  run({"SADD", "s1", "1", "2", "3", "4"});
  run({"SADD", "s2", "3", "4", "5"});
  run({"SADD", "s3", "a", "b", "3"});
  EXPECT_EQ(run({"SINTER", "s1", "s2"}), SetOf({"3", "4"}));
  EXPECT_EQ(run({"SINTER", "s1", "s2", "nokey"}), SetOf({}));
  EXPECT_EQ(run({"SUNION", "s1", "s2"}), SetOf({"1", "2", "3", "4", "5"}));
  EXPECT_EQ(run({"SDIFF", "s1", "s2"}), SetOf({"1", "2"}));
  EXPECT_EQ(run({"SDIFF", "nokey", "s1"}), SetOf({}));
  EXPECT_EQ(run({"SINTERSTORE", "d", "s1", "s2"}), Int(2));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "d"}), Bulk("intset"));
  EXPECT_EQ(run({"SUNIONSTORE", "d", "s1", "s3"}), Int(6));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "d"}), Bulk("hashtable"));
  EXPECT_EQ(run({"SDIFFSTORE", "d", "s1", "s1"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "d"}), Int(0));
  run({"SET", "str", "x"});
  // Every key is type-checked, even after an absent one.
  EXPECT_EQ(run({"SINTER", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(run({"SUNION", "str"}), Err(kWrongType));
}

TEST_F(SetTest, SintercardAndSmove) {
  run({"SADD", "s1", "1", "2", "3", "4"});
  run({"SADD", "s2", "3", "4", "5"});
  EXPECT_EQ(run({"SINTERCARD", "2", "s1", "s2"}), Int(2));
  EXPECT_EQ(run({"SINTERCARD", "2", "s1", "s2", "LIMIT", "1"}), Int(1));
  EXPECT_EQ(run({"SINTERCARD", "2", "s1", "s2", "LIMIT", "-1"}),
            Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(run({"SINTERCARD", "0", "s1"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(run({"SINTERCARD", "3", "s1", "s2"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(run({"SINTERCARD", "1", "s1", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"SMOVE", "s1", "s2", "1"}), Int(1));
  EXPECT_EQ(run({"SMOVE", "s1", "s2", "1"}), Int(0));
  EXPECT_EQ(run({"SMOVE", "s1", "s1", "2"}), Int(1));
  EXPECT_EQ(run({"SMOVE", "nokey", "s1", "1"}), Int(0));
  run({"SET", "str", "x"});
  EXPECT_EQ(run({"SMOVE", "s1", "str", "2"}), Err(kWrongType));
  run({"SADD", "one", "x"});
  EXPECT_EQ(run({"SMOVE", "one", "fresh", "x"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "one"}), Int(0));
  EXPECT_EQ(run({"SMEMBERS", "fresh"}), Bulks({"x"}));
}

TEST_F(SetTest, IntsetLimitFollowsConfig) {
  EXPECT_EQ(run({"CONFIG", "SET", "set-max-intset-entries", "2"}), Ok());
  run({"SADD", "ints", "1", "2"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "ints"}), Bulk("intset"));
  run({"SADD", "ints", "3"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "ints"}), Bulk("hashtable"));
  EXPECT_EQ(run({"CONFIG", "GET", "set-max-intset-entries"}),
            Arr({Bulk("set-max-intset-entries"), Bulk("2")}));
}

}  // namespace
}  // namespace redsim::sim

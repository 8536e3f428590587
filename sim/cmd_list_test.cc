// List commands. Expected texts and values are what redis-server 7.0.15
// answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ListTest : public ServerTest {};

TEST_F(ListTest, PushPopRange) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b"}), Int(2));
  EXPECT_EQ(run({"LPUSH", "l", "x", "y"}), Int(4));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"y", "x", "a", "b"}));
  EXPECT_EQ(run({"LRANGE", "l", "-2", "100"}), Bulks({"a", "b"}));
  EXPECT_EQ(run({"LRANGE", "l", "-100", "0"}), Bulks({"y"}));
  EXPECT_EQ(run({"LRANGE", "l", "3", "1"}), Arr({}));
  EXPECT_EQ(run({"LRANGE", "l", "x", "1"}), Err(kNotInt));
  EXPECT_EQ(run({"LLEN", "l"}), Int(4));
  EXPECT_EQ(run({"LPOP", "l"}), Bulk("y"));
  EXPECT_EQ(run({"RPOP", "l"}), Bulk("b"));
  EXPECT_EQ(run({"TYPE", "l"}), Status("list"));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "l"}), Bulk("quicklist"));
  EXPECT_EQ(run({"LPUSHX", "nol", "a"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "nol"}), Int(0));
  EXPECT_EQ(run({"RPUSHX", "l", "p", "q"}), Int(4));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"x", "a", "p", "q"}));
  EXPECT_EQ(run({"LRANGE", "nol", "0", "-1"}), Arr({}));
}

TEST_F(ListTest, PopWithCountAndEmptyKeyIsDeleted) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b", "c", "a"}), Int(4));
  EXPECT_EQ(run({"LPOP", "l", "0"}), Arr({}));
  EXPECT_EQ(run({"LPOP", "nol", "0"}), resp::Reply::nil_array());
  EXPECT_EQ(run({"LPOP", "nol", "2"}), resp::Reply::nil_array());
  EXPECT_EQ(run({"LPOP", "nol"}), Nil());
  const char* positive = "ERR value is out of range, must be positive";
  EXPECT_EQ(run({"LPOP", "l", "-1"}), Err(positive));
  EXPECT_EQ(run({"LPOP", "l", "x"}), Err(positive));
  EXPECT_EQ(run({"LPOP", "l", "1", "2"}), Err("ERR wrong number of arguments for 'lpop' command"));
  EXPECT_EQ(run({"RPOP", "l", "2"}), Bulks({"a", "c"}));
  EXPECT_EQ(run({"LPOP", "l", "10"}), Bulks({"a", "b"}));
  EXPECT_EQ(run({"EXISTS", "l"}), Int(0));
}

TEST_F(ListTest, IndexSetInsertRem) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(run({"LINDEX", "l", "-1"}), Bulk("c"));
  EXPECT_EQ(run({"LINDEX", "l", "100"}), Nil());
  EXPECT_EQ(run({"LINDEX", "nol", "x"}), Nil());  // looked up before parsing
  EXPECT_EQ(run({"LINDEX", "l", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"LSET", "l", "5", "x"}), Err("ERR index out of range"));
  EXPECT_EQ(run({"LSET", "nol", "0", "x"}), Err("ERR no such key"));
  EXPECT_EQ(run({"LSET", "l", "x", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"LSET", "l", "-3", "A"}), Ok());
  EXPECT_EQ(run({"LINSERT", "l", "middle", "a", "x"}), Err(kSyntax));
  EXPECT_EQ(run({"LINSERT", "l", "before", "zz", "x"}), Int(-1));
  EXPECT_EQ(run({"LINSERT", "nol", "before", "a", "x"}), Int(0));
  EXPECT_EQ(run({"LINSERT", "l", "AFTER", "b", "b2"}), Int(4));
  EXPECT_EQ(run({"LINSERT", "l", "BEFORE", "A", "0"}), Int(5));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"0", "A", "b", "b2", "c"}));
  EXPECT_EQ(run({"RPUSH", "r", "x", "a", "x", "b", "x", "x"}), Int(6));
  EXPECT_EQ(run({"LREM", "r", "-2", "x"}), Int(2));
  EXPECT_EQ(run({"LRANGE", "r", "0", "-1"}), Bulks({"x", "a", "x", "b"}));
  EXPECT_EQ(run({"LREM", "r", "1", "x"}), Int(1));
  EXPECT_EQ(run({"LREM", "r", "0", "zz"}), Int(0));
  EXPECT_EQ(run({"LREM", "r", "x", "a"}), Err(kNotInt));
  EXPECT_EQ(run({"LREM", "r", "0", "x"}), Int(1));
  EXPECT_EQ(run({"LRANGE", "r", "0", "-1"}), Bulks({"a", "b"}));
  EXPECT_EQ(run({"LREM", "r", "0", "a"}), Int(1));
  EXPECT_EQ(run({"LREM", "r", "0", "b"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "r"}), Int(0));
}

TEST_F(ListTest, Lpos) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b", "c", "a"}), Int(4));
  EXPECT_EQ(run({"LPOS", "l", "a"}), Int(0));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "-1"}), Int(3));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "2", "COUNT", "5"}), Arr({Int(3)}));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "-1", "COUNT", "0"}), Arr({Int(3), Int(0)}));
  EXPECT_EQ(run({"LPOS", "l", "a", "COUNT", "1", "RANK", "-1", "MAXLEN", "1"}), Arr({Int(3)}));
  EXPECT_EQ(run({"LPOS", "l", "a", "COUNT", "0", "MAXLEN", "0"}), Arr({Int(0), Int(3)}));
  EXPECT_EQ(run({"LPOS", "l", "c", "MAXLEN", "2"}), Nil());
  EXPECT_EQ(run({"LPOS", "l", "b", "RANK", "-9223372036854775808"}), Int(1));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "9223372036854775807"}), Nil());
  EXPECT_EQ(run({"LPOS", "l", "z", "COUNT", "0"}), Arr({}));
  EXPECT_EQ(run({"LPOS", "nol", "a", "COUNT", "0"}), Arr({}));
  EXPECT_EQ(run({"LPOS", "nol", "a"}), Nil());
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "0"}),
            Err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second "
                "... or use negative to start from the end of the list"));
  EXPECT_EQ(run({"LPOS", "l", "a", "COUNT", "-1"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(run({"LPOS", "l", "a", "MAXLEN", "-1"}), Err("ERR MAXLEN can't be negative"));
  EXPECT_EQ(run({"LPOS", "l", "a", "COUNT", "x"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(run({"LPOS", "l", "a", "MAXLEN", "x"}), Err("ERR MAXLEN can't be negative"));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"LPOS", "l", "a", "FOO", "1"}), Err(kSyntax));
  EXPECT_EQ(run({"LPOS", "l", "a", "RANK"}), Err(kSyntax));
}

TEST_F(ListTest, MoveAndRpoplpush) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(run({"LMOVE", "l", "l", "RIGHT", "LEFT"}), Bulk("c"));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"c", "a", "b"}));
  EXPECT_EQ(run({"LMOVE", "l", "d", "left", "right"}), Bulk("c"));
  EXPECT_EQ(run({"RPOPLPUSH", "l", "d"}), Bulk("b"));
  EXPECT_EQ(run({"LRANGE", "d", "0", "-1"}), Bulks({"b", "c"}));
  EXPECT_EQ(run({"LMOVE", "l", "d", "up", "left"}), Err(kSyntax));
  EXPECT_EQ(run({"RPOPLPUSH", "nol", "d"}), Nil());
  EXPECT_EQ(run({"SET", "s", "v"}), Ok());
  EXPECT_EQ(run({"LMOVE", "l", "s", "LEFT", "LEFT"}), Err(kWrongType));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"a"}));  // nothing moved
  EXPECT_EQ(run({"RPOPLPUSH", "l", "d"}), Bulk("a"));
  EXPECT_EQ(run({"EXISTS", "l"}), Int(0));
}

// LMOVE and RPOPLPUSH share BLMOVE's move (Redis 7.0 lmoveGenericCommand):
// the push's event, then the pop's, then "del" for an emptied source; what
// redis-server 7.0.15 published for the same commands.
TEST_F(ListTest, MoveNotifiesAsRedis) {
  auto sub = server_->connect();
  EXPECT_EQ(run({"CONFIG", "SET", "notify-keyspace-events", "Elg"}), Ok());
  run(*sub, {"PSUBSCRIBE", "__keyevent*"});
  sub->take_pushes();
  EXPECT_EQ(run({"RPUSH", "s", "a"}), Int(1));
  EXPECT_EQ(run({"LMOVE", "s", "d", "LEFT", "RIGHT"}), Bulk("a"));
  EXPECT_EQ(run({"RPUSH", "t", "x", "y"}), Int(2));
  EXPECT_EQ(run({"RPOPLPUSH", "t", "t"}), Bulk("y"));
  std::vector<std::string> seen;
  for (const resp::Reply& r : sub->take_pushes()) {
    seen.push_back(r.elements()[2].str() + " " + r.elements()[3].str());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"__keyevent@0__:rpush s", "__keyevent@0__:rpush d",
                                            "__keyevent@0__:lpop s", "__keyevent@0__:del s",
                                            "__keyevent@0__:rpush t", "__keyevent@0__:lpush t",
                                            "__keyevent@0__:rpop t"}));
  EXPECT_EQ(run({"LRANGE", "t", "0", "-1"}), Bulks({"y", "x"}));
}

TEST_F(ListTest, WrongTypeAndArity) {
  EXPECT_EQ(run({"SET", "s", "v"}), Ok());
  for (auto argv : std::vector<Argv>{{"LPUSH", "s", "a"},
                                     {"RPUSHX", "s", "a"},
                                     {"LPOP", "s"},
                                     {"LLEN", "s"},
                                     {"LRANGE", "s", "0", "1"},
                                     {"LINDEX", "s", "x"},
                                     {"LSET", "s", "x", "v"},
                                     {"LREM", "s", "0", "v"},
                                     {"LINSERT", "s", "BEFORE", "a", "b"},
                                     {"LPOS", "s", "a"},
                                     {"RPOPLPUSH", "s", "d"}}) {
    EXPECT_EQ(server_->execute(*s_, argv), Err(kWrongType)) << argv[0];
  }
  EXPECT_EQ(run({"LPUSH", "l"}), Err("ERR wrong number of arguments for 'lpush' command"));
  EXPECT_EQ(run({"LMOVE", "a", "b"}), Err("ERR wrong number of arguments for 'lmove' command"));
  EXPECT_EQ(run({"LINSERT", "l", "after", "b"}),
            Err("ERR wrong number of arguments for 'linsert' command"));
}

TEST_F(ListTest, WritesTouchWatchers) {
  EXPECT_EQ(run({"RPUSH", "l", "a"}), Int(1));
  EXPECT_EQ(run({"WATCH", "l"}), Ok());
  EXPECT_EQ(run({"LPOS", "l", "a"}), Int(0));  // a read does not touch
  auto other = server_->connect();
  EXPECT_EQ(run(*other, {"LSET", "l", "0", "b"}), Ok());
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"LPOP", "l"}), Status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), resp::Reply::nil_array());
}

TEST_F(ListTest, ExpiredListIsGone) {
  EXPECT_EQ(run({"RPUSH", "l", "a"}), Int(1));
  EXPECT_EQ(run({"PEXPIRE", "l", "10"}), Int(1));
  advance_ms(11);
  EXPECT_EQ(run({"LLEN", "l"}), Int(0));
  EXPECT_EQ(run({"RPUSHX", "l", "a"}), Int(0));
}

TEST_F(ListTest, FromScript) {
  EXPECT_EQ(
      run({"EVAL",
           "redis.call('RPUSH', KEYS[1], 'a', 'b') return redis.call('LRANGE', KEYS[1], 0, -1)",
           "1", "l"}),
      Bulks({"a", "b"}));
}

TEST_F(ListTest, Ltrim) {
  run({"RPUSH", "l", "a", "b", "c", "d", "e"});
  EXPECT_EQ(run({"LTRIM", "l", "1", "-2"}), Ok());
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"b", "c", "d"}));
  EXPECT_EQ(run({"LTRIM", "l", "5", "10"}), Ok());
  EXPECT_EQ(run({"EXISTS", "l"}), Int(0));
  EXPECT_EQ(run({"LTRIM", "nokey", "0", "1"}), Ok());
  EXPECT_EQ(run({"LTRIM", "nokey", "x", "1"}), Err(kNotInt));
  run({"SET", "str", "v"});
  EXPECT_EQ(run({"LTRIM", "str", "0", "1"}), Err(kWrongType));
}

TEST_F(ListTest, ListConfigIsStoredAndEncodingStaysQuicklist) {
  EXPECT_EQ(run({"CONFIG", "SET", "list-max-ziplist-size", "-3"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "list-max-listpack-size"}),
            Arr({Bulk("list-max-listpack-size"), Bulk("-3")}));
  EXPECT_EQ(run({"CONFIG", "SET", "list-compress-depth", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'list-compress-depth') - "
                "argument must be between 0 and 2147483647 inclusive"));
  run({"RPUSH", "l", "a"});
  EXPECT_EQ(run({"OBJECT", "ENCODING", "l"}), Bulk("quicklist"));
}

}  // namespace
}  // namespace redsim::sim

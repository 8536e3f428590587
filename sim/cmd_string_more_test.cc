// GETRANGE SETRANGE INCRBYFLOAT GETEX SETBIT GETBIT MSETNX and HSTRLEN
// HRANDFIELD HSCAN HINCRBYFLOAT. Expected texts and values are what
// redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include <set>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class StringMoreTest : public ServerTest {};

TEST_F(StringMoreTest, GetrangeSetrange) {
  EXPECT_EQ(run({"SET", "s", "Hello World"}), Ok());
  EXPECT_EQ(run({"GETRANGE", "s", "0", "4"}), Bulk("Hello"));
  EXPECT_EQ(run({"GETRANGE", "s", "-5", "-1"}), Bulk("World"));
  EXPECT_EQ(run({"GETRANGE", "s", "5", "2"}), Bulk(""));
  EXPECT_EQ(run({"GETRANGE", "s", "-100", "100"}), Bulk("Hello World"));
  EXPECT_EQ(run({"GETRANGE", "s", "-1", "-5"}), Bulk(""));
  EXPECT_EQ(run({"GETRANGE", "nok", "0", "1"}), Bulk(""));
  EXPECT_EQ(run({"GETRANGE", "s", "x", "1"}), Err(kNotInt));
  EXPECT_EQ(run({"SETRANGE", "s", "6", "Redis"}), Int(11));
  EXPECT_EQ(run({"GET", "s"}), Bulk("Hello Redis"));
  EXPECT_EQ(run({"SETRANGE", "n", "5", "x"}), Int(6));
  EXPECT_EQ(run({"GET", "n"}), Bulk(std::string("\0\0\0\0\0x", 6)));
  EXPECT_EQ(run({"SETRANGE", "n3", "5", ""}), Int(0));
  EXPECT_EQ(run({"EXISTS", "n3"}), Int(0));
  EXPECT_EQ(run({"SETRANGE", "s", "1", ""}), Int(11));
  EXPECT_EQ(run({"SETRANGE", "s", "-1", "v"}), Err("ERR offset is out of range"));
  EXPECT_EQ(run({"SETRANGE", "s", "536870912", "x"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(run({"HSET", "h", "f", "v"}), Int(1));
  EXPECT_EQ(run({"SETRANGE", "h", "0", ""}), Err(kWrongType));
}

// Redis 7.0 signals a SETBIT's key only when the string was created or grew
// or the bit changed: a WATCH survives a SETBIT that changes nothing (found
// by the differential tester).
TEST_F(StringMoreTest, SetbitThatChangesNothingKeepsAWatch) {
  auto other = server_->connect();
  EXPECT_EQ(run({"SET", "k", "1"}), Ok());  // "1" = 0x31: bit 2 is already 1
  EXPECT_EQ(run({"WATCH", "k"}), Ok());
  EXPECT_EQ(run(*other, {"SETBIT", "k", "2", "1"}), Int(1));
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"EXEC"}), resp::Reply::array({}));
  EXPECT_EQ(run({"WATCH", "k"}), Ok());
  EXPECT_EQ(run(*other, {"SETBIT", "k", "7", "0"}), Int(1));  // a real change
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"EXEC"}), resp::Reply::nil_array());
}

TEST_F(StringMoreTest, Incrbyfloat) {
  EXPECT_EQ(run({"INCRBYFLOAT", "x", "0.1"}), Bulk("0.1"));
  EXPECT_EQ(run({"INCRBYFLOAT", "x", "0.2"}), Bulk("0.3"));
  EXPECT_EQ(run({"INCRBYFLOAT", "y", "1e30"}), Bulk("1000000000000000000024696061952"));
  EXPECT_EQ(run({"INCRBYFLOAT", "y", "inf"}), Err("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(run({"INCRBYFLOAT", "y", " 1"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"INCRBYFLOAT", "y", "1e5000"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"INCRBYFLOAT", "n", "-0.0000000000000000001"}), Bulk("0"));
  EXPECT_EQ(run({"SET", "t", "5", "PX", "100"}), Ok());
  EXPECT_EQ(run({"INCRBYFLOAT", "t", "1.5"}), Bulk("6.5"));
  EXPECT_EQ(run({"PTTL", "t"}), Int(100));
  EXPECT_EQ(run({"SET", "m", " 5"}), Ok());
  EXPECT_EQ(run({"INCRBYFLOAT", "m", "1"}), Err("ERR value is not a valid float"));
}

TEST_F(StringMoreTest, Getex) {
  EXPECT_EQ(run({"SET", "x", "1"}), Ok());
  EXPECT_EQ(run({"GETEX", "x", "EX", "100"}), Bulk("1"));
  EXPECT_EQ(run({"TTL", "x"}), Int(100));
  EXPECT_EQ(run({"GETEX", "x", "PERSIST"}), Bulk("1"));
  EXPECT_EQ(run({"TTL", "x"}), Int(-1));
  EXPECT_EQ(run({"GETEX", "x", "PX", "0"}), Err("ERR invalid expire time in 'getex' command"));
  EXPECT_EQ(run({"GETEX", "x", "EXAT", "-1"}), Err("ERR invalid expire time in 'getex' command"));
  EXPECT_EQ(run({"GETEX", "x", "EX", "100", "PX", "100"}), Err(kSyntax));
  EXPECT_EQ(run({"GETEX", "x", "PERSIST", "EX", "1"}), Err(kSyntax));
  EXPECT_EQ(run({"GETEX", "x", "EX", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"GETEX", "nok", "EX", "x"}), Nil());
  EXPECT_EQ(run({"GETEX", "nok", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"GETEX", "x", "PXAT", "1"}), Bulk("1"));
  EXPECT_EQ(run({"EXISTS", "x"}), Int(0));
  EXPECT_EQ(run({"HSET", "h", "f", "v"}), Int(1));
  EXPECT_EQ(run({"GETEX", "h"}), Err(kWrongType));
}

TEST_F(StringMoreTest, SetbitGetbitMsetnx) {
  EXPECT_EQ(run({"SETBIT", "b", "7", "1"}), Int(0));
  EXPECT_EQ(run({"GET", "b"}), Bulk("\x01"));
  EXPECT_EQ(run({"SETBIT", "b", "7", "0"}), Int(1));
  EXPECT_EQ(run({"SETBIT", "b", "0", "1"}), Int(0));
  EXPECT_EQ(run({"GET", "b"}), Bulk("\x80"));
  EXPECT_EQ(run({"GETBIT", "b", "0"}), Int(1));
  EXPECT_EQ(run({"GETBIT", "b", "100"}), Int(0));
  EXPECT_EQ(run({"GETBIT", "nok", "0"}), Int(0));
  const char* offset = "ERR bit offset is not an integer or out of range";
  EXPECT_EQ(run({"SETBIT", "b", "4294967296", "1"}), Err(offset));
  EXPECT_EQ(run({"SETBIT", "b", "-1", "1"}), Err(offset));
  EXPECT_EQ(run({"GETBIT", "b", "x"}), Err(offset));
  EXPECT_EQ(run({"SETBIT", "b", "0", "2"}), Err("ERR bit is not an integer or out of range"));
  EXPECT_EQ(run({"MSETNX", "b", "1", "c", "2"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "c"}), Int(0));
  EXPECT_EQ(run({"MSETNX", "x", "1", "y", "2"}), Int(1));
  EXPECT_EQ(run({"MGET", "x", "y"}), Bulks({"1", "2"}));
  EXPECT_EQ(run({"MSETNX", "x", "1", "y"}),
            Err("ERR wrong number of arguments for 'msetnx' command"));
}

TEST_F(StringMoreTest, HashAdditions) {
  EXPECT_EQ(run({"HSET", "h", "a", "1", "b", "2", "c", "x"}), Int(3));
  EXPECT_EQ(run({"HRANDFIELD", "h", "10"}), Bulks({"a", "b", "c"}));
  EXPECT_EQ(run({"HRANDFIELD", "h", "10", "WITHVALUES"}), Bulks({"a", "1", "b", "2", "c", "x"}));
  EXPECT_EQ(run({"HRANDFIELD", "h", "1", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"HRANDFIELD", "h", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(run({"HRANDFIELD", "noh", "4611686018427387904", "WITHVALUES"}),
            Err("ERR value is out of range"));
  EXPECT_EQ(run({"HRANDFIELD", "noh"}), Nil());
  EXPECT_EQ(run({"HRANDFIELD", "noh", "2"}), Arr({}));
  EXPECT_EQ(run({"HRANDFIELD", "h", "0"}), Arr({}));
  resp::Reply picks = run({"HRANDFIELD", "h", "-7", "WITHVALUES"});
  ASSERT_EQ(picks.elements().size(), 14u);
  for (size_t i = 0; i < 14; i += 2) {
    EXPECT_EQ(run({"HGET", "h", picks.elements()[i].str()}), picks.elements()[i + 1]);
  }
  resp::Reply two = run({"HRANDFIELD", "h", "2"});
  ASSERT_EQ(two.elements().size(), 2u);
  EXPECT_NE(two.elements()[0], two.elements()[1]);
  EXPECT_EQ(run({"HINCRBYFLOAT", "h", "a", "1.5"}), Bulk("2.5"));
  EXPECT_EQ(run({"HINCRBYFLOAT", "h", "c", "1"}), Err("ERR hash value is not a float"));
  EXPECT_EQ(run({"HINCRBYFLOAT", "h", "a", "inf"}), Err("ERR value is NaN or Infinity"));
  EXPECT_EQ(run({"HINCRBYFLOAT", "h", "a", "x"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"HINCRBYFLOAT", "h", "new", "2.0"}), Bulk("2"));
  EXPECT_EQ(run({"HSTRLEN", "h", "a"}), Int(3));
  EXPECT_EQ(run({"HSTRLEN", "h", "nof"}), Int(0));
  EXPECT_EQ(run({"HSCAN", "h", "0"}),
            Arr({Bulk("0"), Bulks({"a", "2.5", "b", "2", "c", "x", "new", "2"})}));
  EXPECT_EQ(run({"HSCAN", "h", "0", "MATCH", "a*", "COUNT", "1"}),
            Arr({Bulk("0"), Bulks({"a", "2.5"})}));
  EXPECT_EQ(run({"HSCAN", "noh", "0"}), Arr({Bulk("0"), Arr({})}));
  EXPECT_EQ(run({"SET", "s", "v"}), Ok());
  EXPECT_EQ(run({"HSTRLEN", "s", "f"}), Err(kWrongType));
  EXPECT_EQ(run({"HRANDFIELD", "s", "1", "WITHVALUES"}), Err(kWrongType));
  // A hashtable-encoded hash pages through HSCAN and still yields every field.
  for (int i = 0; i < 200; ++i) run({"HSET", "big", "f" + std::to_string(i), "v"});
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    resp::Reply r = run({"HSCAN", "big", cursor});
    cursor = r.elements()[0].str();
    for (size_t i = 0; i < r.elements()[1].elements().size(); i += 2) {
      seen.insert(r.elements()[1].elements()[i].str());
    }
    ++calls;
  } while (cursor != "0" && calls < 1000);
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_GT(calls, 10);
}

}  // namespace
}  // namespace redsim::sim

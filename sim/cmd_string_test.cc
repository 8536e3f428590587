// String commands. Expected texts and values are what redis-server 7.0.15
// answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT: Ok(), Int(), ...

class StringTest : public ServerTest {};

TEST_F(StringTest, SetGet) {
  EXPECT_EQ(run({"SET", "k", "v"}), Ok());
  EXPECT_EQ(run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(run({"GET", "nokey"}), Nil());
  EXPECT_EQ(run({"SET", "k", ""}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk(""));
}

TEST_F(StringTest, SetNxXx) {
  EXPECT_EQ(run({"SET", "k", "v", "XX"}), Nil());
  EXPECT_EQ(run({"SET", "k", "v", "NX"}), Ok());
  EXPECT_EQ(run({"SET", "k", "w", "nx"}), Nil());
  EXPECT_EQ(run({"SET", "k", "w", "xx"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk("w"));
  EXPECT_EQ(run({"SET", "k", "v", "nx", "nx"}), Nil());  // repeating is fine
}

TEST_F(StringTest, SetConflictingOptionsAreSyntaxErrors) {
  for (auto argv : std::vector<Argv>{{"SET", "k", "v", "NX", "XX"},
                                     {"SET", "k", "v", "XX", "NX"},
                                     {"SET", "k", "v", "EX", "10", "PX", "100"},
                                     {"SET", "k", "v", "PX", "10", "EXAT", "100"},
                                     {"SET", "k", "v", "EXAT", "10", "PXAT", "100"},
                                     {"SET", "k", "v", "KEEPTTL", "EX", "10"},
                                     {"SET", "k", "v", "EX", "10", "KEEPTTL"},
                                     {"SET", "k", "v", "foo"},
                                     {"SET", "k", "v", "EX"},
                                     {"SET", "k", "v", "PERSIST"},
                                     {"SET", "k", "v", "NXX"}}) {
    EXPECT_EQ(server_->execute(*s_, argv), Err(kSyntax)) << argv[3];
  }
  EXPECT_EQ(run({"EXISTS", "k"}), Int(0));
}

TEST_F(StringTest, SetRepeatedExpireOptionLastWins) {
  EXPECT_EQ(run({"SET", "k", "v", "EX", "10", "EX", "20"}), Ok());
  EXPECT_EQ(run({"TTL", "k"}), Int(20));
}

TEST_F(StringTest, SetExpiryOptions) {
  EXPECT_EQ(run({"SET", "k", "v", "EX", "10"}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(10000));
  EXPECT_EQ(run({"SET", "k", "v", "px", "1500"}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(1500));
  EXPECT_EQ(run({"TTL", "k"}), Int(2));  // rounded to the nearest second
  int64_t at_s = now_ms() / 1000 + 100;
  EXPECT_EQ(run({"SET", "k", "v", "EXAT", std::to_string(at_s)}), Ok());
  EXPECT_EQ(run({"EXPIRETIME", "k"}), Int(at_s));
  EXPECT_EQ(run({"SET", "k", "v", "PXAT", std::to_string(now_ms() + 1234)}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(1234));
  EXPECT_EQ(run({"SET", "k", "v", "KEEPTTL"}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(1234));
  EXPECT_EQ(run({"SET", "k", "v"}), Ok());  // without KEEPTTL the TTL goes
  EXPECT_EQ(run({"PTTL", "k"}), Int(-1));
}

TEST_F(StringTest, SetPxatInThePastStoresAnExpiredKey) {
  EXPECT_EQ(run({"SET", "k", "v", "PXAT", "1"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Nil());
}

TEST_F(StringTest, SetInvalidExpireTimes) {
  const char* invalid = "ERR invalid expire time in 'set' command";
  EXPECT_EQ(run({"SET", "k", "v", "EX", "0"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "EX", "-1"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "PX", "0"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "EXAT", "0"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "EX", "9223372036854775807"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "EX", "9223372036854775"}), Err(invalid));  // + now overflows
  EXPECT_EQ(run({"SET", "k", "v", "PX", "9223372036854775807"}), Err(invalid));
  EXPECT_EQ(run({"SET", "k", "v", "EX", "abc"}), Err(kNotInt));
  EXPECT_EQ(run({"SET", "k", "v", "PX", "1.5"}), Err(kNotInt));
  EXPECT_EQ(run({"EXISTS", "k"}), Int(0));
}

TEST_F(StringTest, SetGetOption) {
  EXPECT_EQ(run({"SET", "k", "v", "GET"}), Nil());
  EXPECT_EQ(run({"SET", "k", "v2", "NX", "GET"}), Bulk("v"));  // NX failed: old value
  EXPECT_EQ(run({"SET", "k", "v3", "XX", "GET"}), Bulk("v"));
  EXPECT_EQ(run({"GET", "k"}), Bulk("v3"));
  EXPECT_EQ(run({"SET", "k", "v", "GET", "GET"}), Bulk("v3"));
  EXPECT_EQ(run({"SET", "new", "v", "XX", "GET"}), Nil());
  EXPECT_EQ(run({"EXISTS", "new"}), Int(0));
}

TEST_F(StringTest, SetOnAHash) {
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"SET", "h", "v", "GET"}), Err(kWrongType));
  EXPECT_EQ(run({"SET", "h", "v", "NX", "GET"}), Err(kWrongType));
  EXPECT_EQ(run({"SET", "h", "v", "NX"}), Nil());
  EXPECT_EQ(run({"TYPE", "h"}), Status("hash"));
  EXPECT_EQ(run({"SET", "h", "v"}), Ok());  // a plain SET overwrites any type
  EXPECT_EQ(run({"TYPE", "h"}), Status("string"));
}

TEST_F(StringTest, SetnxSetexPsetex) {
  EXPECT_EQ(run({"SETNX", "k", "v"}), Int(1));
  EXPECT_EQ(run({"SETNX", "k", "w"}), Int(0));
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"SETNX", "h", "x"}), Int(0));
  EXPECT_EQ(run({"SETEX", "k", "10", "v"}), Ok());
  EXPECT_EQ(run({"TTL", "k"}), Int(10));
  EXPECT_EQ(run({"PSETEX", "k", "1500", "v"}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(1500));
  EXPECT_EQ(run({"SETEX", "k", "0", "v"}), Err("ERR invalid expire time in 'setex' command"));
  EXPECT_EQ(run({"SETEX", "k", "-5", "v"}), Err("ERR invalid expire time in 'setex' command"));
  EXPECT_EQ(run({"SETEX", "k", "abc", "v"}), Err(kNotInt));
  EXPECT_EQ(run({"PSETEX", "k", "0", "v"}), Err("ERR invalid expire time in 'psetex' command"));
}

TEST_F(StringTest, GetsetAndGetdel) {
  EXPECT_EQ(run({"GETSET", "k", "1"}), Nil());
  EXPECT_EQ(run({"EXPIRE", "k", "100"}), Int(1));
  EXPECT_EQ(run({"GETSET", "k", "2"}), Bulk("1"));
  EXPECT_EQ(run({"TTL", "k"}), Int(-1));  // GETSET drops the TTL
  EXPECT_EQ(run({"GETDEL", "k"}), Bulk("2"));
  EXPECT_EQ(run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(run({"GETDEL", "k"}), Nil());
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"GET", "h"}), Err(kWrongType));
  EXPECT_EQ(run({"GETSET", "h", "x"}), Err(kWrongType));
  EXPECT_EQ(run({"GETDEL", "h"}), Err(kWrongType));
}

TEST_F(StringTest, MgetMset) {
  EXPECT_EQ(run({"MSET", "a", "1", "b"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(run({"MSET", "a", "1", "b", "2"}), Ok());
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"MGET", "a", "b", "h", "nokey"}), Arr({Bulk("1"), Bulk("2"), Nil(), Nil()}));
  run({"EXPIRE", "a", "100"});
  run({"MSET", "a", "3"});
  EXPECT_EQ(run({"TTL", "a"}), Int(-1));
}

TEST_F(StringTest, IncrDecrFamily) {
  EXPECT_EQ(run({"INCR", "n"}), Int(1));
  EXPECT_EQ(run({"INCRBY", "n", "10"}), Int(11));
  EXPECT_EQ(run({"DECR", "n"}), Int(10));
  EXPECT_EQ(run({"DECRBY", "n", "-3"}), Int(13));
  EXPECT_EQ(run({"GET", "n"}), Bulk("13"));
  EXPECT_EQ(run({"INCRBY", "m", "-9223372036854775808"}), Int(INT64_MIN));
}

TEST_F(StringTest, IncrKeepsTheTtl) {
  run({"SET", "n", "1", "EX", "100"});
  EXPECT_EQ(run({"INCR", "n"}), Int(2));
  EXPECT_EQ(run({"TTL", "n"}), Int(100));
}

TEST_F(StringTest, IncrErrors) {
  run({"SET", "s", "abc"});
  EXPECT_EQ(run({"INCR", "s"}), Err(kNotInt));
  EXPECT_EQ(run({"INCRBY", "s", "1"}), Err(kNotInt));
  for (const char* v : {"007", " 1", "-0", "+1", "12345678901234567890", "1.0"}) {
    run({"SET", "z", v});
    EXPECT_EQ(run({"INCR", "z"}), Err(kNotInt)) << v;
  }
  EXPECT_EQ(run({"INCRBY", "nokey", "abc"}), Err(kNotInt));
  EXPECT_EQ(run({"INCRBY", "nokey", "1.5"}), Err(kNotInt));
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"INCR", "h"}), Err(kWrongType));
  EXPECT_EQ(run({"INCRBY", "h", "x"}), Err(kNotInt));  // the increment is parsed first
}

TEST_F(StringTest, IncrOverflow) {
  const char* overflow = "ERR increment or decrement would overflow";
  run({"SET", "n", "9223372036854775807"});
  EXPECT_EQ(run({"INCR", "n"}), Err(overflow));
  EXPECT_EQ(run({"GET", "n"}), Bulk("9223372036854775807"));
  run({"SET", "n", "-9223372036854775808"});
  EXPECT_EQ(run({"DECR", "n"}), Err(overflow));
  EXPECT_EQ(run({"DECRBY", "x", "-9223372036854775808"}), Err("ERR decrement would overflow"));
}

TEST_F(StringTest, AppendStrlen) {
  EXPECT_EQ(run({"APPEND", "k", "hello"}), Int(5));
  EXPECT_EQ(run({"APPEND", "k", "world"}), Int(10));
  EXPECT_EQ(run({"GET", "k"}), Bulk("helloworld"));
  EXPECT_EQ(run({"STRLEN", "k"}), Int(10));
  EXPECT_EQ(run({"STRLEN", "nokey"}), Int(0));
  run({"EXPIRE", "k", "100"});
  run({"APPEND", "k", "!"});
  EXPECT_EQ(run({"TTL", "k"}), Int(100));
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"APPEND", "h", "x"}), Err(kWrongType));
  EXPECT_EQ(run({"STRLEN", "h"}), Err(kWrongType));
}

TEST_F(StringTest, ArityErrors) {
  for (auto [argv, name] :
       std::vector<std::pair<Argv, std::string>>{{{"SET", "k"}, "set"},
                                                 {{"get"}, "get"},
                                                 {{"GET", "a", "b"}, "get"},
                                                 {{"GETSET", "k"}, "getset"},
                                                 {{"SETNX", "k"}, "setnx"},
                                                 {{"SETEX", "k", "1"}, "setex"},
                                                 {{"PSETEX", "k", "1"}, "psetex"},
                                                 {{"INCR"}, "incr"},
                                                 {{"INCRBY", "k"}, "incrby"},
                                                 {{"DECRBY", "k"}, "decrby"},
                                                 {{"DECR"}, "decr"},
                                                 {{"APPEND", "k"}, "append"},
                                                 {{"STRLEN"}, "strlen"},
                                                 {{"GETDEL"}, "getdel"},
                                                 {{"MGET"}, "mget"},
                                                 {{"MSET", "k"}, "mset"}}) {
    EXPECT_EQ(server_->execute(*s_, argv),
              Err("ERR wrong number of arguments for '" + name + "' command"))
        << name;
  }
}

TEST_F(StringTest, ExpiryBoundaries) {
  run({"SET", "k", "v", "PX", "100"});
  advance_ms(100);
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));  // now == deadline: not expired
  EXPECT_EQ(run({"PTTL", "k"}), Int(0));
  advance_ms(1);
  EXPECT_EQ(run({"GET", "k"}), Nil());
  EXPECT_EQ(run({"DBSIZE"}), Int(0));  // and deleted on access
}

TEST_F(StringTest, SetNxOnAnExpiredKeySucceeds) {
  run({"SET", "k", "v", "PX", "10"});
  advance_ms(11);
  EXPECT_EQ(run({"DBSIZE"}), Int(1));  // expired but not yet deleted
  EXPECT_EQ(run({"SET", "k", "w", "NX", "PX", "10"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk("w"));
}

TEST_F(StringTest, LcsAndSubstr) {
  run({"SET", "a", "foobar"});
  run({"SET", "b", "fooxbar"});
  EXPECT_EQ(run({"LCS", "a", "b"}), Bulk("foobar"));
  EXPECT_EQ(run({"LCS", "a", "b", "LEN"}), Int(6));
  EXPECT_EQ(run({"LCS", "a", "b", "IDX", "MINMATCHLEN", "2", "WITHMATCHLEN"}),
            Arr({Bulk("matches"),
                 Arr({Arr({Arr({Int(3), Int(5)}), Arr({Int(4), Int(6)}), Int(3)}),
                      Arr({Arr({Int(0), Int(2)}), Arr({Int(0), Int(2)}), Int(3)})}),
                 Bulk("len"), Int(6)}));
  EXPECT_EQ(run({"LCS", "a", "b", "LEN", "IDX"}),
            Err("ERR If you want both the length and indexes, please just use IDX."));
  EXPECT_EQ(run({"LCS", "a", "b", "MINMATCHLEN"}), Err(kSyntax));
  EXPECT_EQ(run({"LCS", "a", "nokey"}), Bulk(""));
  run({"LPUSH", "l", "x"});
  EXPECT_EQ(run({"LCS", "a", "l"}), Err("ERR The specified keys must contain string values"));
  EXPECT_EQ(run({"SUBSTR", "a", "1", "3"}), Bulk("oob"));
  EXPECT_EQ(run({"SUBSTR", "a", "-3", "-1"}), Bulk("bar"));
}

}  // namespace
}  // namespace redsim::sim

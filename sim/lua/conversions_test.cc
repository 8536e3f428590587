// Lua <-> Redis conversions, both ways, as redis-server 7.0.15 does them
// (each expectation was checked against it).
#include <gtest/gtest.h>

#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ConversionTest : public ScriptTest {};

TEST_F(ConversionTest, LuaScalarsToReplies) {
  EXPECT_EQ(eval("return 3.7"), Int(3));
  EXPECT_EQ(eval("return -3.99"), Int(-3));
  EXPECT_EQ(eval("return -0.5"), Int(0));
  EXPECT_EQ(eval("return 2^53"), Int(9007199254740992));
  EXPECT_EQ(eval("return 'abc'"), Bulk("abc"));
  EXPECT_EQ(eval("return true"), Int(1));
  EXPECT_EQ(eval("return false"), Nil());
  EXPECT_EQ(eval("return nil"), Nil());
  EXPECT_EQ(eval("return"), Nil());
  EXPECT_EQ(eval("return cjson.null"), Nil());
  EXPECT_EQ(eval("return function() end"), Nil());
}

TEST_F(ConversionTest, OutOfRangeNumbersBecomeInt64Min) {
  // A C cast on x86-64, as Redis does it.
  const int64_t min = INT64_MIN;
  EXPECT_EQ(eval("return {1e20, -1e20, 0/0, 1/0, -1/0, 9.3e18, math.huge}"),
            Arr({Int(min), Int(min), Int(min), Int(min), Int(min), Int(min), Int(min)}));
}

TEST_F(ConversionTest, TablesToArrays) {
  EXPECT_EQ(eval("return {1, 2, nil, 4}"), Arr({Int(1), Int(2)}));
  EXPECT_EQ(eval("return {true, false, nil, 5}"), Arr({Int(1), Nil()}));
  EXPECT_EQ(eval("return {a=1, b=2}"), Arr({}));
  EXPECT_EQ(eval("return {[1]=1,[2]=2,[4]=4}"), Arr({Int(1), Int(2)}));
  EXPECT_EQ(eval("return {1, {2, {3, {ok='x'}}}, 's', true}"),
            Arr({Int(1), Arr({Int(2), Arr({Int(3), Status("x")})}), Bulk("s"), Int(1)}));
  EXPECT_EQ(eval("return {1, function() end, 3}"), Arr({Int(1), Nil(), Int(3)}));
  EXPECT_EQ(eval("return {1,2,3,{ok='x'}, {err='y'}}"),
            Arr({Int(1), Int(2), Int(3), Status("x"), Err("y")}));
}

TEST_F(ConversionTest, OkAndErrFieldsMustBeStrings) {
  EXPECT_EQ(eval("return {ok='x', err='y'}"), Err("y"));  // err wins
  EXPECT_EQ(eval("return {ok=5}"), Arr({}));
  EXPECT_EQ(eval("return {err=5}"), Arr({}));
  EXPECT_EQ(eval("return {ok={}}"), Arr({}));
  EXPECT_EQ(eval("return {err=false, ok='z'}"), Status("z"));
}

TEST_F(ConversionTest, MetatablesAreNotConsulted) {
  EXPECT_EQ(eval("return setmetatable({}, {__index = function() error('no') end})"), Arr({}));
  EXPECT_EQ(eval("return setmetatable({}, {__index = {err = 'hidden'}})"), Arr({}));
}

TEST_F(ConversionTest, SelfReferenceStopsAtRedisDepth) {
  resp::Reply r = eval("local t = {} t[1] = t return t");
  int depth = 0;
  const resp::Reply* cur = &r;
  while (cur->is_array()) {
    ASSERT_EQ(cur->elements().size(), 1u);
    ++depth;
    cur = &cur->elements()[0];
  }
  EXPECT_EQ(depth, 7995);  // redis-server 7.0.15 nests exactly this deep
  EXPECT_EQ(*cur, Err("ERR reached lua stack limit"));
}

TEST_F(ConversionTest, RepliesToLua) {
  run({"SET", "s", "v"});
  run({"HSET", "h", "a", "1", "b", "2"});
  EXPECT_EQ(eval("local r = redis.call('set','k','v') return {type(r), r.ok}"),
            Bulks({"table", "OK"}));
  EXPECT_EQ(eval("return redis.call('incrby', 'n', 5)"), Int(5));
  EXPECT_EQ(eval("return type(redis.call('incrby', 'n', 1))"), Bulk("number"));
  EXPECT_EQ(eval("return redis.call('get', 's')"), Bulk("v"));
  EXPECT_EQ(eval("local v = redis.call('get','nokey') return {type(v), tostring(v)}"),
            Bulks({"boolean", "false"}));
  EXPECT_EQ(eval("return {redis.call('get','nokey'), 1}"), Arr({Nil(), Int(1)}));
  EXPECT_EQ(eval("return redis.call('hgetall', 'h')"), Bulks({"a", "1", "b", "2"}));
  EXPECT_EQ(eval("return redis.call('mget', 'k', 'nokey', 's')"),
            Arr({Bulk("v"), Nil(), Bulk("v")}));
  EXPECT_EQ(eval("return redis.call('ping')"), Status("PONG"));
  EXPECT_EQ(eval("local e = redis.pcall('incr', 's') return e.err"), Bulk(kNotInt));
}

TEST_F(ConversionTest, BigIntegerRepliesActLikeDoubles) {
  // 5.1 holds numbers as doubles: 15+ digit integers print in exponent form
  // and lose what a double loses beyond 2^53.
  EXPECT_EQ(eval("local v = redis.call('incrby','a','123456789012345') return v .. ''"),
            Bulk("1.2345678901234e+14"));
  EXPECT_EQ(eval("local v = redis.call('incrby','b','9007199254740993') return tostring(v)"),
            Bulk("9.007199254741e+15"));
  EXPECT_EQ(eval("return redis.call('incrby','c','9007199254740993')"), Int(9007199254740992));
  EXPECT_EQ(eval("return redis.call('incrby','d','12345')"), Int(12345));
}

// `1/0` is -inf here, as on redis-server 7.0.15: 5.1 does not fold a
// division by zero, so its 0 is a constant, which is the function's first
// zero constant, the -0 of `-0.0` (source51.cc, ZeroConstants51).
TEST_F(ConversionTest, NumberArgumentsUsePercent17g) {
  EXPECT_EQ(eval("redis.call('set','f', 1/3) redis.call('set','g', 10/2) "
                 "redis.call('set','h', 1e20) redis.call('set','i', -0.0) "
                 "redis.call('set','j', 2^63) redis.call('set','k', 0/0) "
                 "redis.call('set','l', 1/0) redis.call('set','m', 42) "
                 "return redis.call('mget','f','g','h','i','j','k','l','m')"),
            Bulks({"0.33333333333333331", "5", "1e+20", "-0", "9.2233720368547758e+18", "-nan",
                   "-inf", "42"}));
}

// Integral floats below 10^17 (10^14 for tostring's %.14g) print as their
// digits without the C library's float formatting: the same text as %g.
TEST_F(ConversionTest, IntegralFloatsPrintAsPercentG) {
  EXPECT_EQ(eval("redis.call('set','a', 1e16) redis.call('set','b', 2^53) "
                 "redis.call('set','c', -2^53) redis.call('set','d', 1e17) "
                 "redis.call('set','e', -1e17 + 16) redis.call('set','f', 123456789012345.0) "
                 "redis.call('set','g', 2^53 + 2) redis.call('set','h', 0.0) "
                 "redis.call('set','i', 3.0) "
                 "return redis.call('mget','a','b','c','d','e','f','g','h','i')"),
            Bulks({"10000000000000000", "9007199254740992", "-9007199254740992", "1e+17",
                   "-99999999999999984", "123456789012345", "9007199254740994", "0", "3"}));
  EXPECT_EQ(eval("return {tostring(1e13), tostring(1e14), tostring(99999999999999.0), "
                 "tostring(-0.0), tostring(2^40), tostring(-2^45)}"),
            Bulks({"10000000000000", "1e+14", "99999999999999", "-0", "1099511627776",
                   "-35184372088832"}));
}

TEST_F(ConversionTest, HalfOfAnArgvNumberWorksAsPexpire) {
  run({"SET", "lock", "v"});
  EXPECT_EQ(eval("return redis.call('pexpire', KEYS[1], ARGV[1] / 2)", {"lock"}, {"30000"}),
            Int(1));
  EXPECT_EQ(run({"PTTL", "lock"}), Int(15000));
  // A fraction is passed as Redis formats it, so PEXPIRE refuses it.
  EXPECT_EQ(eval("return redis.pcall('pexpire', KEYS[1], ARGV[1] / 3)", {"lock"}, {"10"}),
            Err(kNotInt));
}

TEST_F(ConversionTest, KeysAndArgvAreBinarySafeStrings) {
  EXPECT_EQ(
      eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}",
           {std::string("a\0b", 3), ""}, {"\xff\xfe", "-0"}),
      Arr({Bulk(std::string("a\0b", 3)), Bulk(""), Bulk("\xff\xfe"), Bulk("-0"), Int(2), Int(2)}));
  EXPECT_EQ(eval("return {#KEYS, #ARGV}"), Arr({Int(0), Int(0)}));
  // Fresh tables every call: what a script did to them is gone.
  EXPECT_EQ(eval("table.insert(KEYS, 'z') KEYS.extra = 1 return KEYS", {"a"}), Bulks({"a", "z"}));
  EXPECT_EQ(eval("return {#KEYS, tostring(KEYS.extra)}", {"b"}), Arr({Int(1), Bulk("nil")}));
  // However the previous script reshaped them.
  const std::string show =
      "local n = 0 for k, v in pairs(KEYS) do n = n + 1 end "
      "local m = 0 for k, v in pairs(ARGV) do m = m + 1 end "
      "return {n, m, KEYS[1] or 'none', tostring(getmetatable(KEYS))}";
  for (const char* reshape :
       {"KEYS[10] = 'x'", "KEYS.x = 1", "setmetatable(KEYS, {})", "KEYS[2] = nil KEYS[3] = 'y'",
        "ARGV[1] = nil", "table.insert(ARGV, 'z') table.insert(KEYS, 'w')", "KEYS[1] = nil"}) {
    EXPECT_EQ(eval(std::string(reshape) + " return 1", {"a", "b"}, {"c"}), Int(1)) << reshape;
    EXPECT_EQ(eval(show, {"k"}, {"p", "q"}), Arr({Int(1), Int(2), Bulk("k"), Bulk("nil")}))
        << reshape;
    EXPECT_EQ(eval(show), Arr({Int(0), Int(0), Bulk("none"), Bulk("nil")})) << reshape;
  }
}

}  // namespace
}  // namespace redsim::sim

// Redis's Lua 5.1 world on 5.4: 5.1 functions and names, 5.1 number
// printing, bit, cjson and math.random. Expected values are what
// redis-server 7.0.15 answered.
#include <gtest/gtest.h>

#include "sim/internal.h"
#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class Compat51Test : public ScriptTest {};

TEST_F(Compat51Test, FiveOneFunctions) {
  EXPECT_EQ(eval("return {unpack({1,2,3})}"), Arr({Int(1), Int(2), Int(3)}));
  EXPECT_EQ(eval("return {unpack({1,2,3}, 2)}"), Arr({Int(2), Int(3)}));
  EXPECT_EQ(eval("return {select('#', unpack({1,nil,3}))}"), Arr({Int(3)}));
  EXPECT_EQ(eval("return table.getn({1,2,3})"), Int(3));
  EXPECT_EQ(eval("return table.maxn({1,2,[10]=3})"), Int(10));
  EXPECT_EQ(eval("local r = {} table.foreachi({5,6}, function(i,v) r[#r+1] = i + v end) "
                 "return r"),
            Arr({Int(6), Int(8)}));
  EXPECT_EQ(eval("local f, e = loadstring('return 5') return f()"), Int(5));
  EXPECT_EQ(eval("local f, e = loadstring('return +') return e"),
            Bulk("[string \"return +\"]:1: unexpected symbol near '+'"));
  EXPECT_EQ(eval("local i = 0 local f = load(function() i = i + 1 if i == 1 then "
                 "return 'return 4' end end) return f()"),
            Int(4));
  EXPECT_EQ(eval("return {math.mod(7,3), math.mod(-7,3), math.fmod(-7,3), math.pow(2,3), "
                 "math.log10(100), math.ldexp(1,3)}"),
            Arr({Int(1), Int(-1), Int(-1), Int(8), Int(2), Int(8)}));
  EXPECT_EQ(eval("local t = {} for w in string.gfind('a b c', '%a') do t[#t+1] = w end return t"),
            Bulks({"a", "b", "c"}));
  EXPECT_EQ(eval("return type(coroutine.running())"), Bulk("nil"));
  EXPECT_EQ(eval("return gcinfo() > 0"), Int(1));
}

TEST_F(Compat51Test, FiveOneLoadTakesOnlyAFunction) {
  EXPECT_EQ(eval("return load(\"return 7\")()"),
            Err("ERR user_script:1: bad argument #1 to 'load' (function expected, got string) "
                "script: f5d0d8193592edd7db9f48d0f0b5149db9f2dc72, on @user_script:1."));
}

TEST_F(Compat51Test, NumbersPrintAsFiveOne) {
  EXPECT_EQ(eval("return {tostring(10/2), tostring(1/3), tostring(1e15), tostring(2^53), "
                 "tostring(0/0), tostring(3), tostring(123456789012), tostring(1e100), "
                 "tostring(0.1), tostring(math.floor(3.7)), tostring(1/0)}"),
            Bulks({"5", "0.33333333333333", "1e+15", "9.007199254741e+15", "-nan", "3",
                   "123456789012", "1e+100", "0.1", "3", "inf"}));
  EXPECT_EQ(eval("return {string.format('%s', 10/2), 1e16 .. '', string.format('%d', 3.0), "
                 "string.format('%s %s', 1/3, 2^63)}"),
            Bulks({"5", "1e+16", "3", "0.33333333333333 9.2233720368548e+18"}));
  EXPECT_EQ(eval("return tostring(tonumber('123456789012345'))"), Bulk("1.2345678901234e+14"));
  EXPECT_EQ(eval("return tonumber('123456789012345') .. ''"), Bulk("1.2345678901234e+14"));
  EXPECT_EQ(eval("return math.sqrt(16) .. ''"), Bulk("4"));
}

TEST_F(Compat51Test, StringFormatFollowsFiveOne) {
  EXPECT_EQ(eval("return string.format('%5.2f|%-5d|%05d|%x|%X|%o|%e|%g|%c|%q', 3.14159, 42, "
                 "42, 255, 255, 8, 12345.678, 0.0001, 65, 'a\\nb\"c\\0d')"),
            Bulk(" 3.14|42   |00042|ff|FF|10|1.234568e+04|0.0001|A|\"a\\\nb\\\"c\\000d\""));
  EXPECT_EQ(eval("return string.format('%d', 3.7)"), Bulk("3"));
  EXPECT_EQ(eval("return string.format('%d', -3.7)"), Bulk("-3"));
  EXPECT_EQ(eval("return string.format('%x', -1)"), Bulk("ffffffffffffffff"));
  EXPECT_EQ(eval("return string.format('%q', 1/3)"), Bulk("\"0.33333333333333\""));
  EXPECT_EQ(eval("return string.format('%s', {})"),
            script_err("ERR user_script:1: bad argument #2 to 'format' (string expected, got "
                       "table)",
                       "return string.format('%s', {})"));
  EXPECT_EQ(eval("return string.format('%y', 1)"),
            script_err("ERR user_script:1: invalid option '%y' to 'format'",
                       "return string.format('%y', 1)"));
  EXPECT_EQ(eval("return string.format('%123d', 1)"),
            script_err("ERR user_script:1: invalid format (width or precision too long)",
                       "return string.format('%123d', 1)"));
}

TEST_F(Compat51Test, Bit) {
  EXPECT_EQ(
      eval("return {bit.band(0xff, 0x0f), bit.bor(1,2,4), bit.bxor(5,3), bit.bnot(0), "
           "bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), "
           "bit.tobit(2^32+5), bit.tohex(255), bit.tohex(-1, -4), bit.tohex(255, 2), "
           "bit.rol(1, 33), bit.ror(1,1), bit.bswap(0x12345678)}"),
      Arr({Int(15), Int(7), Int(6), Int(-1), Int(INT32_MIN), Int(15), Int(-16), Int(5),
           Bulk("000000ff"), Bulk("FFFF"), Bulk("ff"), Int(2), Int(INT32_MIN), Int(0x78563412)}));
  // LuaBitOp rounds to nearest, ties to even, and wraps modulo 2^32.
  EXPECT_EQ(eval("return {bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5), bit.tobit(2^31), "
                 "bit.tobit('12')}"),
            Arr({Int(2), Int(2), Int(-2), Int(INT32_MIN), Int(12)}));
  EXPECT_EQ(eval("return bit.band('x')"),
            script_err("ERR user_script:1: bad argument #1 to 'band' (number expected, got "
                       "string)",
                       "return bit.band('x')"));
}

TEST_F(Compat51Test, CjsonEncodeDecode) {
  EXPECT_EQ(eval("return {cjson.encode({}), cjson.encode({1,2,nil,4}), cjson.encode(1/3), "
                 "cjson.encode(10/2), cjson.encode('a\"b/c'), cjson.encode(cjson.null), "
                 "cjson.encode({a={b={1}}})}"),
            Bulks({"{}", "[1,2,null,4]", "0.33333333333333", "5", "\"a\\\"b\\/c\"", "null",
                   "{\"a\":{\"b\":[1]}}"}));
  EXPECT_EQ(
      eval("local v = cjson.decode('[1, 2.5, \"x\", null, true, {\"a\": 3}]') "
           "return {v[1], v[2], v[3], tostring(v[4]), tostring(v[5]), v[6].a, v[1] .. ''}"),
      Arr({Int(1), Int(2), Bulk("x"), Bulk("userdata: (nil)"), Bulk("true"), Int(3), Bulk("1")}));
  EXPECT_EQ(eval("return cjson._VERSION"), Bulk("2.1.0"));
}

TEST_F(Compat51Test, CjsonErrorsAreCaughtInsideAndOutsidePcall) {
  // Raised through the C++ Lua build from a C library: must be an ordinary
  // script error, and catchable.
  EXPECT_EQ(eval("return cjson.decode(\"{\")"),
            Err("ERR user_script:1: Expected object key string but found T_END at character 2 "
                "script: 11c9a27f0575c57ad53dea0235e50ac048d289a5, on @user_script:1."));
  EXPECT_EQ(eval("local ok,e=pcall(function() cjson.decode('{') end) return e"),
            Bulk("user_script:1: Expected object key string but found T_END at character 2"));
  EXPECT_EQ(eval("return {pcall(cjson.decode, '{')}"),
            Arr({Nil(), Bulk("Expected object key string but found T_END at character 2")}));
  EXPECT_EQ(eval("return cjson.encode(function() end)"),
            Err("ERR user_script:1: Cannot serialise function: type not supported script: "
                "c6600573aa08cdf0af5da6e0ef682db69a3acc00, on @user_script:1."));
  EXPECT_EQ(eval("return cjson.encode({[1]=1,[20]=5})"),
            Err("ERR user_script:1: Cannot serialise table: excessively sparse array script: "
                "e14b1569b8cc645be709dc68e4a1005b1c51176b, on @user_script:1."));
  EXPECT_EQ(eval("return cjson.decode(nil)"),
            Err("ERR user_script:1: bad argument #1 to 'decode' (string expected, got nil) "
                "script: a844f6020def000abf40e0ee50e4a4bd8ed32ccd, on @user_script:1."));
  // The state is intact afterwards.
  EXPECT_EQ(eval("return cjson.encode({1})"), Bulk("[1]"));
}

TEST_F(Compat51Test, MathRandomIsRedisRand48) {
  EXPECT_EQ(eval("math.randomseed(42) return {tostring(math.random()), math.random(100)}"),
            Arr({Bulk("0.74452500033403"), Int(35)}));
  EXPECT_EQ(eval("return math.random(3,1)"),
            Err("ERR user_script:1: bad argument #2 to 'random' (interval is empty) script: "
                "68acc572476cae3f902bc415099bdefb8ea66576, on @user_script:1."));
  EXPECT_EQ(eval("return math.random(1,2,3)"),
            Err("ERR user_script:1: wrong number of arguments script: "
                "5cd983b5db563301a1c7ab05351573640323e7a9, on @user_script:1."));
  // Two servers draw the same sequence (rand48's fixed initial state).
  ManualClock clock;
  Server a(clock);
  Server b(clock);
  auto sa = a.connect();
  auto sb = b.connect();
  const char* draw = "return {math.random(1000), math.random(1000), math.random(1000)}";
  resp::Reply first = a.execute(*sa, {"EVAL", draw, "0"});
  EXPECT_EQ(first, b.execute(*sb, {"EVAL", draw, "0"}));
  EXPECT_NE(first, a.execute(*sa, {"EVAL", draw, "0"}));  // the state carries on
}

TEST_F(Compat51Test, RedisHelpers) {
  EXPECT_EQ(eval("return {redis.sha1hex('abc'), redis.sha1hex(''), redis.sha1hex(12), "
                 "redis.sha1hex(10/2) == redis.sha1hex('5')}"),
            Arr({Bulk("a9993e364706816aba3e25717850c26c9cd0d89d"),
                 Bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709"),
                 Bulk("7b52009b64fd0a2a49e6d8a939753077792b0554"), Int(1)}));
  EXPECT_EQ(eval("return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM, redis.LOG_DEBUG, "
                 "redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
            Arr({Bulk("7.0.15"), Int(458767), Int(0), Int(1), Int(2), Int(3)}));
  EXPECT_EQ(eval("return redis.log(redis.LOG_WARNING, 'hi', 12, {}, 1.5)"), Nil());
  ASSERT_FALSE(ServerAccess::scripts(*server_).log().empty());
  EXPECT_EQ(ServerAccess::scripts(*server_).log().back(), "hi 12 1.5");
  EXPECT_EQ(eval("return {redis.replicate_commands(), redis.acl_check_cmd('GET', 'k')}"),
            Arr({Int(1), Int(1)}));
  EXPECT_EQ(eval("return redis.breakpoint()"), Nil());
}

}  // namespace
}  // namespace redsim::sim

// FUNCTION / FCALL and the RESP3 conversions of scripts. Every expected reply
// is what redis-server 7.0.15 answered to the same commands (compared with
// redis-cli, error texts included); Redis's own unit/functions and
// unit/scripting run them too (tools/redis_test_suite.sh).
#include <gtest/gtest.h>

#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class FunctionTest : public ScriptTest {
 protected:
  resp::Reply run(const Argv& argv) { return server_->execute(*s_, argv); }
  resp::Reply load(const std::string& code, bool replace = false) {
    if (replace) return run({"FUNCTION", "LOAD", "REPLACE", code});
    return run({"FUNCTION", "LOAD", code});
  }
};

TEST_F(FunctionTest, LoadCallListDelete) {
  EXPECT_EQ(load("#!lua name=t4\nredis.register_function('g1', function(k, a) return {k[1], a[1], "
                 "#k, #a} end)"),
            Bulk("t4"));
  EXPECT_EQ(run({"FCALL", "g1", "1", "key", "arg"}),
            Arr({Bulk("key"), Bulk("arg"), Int(1), Int(1)}));
  // Names ignore case; a nil ends the returned array, as in Redis.
  EXPECT_EQ(run({"FCALL", "G1", "0"}), Arr({}));
  EXPECT_EQ(run({"FUNCTION", "LIST"}),
            resp::to_resp2(Arr({resp::Reply::map(
                {Bulk("library_name"), Bulk("t4"), Bulk("engine"), Bulk("LUA"), Bulk("functions"),
                 Arr({resp::Reply::map({Bulk("name"), Bulk("g1"), Bulk("description"), Nil(),
                                        Bulk("flags"), resp::Reply::set({})})})})})));
  EXPECT_EQ(load("#!lua name=t4\nredis.register_function('g2', function() return 1 end)"),
            Err("ERR Library 't4' already exists"));
  EXPECT_EQ(load("#!lua name=t5\nredis.register_function('g1', function() return 1 end)"),
            Err("ERR Function g1 already exists"));
  EXPECT_EQ(run({"FUNCTION", "DELETE", "t4"}), Ok());
  EXPECT_EQ(run({"FUNCTION", "DELETE", "t4"}), Err("ERR Library not found"));
  EXPECT_EQ(run({"FCALL", "g1", "0"}), Err("ERR Function not found"));
}

TEST_F(FunctionTest, LoadErrorsAreRedisTexts) {
  EXPECT_EQ(load("#!lua name=lib2\nreturn math.random()"),
            Err("ERR Error registering functions: ERR user_function:2: Script attempted to access "
                "nonexistent global variable 'math'"));
  EXPECT_EQ(load("#!lua name=lib2\nlocal a = 1\nwhile 1 do a = a + 1 end"),
            Err("ERR Error registering functions: ERR FUNCTION LOAD timeout"));
  EXPECT_EQ(load("#!lua name=lib2\na = 1"),
            Err("ERR Error registering functions: ERR user_function:2: Attempt to modify a "
                "readonly table"));
  EXPECT_EQ(load("#!lua name=lib2\nredis.register_function('f1')"),
            Err("ERR Error registering functions: ERR calling redis.register_function with a "
                "single argument is only applicable to Lua table (representing named arguments)."));
  EXPECT_EQ(load("#!lua name=lib2\nbad script"),
            Err("ERR Error compiling function: user_function:2: '=' expected near 'script'"));
  EXPECT_EQ(load("no shebang"), Err("ERR Missing library metadata"));
  EXPECT_EQ(load("#!lua name=x"), Err("ERR Invalid library metadata"));
  EXPECT_EQ(load("#!lua name=t2 x\n"), Err("ERR Invalid metadata value given: x"));
  EXPECT_EQ(load("#!lua name=x\nreturn 1"), Err("ERR No functions registered"));
  EXPECT_EQ(run({"FUNCTION", "LOAD", "foo", "bar", "#!lua name=x"}),
            Err("ERR Unknown option given: foo"));
  EXPECT_EQ(run({"FUNCTION", "LOAD"}),
            Err("ERR wrong number of arguments for 'function|load' command"));
  EXPECT_EQ(run({"FUNCTION", "LIST", "libraryname"}),
            Err("ERR library name argument was not given"));
  EXPECT_EQ(run({"FUNCTION", "KILL"}), Err("NOTBUSY No scripts in execution right now."));
  EXPECT_EQ(run({"FUNCTION", "RESTORE", "bad"}),
            Err("ERR DUMP payload version or checksum are wrong"));
  EXPECT_EQ(run({"FUNCTION", "RESTORE", "x", "bad"}),
            Err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or "
                "REPLACE."));
}

TEST_F(FunctionTest, RuntimeErrorsNameTheFunction) {
  ASSERT_EQ(load("#!lua name=t1\n"
                 "redis.register_function('f1', function(KEYS, ARGV) return x end)\n"
                 "redis.register_function('f2', function(KEYS, ARGV) return redis.call('nosuch') "
                 "end)\n"
                 "redis.register_function('f3', function(KEYS, ARGV) error('boom') end)\n"
                 "redis.register_function('f4', function(KEYS, ARGV) return 'a' .. nil end)\n"
                 "redis.register_function{function_name='f5', callback=function() return "
                 "redis.call('set', 'x', 1) end, flags={'no-writes'}}"),
            Bulk("t1"));
  EXPECT_EQ(run({"FCALL", "f1", "0"}),
            Err("ERR user_function:2: Script attempted to access nonexistent global variable 'x' "
                "script: f1, on @user_function:2."));
  EXPECT_EQ(run({"FCALL", "f2", "0"}),
            Err("ERR Unknown Redis command called from script script: f2, on @user_function:3."));
  EXPECT_EQ(run({"FCALL", "f3", "0"}),
            Err("ERR user_function:4: boom script: f3, on @user_function:4."));
  EXPECT_EQ(run({"FCALL", "f4", "0"}),
            Err("ERR user_function:5: attempt to concatenate a nil value script: f4, on "
                "@user_function:5."));
  EXPECT_EQ(run({"FCALL", "f1", "x"}), Err("ERR Bad number of keys provided"));
  EXPECT_EQ(run({"FCALL_RO", "f1", "0"}),
            Err("ERR Can not execute a script with write flag using *_ro command."));
  resp::Reply ro = run({"FCALL_RO", "f5", "0"});
  ASSERT_TRUE(ro.is_error());
  EXPECT_NE(ro.str().find("Write commands are not allowed from read-only scripts"),
            std::string::npos)
      << ro.str();
}

TEST_F(FunctionTest, DumpRestorePolicies) {
  ASSERT_EQ(load("#!lua name=a\nredis.register_function('fa', function() return 'A' end)"),
            Bulk("a"));
  resp::Reply dump = run({"FUNCTION", "DUMP"});
  ASSERT_TRUE(dump.is_bulk());
  std::string payload = dump.str();
  EXPECT_EQ(run({"FUNCTION", "RESTORE", payload}), Err("ERR Library a already exists"));
  EXPECT_EQ(run({"FUNCTION", "RESTORE", payload, "REPLACE"}), Ok());
  EXPECT_EQ(run({"FUNCTION", "FLUSH"}), Ok());
  EXPECT_EQ(run({"FUNCTION", "RESTORE", payload}), Ok());
  EXPECT_EQ(run({"FCALL", "fa", "0"}), Bulk("A"));
  std::string corrupt = payload;
  corrupt[3] ^= 1;
  EXPECT_EQ(run({"FUNCTION", "RESTORE", corrupt, "FLUSH"}),
            Err("ERR DUMP payload version or checksum are wrong"));
  EXPECT_EQ(run({"FCALL", "fa", "0"}), Bulk("A"));
  EXPECT_EQ(
      run({"FUNCTION", "STATS"}),
      resp::to_resp2(resp::Reply::map(
          {Bulk("running_script"), Nil(), Bulk("engines"),
           resp::Reply::map({Bulk("LUA"), resp::Reply::map({Bulk("libraries_count"), Int(1),
                                                            Bulk("functions_count"), Int(1)})})})));
}

TEST_F(FunctionTest, SetrespThreeConvertsBothWays) {
  run({"HSET", "h", "field", "value"});
  ASSERT_FALSE(run({"HELLO", "3"}).is_error());
  EXPECT_EQ(eval("redis.setresp(3) return redis.call('hgetall', KEYS[1])", {"h"}),
            resp::Reply::map({Bulk("field"), Bulk("value")}));
  EXPECT_EQ(
      eval("redis.setresp(3) local r = redis.call('hgetall', KEYS[1]) return r.map.field", {"h"}),
      Bulk("value"));
  EXPECT_EQ(eval("redis.setresp(2) return redis.call('hgetall', KEYS[1])", {"h"}),
            Bulks({"field", "value"}));
  EXPECT_EQ(
      eval("redis.setresp(3) return {true, false, redis.call('get', 'nokey') == nil}"),
      Arr({resp::Reply::boolean(true), resp::Reply::boolean(false), resp::Reply::boolean(true)}));
  EXPECT_EQ(eval("return {double=3.5}"), resp::Reply::double_value(3.5));
  EXPECT_EQ(eval("return {big_number='123\\r\\n123'}"), resp::Reply::big_number("123  123"));
  EXPECT_EQ(eval("return {set={a=true}}"), resp::Reply::set({Bulk("a")}));
  EXPECT_EQ(eval("return {verbatim_string={format='txt', string='hi'}}"),
            resp::Reply::verbatim("txt", "hi"));
  // A map holding itself ends as an array (no endless recursion).
  EXPECT_TRUE(eval("local t = {} t.map = t return t").is_map());
}

// A library using `%` and `#` loads (the source rewrite binds its helpers
// first thing, during the load) and they behave as 5.1's, as on
// redis-server 7.0.15.
TEST_F(FunctionTest, LibraryUsingModuloAndLengthLoads) {
  EXPECT_EQ(load("#!lua name=m\nredis.register_function('m1', function() return {5 % 3, "
                 "#'abc', #setmetatable({1}, {__len = function() return 7 end})} end)"),
            Bulk("m"));
  EXPECT_EQ(run({"FCALL", "m1", "0"}), Arr({Int(2), Int(3), Int(1)}));
}

}  // namespace
}  // namespace redsim::sim

// EVAL / EVALSHA / *_RO / SCRIPT: caching, NOSCRIPT, numkeys, frozen time,
// read-only scripts and shebang flags. Texts from redis-server 7.0.15.
#include "sim/lua/script_engine.h"

#include <gtest/gtest.h>

#include "sim/internal.h"
#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

const char* kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
const char* kReturnOneSha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";  // "return 1"

class ScriptEngineTest : public ScriptTest {};

TEST_F(ScriptEngineTest, EvalCachesSoEvalshaWorks) {
  EXPECT_EQ(run({"EVALSHA", kReturnOneSha, "0"}), Err(kNoScript));
  EXPECT_EQ(run({"EVAL", "return 1", "0"}), Int(1));
  EXPECT_EQ(run({"EVALSHA", kReturnOneSha, "0"}), Int(1));
  EXPECT_EQ(run({"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"}), Int(1));
  EXPECT_EQ(run({"EVALSHA_RO", kReturnOneSha, "0"}), Int(1));
  EXPECT_EQ(ServerAccess::scripts(*server_).script_count(), 1u);
  EXPECT_EQ(run({"EVAL", "return 1", "0"}), Int(1));
  EXPECT_EQ(ServerAccess::scripts(*server_).script_count(), 1u);
}

// The cache is found with the SHA1 as given when it is in lower case, else
// lowered: either way a failed script's reply names the lower-case SHA1.
TEST_F(ScriptEngineTest, EvalshaInAnyCaseNamesTheLowerCaseSha) {
  const std::string sha = "206396248e12c6e742fd7296250433c8d7343b74";  // the script below
  const resp::Reply first = run({"EVAL", "return redis.call('nosuch')", "0"});
  ASSERT_TRUE(first.is_error());
  EXPECT_NE(first.str().find("script: " + sha), std::string::npos) << first.str();
  EXPECT_EQ(run({"EVALSHA", sha, "0"}), first);
  EXPECT_EQ(run({"EVALSHA", "206396248E12C6E742FD7296250433C8D7343B74", "0"}), first);
  EXPECT_EQ(run({"EVALSHA", "206396248e12C6E742fd7296250433c8d7343b74", "0"}), first);
  EXPECT_EQ(run({"EVALSHA", "206396248e12c6e742fd7296250433c8d7343b75", "0"}), Err(kNoScript));
}

// redis.call keeps each command name's lookup by the address of its Lua
// string (sim/lua/redis_lib.cc): names built afresh, collected and built
// again (addresses reused by other names), in any case, still run the
// command they name; an unknown name is never taken for a cached one.
TEST_F(ScriptEngineTest, CommandNamesBuiltAtRunTimeRunTheirCommand) {
  EXPECT_EQ(eval("local names = {'incr', 'DECR', 'InCr', 'incrby'} "
                 "for i = 1, 400 do "
                 "  local n = names[(i % 4) + 1] "
                 "  local fresh = string.sub(n .. string.rep('x', i % 7), 1, #n) "
                 "  if fresh == 'incrby' then redis.call(fresh, 'c', 10) "
                 "  else redis.call(fresh, 'c') end "
                 "  if i % 50 == 0 then collectgarbage('collect') end "
                 "end "
                 "local ok = redis.pcall(string.sub('incrx', 1, 5), 'c') "
                 "local unknown = string.find(ok['err'], 'Unknown Redis command', 1, true) ~= nil "
                 "return {tonumber(redis.call('get', 'c')), unknown}"),
            Arr({Int(1100), Int(1)}));
}

TEST_F(ScriptEngineTest, ScriptLoadExistsFlush) {
  EXPECT_EQ(run({"SCRIPT", "LOAD", "return 1"}), Bulk(kReturnOneSha));
  EXPECT_EQ(run({"script", "load", "return 1"}), Bulk(kReturnOneSha));
  EXPECT_EQ(run({"SCRIPT", "EXISTS", kReturnOneSha, "0000000000000000000000000000000000000000",
                 "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "abc"}),
            Arr({Int(1), Int(0), Int(1), Int(0)}));
  EXPECT_EQ(run({"EVALSHA", kReturnOneSha, "0"}), Int(1));
  EXPECT_EQ(run({"SCRIPT", "FLUSH"}), Ok());
  EXPECT_EQ(run({"SCRIPT", "EXISTS", kReturnOneSha}), Arr({Int(0)}));
  EXPECT_EQ(run({"EVALSHA", kReturnOneSha, "0"}), Err(kNoScript));
  EXPECT_EQ(run({"SCRIPT", "LOAD", "return 1"}), Bulk(kReturnOneSha));
  EXPECT_EQ(run({"SCRIPT", "FLUSH", "async"}), Ok());
  EXPECT_EQ(run({"SCRIPT", "FLUSH", "SYNC"}), Ok());
  EXPECT_EQ(ServerAccess::scripts(*server_).script_count(), 0u);
  // The state was rebuilt: scripts still run.
  EXPECT_EQ(run({"EVAL", "return redis.call('ping')", "0"}), Status("PONG"));
}

TEST_F(ScriptEngineTest, ScriptSubcommandErrors) {
  EXPECT_EQ(run({"SCRIPT", "FLUSH", "foo"}),
            Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(run({"SCRIPT", "FLUSH", "sync", "async"}),
            Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(run({"SCRIPT"}), Err("ERR wrong number of arguments for 'script' command"));
  EXPECT_EQ(run({"SCRIPT", "foo"}), Err("ERR unknown subcommand 'foo'. Try SCRIPT HELP."));
  EXPECT_EQ(run({"SCRIPT", "FOO"}), Err("ERR unknown subcommand 'FOO'. Try SCRIPT HELP."));
  EXPECT_EQ(run({"SCRIPT", std::string(200, 'x')}),
            Err("ERR unknown subcommand '" + std::string(128, 'x') + "'. Try SCRIPT HELP."));
  EXPECT_EQ(run({"SCRIPT", "LOAD"}),
            Err("ERR wrong number of arguments for 'script|load' command"));
  EXPECT_EQ(run({"SCRIPT", "LOAD", "a", "b"}),
            Err("ERR wrong number of arguments for 'script|load' command"));
  EXPECT_EQ(run({"SCRIPT", "EXISTS"}),
            Err("ERR wrong number of arguments for 'script|exists' command"));
  EXPECT_EQ(run({"SCRIPT", "HELP", "x"}),
            Err("ERR wrong number of arguments for 'script|help' command"));
  EXPECT_EQ(run({"SCRIPT", "KILL"}), Err("NOTBUSY No scripts in execution right now."));
  EXPECT_EQ(run({"SCRIPT", "KILL", "x"}),
            Err("ERR wrong number of arguments for 'script|kill' command"));
  EXPECT_EQ(run({"SCRIPT", "DEBUG", "no"}), Ok());
  EXPECT_EQ(run({"SCRIPT", "DEBUG", "foo"}), Err("ERR Use SCRIPT DEBUG YES/SYNC/NO"));
  EXPECT_EQ(run({"SCRIPT", "DEBUG"}),
            Err("ERR wrong number of arguments for 'script|debug' command"));
}

TEST_F(ScriptEngineTest, ScriptHelp) {
  resp::Reply help = run({"SCRIPT", "HELP"});
  ASSERT_TRUE(help.is_array());
  ASSERT_EQ(help.elements().size(), 17u);
  EXPECT_EQ(help.elements()[0],
            Status("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements()[16], Status("    Prints this help."));
}

TEST_F(ScriptEngineTest, NumkeysChecksComeFirst) {
  EXPECT_EQ(run({"EVAL", "return 1", "2", "a"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(run({"EVAL", "return 1", "-1"}), Err("ERR Number of keys can't be negative"));
  for (const char* bad : {"x", " 1", "1 ", "+0", "-0", "01", "99999999999999999999"}) {
    EXPECT_EQ(run({"EVAL", "return 1", bad}), Err(kNotInt)) << bad;
  }
  // Before compiling or looking up the script...
  EXPECT_EQ(run({"EVAL", "return +", "-1"}), Err("ERR Number of keys can't be negative"));
  EXPECT_EQ(run({"EVAL", "return +", "5"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(run({"EVALSHA", "0000000000000000000000000000000000000000", "-1"}),
            Err("ERR Number of keys can't be negative"));
  // ...except that EVALSHA refuses a sha of the wrong length at once.
  EXPECT_EQ(run({"EVALSHA", "abc", "x"}), Err(kNoScript));
  EXPECT_EQ(run({"EVALSHA_RO", "abc", "-1"}), Err(kNoScript));
  EXPECT_EQ(run({"EVAL", "return 1", "0", "a"}), Int(1));
  EXPECT_EQ(run({"EVAL", "return 1"}), Err("ERR wrong number of arguments for 'eval' command"));
  EXPECT_EQ(run({"EVALSHA", "abc"}), Err("ERR wrong number of arguments for 'evalsha' command"));
}

TEST(ScriptTimeTest, TimeIsFrozenForTheWholeScript) {
  TickingClock clock;
  Server server(clock);
  auto s = server.connect();
  ASSERT_EQ(server.execute(*s, {"SET", "k", "v", "PX", "100000"}), resp::Reply::ok());
  resp::Reply r = server.execute(
      *s, {"EVAL",
           "local a = redis.call('pttl', KEYS[1]) local x = 0 for i = 1, 100000 do x = x + i end "
           "for i = 1, 50 do redis.call('get', KEYS[1]) end "
           "local b = redis.call('pttl', KEYS[1]) return {a, b}",
           "1", "k"});
  ASSERT_TRUE(r.is_array()) << r.debug_string();
  ASSERT_EQ(r.elements().size(), 2u);
  EXPECT_EQ(r.elements()[0], r.elements()[1]);
  EXPECT_GT(r.elements()[0].integer(), 90000);
  // Outside a script, time moves between commands.
  resp::Reply p1 = server.execute(*s, {"PTTL", "k"});
  resp::Reply p2 = server.execute(*s, {"PTTL", "k"});
  EXPECT_GT(p1.integer(), p2.integer());
}

TEST_F(ScriptEngineTest, KeyExpiringDuringTheScriptStaysForIt) {
  run({"SET", "k", "v", "PX", "10"});
  advance_ms(10);  // now == deadline: still alive (expired only when now > deadline)
  EXPECT_EQ(eval("return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])}", {"k"}),
            Arr({Bulk("v"), Int(0)}));
  advance_ms(1);
  EXPECT_EQ(eval("return redis.call('get', KEYS[1])", {"k"}), Nil());
}

TEST_F(ScriptEngineTest, ReadOnlyScriptsRefuseWrites) {
  EXPECT_EQ(eval_ro("return redis.call(\"set\",\"a\",\"b\")"),
            Err("ERR Write commands are not allowed from read-only scripts. script: "
                "554a95710d45ea243cdf37846a5028cfac292109, on @user_script:1."));
  EXPECT_EQ(eval_ro("return redis.pcall('set','a','b')"),
            Err("ERR Write commands are not allowed from read-only scripts."));
  EXPECT_EQ(eval_ro("return redis.call(\"publish\", \"c\", \"m\")"),
            Err("ERR Write commands are not allowed from read-only scripts. script: "
                "e80a5e0d028cd03bf5bfa315dd17588e7d30fcaf, on @user_script:1."));
  EXPECT_EQ(eval_ro("return redis.call('get','x')"), Nil());
  EXPECT_EQ(run({"EXISTS", "a"}), Int(0));
  // The flag is per call: the same script may write through EVAL.
  EXPECT_EQ(eval("return redis.call('set','a','b')"), Ok());
  const std::string writer = "return redis.call('set','a','b')";
  EXPECT_EQ(run({"EVALSHA_RO", lua::sha1_hex(writer), "0"}),
            script_err("ERR Write commands are not allowed from read-only scripts.", writer));
}

TEST_F(ScriptEngineTest, ShebangFlags) {
  EXPECT_EQ(eval("#!lua\nreturn redis.call(\"set\",\"a\",\"b\")"), Ok());
  EXPECT_EQ(eval("#!lua flags=no-writes\nreturn redis.call(\"set\",\"a\",\"b\")"),
            Err("ERR Write commands are not allowed from read-only scripts. script: "
                "fd62e2d5b0fa7f778ebeeae125841af41328b852, on @user_script:2."));
  EXPECT_EQ(eval("#!lua flags=no-writes\nreturn 1+nil"),
            Err("ERR user_script:2: attempt to perform arithmetic on a nil value script: "
                "3213bcf7fd2e5204002459c3be8d03ab3c5fb37b, on @user_script:2."));
  EXPECT_EQ(eval("#!lua\nreturn +"), Err("ERR Error compiling script (new function): "
                                         "user_script:2: unexpected symbol near '+'"));
  EXPECT_EQ(eval("#!lua flags=foo\nreturn 1"), Err("ERR Unexpected flag in script shebang: foo"));
  EXPECT_EQ(eval("#!lua flags=no-writes,\nreturn 1"),
            Err("ERR Unexpected flag in script shebang: "));
  EXPECT_EQ(eval("#!lua name=x\nreturn 1"), Err("ERR Unknown lua shebang option: name=x"));
  EXPECT_EQ(eval("#!luax\nreturn 1"), Err("ERR Unexpected engine in script shebang: #!luax"));
  EXPECT_EQ(eval("#! lua\nreturn 1"), Err("ERR Unexpected engine in script shebang: #!"));
  EXPECT_EQ(eval("#!lua"), Err("ERR Invalid script shebang"));
  EXPECT_EQ(eval("#!lua  flags=no-writes,allow-oom\nreturn 2"), Int(2));
  EXPECT_EQ(eval("#!lua\tflags=\nreturn 3"), Int(3));
  EXPECT_EQ(run({"EVAL_RO", "#!lua\nreturn redis.call(\"set\",\"a\",\"b\")", "0"}),
            Err("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(run({"EVAL_RO", "#!lua flags=no-writes\nreturn redis.call(\"get\",\"a\")", "0"}),
            Bulk("b"));
  EXPECT_EQ(run({"SCRIPT", "LOAD", "#!lua flags=foo\nreturn 1"}),
            Err("ERR Unexpected flag in script shebang: foo"));
}

TEST_F(ScriptEngineTest, ParseShebangDirectly) {
  lua::Shebang none = lua::parse_shebang("return 1");
  EXPECT_FALSE(none.present);
  EXPECT_EQ(none.code_offset, 0u);
  lua::Shebang sb = lua::parse_shebang("#!lua flags=no-writes,allow-stale\nreturn 1");
  EXPECT_TRUE(sb.present);
  EXPECT_TRUE(sb.error.empty());
  EXPECT_EQ(sb.flags, lua::kScriptFlagNoWrites | lua::kScriptFlagAllowStale);
  EXPECT_EQ(sb.code_offset, std::string("#!lua flags=no-writes,allow-stale").size());
}

TEST_F(ScriptEngineTest, ScriptsRunInTheCallersDbAndSelectLastsForTheScript) {
  EXPECT_EQ(eval("redis.call('select', 1) redis.call('set', 'indb1', 'x') "
                 "return redis.call('get', 'indb1')"),
            Bulk("x"));
  EXPECT_EQ(run({"GET", "indb1"}), Nil());
  EXPECT_EQ(run({"SELECT", "1"}), Ok());
  EXPECT_EQ(run({"GET", "indb1"}), Bulk("x"));
}

TEST_F(ScriptEngineTest, EvalInsideMultiIsQueued) {
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"EVAL", "return redis.call('incr', KEYS[1])", "1", "n"}), Status("QUEUED"));
  EXPECT_EQ(run({"EVAL", "return redis.call('incr', KEYS[1])", "1", "n"}), Status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), Arr({Int(1), Int(2)}));
}

TEST_F(ScriptEngineTest, RunningIsTrueOnlyDuringAScript) {
  EXPECT_FALSE(ServerAccess::scripts(*server_).running());
  EXPECT_EQ(eval("return 1"), Int(1));
  EXPECT_FALSE(ServerAccess::scripts(*server_).running());
}

}  // namespace
}  // namespace redsim::sim

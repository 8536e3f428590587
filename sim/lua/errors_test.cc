// Error replies of scripts. Every expected text below (sha included) was
// copied from redis-server 7.0.15's answer to the same EVAL.
#include <gtest/gtest.h>

#include "sim/internal.h"
#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ScriptErrorTest : public ScriptTest {};

TEST_F(ScriptErrorTest, RuntimeErrorsCarryPositionAndSuffix) {
  EXPECT_EQ(eval("return 1+nil"),
            Err("ERR user_script:1: attempt to perform arithmetic on a nil value script: "
                "443c62573584f71824058f7cd2773973472c735b, on @user_script:1."));
  EXPECT_EQ(eval("local x = nil\nreturn x.y"),
            Err("ERR user_script:2: attempt to index local 'x' (a nil value) script: "
                "d4bb16f4f8d843879eecd8fc9b3c6527879baef0, on @user_script:2."));
  EXPECT_EQ(eval("local x; return x + 1"),
            Err("ERR user_script:1: attempt to perform arithmetic on local 'x' (a nil value) "
                "script: 13cb3922fd9ac02993a1158b0422cdf2e260a7d2, on @user_script:1."));
  EXPECT_EQ(eval("local t = {} return t:m()"),
            Err("ERR user_script:1: attempt to call method 'm' (a nil value) script: "
                "4133ac5407f6f6014b1de59a8f36aa9c7dafc436, on @user_script:1."));
  EXPECT_EQ(eval("return ARGV[1] + 1"),
            Err("ERR user_script:1: attempt to perform arithmetic on field '?' (a nil value) "
                "script: 84834ee62a493ae7cb74fa5841a3a02222e583ba, on @user_script:1."));
  EXPECT_EQ(eval("local u = nil; local f = function() return u.x end return f()"),
            Err("ERR user_script:1: attempt to index upvalue 'u' (a nil value) script: "
                "c74e91b37657de80b4a51aafc35dc037f7b4703f, on @user_script:1."));
  EXPECT_EQ(eval("for i=1,\"x\" do end"),
            Err("ERR user_script:1: 'for' limit must be a number script: "
                "12e8673fe8ef8f5338740b76e3a1106bbf60bcd5, on @user_script:1."));
  EXPECT_EQ(eval("return (\"x\") + 1"),
            Err("ERR user_script:1: attempt to perform arithmetic on a string value script: "
                "959ac1ecba3378da108d2628d53cc6a72f372c81, on @user_script:1."));
  EXPECT_EQ(eval("return math.floor(\"a\")"),
            Err("ERR user_script:1: bad argument #1 to 'floor' (number expected, got string) "
                "script: 5546d3f3cf571a03821f90b4d68f961bad32adaf, on @user_script:1."));
  EXPECT_EQ(eval("local function f() return 1 + f() end return f()"),
            Err("ERR user_script:1: stack overflow script: "
                "2c347ae0c7feaa40c62d8208d59e954ee9ff79ff, on @user_script:1."));
}

TEST_F(ScriptErrorTest, ErrorFunctionForms) {
  EXPECT_EQ(eval("error(\"x\")"), Err("ERR user_script:1: x script: "
                                      "ada89932db851ca262f39d814ce59006e53278cc, on "
                                      "@user_script:1."));
  EXPECT_EQ(eval("error(\"x\",0)"),
            Err("ERR x script: 30c50906f9c7735a6ac0d4f8b24229c1436672e7, on @user_script:1."));
  EXPECT_EQ(eval("error(12)"), Err("ERR user_script:1: 12 script: "
                                   "531d78cb0a3022f46aa8fcca247caa61d303b321, on "
                                   "@user_script:1."));
  EXPECT_EQ(eval("error()"),
            Err("ERR nil script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1."));
  EXPECT_EQ(eval("error(\"a\\nb\")"),
            Err("ERR user_script:1: a b script: c25efb1b406ca92aafb584691c5e64cb33f0c894, on "
                "@user_script:1."));
  EXPECT_EQ(eval("error({err=\"MYERR boom\"})"),
            Err("MYERR boom script: 98760d1141b9fda480171824ea90667e0f7fbca6, on "
                "@user_script:1."));
  EXPECT_EQ(eval("return error({err=\"boom\"})"),
            Err("boom script: e956aa65674e95d9f847148ed8c3d3c876a726fc, on @user_script:1."));
  EXPECT_EQ(eval("error(redis.error_reply(\"boom\"))"),
            Err("ERR boom script: 80083dcfdebe5fd29f13e655357b50fbf80e63a6, on "
                "@user_script:1."));
  // The message keeps error()'s level; the suffix names where error() ran.
  EXPECT_EQ(eval("local function g()\n  error(\"deep\", 2)\nend\ng()"),
            Err("ERR user_script:4: deep script: 8dd68fcf350d46ab1b12d81ca5ccf4ed4decdf8b, on "
                "@user_script:2."));
  EXPECT_EQ(eval("return assert(false, \"boom\")"),
            script_err("ERR user_script:1: boom", "return assert(false, \"boom\")"));
  EXPECT_EQ(eval("return assert(nil, 12)"),
            Err("ERR user_script:1: 12 script: 93f88a97ecf18be8c0e3f76039e33ea65e0505a5, on "
                "@user_script:1."));
}

TEST_F(ScriptErrorTest, ErrorTableWithoutErrFieldDoesNotCrash) {
  // redis-server 7.0.15 crashes on this (fixed upstream in 2025); we answer.
  resp::Reply r = eval("error({})");
  ASSERT_TRUE(r.is_error());
  EXPECT_EQ(r.str().rfind("ERR unknown error script: ", 0), 0u) << r.str();
}

TEST_F(ScriptErrorTest, ErrorsRaisedByRedisCall) {
  EXPECT_EQ(eval("redis.call(\"set\",\"s\",\"v\") return redis.call(\"hget\",\"s\",\"f\")"),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value script: "
                "b69220450ac6144883066a6aac6e78eef6fd3444, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"nosuch\",\"s\")"),
            Err("ERR Unknown Redis command called from script script: "
                "4dcc7534c817d94a8389d964b2be293f814069b8, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"get\")"),
            Err("ERR Wrong number of args calling Redis command from script script: "
                "ad9cf9305028be601cfd2abed4ce895eb41a4a6f, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call()"),
            Err("ERR Please specify at least one argument for this redis lib call script: "
                "0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"get\",{})"),
            Err("ERR Lua redis lib command arguments must be strings or integers script: "
                "dcef67b9205a9d3f8a30c37ec57d43db9375b79d, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"multi\")"),
            Err("ERR This Redis command is not allowed from script script: "
                "211a39902cf76b98677003ff6f4c16cf0d1d5d6b, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"eval\",\"return 1\",\"0\")"),
            Err("ERR This Redis command is not allowed from script script: "
                "6e5056688d554bd41f2476fb72f36efaeccbfd64, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call(\"ping\", \"a\", \"b\")"),
            Err("ERR wrong number of arguments for 'ping' command script: "
                "f678993bf076ae41b4c7725bd574ff65709af235, on @user_script:1."));
  // The suffix names the line of the redis.call, inside a nested function.
  EXPECT_EQ(eval("local function g()\n  return redis.call(\"nosuch\")\nend\nreturn g()"),
            Err("ERR Unknown Redis command called from script script: "
                "7c68d668d023b85513e67166b8fa50b0f2387f38, on @user_script:2."));
}

// Issue 15, item 1: a script could turn off its own time limit with CONFIG
// SET. Redis refuses every noscript command, per subcommand for containers
// (CONFIG HELP runs, CONFIG GET does not); texts from redis-server 7.0.15.
TEST_F(ScriptErrorTest, NoscriptSubcommandsAreRefused) {
  EXPECT_EQ(eval("redis.call('CONFIG','SET','busy-reply-threshold','0') while true do end"),
            Err("ERR This Redis command is not allowed from script script: "
                "ab90588b2392304565a9f1d22f9f0d7e2aede9c6, on @user_script:1."));
  EXPECT_EQ(run({"CONFIG", "GET", "busy-reply-threshold"}),
            Bulks({"busy-reply-threshold", "5000"}));
  EXPECT_EQ(eval("return redis.call('script','kill')"),
            Err("ERR This Redis command is not allowed from script script: "
                "85073dc6220ac3778f9893410ca017ef1d528c74, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call('CONFIG','GET')"),
            Err("ERR Wrong number of args calling Redis command from script script: "
                "aca51ba474f244b5253168e3b0da0cea0ff2b5e0, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call('command','count','x')"),
            Err("ERR Wrong number of args calling Redis command from script script: "
                "8e9d9b768ca90bd994bad2a3c883d438bc393e2b, on @user_script:1."));
  EXPECT_EQ(eval("return redis.call('object','foo','x')"),
            Err("ERR Unknown Redis command called from script script: "
                "fcde5a5468c3f2c2a5553341b65ee65dcc2cac66, on @user_script:1."));
  for (const char* call : {"'config','get','hz'", "'config','resetstat'", "'client','id'",
                           "'client','list'", "'client','setname','x'", "'function','list'",
                           "'function','stats'", "'script','flush'", "'script','exists','x'"}) {
    std::string script = std::string("return redis.pcall(") + call + ")";
    EXPECT_EQ(eval(script), Err("ERR This Redis command is not allowed from script")) << call;
  }
  EXPECT_EQ(eval("return redis.call('CLIENT','HELP')[1]"),
            Status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(eval("return redis.call('config','help')[1]"),
            Status("CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(eval("return redis.call('script','help')[1]"),
            Status("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(eval("return redis.call('command','count') > 0"), Int(1));
}

TEST_F(ScriptErrorTest, RedisPcallReturnsTheErrorWithoutSuffix) {
  EXPECT_EQ(eval("return redis.pcall(\"get\")"),
            Err("ERR Wrong number of args calling Redis command from script"));
  EXPECT_EQ(eval("redis.call(\"set\",\"s\",\"v\") return redis.pcall(\"hget\",\"s\",\"f\")"),
            Err(kWrongType));
  EXPECT_EQ(eval("return redis.pcall(\"nosuch\",\"s\")"),
            Err("ERR Unknown Redis command called from script"));
  EXPECT_EQ(eval("return redis.pcall(\"get\",nil)"),
            Err("ERR Lua redis lib command arguments must be strings or integers"));
  EXPECT_EQ(eval("return redis.pcall(\"multi\")"),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(eval("local e = redis.pcall(\"get\") local t={} for k,v in pairs(e) do "
                 "t[#t+1]=k..\"=\"..tostring(v) end table.sort(t) return t"),
            Bulks({"err=ERR Wrong number of args calling Redis command from script",
                   "ignore_error_stats_update=true"}));
  // Lua's pcall hands back redis.call's error as the plain string.
  EXPECT_EQ(eval("local ok, e = pcall(function() redis.call(\"nosuch\") end) return e"),
            Bulk("ERR Unknown Redis command called from script"));
  EXPECT_EQ(eval("local ok, e = pcall(function() return 1+nil end) return e"),
            Bulk("user_script:1: attempt to perform arithmetic on a nil value"));
  EXPECT_EQ(eval("local ok,e = pcall(error, {foo=\"x\"}) return {tostring(ok), type(e), e.foo}"),
            Bulks({"false", "table", "x"}));
}

TEST_F(ScriptErrorTest, ReturnedErrorAndStatusTables) {
  EXPECT_EQ(eval("return redis.error_reply(\"MYERR boom\")"), Err("MYERR boom"));
  EXPECT_EQ(eval("return redis.error_reply(\"boom\")"), Err("ERR boom"));
  EXPECT_EQ(eval("return redis.error_reply(\"-boom\")"), Err("ERR boom"));
  EXPECT_EQ(eval("return redis.error_reply(\"\")"), Err("ERR "));
  EXPECT_EQ(eval("return redis.error_reply()"), Err("ERR wrong number or type of arguments"));
  EXPECT_EQ(eval("return redis.error_reply(12)"), Err("ERR wrong number or type of arguments"));
  EXPECT_EQ(eval("return {err=\"boom\"}"), Err("boom"));
  EXPECT_EQ(eval("return {err=\"-boom\"}"), Err("-boom"));
  EXPECT_EQ(eval("return {err=\"ERR boom\\r\\nx\"}"), Err("ERR boom  x"));
  EXPECT_EQ(eval("return redis.status_reply(\"FINE\")"), Status("FINE"));
  EXPECT_EQ(eval("return {ok=\"FI\\r\\nNE\"}"), Status("FI  NE"));
  EXPECT_EQ(eval("return redis.status_reply()"), Err("ERR wrong number or type of arguments"));
}

TEST_F(ScriptErrorTest, CompileErrors) {
  EXPECT_EQ(eval("return +"), Err("ERR Error compiling script (new function): user_script:1: "
                                  "unexpected symbol near '+'"));
  EXPECT_EQ(eval("local a = \"abc"), Err("ERR Error compiling script (new function): "
                                         "user_script:1: unfinished string near '<eof>'"));
  EXPECT_EQ(eval("if true then"), Err("ERR Error compiling script (new function): "
                                      "user_script:1: 'end' expected near '<eof>'"));
  EXPECT_EQ(eval("return 1 1"), Err("ERR Error compiling script (new function): "
                                    "user_script:1: '<eof>' expected near '1'"));
  EXPECT_EQ(eval("local 1 = 2"), Err("ERR Error compiling script (new function): "
                                     "user_script:1: '<name>' expected near '1'"));
  EXPECT_EQ(eval("local x = [[abc"), Err("ERR Error compiling script (new function): "
                                         "user_script:1: unfinished long string near '<eof>'"));
  EXPECT_EQ(eval("x.y"), Err("ERR Error compiling script (new function): user_script:1: "
                             "'=' expected near '<eof>'"));
  EXPECT_EQ(eval("\x1bLua"), Err("ERR Error compiling script (new function): user_script:1: "
                                 "unexpected symbol near 'char(27)'"));
  EXPECT_EQ(run({"SCRIPT", "LOAD", "return +"}),
            Err("ERR Error compiling script (new function): user_script:1: "
                "unexpected symbol near '+'"));
  // A failed compile caches nothing.
  EXPECT_EQ(ServerAccess::scripts(*server_).script_count(), 0u);
}

TEST_F(ScriptErrorTest, OperatorsNewerThanFiveOneDoNotCompile) {
  // Real Redis: "unexpected symbol near '/'" for the first; 5.1's wording
  // for the others depends on the statement ("'<eof>' expected near '&'").
  EXPECT_EQ(eval("return 5 // 2"), Err("ERR Error compiling script (new function): "
                                       "user_script:1: unexpected symbol near '/'"));
  for (const char* code :
       {"return 1 & 2", "return 1 | 2", "return ~1", "return 1 << 2", "return 1 >> 2", "::top::"}) {
    resp::Reply r = eval(code);
    ASSERT_TRUE(r.is_error()) << code;
    EXPECT_EQ(r.str().rfind("ERR Error compiling script (new function): user_script:1: ", 0), 0u)
        << r.str();
  }
  // Inside strings and comments they are just text; ~= is 5.1's.
  EXPECT_EQ(eval("-- a // b & c\nreturn {'//', \"a|b\", [[<<>>]], 1 ~= 2}"),
            Arr({Bulk("//"), Bulk("a|b"), Bulk("<<>>"), Int(1)}));
  EXPECT_EQ(eval("--[==[ x & y\n ]==] return 2\nreturn"),
            Err("ERR Error compiling script (new function): user_script:3: '<eof>' expected "
                "near 'return'"));
  EXPECT_EQ(eval("local x = 1\nlocal y = x & 1"),
            Err("ERR Error compiling script (new function): user_script:2: unexpected symbol "
                "near '&'"));
}

TEST_F(ScriptErrorTest, UnknownStringEscapesReadAsFiveOne) {
  // redis-server 7.0.15: return "\q" -> "q"; 5.4 would refuse to compile.
  EXPECT_EQ(eval("return \"\\q\""), Bulk("q"));
  EXPECT_EQ(eval("return '\\x41\\z'"), Bulk("x41z"));
  EXPECT_EQ(eval("return '\\65\\n\\\\'"), Bulk("A\n\\"));
  EXPECT_EQ(lua::adapt_source51("return 'a\\qb' -- \\q").code, "return 'aqb' -- \\q");
}

TEST_F(ScriptErrorTest, RedisLibArgumentErrors) {
  EXPECT_EQ(eval("return redis.sha1hex()"),
            Err("ERR wrong number of arguments script: "
                "3c7ce947ae74a835cc575b6ee87fb27503cb7ba4, on @user_script:1."));
  EXPECT_EQ(eval("return redis.log(redis.LOG_WARNING)"),
            Err("ERR redis.log() requires two arguments or more. script: "
                "224c2b6c4d4a245fb6c4394854d25a2ca448909c, on @user_script:1."));
  EXPECT_EQ(eval("return redis.log(99, \"x\")"),
            Err("ERR Invalid debug level. script: 794ec71b975f1c1904937bcbf367ff85f5c9a628, on "
                "@user_script:1."));
  EXPECT_EQ(eval("return redis.log(\"x\",\"y\")"),
            Err("ERR First argument must be a number (log level). script: "
                "a642a1ea01b696b4b74651935b72c3a016af31a0, on @user_script:1."));
  EXPECT_EQ(eval("return redis.setresp(4)"),
            Err("ERR RESP version must be 2 or 3. script: "
                "921c0a48021d97dfd5884aeea41875972c7804d9, on @user_script:1."));
  EXPECT_EQ(eval("return redis.setresp()"),
            Err("ERR redis.setresp() requires one argument. script: "
                "76da64e28014e7c9ad76db33c3918c53d81a3d7e, on @user_script:1."));
  EXPECT_EQ(eval("return redis.set_repl(99)"),
            Err("ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                "REPL_NONE. script: fae934173b6296d6836d5d5f52e192640f8897d9, on "
                "@user_script:1."));
  EXPECT_EQ(eval("return redis.acl_check_cmd(\"nosuch\")"),
            Err("ERR Invalid command passed to redis.acl_check_cmd() script: "
                "845c47ef9792d96c18d3ab32fa5bcfca46201d7a, on @user_script:1."));
  // Caught by pcall they are plain "ERR ..." strings.
  EXPECT_EQ(eval("return {pcall(redis.log)}"),
            Arr({Nil(), Bulk("ERR redis.log() requires two arguments or more.")}));
  EXPECT_EQ(eval("return {pcall(redis.set_repl)}"),
            Arr({Nil(), Bulk("ERR redis.set_repl() requires two arguments.")}));
}

TEST_F(ScriptErrorTest, SetrespArgumentErrors) {
  EXPECT_EQ(eval("return redis.setresp(2)"), Nil());
  EXPECT_EQ(eval("return redis.setresp(4)"),
            script_err("ERR RESP version must be 2 or 3.", "return redis.setresp(4)"));
}

TEST_F(ScriptErrorTest, MessageRewritesFrom54To51) {
  EXPECT_EQ(lua::rewrite_message51("user_script:1: attempt to index a nil value (local 'x')"),
            "user_script:1: attempt to index local 'x' (a nil value)");
  EXPECT_EQ(lua::rewrite_message51("attempt to call a table value (global 'redis')"),
            "attempt to call global 'redis' (a table value)");
  EXPECT_EQ(lua::rewrite_message51("attempt to concatenate a nil value (field 'integer index')"),
            "attempt to concatenate field '?' (a nil value)");
  EXPECT_EQ(lua::rewrite_message51("attempt to index a number value (constant 'x')"),
            "attempt to index a number value");
  EXPECT_EQ(lua::rewrite_message51("x:1: attempt to add a 'number' with a 'table'"),
            "x:1: attempt to perform arithmetic on a table value");
  EXPECT_EQ(lua::rewrite_message51("x:1: bad 'for' step (number expected, got nil)"),
            "x:1: 'for' step must be a number");
  EXPECT_EQ(lua::rewrite_message51("attempt to compare two table values"),
            "attempt to compare two table values");
  EXPECT_EQ(lua::compile_message51("s:1: unfinished long string (starting at line 3) near <eof>"),
            "s:1: unfinished long string near '<eof>'");
}

}  // namespace
}  // namespace redsim::sim

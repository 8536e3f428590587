// The script sandbox: exactly Redis 7.0's globals, read-only globals and
// libraries, and the nonexistent-global error (texts from redis-server
// 7.0.15).
#include <gtest/gtest.h>

#include <string>

#include "sim/lua/engine_impl.h"
#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class SandboxTest : public ScriptTest {};

TEST_F(SandboxTest, GlobalsAreRedisSevenZero) {
  // What redis-server 7.0.15 lists.
  EXPECT_EQ(eval("local t={} for k,v in pairs(_G) do t[#t+1]=k..':'..type(v) end "
                 "table.sort(t) return t"),
            Bulks({"ARGV:table",
                   "KEYS:table",
                   "_G:table",
                   "_VERSION:string",
                   "__redis__err__handler:function",
                   "assert:function",
                   "bit:table",
                   "cjson:table",
                   "cmsgpack:table",
                   "collectgarbage:function",
                   "coroutine:table",
                   "error:function",
                   "gcinfo:function",
                   "getmetatable:function",
                   "ipairs:function",
                   "load:function",
                   "loadstring:function",
                   "math:table",
                   "next:function",
                   "pairs:function",
                   "pcall:function",
                   "rawequal:function",
                   "rawget:function",
                   "rawset:function",
                   "redis:table",
                   "select:function",
                   "setmetatable:function",
                   "string:table",
                   "struct:table",
                   "table:table",
                   "tonumber:function",
                   "tostring:function",
                   "type:function",
                   "unpack:function",
                   "xpcall:function"}));
  EXPECT_EQ(eval("return _VERSION"), Bulk("Lua 5.1"));
}

TEST_F(SandboxTest, LibraryContentsAreFiveOne) {
  auto names = [&](const std::string& lib) {
    return eval("local t={} for k,v in pairs(" + lib + ") do t[#t+1]=k end table.sort(t) return t");
  };
  EXPECT_EQ(names("string"),
            Bulks({"byte", "char", "dump", "find", "format", "gfind", "gmatch", "gsub", "len",
                   "lower", "match", "rep", "reverse", "sub", "upper"}));
  EXPECT_EQ(names("table"), Bulks({"concat", "foreach", "foreachi", "getn", "insert", "maxn",
                                   "remove", "setn", "sort"}));
  EXPECT_EQ(names("math"),
            Bulks({"abs",    "acos",       "asin",  "atan", "atan2", "ceil", "cos",   "cosh",
                   "deg",    "exp",        "floor", "fmod", "frexp", "huge", "ldexp", "log",
                   "log10",  "max",        "min",   "mod",  "modf",  "pi",   "pow",   "rad",
                   "random", "randomseed", "sin",   "sinh", "sqrt",  "tan",  "tanh"}));
  EXPECT_EQ(names("bit"), Bulks({"arshift", "band", "bnot", "bor", "bswap", "bxor", "lshift", "rol",
                                 "ror", "rshift", "tobit", "tohex"}));
  EXPECT_EQ(names("coroutine"), Bulks({"create", "resume", "running", "status", "wrap", "yield"}));
  EXPECT_EQ(names("redis"), Bulks({"LOG_DEBUG",
                                   "LOG_NOTICE",
                                   "LOG_VERBOSE",
                                   "LOG_WARNING",
                                   "REDIS_VERSION",
                                   "REDIS_VERSION_NUM",
                                   "REPL_ALL",
                                   "REPL_AOF",
                                   "REPL_NONE",
                                   "REPL_REPLICA",
                                   "REPL_SLAVE",
                                   "acl_check_cmd",
                                   "breakpoint",
                                   "call",
                                   "debug",
                                   "error_reply",
                                   "log",
                                   "pcall",
                                   "replicate_commands",
                                   "set_repl",
                                   "setresp",
                                   "sha1hex",
                                   "status_reply"}));
}

TEST_F(SandboxTest, ForbiddenNamesAreNonexistentGlobals) {
  for (const char* name : {"os", "io", "print", "require", "dofile", "loadfile", "debug", "package",
                           "utf8", "setfenv", "getfenv", "module", "rawlen"}) {
    std::string script = std::string("return ") + name;
    EXPECT_EQ(eval(script),
              script_err(std::string("ERR user_script:1: Script attempted to access nonexistent "
                                     "global variable '") +
                             name + "'",
                         script))
        << name;
  }
  EXPECT_EQ(eval("return x"),
            Err("ERR user_script:1: Script attempted to access nonexistent global variable 'x' "
                "script: 03c387736bb5cc009ff35151572cee04677aa374, on @user_script:1."));
  EXPECT_EQ(eval("return _G.nosuch"),
            Err("ERR user_script:1: Script attempted to access nonexistent global variable "
                "'nosuch' script: 434fa3e610ec2fb3c76472bda5965a75eef9cde8, on @user_script:1."));
  EXPECT_EQ(eval("return rawget(_G, 'nosuch')"), Nil());
}

TEST_F(SandboxTest, GlobalsAndLibrariesAreReadOnly) {
  EXPECT_EQ(eval("x = 1"), Err("ERR user_script:1: Attempt to modify a readonly table script: "
                               "34bce5f775de97f557a34088509c8bfe1ea17e52, on @user_script:1."));
  EXPECT_EQ(eval("string.x = 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "c3eb0a2a15b3d4790b323c4104029c1ae425a769, on @user_script:1."));
  EXPECT_EQ(eval("redis.call = 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "69f883616b1814e2dc95cf801f324e38c5cc5ed2, on @user_script:1."));
  EXPECT_EQ(eval("ARGV = {} return 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "16385017fe686a57e841c85a1b9a6ebb8d3836ef, on @user_script:1."));
  EXPECT_EQ(eval("local cj = cjson cj.foo = 1 return 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "61775bb4d0c9a33aead4113bfb2f522dc8aa7b80, on @user_script:1."));
  EXPECT_EQ(eval("getmetatable(\"\").__index.foo = 1 return 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "d8799ff92024ffcbac05a67ec57c2a3416e0650f, on @user_script:1."));
  // From inside rawset/setmetatable there is no Lua line to name.
  EXPECT_EQ(eval("rawset(_G, \"x\", 1) return 1"),
            Err("ERR Attempt to modify a readonly table script: "
                "29afa3c0d090e06daf1261cece65a5e6217e26b6, on @user_script:1."));
  EXPECT_EQ(eval("rawset(string, \"x\", 1) return 1"),
            Err("ERR Attempt to modify a readonly table script: "
                "206358fb960ba80809b985f5c7657b9ff8c5ec2a, on @user_script:1."));
  EXPECT_EQ(eval("setmetatable(_G, nil) return 1"),
            Err("ERR Attempt to modify a readonly table script: "
                "c122f21771d632cc334af0c2a37dd028f1a230b7, on @user_script:1."));
  // Nothing leaked into the next script.
  EXPECT_EQ(eval("return string.x"), Nil());
}

TEST_F(SandboxTest, ReadOnlyTablesStillReadLikeTables) {
  EXPECT_EQ(eval("return rawget(_G, 'redis') ~= nil"), Int(1));
  EXPECT_EQ(eval("return next(string) ~= nil"), Int(1));
  EXPECT_EQ(eval("local n = 0 for k in pairs(redis) do n = n + 1 end return n"), Int(23));
  EXPECT_EQ(eval("return _G == _G._G"), Int(1));
  EXPECT_EQ(eval("return tostring(rawequal(string, getmetatable('').__index))"), Bulk("true"));
  EXPECT_EQ(eval("return tostring(getmetatable(string))"), Bulk("nil"));
  EXPECT_EQ(eval("return type(getmetatable(_G))"), Bulk("table"));
  EXPECT_EQ(eval("return ('abc'):upper()"), Bulk("ABC"));
}

TEST_F(SandboxTest, UserTablesAreOrdinary) {
  EXPECT_EQ(eval("local t = setmetatable({}, {__index=function() return 5 end}) return t.x"),
            Int(5));
  EXPECT_EQ(eval("local t = {} rawset(t, 'a', 1) return rawget(t, 'a')"), Int(1));
  EXPECT_EQ(eval("KEYS[1] = 'x' return KEYS[1]", {"k"}), Bulk("x"));
  EXPECT_EQ(eval("local mt = {__metatable = 'locked'} local t = setmetatable({}, mt) "
                 "return getmetatable(t)"),
            Bulk("locked"));
}

TEST_F(SandboxTest, TableFinalizersNeverRunAsInFiveOne) {
  // A 5.4 __gc would run at a later collection, maybe inside another script.
  EXPECT_EQ(eval("local mt = {__gc = function() redis.call('incr', 'gc_ran') end} "
                 "for i = 1, 100 do setmetatable({}, mt) end "
                 "collectgarbage('collect') collectgarbage('collect') "
                 "return type(mt.__gc)"),
            Bulk("function"));
  EXPECT_EQ(eval("collectgarbage('collect') return 1"), Int(1));
  EXPECT_EQ(run({"EXISTS", "gc_ran"}), Int(0));
}

TEST_F(SandboxTest, LoadedChunksShareTheSandbox) {
  EXPECT_EQ(eval("local f = loadstring(\"x = 5\") f() return 1"),
            Err("ERR [string \"x = 5\"]:1: Attempt to modify a readonly table script: "
                "0a0d0ec3ba83e6a0bc9721ff8474d3bcd5c0762c, on x = 5:1."));
  EXPECT_EQ(eval("local f = loadstring('return KEYS[1]') return f()", {"kk"}), Bulk("kk"));
}

// A chunk that only reads globals runs with the real globals table as its
// _ENV (no proxy hop per read: ScriptEngine::Impl::compile); everything
// else keeps the proxy. The scripts of the tests above that must refuse a
// write or raise on an unknown name are, most of them, such chunks.
TEST(ReadsGlobalsOnlyTest, GlobalWritesEnvAsAValueAndClosuresKeepTheProxy) {
  auto reads_only = [](const std::string& code) {
    lua_State* L = luaL_newstate();
    EXPECT_EQ(luaL_loadstring(L, code.c_str()), LUA_OK) << code;
    const bool only = script_detail::reads_globals_only(L);
    lua_close(L);
    return only;
  };
  for (const char* code :
       {"return redis.call('get', KEYS[1])", "redis.call = 1", "return x", "return _G.nosuch",
        "rawset(_G, \"x\", 1) return 1", "local cj = cjson cj.foo = 1 return 1",
        "KEYS[1] = 'x' return KEYS[1]", "local t = {} for i = 1, 300 do t[i] = i end return #t",
        "local f = loadstring(\"x = 5\") f() return 1", "return _ENV.x"}) {
    EXPECT_TRUE(reads_only(code)) << code;
  }
  for (const char* code : {"x = 1", "ARGV = {} return 1", "_ENV.x = 1", "local e = _ENV return e",
                           "_ENV = {} return 1", "local function f() end return 1",
                           "return (function() return KEYS end)()", "return pcall(_ENV)"}) {
    EXPECT_FALSE(reads_only(code)) << code;
  }
}

// A chunk that reads KEYS and ARGV only as KEYS[i] / ARGV[i] and names no
// global that reaches the globals table keeps both arrays as filled: the
// engine then refills only the elements that differ from its copy.
TEST(ReadsGlobalsOnlyTest, KeysAndArgvReadOnlyByIndexKeepTheirArrays) {
  // As the engine compiles it: with the number model's float literals.
  auto keeps = [](const std::string& code) {
    lua_State* L = luaL_newstate();
    const std::string adapted = lua::adapt_source51(code).code;
    EXPECT_EQ(luaL_loadstring(L, adapted.c_str()), LUA_OK) << adapted;
    const script_detail::ChunkFacts facts = script_detail::chunk_facts(L);
    lua_close(L);
    EXPECT_TRUE(!facts.keeps_arrays || facts.reads_globals_only) << code;
    return facts.keeps_arrays;
  };
  for (const char* code :
       {"return redis.call('get', KEYS[1])", "local i = 2 return {KEYS[i], ARGV[3], ARGV.x}",
        "if redis.call('exists', KEYS[1]) == 0 then return nil end "
        "return tonumber(redis.call('hincrby', KEYS[1], ARGV[2], -1)) + 1.5",
        "return {tostring(KEYS[1]), tostring(KEYS[2]), tostring(ARGV[1]), tostring(ARGV[2]), "
        "tostring(ARGV[3])}",  // the script of KeysAndArgvRefilledOnlyWhereTheyDiffer
        "return 1"}) {
    EXPECT_TRUE(keeps(code)) << code;
  }
  for (const char* code :
       {"x = 1", "local k = KEYS return k[1]", "return KEYS[KEYS]", "return ARGV[#ARGV]",
        "return #ARGV", "return unpack(KEYS)", "table.insert(KEYS, 'x') return 1",
        "KEYS[1] = 'x' return 1", "return KEYS", "return ARGV:upper()",
        "return rawget(_G, 'KEYS')[1]", "return loadstring('return 1')()",
        "return getmetatable('')", "return (KEYS)[1] .. next({})"}) {
    EXPECT_FALSE(keeps(code)) << code;
  }
}

// A chunk that reads only redis.<name>, KEYS and ARGV runs with an _ENV
// whose redis is the real table (no proxy hop per redis.call).
TEST(ReadsGlobalsOnlyTest, ChunksReadingOnlyRedisFieldsKeysAndArgvReadRedisDirectly) {
  auto direct = [](const std::string& code) {
    lua_State* L = luaL_newstate();
    const std::string adapted = lua::adapt_source51(code).code;
    EXPECT_EQ(luaL_loadstring(L, adapted.c_str()), LUA_OK) << adapted;
    const script_detail::ChunkFacts facts = script_detail::chunk_facts(L);
    lua_close(L);
    EXPECT_TRUE(!facts.direct_redis || facts.keeps_arrays) << code;
    return facts.direct_redis;
  };
  for (const char* code :
       {"return redis.call('get', KEYS[1])", "return redis.nosuch",
        "if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end "
        "local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1) "
        "if holds > 0 then redis.call('pexpire', KEYS[1], ARGV[2]) return 0 end "
        "redis.call('del', KEYS[1]) redis.call('publish', KEYS[2], ARGV[1]) return 1"}) {
    EXPECT_TRUE(direct(code)) << code;
  }
  for (const char* code : {"redis.call = 1", "local r = redis return r.call('ping')",
                           "return tonumber(redis.call('get', KEYS[1]))", "return redis",
                           "return redis[KEYS[1]]", "x = redis.call('ping')"}) {
    EXPECT_FALSE(direct(code)) << code;
  }
}

// A direct chunk that indexes nothing but its redis, KEYS and ARGV reads
// can call only C functions (the real redis table's; a string's arithmetic
// metamethods), so a bounded one runs with no hook at all. A string's method
// (SELF, or a field of a string value) could be gsub, which calls a Lua
// wrapper of its callback: such chunks keep the hook.
TEST(ReadsGlobalsOnlyTest, ChunksIndexingOnlyTheirGlobalReadsCallOnlyCFunctions) {
  auto c_only = [](const std::string& code) {
    lua_State* L = luaL_newstate();
    const std::string adapted = lua::adapt_source51(code).code;
    EXPECT_EQ(luaL_loadstring(L, adapted.c_str()), LUA_OK) << adapted;
    const script_detail::ChunkFacts facts = script_detail::chunk_facts(L);
    lua_close(L);
    EXPECT_TRUE(!facts.c_calls_only || facts.direct_redis) << code;
    return facts.c_calls_only;
  };
  for (const char* code :
       {"return redis.call('get', KEYS[1])", "return redis.nosuch", "return ARGV[1] + 1",
        "local i = 2 return {KEYS[i], ARGV[3]}",
        "if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 "
        "then redis.call('hincrby', KEYS[1], ARGV[2], 1) redis.call('pexpire', KEYS[1], ARGV[1]) "
        "return nil end return redis.call('pttl', KEYS[1])",
        "if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end "
        "local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1) "
        "if holds > 0 then redis.call('pexpire', KEYS[1], ARGV[2]) return 0 end "
        "redis.call('del', KEYS[1]) redis.call('publish', KEYS[2], ARGV[1]) return 1"}) {
    EXPECT_TRUE(c_only(code)) << code;
  }
  for (const char* code :
       {"return KEYS[1]:upper()", "local s = KEYS[1] return s.gsub(s, '.', redis.call)",
        "return KEYS[1]:gsub('.', redis.pcall)", "local s = ARGV[1] return s[ARGV[2]]",
        "local r = redis.call('hgetall', KEYS[1]) return r[1]",
        "return redis.call('get', KEYS[1]).x", "return tonumber(ARGV[1])"}) {
    EXPECT_FALSE(c_only(code)) << code;
  }
}

TEST_F(SandboxTest, ChunksReadingRedisDirectlyStillSeeTheSandbox) {
  EXPECT_EQ(eval("return redis.call('set', KEYS[1], ARGV[1])", {"k"}, {"v"}), Ok());
  EXPECT_EQ(eval("return redis.pcall('get', KEYS[1])", {"k"}), Bulk("v"));
  EXPECT_EQ(eval("return redis.nosuch"), Nil());
  EXPECT_EQ(
      eval("return redis.call('nosuch')"),
      script_err("ERR Unknown Redis command called from script", "return redis.call('nosuch')"));
  // The scripts after one that read redis directly still get the proxy.
  EXPECT_EQ(eval("redis.call = 1"),
            Err("ERR user_script:1: Attempt to modify a readonly table script: "
                "69f883616b1814e2dc95cf801f324e38c5cc5ed2, on @user_script:1."));
  EXPECT_EQ(eval("return rawequal(redis, rawget(_G, 'redis'))"), Int(1));
  EXPECT_EQ(eval("return redis.call('get', KEYS[1])", {"k"}), Bulk("v"));
  EXPECT_EQ(eval("return tostring(KEYS[1]) .. ARGV[1]", {"a"}, {"b"}), Bulk("ab"));
}

TEST_F(SandboxTest, KeysAndArgvRefilledOnlyWhereTheyDiffer) {
  // Such a chunk's arrays are refilled from the engine's copy: every call
  // still sees exactly its own keys and arguments, longer or shorter.
  const std::string script =
      "return {tostring(KEYS[1]), tostring(KEYS[2]), tostring(ARGV[1]), tostring(ARGV[2]), "
      "tostring(ARGV[3])}";
  EXPECT_EQ(eval(script, {"k1"}, {"a", "b", "c"}), Bulks({"k1", "nil", "a", "b", "c"}));
  EXPECT_EQ(eval(script, {"k1", "k2"}, {"a"}), Bulks({"k1", "k2", "a", "nil", "nil"}));
  EXPECT_EQ(eval(script, {"k1"}, {"a", "b"}), Bulks({"k1", "nil", "a", "b", "nil"}));
  EXPECT_EQ(eval("KEYS[1] = 'changed' ARGV[3] = 'added' return 1", {"k1"}, {"a", "b"}), Int(1));
  EXPECT_EQ(eval(script, {"k1"}, {"a", "b"}), Bulks({"k1", "nil", "a", "b", "nil"}));
  EXPECT_EQ(eval(script, {}, {}), Bulks({"nil", "nil", "nil", "nil", "nil"}));
  EXPECT_EQ(eval(script, {"x"}, {"y", "z", "w"}), Bulks({"x", "nil", "y", "z", "w"}));
  // Another script's tables are its own.
  EXPECT_EQ(eval("return {KEYS[1], ARGV[1], #ARGV}", {"o"}, {"p", "q"}),
            Arr({Bulk("o"), Bulk("p"), Int(2)}));
  EXPECT_EQ(eval(script, {"x"}, {}), Bulks({"x", "nil", "nil", "nil", "nil"}));
  EXPECT_EQ(eval("return #KEYS + #ARGV", {"x"}, {"y"}), Int(2));
}

TEST_F(SandboxTest, ChunksThatOnlyReadGlobalsStillSeeTheSandbox) {
  // These compile to reads of _ENV only: the real globals as _ENV must
  // change nothing a script can see.
  EXPECT_EQ(eval("return rawequal(_G, _G._G) and type(getmetatable(_G))"), Bulk("table"));
  EXPECT_EQ(eval("return rawget(_G, 'KEYS')[1]", {"k1"}), Bulk("k1"));
  EXPECT_EQ(eval("local t = {} for k in pairs(_G) do t[#t+1] = k end return #t"), Int(35));
  EXPECT_EQ(eval("return _ENV == _G"), Int(1));  // the proxy is what _G reads
  EXPECT_EQ(eval("return _ENV.nosuch"),
            Err("ERR user_script:1: Script attempted to access nonexistent global variable "
                "'nosuch' script: 35f3c5922a6c9264301234537ac6299fe3c44885, on @user_script:1."));
  EXPECT_EQ(eval("rawset(getmetatable(_G), 'x', 1) return 1"),
            Err("ERR Attempt to modify a readonly table script: "
                "f4818e2999ea3d1410ecf0f8b9561a31b18daaa7, on @user_script:1."));
}

}  // namespace
}  // namespace redsim::sim

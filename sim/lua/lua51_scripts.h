// Test-only: scripts and the replies redis-server 7.0.15 gives them (taken
// from it with redis-cli), shared by lua51_test.cc (the fake must give the
// pinned reply) and lua51_real_test.cc (the real server must still give it,
// and the fake must give what the real server gives).
#pragma once

#include <string>
#include <vector>

#include "sim/lua/internal.h"
#include "sim/sim_test_util.h"

namespace redsim::sim::lua51 {

struct Case {
  std::string script;
  resp::Reply want;
};

inline resp::Reply compile_err(const std::string& msg) {
  return resp::Reply::error("ERR Error compiling script (new function): user_script:" + msg);
}
inline resp::Reply runtime_err(const std::string& script, const std::string& msg, int line = 1) {
  return resp::Reply::error("ERR user_script:" + std::to_string(line) + ": " + msg +
                            " script: " + lua::sha1_hex(script) +
                            ", on @user_script:" + std::to_string(line) + ".");
}

inline std::vector<Case> syntax_cases() {
  using testing::Bulk;
  using testing::Int;
  return {
      {"local x <const> = 5 return x", compile_err("1: unexpected symbol near '<'")},
      {"local a, b <close> = 1", compile_err("1: unexpected symbol near '<'")},
      {"return 7//2", compile_err("1: unexpected symbol near '/'")},
      {"return 0x10 // 3", compile_err("1: unexpected symbol near '/'")},
      {"return 1 & 2", compile_err("1: '<eof>' expected near '&'")},
      {"return 1 | 2", compile_err("1: '<eof>' expected near '|'")},
      {"return 1 ~ 2", compile_err("1: '<eof>' expected near '~'")},
      {"return ~1", compile_err("1: unexpected symbol near '~'")},
      {"return 1 << 2", compile_err("1: unexpected symbol near '<'")},
      {"return 1 >> 2", compile_err("1: unexpected symbol near '>'")},
      {"goto x", compile_err("1: '=' expected near 'x'")},
      {"x = 1 goto done", compile_err("1: '=' expected near 'done'")},
      {"do goto x end ::x::", compile_err("1: '=' expected near 'x'")},
      {"::x:: return 1", compile_err("1: unexpected symbol near ':'")},
      {"if x & 1 then end", compile_err("1: 'then' expected near '&'")},
      {"f(a | b)", compile_err("1: ')' expected near '|'")},
      {"local t = {a ~ b}", compile_err("1: '}' expected near '~'")},
      {"function f()\n return a & b\nend",
       compile_err("2: 'end' expected (to close 'function' at line 1) near '&'")},
      {"while a | b do end", compile_err("1: 'do' expected near '|'")},
      {"for i=1,n & 2 do end", compile_err("1: 'do' expected near '&'")},
      {"x = t[a & b]", compile_err("1: ']' expected near '&'")},
      {"local x = (a\n & b)", compile_err("2: ')' expected (to close '(' at line 1) near '&'")},
      {"return 1 & 2 + ", compile_err("1: '<eof>' expected near '&'")},
      {"repeat return a | b until true", compile_err("1: 'until' expected near '|'")},
      {"local f = function() end & 1", compile_err("1: unexpected symbol near '&'")},
      {"local y = 1\nlocal x = y & 1", compile_err("2: unexpected symbol near '&'")},
      // 5.4-only escapes read as 5.1 reads unknown escapes: the letter.
      {"return '\\u{41}\\z'", Bulk("u{41}z")},
      {"return 'a\\z  b'", Bulk("az  b")},
      // Inside strings and comments these are text; ~= is 5.1's.
      {"-- a // b & c\nreturn {'//', \"a|b\", [[<<>>]], 1 ~= 2, 'x<const>'}",
       testing::Arr({Bulk("//"), Bulk("a|b"), Bulk("<<>>"), Int(1), Bulk("x<const>")})},
      {"local a = 1 local b = a < 2 and 3 > 2 return b", Int(1)},
  };
}

inline std::vector<Case> number_cases() {
  using testing::Bulk;
  using testing::Bulks;
  using testing::Int;
  return {
      {"return tostring(4294967296*4294967296)", Bulk("1.844674407371e+19")},
      {"return 4294967296*4294967296", Int(INT64_MIN)},  // (long long) of 1.8e19 on x86-64
      {"return tostring(2^63)", Bulk("9.2233720368548e+18")},
      {"return tostring(-2^63)", Bulk("-9.2233720368548e+18")},
      {"return tostring(1%0)", Bulk("-nan")},
      {"return tostring(-1%0)", Bulk("-nan")},
      {"return tostring(5.5%0)", Bulk("-nan")},
      {"return 1%0", Int(INT64_MIN)},
      {"return string.format('%d', 3.0)", Bulk("3")},
      {"return string.format('%5.1f %d %s', 2.25, 2^31, 2^32)",
       Bulk("  2.2 2147483648 4294967296")},
      {"return tostring(3)", Bulk("3")},
      {"return tostring(math.floor(3.5))", Bulk("3")},
      {"return math.floor(-3.5)", Int(-4)},
      {"return 7/2", Int(3)},
      {"return tostring(7/2)", Bulk("3.5")},
      {"return tostring(0xffffffffffffffff)", Bulk("1.844674407371e+19")},
      {"return 0xffffffffffffffff", Int(INT64_MIN)},
      {"return tostring(0x10000000000000000)", Bulk("1.844674407371e+19")},
      {"return tostring(9007199254740993)", Bulk("9.007199254741e+15")},
      {"return 9007199254740993", Int(9007199254740992)},
      {"return 4294967296", Int(4294967296)},
      {"return tostring(4294967296 * 3)", Bulk("12884901888")},
      {"return tostring(123456789012 * 1000000)", Bulk("1.23456789012e+17")},
      {"local t = {} t[4294967296] = 'a' return t[4294967296.0]", Bulk("a")},
      {"return tostring(2^53+1)", Bulk("9.007199254741e+15")},
      {"return tostring(1e15)", Bulk("1e+15")},
      {"return {tostring(100000000000000), 100000000000000 .. ''}", Bulks({"1e+14", "1e+14"})},
      {"return cjson.encode({4294967296, 2^53, 0.5})", Bulk("[4294967296,9.007199254741e+15,0.5]")},
      {"return tostring(2^31 * 2^31)", Bulk("4.6116860184274e+18")},
      {"local t = {'a','b'} local s = '' for i = 1, #t do s = s .. i .. t[i] end return s",
       Bulk("1a2b")},
      {"return ({10,20,30})[2.0]", Int(20)},
      {"return string.sub('hello', 2.0, 3)", Bulk("el")},
  };
}

inline std::vector<Case> limit_cases() {
  using testing::Arr;
  using testing::Bulk;
  using testing::Int;
  const std::string deep = "local function f() return f() + 1 end return f()";
  const std::string unpack2 =
      "local t = {} for i=1,8000 do t[i]=i end return select('#', unpack(t, 2))";
  return {
      // A fresh Lua state (first test of a server): 16,381 levels, then 19,997.
      {"local d=0 local function f() d=d+1 f() end local ok,e = pcall(f) return {d, e}",
       Arr({Int(16381), Bulk("user_script:1: stack overflow")})},
      {"local d=0 local function f() d=d+1 return 1+f() end local ok,e = pcall(f) return {d, e}",
       Arr({Int(19997), Bulk("user_script:1: stack overflow")})},
      {deep, runtime_err(deep, "stack overflow")},
      {"local function f(n) if n == 0 then return 0 end return 1 + f(n-1) end return f(19990)",
       Int(19990)},
      {"local t = {} for i=1,7999 do t[i]=i end return select('#', unpack(t))", Int(7999)},
      {"local t = {} for i=1,8000 do t[i]=i end return {pcall(unpack, t)}",
       Arr({testing::Nil(), Bulk("too many results to unpack")})},
      {"local t = {} for i=1,8000 do t[i]=i end return select('#', unpack(t,1,7997))", Int(7997)},
      {unpack2, runtime_err(unpack2, "too many results to unpack")},
      {"return {string.find(string.rep('a', 40), string.rep('(a)', 32))}",
       Arr({Int(1),    Int(32),   Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"),
            Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"),
            Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"),
            Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"),
            Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a"), Bulk("a")})},
      {"return {pcall(string.find, string.rep('a', 40), string.rep('(a)', 33))}",
       Arr({testing::Nil(), Bulk("too many captures")})},
      {"local d=0 local function f() d=d+1 return string.gsub('a', 'a', f) end "
       "local ok,e = pcall(f) return {d, e}",
       Arr({Int(198), Bulk("C stack overflow")})},
  };
}

// math.random on a fresh server: rand48 from its standard initial state,
// carried on from script to script.
inline std::vector<Case> random_cases() {
  using testing::Arr;
  using testing::Bulk;
  using testing::Int;
  return {
      {"return {tostring(math.random()), tostring(math.random())}",
       testing::Bulks({"0.39646477363839", "0.84048536971234"})},
      {"return tostring(math.random())", Bulk("0.35333609737146")},
      {"math.randomseed(0) return {tostring(math.random()), tostring(math.random())}",
       testing::Bulks({"0.17082803611217", "0.74990198051087"})},
      {"math.randomseed(42) return {tostring(math.random()), math.random(100)}",
       Arr({Bulk("0.74452500033403"), Int(35)})},
  };
}

}  // namespace redsim::sim::lua51

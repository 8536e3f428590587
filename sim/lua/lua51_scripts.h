// Test-only: scripts and the replies redis-server 7.0.15 gives them (taken
// from it with redis-cli), shared by lua51_test.cc (the fake must give the
// pinned reply) and lua51_real_test.cc (the real server must still give it,
// and the fake must give what the real server gives).
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
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
      // Every number a double: no integer wrap, x % 0 is nan, -0 exists.
      {"return tostring(65536*65536*65536*65536)", Bulk("1.844674407371e+19")},
      {"local x = 65536 return tostring(x*x*x*x)", Bulk("1.844674407371e+19")},
      {"local x = 65536 return x*x*x*x", Int(INT64_MIN)},
      {"local z = 0 return {tostring(1 % z), tostring(-5 % z)}", Bulks({"-nan", "-nan"})},
      {"return tostring(-0)", Bulk("-0")},
      {"local z = 0 return tostring(-z)", Bulk("-0")},
      {"return -0 .. ''", Bulk("-0")},
      // `..` prints numbers as 5.1 does, and names what it cannot join.
      {"return 4294967296 .. ''", Bulk("4294967296")},
      {"return 1 .. 2 .. 3.5 .. 2^53 .. 1e100", Bulk("123.59.007199254741e+151e+100")},
      {"return {1 .. '', 2^63 .. '', -0.0 .. '', (0/0) .. ''}",
       Bulks({"1", "9.2233720368548e+18", "-0", "-nan"})},
      {"local s = '' for i = 1, 3 do s = s .. i .. ',' end return s", Bulk("1,2,3,")},
      {"return math.floor(3.7) .. '|' .. #'abc' .. '|' .. (7/2)", Bulk("3|3|3.5")},
      {"local t = setmetatable({}, {__concat = function(a, b) return 'M' end}) "
       "return {t .. 'x', 'x' .. t, 1 .. t .. 2}",
       Bulks({"M", "M", "1M"})},
      {"local x return 'a' .. x",
       runtime_err("local x return 'a' .. x", "attempt to concatenate local 'x' (a nil value)")},
      {"local t = {} return t.k .. 'a'",
       runtime_err("local t = {} return t.k .. 'a'",
                   "attempt to concatenate field 'k' (a nil value)")},
      {"local t = {} return 'a' .. t[1]",
       runtime_err("local t = {} return 'a' .. t[1]",
                   "attempt to concatenate field '?' (a nil value)")},
      {"local t = {} return 'a' .. t['z']",
       runtime_err("local t = {} return 'a' .. t['z']",
                   "attempt to concatenate field 'z' (a nil value)")},
      {"local x = 1 local function f() return x .. {} end return f()",
       runtime_err("local x = 1 local function f() return x .. {} end return f()",
                   "attempt to concatenate a table value")},
      {"local x = nil local function f() return 'b' .. x end return f()",
       runtime_err("local x = nil local function f() return 'b' .. x end return f()",
                   "attempt to concatenate upvalue 'x' (a nil value)")},
      {"return 'x' .. 1 .. nil",
       runtime_err("return 'x' .. 1 .. nil", "attempt to concatenate a nil value")},
      {"x = 1", runtime_err("x = 1", "Attempt to modify a readonly table")},
      // `goto` is an ordinary name in 5.1.
      {"local goto = 5 return goto + 1", Int(6)},
      {"local t = {goto = 1} return t.goto", Int(1)},
      {"return goto",
       runtime_err("return goto", "Script attempted to access nonexistent global variable 'goto'")},
  };
}

// Numbers that library functions, the redis.call bridge, `#`, table
// iteration and string arithmetic hand to a script are doubles too: no
// integer wrap, x % 0 is nan, -0 exists; and they still print, index and
// convert to replies as before (the number model, internal.h).
inline std::vector<Case> library_number_cases() {
  return {
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', "
       "4294967296) return tostring(n*n)",
       testing::Bulk("1.844674407371e+19")},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', "
       "4294967296) return {tostring(n), n .. '', n, tostring(n/3)}",
       testing::Arr({testing::Bulk("4294967296"), testing::Bulk("4294967296"),
                     testing::Int(4294967296), testing::Bulk("1431655765.3333")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', 3) "
       "return {tostring(n), n .. '', n * 2, string.format('%d', n), tostring(n * n * n * n * n * "
       "n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n "
       "* n * n * n * n * n * n * n * n * n * n * n * n * n * n)}",
       testing::Arr({testing::Bulk("3"), testing::Bulk("3"), testing::Int(6), testing::Bulk("3"),
                     testing::Bulk("1.0941898913151e+20")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', 0) "
       "return {tostring(n % n), tostring(-n)}",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-0")})},
      {"local t={1,2,3} return tostring(#t * 4294967296 * 4294967296)",
       testing::Bulk("5.5340232221129e+19")},
      {"local t={} for i=1,65536 do t[i]=i end local n = #t return tostring(n*n*n*n)",
       testing::Bulk("1.844674407371e+19")},
      {"local t={} local n = #t return {tostring(n % n), tostring(-n), tostring(-#t)}",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-0"), testing::Bulk("-0")})},
      {"local s = string.rep('x', 65536) local n = string.len(s) return tostring(n*n*n*n)",
       testing::Bulk("1.844674407371e+19")},
      {"local s = string.rep('x', 65536) return tostring(#s*#s*#s*#s)",
       testing::Bulk("1.844674407371e+19")},
      {"local b = string.byte('A') return tostring(b*b*b*b*b*b*b*b*b*b*b)",
       testing::Bulk("8.7507831740088e+19")},
      {"local i, j = string.find('hello world', 'wor') return {tostring(i*j), tostring(i % (j - "
       "j))}",
       testing::Arr({testing::Bulk("63"), testing::Bulk("-nan")})},
      {"local p = string.match('abc', '()c') return tostring(p % (p - p))", testing::Bulk("-nan")},
      {"local r = {} for p in string.gmatch('abc', '()') do r[#r+1] = tostring(p % (p-p)) end "
       "return r",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-nan"), testing::Bulk("-nan"),
                     testing::Bulk("-nan")})},
      {"local s, c = string.gsub('aaa', 'a', 'b') return tostring(c % (c - c))",
       testing::Bulk("-nan")},
      {"local r = {} string.gsub('abc', '()', function(p) r[#r+1] = tostring(p % (p - p)) end) "
       "return r",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-nan"), testing::Bulk("-nan"),
                     testing::Bulk("-nan")})},
      {"local t = {1,2,3} local n = table.getn(t) return tostring(n % (n - n))",
       testing::Bulk("-nan")},
      {"local n = select('#', 1, 2, 3) return tostring(n % (n - n))", testing::Bulk("-nan")},
      {"local n = tonumber('5') return {tostring(n % (n - n)), tostring(tonumber('65536')^1 * "
       "tonumber('65536') * tonumber('65536') * tonumber('65536'))}",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("1.844674407371e+19")})},
      {"local a = tonumber('65536') local b = tonumber('65536') return tostring(a*b*a*b)",
       testing::Bulk("1.844674407371e+19")},
      {"local n = math.floor(65536.5) return tostring(n*n*n*n)",
       testing::Bulk("1.844674407371e+19")},
      {"local n = math.floor(3.5) return tostring(n % (n - n))", testing::Bulk("-nan")},
      {"local a = ARGV return tostring(('4294967296') * ('4294967296'))",
       testing::Bulk("1.844674407371e+19")},
      {"return tostring('65536' * '65536' * '65536' * '65536')",
       testing::Bulk("1.844674407371e+19")},
      {"return {tostring('10' + 1), tostring('0x10' + 0), tostring(- '2'), tostring('7' % '0'), "
       "tostring('3' / '2')}",
       testing::Arr({testing::Bulk("11"), testing::Bulk("16"), testing::Bulk("-2"),
                     testing::Bulk("-nan"), testing::Bulk("1.5")})},
      {"local x = bit.bor(65536, 0) return tostring(x*x*x*x)", testing::Bulk("1.844674407371e+19")},
      {"local x = bit.band(0, 0) return tostring(x % x)", testing::Bulk("-nan")},
      {"local t = cjson.decode('[65536, 0]') return {tostring(t[1]*t[1]*t[1]*t[1]), tostring(t[2] "
       "% t[2])}",
       testing::Arr({testing::Bulk("1.844674407371e+19"), testing::Bulk("-nan")})},
      {"local v = cjson.decode('65536') return tostring(v*v*v*v)",
       testing::Bulk("1.844674407371e+19")},
      {"local a, b = struct.unpack('>I4', struct.pack('>I4', 65536)) return {tostring(a*a*a*a), "
       "tostring(b*b)}",
       testing::Arr({testing::Bulk("1.844674407371e+19"), testing::Bulk("25")})},
      {"local a = cmsgpack.unpack(cmsgpack.pack(65536)) return tostring(a*a*a*a)",
       testing::Bulk("1.844674407371e+19")},
      {"local a = cmsgpack.unpack(cmsgpack.pack(0)) return tostring(a % a)", testing::Bulk("-nan")},
      {"local r = {} for k, v in pairs({10, 20}) do r[#r+1] = tostring(k % (k - k)) end return r",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-nan")})},
      {"local r = {} for k, v in ipairs({10, 20}) do r[#r+1] = tostring(k % (k - k)) end return r",
       testing::Arr({testing::Bulk("-nan"), testing::Bulk("-nan")})},
      {"local k = next({5}) return tostring(k % (k - k))", testing::Bulk("-nan")},
      {"local t = {} t[1.0] = 'a' t[2] = 'b' return {t[1], t[2.0], #t, string.format('%d %s "
       "%5.2f', 3, 4, 5)}",
       testing::Arr(
           {testing::Bulk("a"), testing::Bulk("b"), testing::Int(2), testing::Bulk("3 4  5.00")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', 7) "
       "return {n, tostring(n), n .. '', n / 2, redis.call('SET', 'j', n), redis.call('GET', 'j')}",
       testing::Arr({testing::Int(7), testing::Bulk("7"), testing::Bulk("7"), testing::Int(3),
                     resp::Reply::status("OK"), testing::Bulk("7")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local n = redis.call('INCRBY','k', "
       "9007199254740993) return {n, tostring(n)}",
       testing::Arr({testing::Int(9007199254740992), testing::Bulk("9.007199254741e+15")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return redis.call('INCRBY','k', "
       "9007199254740993)",
       testing::Int(9007199254740992)},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local t = {} t[redis.call('INCRBY','k', "
       "1)] = 'x' return {t[1], #t}",
       testing::Arr({testing::Bulk("x"), testing::Int(1)})},
      {"return {tostring(redis.REPL_ALL * redis.REPL_ALL), tostring(redis.LOG_DEBUG % "
       "redis.LOG_DEBUG)}",
       testing::Arr({testing::Bulk("9"), testing::Bulk("-nan")})},
      {"return {string.find(12345, 34), string.find('a1.5b', 1.5, 1, true), string.gsub('abc', "
       "'b', 7), string.match(250, '%d+')}",
       testing::Arr(
           {testing::Int(3), testing::Int(2), testing::Bulk("a7c"), testing::Bulk("250")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return "
       "cjson.encode({redis.call('INCRBY','k', 5), #'abc', string.len('xy')})",
       testing::Bulk("[5,3,2]")},
      {"return cmsgpack.pack(#'abc', string.len('xy'), tonumber('7'))",
       testing::Bulk("\u0003\u0002\u0007")},
      {"local n = 0 for i = #'abc', 1, -1 do n = n + i end return tostring(n)", testing::Bulk("6")},
      {"local t = {} for i = 1, 3 do t[#t + 1] = i end return {#t, t[3], tostring(#t / 2)}",
       testing::Arr({testing::Int(3), testing::Int(3), testing::Bulk("1.5")})},
      {"local x = collectgarbage('collect') return tostring(x % x)", testing::Bulk("-nan")},
      {"local n = math.max(#'ab', 1) return tostring(n % (n - n))", testing::Bulk("-nan")},
      {"return {string.format('%d', #'abc'), string.format('%x', 255), tostring(#'abc' / 2)}",
       testing::Arr({testing::Bulk("3"), testing::Bulk("ff"), testing::Bulk("1.5")})},
      {"local t = setmetatable({}, {__index = function(t, k) return k * 2 end}) return t[#'abc']",
       testing::Int(6)},
      {"local s = 'x' return {#s, -#s, tostring(-#s), tostring(- #'')}",
       testing::Arr({testing::Int(1), testing::Int(-1), testing::Bulk("-1"), testing::Bulk("-0")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return cjson.encode({1, 2.5, #'ab', "
       "redis.call('INCRBY','k',3), tonumber('12'), {a = 7}})",
       testing::Bulk("[1,2.5,2,3,12,{\"a\":7}]")},
      {"return cjson.encode(cjson.decode('[1,2,3.5,{\"a\":10}]'))",
       testing::Bulk("[1,2,3.5,{\"a\":10}]")},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return redis.call('SET', 'k', #'abc') and "
       "redis.call('GET', 'k')",
       testing::Bulk("3")},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') redis.call('SET', 'k', 2^53) "
       "redis.call('APPEND', 'k', tonumber('5')) return redis.call('GET', 'k')",
       testing::Bulk("90071992547409925")},
      {"return {pcall(error, #'abc')}", testing::Arr({testing::Nil(), testing::Bulk("3")})},
      {"error(#'abc')", runtime_err("error(#'abc')", "3")},
      {"return redis.error_reply(#'abc')",
       resp::Reply::error("ERR wrong number or type of arguments")},
      {"return string.rep(#'ab', 3)", testing::Bulk("222")},
      {"return table.concat({1, #'ab', 3.5, tonumber('4')}, ',')", testing::Bulk("1,2,3.5,4")},
      {"return string.format('%s|%d|%g|%5.1f|%q', #'abc', #'abc', #'abc', #'abc', #'abc')",
       testing::Bulk("3|3|3|  3.0|\"3\"")},
      {"return {math.random(10) > 0, math.floor(2.5), math.ceil(2.5), math.abs(-3), math.max(1, "
       "#'abc'), math.fmod(7, 3), math.modf(3.7)}",
       testing::Arr({testing::Int(1), testing::Int(2), testing::Int(3), testing::Int(3),
                     testing::Int(3), testing::Int(1), testing::Int(3), testing::Int(0)})},
      {"return {select(-1, 1, 2, 3), select('#')}",
       testing::Arr({testing::Int(3), testing::Int(0)})},
      {"return loadstring('return 1 + 1')()", testing::Int(2)},
      {"return tostring(loadstring('return 4294967296 * 4294967296')())",
       testing::Bulk("1.844674407371e+19")},
      {"return {('abc'):len(), ('abc'):upper(), ('x'):rep(#'ab')}",
       testing::Arr({testing::Int(3), testing::Bulk("ABC"), testing::Bulk("xx")})},
      {"return {tostring(1e15), tostring(123456789012345), 123456789012345 .. '', tostring(#'abc' "
       "* 1e14)}",
       testing::Arr({testing::Bulk("1e+15"), testing::Bulk("1.2345678901234e+14"),
                     testing::Bulk("1.2345678901234e+14"), testing::Bulk("3e+14")})},
      {"local t = {} for i = 1, 10 do t[i] = i end return {#t, t[#t], table.getn(t), "
       "table.maxn(t)}",
       testing::Arr({testing::Int(10), testing::Int(10), testing::Int(10), testing::Int(10)})},
      {"local t = {} table.insert(t, 'a') table.insert(t, 1, 'b') return {t[1], t[2], "
       "table.remove(t), #t}",
       testing::Arr({testing::Bulk("b"), testing::Bulk("a"), testing::Bulk("a"), testing::Int(1)})},
      {"return {string.find('hello', 'l'), string.find('hello', 'l', 1, true)}",
       testing::Arr({testing::Int(3), testing::Int(3), testing::Int(3)})},
      {"return {string.find('hello', '(l)(l)')}",
       testing::Arr({testing::Int(3), testing::Int(4), testing::Bulk("l"), testing::Bulk("l")})},
      {"return {string.match('key:123', '(%a+):(%d+)')}",
       testing::Arr({testing::Bulk("key"), testing::Bulk("123")})},
      {"return {string.gsub('hello world', 'o', '0')}",
       testing::Arr({testing::Bulk("hell0 w0rld"), testing::Int(2)})},
      {"return {string.gsub('abc', '%w', '%0%0')}",
       testing::Arr({testing::Bulk("aabbcc"), testing::Int(3)})},
      {"return {string.gsub('abc', '(b)', {b = 5})}",
       testing::Arr({testing::Bulk("a5c"), testing::Int(1)})},
      {"return {string.gsub('abc', 'b', function(c) return #c end)}",
       testing::Arr({testing::Bulk("a1c"), testing::Int(1)})},
      {"local r = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do r[#r + 1] = k .. v "
       "end return r",
       testing::Arr({testing::Bulk("a1"), testing::Bulk("b2")})},
      {"return {pcall(string.find)}",
       testing::Arr({testing::Nil(),
                     testing::Bulk("bad argument #1 to '?' (string expected, got no value)")})},
      {"string.find()",
       runtime_err("string.find()", "bad argument #1 to 'find' (string expected, got no value)")},
      {"string.gsub('x', '(', 'y')", testing::Nil()},
      {"local t = {10, 20, x = 5} local n = 0 for k, v in pairs(t) do n = n + v end return n",
       testing::Int(35)},
      {"return {'10' + 0, '3' * '4', tostring('1e2' + 0), tostring(' 5 ' + 1)}",
       testing::Arr(
           {testing::Int(10), testing::Int(12), testing::Bulk("100"), testing::Bulk("6")})},
      {"return {pcall(function() local t = {} return #t + nil end)}",
       testing::Arr(
           {testing::Nil(),
            testing::Bulk("user_script:1: attempt to perform arithmetic on a nil value")})},
      {"local x = 3 return {x == 3, x == 3.0, #'abc' == 3, tostring(#'abc' == 3.0)}",
       testing::Arr({testing::Int(1), testing::Int(1), testing::Int(1), testing::Bulk("true")})},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return redis.call('INCRBYFLOAT', 'f', 1.5)",
       testing::Bulk("1.5")},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') local v = redis.call('INCRBY', 'k', 10) "
       "redis.call('EXPIRE', 'k', v) return redis.call('TTL', 'k')",
       testing::Int(10)},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return redis.call('LPUSH', 'l', 1, 2, "
       "#'abc')",
       testing::Int(3)},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return {redis.call('HSET', 'h', 'f', 1), "
       "redis.call('HINCRBY', 'h', 'f', 2), redis.call('HGETALL', 'h')}",
       testing::Arr({testing::Int(1), testing::Int(3),
                     testing::Arr({testing::Bulk("f"), testing::Bulk("3")})})},
      {"return {struct.pack('>i', #'abc'):byte(1, -1)}",
       testing::Arr({testing::Int(0), testing::Int(0), testing::Int(0), testing::Int(3)})},
      {"return {cmsgpack.unpack(cmsgpack.pack({a = 1}))}", testing::Arr({testing::Arr({})})},
      {"local t = cmsgpack.unpack(cmsgpack.pack({1, 2, 3})) return {#t, t[3]}",
       testing::Arr({testing::Int(3), testing::Int(3)})},
      {"return {tonumber('0x10'), tonumber('10', 2), tonumber('z', 36), tonumber('  12  '), "
       "tonumber('1e1')}",
       testing::Arr({testing::Int(16), testing::Int(2), testing::Int(35), testing::Int(12),
                     testing::Int(10)})},
      {"return {tostring(tonumber('9007199254740993')), tonumber('abc')}",
       testing::Arr({testing::Bulk("9.007199254741e+15")})},
      {"local t = {} t[1] = 1 t[2] = 2 t[4] = 4 return #t", testing::Int(4)},
      {"local t = {} for i = 10, 1, -3 do t[#t+1] = i end return t",
       testing::Arr({testing::Int(10), testing::Int(7), testing::Int(4), testing::Int(1)})},
      {"local t = {} for i = 1, 2, 0.5 do t[#t+1] = tostring(i) end return t",
       testing::Arr({testing::Bulk("1"), testing::Bulk("1.5"), testing::Bulk("2")})},
      {"local x = 0 for i = 1, #'abcd' do x = x + i end return x", testing::Int(10)},
      {"redis.call('DEL', 'k', 'j', 'f', 'l', 'h', 'q') return {type(#'a'), "
       "type(redis.call('INCR', 'q'))}",
       testing::Arr({testing::Bulk("number"), testing::Bulk("number")})},
      {"local t = setmetatable({}, {__index = function(t, k) return k end}) return t[#'abc' + 0.5]",
       testing::Int(3)},
  };
}

// 5.1's modulo (a - floor(a/b)*b, not 5.4's fmod) and its error texts.
inline std::vector<Case> modulo_cases() {
  return {
      {"return {tostring(-0 % 3), tostring(5.5 % 2), tostring(-7 % 3), tostring(7 % -3), "
       "tostring(4294967296 % 0.3), tostring(1 % 0), tostring(1e308 % 3), tostring(5 % math.huge), "
       "tostring(-5 % math.huge)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("1.5"), testing::Bulk("2"),
                     testing::Bulk("-2"), testing::Bulk("0.10000038146973"), testing::Bulk("-nan"),
                     testing::Bulk("0"), testing::Bulk("-nan"), testing::Bulk("-nan")})},
      {"local x return x % 2",
       runtime_err("local x return x % 2",
                   "attempt to perform arithmetic on local 'x' (a nil value)")},
      {"local t = {} return t.k % 2",
       runtime_err("local t = {} return t.k % 2",
                   "attempt to perform arithmetic on field 'k' (a nil value)")},
      {"local s = 'abc' return s % 2",
       runtime_err("local s = 'abc' return s % 2",
                   "attempt to perform arithmetic on local 's' (a string value)")},
      {"return {tostring('7' % '3'), tostring('7' % 2), tostring(7 % '2')}",
       testing::Arr({testing::Bulk("1"), testing::Bulk("1"), testing::Bulk("1")})},
      {"local t = setmetatable({}, {__mod = function(a, b) return 'M' end}) return {t % 2, 2 % t}",
       testing::Arr({testing::Bulk("M"), testing::Bulk("M")})},
      {"local a, b, c = 17, 5, 3 return {a % b % c, a * 2 % b, -a % b, a % -b, a ^ 2 % b, #'abcde' "
       "% 3, 2 % #'abc', a % b .. 'x', 'x' .. a % b}",
       testing::Arr({testing::Int(2), testing::Int(4), testing::Int(3), testing::Int(-3),
                     testing::Int(4), testing::Int(2), testing::Int(2), testing::Bulk("2x"),
                     testing::Bulk("x2")})},
      {"local t = {} for i = 1, 10 do if i % 2 == 0 then t[#t + 1] = i end end return t",
       testing::Arr(
           {testing::Int(2), testing::Int(4), testing::Int(6), testing::Int(8), testing::Int(10)})},
      {"local function f() return 10 end return f() % 3 + f() % 4", testing::Int(3)},
      {"return {pcall(function() return nil % 1 end)}",
       testing::Arr(
           {testing::Nil(),
            testing::Bulk("user_script:1: attempt to perform arithmetic on a nil value")})},
      {"local x = {} return 2 % x",
       runtime_err("local x = {} return 2 % x",
                   "attempt to perform arithmetic on local 'x' (a table value)")},
  };
}

// Scripts that combine numbers from every source (library functions, the
// bridge, `#`, string arithmetic, iteration keys, literals) with + - * / %
// ^ and unary minus, seeded, returning tostring, `..` and the reply
// conversion of the result. Literals are held in locals: 5.1 folds
// literal-only expressions into constants, and a folded zero shares the
// sign of the function's first zero constant, which the fake does not model.
inline std::vector<std::string> seeded_number_scripts(uint64_t seed, int count) {
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&x]() {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 11;
  };
  static const char* kSources[] = {"#t",
                                   "#s",
                                   "string.len(s)",
                                   "string.byte('A')",
                                   "select('#', 1, 2)",
                                   "tonumber('65536')",
                                   "math.floor(65536.5)",
                                   "n",
                                   "z",
                                   "bit.bor(65536, 0)",
                                   "cjson.decode('65536')",
                                   "(struct.unpack('>I4', struct.pack('>I4', 65536)))",
                                   "(cmsgpack.unpack(cmsgpack.pack(65536)))",
                                   "('65536' * 1)",
                                   "c3",
                                   "cbig",
                                   "chalf",
                                   "table.getn(t)",
                                   "(string.find(s, 'x'))",
                                   "k"};
  static const char* kOps[] = {"+", "-", "*", "/", "%"};
  std::function<std::string(int)> expr = [&](int depth) -> std::string {
    if (depth == 0 || next() % 10 < 3) return kSources[next() % std::size(kSources)];
    switch (next() % 7) {
      case 0:
        return "-(" + expr(depth - 1) + ")";
      case 1:
        return "((" + expr(0) + ") ^ 2)";
      default: {
        std::string a = expr(depth - 1);
        return "(" + a + " " + kOps[next() % std::size(kOps)] + " " + expr(depth - 1) + ")";
      }
    }
  };
  const std::string prelude =
      "redis.call('DEL', 'rk', 'rz') local n = redis.call('INCRBY', 'rk', 65536) "
      "local z = redis.call('INCRBY', 'rz', 0) local t = {} for i = 1, 65536 do t[i] = i end "
      "local s = string.rep('x', 65536) local k = next({7}) "
      "local c3, cbig, chalf = 3, 4294967296, 0.5 ";
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(prelude + "local e = " + expr(4) + " return {tostring(e), e .. '', e}");
  }
  return out;
}

// `goto` as a method and field-function name; 5.1's one constant for 0 and
// -0 in a function (the first one written decides the sign of all).
inline std::vector<Case> goto_and_zero_cases() {
  return {
      {"local t = {} function t:goto() return 5 end return t:goto()", testing::Int(5)},
      {"local t = {goto=function(s, a) return a * 2 end} return t:goto(21)", testing::Int(42)},
      {"local t = {goto=function(s, a) return a end} return t:goto'x' .. t:goto{1} [1] .. "
       "#t:goto'abc'",
       testing::Bulk("x13")},
      {"local t = {} function t.goto(a) return a + 1 end return t.goto(1)", testing::Int(2)},
      {"local t = {a = {}} function t.a:goto(x, y) return x + y + (self == t.a and 100 or 0) end "
       "return t.a:goto(1, 2)",
       testing::Int(103)},
      {"local t = {} return t:goto()",
       runtime_err("local t = {} return t:goto()", "attempt to call method 'goto' (a nil value)")},
      {"local s = setmetatable({}, {__index = {goto = function(self) return 'mt' end}}) return "
       "s:goto()",
       testing::Bulk("mt")},
      {"local t = {n = 3, goto = function(self, k) return self.n * k end} return {t:goto(2), "
       "(t:goto(3))}",
       testing::Arr({testing::Int(6), testing::Int(9)})},
      {"local a = 0; local b = -0; return tostring(b)", testing::Bulk("0")},
      {"local a = -0; local b = 0; return tostring(b)", testing::Bulk("-0")},
      {"local a = 0 local function f() return -0 end return tostring(f())", testing::Bulk("-0")},
      {"local a = -0 local function f() return 0 end return {tostring(f()), tostring(0)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("-0")})},
      {"local x = 5 local a = x * 0 local b = -0 return {tostring(a), tostring(b)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("0")})},
      {"local x = 0 return tostring(x * -1)", testing::Bulk("-0")},
      {"local z = 0 return {tostring(-z), tostring(- -0), tostring(-0)}",
       testing::Arr({testing::Bulk("-0"), testing::Bulk("0"), testing::Bulk("0")})},
      {"local a = -0 return {tostring(0), tostring(-0), tostring(0.0), tostring(0x0), 0 .. '', -0 "
       ".. ''}",
       testing::Arr({testing::Bulk("-0"), testing::Bulk("-0"), testing::Bulk("-0"),
                     testing::Bulk("-0"), testing::Bulk("-0"), testing::Bulk("-0")})},
      {"local a = -0 local x = 3 return tostring(x - 0)", testing::Bulk("3")},
      {"return {tostring(-0), tostring(0)}",
       testing::Arr({testing::Bulk("-0"), testing::Bulk("-0")})},
      {"return {tostring(0), tostring(-0)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("0")})},
      // Zeros 5.1 folds from constant expressions share the constant too;
      // a division by zero is not folded, its operands are constants.
      {"local a = 1-1; local b = -0; return tostring(b)", testing::Bulk("0")},
      {"local a = 0*-1; local b = 0; return tostring(b)", testing::Bulk("-0")},
      {"local a = 0 return tostring(0 * -5)", testing::Bulk("0")},
      {"local a = -0 return tostring(1 - 1)", testing::Bulk("-0")},
      {"return {tostring(1-1), tostring(-0)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("0")})},
      {"return {tostring(0*-1), tostring(0)}",
       testing::Arr({testing::Bulk("-0"), testing::Bulk("-0")})},
      {"local a = 0 return tostring(1/-0)", testing::Bulk("inf")},
      {"local a = -0 return tostring(1/0)", testing::Bulk("-inf")},
      {"local a = 0 local b = 2 * 0 * -1 return tostring(b)", testing::Bulk("0")},
      {"local a = 2^0 - 1 local b = -0 return tostring(b)", testing::Bulk("0")},
      {"local a = -0 return {tostring(0 + 0), tostring(5 - 5), tostring((0))}",
       testing::Arr({testing::Bulk("-0"), testing::Bulk("-0"), testing::Bulk("-0")})},
      {"local a = 0*-1 local f = function() return 0 end return {tostring(f()), tostring(0)}",
       testing::Arr({testing::Bulk("0"), testing::Bulk("-0")})},
      {"local x = 3 local a = -0 return tostring(x * 0)", testing::Bulk("-0")},
      {"local x = 3 local a = 0 return tostring(x * -0)", testing::Bulk("0")},
      {"return tostring(-(1-1))", testing::Bulk("-0")},
  };
}

// `#` as 5.1's: a table's __len is never called, the length is a double,
// errors name the operand; constant string keys named in errors.
inline std::vector<Case> length_cases() {
  return {
      {"local t = setmetatable({1,2}, {__len=function() return 9 end}) return #t", testing::Int(2)},
      {"local t = setmetatable({}, {__len=function() return 9 end}) return #t .. ''",
       testing::Bulk("0")},
      {"local x return #x",
       runtime_err("local x return #x", "attempt to get length of local 'x' (a nil value)")},
      {"local t = {} return #t.x",
       runtime_err("local t = {} return #t.x", "attempt to get length of field 'x' (a nil value)")},
      {"local t = {} return #t[1]",
       runtime_err("local t = {} return #t[1]",
                   "attempt to get length of field '?' (a nil value)")},
      {"local t = {} return #t['a b']",
       runtime_err("local t = {} return #t['a b']",
                   "attempt to get length of field 'a b' (a nil value)")},
      {"local function f() end return #f()",
       runtime_err("local function f() end return #f()", "attempt to get length of a nil value")},
      {"return #5", runtime_err("return #5", "attempt to get length of a number value")},
      {"local x local function g() return #x end return g()",
       runtime_err("local x local function g() return #x end return g()",
                   "attempt to get length of upvalue 'x' (a nil value)")},
      {"local t = {1,2,3} return 10 % #t", testing::Int(1)},
      {"local t = {1,2,3} return tostring(#t / 2)", testing::Bulk("1.5")},
      {"local t = {} function t:goto() return {1,2} end return #t:goto()", testing::Int(2)},
      {"local s = 'abc' return #s .. #s", testing::Bulk("33")},
      {"local t = {} return t['a b'] .. 'x'",
       runtime_err("local t = {} return t['a b'] .. 'x'",
                   "attempt to concatenate field 'a b' (a nil value)")},
      {"local t = {} return 1 % t['']",
       runtime_err("local t = {} return 1 % t['']",
                   "attempt to perform arithmetic on field '' (a nil value)")},
  };
}

// Arithmetic on a string that is not a number: 5.1's luaG_aritherror names
// the first operand that does not convert as 5.1's lgetobjname does. Each
// operator on each kind of operand, left, right and under unary minus.
inline std::vector<Case> string_arith_cases() {
  auto arith_err = [](const std::string& script, const std::string& msg, int line = 1) {
    return Case{script, runtime_err(script, msg, line)};
  };
  struct Kind {
    const char* setup;    // the script up to the expression
    const char* operand;  // the string operand
    const char* name;     // 5.1's name for it, empty for none
  };
  static const Kind kKinds[] = {
      {"local x = 'a' return ", "x", "local 'x'"},
      {"return ", "_VERSION", "global '_VERSION'"},
      {"local u = 'a' return (function() return ", "u", "upvalue 'u'"},
      {"local t = {f='a'} return ", "t.f", "field 'f'"},
      {"local t = {f='a'} return ", "t['f']", "field 'f'"},
      {"local t = {'a'} return ", "t[1]", "field '?'"},
      {"local t = {'a'} local k = 1 return ", "t[k]", "field '?'"},
      {"local s = 'a' return ", "s:lower()", ""},
      {"return ", "'a'", ""},
      {"return ", "tostring('a')", ""},
      {"local x = 'a' return ", "(x)", "local 'x'"},
      {"local x = 'a' return ", "(x .. 'b')", ""},
      {"local t = {g={f='a'}} return ", "t.g.f", "field 'f'"},
  };
  std::vector<Case> out;
  for (const Kind& k : kKinds) {
    std::string setup = k.setup;
    bool closure = setup.find("(function()") != std::string::npos;
    std::string msg = "attempt to perform arithmetic on ";
    msg += *k.name != '\0' ? std::string(k.name) + " (a string value)" : "a string value";
    std::vector<std::string> exprs;
    for (const char* op : {"+", "-", "*", "/", "%", "^"}) {
      exprs.push_back(std::string(k.operand) + " " + op + " 1");
      exprs.push_back(std::string("1 ") + op + " " + k.operand);
    }
    exprs.push_back(std::string("-") + k.operand);
    for (const std::string& e : exprs)
      out.push_back(arith_err(setup + e + (closure ? " end)()" : ""), msg));
  }
  const char* kLocalX = "attempt to perform arithmetic on local 'x' (a string value)";
  std::vector<Case> more = {
      arith_err("local x = 'a' local y = 'b' return x + y", kLocalX),
      arith_err("local x = 'a' return '10' + x", kLocalX),
      arith_err("local x = 'a' return x + '10'", kLocalX),
      arith_err("local x = 'a' return x + {}", kLocalX),
      arith_err("local x = 'a' local t = {} return t + x",
                "attempt to perform arithmetic on local 't' (a table value)"),
      arith_err("local x = 'a' local n return n + x",
                "attempt to perform arithmetic on local 'n' (a nil value)"),
      arith_err("local x = 'a' local n return x + n", kLocalX),
      arith_err("local x = 'a' return x * 2 + 1", kLocalX),
      arith_err("local x = 'a' return 1 + x * 2", kLocalX),
      arith_err("local x = 'a' local y = 'b' return x + 1, y + 1", kLocalX),
      arith_err("local x = '5' local y = 'b' return x + 1 + y",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("local x = 'a'\nreturn 1 +\n  x", kLocalX, 3),
      arith_err("local x = 'a'\nlocal y = x\n  + 1\nreturn y", kLocalX, 3),
      arith_err("local x = 'a' for i = 1, 2 do local z = x + i end", kLocalX),
      arith_err("local x = 'a' local function f() return x + 1 end return f()",
                "attempt to perform arithmetic on upvalue 'x' (a string value)"),
      arith_err("local t = {} function t:m() return self.v + 1 end t.v = 'a' return t:m()",
                "attempt to perform arithmetic on field 'v' (a string value)"),
      arith_err("local x = 'a' return -x + 1", kLocalX),
      arith_err("local x = 'a' return - - x", kLocalX),
      arith_err("local x = 'a' return 2 ^ x ^ 2", kLocalX),
      arith_err("local x = ' ' return x + 1", kLocalX),
      arith_err("local x = '0x' return x + 1", kLocalX),
      arith_err("local x = '1e' return x + 1", kLocalX),
      arith_err("local x = 'a' local y = x return y + 1",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("local x = 'a' local x = x + 1 return x", kLocalX),
      arith_err("local a, b = 'a', 'b' return (a) * (b)",
                "attempt to perform arithmetic on local 'a' (a string value)"),
      arith_err("return ARGV[1] + 1", "attempt to perform arithmetic on field '?' (a nil value)"),
      // One line, one operator, two sites: the one whose variable holds
      // the operand.
      arith_err("local x = 1 local y = 'b' return x + 1, y + 1",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("local x, y = 'a', 'b' local z = 1 return z + 1 + (x .. '') + y",
                "attempt to perform arithmetic on a string value"),
      arith_err("local x = 'a' return x + 1 .. 'z'", kLocalX),
      arith_err("local x = 'a' return 'z' .. x + 1", kLocalX),
      arith_err("local t = {['a b']='c'} return t['a b'] * 2",
                "attempt to perform arithmetic on field 'a b' (a string value)"),
      arith_err("local x = 'a' return x == 1 or x + 1", kLocalX),
      arith_err("local x = 'a' return #x + x", kLocalX),
      arith_err("local x = 'a' local t = {x + 1}", kLocalX),
      arith_err("local x = 'a' if x + 1 then end", kLocalX),
      arith_err("local x = 'a' local t = {f = function() return 1 end} return x - t.f()", kLocalX),
      arith_err("return (_VERSION) + 1",
                "attempt to perform arithmetic on global '_VERSION' (a string value)"),
      arith_err("local x = 'a' return math.floor(x / 2)", kLocalX),
      arith_err("local t = {} t.x = 'a' return t.x ^ 2",
                "attempt to perform arithmetic on field 'x' (a string value)"),
      // The other operand's metamethod runs (5.1's call_binTM).
      {"local t = setmetatable({}, {__add=function(a, b) return 7 end}) return 'a' + t",
       testing::Int(7)},
      {"local t = setmetatable({}, {__add=function(a, b) return 7 end}) return t + 'a'",
       testing::Int(7)},
      // pcall hands the message back.
      {"local ok, e = pcall(function() local x = 'a' return x * 2 end) return e",
       testing::Bulk("user_script:1: attempt to perform arithmetic on local 'x' (a string value)")},
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// More string arithmetic: 5.1's scopes (`local x = x + 1` reads the outer
// x, a `for`'s variables from its `do`, `until` sees the loop's locals),
// escaped string keys, several operators of one kind on one line, and the
// names `..`, `#` and `%` give under the same scope rules.
inline std::vector<Case> arith_naming_cases() {
  auto arith_err = [](const std::string& script, const std::string& msg, int line = 1) {
    return Case{script, runtime_err(script, msg, line)};
  };
  return {
      arith_err("local _VERSION = _VERSION + 1",
                "attempt to perform arithmetic on global '_VERSION' (a string value)"),
      arith_err("local x = 'a' local function f() local function g() return x + 1 end return g() "
                "end return f()",
                "attempt to perform arithmetic on upvalue 'x' (a string value)"),
      arith_err("for i, v in ipairs({'a'}) do return v + 1 end",
                "attempt to perform arithmetic on local 'v' (a string value)"),
      arith_err("for k, v in pairs({a='b'}) do return k * 2 end",
                "attempt to perform arithmetic on local 'k' (a string value)"),
      arith_err("local function f(...) local a = ... return a + 1 end return f('z')",
                "attempt to perform arithmetic on local 'a' (a string value)"),
      arith_err("local function f(...) return (...) + 1 end return f('z')",
                "attempt to perform arithmetic on a string value"),
      arith_err("local function f(a, b) return a / b end return f('z', 1)",
                "attempt to perform arithmetic on local 'a' (a string value)"),
      arith_err("local t = {} function t:m(v) return v - self.n end t.n = 1 return t:m('q')",
                "attempt to perform arithmetic on local 'v' (a string value)"),
      arith_err("local t = {goto = 'a'} return t.goto + 1",
                "attempt to perform arithmetic on field 'goto' (a string value)"),
      arith_err("local t = {x = {y = 'a'}} local k = 'y' return t.x[k] + 1",
                "attempt to perform arithmetic on field '?' (a string value)"),
      arith_err("local t = {['a\\tb'] = 'a'} return t['a\\tb'] + 1",
                "attempt to perform arithmetic on field 'a\tb' (a string value)"),
      arith_err("local t = {['q\"'] = 'a'} return t['q\"'] + 1",
                "attempt to perform arithmetic on field 'q\"' (a string value)"),
      arith_err("local t = {['p|q'] = 'a'} return t['p|q'] + 1",
                "attempt to perform arithmetic on field 'p|q' (a string value)"),
      arith_err("local t = {[\"a\"] = 'a'} return t[\"a\"] + 1",
                "attempt to perform arithmetic on field 'a' (a string value)"),
      arith_err("local x = 'a' do local x = 1 end return x + 1",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 1 do local x = 'a' return x + 1 end",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' while true do return x * 3 end",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' repeat local y = x until y + 1",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("local x = 'a' if false then elseif true then return x - 1 end",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local s = 'a' return s:upper() .. (s + 1)",
                "attempt to perform arithmetic on local 's' (a string value)"),
      arith_err("local x, y = 'a', 2 return y ^ x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return (x + 1)",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return (1) + x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return x--[[c]]+ 1",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' local y = {x + 1, x - 1}",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return 1 + 2 + x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return 2 * 3 * x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' local t = {} t[x + 1] = 1",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return tostring(x + 1)",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return redis.call('GET', x + 1)",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local a = {} a.b = {} a.b.c = 'z' return a.b.c * a.b.c",
                "attempt to perform arithmetic on field 'c' (a string value)"),
      arith_err("local x = 'z' return x + x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local u = 'a' local function f() local v = 1 return v + u end return f()",
                "attempt to perform arithmetic on upvalue 'u' (a string value)"),
      arith_err("local u = 'a' local function f() return 1 + u, u + 1 end return f()",
                "attempt to perform arithmetic on upvalue 'u' (a string value)"),
      arith_err("local x = 1 local y = 'q' return x + 1 + y + 1",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("return (function() local x = 'a' return x + 1 end)()",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local t = {1} return t[1] + t['n']",
                "attempt to perform arithmetic on field 'n' (a nil value)"),
      arith_err("local t = {} return t.x + 'a'",
                "attempt to perform arithmetic on field 'x' (a nil value)"),
      arith_err("local x = 'a' local f = function() return x * 2 end return f()",
                "attempt to perform arithmetic on upvalue 'x' (a string value)"),
      arith_err("local x = '10' local y = 'a' return x * y",
                "attempt to perform arithmetic on local 'y' (a string value)"),
      arith_err("local x = 'a' return -(-x)",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return -x ^ 2",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return 2 ^ -x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local m = math return m.pi + 'a'",
                "attempt to perform arithmetic on a string value"),
      arith_err("return math.pi * 'q'", "attempt to perform arithmetic on a string value"),
      arith_err("return string.rep('a', 2) - 1", "attempt to perform arithmetic on a string value"),
      arith_err("local x = 'a'\nlocal z = 1\nreturn z +\nx",
                "attempt to perform arithmetic on local 'x' (a string value)", 4),
      arith_err("local x = 'a'\nreturn (\nx\n) + 1",
                "attempt to perform arithmetic on local 'x' (a string value)", 4),
      arith_err("local x = 'a'\nreturn x\n+\n1",
                "attempt to perform arithmetic on local 'x' (a string value)", 4),
      arith_err("local x = 'a'\nreturn -\nx",
                "attempt to perform arithmetic on local 'x' (a string value)", 3),
      arith_err("local x = 'a' return 1 + #x + x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("return KEYS + 1",
                "attempt to perform arithmetic on global 'KEYS' (a table value)"),
      arith_err("local t = setmetatable({}, {__index = function() return 'a' end}) return t.q + 1",
                "attempt to perform arithmetic on field 'q' (a string value)"),
      {"local x = 'a' return x .. 1 + 2", testing::Bulk("a3")},
      arith_err("local y = y .. 'a'", "Script attempted to access nonexistent global variable 'y'"),
      arith_err("local n = #n", "Script attempted to access nonexistent global variable 'n'"),
      arith_err("local z = z % 2", "Script attempted to access nonexistent global variable 'z'"),
      arith_err("local a, b = 1, a + 1",
                "Script attempted to access nonexistent global variable 'a'"),
      arith_err("local f = function() return 1 end local g = f() + f",
                "attempt to perform arithmetic on local 'f' (a function value)"),
      arith_err("local t = {} local x = t.q or 'a' return x + 1",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("for i = 1, 2 do local i = i .. nil end", "attempt to concatenate a nil value"),
      arith_err("local x = 'a' for x = x + 1, 2 do end",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("repeat local q = 'z' until q + 1",
                "attempt to perform arithmetic on local 'q' (a string value)"),
      arith_err("repeat local q = 'z' until true return q + 1",
                "Script attempted to access nonexistent global variable 'q'"),
      arith_err("local p = 'a'; local r = p; return r * 2",
                "attempt to perform arithmetic on local 'r' (a string value)"),
      arith_err("local s = 'a' local t = {s + 1; 2}",
                "attempt to perform arithmetic on local 's' (a string value)"),
      arith_err("local function f(x) local x = x * 2 return x end return f('k')",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' local y = function() return 1 end + x",
                "attempt to perform arithmetic on a function value"),
      arith_err("local w = 'w' local v = (function() return w end)() return v - 1",
                "attempt to perform arithmetic on local 'v' (a string value)"),
      arith_err("local k = 'a' local m = {k = k} return m.k + 1",
                "attempt to perform arithmetic on field 'k' (a string value)"),
      arith_err("local t = {} t[#t + 1] = 'a' return t[1] + 1",
                "attempt to perform arithmetic on field '?' (a string value)"),
      arith_err("local t = {['\\65'] = 'a'} return t['\\65'] * 2",
                "attempt to perform arithmetic on field 'A' (a string value)"),
      arith_err("local t = {['a\\\\b'] = 'a'} return t['a\\\\b'] * 2",
                "attempt to perform arithmetic on field 'a\\b' (a string value)"),
      arith_err("local x = 'a' return 10 % x",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return (x) % 2",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      arith_err("local x = 'a' return 2 * x % 3",
                "attempt to perform arithmetic on local 'x' (a string value)"),
      // Code loadstring() compiled has its sites too.
      {"return loadstring(\"local x = 'a' return x + 1\")()",
       resp::Reply::error("ERR [string \"local x = 'a' return x + 1\"]:1: attempt to perform "
                          "arithmetic on local 'x' (a string value) script: " +
                          lua::sha1_hex("return loadstring(\"local x = 'a' return x + 1\")()") +
                          ", on local x = 'a' return x + 1:1.")},
      {"local f = loadstring(\"return -_VERSION\", \"=chunk\") return f()",
       resp::Reply::error(
           "ERR chunk:1: attempt to perform arithmetic on global '_VERSION' (a string value) "
           "script: " +
           lua::sha1_hex("local f = loadstring(\"return -_VERSION\", \"=chunk\") return f()") +
           ", on =chunk:1.")},
      {"local f = loadstring(\"local x = 'a' return x + 1\") local ok, e = pcall(f) return e",
       testing::Bulk("[string \"local x = 'a' return x + 1\"]:1: attempt to perform arithmetic "
                     "on local 'x' (a string value)")},
      {"return loadstring(\"local a = 1 return a + 1\")()", testing::Int(2)},
  };
}

// A library whose functions do string arithmetic (FUNCTION LOAD, then
// FCALL af 0 abc / ag 0 abc / af 0 4), and one whose load does.
inline constexpr const char* kArithLibrary =
    "#!lua name=arithlib\nredis.register_function('af', function(keys, args) local x = args[1]\n"
    "  return x * 2 end)\nredis.register_function('ag', function(keys, args) return args[1] + 1 "
    "end)";
inline constexpr const char* kArithAfError =
    "ERR user_function:3: attempt to perform arithmetic on local 'x' (a string value) script: af, "
    "on @user_function:3.";
inline constexpr const char* kArithAgError =
    "ERR user_function:4: attempt to perform arithmetic on field '?' (a string value) script: ag, "
    "on @user_function:4.";
inline constexpr const char* kArithLoadLibrary =
    "#!lua name=arithlib2\nlocal x = 'q'\nlocal y = x - 1\nredis.register_function('ah', "
    "function() return 1 end)";
inline constexpr const char* kArithLoadError =
    "ERR Error registering functions: ERR user_function:3: attempt to perform arithmetic on local "
    "'x' (a string value)";

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

// Hex of a string, prefixed to the cmsgpack and struct scripts.
inline const std::string kHex =
    "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', "
    "string.byte(c)) end)) end ";

inline std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

inline std::vector<Case> msgpack_struct_cases() {
  using testing::Arr;
  using testing::Bulk;
  using testing::Bulks;
  using testing::Int;
  using testing::Nil;
  const std::string no_input = "return cmsgpack.pack()";
  const std::string short_str = kHex + "return hex(struct.pack('c5s', 'ab', 'xyz'))";
  return {
      {kHex + "return hex(cmsgpack.pack(1, -1, 127, 128, 255, 256, 65535, 65536, 4294967295, "
              "4294967296, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649))",
       Bulk("01ff7fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000e0d0dfd080d1ff7fd1800"
            "0d2ffff7fffd280000000d3ffffffff7fffffff")},
      {kHex + "return hex(cmsgpack.pack(0.5, 0.1, 1e300, 2^63, -2^63, 1/0, 0/0, -0.0, 2^64))",
       Bulk("ca3f000000cb3fb999999999999acb7e37e43c8800759cca5f000000d38000000000000000ca7f800000cb"
            "fff800000000000000ca5f800000")},
      {kHex + "return hex(cmsgpack.pack(string.rep('a', 31), string.rep('b', 32)))",
       Bulk("bf" + repeat("61", 31) + "d920" + repeat("62", 32))},
      {kHex + "return hex(cmsgpack.pack({}, {1,2}, {a=1}, {1,nil,3}, {[1]=1,[2]=2,[4]=4}, true, "
              "false, nil))",
       Bulk("9092010281a16101820101030383010102020404c3c2c0")},
      // Maps in Lua 5.1's table order (keys that do not collide in 5.1's
      // node array: that order does not depend on the script's insertions).
      {kHex + "return hex(cmsgpack.pack({a=1,b=2,c=3,d=4,e=5}))",
       Bulk("85a16101a16303a16202a16505a16404")},
      {kHex + "local t = {} t.x=1 t.y=2 t.z=3 t.w=4 t.v=5 t.u=6 return hex(cmsgpack.pack(t))",
       Bulk("86a17902a17801a17a03a17506a17704a17605")},
      {kHex + "return hex(cmsgpack.pack({1, 2, a=3}))", Bulk("8301010202a16103")},
      {kHex + "return hex(cmsgpack.pack({[true]=1, [false]=2, k=3}))", Bulk("83c202c301a16b03")},
      {kHex + "return hex(cmsgpack.pack({x=1,y=2,z=3}))", Bulk("83a17902a17801a17a03")},
      {kHex + "return hex(cmsgpack.pack({id=1,name='a',tags={'x'},ok=true}))",
       Bulk("84a2696401a26f6bc3a46e616d65a161a47461677391a178")},
      {kHex + "local t = {} t.b=1 t.a=2 return hex(cmsgpack.pack(t))", Bulk("82a16102a16201")},
      {kHex + "return {hex(cmsgpack.pack({[1.5]=1})), hex(cmsgpack.pack({[0]=1}))}",
       Bulks({"81ca3fc0000001", "810001"})},
      // Tables 16 levels down pack as nil, which also ends cycles.
      {kHex + "local t = {1} for i=1,17 do t = {t} end return hex(cmsgpack.pack(t))",
       Bulk(repeat("91", 16) + "c0")},
      {kHex + "local t = {} t[1] = t return hex(cmsgpack.pack(t))", Bulk(repeat("91", 16) + "c0")},
      {no_input,
       runtime_err(no_input, "bad argument #0 to 'pack' (MessagePack pack needs input.)")},
      {"return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {1,2,{x=3}}, 0.5))}",
       Arr({Int(1), Bulk("a"), Arr({Int(1), Int(2), Arr({})}), Int(0)})},
      {"return {pcall(cmsgpack.unpack, '\\202')}", Arr({Nil(), Bulk("Missing bytes in input.")})},
      {"return {pcall(cmsgpack.unpack, '\\193')}", Arr({Nil(), Bulk("Bad data format in input.")})},
      {"return {pcall(cmsgpack.unpack, '\\196\\001a')}",
       Arr({Nil(), Bulk("Bad data format in input.")})},
      {"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}", Arr({Int(1), Int(1)})},
      {"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 1)}", Arr({Int(2), Int(2)})},
      {"return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}", Arr({Int(2), Int(1), Int(2)})},
      {"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}", Arr({Int(-1), Int(3)})},
      {"return {pcall(cmsgpack.unpack_one, 'a', 5)}",
       Arr({Nil(), Bulk("Start offset 5 greater than input length 1.")})},
      {"return {pcall(cmsgpack.unpack_one, 'a', -1)}",
       Arr({Nil(), Bulk("Invalid request to unpack with offset of -1 and limit of 1.")})},
      {"return {pcall(cmsgpack.unpack, '')}", Arr({Int(1)})},
      {"return {cmsgpack._VERSION, cmsgpack._NAME}", Bulks({"lua-cmsgpack 0.4.0", "cmsgpack"})},
      {"return {pcall(struct.size, 's')}",
       Arr({Nil(), Bulk("bad argument #1 to '?' (option 's' has no fixed size)")})},
      {"return {pcall(struct.size, 'c0')}",
       Arr({Nil(), Bulk("bad argument #1 to '?' (option 'c0' has no fixed size)")})},
      {"return struct.size('!4bi>hdlT')", Int(36)},
      {kHex + "return hex(struct.pack('>i2<I3!4bdfx', -2, 70000, 1, 1.5, 0.25))",
       Bulk("fffe701101010000000000000000f83f0000803e00")},
      {short_str, runtime_err(short_str, "bad argument #3 to 'pack' (string too short)")},
      {kHex + "return hex(struct.pack('c0', 'hello'))", Bulk("68656c6c6f")},
      {"return {struct.unpack('>i2<I3', struct.pack('>i2<I3', -2, 70000))}",
       Arr({Int(-2), Int(70000), Int(6)})},
      {"return {struct.unpack('bc0', '\\003abcd')}", Arr({Bulk("abc"), Int(5)})},
      {"return {pcall(struct.unpack, 'i4', 'ab')}",
       Arr({Nil(), Bulk("bad argument #2 to '?' (data string too short)")})},
      {"return {pcall(struct.unpack, 'i4', 'abcd', 0)}",
       Arr({Nil(), Bulk("bad argument #3 to '?' (offset must be 1 or greater)")})},
      {"return {pcall(struct.pack, 'z', 1)}",
       Arr({Nil(), Bulk("bad argument #1 to '?' (invalid format option 'z')")})},
      {"return {pcall(struct.pack, '!3', 1)}",
       Arr({Nil(), Bulk("alignment 3 is not a power of 2")})},
      {"return {pcall(struct.pack, 'i40', 1)}",
       Arr({Nil(), Bulk("integral size 40 is larger than limit of 32")})},
      {kHex + "return hex(struct.pack('i16', -1))", Bulk("ffffffffffffffff0000000000000000")},
      {"return {struct.unpack('i16', struct.pack('i16', -1))}", Arr({Int(-1), Int(17)})},
      {"return {pcall(struct.unpack, 's', 'abc')}",
       Arr({Nil(), Bulk("unfinished string in data")})},
      {"return {pcall(struct.unpack, 'c0', 'abc')}",
       Arr({Nil(), Bulk("format 'c0' needs a previous size")})},
      {kHex + "return {hex(struct.pack('<l', 2^63)), hex(struct.pack('<l', -3.7)), "
              "hex(struct.pack('<L', 3.7))}",
       Bulks({"0000000000000080", "fdffffffffffffff", "0300000000000000"})},
      {"return {tostring(struct.unpack('<L', struct.pack('<l', -1))), struct.unpack('b', 'ab', 2)}",
       Arr({Bulk("1.844674407371e+19"), Int(98), Int(3)})},
  };
}

// Maps that cmsgpack.unpack built (here from bytes redis-server 7.0.15
// packed from tables of 2..20 mixed keys built by assignments) pack again
// in 5.1's order for their insertion order: as they are, with every value
// changed, and with a key added.
inline std::vector<Case> msgpack_roundtrip_cases() {
  return {
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\130\\166\\99\\111\\117\\110\\116\\54\\1\\164\\111\\107\\55\\52\\2\") return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("82a6636f756e743601a46f6b373402")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\130\\166\\99\\111\\117\\110\\116\\54\\1\\164\\111\\107\\55\\52\\2\") for k, v "
              "in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("82a6636f756e7436a16da46f6b3734a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\130\\166\\99\\111\\117\\110\\116\\54\\1\\164\\111\\107\\55\\52\\2\") u.zz_new = "
              "1 return hex(cmsgpack.pack(u))",
       testing::Bulk("83a46f6b373402a6636f756e743601a67a7a5f6e657701")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\131\\162\\111\\107\\1\\163\\101\\114\\114\\2\\165\\118\\97\\108\\117\\101\\3\") "
              "return hex(cmsgpack.pack(u))",
       testing::Bulk("83a26f6b01a365727202a576616c756503")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\131\\162\\111\\107\\1\\163\\101\\114\\114\\2\\165\\118\\97\\108\\117\\101\\3\") "
              "for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("83a26f6ba16da3657272a16da576616c7565a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\131\\162\\111\\107\\1\\163\\101\\114\\114\\2\\165\\118\\97\\108\\117\\101\\3\") "
              "u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("84a26f6b01a365727202a67a7a5f6e657701a576616c756503")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\132\\166\\110\\101\\120\\116\\57\\51\\3\\163\\101\\114\\114\\1\\202\\64\\240\\0"
              "\\0\\4\\164\\116\\121\\112\\101\\2\") return hex(cmsgpack.pack(u))",
       testing::Bulk("84a66e657874393303a365727201a47479706502ca40f0000004")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\132\\166\\110\\101\\120\\116\\57\\51\\3\\163\\101\\114\\114\\1\\202\\64\\240\\0"
              "\\0\\4\\164\\116\\121\\112\\101\\2\") for k, v in pairs(u) do u[k] = 'm' end return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("84a66e6578743933a16da3657272a16da474797065a16dca40f00000a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\132\\166\\110\\101\\120\\116\\57\\51\\3\\163\\101\\114\\114\\1\\202\\64\\240\\0"
              "\\0\\4\\164\\116\\121\\112\\101\\2\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("85a47479706502a66e657874393303ca40f0000004a67a7a5f6e657701a365727201")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\133\\0\\1\\164\\116\\121\\112\\101\\3\\166\\118\\97\\108\\117\\101\\54\\4\\165\\"
              "101\\114\\114\\49\\50\\5\\166\\115\\116\\97\\116\\117\\115\\2\") return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("850001a5657272313205a676616c75653604a673746174757302a47479706503")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\133\\0\\1\\164\\116\\121\\112\\101\\3\\166\\118\\97\\108\\117\\101\\54\\4\\165\\"
              "101\\114\\114\\49\\50\\5\\166\\115\\116\\97\\116\\117\\115\\2\") for k, v in "
              "pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("8500a16da56572723132a16da676616c756536a16da6737461747573a16da474797065a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\133\\0\\1\\164\\116\\121\\112\\101\\3\\166\\118\\97\\108\\117\\101\\54\\4\\165\\"
              "101\\114\\114\\49\\50\\5\\166\\115\\116\\97\\116\\117\\115\\2\") u.zz_new = 1 "
              "return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "860001a5657272313205a676616c75653604a67a7a5f6e657701a673746174757302a47479706503")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\134\\252\\4\\161\\120\\1\\165\\115\\99\\111\\114\\101\\6\\164\\117\\115\\101\\11"
              "4\\3\\165\\107\\101\\121\\52\\51\\5\\194\\2\") return hex(cmsgpack.pack(u))",
       testing::Bulk("86fc04a17801a573636f726506a47573657203a56b6579343305c202")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\134\\252\\4\\161\\120\\1\\165\\115\\99\\111\\114\\101\\6\\164\\117\\115\\101\\11"
              "4\\3\\165\\107\\101\\121\\52\\51\\5\\194\\2\") for k, v in pairs(u) do u[k] = 'm' "
              "end return hex(cmsgpack.pack(u))",
       testing::Bulk("86fca16da178a16da573636f7265a16da475736572a16da56b65793433a16dc2a16d")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\134\\252\\4\\161\\120\\1\\165\\115\\99\\111\\114\\101\\6\\164\\117\\115\\101\\114\\"
           "3\\165\\107\\101\\121\\52\\51\\5\\194\\2\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("87fc04a17801a573636f726506a47573657203a56b6579343305a67a7a5f6e657701c202")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\135\\0\\7\\165\\109\\101\\116\\97\\55\\1\\166\\117\\115\\101\\114\\57\\56\\4\\16"
              "4\\116\\97\\103\\115\\2\\165\\108\\101\\110\\55\\49\\3\\164\\100\\97\\116\\97\\5\\20"
              "5\\230\\217\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "870007a56d6574613701a675736572393804a47461677302a56c656e373103a46461746105cde6d906")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\135\\0\\7\\165\\109\\101\\116\\97\\55\\1\\166\\117\\115\\101\\114\\57\\56\\4\\164\\"
           "116\\97\\103\\115\\2\\165\\108\\101\\110\\55\\49\\3\\164\\100\\97\\116\\97\\5\\205\\230"
           "\\217\\6\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("8700a16da56d65746137a16da6757365723938a16da474616773a16da56c656e3731a16da4646"
                     "17461a16dcde6d9a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\135\\0\\7\\165\\109\\101\\116\\97\\55\\1\\166\\117\\115\\101\\114\\57\\56\\4\\16"
              "4\\116\\97\\103\\115\\2\\165\\108\\101\\110\\55\\49\\3\\164\\100\\97\\116\\97\\5\\20"
              "5\\230\\217\\6\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("880007a56d6574613701a675736572393804a47461677302a56c656e373103a67a7a5f6e65770"
                     "1a46461746105cde6d906")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\136\\165\\116\\121\\112\\101\\50\\1\\205\\46\\200\\2\\163\\116\\115\\50\\8\\164"
              "\\117\\115\\101\\114\\6\\0\\7\\167\\118\\97\\108\\117\\101\\52\\51\\3\\208\\208\\5\\"
              "194\\4\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "88a5747970653201cd2ec802c204a374733208d0d005a776616c75653433030007a47573657206")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\136\\165\\116\\121\\112\\101\\50\\1\\205\\46\\200\\2\\163\\116\\115\\50\\8\\164"
              "\\117\\115\\101\\114\\6\\0\\7\\167\\118\\97\\108\\117\\101\\52\\51\\3\\208\\208\\5\\"
              "194\\4\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("88a57479706532a16dcd2ec8a16dc2a16da3747332a16dd0d0a16da776616c75653433a16d00a"
                     "16da475736572a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\136\\165\\116\\121\\112\\101\\50\\1\\205\\46\\200\\2\\163\\116\\115\\50\\8\\164"
              "\\117\\115\\101\\114\\6\\0\\7\\167\\118\\97\\108\\117\\101\\52\\51\\3\\208\\208\\5\\"
              "194\\4\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("890007a47573657206a67a7a5f6e657701d0d005a374733208a5747970653201a776616c75653"
                     "43303cd2ec802c204")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\137\\194\\5\\195\\2\\238\\8\\205\\29\\231\\6\\243\\3\\165\\99\\111\\117\\110\\11"
              "6\\4\\206\\0\\1\\106\\216\\1\\202\\63\\192\\0\\0\\9\\163\\105\\100\\56\\7\") return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("89c205c302ee08cd1de706f303a5636f756e7404ca3fc0000009a369643807ce00016ad801")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\137\\194\\5\\195\\2\\238\\8\\205\\29\\231\\6\\243\\3\\165\\99\\111\\117\\110\\11"
              "6\\4\\206\\0\\1\\106\\216\\1\\202\\63\\192\\0\\0\\9\\163\\105\\100\\56\\7\") for k, "
              "v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("89c2a16dc3a16deea16dcd1de7a16df3a16da5636f756e74a16dca3fc00000a16da3696438a16"
                     "dce00016ad8a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\137\\194\\5\\195\\2\\238\\8\\205\\29\\231\\6\\243\\3\\165\\99\\111\\117\\110\\11"
              "6\\4\\206\\0\\1\\106\\216\\1\\202\\63\\192\\0\\0\\9\\163\\105\\100\\56\\7\") "
              "u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("8ac205c302ee08cd1de706a67a7a5f6e657701f303a5636f756e7404ca3fc0000009a36964380"
                     "7ce00016ad801")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\138\\163\\122\\51\\56\\8\\247\\6\\162\\105\\100\\3\\166\\109\\101\\116\\97\\55\\"
              "56\\5\\161\\120\\2\\167\\108\\101\\118\\101\\108\\54\\49\\10\\164\\109\\101\\116\\97"
              "\\9\\241\\4\\163\\97\\52\\48\\1\\195\\7\") return hex(cmsgpack.pack(u))",
       testing::Bulk("8aa37a333808f706a2696403a66d657461373805a17802c307a361343001f104a46d65746109a"
                     "76c6576656c36310a")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\138\\163\\122\\51\\56\\8\\247\\6\\162\\105\\100\\3\\166\\109\\101\\116\\97\\55\\"
              "56\\5\\161\\120\\2\\167\\108\\101\\118\\101\\108\\54\\49\\10\\164\\109\\101\\116\\97"
              "\\9\\241\\4\\163\\97\\52\\48\\1\\195\\7\") for k, v in pairs(u) do u[k] = 'm' end "
              "return hex(cmsgpack.pack(u))",
       testing::Bulk("8aa37a3338a16df7a16da26964a16da66d6574613738a16da178a16dc3a16da3613430a16df1a"
                     "16da46d657461a16da76c6576656c3631a16d")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\138\\163\\122\\51\\56\\8\\247\\6\\162\\105\\100\\3\\166\\109\\101\\116\\97\\55\\56"
           "\\5\\161\\120\\2\\167\\108\\101\\118\\101\\108\\54\\49\\10\\164\\109\\101\\116\\97\\9\\"
           "241\\4\\163\\97\\52\\48\\1\\195\\7\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("8ba37a333808f706a2696403a67a7a5f6e657701a66d657461373805a17802c307a361343001f"
                     "104a46d65746109a76c6576656c36310a")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\139\\0\\5\\195\\2\\166\\112\\114\\101\\118\\53\\51\\3\\163\\98\\55\\57\\8\\162\\"
              "121\\51\\11\\163\\107\\101\\121\\1\\166\\110\\101\\120\\116\\55\\54\\10\\162\\116\\1"
              "15\\9\\163\\121\\51\\55\\4\\205\\122\\20\\7\\194\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk("8b0005a2747309a670726576353303a279330bc206a36b657901a362373908a379333704c302c"
                     "d7a1407a66e65787437360a")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\139\\0\\5\\195\\2\\166\\112\\114\\101\\118\\53\\51\\3\\163\\98\\55\\57\\8\\162\\"
              "121\\51\\11\\163\\107\\101\\121\\1\\166\\110\\101\\120\\116\\55\\54\\10\\162\\116\\1"
              "15\\9\\163\\121\\51\\55\\4\\205\\122\\20\\7\\194\\6\") for k, v in pairs(u) do u[k] "
              "= 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("8b00a16da27473a16da6707265763533a16da27933a16dc2a16da36b6579a16da3623739a16da"
                     "3793337a16dc3a16dcd7a14a16da66e6578743736a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\139\\0\\5\\195\\2\\166\\112\\114\\101\\118\\53\\51\\3\\163\\98\\55\\57\\8\\162\\"
              "121\\51\\11\\163\\107\\101\\121\\1\\166\\110\\101\\120\\116\\55\\54\\10\\162\\116\\1"
              "15\\9\\163\\121\\51\\55\\4\\205\\122\\20\\7\\194\\6\") u.zz_new = 1 return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("8c0005a2747309a670726576353303a279330ba67a7a5f6e657701c206a36b657901a36237390"
                     "8a379333704c302cd7a1407a66e65787437360a")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\140\\0\\11\\162\\120\\53\\9\\164\\100\\97\\116\\97\\3\\166\\116\\121\\112\\101\\"
              "51\\49\\1\\208\\217\\12\\163\\97\\57\\51\\10\\163\\107\\101\\121\\2\\162\\98\\54\\5"
              "\\166\\115\\116\\97\\116\\117\\115\\4\\164\\116\\115\\51\\51\\7\\202\\63\\192\\0\\0"
              "\\8\\164\\101\\114\\114\\57\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk("8c000ba2783509a46461746103a674797065333101a46572723906a36139330aa36b657902a26"
                     "23605d0d90ca47473333307ca3fc0000008a673746174757304")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\140\\0\\11\\162\\120\\53\\9\\164\\100\\97\\116\\97\\3\\166\\116\\121\\112\\101\\"
              "51\\49\\1\\208\\217\\12\\163\\97\\57\\51\\10\\163\\107\\101\\121\\2\\162\\98\\54\\5"
              "\\166\\115\\116\\97\\116\\117\\115\\4\\164\\116\\115\\51\\51\\7\\202\\63\\192\\0\\0"
              "\\8\\164\\101\\114\\114\\57\\6\") for k, v in pairs(u) do u[k] = 'm' end return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk(
           "8c00a16da27835a16da464617461a16da6747970653331a16da465727239a16da3613933a16da36b6579a16"
           "da26236a16dd0d9a16da474733333a16dca3fc00000a16da6737461747573a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\140\\0\\11\\162\\120\\53\\9\\164\\100\\97\\116\\97\\3\\166\\116\\121\\112\\101\\"
              "51\\49\\1\\208\\217\\12\\163\\97\\57\\51\\10\\163\\107\\101\\121\\2\\162\\98\\54\\5"
              "\\166\\115\\116\\97\\116\\117\\115\\4\\164\\116\\115\\51\\51\\7\\202\\63\\192\\0\\0"
              "\\8\\164\\101\\114\\114\\57\\6\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("8d000ba2783509a67a7a5f6e657701a46461746103a674797065333101a46572723906a361393"
                     "30aa36b657902a2623605d0d90ca47473333307ca3fc0000008a673746174757304")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\141\\194\\3\\162\\116\\115\\13\\164\\116\\97\\103\\115\\4\\202\\64\\208\\0\\0\\1"
              "1\\163\\120\\49\\48\\12\\163\\101\\114\\114\\10\\0\\9\\230\\8\\202\\63\\192\\0\\0\\1"
              "\\165\\101\\114\\114\\54\\52\\5\\165\\108\\101\\118\\101\\108\\7\\202\\64\\176\\0\\0"
              "\\2\\163\\120\\50\\51\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk("8d0009a274730da47461677304ca40d000000ba37831300cca40b0000002a56c6576656c07e60"
                     "8ca3fc0000001a5657272363405a36572720ac203a378323306")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\141\\194\\3\\162\\116\\115\\13\\164\\116\\97\\103\\115\\4\\202\\64\\208\\0\\0\\1"
              "1\\163\\120\\49\\48\\12\\163\\101\\114\\114\\10\\0\\9\\230\\8\\202\\63\\192\\0\\0\\1"
              "\\165\\101\\114\\114\\54\\52\\5\\165\\108\\101\\118\\101\\108\\7\\202\\64\\176\\0\\0"
              "\\2\\163\\120\\50\\51\\6\") for k, v in pairs(u) do u[k] = 'm' end return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk(
           "8d00a16da27473a16da474616773a16dca40d00000a16da3783130a16dca40b00000a16da56c6576656ca16"
           "de6a16dca3fc00000a16da56572723634a16da3657272a16dc2a16da3783233a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\141\\194\\3\\162\\116\\115\\13\\164\\116\\97\\103\\115\\4\\202\\64\\208\\0\\0\\1"
              "1\\163\\120\\49\\48\\12\\163\\101\\114\\114\\10\\0\\9\\230\\8\\202\\63\\192\\0\\0\\1"
              "\\165\\101\\114\\114\\54\\52\\5\\165\\108\\101\\118\\101\\108\\7\\202\\64\\176\\0\\0"
              "\\2\\163\\120\\50\\51\\6\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("8e0009a274730da47461677304a67a7a5f6e657701ca40d000000ba37831300cca40b0000002a"
                     "56c6576656c07e608ca3fc0000001a5657272363405a36572720ac203a378323306")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\142\\0\\3\\195\\1\\161\\98\\11\\202\\64\\240\\0\\0\\7\\164\\116\\115\\50\\55\\14"
              "\\167\\118\\97\\108\\117\\101\\57\\48\\8\\167\\118\\97\\108\\117\\101\\50\\51\\12\\1"
              "94\\13\\162\\98\\48\\10\\165\\108\\101\\110\\52\\49\\6\\165\\118\\97\\108\\117\\101"
              "\\4\\165\\101\\114\\114\\49\\49\\9\\165\\117\\115\\101\\114\\52\\2\\163\\120\\51\\54"
              "\\5\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "8ec20dc301a1620bca40f0000007a4747332370ea776616c7565393008a776616c756532330ca378333605a"
           "576616c756504a56c656e343106a262300aa5657272313109a57573657234020003")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\142\\0\\3\\195\\1\\161\\98\\11\\202\\64\\240\\0\\0\\7\\164\\116\\115\\50\\55\\14"
              "\\167\\118\\97\\108\\117\\101\\57\\48\\8\\167\\118\\97\\108\\117\\101\\50\\51\\12\\1"
              "94\\13\\162\\98\\48\\10\\165\\108\\101\\110\\52\\49\\6\\165\\118\\97\\108\\117\\101"
              "\\4\\165\\101\\114\\114\\49\\49\\9\\165\\117\\115\\101\\114\\52\\2\\163\\120\\51\\54"
              "\\5\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("8ec2a16dc3a16da162a16dca40f00000a16da474733237a16da776616c75653930a16da776616"
                     "c75653233a16da3783336a16da576616c7565a16da56c656e3431a16da26230a16da565727231"
                     "31a16da57573657234a16d00a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\142\\0\\3\\195\\1\\161\\98\\11\\202\\64\\240\\0\\0\\7\\164\\116\\115\\50\\55\\14"
              "\\167\\118\\97\\108\\117\\101\\57\\48\\8\\167\\118\\97\\108\\117\\101\\50\\51\\12\\1"
              "94\\13\\162\\98\\48\\10\\165\\108\\101\\110\\52\\49\\6\\165\\118\\97\\108\\117\\101"
              "\\4\\165\\101\\114\\114\\49\\49\\9\\165\\117\\115\\101\\114\\52\\2\\163\\120\\51\\54"
              "\\5\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "8fc20dc301a1620bca40f0000007a67a7a5f6e657701a4747332370ea776616c7565393008a776616c75653"
           "2330ca378333605a576616c756504a56c656e343106a262300aa5657272313109a57573657234020003")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\143\\194\\6\\202\\64\\96\\0\\0\\11\\165\\115\\99\\111\\114\\101\\15\\164\\110\\1"
              "01\\120\\116\\9\\164\\109\\101\\116\\97\\13\\205\\139\\170\\3\\162\\121\\49\\1\\161"
              "\\121\\4\\167\\108\\101\\118\\101\\108\\54\\49\\14\\165\\99\\111\\117\\110\\116\\7\\"
              "161\\122\\2\\205\\133\\185\\12\\205\\243\\146\\10\\167\\108\\101\\118\\101\\108\\56"
              "\\50\\8\\163\\107\\101\\121\\5\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "8fc206ca406000000ba573636f72650fa46e65787409a46d6574610dcd8baa03a2793101a17904a36b65790"
           "5a5636f756e7407a17a02a76c6576656c383208cdf3920acd85b90ca76c6576656c36310e")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\143\\194\\6\\202\\64\\96\\0\\0\\11\\165\\115\\99\\111\\114\\101\\15\\164\\110\\1"
              "01\\120\\116\\9\\164\\109\\101\\116\\97\\13\\205\\139\\170\\3\\162\\121\\49\\1\\161"
              "\\121\\4\\167\\108\\101\\118\\101\\108\\54\\49\\14\\165\\99\\111\\117\\110\\116\\7\\"
              "161\\122\\2\\205\\133\\185\\12\\205\\243\\146\\10\\167\\108\\101\\118\\101\\108\\56"
              "\\50\\8\\163\\107\\101\\121\\5\") for k, v in pairs(u) do u[k] = 'm' end return "
              "hex(cmsgpack.pack(u))",
       testing::Bulk("8fc2a16dca40600000a16da573636f7265a16da46e657874a16da46d657461a16dcd8baaa16da"
                     "27931a16da179a16da36b6579a16da5636f756e74a16da17aa16da76c6576656c3832a16dcdf3"
                     "92a16dcd85b9a16da76c6576656c3631a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\143\\194\\6\\202\\64\\96\\0\\0\\11\\165\\115\\99\\111\\114\\101\\15\\164\\110\\1"
              "01\\120\\116\\9\\164\\109\\101\\116\\97\\13\\205\\139\\170\\3\\162\\121\\49\\1\\161"
              "\\121\\4\\167\\108\\101\\118\\101\\108\\54\\49\\14\\165\\99\\111\\117\\110\\116\\7\\"
              "161\\122\\2\\205\\133\\185\\12\\205\\243\\146\\10\\167\\108\\101\\118\\101\\108\\56"
              "\\50\\8\\163\\107\\101\\121\\5\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("de0010c206ca406000000ba573636f72650fa46e65787409a46d6574610dcd8baa03a2793101a"
                     "67a7a5f6e657701a17904a36b657905a5636f756e7407a17a02a76c6576656c383208cdf3920a"
                     "cd85b90ca76c6576656c36310e")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\16\\162\\111\\107\\3\\208\\209\\2\\0\\16\\161\\98\\7\\164\\116\\115\\49"
              "\\52\\10\\167\\108\\101\\118\\101\\108\\53\\51\\11\\163\\101\\114\\114\\9\\244\\15\\"
              "194\\13\\163\\108\\101\\110\\12\\164\\110\\97\\109\\101\\14\\165\\101\\114\\114\\57"
              "\\51\\1\\166\\115\\116\\97\\116\\117\\115\\8\\165\\110\\97\\109\\101\\49\\5\\161\\97"
              "\\4\\195\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de0010a26f6b03d0d102c306a16207a4747331340aa76c6576656c35330ba16104f40fa56e616d653105a67"
           "3746174757308a46e616d650ea5657272393301a36c656e0ca365727209c20d0010")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\16\\162\\111\\107\\3\\208\\209\\2\\0\\16\\161\\98\\7\\164\\116\\115\\49"
              "\\52\\10\\167\\108\\101\\118\\101\\108\\53\\51\\11\\163\\101\\114\\114\\9\\244\\15\\"
              "194\\13\\163\\108\\101\\110\\12\\164\\110\\97\\109\\101\\14\\165\\101\\114\\114\\57"
              "\\51\\1\\166\\115\\116\\97\\116\\117\\115\\8\\165\\110\\97\\109\\101\\49\\5\\161\\97"
              "\\4\\195\\6\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("de0010a26f6ba16dd0d1a16dc3a16da162a16da474733134a16da76c6576656c3533a16da161a"
                     "16df4a16da56e616d6531a16da6737461747573a16da46e616d65a16da56572723933a16da36c"
                     "656ea16da3657272a16dc2a16d00a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\16\\162\\111\\107\\3\\208\\209\\2\\0\\16\\161\\98\\7\\164\\116\\115\\49"
              "\\52\\10\\167\\108\\101\\118\\101\\108\\53\\51\\11\\163\\101\\114\\114\\9\\244\\15\\"
              "194\\13\\163\\108\\101\\110\\12\\164\\110\\97\\109\\101\\14\\165\\101\\114\\114\\57"
              "\\51\\1\\166\\115\\116\\97\\116\\117\\115\\8\\165\\110\\97\\109\\101\\49\\5\\161\\97"
              "\\4\\195\\6\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de00110010c306a16207a4747331340aa67a7a5f6e657701a673746174757308a56e616d653105a26f6b03f"
           "40fd0d102a76c6576656c35330ba46e616d650ea5657272393301a36c656e0ca365727209a16104c20d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\17\\194\\3\\166\\116\\97\\103\\115\\56\\53\\2\\166\\117\\115\\101\\114\\"
              "56\\56\\16\\205\\109\\101\\15\\167\\108\\101\\118\\101\\108\\54\\52\\9\\163\\107\\10"
              "1\\121\\13\\167\\99\\111\\117\\110\\116\\54\\55\\10\\165\\101\\114\\114\\50\\51\\12"
              "\\164\\116\\121\\112\\101\\14\\164\\109\\101\\116\\97\\8\\202\\64\\96\\0\\0\\4\\163"
              "\\120\\53\\50\\11\\161\\122\\7\\167\\118\\97\\108\\117\\101\\54\\49\\1\\161\\97\\5\\"
              "202\\63\\0\\0\\0\\17\\195\\6\") return hex(cmsgpack.pack(u))",
       testing::Bulk("de0011a16105a674616773383502a675736572383810cd6d650fa76c6576656c363409a36b657"
                     "90da7636f756e7436370aa565727232330ca4747970650ea46d65746108ca4060000004a37835"
                     "320ba17a07a776616c7565363101c306ca3f00000011c203")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\222\\0\\17\\194\\3\\166\\116\\97\\103\\115\\56\\53\\2\\166\\117\\115\\101\\114\\56"
           "\\56\\16\\205\\109\\101\\15\\167\\108\\101\\118\\101\\108\\54\\52\\9\\163\\107\\101\\12"
           "1\\13\\167\\99\\111\\117\\110\\116\\54\\55\\10\\165\\101\\114\\114\\50\\51\\12\\164\\11"
           "6\\121\\112\\101\\14\\164\\109\\101\\116\\97\\8\\202\\64\\96\\0\\0\\4\\163\\120\\53\\50"
           "\\11\\161\\122\\7\\167\\118\\97\\108\\117\\101\\54\\49\\1\\161\\97\\5\\202\\63\\0\\0\\0"
           "\\17\\195\\6\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de0011a161a16da6746167733835a16da6757365723838a16dcd6d65a16da76c6576656c3634a16da36b657"
           "9a16da7636f756e743637a16da56572723233a16da474797065a16da46d657461a16dca40600000a16da378"
           "3532a16da17aa16da776616c75653631a16dc3a16dca3f000000a16dc2a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\17\\194\\3\\166\\116\\97\\103\\115\\56\\53\\2\\166\\117\\115\\101\\114\\"
              "56\\56\\16\\205\\109\\101\\15\\167\\108\\101\\118\\101\\108\\54\\52\\9\\163\\107\\10"
              "1\\121\\13\\167\\99\\111\\117\\110\\116\\54\\55\\10\\165\\101\\114\\114\\50\\51\\12"
              "\\164\\116\\121\\112\\101\\14\\164\\109\\101\\116\\97\\8\\202\\64\\96\\0\\0\\4\\163"
              "\\120\\53\\50\\11\\161\\122\\7\\167\\118\\97\\108\\117\\101\\54\\49\\1\\161\\97\\5\\"
              "202\\63\\0\\0\\0\\17\\195\\6\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("de0012a16105a674616773383502a675736572383810a67a7a5f6e657701cd6d650fa76c65766"
                     "56c363409a36b65790da7636f756e7436370aa565727232330ca4747970650ea46d65746108ca"
                     "4060000004a37835320ba17a07a776616c7565363101c306ca3f00000011c203")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\222\\0\\18\\0\\5\\195\\1\\165\\115\\99\\111\\114\\101\\3\\167\\115\\99\\111\\114\\1"
           "01\\52\\49\\10\\166\\100\\97\\116\\97\\54\\56\\12\\163\\120\\53\\48\\9\\167\\99\\111\\1"
           "17\\110\\116\\52\\56\\13\\162\\111\\107\\6\\164\\116\\121\\112\\101\\14\\164\\109\\101"
           "\\116\\97\\11\\166\\110\\101\\120\\116\\53\\57\\17\\162\\105\\100\\18\\166\\110\\101\\1"
           "20\\116\\56\\54\\2\\161\\122\\16\\202\\64\\240\\0\\0\\4\\161\\97\\15\\165\\101\\114\\11"
           "4\\51\\53\\7\\164\\100\\97\\116\\97\\8\") return hex(cmsgpack.pack(u))",
       testing::Bulk("de00120005c301a66e657874383602a773636f726534310aa66461746136380ca378353009a76"
                     "36f756e7434380da26f6b06a4747970650ea2696412a66e657874353911a46461746108a56572"
                     "72333507a17a10a573636f726503a1610fca40f0000004a46d6574610b")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\18\\0\\5\\195\\1\\165\\115\\99\\111\\114\\101\\3\\167\\115\\99\\111\\114"
              "\\101\\52\\49\\10\\166\\100\\97\\116\\97\\54\\56\\12\\163\\120\\53\\48\\9\\167\\99\\"
              "111\\117\\110\\116\\52\\56\\13\\162\\111\\107\\6\\164\\116\\121\\112\\101\\14\\164\\"
              "109\\101\\116\\97\\11\\166\\110\\101\\120\\116\\53\\57\\17\\162\\105\\100\\18\\166\\"
              "110\\101\\120\\116\\56\\54\\2\\161\\122\\16\\202\\64\\240\\0\\0\\4\\161\\97\\15\\165"
              "\\101\\114\\114\\51\\53\\7\\164\\100\\97\\116\\97\\8\") for k, v in pairs(u) do "
              "u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de001200a16dc3a16da66e6578743836a16da773636f72653431a16da6646174613638a16da3783530a16da"
           "7636f756e743438a16da26f6ba16da474797065a16da26964a16da66e6578743539a16da464617461a16da5"
           "6572723335a16da17aa16da573636f7265a16da161a16dca40f00000a16da46d657461a16d")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\222\\0\\18\\0\\5\\195\\1\\165\\115\\99\\111\\114\\101\\3\\167\\115\\99\\111\\114\\1"
           "01\\52\\49\\10\\166\\100\\97\\116\\97\\54\\56\\12\\163\\120\\53\\48\\9\\167\\99\\111\\1"
           "17\\110\\116\\52\\56\\13\\162\\111\\107\\6\\164\\116\\121\\112\\101\\14\\164\\109\\101"
           "\\116\\97\\11\\166\\110\\101\\120\\116\\53\\57\\17\\162\\105\\100\\18\\166\\110\\101\\1"
           "20\\116\\56\\54\\2\\161\\122\\16\\202\\64\\240\\0\\0\\4\\161\\97\\15\\165\\101\\114\\11"
           "4\\51\\53\\7\\164\\100\\97\\116\\97\\8\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("de00130005c301a66e657874383602a67a7a5f6e657701a773636f726534310aa664617461363"
                     "80ca378353009a7636f756e7434380da26f6b06a4747970650ea2696412a66e657874353911a4"
                     "6461746108a5657272333507a17a10a573636f726503a1610fca40f0000004a46d6574610b")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\19\\163\\99\\52\\52\\12\\195\\10\\255\\11\\166\\116\\121\\112\\101\\53\\"
              "52\\14\\202\\65\\24\\0\\0\\9\\163\\107\\101\\121\\8\\163\\121\\56\\48\\3\\165\\108\\"
              "101\\118\\101\\108\\7\\166\\117\\115\\101\\114\\56\\57\\18\\205\\137\\163\\19\\205\\"
              "223\\56\\17\\161\\121\\6\\161\\120\\1\\0\\2\\164\\116\\115\\57\\54\\5\\163\\98\\55\\"
              "55\\4\\161\\99\\15\\246\\16\\205\\217\\135\\13\") return hex(cmsgpack.pack(u))",
       testing::Bulk("de00130002c30aff0ba67479706535340eca4118000009a36b657908a379383003a56c6576656"
                     "c07a675736572383912cdd9870df610a17906cddf3811a1630fa47473393605a362373704a363"
                     "34340ccd89a313a17801")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\19\\163\\99\\52\\52\\12\\195\\10\\255\\11\\166\\116\\121\\112\\101\\53\\"
              "52\\14\\202\\65\\24\\0\\0\\9\\163\\107\\101\\121\\8\\163\\121\\56\\48\\3\\165\\108\\"
              "101\\118\\101\\108\\7\\166\\117\\115\\101\\114\\56\\57\\18\\205\\137\\163\\19\\205\\"
              "223\\56\\17\\161\\121\\6\\161\\120\\1\\0\\2\\164\\116\\115\\57\\54\\5\\163\\98\\55\\"
              "55\\4\\161\\99\\15\\246\\16\\205\\217\\135\\13\") for k, v in pairs(u) do u[k] = "
              "'m' end return hex(cmsgpack.pack(u))",
       testing::Bulk("de001300a16dc3a16dffa16da6747970653534a16dca41180000a16da36b6579a16da3793830a"
                     "16da56c6576656ca16da6757365723839a16dcdd987a16df6a16da179a16dcddf38a16da163a1"
                     "6da474733936a16da3623737a16da3633434a16dcd89a3a16da178a16d")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\222\\0\\19\\163\\99\\52\\52\\12\\195\\10\\255\\11\\166\\116\\121\\112\\101\\53\\52"
           "\\14\\202\\65\\24\\0\\0\\9\\163\\107\\101\\121\\8\\163\\121\\56\\48\\3\\165\\108\\101\\"
           "118\\101\\108\\7\\166\\117\\115\\101\\114\\56\\57\\18\\205\\137\\163\\19\\205\\223\\56"
           "\\17\\161\\121\\6\\161\\120\\1\\0\\2\\164\\116\\115\\57\\54\\5\\163\\98\\55\\55\\4\\161"
           "\\99\\15\\246\\16\\205\\217\\135\\13\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk("de00140002c30aff0ba67479706535340ea67a7a5f6e657701ca4118000009a36b657908a3793"
                     "83003a56c6576656c07a675736572383912cdd9870df610a17906cddf3811a1630fa474733936"
                     "05a362373704a36334340ccd89a313a17801")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\20\\194\\2\\195\\15\\165\\115\\99\\111\\114\\101\\17\\166\\110\\97\\109"
              "\\101\\52\\54\\20\\202\\65\\8\\0\\0\\14\\167\\115\\99\\111\\114\\101\\56\\54\\9\\167"
              "\\115\\99\\111\\114\\101\\52\\53\\8\\162\\111\\107\\13\\164\\116\\121\\112\\101\\12"
              "\\162\\105\\100\\1\\166\\116\\97\\103\\115\\49\\54\\19\\0\\18\\202\\63\\192\\0\\0\\4"
              "\\161\\120\\7\\167\\99\\111\\117\\110\\116\\54\\49\\16\\164\\109\\101\\116\\97\\5\\1"
              "64\\101\\114\\114\\50\\11\\163\\120\\53\\55\\10\\202\\63\\0\\0\\0\\6\\166\\112\\114"
              "\\101\\118\\49\\49\\3\") return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de00140012c30fa573636f726511a66e616d65343614ca410800000ea773636f7265383609a674616773313"
           "613ca3fc0000004a4747970650ca2696401a670726576313103a773636f7265343508a37835370aa17807a4"
           "6d65746105a26f6b0da4657272320bc202ca3f00000006a7636f756e74363110")},
      {kHex +
           "local u = "
           "cmsgpack.unpack("
           "\"\\222\\0\\20\\194\\2\\195\\15\\165\\115\\99\\111\\114\\101\\17\\166\\110\\97\\109\\10"
           "1\\52\\54\\20\\202\\65\\8\\0\\0\\14\\167\\115\\99\\111\\114\\101\\56\\54\\9\\167\\115\\"
           "99\\111\\114\\101\\52\\53\\8\\162\\111\\107\\13\\164\\116\\121\\112\\101\\12\\162\\105"
           "\\100\\1\\166\\116\\97\\103\\115\\49\\54\\19\\0\\18\\202\\63\\192\\0\\0\\4\\161\\120\\7"
           "\\167\\99\\111\\117\\110\\116\\54\\49\\16\\164\\109\\101\\116\\97\\5\\164\\101\\114\\11"
           "4\\50\\11\\163\\120\\53\\55\\10\\202\\63\\0\\0\\0\\6\\166\\112\\114\\101\\118\\49\\49\\"
           "3\") for k, v in pairs(u) do u[k] = 'm' end return hex(cmsgpack.pack(u))",
       testing::Bulk("de001400a16dc3a16da573636f7265a16da66e616d653436a16dca41080000a16da773636f726"
                     "53836a16da6746167733136a16dca3fc00000a16da474797065a16da26964a16da67072657631"
                     "31a16da773636f72653435a16da3783537a16da178a16da46d657461a16da26f6ba16da465727"
                     "232a16dc2a16dca3f000000a16da7636f756e743631a16d")},
      {kHex + "local u = "
              "cmsgpack.unpack("
              "\"\\222\\0\\20\\194\\2\\195\\15\\165\\115\\99\\111\\114\\101\\17\\166\\110\\97\\109"
              "\\101\\52\\54\\20\\202\\65\\8\\0\\0\\14\\167\\115\\99\\111\\114\\101\\56\\54\\9\\167"
              "\\115\\99\\111\\114\\101\\52\\53\\8\\162\\111\\107\\13\\164\\116\\121\\112\\101\\12"
              "\\162\\105\\100\\1\\166\\116\\97\\103\\115\\49\\54\\19\\0\\18\\202\\63\\192\\0\\0\\4"
              "\\161\\120\\7\\167\\99\\111\\117\\110\\116\\54\\49\\16\\164\\109\\101\\116\\97\\5\\1"
              "64\\101\\114\\114\\50\\11\\163\\120\\53\\55\\10\\202\\63\\0\\0\\0\\6\\166\\112\\114"
              "\\101\\118\\49\\49\\3\") u.zz_new = 1 return hex(cmsgpack.pack(u))",
       testing::Bulk(
           "de00150012c30fa573636f726511a66e616d65343614ca410800000ea773636f7265383609a674616773313"
           "613ca3fc0000004a4747970650ca2696401a67a7a5f6e657701a670726576313103a773636f7265343508a3"
           "7835370aa17807a46d65746105a26f6b0da4657272320bc202ca3f00000006a7636f756e74363110")},
  };
}

// Scripts that pack a seeded list of values with cmsgpack and struct and
// return the hex, then unpack them again (for the real-server comparison).
inline std::vector<std::string> seeded_pack_scripts(uint64_t seed, int count) {
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&x]() {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 11;
  };
  auto number = [&]() -> std::string {
    switch (next() % 8) {
      case 0:
        return std::to_string(static_cast<int64_t>(next() % 300) - 150);
      case 1:
        return std::to_string(static_cast<int64_t>(next() % 140000) - 70000);
      case 2:
        return "2^" + std::to_string(next() % 70) + (next() % 2 ? "" : " - 1");
      case 3:
        return "-2^" + std::to_string(next() % 70);
      case 4:
        return std::to_string(next() % 1000) + "." + std::to_string(next() % 1000);
      case 5:
        return "1/" + std::to_string(1 + next() % 16);
      case 6:
        return std::to_string(next() % 4294967296ULL) + " * " + std::to_string(next() % 100000);
      default:
        return "-" + std::to_string(next() % 100000) + ".25";
    }
  };
  std::vector<std::string> out;
  static const char* kStruct[] = {"b",  "B",  "h",  "H",  "<i", ">I",
                                  "<l", ">L", "i3", "I5", "f",  ">d"};
  for (int i = 0; i < count; ++i) {
    std::string values;
    int n = 1 + static_cast<int>(next() % 6);
    for (int k = 0; k < n; ++k) {
      if (!values.empty()) values += ", ";
      switch (next() % 5) {
        case 0:
          values += "string.rep('x', " + std::to_string(next() % 300) + ")";
          break;
        case 1:
          values += "{" + number() + ", " + number() + "}";
          break;
        case 2:
          values += "{k = " + number() + "}";
          break;
        default:
          values += number();
      }
    }
    out.push_back(
        kHex + "local p = cmsgpack.pack(" + values +
        ") local u = {cmsgpack.unpack(p)} return {hex(p), hex(cmsgpack.pack(unpack(u)))}");
    std::string fmt = "!" + std::to_string(1 << (next() % 4));
    std::string args;
    int m = 1 + static_cast<int>(next() % 5);
    for (int k = 0; k < m; ++k) {
      fmt += kStruct[next() % (sizeof kStruct / sizeof kStruct[0])];
      args += ", " + number();
    }
    out.push_back(kHex + "local p = struct.pack('" + fmt + "'" + args +
                  ") local u = {struct.unpack('" + fmt +
                  "', p)} for i = 1, #u do u[i] = tostring(u[i]) end return {hex(p), u}");
  }
  return out;
}

}  // namespace redsim::sim::lua51

// Test-only: scripts and the replies redis-server 7.0.15 gives them (taken
// from it with redis-cli), shared by lua51_test.cc (the fake must give the
// pinned reply) and lua51_real_test.cc (the real server must still give it,
// and the fake must give what the real server gives).
#pragma once

#include <cstdint>
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

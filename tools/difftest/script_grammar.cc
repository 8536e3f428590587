// The Lua script grammar of the differential tester: small random scripts
// whose values cross the Lua -> RESP conversion (or raise), sent by EVAL,
// EVAL_RO, EVALSHA and SCRIPT LOAD.
#include <array>
#include <string>
#include <vector>

#include "tools/difftest/grammar.h"

namespace redsim::difftest::grammar {

namespace {

// A small random Lua expression whose value crosses the Lua -> RESP
// conversion (or raises).
std::string lua_expr(Gen& g, int depth) {
  const int choices = depth > 2 ? 8 : 22;
  switch (g.below(static_cast<uint64_t>(choices))) {
    case 0:
      return g.pick(
          std::array<std::string, 8>{"0", "1", "-7", "42", "3.99", "-2.5", "1e10", "0.5"});
    case 1:
      return g.pick(std::array<std::string, 5>{"'abc'", "''", "'x\\0y'", "'10'", "'3.0'"});
    case 2:
      return g.pick(std::array<std::string, 3>{"true", "false", "nil"});
    case 3:
      return "KEYS[1]";
    case 4:
      return "ARGV[1]";
    case 5:
      return "#ARGV";
    case 6:
      return "tostring(" + std::to_string(g.range(-100, 100)) + ")";
    case 7:
      return "tonumber('" + g.pick(std::array<std::string, 5>{"12", "0x10", "1.5", "z", " 7 "}) +
             "')";
    case 8:
    case 9: {
      std::string t = "{";
      const uint64_t n = g.below(4);
      for (uint64_t i = 0; i < n; ++i) t += (i ? ", " : "") + lua_expr(g, depth + 1);
      return t + "}";
    }
    case 10:
      return "redis.call('" +
             g.pick(std::array<std::string, 8>{"GET", "INCR", "TYPE", "EXISTS", "HLEN", "STRLEN",
                                               "DEL", "TTL"}) +
             "', KEYS[1])";
    case 11:
      return "redis.call('SET', KEYS[1], " + lua_expr(g, depth + 1) + ")";
    case 12:
      return "redis.pcall('" +
             g.pick(std::array<std::string, 4>{"INCR", "HGET", "NOSUCH", "LPOP"}) + "', KEYS[1])";
    case 13:
      return "redis.status_reply('" + g.pick(std::array<std::string, 3>{"OK", "FINE", ""}) + "')";
    case 14:
      return "redis.error_reply('" +
             g.pick(std::array<std::string, 3>{"MY oops", "plain", "ERR x"}) + "')";
    case 15:
      return "cjson.encode(" +
             g.pick(
                 std::array<std::string, 5>{"{1, 2, 3}", "{a = 1}", "{}", "'s'", "{1.5, true}"}) +
             ")";
    case 16:
      return "cjson.decode('" +
             g.pick(std::array<std::string, 5>{"[1,2,3]", "{\"a\":[1,{\"b\":2}]}", "5", "\"s\"",
                                               "[1.5,true,null]"}) +
             "')";
    case 17:
      return "bit." +
             g.pick(std::array<std::string, 5>{"band", "bor", "bxor", "lshift", "rshift"}) + "(" +
             std::to_string(g.range(-300, 300)) + ", " + std::to_string(g.range(0, 9)) + ")";
    case 18:
      return "bit.tohex(" + std::to_string(g.range(-70000, 70000)) + ")";
    case 19:
      return "{err = '" + g.pick(std::array<std::string, 2>{"MYERR bad", "oops"}) + "'}";
    case 20:
      return "{ok = 'FINE'}";
    default:
      return "type(" + lua_expr(g, depth + 1) + ")";
  }
}

std::string lua_script(Gen& g) {
  std::string body;
  switch (g.below(8)) {
    case 0:
      body = "error('" + g.pick(std::array<std::string, 2>{"boom", "MY custom"}) + "')";
      break;
    case 1:
      body = "return redis.call('NOSUCHCMD')";
      break;
    case 2:
      body = "local t = {} for i = 1, " + std::to_string(g.range(0, 5)) +
             " do t[i] = i * 2 end return t";
      break;
    case 3:
      body = "local ok = redis.pcall('INCR', KEYS[1]) return {type(ok), ok}";
      break;
    default:
      body = "return " + lua_expr(g, 0);
      break;
  }
  return body;
}

}  // namespace

void add_script(Gen& g, std::vector<Step>& out, std::vector<std::string>& loaded) {
  Step s;
  s.conn = static_cast<int>(g.below(3));
  switch (g.below(8)) {
    case 0: {
      const std::string src = lua_script(g);
      s.argv = {"SCRIPT", "LOAD", src};
      loaded.push_back(src);
      break;
    }
    case 1:
      if (!loaded.empty() && g.chance(80)) {
        // EVALSHA of a script loaded earlier: the runner turns "$SHA:" + src into its SHA1.
        s.argv = {"EVALSHA", "$SHA:" + g.pick(loaded), "1", g.key(), g.value()};
      } else {
        s.argv = {"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"};
      }
      break;
    case 2:
      s.argv = {"EVAL_RO", lua_script(g), "1", g.key(), g.value()};
      break;
    case 3:
      s.argv = {"EVAL", lua_script(g), g.chance(90) ? "1" : "-1", g.key(), g.value()};
      break;
    default:
      s.argv = {"EVAL", lua_script(g), "1", g.key(), g.value()};
      break;
  }
  out.push_back(std::move(s));
}

}  // namespace redsim::difftest::grammar

// Redis's Lua 5.1 on 5.4: syntax 5.1 refuses, numbers as doubles, unpack and
// call depth limits, math.random's sequence. Every expected reply is what
// redis-server 7.0.15 answered (lua51_scripts.h; lua51_real_test.cc checks
// them against a running server).
#include <gtest/gtest.h>

#include "sim/lua/lua51_scripts.h"
#include "sim/lua/lua_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class Lua51Test : public ScriptTest {
 protected:
  void check(const std::vector<lua51::Case>& cases) {
    for (const lua51::Case& c : cases) EXPECT_EQ(eval(c.script), c.want) << c.script;
  }
};

TEST_F(Lua51Test, SyntaxNewerThanFiveOneIsRefusedAsFiveOneRefusesIt) {
  check(lua51::syntax_cases());
}
TEST_F(Lua51Test, NumbersAreDoubles) { check(lua51::number_cases()); }
TEST_F(Lua51Test, LibraryAndBridgeNumbersAreDoubles) { check(lua51::library_number_cases()); }
TEST_F(Lua51Test, ModuloIsFiveOnes) { check(lua51::modulo_cases()); }
TEST_F(Lua51Test, GotoMethodsAndTheSharedZeroConstant) { check(lua51::goto_and_zero_cases()); }
TEST_F(Lua51Test, LengthIgnoresLenAndNamesItsOperand) { check(lua51::length_cases()); }
TEST_F(Lua51Test, StringArithmeticErrorsNameTheOperandAsFiveOne) {
  check(lua51::string_arith_cases());
}
TEST_F(Lua51Test, ArithmeticNamesFollowFiveOnesScopes) { check(lua51::arith_naming_cases()); }
TEST_F(Lua51Test, StringArithmeticInFunctionsNamesTheOperandAsFiveOne) {
  EXPECT_EQ(server_->execute(*s_, {"FUNCTION", "LOAD", lua51::kArithLibrary}), Bulk("arithlib"));
  EXPECT_EQ(server_->execute(*s_, {"FCALL", "af", "0", "abc"}),
            resp::Reply::error(lua51::kArithAfError));
  EXPECT_EQ(server_->execute(*s_, {"FCALL", "ag", "0", "abc"}),
            resp::Reply::error(lua51::kArithAgError));
  EXPECT_EQ(server_->execute(*s_, {"FCALL", "af", "0", "4"}), Int(8));
  EXPECT_EQ(server_->execute(*s_, {"FUNCTION", "LOAD", lua51::kArithLoadLibrary}),
            resp::Reply::error(lua51::kArithLoadError));
}

// The sites the rewrite records: operator, line, and 5.1's operand names.
TEST_F(Lua51Test, TheRewriteRecordsArithmeticSitesWithFiveOnesNames) {
  lua::Source51 src =
      lua::adapt_source51("local x, t = 1, {}\nreturn -x + t.f * 2, (x) ^ y ^ 2,\n  t[1] - 3 % x");
  std::vector<std::string> got;
  for (const lua::ArithSite51& s : src.arith) {
    got.push_back(std::to_string(s.line) + ":" + std::to_string(s.line51) + " " + s.op + " [" +
                  s.left + "] [" + s.right + "]");
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "2:2 u [local 'x'] []",
                     "2:2 + [] []",
                     "2:2 * [field 'f'] []",
                     "2:2 ^ [local 'x'] []",
                     "2:2 ^ [global 'y'] []",
                     "3:3 - [field '?'] []",
                 }));
}
TEST_F(Lua51Test, UnpackAndCallDepthLimits) { check(lua51::limit_cases()); }
TEST_F(Lua51Test, MathRandomStartsFromRand48sInitialState) { check(lua51::random_cases()); }

TEST_F(Lua51Test, UnpackedMapsRepackInFiveOneOrder) { check(lua51::msgpack_roundtrip_cases()); }
TEST_F(Lua51Test, CmsgpackAndStructAsRedisShipsThem) { check(lua51::msgpack_struct_cases()); }

TEST_F(Lua51Test, LiteralRewritesKeepEverythingElse) {
  // Every number literal becomes a float; strings untouched.
  lua::Source51 s = lua::adapt_source51("return 4294967296, 4294967295, 0x100000000, '4294967296'");
  EXPECT_EQ(s.code, "return 4294967296.0, 4294967295.0, 4294967296.0, '4294967296'");
  // `%` is 5.1's modulo, a call naming its operands.
  EXPECT_EQ(lua::adapt_source51("return 1 % 0, 1 %0x0, -x ^ 2 * 10 % #t").code,
            "local __redsim_mod51=__redsim_mod51;return __redsim_mod51(\"|\", 1.0 , 0.0), "
            "__redsim_mod51(\"|\", 1.0 ,0.0), __redsim_mod51(\"|\", -x ^ 2.0 * 10.0 , (#t+0.0))");
  // Without the number model only what 5.4 would get wrong at compile time.
  EXPECT_EQ(lua::adapt_source51("return 1 % 0, 3, 4294967296", false).code,
            "return 1 % 0.0, 3, 4294967296.0");
  EXPECT_TRUE(s.error.empty());
  lua::Source51 e = lua::adapt_source51("\n\nreturn 1 & 2");
  EXPECT_EQ(e.error, "user_script:3: '<eof>' expected near '&'");
  EXPECT_EQ(e.error_line, 3);
}

TEST_F(Lua51Test, AdaptedSourceIsRememberedPerBodyAndNumberModel) {
  // The per-thread memo (source51.cc) keys on the body and the number model:
  // the same body adapted with and without the model in any order, across
  // more bodies than the memo holds, gives each its own adaptation.
  const std::string body = "return 1 % 0, 3, 4294967296";
  const std::string with_model = lua::adapt_source51(body).code;
  const std::string without = lua::adapt_source51(body, false).code;
  EXPECT_EQ(without, "return 1 % 0.0, 3, 4294967296.0");
  EXPECT_NE(with_model, without);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40; ++i) {
      std::string other = "return " + std::to_string(i) + " .. x";
      lua::Source51 s = lua::adapt_source51(other);
      EXPECT_EQ(
          s.code,
          "local __redsim_concat51=__redsim_concat51;return __redsim_concat51(\"|global 'x'\", " +
              std::to_string(i) + ".0 , x)");
      EXPECT_EQ(lua::adapt_source51(body, round % 2 == 1).code,
                round % 2 == 1 ? with_model : without);
    }
  }
  lua::Source51 e1 = lua::adapt_source51("\n\nreturn 1 & 2");
  lua::Source51 e2 = lua::adapt_source51("\n\nreturn 1 & 2");
  EXPECT_EQ(e1.error, e2.error);
  EXPECT_EQ(e2.error_line, 3);
  // A body past the memo's size limit is adapted each time, the same way.
  std::string big = "return 1" + std::string(20000, ' ') + "+ 2";
  EXPECT_EQ(lua::adapt_source51(big).code, lua::adapt_source51(big).code);
  EXPECT_EQ(lua::adapt_source51(big).arith.size(), 1u);
}

TEST_F(Lua51Test, ConcatChainsBecomeOneCallNamingTheirOperands) {
  EXPECT_EQ(lua::adapt_source51("return a .. 1").code,
            "local __redsim_concat51=__redsim_concat51;return __redsim_concat51(\"global 'a'|\", a "
            ", 1.0)");
  EXPECT_EQ(lua::adapt_source51("local x\nreturn f(x .. t.k) .. y[1] .. -2^2").code,
            "local __redsim_concat51=__redsim_concat51;local x\nreturn __redsim_concat51(\"|field "
            "'?'|\", f(__redsim_concat51(\"local 'x'|field 'k'\", x , t.k)) , y[1.0] , -2.0^2.0)");
  // Not an operand this pass understands (a function literal): left to the VM.
  EXPECT_EQ(lua::adapt_source51("return function() end .. 'x'").code,
            "return function() end .. 'x'");
  // `goto` as a name.
  EXPECT_EQ(lua::adapt_source51("local goto = {goto = 1} return goto.goto").code,
            "local __goto = {[\"goto\"] = 1.0} return __goto[\"goto\"]");
}

TEST_F(Lua51Test, LengthsGotoMethodsAndZerosAreRewritten) {
  // `#x` becomes a float, `^` binding tighter than the `#`; inside a `..`
  // chain the parentheses nest within the concat call.
  EXPECT_EQ(lua::adapt_source51("return #t * #s.x[1] ^ 2").code,
            "return (#t+0.0) * (#s.x[1.0] ^ 2.0+0.0)");
  EXPECT_EQ(lua::adapt_source51("return #t .. 'x'").code,
            "local __redsim_concat51=__redsim_concat51;return __redsim_concat51(\"|\", (#t+0.0) , "
            "'x')");
  // A script that writes "len" may set a __len: `#` through the helper.
  EXPECT_EQ(lua::adapt_source51("local len = #t return len").code,
            "local __redsim_len51=__redsim_len51;local len = __redsim_len51(\"global 't'\", t) "
            "return len");
  EXPECT_EQ(lua::adapt_source51("return #function() end").code, "return #function() end");
  // obj:goto(...) through the self-call helper; function t:goto() as a field.
  EXPECT_EQ(lua::adapt_source51("return a.b:goto(1), t:goto(), t:goto'x'").code,
            "return __redsim_self51(a.b, \"goto\", 1.0), __redsim_self51(t, \"goto\"), "
            "__redsim_self51(t, \"goto\", 'x')");
  EXPECT_EQ(lua::adapt_source51("function t.a:goto(x) end function t.goto() end").code,
            " t.a[\"goto\"] = function(self, x) end  t[\"goto\"] = function() end");
  // The first zero of a function decides: later zeros of the other sign
  // are rewritten, other functions have their own.
  EXPECT_EQ(
      lua::adapt_source51("local a = 0 local b = -0 local f = function() return -0, 0 end").code,
      "local a = 0.0 local b = 0.0 local f = function() return -0.0, (-0.0) end");
  EXPECT_EQ(lua::adapt_source51("local a = 1 - 0 local b = -0").code,
            "local a = 1.0 - 0.0 local b = -0.0");
}

// A rewrite that 5.4 cannot parse would make the engine fall back to the
// literal-only rewrite (integers again) without a word: every script that
// parses without the number model must parse with it.
TEST_F(Lua51Test, TheNumberModelRewriteKeepsScriptsParsable) {
  std::vector<std::string> scripts = {
      "return #t, #t[1], #t.x.y, #f(), #f{1}, #f'x', #(t), #t^2, -#t, not #t, #-x",
      "return #t .. #u .. 'x', {#t, [#t] = #t}, t[#t + 1], f(#t, #t)",
      "local a = #KEYS > 0 and #ARGV or 0 return a",
      "for i = #t, 1, -1 do end for i = 1, #t do end while #t > 0 do t[#t] = nil end",
      "return #t:goto(), a.b:goto{1}:goto'x', (t):goto(#t), t[1]:goto()",
      "local t = {} function t:goto(a, b) return a end function t.a() end return t:goto(1)",
      "local t = {a = {}} function t.a:goto() return self end function t.a.goto(x) end",
      "local a, b, c = 0, -0, - - 0 return -0 .. 0, {0, -0}, 1 - 0, 0 - 1, x-0, -0^2, 2^-0",
      "return #...",
      "return #{...}",
      "return # 'abc' .. #\"d\"",
      "local s = 'x' return s:len() + #s, ('#'):rep(#s)",
      "return t[i % 2], f(a) % g(b), -a % -b, a % b ^ c, x.y:z() % 3, ('a'):len() % 2 .. 'x'",
      "return a * b % c / d % e, (a % b), f{a % b}, not a % b, a % #t[1] % 2, 1 + a % b - 3",
      "if a % 2 == 0 then return a % b < c % d end local x = {[a % 2] = b % 3}",
  };
  for (const std::string& script : lua51::seeded_number_scripts(7, 50)) scripts.push_back(script);
  for (auto fn : {lua51::number_cases, lua51::library_number_cases, lua51::goto_and_zero_cases,
                  lua51::modulo_cases, lua51::limit_cases, lua51::msgpack_struct_cases,
                  lua51::random_cases}) {
    for (const lua51::Case& c : fn()) scripts.push_back(c.script);
  }
  lua_State* L = luaL_newstate();
  for (const std::string& script : scripts) {
    std::string plain = lua::adapt_source51(script, false).code;
    bool parses = luaL_loadbufferx(L, plain.data(), plain.size(), "=s", "t") == LUA_OK;
    lua_settop(L, 0);
    if (!parses) continue;
    std::string model = lua::adapt_source51(script).code;
    EXPECT_EQ(luaL_loadbufferx(L, model.data(), model.size(), "=s", "t"), LUA_OK)
        << script << "\n"
        << model << "\n"
        << lua_tostring(L, -1);
    lua_settop(L, 0);
  }
  lua_close(L);
}

TEST_F(Lua51Test, AFiveFourErrorOnAnEarlierLineComesFirst) {
  EXPECT_EQ(eval("x = = 1\nreturn 1 & 2"),
            Err("ERR Error compiling script (new function): user_script:1: unexpected symbol "
                "near '='"));
}

}  // namespace
}  // namespace redsim::sim

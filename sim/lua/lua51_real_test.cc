// Redis's Lua 5.1 against a real redis-server 7.0 (started on a free
// loopback port): every script below is EVALed on both and must give the
// same reply, error texts included. Covers what sim/lua/lua51_test.cc pins
// as values: 5.1 syntax refusals, double-only numbers, unpack and call
// depth limits, math.random, and cmsgpack / struct byte for byte over a
// seeded list of values.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

#include "lock/hiredis/reply_conversion.h"
#include "sim/lua/lua51_scripts.h"
#include "sim/server.h"
#include "sim/sim_test_util.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::sim {
namespace {

class RealRedis {
 public:
  RealRedis() : ctx_(redisConnect(server_.host().c_str(), server_.port())) {}
  ~RealRedis() { redisFree(ctx_); }
  resp::Reply eval(const std::string& script) { return command({"EVAL", script, "0"}); }
  resp::Reply command(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(), lens.data()));
    if (r == nullptr) return resp::Reply::error("connection failed");
    resp::Reply out = lock::to_reply(*r);
    freeReplyObject(r);
    return out;
  }

 private:
  redsim::testing::RedisServerProcess server_;
  redisContext* ctx_;
};

class Lua51Real : public ::testing::Test {
 protected:
  // Each script on both: the real server must still give the pinned reply,
  // and the fake what the real server gives.
  void compare(const std::vector<lua51::Case>& cases) {
    auto fake = server_.connect();
    for (const lua51::Case& c : cases) {
      resp::Reply real = real_.eval(c.script);
      EXPECT_EQ(real, c.want) << "pinned reply is stale: " << c.script;
      EXPECT_EQ(server_.execute(*fake, {"EVAL", c.script, "0"}), real) << c.script;
    }
  }
  ManualClock clock_;
  Server server_{clock_};
  RealRedis real_;
};

TEST_F(Lua51Real, SyntaxNewerThanFiveOneIsRefusedAlike) { compare(lua51::syntax_cases()); }
TEST_F(Lua51Real, NumbersAreDoubles) { compare(lua51::number_cases()); }
TEST_F(Lua51Real, LibraryAndBridgeNumbersAreDoubles) { compare(lua51::library_number_cases()); }
TEST_F(Lua51Real, ModuloIsFiveOnes) { compare(lua51::modulo_cases()); }
// Numbers from every source through every operator: the fake must print
// and convert each result as the real server does.
TEST_F(Lua51Real, SeededNumberExpressions) {
  auto fake = server_.connect();
  for (const std::string& script : lua51::seeded_number_scripts(20261124, 400)) {
    resp::Reply real = real_.eval(script);
    EXPECT_EQ(server_.execute(*fake, {"EVAL", script, "0"}), real) << script;
  }
}
TEST_F(Lua51Real, GotoMethodsAndTheSharedZeroConstant) { compare(lua51::goto_and_zero_cases()); }
TEST_F(Lua51Real, LengthIgnoresLenAndNamesItsOperand) { compare(lua51::length_cases()); }
TEST_F(Lua51Real, StringArithmeticErrorsNameTheOperandAsFiveOne) {
  compare(lua51::string_arith_cases());
}
TEST_F(Lua51Real, ArithmeticNamesFollowFiveOnesScopes) { compare(lua51::arith_naming_cases()); }
TEST_F(Lua51Real, StringArithmeticInFunctionsNamesTheOperandAsFiveOne) {
  auto fake = server_.connect();
  const std::vector<std::vector<std::string>> commands = {
      {"FUNCTION", "LOAD", "REPLACE", lua51::kArithLibrary},
      {"FCALL", "af", "0", "abc"},
      {"FCALL", "ag", "0", "abc"},
      {"FCALL", "af", "0", "4"},
      {"FUNCTION", "LOAD", "REPLACE", lua51::kArithLoadLibrary},
  };
  const resp::Reply pinned[] = {resp::Reply::bulk("arithlib"),
                                resp::Reply::error(lua51::kArithAfError),
                                resp::Reply::error(lua51::kArithAgError), resp::Reply::integer(8),
                                resp::Reply::error(lua51::kArithLoadError)};
  for (size_t i = 0; i < commands.size(); ++i) {
    resp::Reply real = real_.command(commands[i]);
    EXPECT_EQ(real, pinned[i]) << "pinned reply is stale: " << commands[i][1];
    EXPECT_EQ(server_.execute(*fake, Argv(commands[i].begin(), commands[i].end())), real)
        << commands[i][1];
  }
}
TEST_F(Lua51Real, UnpackAndCallDepthLimits) { compare(lua51::limit_cases()); }
TEST_F(Lua51Real, UnpackedMapsRepackInFiveOneOrder) { compare(lua51::msgpack_roundtrip_cases()); }
TEST_F(Lua51Real, CmsgpackAndStructByteForByte) {
  compare(lua51::msgpack_struct_cases());
  // A seeded list of values: the fake must pack (and repack what it
  // unpacked) exactly as the real server does.
  auto fake = server_.connect();
  for (const std::string& script : lua51::seeded_pack_scripts(20261124, 300)) {
    resp::Reply real = real_.eval(script);
    ASSERT_FALSE(real.is_error()) << real.str() << "\n" << script;
    EXPECT_EQ(server_.execute(*fake, {"EVAL", script, "0"}), real) << script;
  }
}
// A fresh server each: the sequence starts from rand48's initial state.
TEST_F(Lua51Real, MathRandomSequence) { compare(lua51::random_cases()); }

}  // namespace
}  // namespace redsim::sim

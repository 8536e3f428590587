// A busy script over real sockets: redsim server on the wall clock (as
// `redsim server --clock real`), busy-reply-threshold set to 100 ms with
// CONFIG SET; one connection runs an endless script, the others get BUSY
// and SCRIPT KILL ends it. Texts are redis-server 7.0.15's for the same
// sequence with two redis-cli.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "sim/clock.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/server/server_test_util.h"
#include "tools/server/tcp_server.h"
#include "tools/server/wall_clock.h"

namespace redsim::server {
namespace {

constexpr const char* kBusyLine =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
constexpr const char* kKilledPrefix = "-ERR Script killed by user with SCRIPT KILL... script: ";
constexpr const char* kForever = "local i = 0 while true do i = i + 1 end";

using testing_util::RawClient;
using testing_util::ServingThread;

class BusyScriptTest : public ::testing::Test {
 protected:
  static sim::ServerOptions options() {
    sim::ServerOptions o;
    o.script_time = sim::ScriptTime::kClock;
    return o;
  }
  void stop() { serving_.stop(); }

  WallClock clock_;
  sim::Server fake_{clock_, options()};
  ServingThread serving_{fake_, {.bind = "127.0.0.1", .port = 0, .wall_clock = true}};
  int port_ = serving_.port();
};

// On `a`: busy-reply-threshold set to threshold_ms (its +OK checked), then
// EVAL script with no keys; the script's reply is read by the test.
void start_script(RawClient& a, const std::string& threshold_ms, const std::string& script) {
  a.command({"CONFIG", "SET", "busy-reply-threshold", threshold_ms});
  EXPECT_EQ(a.line(), "+OK\r\n");
  a.command({"EVAL", script, "0"});
}

TEST_F(BusyScriptTest, OthersGetBusyAndScriptKillEndsTheScript) {
  RawClient a(port_);
  RawClient b(port_);
  start_script(a, "100", kForever);
  // B is read once the script has run 100 ms; a connection opened while
  // the script runs is served too.
  b.command({"PING"});
  EXPECT_EQ(b.line(), kBusyLine);
  RawClient c(port_);
  c.command({"GET", "k"});
  EXPECT_EQ(c.line(), kBusyLine);
  b.command({"SCRIPT", "KILL", "x"});
  EXPECT_EQ(b.line(), "-ERR wrong number of arguments for 'script|kill' command\r\n");
  b.command({"SCRIPT", "KILL"});
  EXPECT_EQ(b.line(), "+OK\r\n");
  std::string killed = a.line();
  EXPECT_TRUE(killed.starts_with(kKilledPrefix)) << killed;
  EXPECT_TRUE(killed.ends_with(", on @user_script:1.\r\n")) << killed;
  // Everyone is served again.
  a.command({"PING"});
  EXPECT_EQ(a.line(), "+PONG\r\n");
  b.command({"SCRIPT", "KILL"});
  EXPECT_EQ(b.line(), "-NOTBUSY No scripts in execution right now.\r\n");
  c.command({"PING"});
  EXPECT_EQ(c.line(), "+PONG\r\n");
}

TEST_F(BusyScriptTest, ScriptThatWroteIsUnkillableAndStopEndsIt) {
  RawClient a(port_);
  RawClient b(port_);
  start_script(a, "100", "redis.call('set', 'k', 'v') while true do end");
  b.command({"SCRIPT", "KILL"});
  EXPECT_EQ(b.line(),
            "-UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.\r\n");
  // Stopping the server (SIGINT / SIGTERM in redsim server) ends the script.
  stop();
  EXPECT_TRUE(a.line().starts_with(kKilledPrefix));
}

// Issue 15, item 4: the UNKILLABLE hint works. Replies from redis-server
// 7.0.15 for the same sequence; SHUTDOWN NOSAVE closes everything unanswered.
TEST_F(BusyScriptTest, ShutdownNosaveStopsTheServerDuringAnUnkillableScript) {
  RawClient a(port_);
  RawClient b(port_);
  start_script(a, "100", "redis.call('set', 'k', 'v') while true do end");
  b.command({"SCRIPT", "KILL"});
  EXPECT_TRUE(b.line().starts_with("-UNKILLABLE "));
  b.command({"SHUTDOWN"});
  EXPECT_EQ(b.line(), kBusyLine);
  b.command({"SHUTDOWN", "ABORT"});
  EXPECT_EQ(b.line(), "-ERR No shutdown in progress.\r\n");
  b.command({"SHUTDOWN", "NOSAVE"});
  EXPECT_TRUE(b.closed_by_server());
  EXPECT_TRUE(a.closed_by_server());
  // The server's thread set the flag: join it before reading (ThreadSanitizer
  // saw the read race with the write, a closed socket being no happens-before).
  stop();
  EXPECT_TRUE(fake_.shutdown_requested());
}

// Issue 15, item 2: a stop (SIGTERM in redsim server) ends a script that
// runs with busy-reply-threshold 0 (no BUSY, no SCRIPT KILL possible) and
// a DEBUG SLEEP of a day. Either would hang this test if it did not.
TEST_F(BusyScriptTest, StopEndsAScriptWithoutTimeLimit) {
  RawClient a(port_);
  start_script(a, "0", kForever);
  RawClient b(port_);  // accepted only after the script: it is not read meanwhile
  stop();
  EXPECT_TRUE(a.line().starts_with(kKilledPrefix));
  EXPECT_TRUE(a.closed_by_server());
}

TEST_F(BusyScriptTest, StopEndsADebugSleep) {
  clock_.set_interrupt_fd(serving_.tcp().interrupt_fd());
  RawClient a(port_);
  a.command({"PING"});
  EXPECT_EQ(a.line(), "+PONG\r\n");
  a.command({"DEBUG", "SLEEP", "86400"});
  stop();
  EXPECT_EQ(a.line(), "+OK\r\n");
  EXPECT_TRUE(a.closed_by_server());
}

// `redsim server --clock virtual`: the clock cannot move during a script,
// so busy-reply-threshold counts the instruction-charged time.
TEST(BusyScriptVirtualClock, ThresholdCountsLuaInstructions) {
  sim::ManualClock clock;
  sim::Server fake(clock);  // ScriptTime::kInstructions
  ServingThread serving(fake, {.bind = "127.0.0.1", .port = 0});
  const int port = serving.port();
  {
    RawClient a(port);
    RawClient b(port);
    start_script(a, "50", kForever);
    b.command({"PING"});
    EXPECT_EQ(b.line(), kBusyLine);
    b.command({"SCRIPT", "KILL"});
    EXPECT_EQ(b.line(), "+OK\r\n");
    EXPECT_TRUE(a.line().starts_with(kKilledPrefix));
  }
  serving.stop();
}

}  // namespace
}  // namespace redsim::server

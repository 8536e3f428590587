// A busy script over real sockets: redsim server on the wall clock (as
// `redsim server --clock real`), busy-reply-threshold set to 100 ms with
// CONFIG SET; one connection runs an endless script, the others get BUSY
// and SCRIPT KILL ends it. Texts are redis-server 7.0.15's for the same
// sequence with two redis-cli.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "sim/clock.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/server/tcp_server.h"
#include "tools/server/wall_clock.h"

namespace redsim::server {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr const char* kBusyLine =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
constexpr const char* kKilledPrefix = "-ERR Script killed by user with SCRIPT KILL... script: ";
constexpr const char* kForever = "local i = 0 while true do i = i + 1 end";

class LineClient {
 public:
  explicit LineClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  }
  ~LineClient() { ::close(fd_); }
  LineClient(const LineClient&) = delete;
  LineClient& operator=(const LineClient&) = delete;

  void command(const std::vector<std::string>& argv) {
    std::string bytes = resp::encode_command(argv);
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // One reply line with its CRLF; what came so far if nothing more comes
  // for 10 s.
  std::string line() {
    std::string out;
    while (!out.ends_with("\r\n")) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, kTimeoutMs) <= 0) break;
      char c;
      if (::recv(fd_, &c, 1, 0) != 1) break;
      out += c;
    }
    return out;
  }

 private:
  int fd_ = -1;
};

class BusyScriptTest : public ::testing::Test {
 protected:
  BusyScriptTest()
      : fake_(clock_, options()),
        tcp_(fake_, {.bind = "127.0.0.1", .port = 0, .wall_clock = true}) {
    port_ = tcp_.listen();
    thread_ = std::thread([this] { tcp_.run(); });
  }
  ~BusyScriptTest() override { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    tcp_.request_stop();
    thread_.join();
  }
  static sim::ServerOptions options() {
    sim::ServerOptions o;
    o.script_time = sim::ScriptTime::kClock;
    return o;
  }

  WallClock clock_;
  sim::Server fake_;
  TcpServer tcp_;
  int port_ = 0;
  std::thread thread_;
};

TEST_F(BusyScriptTest, OthersGetBusyAndScriptKillEndsTheScript) {
  LineClient a(port_);
  LineClient b(port_);
  a.command({"CONFIG", "SET", "busy-reply-threshold", "100"});
  EXPECT_EQ(a.line(), "+OK\r\n");
  a.command({"EVAL", kForever, "0"});
  // B is read once the script has run 100 ms; a connection opened while
  // the script runs is served too.
  b.command({"PING"});
  EXPECT_EQ(b.line(), kBusyLine);
  LineClient c(port_);
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
  LineClient a(port_);
  LineClient b(port_);
  a.command({"CONFIG", "SET", "busy-reply-threshold", "100"});
  EXPECT_EQ(a.line(), "+OK\r\n");
  a.command({"EVAL", "redis.call('set', 'k', 'v') while true do end", "0"});
  b.command({"SCRIPT", "KILL"});
  EXPECT_EQ(b.line(),
            "-UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.\r\n");
  // Stopping the server (SIGINT / SIGTERM in redsim server) ends the script.
  stop();
  EXPECT_TRUE(a.line().starts_with(kKilledPrefix));
}

// `redsim server --clock virtual`: the clock cannot move during a script,
// so busy-reply-threshold counts the instruction-charged time.
TEST(BusyScriptVirtualClock, ThresholdCountsLuaInstructions) {
  sim::ManualClock clock;
  sim::Server fake(clock);  // ScriptTime::kInstructions
  TcpServer tcp(fake, {.bind = "127.0.0.1", .port = 0});
  int port = tcp.listen();
  std::thread thread([&] { tcp.run(); });
  {
    LineClient a(port);
    LineClient b(port);
    a.command({"CONFIG", "SET", "busy-reply-threshold", "50"});
    EXPECT_EQ(a.line(), "+OK\r\n");
    a.command({"EVAL", kForever, "0"});
    b.command({"PING"});
    EXPECT_EQ(b.line(), kBusyLine);
    b.command({"SCRIPT", "KILL"});
    EXPECT_EQ(b.line(), "+OK\r\n");
    EXPECT_TRUE(a.line().starts_with(kKilledPrefix));
  }
  tcp.request_stop();
  thread.join();
}

}  // namespace
}  // namespace redsim::server

#include "tools/testing/redis_server_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <vector>

namespace redsim::testing {
namespace {

using std::chrono::milliseconds;

std::string ask(const RedisServerProcess& redis, const std::string& command) {
  return send_inline_command(redis.port(), command, milliseconds(2000));
}

TEST(RedisServerProcess, StartsAnswersAndStops) {
  uint16_t port = 0;
  pid_t pid = -1;
  {
    RedisServerProcess redis;
    port = redis.port();
    pid = redis.pid();
    ASSERT_TRUE(redis.running());
    EXPECT_EQ(redis.url(), "redis://127.0.0.1:" + std::to_string(port));
    EXPECT_EQ(ask(redis, "PING"), "+PONG");
    EXPECT_EQ(ask(redis, "CONFIG GET save"), "*2") << "persistence off";
    EXPECT_EQ(ask(redis, "SET k v"), "+OK");
    EXPECT_EQ(ask(redis, "DEBUG SLEEP 0"), "+OK") << "debug command enabled";
  }
  EXPECT_EQ(send_inline_command(port, "PING", milliseconds(200)), "") << "stopped";
  EXPECT_NE(::kill(pid, 0), 0) << "child reaped";
}

TEST(RedisServerProcess, SeveralAtOnceOnDistinctPorts) {
  std::vector<std::unique_ptr<RedisServerProcess>> servers;
  std::set<uint16_t> ports;
  for (int i = 0; i < 3; ++i) {
    servers.push_back(std::make_unique<RedisServerProcess>());
    ports.insert(servers.back()->port());
  }
  EXPECT_EQ(ports.size(), 3u);
  for (auto& s : servers) EXPECT_EQ(ask(*s, "PING"), "+PONG");
}

TEST(RedisServerProcess, RestartKeepsThePortAndEmptiesTheData) {
  RedisServerProcess redis;
  const uint16_t port = redis.port();
  ASSERT_EQ(ask(redis, "SET k v"), "+OK");
  redis.restart();
  EXPECT_EQ(redis.port(), port);
  EXPECT_EQ(ask(redis, "EXISTS k"), ":0");
}

TEST(RedisServerProcess, KillThenStartAgain) {
  RedisServerProcess redis;
  redis.kill();
  EXPECT_FALSE(redis.running());
  EXPECT_EQ(send_inline_command(redis.port(), "PING", milliseconds(200)), "");
  redis.start();
  EXPECT_EQ(ask(redis, "PING"), "+PONG");
}

TEST(RedisServerProcess, DiesWithTheProcessThatStartedIt) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a test process that dies without running destructors
    ::close(fds[0]);
    auto* redis = new RedisServerProcess();
    const uint16_t port = redis->port();
    [[maybe_unused]] const ssize_t n = ::write(fds[1], &port, sizeof port);
    ::_exit(0);
  }
  ::close(fds[1]);
  uint16_t port = 0;
  ASSERT_EQ(::read(fds[0], &port, sizeof port), static_cast<ssize_t>(sizeof port));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::string pong = "+PONG";
  for (int i = 0; i < 200 && !pong.empty(); ++i) {
    pong = send_inline_command(port, "PING", milliseconds(100));
    if (!pong.empty()) ::usleep(10000);
  }
  EXPECT_EQ(pong, "") << "redis-server on port " << port << " outlived its parent";
}

TEST(RedisServerProcess, DebugCommandCanBeLeftOff) {
  RedisServerOptions options;
  options.enable_debug_command = false;
  RedisServerProcess redis(options);
  EXPECT_EQ(ask(redis, "DEBUG SLEEP 0").rfind("-ERR", 0), 0u);
}

TEST(RedisServerProcess, MissingBinaryIsAClearError) {
  try {
    RedisServerOptions options;
    options.binary = "/nonexistent/redis-server";
    RedisServerProcess redis(options);
    FAIL() << "expected RedisServerError";
  } catch (const RedisServerError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/redis-server"), std::string::npos);
  }
}

}  // namespace
}  // namespace redsim::testing

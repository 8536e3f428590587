// RedisServerProcess: a real redis-server (Debian's /usr/bin/redis-server
// 7.0) started as a child of the test or benchmark process, on a free
// loopback port, for as long as the object lives. Internal to the build
// (target redsim_redis_server_process), not part of the installed package.
//
//   testing::RedisServerProcess redis;              // started, answers PING
//   lock::HiredisEnv env({.port = redis.port()});    // or HiredisOptions::parse_url(redis.url())
//   ...
//   redis.restart();                                // same port, empty dataset
//   // ~RedisServerProcess: SHUTDOWN NOSAVE, SIGKILL after the grace period, waitpid
//
// The server runs with persistence off (--save '' --appendonly no), bound to
// 127.0.0.1, not daemonized. Its port is found by binding port 0 and
// releasing it; if the server cannot take it (another process won the race),
// a new port is drawn and the start retried. Several servers may run at once
// (Redlock tests start 3-5).
//
// The child is started with fork/exec and PR_SET_PDEATHSIG(SIGKILL), so it
// dies when the test process dies, even by SIGKILL. Linux sends that signal
// when the *thread* that started the child exits, so create servers on a
// thread that outlives them (the main thread, a gtest Environment, a fixture).
//
// Readiness is +PONG, or -NOAUTH for a server given --requirepass in
// extra_args (stop() then falls back to SIGTERM, Redis's other shutdown),
// from our child: the answer counts only when /proc shows the child holding
// the socket that listens on the port (another test's server may have taken
// the port first; then our child exits and a new port is drawn).
//
// Errors: the constructor, start() and restart() throw RedisServerError when
// the binary is missing, the child exits, or it does not answer PING within
// options.start_timeout (after options.port_attempts ports).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace redsim::testing {

class RedisServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisServerOptions {
  std::string binary = "/usr/bin/redis-server";
  // --enable-debug-command yes: lets tests send DEBUG SLEEP and friends.
  bool enable_debug_command = true;
  // Appended to the command line, e.g. {"--maxmemory", "10mb"}.
  std::vector<std::string> extra_args;
  // How long start() waits for +PONG.
  std::chrono::milliseconds start_timeout{10000};
  // How long stop() waits after SHUTDOWN NOSAVE before SIGKILL.
  std::chrono::milliseconds stop_grace{2000};
  // Fresh ports tried before start() gives up.
  int port_attempts = 5;
};

class RedisServerProcess {
 public:
  // Starts a server at once (see start()).
  explicit RedisServerProcess(RedisServerOptions options = {});
  // Stops it (stop()); never throws.
  ~RedisServerProcess();
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  // "127.0.0.1".
  const std::string& host() const { return host_; }
  // The TCP port; stays the same across restart().
  uint16_t port() const { return port_; }
  // "redis://127.0.0.1:<port>".
  std::string url() const;
  // The child's pid, or -1 when stopped.
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // Starts the server if it is not running: on a new free port the first
  // time, on the same port after stop(). Returns once it answers PING.
  void start();
  // SHUTDOWN NOSAVE, then SIGKILL after options.stop_grace, then waitpid.
  // Idempotent; never throws.
  void stop() noexcept;
  // SIGKILL at once and waitpid (a crash, as a fault).
  void kill() noexcept;
  // stop() then start() on the same port: an empty server, same address.
  void restart();

  // True when `binary` exists and is executable (for a clear skip message).
  static bool available(const std::string& binary = "/usr/bin/redis-server");

 private:
  // One attempt on port_: false when the child exited before answering
  // (port taken); throws RedisServerError on other failures.
  bool try_start();
  bool wait_exit(std::chrono::milliseconds within) noexcept;

  RedisServerOptions options_;
  std::string host_ = "127.0.0.1";
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

// A free TCP port on 127.0.0.1 right now (bound with port 0, then released).
// Throws RedisServerError when no socket can be bound.
uint16_t free_loopback_port();

// A loopback port that refuses connections for as long as the object lives:
// a socket bound to it without listen() (and without SO_REUSEADDR), so no
// other process can start listening there meanwhile. For tests of
// "connection refused"; a released free_loopback_port() may be taken by a
// concurrent test's server. Throws RedisServerError when no socket binds.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// Sends one inline command ("PING", "SHUTDOWN NOSAVE") to 127.0.0.1:port and
// returns the first reply line without CRLF ("+PONG"); empty when the
// connection fails or no reply came within `timeout`.
std::string send_inline_command(uint16_t port, const std::string& command,
                                std::chrono::milliseconds timeout);

}  // namespace redsim::testing

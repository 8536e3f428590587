// ZookeeperServerProcess: a real ZooKeeper server (Debian's zookeeper 3.8,
// standalone: org.apache.zookeeper.server.ZooKeeperServerMain on
// /usr/share/java/zookeeper.jar) started as a child of the test or
// benchmark process, on a free loopback port, with a data directory of its
// own, for as long as the object lives. Internal to the build (target
// redsim_redis_server_process, the test support library), not installed.
//
//   testing::ZookeeperServerProcess zk;
//   if (!zk.start()) GTEST_SKIP() << zk.why_not();
//   auto client = lock::ZookeeperClient::connect(zk.hosts(), 4s);
//   // ~ZookeeperServerProcess: SIGTERM, waitpid, the data directory removed
//
// tickTime is 200 ms, so sessions may last 400 ms .. 4 s (2 and 20 ticks).
// The child gets PR_SET_PDEATHSIG(SIGKILL) as RedisServerProcess's does: it
// dies with the thread that started it. Ready means the four-letter word
// isro answers "rw" (ZooKeeper accepts connections before it serves, and
// drops sessions until then).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace redsim::testing {

class ZookeeperServerProcess {
 public:
  ZookeeperServerProcess() = default;
  ~ZookeeperServerProcess() { stop(); }
  ZookeeperServerProcess(const ZookeeperServerProcess&) = delete;
  ZookeeperServerProcess& operator=(const ZookeeperServerProcess&) = delete;

  // Starts the server and waits up to `timeout` until it serves. False (and
  // why_not() says why) when java or the jar is missing, the child exits,
  // or it does not serve in time; nothing is left running then.
  bool start(std::chrono::milliseconds timeout = std::chrono::milliseconds(60000));
  void stop() noexcept;
  // "127.0.0.1:<port>", for ZookeeperClient::connect.
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }
  uint16_t port() const { return port_; }
  const std::string& why_not() const { return why_not_; }

 private:
  bool serving() const;

  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string dir_;
  std::string why_not_ = "not started";
};

}  // namespace redsim::testing

// InterProcessMutex against a real ZooKeeper: Debian's zookeeper server
// (ZooKeeperServerMain, standalone) started on a free loopback port with a
// data directory of its own, the recipe through the C client
// (ZookeeperClient), lock::HiredisEnv for threads, clock and events (it never
// connects to Redis: the recipe calls no Redis command). Fault-free cases
// only: the faults are the simulation's (sim/world/zk_world.h).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lock/hiredis/hiredis_env.h"
#include "lock/zk_mutex.h"
#include "lock/zookeeper/zookeeper_client.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::lock {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

constexpr const char* kJar = "/usr/share/java/zookeeper.jar";
constexpr const char* kJava = "/usr/bin/java";
constexpr const char* kPath = "/locks/real";

// One standalone server for the suite: tickTime 200 ms, so sessions may be
// 400 ms .. 4 s.
class ZkServer {
 public:
  bool start() {
    if (!fs::exists(kJar) || !fs::exists(kJava)) return false;
    port_ = testing::free_loopback_port();
    char tmpl[] = "/tmp/redsim-zk-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return false;
    dir_ = tmpl;
    const std::string port = std::to_string(port_);
    // Pushed one by one: gcc 12 warns falsely (-Warray-bounds) on an
    // initializer list of strings built here.
    std::vector<std::string> args;
    for (const char* a : {kJava, "-Xmx256m", "-Dzookeeper.admin.enableServer=false",
                          "-Dzookeeper.4lw.commands.whitelist=isro", "-cp",
                          "/usr/share/java/zookeeper.jar:/etc/zookeeper/conf",
                          "org.apache.zookeeper.server.ZooKeeperServerMain"}) {
      args.emplace_back(a);
    }
    args.push_back(port);
    args.push_back(dir_);
    args.emplace_back("200");  // tickTime, ms
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = dir_ + "/server.log";
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      if (FILE* f = std::freopen(log.c_str(), "w", stdout)) (void)f;
      ::dup2(STDOUT_FILENO, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // The JVM takes a few seconds: wait for the port, then for a session.
    for (int i = 0; i < 300 && !accepting(); ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    return ZookeeperClient::connect(hosts(), milliseconds(2000), milliseconds(10000)) != nullptr;
  }
  // ZooKeeper's four-letter word isro: "rw" once it serves ("null" before;
  // it accepts connections earlier and drops sessions, which the C client
  // logs as errors).
  // The answer has no line end: read until the server closes.
  bool accepting() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::send(fd, "isro", 4, MSG_NOSIGNAL) == 4) {
      char buf[64];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return answer == "rw";
  }
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string dir_;
};

class ZkMutexReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ZkServer;
    up_ = server_->start();
  }
  static void TearDownTestSuite() {
    server_->stop();
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!up_) GTEST_SKIP() << "no ZooKeeper server (apt-get install zookeeper)";
  }
  std::unique_ptr<ZookeeperClient> client() {
    auto c = ZookeeperClient::connect(server_->hosts(), milliseconds(4000));
    if (c) {
      (void)c->create("/locks", "", ZkMode::kPersistent);
      (void)c->create(kPath, "", ZkMode::kPersistent);
    }
    return c;
  }
  // Only its clock, sleeps, events and thread ids are used.
  HiredisEnv env_{HiredisOptions::parse_url("redis://127.0.0.1:1")};
  static ZkServer* server_;
  static bool up_;
};
ZkServer* ZkMutexReal::server_ = nullptr;
bool ZkMutexReal::up_ = false;

TEST_F(ZkMutexReal, ReentrantAndTheNodeGoesAtTheLastRelease) {
  auto zk = client();
  ASSERT_NE(zk, nullptr);
  InterProcessMutex m(env_, *zk, kPath);
  ASSERT_EQ(m.acquire(), true);
  const std::string path = m.lock_path().value();
  EXPECT_NE(path.find("/_c_"), std::string::npos);  // protected mode's GUID prefix
  ASSERT_EQ(m.acquire(milliseconds(100)), true);
  ASSERT_TRUE(m.release().has_value());
  EXPECT_TRUE(zk->exists(path).value().has_value());
  ASSERT_TRUE(m.release().has_value());
  EXPECT_FALSE(zk->exists(path).value().has_value());
}

TEST_F(ZkMutexReal, AWaiterWakesOnTheReleaseAndTokensIncrease) {
  auto a = client();
  auto b = client();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a->session_id(), b->session_id());
  InterProcessMutex ma(env_, *a, kPath);
  InterProcessMutex mb(env_, *b, kPath);
  ASSERT_EQ(ma.acquire(), true);
  const int64_t a_token = ma.token().value();
  std::atomic<bool> b_got{false};
  std::optional<int64_t> b_token;
  std::thread waiter([&] {
    auto got = mb.acquire(milliseconds(10000));
    b_got = got.has_value() && *got;
    b_token = mb.token();
    if (b_got) (void)mb.release();
  });
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_FALSE(b_got.load());  // B waits while A holds
  ASSERT_TRUE(ma.release().has_value());
  waiter.join();
  EXPECT_TRUE(b_got.load());
  ASSERT_TRUE(b_token.has_value());
  EXPECT_GT(*b_token, a_token);
}

TEST_F(ZkMutexReal, AcquireTimesOutAndDeletesItsNode) {
  auto a = client();
  auto b = client();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  InterProcessMutex ma(env_, *a, kPath);
  InterProcessMutex mb(env_, *b, kPath);
  ASSERT_EQ(ma.acquire(), true);
  EXPECT_EQ(mb.acquire(milliseconds(200)), false);
  auto kids = a->get_children(kPath);
  ASSERT_TRUE(kids.has_value());
  EXPECT_EQ(kids->size(), 1u);  // A's znode only
  ASSERT_TRUE(ma.release().has_value());
}

TEST_F(ZkMutexReal, ClosingTheHoldersSessionHandsTheLockOn) {
  auto a = client();
  auto b = client();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  InterProcessMutex ma(env_, *a, kPath);
  InterProcessMutex mb(env_, *b, kPath);
  ASSERT_EQ(ma.acquire(), true);
  std::atomic<bool> b_got{false};
  std::thread waiter([&] {
    auto got = mb.acquire(milliseconds(10000));
    b_got = got.has_value() && *got;
    if (b_got) (void)mb.release();
  });
  std::this_thread::sleep_for(milliseconds(200));
  a->close();  // its ephemeral znode goes with the session; B's watch fires
  waiter.join();
  EXPECT_TRUE(b_got.load());
  EXPECT_EQ(a->state(), ZkState::kLost);
}

TEST_F(ZkMutexReal, AWatchFiresOnceForTheDelete) {
  auto a = client();
  ASSERT_NE(a, nullptr);
  auto made = a->create(std::string(kPath) + "/w", "", ZkMode::kEphemeral);
  ASSERT_TRUE(made.has_value());
  std::atomic<int> fired{0};
  std::atomic<int> deleted{0};
  ASSERT_TRUE(a->get_data(*made, [&](const ZkEvent& e) {
                 ++fired;
                 deleted += e.type == ZkEvent::Type::kDeleted;
               }).has_value());
  ASSERT_TRUE(a->remove(*made).has_value());
  ASSERT_TRUE(a->create(*made, "", ZkMode::kEphemeral).has_value());
  ASSERT_TRUE(a->remove(*made).has_value());
  for (int i = 0; i < 100 && fired.load() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(fired.load(), 1);
  EXPECT_EQ(deleted.load(), 1);
}

}  // namespace
}  // namespace redsim::lock

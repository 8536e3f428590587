// InterProcessMutex against a real ZooKeeper: Debian's zookeeper server
// (testing::ZookeeperServerProcess: standalone, a free loopback port, a data
// directory of its own, stopped after the suite), the recipe through the C client
// (ZookeeperClient), lock::HiredisEnv for threads, clock and events (it never
// connects to Redis: the recipe calls no Redis command). Fault-free cases
// only: the faults are the simulation's (sim/world/zk_world.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lock/hiredis/hiredis_env.h"
#include "lock/zk_mutex.h"
#include "lock/zookeeper/zookeeper_client.h"
#include "tools/testing/zookeeper_server_process.h"

namespace redsim::lock {
namespace {

using std::chrono::milliseconds;

constexpr const char* kPath = "/locks/real";

class ZkMutexReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new testing::ZookeeperServerProcess;
    up_ = server_->start();
  }
  static void TearDownTestSuite() {
    server_->stop();
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!up_) GTEST_SKIP() << "no ZooKeeper server: " << server_->why_not();
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
  static testing::ZookeeperServerProcess* server_;
  static bool up_;
};
testing::ZookeeperServerProcess* ZkMutexReal::server_ = nullptr;
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

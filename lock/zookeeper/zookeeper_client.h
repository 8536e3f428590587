// ZookeeperClient: lock::ZkClient (lock/zk_client.h) for a real ZooKeeper
// server through its C client, libzookeeper_mt (Debian's
// libzookeeper-mt-dev 3.8): the synchronous calls zoo_create, zoo_delete,
// zoo_wget_children, zoo_wget and zoo_wexists, which block the calling
// thread. The recipe that runs on the simulated node (sim/world/zk_world.h)
// runs here unchanged, with any lock::Env for the clock, sleeps and events
// (lock::HiredisEnv: real threads and the steady clock).
//
//   auto zk = lock::ZookeeperClient::connect("127.0.0.1:2181", std::chrono::seconds(4));
//   lock::HiredisEnv env(...);                      // only its clock, sleeps, events
//   lock::InterProcessMutex m(env, *zk, "/locks/orders");
//
// Errors: ZooKeeper's codes map to lock::ZkCode one for one (ZCONNECTIONLOSS
// and ZOPERATIONTIMEOUT -> kConnectionLoss); anything else is kOther.
// Watchers run on the C client's completion thread, once for their znode
// event (and, with kSession, at every session event meanwhile, as the C
// client does); they must not block.
// Internal to the tests and benchmarks for now: not installed.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "lock/zk_client.h"

namespace redsim::lock {

class ZookeeperClient final : public ZkClient {
 public:
  // Opens a session with `hosts` ("host:port[,host:port]") and waits up to
  // `connect_timeout` for it; nullptr when it did not connect by then.
  static std::unique_ptr<ZookeeperClient> connect(
      const std::string& hosts, std::chrono::milliseconds session_timeout,
      std::chrono::milliseconds connect_timeout = std::chrono::milliseconds(10000));
  ~ZookeeperClient() override;  // close()
  ZookeeperClient(const ZookeeperClient&) = delete;
  ZookeeperClient& operator=(const ZookeeperClient&) = delete;

  std::expected<std::string, ZkCode> create(const std::string& path, const std::string& data,
                                            ZkMode mode) override;
  std::expected<void, ZkCode> remove(const std::string& path, int32_t version = -1) override;
  std::expected<std::vector<std::string>, ZkCode> get_children(const std::string& path,
                                                               ZkWatcher watcher = {}) override;
  std::expected<ZkStat, ZkCode> get_data(const std::string& path, ZkWatcher watcher = {}) override;
  std::expected<std::optional<ZkStat>, ZkCode> exists(const std::string& path,
                                                      ZkWatcher watcher = {}) override;
  int64_t session_id() const override;
  ZkState state() const override;
  void close() noexcept override;

  struct Impl;

 private:
  explicit ZookeeperClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace redsim::lock

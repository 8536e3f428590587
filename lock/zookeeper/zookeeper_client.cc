// ZookeeperClient (zookeeper_client.h): the C client's synchronous calls.
#define THREADED  // the synchronous API of libzookeeper_mt
#include "lock/zookeeper/zookeeper_client.h"

#include <zookeeper/zookeeper.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace redsim::lock {

namespace {

ZkCode code_of(int rc) {
  if (rc == ZNONODE) return ZkCode::kNoNode;
  if (rc == ZNODEEXISTS) return ZkCode::kNodeExists;
  if (rc == ZBADVERSION) return ZkCode::kBadVersion;
  if (rc == ZNOTEMPTY) return ZkCode::kNotEmpty;
  if (rc == ZNOCHILDRENFOREPHEMERALS) return ZkCode::kNoChildrenForEphemerals;
  if (rc == ZBADARGUMENTS) return ZkCode::kBadArguments;
  if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT) return ZkCode::kConnectionLoss;
  if (rc == ZSESSIONEXPIRED) return ZkCode::kSessionExpired;
  return ZkCode::kOther;
}

ZkStat stat_of(const struct Stat& s) {
  return ZkStat{s.czxid, s.mzxid, s.version, s.ephemeralOwner};
}

}  // namespace

struct ZookeeperClient::Impl {
  zhandle_t* zh = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  bool connected_once = false;
  bool closed = false;
  // Watch contexts the C client still holds, freed when they fire for good
  // or after zookeeper_close.
  struct Watch {
    Impl* impl;
    ZkWatcher fn;
  };
  std::set<Watch*> watches;

  Watch* hold(ZkWatcher fn) {
    if (!fn) return nullptr;
    auto* w = new Watch{this, std::move(fn)};
    std::lock_guard lock(mu);
    watches.insert(w);
    return w;
  }
  void drop(Watch* w) {
    if (w == nullptr) return;
    {
      std::lock_guard lock(mu);
      watches.erase(w);
    }
    delete w;
  }

  static void on_session(zhandle_t*, int type, int state, const char*, void* ctx) {
    auto* self = static_cast<Impl*>(ctx);
    if (type != ZOO_SESSION_EVENT) return;
    std::lock_guard lock(self->mu);
    if (state == ZOO_CONNECTED_STATE) self->connected_once = true;
    self->cv.notify_all();
  }

  static void on_watch(zhandle_t*, int type, int state, const char* path, void* ctx) {
    auto* w = static_cast<Watch*>(ctx);
    ZkEvent e;
    e.path = path != nullptr ? path : "";
    bool last = true;
    if (type == ZOO_SESSION_EVENT) {
      e.type = ZkEvent::Type::kSession;
      last = state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
    } else if (type == ZOO_CREATED_EVENT) {
      e.type = ZkEvent::Type::kCreated;
    } else if (type == ZOO_DELETED_EVENT) {
      e.type = ZkEvent::Type::kDeleted;
    } else if (type == ZOO_CHANGED_EVENT) {
      e.type = ZkEvent::Type::kDataChanged;
    } else if (type == ZOO_CHILD_EVENT) {
      e.type = ZkEvent::Type::kChildrenChanged;
    } else {
      e.type = ZkEvent::Type::kSession;  // ZOO_NOTWATCHING_EVENT: the watch is gone
    }
    w->fn(e);
    if (last) w->impl->drop(w);
  }
};

ZookeeperClient::ZookeeperClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<ZookeeperClient> ZookeeperClient::connect(
    const std::string& hosts, std::chrono::milliseconds session_timeout,
    std::chrono::milliseconds connect_timeout) {
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  auto impl = std::make_unique<Impl>();
  impl->zh = zookeeper_init(hosts.c_str(), &Impl::on_session,
                            static_cast<int>(session_timeout.count()), nullptr, impl.get(), 0);
  if (impl->zh == nullptr) return nullptr;
  std::unique_ptr<ZookeeperClient> client(new ZookeeperClient(std::move(impl)));
  std::unique_lock lock(client->impl_->mu);
  if (!client->impl_->cv.wait_for(lock, connect_timeout,
                                  [&] { return client->impl_->connected_once; })) {
    lock.unlock();
    return nullptr;  // the destructor closes the handle
  }
  return client;
}

ZookeeperClient::~ZookeeperClient() { close(); }

void ZookeeperClient::close() noexcept {
  if (impl_->closed) return;
  impl_->closed = true;
  zookeeper_close(impl_->zh);  // joins the client's threads
  for (Impl::Watch* w : impl_->watches) delete w;
  impl_->watches.clear();
}

std::expected<std::string, ZkCode> ZookeeperClient::create(const std::string& path,
                                                           const std::string& data, ZkMode mode) {
  int flags = ZOO_PERSISTENT;
  if (mode == ZkMode::kEphemeral) flags = ZOO_EPHEMERAL;
  if (mode == ZkMode::kPersistentSequential) flags = ZOO_PERSISTENT_SEQUENTIAL;
  if (mode == ZkMode::kEphemeralSequential) flags = ZOO_EPHEMERAL_SEQUENTIAL;
  std::vector<char> made(path.size() + 32);
  const int rc =
      zoo_create(impl_->zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                 &ZOO_OPEN_ACL_UNSAFE, flags, made.data(), static_cast<int>(made.size()));
  if (rc != ZOK) return std::unexpected(code_of(rc));
  return std::string(made.data());
}

std::expected<void, ZkCode> ZookeeperClient::remove(const std::string& path, int32_t version) {
  const int rc = zoo_delete(impl_->zh, path.c_str(), version);
  if (rc != ZOK) return std::unexpected(code_of(rc));
  return {};
}

std::expected<std::vector<std::string>, ZkCode> ZookeeperClient::get_children(
    const std::string& path, ZkWatcher watcher) {
  Impl::Watch* w = impl_->hold(std::move(watcher));
  struct String_vector kids {};
  const int rc =
      zoo_wget_children(impl_->zh, path.c_str(), w ? &Impl::on_watch : nullptr, w, &kids);
  if (rc != ZOK) {
    impl_->drop(w);  // the C client sets a child watch only on ZOK
    return std::unexpected(code_of(rc));
  }
  std::vector<std::string> names;
  for (int32_t i = 0; i < kids.count; ++i) names.emplace_back(kids.data[i]);
  deallocate_String_vector(&kids);
  return names;
}

std::expected<ZkStat, ZkCode> ZookeeperClient::get_data(const std::string& path,
                                                        ZkWatcher watcher) {
  Impl::Watch* w = impl_->hold(std::move(watcher));
  char buffer[1];
  int len = 0;  // the recipe reads no data
  struct Stat stat {};
  const int rc =
      zoo_wget(impl_->zh, path.c_str(), w ? &Impl::on_watch : nullptr, w, buffer, &len, &stat);
  if (rc != ZOK) {
    impl_->drop(w);  // a data watch is set only on ZOK
    return std::unexpected(code_of(rc));
  }
  return stat_of(stat);
}

std::expected<std::optional<ZkStat>, ZkCode> ZookeeperClient::exists(const std::string& path,
                                                                     ZkWatcher watcher) {
  Impl::Watch* w = impl_->hold(std::move(watcher));
  struct Stat stat {};
  const int rc = zoo_wexists(impl_->zh, path.c_str(), w ? &Impl::on_watch : nullptr, w, &stat);
  if (rc == ZNONODE) return std::optional<ZkStat>{};  // the watch is set: it fires on create
  if (rc != ZOK) {
    impl_->drop(w);
    return std::unexpected(code_of(rc));
  }
  return std::optional<ZkStat>{stat_of(stat)};
}

int64_t ZookeeperClient::session_id() const {
  const clientid_t* id = zoo_client_id(impl_->zh);
  return id != nullptr ? id->client_id : 0;
}

ZkState ZookeeperClient::state() const {
  if (impl_->closed) return ZkState::kLost;
  const int s = zoo_state(impl_->zh);
  if (s == ZOO_CONNECTED_STATE) return ZkState::kConnected;
  if (s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE) return ZkState::kLost;
  return ZkState::kSuspended;
}

}  // namespace redsim::lock

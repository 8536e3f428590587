// ZkClient: the port a ZooKeeper recipe is written against, beside lock::Env
// (which still gives it the clock, sleeps, events and the task id). One
// ZkClient is one ZooKeeper session (the C client's zhandle_t, the Java
// client's ZooKeeper object). The simulation implements it in
// sim/world/zk_world.h; a real ZooKeeper through the C client
// (libzookeeper-mt) implements the same calls.
//
//   lock::ZkClient& zk = ...;
//   auto made = zk.create("/locks/m/lock-", "", lock::ZkMode::kEphemeralSequential);
//   if (!made) ...  // made.error(): kConnectionLoss, kSessionExpired, kNoNode...
//   auto kids = zk.get_children("/locks/m");
//   zk.get_data("/locks/m/" + kids->front(), [&](const lock::ZkEvent&) { ev->signal(); });
//
// Calls block the calling task and return ZooKeeper's result code on failure
// (std::expected), as the C client's synchronous API does (zoo_create,
// zoo_delete, zoo_wget_children, zoo_wget, zoo_wexists). The two failures
// that matter to a lock (ZooKeeper Programmer's Guide, "ZooKeeper
// Sessions"; the Java client's KeeperException.ConnectionLossException and
// SessionExpiredException):
// - kConnectionLoss: the client lost its connection before the answer came.
//   The request may or may not have run on the server (a create may have
//   made its znode: Curator's protected mode exists for that). The session
//   may still be alive: the client reconnects on the next call, within the
//   session timeout.
// - kSessionExpired: the server expired the session (nothing heard from it
//   for the session timeout) or it was closed: its ephemeral znodes are
//   gone and every later call on this client fails the same way. A new
//   session needs a new client.
//
// Watches are one-shot (ZooKeeper Programmer's Guide, "ZooKeeper Watches"):
// a watcher runs once, on the client's event thread (the simulation: the
// scheduler), must not block, and typically signals a lock::Event. It also
// runs with kSession when the connection is lost or the session expires
// (the Java client hands every watcher a None event then); after a
// connection loss it stays registered and is set again on reconnect.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace redsim::lock {

enum class ZkCode : uint8_t {
  kNoNode,
  kNodeExists,
  kBadVersion,
  kNotEmpty,
  kNoChildrenForEphemerals,
  kBadArguments,
  kConnectionLoss,
  kSessionExpired,
  kOther,  // any other failure of a real client (its text went to Env::trace)
};

inline const char* zk_code_name(ZkCode c) {
  switch (c) {
    case ZkCode::kNoNode:
      return "NoNode";
    case ZkCode::kNodeExists:
      return "NodeExists";
    case ZkCode::kBadVersion:
      return "BadVersion";
    case ZkCode::kNotEmpty:
      return "NotEmpty";
    case ZkCode::kNoChildrenForEphemerals:
      return "NoChildrenForEphemerals";
    case ZkCode::kBadArguments:
      return "BadArguments";
    case ZkCode::kConnectionLoss:
      return "ConnectionLoss";
    case ZkCode::kSessionExpired:
      return "SessionExpired";
    case ZkCode::kOther:
      return "Other";
  }
  return "?";
}

enum class ZkMode : uint8_t {
  kPersistent,
  kEphemeral,
  kPersistentSequential,
  kEphemeralSequential
};

// What a watcher is told: a znode event, or kSession (connection lost or
// session expired; path empty).
struct ZkEvent {
  enum class Type : uint8_t { kCreated, kDeleted, kDataChanged, kChildrenChanged, kSession };
  Type type = Type::kSession;
  std::string path;
};
using ZkWatcher = std::function<void(const ZkEvent&)>;

struct ZkStat {
  int64_t czxid = 0;
  int64_t mzxid = 0;
  int32_t version = 0;
  int64_t ephemeral_owner = 0;  // the owning session, 0 for persistent
};

// What the client knows of its connection (Curator's ConnectionState):
// kConnected; kSuspended: the connection is lost (nothing heard for the read
// timeout, two thirds of the session timeout) and the session may or may not
// live; kLost: the session expired or was closed.
enum class ZkState : uint8_t { kConnected, kSuspended, kLost };

class ZkClient {
 public:
  virtual ~ZkClient() = default;
  // The path made (with its 10-digit sequence suffix for a sequential mode).
  virtual std::expected<std::string, ZkCode> create(const std::string& path,
                                                    const std::string& data, ZkMode mode) = 0;
  // delete; version -1: any.
  virtual std::expected<void, ZkCode> remove(const std::string& path, int32_t version = -1) = 0;
  // The children's names, in no promised order. A watcher is set only when
  // the znode exists (as ZooKeeper does).
  virtual std::expected<std::vector<std::string>, ZkCode> get_children(const std::string& path,
                                                                       ZkWatcher watcher = {}) = 0;
  // The znode's stat; the watcher is set only when it exists.
  virtual std::expected<ZkStat, ZkCode> get_data(const std::string& path,
                                                 ZkWatcher watcher = {}) = 0;
  // nullopt when absent; the watcher is set either way.
  virtual std::expected<std::optional<ZkStat>, ZkCode> exists(const std::string& path,
                                                              ZkWatcher watcher = {}) = 0;
  // The session id (0 before it is established).
  virtual int64_t session_id() const = 0;
  virtual ZkState state() const = 0;
  // closeSession: its ephemeral znodes go now. Idempotent; throws nothing.
  virtual void close() noexcept = 0;
};

}  // namespace redsim::lock

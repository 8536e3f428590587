// CoordinationNode: one ZooKeeper server as the lock recipes see it, as a
// deterministic state machine: sessions with timeouts, a tree of znodes
// (persistent, ephemeral, sequential), one-shot watches, a zxid per write.
// It is to ZooKeeper what sim::Server is to Redis: it owns no clock and no
// network; its owner (sim/world/zk_world.h) hands it the time of every
// request, carries requests, replies and watch notifications over the
// world's network, and asks it to expire sessions.
//
//   zk::CoordinationNode node;
//   auto s = node.open_session(/*now_us=*/0, /*timeout_us=*/1'000'000);
//   auto made = node.create(s.id, 10, "/locks/m/lock-", "", zk::Mode::kEphemeralSequential);
//   // made.path == "/locks/m/lock-0000000000"
//   node.expire_sessions(1'000'011);   // no request for 1 s: its ephemerals go,
//                                      // watches on them fire (NodeDeleted)
//
// Modelled (ZooKeeper Programmer's Guide, "ZooKeeper Sessions", "ZooKeeper
// Watches", "Ephemeral Nodes", "Sequence Nodes -- Unique Naming"):
// - a session lives while requests (pings included) reach the node at least
//   once per timeout; it expires at last-heard + timeout (ZooKeeper's
//   SessionTrackerImpl rounds that up to the next tickTime bucket: up to a
//   tick later). The timeout is negotiated into [min, max] (ZooKeeper's
//   2 and 20 tickTimes). Expiry or close deletes the session's ephemeral
//   znodes, firing the watches on them and on their parents;
// - a sequential znode gets its parent's cversion as a 10-digit, zero-padded
//   suffix ("%010d", ZooKeeper's PrepRequestProcessor): it grows with every
//   child created or deleted under that parent, so names sort in creation
//   order;
// - delete with a version (-1: any), NotEmpty for a znode with children,
//   NoChildrenForEphemerals when creating under an ephemeral;
// - watches are one-shot and per session: a data watch (exists, getData)
//   fires NodeCreated, NodeDataChanged or NodeDeleted; a child watch
//   (getChildren) fires NodeChildrenChanged, or NodeDeleted for its own
//   znode. A watch fires once and is gone;
// - every write gets the next zxid (czxid, mzxid of the znodes it touches).
// Not modelled: quorum replication (one node is the ensemble: a write is
// committed when it runs), setData/ACLs/multi/containers/TTL nodes, and the
// node's own crash. A leader change would show to a client as a connection
// loss (its server dropped it) followed by a reconnect that keeps the session
// when a new leader is elected within the session timeout; writes the old
// leader had not committed to a quorum would never have been acknowledged,
// so a client would see them as a connection loss during the request, as the
// protected-mode scenarios already do.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace redsim::zk {

using SessionId = int64_t;  // 0 is never a session

// ZooKeeper's result codes the recipes meet (the C client's ZOK, ZNONODE...).
enum class Err : uint8_t {
  kOk,
  kNoNode,
  kNodeExists,
  kBadVersion,
  kNotEmpty,
  kNoChildrenForEphemerals,
  kSessionExpired,
  kBadArguments,
};
// "ok", "no node", "node exists", "bad version", "not empty",
// "no children for ephemerals", "session expired", "bad arguments".
const char* err_name(Err e);

// CreateMode: EPHEMERAL dies with its session; SEQUENTIAL gets a suffix.
enum class Mode : uint8_t {
  kPersistent,
  kEphemeral,
  kPersistentSequential,
  kEphemeralSequential,
};

// The Stat fields the recipes read.
struct Stat {
  int64_t czxid = 0;  // zxid of the create
  int64_t mzxid = 0;  // zxid of the last data change
  int64_t pzxid = 0;  // zxid of the last change to the children
  int32_t version = 0;
  int32_t cversion = 0;
  SessionId ephemeral_owner = 0;  // 0 for a persistent znode
  int32_t num_children = 0;
};

struct WatchEvent {
  enum class Type : uint8_t { kNodeCreated, kNodeDeleted, kNodeDataChanged, kNodeChildrenChanged };
  Type type = Type::kNodeDeleted;
  std::string path;
};
// "NodeCreated", "NodeDeleted", "NodeDataChanged", "NodeChildrenChanged".
const char* watch_type_name(WatchEvent::Type t);

struct NodeOptions {
  // The bounds a requested session timeout is clamped to (ZooKeeper's
  // minSessionTimeout = 2 * tickTime, maxSessionTimeout = 20 * tickTime with
  // the default tickTime of 2000 ms), us.
  int64_t min_session_timeout_us = 4'000;
  int64_t max_session_timeout_us = 40'000'000;
};

class CoordinationNode {
 public:
  explicit CoordinationNode(NodeOptions options = {});

  // Called with every watch that fires: the session that set it and the event.
  // The owner delivers it to that session's client; set before any request.
  using Notify = std::function<void(SessionId, const WatchEvent&)>;
  void set_notify(Notify notify) { notify_ = std::move(notify); }

  struct Opened {
    SessionId id = 0;
    int64_t timeout_us = 0;  // as negotiated
  };
  Opened open_session(int64_t now_us, int64_t requested_timeout_us);
  // A request (or ping) from `session` reached the node at now_us: true and
  // its deadline moves on while it lives; false once it expired or closed.
  bool touch(SessionId session, int64_t now_us);
  bool alive(SessionId session) const;
  // When `session` expires unless heard from again; nullopt once gone.
  std::optional<int64_t> deadline_us(SessionId session) const;
  // closeSession: the session's ephemerals go at once.
  void close_session(SessionId session);
  // Expires every session whose deadline is <= now_us; returns how many.
  size_t expire_sessions(int64_t now_us);

  // The operations; each runs atomically. `session` must be alive (else
  // kSessionExpired and nothing happens): call touch() first.
  struct Created {
    Err err = Err::kOk;
    std::string path;  // the znode made (with the sequence suffix)
    int64_t czxid = 0;
  };
  Created create(SessionId session, const std::string& path, const std::string& data, Mode mode);
  // version -1: any version.
  Err remove(SessionId session, const std::string& path, int32_t version);
  struct Children {
    Err err = Err::kOk;
    std::vector<std::string> names;  // sorted by name (ZooKeeper gives no order)
  };
  // watch: a child watch for `session` (set only when the znode exists).
  Children get_children(SessionId session, const std::string& path, bool watch);
  struct Data {
    Err err = Err::kOk;
    std::string data;
    Stat stat;
  };
  // watch: a data watch (set only when the znode exists, as ZooKeeper's getData).
  Data get_data(SessionId session, const std::string& path, bool watch);
  // exists: kOk with the stat, or kNoNode; watch: a data watch either way
  // (on an absent znode it fires NodeCreated).
  Data exists(SessionId session, const std::string& path, bool watch);

  // A reconnecting client's SetWatches: drops `session`'s watches and sets
  // those listed again, firing at once each whose znode changed after
  // `last_zxid` (the last zxid the client saw) in the way it watches for.
  struct WatchSet {
    std::vector<std::string> data, exist, child;
  };
  void set_watches(SessionId session, int64_t last_zxid, const WatchSet& watches);

  int64_t zxid() const { return zxid_; }
  bool has_node(const std::string& path) const { return nodes_.count(path) != 0; }
  // Ephemeral znodes `session` owns, by path.
  std::vector<std::string> ephemerals_of(SessionId session) const;
  size_t session_count() const { return sessions_.size(); }

 private:
  struct Znode {
    std::string data;
    Stat stat;
    std::set<std::string> children;  // names
  };
  struct Session {
    int64_t timeout_us = 0;
    int64_t deadline_us = 0;
    std::set<std::string> ephemerals;
  };
  static std::string parent_of(const std::string& path);
  void fire(std::map<std::string, std::set<SessionId>>& watches, const std::string& path,
            WatchEvent::Type type);
  void delete_node(const std::string& path);
  void end_session(SessionId session);
  void drop_watches(SessionId session);

  NodeOptions options_;
  Notify notify_;
  int64_t zxid_ = 0;
  SessionId next_session_ = 0x100;
  std::map<std::string, Znode> nodes_;
  std::map<SessionId, Session> sessions_;
  std::map<std::string, std::set<SessionId>> data_watches_;
  std::map<std::string, std::set<SessionId>> child_watches_;
};

}  // namespace redsim::zk

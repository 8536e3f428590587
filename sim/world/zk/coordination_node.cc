// CoordinationNode: sessions, znodes and watches (coordination_node.h).
#include "sim/world/zk/coordination_node.h"

#include <algorithm>
#include <cstdio>

namespace redsim::zk {

const char* err_name(Err e) {
  switch (e) {
    case Err::kOk:
      return "ok";
    case Err::kNoNode:
      return "no node";
    case Err::kNodeExists:
      return "node exists";
    case Err::kBadVersion:
      return "bad version";
    case Err::kNotEmpty:
      return "not empty";
    case Err::kNoChildrenForEphemerals:
      return "no children for ephemerals";
    case Err::kSessionExpired:
      return "session expired";
    case Err::kBadArguments:
      return "bad arguments";
  }
  return "?";
}

const char* watch_type_name(WatchEvent::Type t) {
  switch (t) {
    case WatchEvent::Type::kNodeCreated:
      return "NodeCreated";
    case WatchEvent::Type::kNodeDeleted:
      return "NodeDeleted";
    case WatchEvent::Type::kNodeDataChanged:
      return "NodeDataChanged";
    case WatchEvent::Type::kNodeChildrenChanged:
      return "NodeChildrenChanged";
  }
  return "?";
}

CoordinationNode::CoordinationNode(NodeOptions options) : options_(options) {
  nodes_["/"] = Znode{};
}

std::string CoordinationNode::parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

namespace {
// ZooKeeper's PathUtils.validatePath, the parts a recipe can get wrong.
bool valid_path(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() > 1 && path.back() == '/') return false;
  return path.find("//") == std::string::npos;
}
std::string name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }
}  // namespace

CoordinationNode::Opened CoordinationNode::open_session(int64_t now_us,
                                                        int64_t requested_timeout_us) {
  const int64_t timeout = std::clamp(requested_timeout_us, options_.min_session_timeout_us,
                                     options_.max_session_timeout_us);
  const SessionId id = next_session_++;
  sessions_[id] = Session{timeout, now_us + timeout, {}};
  return Opened{id, timeout};
}

bool CoordinationNode::touch(SessionId session, int64_t now_us) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return false;
  it->second.deadline_us = std::max(it->second.deadline_us, now_us + it->second.timeout_us);
  return true;
}

bool CoordinationNode::alive(SessionId session) const { return sessions_.count(session) != 0; }

std::optional<int64_t> CoordinationNode::deadline_us(SessionId session) const {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.deadline_us;
}

void CoordinationNode::close_session(SessionId session) {
  if (alive(session)) end_session(session);
}

size_t CoordinationNode::expire_sessions(int64_t now_us) {
  std::vector<SessionId> due;
  for (const auto& [id, s] : sessions_) {
    if (s.deadline_us <= now_us) due.push_back(id);
  }
  for (SessionId id : due) end_session(id);
  return due.size();
}

void CoordinationNode::end_session(SessionId session) {
  // The ephemerals go in path order, each a write of its own (ZooKeeper's
  // closeSession is one transaction deleting them all; the order of the
  // watches it fires is the same).
  const std::set<std::string> ephemerals = sessions_[session].ephemerals;
  sessions_.erase(session);
  drop_watches(session);
  for (const std::string& path : ephemerals) {
    if (nodes_.count(path) != 0) {
      ++zxid_;
      delete_node(path);
    }
  }
}

void CoordinationNode::drop_watches(SessionId session) {
  for (auto* table : {&data_watches_, &child_watches_}) {
    for (auto it = table->begin(); it != table->end();) {
      it->second.erase(session);
      it = it->second.empty() ? table->erase(it) : std::next(it);
    }
  }
}

void CoordinationNode::fire(std::map<std::string, std::set<SessionId>>& watches,
                            const std::string& path, WatchEvent::Type type) {
  auto it = watches.find(path);
  if (it == watches.end()) return;
  const std::set<SessionId> sessions = std::move(it->second);
  watches.erase(it);  // one-shot
  for (SessionId s : sessions) {
    if (notify_) notify_(s, WatchEvent{type, path});
  }
}

void CoordinationNode::delete_node(const std::string& path) {
  const std::string parent = parent_of(path);
  Znode& p = nodes_.at(parent);
  p.children.erase(name_of(path));
  p.stat.cversion++;
  p.stat.pzxid = zxid_;
  p.stat.num_children = static_cast<int32_t>(p.children.size());
  const SessionId owner = nodes_.at(path).stat.ephemeral_owner;
  if (owner != 0) {
    auto s = sessions_.find(owner);
    if (s != sessions_.end()) s->second.ephemerals.erase(path);
  }
  nodes_.erase(path);
  fire(data_watches_, path, WatchEvent::Type::kNodeDeleted);
  fire(child_watches_, path, WatchEvent::Type::kNodeDeleted);
  fire(child_watches_, parent, WatchEvent::Type::kNodeChildrenChanged);
}

CoordinationNode::Created CoordinationNode::create(SessionId session, const std::string& path,
                                                   const std::string& data, Mode mode) {
  Created out;
  if (!alive(session)) return {Err::kSessionExpired, {}, 0};
  if (!valid_path(path) || path == "/") return {Err::kBadArguments, {}, 0};
  const std::string parent = parent_of(path);
  auto pit = nodes_.find(parent);
  if (pit == nodes_.end()) return {Err::kNoNode, {}, 0};
  Znode& p = pit->second;
  if (p.stat.ephemeral_owner != 0) return {Err::kNoChildrenForEphemerals, {}, 0};
  std::string made = path;
  const bool sequential = mode == Mode::kPersistentSequential || mode == Mode::kEphemeralSequential;
  if (sequential) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%010d", p.stat.cversion);
    made += suffix;
  }
  if (nodes_.count(made) != 0) return {Err::kNodeExists, {}, 0};
  const bool ephemeral = mode == Mode::kEphemeral || mode == Mode::kEphemeralSequential;
  ++zxid_;
  Znode z;
  z.data = data;
  z.stat.czxid = z.stat.mzxid = z.stat.pzxid = zxid_;
  z.stat.ephemeral_owner = ephemeral ? session : 0;
  p.children.insert(name_of(made));
  p.stat.cversion++;
  p.stat.pzxid = zxid_;
  p.stat.num_children = static_cast<int32_t>(p.children.size());
  nodes_.emplace(made, std::move(z));
  if (ephemeral) sessions_[session].ephemerals.insert(made);
  fire(data_watches_, made, WatchEvent::Type::kNodeCreated);
  fire(child_watches_, parent, WatchEvent::Type::kNodeChildrenChanged);
  out.path = made;
  out.czxid = zxid_;
  return out;
}

Err CoordinationNode::remove(SessionId session, const std::string& path, int32_t version) {
  if (!alive(session)) return Err::kSessionExpired;
  if (!valid_path(path) || path == "/") return Err::kBadArguments;
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return Err::kNoNode;
  if (version != -1 && it->second.stat.version != version) return Err::kBadVersion;
  if (!it->second.children.empty()) return Err::kNotEmpty;
  ++zxid_;
  delete_node(path);
  return Err::kOk;
}

CoordinationNode::Children CoordinationNode::get_children(SessionId session,
                                                          const std::string& path, bool watch) {
  if (!alive(session)) return {Err::kSessionExpired, {}};
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return {Err::kNoNode, {}};
  if (watch) child_watches_[path].insert(session);
  return {Err::kOk,
          std::vector<std::string>(it->second.children.begin(), it->second.children.end())};
}

CoordinationNode::Data CoordinationNode::get_data(SessionId session, const std::string& path,
                                                  bool watch) {
  if (!alive(session)) return {Err::kSessionExpired, {}, {}};
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return {Err::kNoNode, {}, {}};
  if (watch) data_watches_[path].insert(session);
  return {Err::kOk, it->second.data, it->second.stat};
}

CoordinationNode::Data CoordinationNode::exists(SessionId session, const std::string& path,
                                                bool watch) {
  if (!alive(session)) return {Err::kSessionExpired, {}, {}};
  if (watch) data_watches_[path].insert(session);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return {Err::kNoNode, {}, {}};
  return {Err::kOk, {}, it->second.stat};
}

void CoordinationNode::set_watches(SessionId session, int64_t last_zxid, const WatchSet& watches) {
  if (!alive(session)) return;
  drop_watches(session);
  // ZooKeeper's DataTree.setWatches: a change the client may have missed
  // fires now; anything else is watched again.
  auto send = [&](const std::string& path, WatchEvent::Type type) {
    if (notify_) notify_(session, WatchEvent{type, path});
  };
  for (const std::string& path : watches.data) {
    auto it = nodes_.find(path);
    if (it == nodes_.end()) {
      send(path, WatchEvent::Type::kNodeDeleted);
    } else if (it->second.stat.mzxid > last_zxid) {
      send(path, WatchEvent::Type::kNodeDataChanged);
    } else {
      data_watches_[path].insert(session);
    }
  }
  for (const std::string& path : watches.exist) {
    if (nodes_.count(path) != 0) {
      send(path, WatchEvent::Type::kNodeCreated);
    } else {
      data_watches_[path].insert(session);
    }
  }
  for (const std::string& path : watches.child) {
    auto it = nodes_.find(path);
    if (it == nodes_.end()) {
      send(path, WatchEvent::Type::kNodeDeleted);
    } else if (it->second.stat.pzxid > last_zxid) {
      send(path, WatchEvent::Type::kNodeChildrenChanged);
    } else {
      child_watches_[path].insert(session);
    }
  }
}

std::vector<std::string> CoordinationNode::ephemerals_of(SessionId session) const {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return {};
  return {it->second.ephemerals.begin(), it->second.ephemerals.end()};
}

}  // namespace redsim::zk

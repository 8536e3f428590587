// ZkWorld (zk_world.h): the coordination node in a world and the simulated
// ZkClient. Written on World's public calls only (World::at, ProcessEnv's
// events, sleeps and tasks), so it stays out of the runtime's internals.
#include "sim/world/zk_world.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/world/prng.h"

namespace redsim::world {

namespace {

using lock::ZkCode;
using lock::ZkEvent;
using lock::ZkState;
using lock::ZkWatcher;

// One session as its client sees it, shared with the messages in flight.
struct ClientState {
  ProcessId pid = 0;
  Prng rng{0};
  Prng fault_rng{0};          // ZkWorldOptions' random network faults
  int64_t next_fault_us = 0;  // no random network fault before (network_fault_gap)
  uint64_t dead_conn = 0;     // connections up to this one lost a message to a partition
  zk::SessionId session = 0;
  int64_t timeout_us = 0;
  ZkState state = ZkState::kSuspended;
  bool connected = false;
  bool closed = false;
  bool expired_noticed = false;  // the node expired it and reset its connection
  uint64_t conn = 0;             // the client's current connection
  uint64_t server_conn = 0;      // the connection the node answers on
  int64_t last_zxid = 0;
  int64_t to_server_us = 0;  // arrival of the last message each way (FIFO)
  int64_t to_client_us = 0;
  // Process clock, us: when the client last sent a message and last heard
  // from the node (ClientCnxn's idleSend / idleRecv).
  int64_t last_sent_us = 0;
  int64_t last_heard_us = 0;
  ProcessEnv* env = nullptr;
  std::map<std::string, std::vector<ZkWatcher>> data, exist, child;
  // Calls waiting for an answer: a reset or an expiry wakes them.
  struct Pending {
    std::shared_ptr<lock::Event> event;
    std::shared_ptr<int> outcome;
  };
  std::vector<Pending> pending;
  int64_t read_timeout_us() const { return std::max<int64_t>(timeout_us * 2 / 3, 1); }
};

// A call's outcome, in ClientState::Pending::outcome.
constexpr int kWaiting = 0, kAnswered = 1, kReset = 2, kExpired = 3;

lock::ZkCode code_of(zk::Err e) {
  switch (e) {
    case zk::Err::kNoNode:
      return ZkCode::kNoNode;
    case zk::Err::kNodeExists:
      return ZkCode::kNodeExists;
    case zk::Err::kBadVersion:
      return ZkCode::kBadVersion;
    case zk::Err::kNotEmpty:
      return ZkCode::kNotEmpty;
    case zk::Err::kNoChildrenForEphemerals:
      return ZkCode::kNoChildrenForEphemerals;
    case zk::Err::kSessionExpired:
      return ZkCode::kSessionExpired;
    case zk::Err::kBadArguments:
    case zk::Err::kOk:
      break;
  }
  return ZkCode::kBadArguments;
}

ZkEvent::Type event_type(zk::WatchEvent::Type t) {
  switch (t) {
    case zk::WatchEvent::Type::kNodeCreated:
      return ZkEvent::Type::kCreated;
    case zk::WatchEvent::Type::kNodeDeleted:
      return ZkEvent::Type::kDeleted;
    case zk::WatchEvent::Type::kNodeDataChanged:
      return ZkEvent::Type::kDataChanged;
    case zk::WatchEvent::Type::kNodeChildrenChanged:
      return ZkEvent::Type::kChildrenChanged;
  }
  return ZkEvent::Type::kSession;
}

lock::ZkStat stat_of(const zk::Stat& s) {
  return lock::ZkStat{s.czxid, s.mzxid, s.version, s.ephemeral_owner};
}

zk::Mode mode_of(lock::ZkMode m) {
  switch (m) {
    case lock::ZkMode::kPersistent:
      return zk::Mode::kPersistent;
    case lock::ZkMode::kEphemeral:
      return zk::Mode::kEphemeral;
    case lock::ZkMode::kPersistentSequential:
      return zk::Mode::kPersistentSequential;
    case lock::ZkMode::kEphemeralSequential:
      return zk::Mode::kEphemeralSequential;
  }
  return zk::Mode::kPersistent;
}

}  // namespace

struct ZkWorld::State : std::enable_shared_from_this<ZkWorld::State> {
  State(World& w, ZkWorldOptions o) : world(w), options(o), node(o.node), root(w.seed()) {
    root = root.fork("zookeeper");
  }
  World& world;
  ZkWorldOptions options;
  zk::CoordinationNode node;
  Prng root;
  struct Window {
    ProcessId pid;
    int64_t from_us;
    int64_t to_us;
    ZkLoss loss;
  };
  std::vector<Window> partitions;
  std::vector<Window> losses;
  std::map<zk::SessionId, std::weak_ptr<ClientState>> clients;
  std::map<ProcessId, int64_t> wakeups;
  std::map<ProcessId, uint64_t> clients_made;
  int64_t expired = 0;

  int64_t now() const { return world.now().count(); }

  // A message sent now on `cs`'s connection, run at its arrival unless a
  // partition of the process covers any instant of its way.
  void send(const std::shared_ptr<ClientState>& cs, bool to_server, std::function<void()> fn) {
    const int64_t sent = now();
    const uint64_t gen = to_server ? cs->conn : cs->server_conn;
    const int64_t latency =
        cs->rng.uniform(options.latency_min.count(), options.latency_max.count());
    int64_t& last = to_server ? cs->to_server_us : cs->to_client_us;
    // Strictly after the previous message of that direction: two messages
    // due in the same microsecond would be same-time events, which PCT and
    // the exhaustive strategy may reorder (a watch notification overtaking
    // the answer that registers its watcher).
    const int64_t arrival = std::max(sent + latency, last + 1);
    last = arrival;
    auto self = shared_from_this();
    world.at(Micros{arrival}, [self, cs, gen, sent, arrival, fn = std::move(fn)] {
      // A stalled connection delivers nothing after the message it lost.
      if (gen != 0 && gen <= cs->dead_conn) return;
      for (const Window& w : self->partitions) {
        if (w.pid == cs->pid && w.from_us <= arrival && w.to_us > sent) {
          cs->dead_conn = std::max(cs->dead_conn, gen);
          return;
        }
      }
      fn();
    });
  }

  // The random network fault of a request (or, with `ping`, a ping: only
  // partitions) `cs` sends now (ZkWorldOptions): a partition starting now
  // (recorded as a window), or a loss.
  std::optional<ZkLoss> draw_request_fault(ClientState& cs, bool ping) {
    const ZkWorldOptions& o = options;
    if (!o.partition_ppm && (ping || (!o.lost_reply_ppm && !o.loss_ppm))) return std::nullopt;
    const int64_t t = now();
    if (t < cs.next_fault_us) return std::nullopt;
    std::optional<ZkLoss> loss;
    if (cs.fault_rng.chance(o.partition_ppm)) {
      const int64_t len = cs.fault_rng.uniform(o.partition_min.count(), o.partition_max.count());
      partitions.push_back(Window{cs.pid, t, t + len, ZkLoss::kRequest});
      cs.env->trace("zk: cut from the node for " + std::to_string(len / 1000) + " ms");
    } else if (ping) {
      return std::nullopt;
    } else if (cs.fault_rng.chance(o.lost_reply_ppm)) {
      loss = ZkLoss::kReplyAfterRun;
    } else if (cs.fault_rng.chance(o.loss_ppm)) {
      loss = cs.fault_rng.chance(o.loss_executed_ppm) ? ZkLoss::kReplyAfterRun : ZkLoss::kRequest;
    } else {
      return std::nullopt;
    }
    if (loss) {
      cs.env->trace(loss == ZkLoss::kRequest
                        ? "zk: connection reset before the request ran"
                        : "zk: connection reset after the request ran (its answer lost)");
    }
    cs.next_fault_us = t + o.network_fault_gap.count();
    return loss;
  }

  std::optional<ZkLoss> loss_at(ProcessId pid, int64_t t) const {
    for (const Window& w : losses) {
      if (w.pid == pid && t >= w.from_us && t < w.to_us) return w.loss;
    }
    return std::nullopt;
  }

  // The node resets connection `gen` of `cs`: the client learns one latency later.
  void reset(const std::shared_ptr<ClientState>& cs, uint64_t gen) {
    send(cs, false, [cs, gen, self = shared_from_this()] {
      if (gen == cs->conn && cs->connected) self->connection_lost(*cs);
    });
  }

  // Session expiry at the node: checked at each deadline a touch sets.
  void schedule_expiry(zk::SessionId session) {
    const std::optional<int64_t> deadline = node.deadline_us(session);
    if (!deadline) return;
    world.at(Micros{*deadline}, [self = shared_from_this()] { self->expire(); });
  }
  void expire() {
    expired += static_cast<int64_t>(node.expire_sessions(now()));
    // ZooKeeper closes an expired session's connection; its client finds
    // the session gone when it reconnects.
    for (auto& [id, weak] : clients) {
      auto cs = weak.lock();
      if (!cs || node.alive(id) || cs->expired_noticed) continue;
      cs->expired_noticed = true;
      reset(cs, cs->server_conn);
    }
  }

  // A watch fired on the node for `session`: the notification travels.
  void notify(zk::SessionId session, const zk::WatchEvent& e) {
    auto it = clients.find(session);
    if (it == clients.end()) return;
    auto cs = it->second.lock();
    if (!cs) return;
    const uint64_t gen = cs->server_conn;
    send(cs, false, [self = shared_from_this(), cs, gen, e] {
      if (gen != cs->conn) return;
      cs->last_heard_us = cs->env->now().time_since_epoch().count();
      self->dispatch(*cs, e);
    });
  }

  void dispatch(ClientState& cs, const zk::WatchEvent& e) {
    std::vector<ZkWatcher> due;
    auto take = [&](std::map<std::string, std::vector<ZkWatcher>>& table) {
      auto it = table.find(e.path);
      if (it == table.end()) return;
      for (auto& w : it->second) due.push_back(std::move(w));
      table.erase(it);
    };
    switch (e.type) {
      case zk::WatchEvent::Type::kNodeCreated:
      case zk::WatchEvent::Type::kNodeDataChanged:
        take(cs.data);
        take(cs.exist);
        break;
      case zk::WatchEvent::Type::kNodeDeleted:
        take(cs.data);
        take(cs.exist);
        take(cs.child);
        break;
      case zk::WatchEvent::Type::kNodeChildrenChanged:
        take(cs.child);
        break;
    }
    wakeups[cs.pid] += static_cast<int64_t>(due.size());
    const ZkEvent event{event_type(e.type), e.path};
    for (auto& w : due) w(event);
  }

  static void tell_all(ClientState& cs, bool clear) {
    std::vector<ZkWatcher> all;
    for (auto* table : {&cs.data, &cs.exist, &cs.child}) {
      for (auto& [path, ws] : *table) all.insert(all.end(), ws.begin(), ws.end());
      if (clear) table->clear();
    }
    for (auto& w : all) w(ZkEvent{ZkEvent::Type::kSession, {}});
  }
  static void wake_pending(ClientState& cs, int outcome) {
    for (auto& p : cs.pending) {
      if (*p.outcome == kWaiting) {
        *p.outcome = outcome;
        p.event->signal();
      }
    }
  }
  void connection_lost(ClientState& cs) {
    cs.connected = false;
    if (cs.state == ZkState::kConnected) cs.state = ZkState::kSuspended;
    wake_pending(cs, kReset);
    tell_all(cs, false);
  }
  void session_lost(ClientState& cs) {
    cs.connected = false;
    cs.state = ZkState::kLost;
    wake_pending(cs, kExpired);
    tell_all(cs, true);
  }
};

namespace {

using State = ZkWorld::State;
enum class Got : uint8_t { kAnswer, kLoss, kExpired };

// What runs on the node for a request; returns what runs at the client
// when the answer arrives (before the calling task resumes), or nothing.
using NodeOp = std::function<std::function<void()>(zk::CoordinationNode&, zk::SessionId)>;

bool gone(const State& st, ProcessId pid) {
  const ProcessState s = st.world.process_state(pid);
  return s == ProcessState::kCrashed || s == ProcessState::kEnded;
}

// Sends one message and waits for its answer at most the read timeout.
// `connect`: a (re)connect of the session: the node takes the new
// connection and the client's watches (SetWatches) instead of running an op.
Got exchange(State& st, const std::shared_ptr<ClientState>& cs, ProcessEnv& env, NodeOp op,
             bool connect) {
  auto self = st.shared_from_this();
  std::shared_ptr<lock::Event> event = env.make_event();
  auto outcome = std::make_shared<int>(kWaiting);
  const uint64_t gen = connect ? ++cs->conn : cs->conn;
  std::optional<ZkLoss> loss = connect ? std::nullopt : st.loss_at(cs->pid, st.now());
  if (!connect && !loss) loss = st.draw_request_fault(*cs, false);
  zk::CoordinationNode::WatchSet watches;
  if (connect) {
    for (auto& [p, ws] : cs->data) watches.data.push_back(p);
    for (auto& [p, ws] : cs->exist) watches.exist.push_back(p);
    for (auto& [p, ws] : cs->child) watches.child.push_back(p);
  }
  const int64_t last_zxid = cs->last_zxid;
  cs->pending.push_back({event, outcome});
  cs->last_sent_us = env.now().time_since_epoch().count();
  if (connect) cs->last_heard_us = cs->last_sent_us;
  st.send(cs, true, [self, cs, gen, op, outcome, event, loss, connect, watches, last_zxid] {
    State& s = *self;
    if (connect) {
      cs->server_conn = gen;
    } else if (gen != cs->server_conn) {
      return;  // sent on a connection the node no longer has
    }
    if (loss == ZkLoss::kRequest) {
      s.reset(cs, gen);
      return;
    }
    const bool alive = s.node.touch(cs->session, s.now());
    std::function<void()> at_client;
    if (alive) {
      s.schedule_expiry(cs->session);
      if (connect) {
        s.node.set_watches(cs->session, last_zxid, watches);
      } else {
        at_client = op(s.node, cs->session);
      }
    }
    const int64_t zxid = s.node.zxid();
    if (loss == ZkLoss::kReplyAfterRun) {
      s.reset(cs, gen);
      return;
    }
    s.send(cs, false, [self, cs, gen, outcome, event, at_client, alive, zxid] {
      if (gen != cs->conn || *outcome != kWaiting) return;
      cs->last_heard_us = cs->env->now().time_since_epoch().count();
      cs->last_zxid = std::max(cs->last_zxid, zxid);
      if (!alive) {
        self->session_lost(*cs);  // wakes this call too, with kExpired
        return;
      }
      *outcome = kAnswered;
      if (at_client) at_client();
      event->signal();
    });
  });
  // A request waits until answered or until its connection is lost (a
  // reset, or the ping task's read timeout: ClientCnxn has no per-request
  // timeout); a connect waits at most the read timeout.
  for (;;) {
    event->wait_for(Micros{cs->read_timeout_us()});
    if (*outcome != kWaiting || connect || gone(st, cs->pid)) break;
    if (!cs->connected || gen != cs->conn) break;
  }
  std::erase_if(cs->pending, [&](const ClientState::Pending& p) { return p.outcome == outcome; });
  const int got = *outcome;
  *outcome = kReset;  // a late answer is ignored
  if (got == kAnswered) {
    if (connect) {
      cs->connected = true;
      cs->state = ZkState::kConnected;
    }
    return Got::kAnswer;
  }
  if (got == kExpired || cs->state == ZkState::kLost) return Got::kExpired;
  return Got::kLoss;
}

Got call(State& st, const std::shared_ptr<ClientState>& cs, ProcessEnv& env, NodeOp op) {
  if (cs->state == ZkState::kLost || cs->closed) return Got::kExpired;
  if (!cs->connected) {
    const Got g = exchange(st, cs, env, {}, true);
    if (g != Got::kAnswer) return g;
  }
  return exchange(st, cs, env, std::move(op), false);
}

// A ping: touches the session on the node; its answer counts as heard.
// Lost-message windows do not apply to it (they stand for a failed call).
void send_ping(State& st, const std::shared_ptr<ClientState>& cs, ProcessEnv& env) {
  auto self = st.shared_from_this();
  const uint64_t gen = cs->conn;
  cs->last_sent_us = env.now().time_since_epoch().count();
  (void)st.draw_request_fault(*cs, true);
  st.send(cs, true, [self, cs, gen] {
    if (gen != cs->server_conn) return;
    const bool alive = self->node.touch(cs->session, self->now());
    if (alive) self->schedule_expiry(cs->session);
    self->send(cs, false, [self, cs, gen, alive] {
      if (gen != cs->conn) return;
      cs->last_heard_us = cs->env->now().time_since_epoch().count();
      if (!alive) self->session_lost(*cs);
    });
  });
}

// The ping task, as ClientCnxn.SendThread: a ping when nothing was sent for
// half the read timeout; the connection is lost when nothing was heard for
// the read timeout (two thirds of the session timeout); while it is down,
// a reconnect (each attempt waits at most the read timeout).
void ping_task(State& st, const std::shared_ptr<ClientState>& cs, ProcessEnv& env) {
  const int64_t read_timeout = cs->read_timeout_us();
  const int64_t ping_after = std::max<int64_t>(read_timeout / 2, 1);
  for (;;) {
    if (cs->closed || cs->state == ZkState::kLost || gone(st, cs->pid)) return;
    if (!cs->connected) {
      exchange(st, cs, env, {}, true);
      continue;
    }
    const int64_t now = env.now().time_since_epoch().count();
    if (now - cs->last_heard_us >= read_timeout) {
      st.connection_lost(*cs);
      continue;
    }
    if (now - cs->last_sent_us >= ping_after) send_ping(st, cs, env);
    const int64_t next =
        std::min(cs->last_sent_us + ping_after, cs->last_heard_us + read_timeout) - now;
    env.sleep_for(Micros{std::max<int64_t>(next, 1)});
  }
}

class SimZkClient final : public lock::ZkClient {
 public:
  SimZkClient(std::shared_ptr<State> st, std::shared_ptr<ClientState> cs, ProcessEnv& env)
      : st_(std::move(st)), cs_(std::move(cs)), env_(env) {}
  ~SimZkClient() override {
    // A crash leaves the session to expire; an orderly end closes it.
    if (st_->world.process_state(cs_->pid) != ProcessState::kCrashed) close();
    cs_->closed = true;
  }

  std::expected<std::string, ZkCode> create(const std::string& path, const std::string& data,
                                            lock::ZkMode mode) override {
    auto made = std::make_shared<zk::CoordinationNode::Created>();
    const Got g = call(*st_, cs_, env_, [=](zk::CoordinationNode& n, zk::SessionId s) {
      *made = n.create(s, path, data, mode_of(mode));
      return std::function<void()>{};
    });
    if (g != Got::kAnswer) {
      // For the reader of the timeline (the client cannot know): what the
      // request whose answer was lost made on the node.
      if (made->err == zk::Err::kOk && !made->path.empty()) {
        env_.trace("zk: unseen by the client, the lost create made " + made->path);
      }
      return std::unexpected(fail(g));
    }
    if (made->err != zk::Err::kOk) return std::unexpected(code_of(made->err));
    return made->path;
  }

  std::expected<void, ZkCode> remove(const std::string& path, int32_t version) override {
    auto err = std::make_shared<zk::Err>(zk::Err::kOk);
    const Got g = call(*st_, cs_, env_, [=](zk::CoordinationNode& n, zk::SessionId s) {
      *err = n.remove(s, path, version);
      return std::function<void()>{};
    });
    if (g != Got::kAnswer) return std::unexpected(fail(g));
    if (*err != zk::Err::kOk) return std::unexpected(code_of(*err));
    return {};
  }

  std::expected<std::vector<std::string>, ZkCode> get_children(const std::string& path,
                                                               ZkWatcher watcher) override {
    auto got = std::make_shared<zk::CoordinationNode::Children>();
    auto cs = cs_;
    const Got g = call(*st_, cs_, env_, [=](zk::CoordinationNode& n, zk::SessionId s) {
      *got = n.get_children(s, path, static_cast<bool>(watcher));
      std::function<void()> at_client;
      if (got->err == zk::Err::kOk && watcher) {
        at_client = [cs, path, watcher] { cs->child[path].push_back(watcher); };
      }
      return at_client;
    });
    if (g != Got::kAnswer) return std::unexpected(fail(g));
    if (got->err != zk::Err::kOk) return std::unexpected(code_of(got->err));
    return got->names;
  }

  std::expected<lock::ZkStat, ZkCode> get_data(const std::string& path,
                                               ZkWatcher watcher) override {
    auto got = std::make_shared<zk::CoordinationNode::Data>();
    auto cs = cs_;
    const Got g = call(*st_, cs_, env_, [=](zk::CoordinationNode& n, zk::SessionId s) {
      *got = n.get_data(s, path, static_cast<bool>(watcher));
      std::function<void()> at_client;
      if (got->err == zk::Err::kOk && watcher) {
        at_client = [cs, path, watcher] { cs->data[path].push_back(watcher); };
      }
      return at_client;
    });
    if (g != Got::kAnswer) return std::unexpected(fail(g));
    if (got->err != zk::Err::kOk) return std::unexpected(code_of(got->err));
    return stat_of(got->stat);
  }

  std::expected<std::optional<lock::ZkStat>, ZkCode> exists(const std::string& path,
                                                            ZkWatcher watcher) override {
    auto got = std::make_shared<zk::CoordinationNode::Data>();
    auto cs = cs_;
    const Got g = call(*st_, cs_, env_, [=](zk::CoordinationNode& n, zk::SessionId s) {
      *got = n.exists(s, path, static_cast<bool>(watcher));
      std::function<void()> at_client;
      if (watcher && (got->err == zk::Err::kOk || got->err == zk::Err::kNoNode)) {
        at_client = [cs, path, watcher] { cs->exist[path].push_back(watcher); };
      }
      return at_client;
    });
    if (g != Got::kAnswer) return std::unexpected(fail(g));
    if (got->err == zk::Err::kNoNode) return std::optional<lock::ZkStat>{};
    if (got->err != zk::Err::kOk) return std::unexpected(code_of(got->err));
    return std::optional<lock::ZkStat>{stat_of(got->stat)};
  }

  int64_t session_id() const override { return cs_->session; }
  ZkState state() const override { return cs_->state; }

  void close() noexcept override {
    if (cs_->closed) return;
    cs_->closed = true;
    if (cs_->state == ZkState::kLost || gone(*st_, cs_->pid)) return;
    // closeSession, sent without waiting for its answer.
    auto self = st_;
    auto cs = cs_;
    st_->send(cs_, true, [self, cs] {
      self->node.close_session(cs->session);
      cs->state = ZkState::kLost;
    });
  }

 private:
  ZkCode fail(Got g) const {
    return g == Got::kExpired ? ZkCode::kSessionExpired : ZkCode::kConnectionLoss;
  }
  std::shared_ptr<State> st_;
  std::shared_ptr<ClientState> cs_;
  ProcessEnv& env_;
};

}  // namespace

ZkWorld::ZkWorld(World& world, ZkWorldOptions options)
    : st_(std::make_shared<State>(world, options)) {
  std::weak_ptr<State> weak = st_;
  st_->node.set_notify([weak](zk::SessionId s, const zk::WatchEvent& e) {
    if (auto st = weak.lock()) st->notify(s, e);
  });
}

ZkWorld::~ZkWorld() = default;

std::unique_ptr<lock::ZkClient> ZkWorld::connect(ProcessEnv& env, Micros session_timeout) {
  auto cs = std::make_shared<ClientState>();
  cs->pid = env.process_id();
  const uint64_t nth = st_->clients_made[cs->pid]++;
  cs->rng = st_->root.fork(cs->pid).fork(nth);
  cs->fault_rng = st_->root.fork("faults").fork(cs->pid).fork(nth);
  cs->timeout_us = session_timeout.count();
  cs->env = &env;
  State& st = *st_;
  // The session is made by the first message's arrival; a lost answer
  // leaves a session on the node that expires unused, as with ZooKeeper.
  for (;;) {
    auto self = st_;
    std::shared_ptr<lock::Event> event = env.make_event();
    auto opened = std::make_shared<std::optional<zk::CoordinationNode::Opened>>();
    const uint64_t gen = ++cs->conn;
    const int64_t timeout = cs->timeout_us;
    st.send(cs, true, [self, cs, gen, opened, event, timeout] {
      const auto o = self->node.open_session(self->now(), timeout);
      self->schedule_expiry(o.id);
      self->send(cs, false, [self, cs, gen, opened, event, o] {
        if (gen != cs->conn) return;
        *opened = o;
        event->signal();
      });
    });
    event->wait_for(Micros{cs->read_timeout_us()});
    if (opened->has_value()) {
      cs->session = (*opened)->id;
      cs->timeout_us = (*opened)->timeout_us;
      cs->server_conn = gen;
      cs->connected = true;
      cs->state = ZkState::kConnected;
      st.clients[cs->session] = cs;
      break;
    }
    if (gone(st, cs->pid)) {
      cs->state = ZkState::kLost;
      break;
    }
  }
  cs->last_sent_us = cs->last_heard_us = env.now().time_since_epoch().count();
  if (cs->state == ZkState::kConnected)
    env.spawn("zk-ping", [self = st_, cs, &env] { ping_task(*self, cs, env); });
  return std::make_unique<SimZkClient>(st_, cs, env);
}

void ZkWorld::partition(ProcessId pid, Micros from, Micros to) {
  st_->partitions.push_back(State::Window{pid, from.count(), to.count(), ZkLoss::kRequest});
}

void ZkWorld::lose_messages(ProcessId pid, Micros from, Micros to, ZkLoss loss) {
  st_->losses.push_back(State::Window{pid, from.count(), to.count(), loss});
}

zk::CoordinationNode& ZkWorld::node() { return st_->node; }

int64_t ZkWorld::watch_wakeups(ProcessId pid) const {
  auto it = st_->wakeups.find(pid);
  return it == st_->wakeups.end() ? 0 : it->second;
}

int64_t ZkWorld::sessions_expired() const { return st_->expired; }

}  // namespace redsim::world

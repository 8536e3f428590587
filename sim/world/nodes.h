// Internal to sim/world (not installed): the nodes component of a world's
// Runtime (runtime.h): the redis-server nodes, their clocks, persistence,
// crashes and restarts, asynchronous replication, failover, WAIT, active
// expiry, and the key states a timeline shows.
//
// Owns: every Node (servers first, index = server index, then replicas,
// World::node_of), each with its sim::Server (absent while down), its
// ServerClock and what survives a crash; the map from server index to its
// current primary; the WAITs blocked on each primary; the tracked keys and
// their last recorded state per server.
//
// Invariants:
// - A server index always maps to one node (its primary); clients reach
//   that node, a failover moves the index to the promoted replica.
// - A node is up with a Server or down without one; going down breaks every
//   link to it and ends its WAITs; what a restart loads is what the
//   persistence mode kept (none, every write, the last fsync).
// - Replication is asynchronous and FIFO per replica; a message from an
//   older epoch (the replica or primary restarted or was re-attached since)
//   is dropped. A replica's applied_offset never exceeds its primary's
//   master_offset.
// - Servers draw nothing from a world stream but their own (per node and
//   incarnation), so client-side faults do not move server draws.
// - A kKeyState event is recorded only when a tracked key's state changed.
//
// Uses: Lifecycle (time, history), Network (breaking a crashed node's
// links, sending a WAIT's reply, subscribing clients again), Processes
// (delivering to a process, the processes to resubscribe).
//
// Sources: Redis persistence docs (appendfsync always / everysec: "you can
// lose 1 second worth of data"); Redis replication docs (asynchronous
// replication, replicas resynchronise in full after a restart, a primary
// restarted empty empties its replicas); the WAIT command page.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "sim/clock.h"
#include "sim/keyspace.h"
#include "sim/server.h"
#include "sim/world/drift_clock.h"
#include "sim/world/prng.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

class Lifecycle;
class Network;
class Processes;
struct Link;
struct Process;
struct Task;

using KeyRef = std::pair<int, std::string>;  // (db, key)
using Snapshot = std::map<KeyRef, sim::Entry>;

// A WAIT a primary holds until enough replicas acknowledged, or its timeout.
struct BlockedWait {
  Link* link = nullptr;
  Task* task = nullptr;
  uint64_t token = 0;
  int64_t numreplicas = 0;
  uint64_t offset = 0;
  lock::Argv argv;
  bool done = false;
};

// A blocking command (BLPOP, XREAD BLOCK, ...) whose client is blocked on
// the server (sim::Session::blocked()): its reply leaves when the server
// serves or times it out (Nodes::serve_unblocked).
struct BlockedCall {
  Link* link = nullptr;
  const sim::Session* session = nullptr;
  Task* task = nullptr;
  uint64_t token = 0;
  uint64_t incarnation = 0;  // the process incarnation that sent it
  lock::Argv argv;
  bool lost = false;        // the connection resets once it ran
  bool reply_lost = false;  // its reply never arrives
};

// A server's clock: the epoch plus its drifting clock plus what DEBUG
// SLEEP added.
class ServerClock final : public sim::Clock {
 public:
  ServerClock(const Scheduler& sched, int64_t epoch_us) : sched_(sched), epoch_us_(epoch_us) {}
  int64_t now_us() const override { return epoch_us_ + drift.read(sched_.now_us()) + offset_us_; }
  void sleep_us(int64_t us) override { offset_us_ += us > 0 ? us : 0; }
  DriftClock drift;

 private:
  const Scheduler& sched_;
  int64_t epoch_us_;
  int64_t offset_us_ = 0;
};

// One redis-server: a primary (the server index clients use) or a replica.
struct Node {
  size_t index = 0;   // node id (World::node_of)
  size_t server = 0;  // the server index it belongs to
  std::string name;   // "s0", "s0r1"
  std::unique_ptr<ServerClock> clock;
  std::unique_ptr<sim::Server> server_;  // null while down
  bool up = true;
  uint64_t incarnation = 0;
  Prng seed_rng{0};
  Prng crash_rng{0};         // random crashes and their restart delays
  Prng failover_rng{0};      // random failovers and the old primary's return
  Prng clock_rng{0};         // random clock jumps
  Prng repl_rng{0};          // replication lag draws
  std::vector<Link*> links;  // client connections to this node
  Snapshot kept;             // what survives a crash (persistence)
  Snapshot fsynced;          // kAofEverysec: state at the last fsync
  // Replication. A replica follows `primary`; a primary has `replicas`.
  Node* primary = nullptr;
  std::vector<Node*> replicas;
  uint64_t epoch = 0;           // bumped on every (re)attachment: stale stream messages drop
  uint64_t master_offset = 0;   // primary: writes propagated
  Snapshot shadow;              // primary: state as of the last propagated write
  uint64_t applied_offset = 0;  // replica: last write applied
  int64_t last_stream_us = 0;   // replica: FIFO of the stream
  std::vector<std::shared_ptr<BlockedWait>> waits;  // primary: blocked WAITs
  std::vector<BlockedCall> blocked_calls;           // blocked clients, in blocking order
  int64_t block_timer_ms = -1;  // server-clock deadline a pending timeout check is for
};

class Nodes {
 public:
  Nodes(Lifecycle& life, Network& net, Processes& procs) : life_(life), net_(net), procs_(procs) {}
  Nodes(const Nodes&) = delete;
  Nodes& operator=(const Nodes&) = delete;

  // Makes the nodes (each server, then its replicas) and starts them empty,
  // then the daemons the options ask for (active expiry, the everysec fsync).
  void start();

  // ---- Topology.
  size_t server_count() const { return primaries_.size(); }
  // Node `index` (World::node_of); std::out_of_range past the last.
  Node& node(size_t index) const { return *nodes_.at(index); }
  // The node server index `server` reaches now; std::out_of_range past the last.
  Node& primary(size_t server) const { return *primaries_.at(server); }

  // ---- Faults (World, and the plan's draws after each command).
  void crash_node(Node& n, std::string why, bool schedule_restart);
  void restart_node(Node& n);
  // Promotes replica `replica` of server index `server`; nothing when there
  // is no such replica or it is down.
  void failover(size_t server, size_t replica);
  void jump_node_clock(Node& n, int64_t delta_us, std::string_view why);

  // ---- The command path (the network, on the node's side).
  // After every command a node ran: the plan's server-side draws (clock
  // jump, crash, failover).
  void after_command(Node& n);
  // Holds WAIT `w` on primary `n` until enough replicas acknowledged or
  // `timeout_ms` of the node's clock passed (0: no timeout).
  void hold_wait(Node& n, std::shared_ptr<BlockedWait> w, int64_t timeout_ms);
  // Drops the WAITs of `link` (its connection broke).
  void drop_waits(Link& link);
  // Blocked clients (sim/blocking.h): `b` waits on node `n` until the server
  // serves or times it out; serve_unblocked sends the replies of the blocks
  // that ended and arms the timer of the next deadline; forget_blocked drops
  // a link's block (its connection closed or broke).
  void hold_blocked(Node& n, BlockedCall b);
  void serve_unblocked(Node& n);
  void forget_blocked(Link& link);

  // ---- Lease bars for timelines: `key` (a resource the workload named) is
  // tracked on every server from now on; note_key_states(s) records a
  // kKeyState event for each tracked key whose state on server s changed.
  void track_key(const std::string& key);
  // `writer`/`task`: the client whose command may have changed them (kKeyState's
  // process and task), nullptr for expiry, server faults and replication.
  void note_key_states(size_t server, Process* writer = nullptr, TaskId task = 0);

 private:
  void start_node(Node& n, const Snapshot& data);
  void after_write(Node& n, sim::Session& session);
  int64_t acked_replicas(const Node& n, uint64_t offset) const;
  void check_waits(Node& n);
  // Ends a blocked WAIT with `acked` replicas: records the command and
  // sends the reply to its task.
  void reply_wait(const BlockedWait& w, int64_t acked);
  void arm_block_timer(Node& n);
  void full_sync(Node& replica, Node& primary);
  void fsync_tick();
  void expire_tick();

  Lifecycle& life_;
  Network& net_;
  Processes& procs_;
  std::vector<std::unique_ptr<Node>> nodes_;  // servers first, then replicas
  std::vector<Node*> primaries_;              // per server index: its current primary
  // Tracked keys and, per server, their last recorded state: the deadline
  // as true time (us), -1 for no deadline; absent keys are not in the map.
  std::set<std::string, std::less<>> tracked_keys_;
  struct KeyState {
    int64_t deadline_us = -1;  // true time; -1: persistent
    std::vector<std::string> marks;
    bool operator==(const KeyState&) const = default;
  };
  std::vector<std::map<std::string, KeyState, std::less<>>> key_states_;
};

}  // namespace redsim::world::detail

// ZkWorld: a ZooKeeper coordination node (sim/world/zk/coordination_node.h)
// inside a World, and the ZkClient (lock/zk_client.h) its simulated
// processes use: Curator's InterProcessMutex runs on the same schedules and
// under the same process faults as the Redis locks.
//
//   world::World w(opts);
//   world::ZkWorld zk(w);                       // one node, 1 ms one-way latency
//   w.spawn_process("A", [&](world::ProcessEnv& env) {
//     auto client = zk.connect(env, std::chrono::milliseconds(1000));
//     lock::InterProcessMutex m(env, *client, "/locks/orders");
//     if (m.acquire() == true) { ...; m.release(); }
//   });
//   zk.partition(/*pid=*/1, from, to);
//   w.run();
//
// What runs where, in virtual time:
// - every request, reply and watch notification is a message with a
//   one-way latency drawn in [latency_min, latency_max] from the client's own
//   stream (a sub-seed of the world's seed and the process id); messages of
//   one session never overtake each other (ZooKeeper's per-session FIFO:
//   each arrives at least 1 us after the one before it in its direction, so
//   no strategy can reorder them as same-time events);
// - the node runs a request when it arrives: it touches the session (any
//   request or ping renews it), runs the operation, and answers;
// - a session expires at last-heard + timeout on the node's clock (true
//   time; ZooKeeper rounds up to a tickTime bucket): its ephemerals go and
//   the watches on them fire, as in coordination_node.h;
// - each client has a ping task in its process (ClientCnxn.SendThread): a
//   ping when it sent nothing for a third of the session timeout (half the
//   read timeout), and the connection lost when it heard nothing from the
//   node for the read timeout (two thirds of the session timeout). A call
//   waits until answered or until the connection is lost, then returns
//   kConnectionLoss (the request may have run); state() is kSuspended and
//   every watcher is told (kSession). The next call (or the ping task)
//   reconnects, each attempt waiting at most the read timeout; a reconnect
//   keeps the session and its watches (SetWatches: changes missed meanwhile
//   fire then) unless the session expired: kSessionExpired, state() kLost,
//   for that call and every later one. The node resets an expired
//   session's connection, so a connected client learns of the expiry
//   within a round trip;
// - process faults are the world's: a paused process sends nothing (its
//   ping task is paused too: a pause past the session timeout expires the
//   session) and its tasks see the replies and notifications that arrived
//   meanwhile after the pause; a crashed process stops pinging and its
//   session expires after the timeout (its ephemerals outlive it until then);
//   a client destroyed while its process runs on closes its session;
// - network faults between a process and the node are ZkWorld's own, in the
//   World's manner (World::partition and lose_messages name Redis servers):
//   partition() loses every message either way in its window (the client
//   notices by its read timeout: as a TCP connection that stalls, a
//   connection that lost a message to a partition carries nothing more, so
//   the client's next message after the window does not revive it; the
//   client reconnects), lose_messages() resets the connection
//   before or after a request runs (the client sees kConnectionLoss one
//   latency later; pings are not requests and are not lost this way).
// The world's FaultPlan (its random latency, loss, delays and partitions,
// which are drawn per Redis connection) does not reach the node (ZkWorldOptions
// has the node's own random network faults); its random
// pauses and crashes of processes do, as they stop the clients' tasks.
// Not modelled: the node's crash and quorum (see coordination_node.h for how
// a leader change would show), the client's event thread as a paused thread
// (the world runs it on the scheduler; only the tasks stop), clock drift of
// the node, connecting to another server of an ensemble.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "lock/zk_client.h"
#include "sim/world/history.h"
#include "sim/world/world.h"
#include "sim/world/zk/coordination_node.h"

namespace redsim::world {

struct ZkWorldOptions {
  // One-way latency of each message, drawn uniformly, both inclusive.
  Micros latency_min{1000};
  Micros latency_max{1000};
  zk::NodeOptions node;

  // Random network faults between the clients and the node (`redsim check
  // --lock zk-mutex --faults loss,lost-reply,partition`), drawn for each
  // request a client sends (not for pings or reconnects) from the client's
  // own fault stream, so the latencies drawn stay those of a run without
  // them (partitions are drawn for pings too: a partition may start while
  // a holder works). With every chance zero nothing is drawn. The names and units are
  // FaultPlan's (world.h), whose own network faults reach Redis
  // connections only:
  // - lost_reply_ppm: the request runs, then the connection resets (its
  //   answer is lost; ZkLoss::kReplyAfterRun);
  // - loss_ppm: the connection resets, after the request ran with chance
  //   loss_executed_ppm, before otherwise (kRequest);
  // - partition_ppm: the process is cut from the node (partition()) from
  //   the request's send for a length drawn in [partition_min, partition_max].
  Ppm lost_reply_ppm{0};
  Ppm loss_ppm{0};
  Ppm loss_executed_ppm{500000};
  Ppm partition_ppm{0};
  Micros partition_min{0};
  Micros partition_max{0};
  // At most one random network fault per process in any stretch this long
  // (0: no limit). The budgeted profile of `check` sets it so that a live
  // session never goes unheard for its timeout.
  Micros network_fault_gap{0};
};

// What ZkWorld::lose_messages does to a request sent in its window.
enum class ZkLoss : uint8_t {
  kRequest,       // the connection resets before the request runs
  kReplyAfterRun  // the request runs, then the connection resets (its answer is lost)
};

class ZkWorld {
 public:
  explicit ZkWorld(World& world, ZkWorldOptions options = {});
  ~ZkWorld();
  ZkWorld(const ZkWorld&) = delete;
  ZkWorld& operator=(const ZkWorld&) = delete;

  // Opens a session for env's process with `session_timeout` (negotiated
  // into the node's bounds) and starts its ping task. Blocks the calling
  // task for the round trip; when no answer comes within the timeout (a
  // partition) it tries again, as ZooKeeper's client does, until the
  // process ends. Must be called from a task of env's process.
  std::unique_ptr<lock::ZkClient> connect(ProcessEnv& env, Micros session_timeout);

  // Every message between process `pid` and the node sent in [from, to)
  // (either way), or still on the wire at `from`, is lost.
  void partition(ProcessId pid, Micros from, Micros to);
  // Every request `pid` sends in [from, to) is lost as `loss` says.
  void lose_messages(ProcessId pid, Micros from, Micros to, ZkLoss loss);

  zk::CoordinationNode& node();
  // Watch notifications (znode events, not kSession) handed to a watcher of
  // process `pid` so far: the herd counter.
  int64_t watch_wakeups(ProcessId pid) const;
  // Sessions the node expired so far (not closed ones).
  int64_t sessions_expired() const;

  struct State;  // shared with the clients and the scheduled messages

 private:
  std::shared_ptr<State> st_;
};

}  // namespace redsim::world

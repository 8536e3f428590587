// Internal to sim/world (not installed): the network component of a world's
// Runtime (runtime.h): client connections to the server nodes, per-message
// latency, request/reply round trips, pub/sub, and the network faults.
//
// Owns: every Link (one client connection: the server-side Session and the
// two directions' FIFO clocks), for the whole world's life (a closed or
// broken link stays, so the pointers tasks and nodes hold stay valid); the
// partition, delay and loss windows; each task's SimConnections (held by the
// task, made here).
//
// Invariants:
// - Per link and direction, messages arrive in the order they were sent
//   (an arrival is never before the direction's last one; equal times keep
//   their order through the scheduler's sequence numbers).
// - A broken link carries nothing more: its session is gone at once, what
//   is on the wire is lost, the calls in flight on it fail with
//   lock::IoError. A closed link carries only what was sent before the close.
// - Everything that reaches a process (a reply, a push, a failure) goes
//   through Processes::deliver, so a pause holds it and a crash drops it.
// - Random draws are per link (latency, delay) or per process (loss, lost
//   replies), each on its own stream, and only when the fault is on: turning
//   one fault on does not move another's draws.
//
// Uses: Lifecycle (time, history, strategy), Processes (blocking a task,
// waking it, deliver, fault points, the stall budget), Nodes (the node a
// server index points at, running a command's aftermath, WAIT).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "sim/server.h"
#include "sim/world/prng.h"
#include "sim/world/recent_values.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

class Lifecycle;
class Network;
class Nodes;
class Processes;
struct Node;
struct Process;
struct Task;

// How a blocked call ended (Task::call_end; processes.h).
enum class CallEnd : uint8_t;

// A call waiting for its reply on a link: broken links fail it.
struct InFlight {
  Task* task = nullptr;
  uint64_t token = 0;
};

// One client connection to one server node: the server-side Session plus
// the two directions' FIFO clocks.
struct Link {
  size_t server = 0;  // the server index the client asked for
  Node* node = nullptr;
  Process* process = nullptr;
  TaskId task = 0;  // 0: the process's pub/sub connection
  std::unique_ptr<sim::Session> session;
  Prng rng{0};                    // latency draws for this connection
  Prng fault_rng{0};              // delay draws for this connection
  int64_t last_to_server_us = 0;  // arrival time of the last client->server message
  int64_t last_to_client_us = 0;  // arrival time of the last server->client message
  bool closed = false;            // the client side is closed (a close is on the wire)
  bool broken = false;            // reset: nothing travels any more, session gone
  // The connection state the client knows it set up, as redis-py's pipeline
  // tracks it (`watching`, `explicit_transaction`): a MULTI open, keys
  // WATCHed. Cleared when a call fails (the client was told). A link broken
  // with either set fails the client's next call (IoError) instead of
  // running it on a new connection without that state (a DEL queued for
  // EXEC would run at once).
  bool in_multi = false;
  bool watching = false;
  std::vector<InFlight> in_flight;
  // The history's values of the last two commands recorded on this link
  // (Network::intern_command): a client that sends the same few commands
  // again and again (a lock's acquire and release) finds its argv here,
  // without hashing it for the history's table.
  RecentValues<HistoryArgv> recent_argv;
};

// A task's connection to one server index (lock::Env::connection): it opens
// a new Link after the last one broke or closed, hiredis-style.
class SimConnection final : public lock::Connection {
 public:
  SimConnection(Network& net, Processes& procs, Task& task, size_t server)
      : net_(net), procs_(procs), task_(task), server_(server) {}

 private:
  // argv is read in place until the request reaches the server (the
  // caller waits meanwhile) and copied only when the call returns before
  // that (Network::round_trip) or the history has not seen an equal one:
  // a caller that hands argv over (call(Argv&&)) finds it unchanged after
  // the call, so a lock refills the same strings every cycle without
  // allocating (lock/reentrant_lock.cc, as on DirectEnv).
  resp::Reply do_call(const lock::Argv& argv, std::optional<lock::Micros> timeout) override;
  resp::Reply do_call_owned(lock::Argv&& argv, std::optional<lock::Micros> timeout) override;

  Network& net_;
  Processes& procs_;
  Task& task_;
  size_t server_;
  Link* link_ = nullptr;  // replaced when broken or closed
};

class Network {
 public:
  Network(Lifecycle& life, Processes& procs, Nodes& nodes)
      : life_(life), procs_(procs), nodes_(nodes) {}
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // ---- For a process's Env (process_env.cc), on one of its tasks.
  // Task t's connection to server index `server` (std::out_of_range past the
  // last); lock::ClosedError once its process is gone.
  lock::Connection& connection(Task& t, size_t server);
  lock::SubscriptionId subscribe(Process& p, const std::string& channel,
                                 std::function<void(const std::string&)> on_message, size_t server);
  void unsubscribe(Process& p, lock::SubscriptionId id);

  // ---- Faults (World and Processes::fault_point).
  // Cuts `p` off server `server` until `until_us`: its links there break now
  // (their calls fail when the partition heals), new ones are refused; at
  // the heal, its subscriptions there are made again.
  void start_partition(Process& p, size_t server, int64_t until_us);
  // A window [from_us, to_us) of true time in which `p`'s messages to or
  // from `server` are lost as `loss` says (World::lose_messages), or delayed
  // by `extra_us` more (World::delay_messages).
  void add_loss_window(ProcessId pid, size_t server, int64_t from_us, int64_t to_us, Loss loss);
  void add_delay_window(ProcessId pid, size_t server, int64_t from_us, int64_t to_us,
                        int64_t extra_us);

  // ---- For the other components.
  // A latency draw of `link` (the plan's distribution; the strategy's).
  int64_t draw_latency(Link& link);
  // Sends `fn` to run at the client end of `link` after a latency (FIFO).
  // `task`: the one task whose state the delivery touches (a plain reply to
  // it, for the exhaustive reduction); 0: the whole process.
  void send_to_client(Link& link, std::function<void()> fn, std::string_view what = "reply",
                      TaskId task = 0);
  // send_to_client of a delivery: `fn` runs through Processes::deliver at
  // the client end (held while the process is paused, dropped if it is
  // dying). The same as sending a function that calls deliver(fn), without
  // a second std::function (and its heap block) around `fn`.
  void deliver_to_client(Link& link, std::function<void()> fn, std::string_view what = "reply",
                         TaskId task = 0);
  // Closes `link` from the client side (a process ending): the close travels
  // to the server like a request.
  void close_link(Link& link);
  // Resets `link`: the session goes at once, calls in flight fail with
  // lock::IoError at now + notify_after_us.
  void break_link(Link& link, std::string why, int64_t notify_after_us);
  // Subscribes `p`'s channels on `server` again on a new pub/sub link when
  // its last one is gone and the server is reachable (a heal, a restart).
  void resubscribe(Process& p, size_t server);
  // Ends every link's session (the world going away; ~Runtime).
  void drop_sessions();

 private:
  friend class SimConnection;

  struct Window {
    ProcessId pid;
    size_t server;
    int64_t from_us;
    int64_t to_us;
    int64_t extra_us;  // delay windows; lose windows: the Loss
  };

  Link& new_link(Process& p, TaskId task, size_t server);
  Link& pubsub_link(Process& p, size_t server);
  // A latency in the plan's uniform range; under PCT, in the process's slice.
  int64_t uniform_latency(Link& link);
  int64_t draw_delay(Link& link, std::string_view what);
  // `footprint`: what the message may touch on the server, for the
  // exhaustive reduction (exhaustive.h; null: anything).
  void send_to_server(Link& link, std::function<void()> fn, std::string_view what = "request",
                      std::shared_ptr<const Footprint> footprint = nullptr);
  // The footprint of `argv` sent on `link` (null unless footprints are on); with
  // no argv, of a close (the server drops the session and its subscriptions).
  std::shared_ptr<const Footprint> footprint_of(const Link& link, const lock::Argv* argv);
  // Server `server`'s flag of exhaustive.h case 17 (Footprint::
  // server_effects), turned on for good here when the server has
  // notify-keyspace-events or maxmemory on, or `argv` (being sent to it)
  // is a CONFIG SET.
  std::shared_ptr<const bool> server_effects(size_t server, const lock::Argv* argv);
  // Records a message event of `link`'s task: sent, delivered, lost, delayed.
  void record_message(const Link& link, EventKind kind, std::string text, int64_t value = 0);
  // A message on the wire: what its arrival needs. Records are pooled
  // (messages_, reused through free_messages_), so a message's scheduled
  // action is a pointer and an index, which std::function keeps without a
  // heap block; a request and its reply carry their state here instead of
  // in a lambda of their own (two heap blocks less per message).
  struct Message {
    enum class Kind : uint8_t {
      kAction,   // fn
      kRequest,  // a round trip's request: task, token, argv, on_arrival, the fault draws
      kReply,    // its reply: task, token, reply, on_arrival
      kPush,     // a pub/sub message to the process: text (channel), reply (payload)
    };
    Kind kind = Kind::kAction;
    bool through_process = false;  // kAction: fn runs through Processes::deliver
    bool lost = false;             // kRequest: the draws round_trip made
    bool lost_after_run = false;
    bool reply_lost = false;
    bool message = false;  // kPush: a "message" push (anything else only travels)
    Link* link = nullptr;
    std::string_view what;  // a string literal
    int64_t sent = 0;       // when it was sent (true us)
    Task* task = nullptr;
    uint64_t token = 0;
    uint64_t incarnation = 0;  // kRequest: the sender's, when it sent
    uint64_t serial = 0;       // which use of this record (new_message counts them)
    std::function<void()> fn;
    lock::Argv argv;
    // kRequest: the sender's argv, read in place while the sender waits in
    // round_trip (which copies it into `argv` if it returns before the
    // arrival); null when the record owns its argv.
    const lock::Argv* borrowed_argv = nullptr;
    const lock::Argv& command() const { return borrowed_argv != nullptr ? *borrowed_argv : argv; }
    // The argv to keep beyond the arrival: moved out, or copied when borrowed.
    lock::Argv take_command() {
      return borrowed_argv != nullptr ? lock::Argv(*borrowed_argv) : std::move(argv);
    }
    std::function<void(const resp::Reply&)> on_arrival;
    resp::Reply reply;
    std::string text;
  };
  // A cleared record of the pool and its index.
  std::pair<Message*, uint32_t> new_message(Message::Kind kind);
  void release_message(uint32_t id);
  // Runs message `id` at its arrival, then releases it.
  void arrive(uint32_t id);
  void request_arrived(Message& m);
  // The history's value of `argv` sent on `link`: one of the link's recent
  // ones when equal, else the history's (History::intern_argv).
  HistoryArgv intern_command(Link& link, Message& m);
  void reply_arrived(Message& m);
  void push_arrived(Message& m);
  // The server's push on `link` sent on to the process (its pub/sub link).
  void send_push(Link& link, const resp::Reply& push);
  // Either direction: `last_arrival_us` is the link's last arrival time that way.
  // `through_process`: `fn` runs through Processes::deliver (deliver_to_client).
  void send(Link& link, int64_t& last_arrival_us, std::function<void()> fn, std::string_view what,
            std::shared_ptr<const Footprint> footprint = nullptr, TaskId task = 0,
            bool through_process = false);
  // send() of the filled record `id` (its link and what are set here).
  void send_message(Link& link, int64_t& last_arrival_us, uint32_t id, std::string_view what,
                    std::shared_ptr<const Footprint> footprint, TaskId task);
  // Sends argv on `link` for task `t`, blocks t until the reply arrives and
  // returns it. `on_arrival` runs when the reply reaches the process (before
  // the task resumes). timeout_us (process clock) > 0: lock::TimeoutError
  // after it. A broken connection: lock::IoError.
  // `argv` is read in place (Message::borrowed_argv): it must stay alive and
  // unchanged until round_trip returns.
  resp::Reply round_trip(Task& t, Link& link, const lock::Argv& argv,
                         std::function<void(const resp::Reply&)> on_arrival = {},
                         int64_t timeout_us = 0);
  // Blocks t for a refused connection attempt, then throws.
  [[noreturn]] void refuse(Task& t, size_t server, int64_t timeout_us);
  // True when `p` cannot reach server `server` now (down or partitioned).
  bool unreachable(const Process& p, size_t server) const;
  bool partitioned(const Process& p, size_t server) const;
  void fail_call(Task& t, uint64_t token, CallEnd end, std::string error, int64_t at_us);
  // A "message" push on `channel` reaching `p`: its history event, then
  // the process's callbacks subscribed to `channel` on `server`.
  void dispatch_push(Process& p, size_t server, const std::string& channel,
                     const resp::Reply& payload);

  Lifecycle& life_;
  Processes& procs_;
  Nodes& nodes_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<Window> partitions_;
  std::vector<Window> delays_;
  std::vector<Window> losses_;
  // Stable addresses (an arrival sends more). At most kKeptMessages free
  // records are kept for reuse (free_messages_); past that a released
  // record is freed and its index waits in dropped_messages_, so a burst of
  // messages (a thousand processes starting at once) does not hold its
  // memory for the rest of the run.
  static constexpr size_t kKeptMessages = 64;
  std::vector<std::shared_ptr<bool>> server_effects_;  // per server index: case 17's flag
  std::vector<std::unique_ptr<Message>> messages_;
  std::vector<uint32_t> free_messages_;
  std::vector<uint32_t> dropped_messages_;
  uint64_t message_serial_ = 0;
};

}  // namespace redsim::world::detail

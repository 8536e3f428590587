// Internal to sim/world: the state behind World and ProcessEnv. Not a public
// header; world.h is the contract.
//
// Execution model: the scheduler's events run on the thread's own stack.
// A task runs only inside run_task(), which resumes its fiber; the fiber runs
// until it blocks (block() + suspend()) or returns. Anything that ends a
// block (a reply, a timer, a signal) calls wake(task, token), which schedules
// run_task at the current time; the token makes stale wake-ups harmless.
// Everything that reaches a process from outside (a reply, a push, a wake-up)
// goes through deliver(), which holds it while the process is paused and
// drops it once the process is gone.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "sim/clock.h"
#include "sim/keyspace.h"
#include "sim/server.h"
#include "sim/world/drift_clock.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/fiber.h"
#include "sim/world/history.h"
#include "sim/world/pct.h"
#include "sim/world/prng.h"
#include "sim/world/schedule.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

struct Process;
struct Runtime;
struct Task;
struct Node;

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
  std::vector<InFlight> in_flight;
};

class SimConnection final : public lock::Connection {
 public:
  SimConnection(Runtime& rt, Task& task, size_t server) : rt_(rt), task_(task), server_(server) {}

 private:
  resp::Reply do_call(const lock::Argv& argv, std::optional<lock::Micros> timeout) override;

  Runtime& rt_;
  Task& task_;
  size_t server_;
  Link* link_ = nullptr;  // replaced when broken or closed
};

struct Task {
  enum class State : uint8_t { kReady, kRunning, kBlocked, kDone };

  Process* process = nullptr;
  TaskId id = 0;
  std::string name;
  std::unique_ptr<Fiber> fiber;
  State state = State::kReady;
  uint64_t block_token = 0;  // bumped by every block()
  // What ended the last block.
  bool signaled = false;
  resp::Reply reply;
  enum class CallEnd : uint8_t { kReply, kTimeout, kIoError };
  CallEnd call_end = CallEnd::kReply;
  std::string call_error;
  std::vector<std::unique_ptr<SimConnection>> connections;  // per server, made on first use
  // Crash cancellation (world.h): true while teardown() runs the task on
  // after failing its blocked call; counts its Env calls meanwhile.
  bool cancelling = false;
  int calls_after_crash = 0;
};

struct Subscription {
  size_t server = 0;
  std::string channel;
  std::function<void(const std::string&)> on_message;
};

struct Process {
  ProcessId pid = 0;
  std::string name;
  std::string client_id;
  std::function<void(ProcessEnv&)> main;
  std::unique_ptr<ProcessEnv> env;
  ProcessState state = ProcessState::kScheduled;
  bool paused = false;
  int64_t paused_until_us = 0;
  uint64_t pause_generation = 0;
  bool dying = false;                        // crashed or ended: Env calls no longer block
  std::vector<std::unique_ptr<Task>> tasks;  // tasks[id - 1]
  std::vector<std::function<void()>> held;   // deliveries held by a pause, in arrival order
  std::vector<Link*> pubsub_links;           // per server, made on first subscribe
  std::vector<Link*> links;                  // every link of this process
  std::map<lock::SubscriptionId, Subscription> subscriptions;
  lock::SubscriptionId next_subscription = 1;
  Prng random{0};          // random_u64()
  Prng fault_rng{0};       // random pause / crash decisions
  Prng seed_rng{0};        // root of this process's sub-seeds (links)
  Prng loss_rng{0};        // loss decisions
  Prng lost_reply_rng{0};  // lost-reply decisions
  Prng partition_rng{0};   // random partitions
  Prng clock_rng{0};       // drift and random jumps
  Prng restart_rng{0};     // random restarts after a crash
  // Random stalls so far as (start, end) in true us, for FaultPlan's stall budget.
  std::vector<std::pair<int64_t, int64_t>> stalls;
  DriftClock clock;          // what now() reads; sleeps and timeouts run on it
  TaskId main_task = 1;      // the current incarnation's main task
  uint64_t incarnation = 0;  // restarts so far
};

// One redis-server: a primary (the server index clients use) or a replica.
using KeyRef = std::pair<int, std::string>;  // (db, key)
using Snapshot = std::map<KeyRef, sim::Entry>;

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
// serves or times it out (Runtime::serve_unblocked).
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

struct Runtime {
  explicit Runtime(WorldOptions opts);
  ~Runtime();

  int64_t now() const { return sched.now_us(); }
  HistoryEvent event(EventKind kind, const Process* p, TaskId task) const;
  void record(HistoryEvent e) { history.add(std::move(e)); }

  // Lifecycle (world.cc).
  Process& process(ProcessId pid);
  void start_process(Process& p);
  Task& add_task(Process& p, std::string name, std::function<void()> body);
  void run_task(Task& t);
  void finish_task(Task& t);
  void crash(Process& p, std::string reason);
  void teardown(Process& p);
  void begin_pause(Process& p, int64_t duration_us, std::string_view why);
  void end_pause(Process& p);
  void deliver(Process& p, std::function<void()> fn);
  void expire_tick();
  // Lease bars for timelines: `key` (a resource the workload named) is
  // tracked on every server from now on; note_key_states(s) records a
  // kKeyState event for each tracked key whose state on server s changed.
  void track_key(const std::string& key);
  // `writer`/`task`: the client whose command may have changed them (kKeyState's
  // process and task), nullptr for expiry, server faults and replication.
  void note_key_states(size_t server, Process* writer = nullptr, TaskId task = 0);
  // FaultPlan's stall budget: how long process `p` may still be stalled now
  // (INT64_MAX without a budget), and a stall of `length_us` from now.
  int64_t stall_allowance(Process& p);
  void note_stall(Process& p, int64_t length_us);
  void restart(Process& p, std::function<void(ProcessEnv&)> main);
  void set_client_id(Process& p);

  // Blocking, called on a task's fiber (world.cc).
  Task& current_task(Process& p);  // std::logic_error when not on a task of p
  uint64_t block(Task& t);
  // Throws lock::ClosedError when the task was resumed by a crash's teardown.
  void suspend(Task& t);
  // Called by each Env call of a task whose process is gone, before it
  // fails or returns at once: a task that keeps calling (a retry loop) is
  // suspended after kCallsAfterCrash calls and then force-unwound.
  void call_after_crash(Task& t);
  static constexpr int kCallsAfterCrash = 1000;
  bool wake(Task& t, uint64_t token);
  void yield(Task& t);
  void fault_point(Process& p, Task& t);
  // fault_point's crash and pauses under the exhaustive strategy.
  // fault_point's two halves: the exhaustive strategy's binary choices
  // (explore/exhaustive.h) and the plan's random draws, over the same three faults.
  void exhaustive_fault_point(Process& p, Task& t);
  void random_fault_point(Process& p, Task& t);
  [[noreturn]] void crash_at_fault_point(Process& p, Task& t, const char* why);
  void pause_at_fault_point(Process& p, Task& t, int64_t length, const char* why);
  void pause_task_at_fault_point(Process& p, Task& t, int64_t length, const char* why);

  // Network (network.cc).
  lock::Connection& connection(Task& t, size_t server);
  Link& new_link(Process& p, TaskId task, size_t server);
  Link& pubsub_link(Process& p, size_t server);
  int64_t draw_latency(Link& link);
  // A latency in the plan's uniform range; under PCT, in the process's slice.
  int64_t uniform_latency(Link& link);
  int64_t draw_delay(Link& link, std::string_view what);
  // `footprint`: what the message may touch on the server, for the
  // exhaustive reduction (exhaustive.h; null: anything).
  void send_to_server(Link& link, std::function<void()> fn, std::string_view what = "request",
                      std::shared_ptr<const Footprint> footprint = nullptr);
  // The footprint of `argv` sent on `link` (null unless `footprints`); with
  // no argv, of a close (the server drops the session and its subscriptions).
  std::shared_ptr<const Footprint> footprint_of(const Link& link, const lock::Argv* argv) const;
  void send_to_client(Link& link, std::function<void()> fn, std::string_view what = "reply");
  // Records a message event of `link`'s task: sent, delivered, lost, delayed.
  void record_message(const Link& link, EventKind kind, std::string text, int64_t value = 0);
  // Either direction: `last_arrival_us` is the link's last arrival time that way.
  void send(Link& link, int64_t& last_arrival_us, std::function<void()> fn, std::string_view what,
            std::shared_ptr<const Footprint> footprint = nullptr);
  // Sends argv on `link` for task `t`, blocks t until the reply arrives and
  // returns it. `on_arrival` runs when the reply reaches the process (before
  // the task resumes). timeout_us (process clock) > 0: lock::TimeoutError
  // after it. A broken connection: lock::IoError.
  resp::Reply round_trip(Task& t, Link& link, lock::Argv argv,
                         std::function<void(const resp::Reply&)> on_arrival = {},
                         int64_t timeout_us = 0);
  // Blocks t for a refused connection attempt, then throws.
  [[noreturn]] void refuse(Task& t, size_t server, int64_t timeout_us);
  // True when `p` cannot reach server `server` now (down or partitioned).
  bool unreachable(const Process& p, size_t server) const;
  bool partitioned(const Process& p, size_t server) const;
  void close_link(Link& link);
  // Resets `link`: the session goes at once, calls in flight fail with
  // lock::IoError at now + notify_after_us.
  void break_link(Link& link, std::string why, int64_t notify_after_us);
  void fail_call(Task& t, uint64_t token, Task::CallEnd end, std::string error, int64_t at_us);
  void start_partition(Process& p, size_t server, int64_t until_us);
  void resubscribe(Process& p, size_t server);
  void dispatch_push(Process& p, size_t server, const resp::Reply& push);
  lock::SubscriptionId subscribe(Process& p, const std::string& channel,
                                 std::function<void(const std::string&)> on_message, size_t server);
  void unsubscribe(Process& p, lock::SubscriptionId id);

  // Servers (servers.cc).
  void make_nodes();
  void start_node(Node& n, const Snapshot& data);
  void crash_node(Node& n, std::string why, bool schedule_restart);
  void restart_node(Node& n);
  void failover(size_t server, size_t replica);
  void after_command(Node& n);
  void after_write(Node& n, sim::Session& session);
  int64_t acked_replicas(const Node& n, uint64_t offset) const;
  void check_waits(Node& n);
  // Ends a blocked WAIT with `acked` replicas: records the command and
  // sends the reply to its task.
  void reply_wait(const BlockedWait& w, int64_t acked);
  // Blocked clients (sim/blocking.h): send the replies of the blocks that
  // ended; arm the timer of the next deadline; forget a link's block.
  void serve_unblocked(Node& n);
  void arm_block_timer(Node& n);
  void forget_blocked(Link& link);
  void full_sync(Node& replica, Node& primary);
  void fsync_tick();
  void jump_node_clock(Node& n, int64_t delta_us, std::string_view why);
  sim::Server& primary_server(size_t server) { return *primaries[server]->server_; }
  size_t server_count() const { return primaries.size(); }

  // Declaration order is destruction order reversed: fibers are unwound in
  // ~Runtime's body, then processes, links (sessions), servers, clocks go.
  WorldOptions options;
  Scheduler sched;
  std::unique_ptr<PctPriorities> pct;  // set under Strategy PCT (pct.h)
  std::unique_ptr<Chooser> chooser;    // set under the exhaustive strategy (explore/exhaustive.h)
  // Exhaustive: a choice among `options` latency / fault options (0 = the
  // default); 0 without a chooser.
  uint32_t choose(uint32_t options) { return chooser ? chooser->choose(options, false) : 0; }
  // Exhaustive with the reduction, in a world whose client-side events never
  // reach server state and whose servers draw nothing per command (no
  // partitions, message delays, server crashes, failovers, server clock
  // jumps, replicas): requests carry footprints (exhaustive.h).
  bool footprints = false;
  History history;
  Prng root;
  std::vector<std::unique_ptr<Node>> nodes;  // servers first, then replicas
  std::vector<Node*> primaries;              // per server index: its current primary
  std::vector<std::unique_ptr<Link>> links;
  struct Window {
    ProcessId pid;
    size_t server;
    int64_t from_us;
    int64_t to_us;
    int64_t extra_us;  // delay windows; lose windows: the Loss
  };
  std::vector<Window> partitions;
  std::vector<Window> delays;
  std::vector<Window> losses;
  std::vector<std::unique_ptr<Process>> processes;  // processes[pid - 1]
  Task* current = nullptr;                          // the task whose fiber runs now
  // Tracked keys and, per server, their last recorded state: the deadline
  // as true time (us), -1 for no deadline; absent keys are not in the map.
  std::set<std::string, std::less<>> tracked_keys;
  // How many processes were spawned with each random stream (World::spawn_process).
  std::map<uint64_t, uint64_t> stream_uses;
  struct KeyState {
    int64_t deadline_us = -1;  // true time; -1: persistent
    std::vector<std::string> marks;
    bool operator==(const KeyState&) const = default;
  };
  std::vector<std::map<std::string, KeyState, std::less<>>> key_states;
  // ProcessEnv::fenced_resource: one per name, shared by every process.
  std::map<std::string, std::unique_ptr<FencedResource>, std::less<>> fenced_resources;
};

}  // namespace redsim::world::detail

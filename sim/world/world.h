// World: the deterministic simulation. Simulated client processes, each a
// set of tasks on stackful fibers, talk to one or more fake Redis servers
// over a simulated network, in virtual time, with faults from a plan. One
// seed drives every choice; the same seed and the same inputs give the same
// history, byte for byte.
//
//   world::WorldOptions opts;
//   opts.seed = 7;
//   opts.faults.latency_min = 200;
//   opts.faults.latency_max = 900;
//   world::World w(opts);
//   auto pid = w.spawn_process("holder", [](world::ProcessEnv& env) {
//     lock::SimpleLock lock(env, "orders:42");
//     if (lock.try_lock()) {
//       env.enter_critical("orders:42");
//       env.sleep_for(std::chrono::milliseconds(5));
//       env.leave_critical("orders:42");
//       lock.unlock();
//     }
//   });
//   w.pause_process(pid, std::chrono::milliseconds(2), std::chrono::milliseconds(50));
//   w.run();
//   auto violations = world::check_mutual_exclusion(w.history());
//
// Time: every time in this API is true virtual time since the world started
// (t = 0), in microseconds. Each server node has its own clock: it reads
// WorldOptions::start_epoch_us (2026-01-01 by default) plus its drifting
// clock (drift_clock.h: drift in ppm, jumps) plus its DEBUG SLEEP offset;
// key expiry, TIME and PTTL follow it. Each process has its own clock too:
// ProcessEnv::now reads it (0 at t = 0, then drift and jumps), and every
// duration the process asks for is measured on it at its rate but ignores
// its jumps: sleep_for(d), Event::wait_for(d) and a command timeout of d last
// d on the process clock, i.e. DriftClock::true_duration(d) of true time, as
// a timer on CLOCK_MONOTONIC (a clock 1000 ppm fast sleeps 1 s in 0.999 s;
// a jump of now() by -5 s does not lengthen a sleep). So a lock computing
// "lease - elapsed" from now() sees the jumps, which is the Redlock debate
// (Kleppmann, "How to do distributed locking"; antirez, "Is Redlock safe?").
//
// Network: each task has its own connection (a sim::Session) to each server,
// made on first use; a process has one more per server for pub/sub. A
// message sent at t reaches the other side at t + latency (+ a delay fault),
// drawn per message; messages on one connection never overtake each other.
// A request runs on the server when it arrives; its reply travels back the
// same way. A connection that broke (loss, timeout, partition, server crash
// or failover) is not reused: the task's next call opens a new one, to the
// server's current primary (a new server session: WATCHes and MULTI state
// are gone). A connection that broke while idle with a MULTI open or keys
// WATCHed (as its replies told the client) first fails that next call with
// lock::IoError, the command not run, as hiredis reads EOF on the old
// socket: a transaction never goes on without its state. Pub/sub
// connections that broke are opened again, and their channels subscribed
// again, when the server is reachable again (Redisson resubscribes);
// messages published meanwhile are lost.
//
// Faults (FaultPlan, all off by default, each with its own seeded stream;
// scheduled ones through the World calls below, at chosen times):
// - network: latency distributions, loss (IoError, the command ran or not),
//   lost replies (TimeoutError after the command timeout), delayed messages,
//   partitions between a process and a server (World::partition);
// - processes: pauses (stop the world: no task of the process runs, watchdog
//   included; replies and pushes that arrive meanwhile are held and
//   delivered on resume, in order), crashes (every task's fiber is unwound,
//   its connections close after the messages already on the wire, so the
//   server drops its subscriptions), restarts (a new client id, fresh tasks);
// - clocks: drift and jumps of each process's and each server node's clock;
// - servers: crash and restart with WorldOptions::persistence, replicas with
//   asynchronous replication lag, failover, WAIT (blocks in the world as in
//   Redis: until enough replicas acknowledged this connection's writes or
//   the timeout).
// Random pauses, crashes, partitions and process clock jumps are decided at
// blocking calls (a Redis round trip, sleep, event wait, subscribe), server
// faults after each command a server runs, each with a probability per call.
// Every fault is a history event (history.h) a timeline can draw.
//
// Crash and cancellation: when a process crashes (or its main task ends),
// each of its tasks blocked in an Env call (a round trip, sleep_for,
// Event::wait_for, subscribe) gets that call failed with lock::ClosedError
// and runs on, at once, as a thread whose sockets were closed would: from
// then on Env calls do not block: connection() and Connection::call() throw
// lock::ClosedError, sleep_for returns at once, Event::wait_for returns
// false, subscribe throws ClosedError, spawn does nothing, and
// enter/leave/record calls are ignored (a crash ends the process's critical
// sections by itself). Whatever escapes such a task is dropped. Failing the
// call, rather than unwinding the fiber from inside it, is what lets an
// unlock() that std::unique_lock's noexcept destructor called return
// normally (its outcome: kConnection) instead of calling std::terminate.
// A task that keeps calling after that (a retry loop that swallows
// ClosedError) is stopped after 1000 calls and its stack unwound with
// Boost.Context's forced_unwind, as is every fiber of a World destroyed
// while its tasks are blocked: RAII cleanup runs, and code on a fiber must
// never swallow that exception: `catch (...)` must rethrow (a swallowed
// unwind aborts the program with a message). Env calls made while unwinding
// behave as above. So a World should be run until its processes are done
// before it is destroyed when a task may be blocked inside a noexcept
// function.
//
// An exception other than that escaping a task is recorded (kTaskError) and
// crashes the process, as std::terminate would.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lock/env.h"
#include "sim/clock.h"
#include "sim/server.h"
#include "sim/world/client_env.h"
#include "sim/world/history.h"
#include "sim/world/pct.h"
#include "sim/world/ppm.h"
#include "sim/world/schedule.h"

namespace redsim::world {

using Micros = std::chrono::microseconds;

class FencedResource;

namespace detail {
struct Runtime;
struct Process;
}  // namespace detail

enum class LatencyDistribution : uint8_t {
  kUniform,  // every value in [latency_min, latency_max] equally likely
  kFixed,    // always latency_min
  // A uniform body in [latency_min, latency_max], then a geometric
  // number of doublings: each with probability latency_tail_ppm / 1e6, so
  // P(latency > body * 2^k) = p^k, a power-law (Pareto-like) tail; capped at
  // latency_tail_max. Integer draws only (no floating point).
  kLongTail,
};

// How a server keeps its data across a crash (Redis persistence docs,
// "Append-only file": appendfsync always / everysec). RDB snapshots are not
// modelled.
enum class Persistence : uint8_t {
  kNone,         // a restarted server is empty (Redlock's "restart without persistence")
  kAofAlways,    // every acknowledged write survives (fsync before each reply)
  kAofEverysec,  // the data as of the last whole-second fsync survives: up to 1 s of writes lost
};

// Every fault is off by default. Each random choice draws from its own
// sub-stream of the world's seed (per process, per connection, per server
// node), so switching one fault on does not reshuffle the others' draws.
// Chances are Ppm (sim/world/ppm.h: parts per million, probability * 1e6);
// lengths are Micros. A [min, max] pair is drawn uniformly, both inclusive.
struct FaultPlan {
  // ---- Network. One-way latency of each message (request, reply, pub/sub
  // push, close), drawn per message. Default 0: messages arrive in the same
  // microsecond. Messages on one connection never overtake each other.
  LatencyDistribution latency_distribution = LatencyDistribution::kUniform;
  Micros latency_min{0};
  Micros latency_max{0};
  Ppm latency_tail_ppm{0};  // kLongTail: chance of each doubling
  // kLongTail cap; nullopt: 1024 * max(latency_max, 1 us). (A plan's text
  // form, harness::encode_plan, writes nullopt as 0.)
  std::optional<Micros> latency_tail_max;

  // Connection loss per command (Connection::call, SUBSCRIBE): the
  // connection breaks and the call throws lock::IoError when the reset
  // reaches the client. Of the losses, loss_executed_ppm / 1e6 happen after
  // the server ran the command (its effects stay), the rest before (the
  // command never runs). The next call on that Connection opens a new one.
  Ppm loss_ppm{0};
  Ppm loss_executed_ppm{500000};  // half

  // Lost reply per command: the server runs it, its reply never arrives;
  // the client throws lock::TimeoutError after its command timeout
  // (WorldOptions::command_timeout or call(argv, timeout)); without a
  // timeout the task waits until its process ends or the connection breaks
  // (lock::IoError), as a blocking hiredis call with no timeout would.
  Ppm lost_reply_ppm{0};

  // Delayed messages: each message, with probability delay_ppm / 1e6, is
  // held back by an extra delay drawn in [delay_min, delay_max]
  // (still in order on its connection: later messages wait behind it).
  Ppm delay_ppm{0};
  Micros delay_min{0};
  Micros delay_max{0};

  // Random partitions: at each blocking call a process is cut from one
  // server (drawn uniformly) with probability partition_ppm / 1e6, for a
  // length drawn in [partition_min, partition_max]. See
  // World::partition for what a partition does.
  Ppm partition_ppm{0};
  Micros partition_min{0};
  Micros partition_max{0};

  // ---- Processes. Random pauses: at each blocking call a process pauses
  // with probability pause_ppm / 1e6, for a length drawn uniformly in
  // [pause_min, pause_max]. The call then proceeds after the pause.
  Ppm pause_ppm{0};
  Micros pause_min{0};
  Micros pause_max{0};
  // Random task pauses: at each blocking call the calling task alone (a
  // thread the OS does not schedule) stalls with probability
  // task_pause_ppm / 1e6, for a length drawn as for a pause; the process's
  // other tasks run on (a watchdog keeps renewing while its holder is stuck).
  // Recorded as a kTrace "task paused for ...".
  Ppm task_pause_ppm{0};

  // Random crashes: at each blocking call a process crashes with probability
  // crash_ppm / 1e6, before the call sends or waits for anything.
  Ppm crash_ppm{0};
  // A crashed process (random or scheduled) restarts with probability
  // restart_ppm / 1e6, after a delay drawn in [restart_min, restart_max].
  Ppm restart_ppm{0};
  Micros restart_min{0};
  Micros restart_max{0};

  // ---- Clocks. Every process and every server node draws its drift once,
  // uniformly in [-clock_drift_ppm_max, clock_drift_ppm_max]. Random jumps:
  // a process's clock at each of its blocking calls, a server node's clock
  // after each command it runs, jumps with probability clock_jump_ppm / 1e6
  // by a delta drawn in [-clock_jump_max, clock_jump_max].
  int64_t clock_drift_ppm_max = 0;
  Ppm clock_jump_ppm{0};
  Ppm server_clock_jump_ppm{0};
  Micros clock_jump_max{0};

  // ---- Servers. After each command a primary runs, it crashes with
  // probability server_crash_ppm / 1e6 (the reply is lost with the
  // connection) and restarts after a delay drawn in [server_down_min,
  // server_down_max], with WorldOptions::persistence. With replicas, a
  // failover (World::failover, first replica) follows each command with
  // probability failover_ppm / 1e6; the old primary restarts as a replica
  // of the promoted one after a delay drawn as for a crash.
  Ppm server_crash_ppm{0};
  Micros server_down_min{0};
  Micros server_down_max{0};
  Ppm failover_ppm{0};

  // ---- Stall budget (the harness's budgeted fault profile: a live holder
  // never outlives its lease). With a stall_budget, the random faults
  // that hold one process up add up to at most stall_budget in any
  // window of stall_budget_window: pauses and partitions for their
  // length, a delayed message for its extra delay, a lost reply for the
  // command timeout its caller waits (a call without a timeout never loses
  // its reply under a budget). A draw that would exceed what is left is cut
  // to it, or not made when that is below the fault's minimum. Scheduled
  // faults (the World calls) are not limited. nullopt: no budget (the text
  // form writes it as 0). A budget of zero allows no random stall at all.
  std::optional<Micros> stall_budget;
  Micros stall_budget_window{0};
};

struct WorldOptions {
  uint64_t seed = 1;
  size_t servers = 1;  // >= 1: independent servers (Redlock's N); Env::connection(i)
  FaultPlan faults;
  // run() stops here (true time since start, us). Default: one virtual hour.
  int64_t time_limit_us = int64_t{3600} * 1000 * 1000;
  // What the servers' clocks read at t = 0 (us since the Unix epoch).
  int64_t start_epoch_us = sim::ManualClock::kDefaultEpochUs;
  // Each server's active_expire_cycle() runs this often (Redis's hz 10);
  // nullopt: never (keys then expire lazily only).
  std::optional<Micros> active_expire_interval = Micros{100 * 1000};
  // Stack size of each task's fiber. A task blocked with at least 192 KiB
  // of it free runs the events due next (the server's commands and scripts
  // among them) on it instead of switching (its history is the same).
  size_t fiber_stack_bytes = 256 * 1024;
  // Options of every server; `seed` is replaced by one forked from `seed` above.
  sim::ServerOptions server;

  // Default timeout of Connection::call on the process's clock; nullopt:
  // none (wait for the reply however long it takes). call(argv, timeout) with a
  // timeout > 0 overrides it. On timeout the call throws lock::TimeoutError
  // and the connection is replaced on the next call (the command may have run).
  std::optional<Micros> command_timeout;
  // How long a connection attempt to a server that is down or partitioned
  // from the process takes to fail with lock::IoError (or the call's
  // timeout, when shorter: lock::TimeoutError).
  int64_t connect_refused_us = 1000;
  // What a server keeps across a crash (World::crash_server).
  Persistence persistence = Persistence::kNone;
  // Replicas of each server (0 = none). Replication is asynchronous: each
  // write command's effects (the new state of every key it changed, with its
  // absolute deadline, or its deletion; a script's or EXEC's effects as one
  // unit) reach each replica after a lag drawn per write in
  // [replication_lag_min_us, replication_lag_max_us], in order; a replica's
  // acknowledgement reaches the primary at once (Redis's WAIT asks for one:
  // REPLCONF GETACK). Redis replication docs: "Redis uses by default
  // asynchronous replication"; WAIT page: it "does not make Redis a strongly
  // consistent store". Replicas do not expire keys actively; they apply the
  // deadlines they received on their own clock when read.
  size_t replicas = 0;
  int64_t replication_lag_min_us = 0;
  int64_t replication_lag_max_us = 0;
  // Record every message sent and delivered (kMessageSent/kMessageDelivered)
  // for timelines; off by default (it grows the history a lot).
  bool record_messages = false;
  // How same-time events and latencies are chosen (sim/world/pct.h):
  // random by default; PCT with `pct_steps` (k, >= 1) steps for its change
  // points; exhaustive (sim/world/explore/exhaustive.h): the schedule
  // strategy.schedule, with the choice points it met in choice_points().
  Strategy strategy;
  uint64_t pct_steps = 100;
};

// What World::lose_messages does to each call made in its window.
enum class Loss : uint8_t {
  kRequest,           // the connection resets before the command runs: IoError, no effect
  kReplyAfterRun,     // the command runs, then the connection resets: IoError
  kReplyWithTimeout,  // the command runs, its reply never comes: TimeoutError after the timeout
};

enum class ProcessState : uint8_t {
  kScheduled,  // spawned, start time not reached
  kRunning,    // started, alive (tasks may be blocked)
  kPaused,     // alive but stopped by a pause
  kEnded,      // its main task returned
  kCrashed,    // crashed (scheduled, random, or an uncaught exception)
};

// The Env a simulated process's code runs against (see lock/env.h for the
// contract of each call), plus the ClientEnv calls the workload uses to tell
// the history what it did.
class ProcessEnv final : public ClientEnv {
 public:
  ProcessEnv(detail::Runtime& runtime, detail::Process& process);
  ProcessEnv(const ProcessEnv&) = delete;
  ProcessEnv& operator=(const ProcessEnv&) = delete;

  // lock::Env. Blocking calls (Connection::call, subscribe, sleep_for,
  // Event::wait_for) must come from a task of this process, never from a
  // pub/sub callback: std::logic_error otherwise.
  // std::out_of_range on a bad index. Its call(argv) waits up to
  // WorldOptions::command_timeout (nullopt: forever), call(argv, timeout) up to
  // `timeout` (process clock); they throw lock::TimeoutError when no reply
  // came in time, lock::IoError when the connection broke or a new one was
  // refused (server down, partition), lock::ClosedError once the process is
  // gone. After TimeoutError or IoError the command may or may not have run.
  lock::Connection& connection(size_t server = 0) override;
  size_t server_count() const override;
  // Throws lock::UnexpectedReply if the server refuses the SUBSCRIBE.
  lock::SubscriptionId subscribe(const std::string& channel,
                                 std::function<void(const std::string& message)> on_message,
                                 size_t server = 0) override;
  // Stops callbacks for `id` at once; when no subscription of this process
  // is left on that channel, UNSUBSCRIBE is sent without waiting for the reply.
  void unsubscribe(lock::SubscriptionId id) override;
  // The process clock, us: 0 at t = 0, then its drift and jumps (see Time above).
  lock::EnvTime now() override;
  // Lasts d on the process clock (its rate, not its jumps); see Time above.
  void sleep_for(lock::Micros d) override;
  // Event::wait_for(d) times out after d on the process clock, as sleep_for.
  std::unique_ptr<lock::Event> make_event() override;
  void spawn(std::string name, std::function<void()> fn) override;
  std::string client_id() override;            // "c<pid>-<8 hex>", from the seed
  uint64_t task_id() override;                 // the calling task; 0 from a pub/sub callback
  uint64_t random_u64() override;              // this process's own stream
  void trace(std::string_view what) override;  // a kTrace line in the history

  // ClientEnv (client_env.h): what the workload did, recorded at true time
  // with the calling task as owner. Ignored once the process is crashed or ended.
  void enter_critical(std::string_view resource) override;
  void leave_critical(std::string_view resource) override;
  void record_acquire_start(std::string_view resource, Micros wait) override;
  void record_acquire_end(std::string_view resource, bool acquired) override;
  void record_hold(std::string_view resource, HoldOp op, int64_t observed_count) override;
  void record(std::string_view result) override;
  // A FencedResource's verdict on a write with `token` (kFencedWrite). Read
  // by check_fencing. FencedResource::write calls it; workloads need not.
  void record_fenced_write(std::string_view resource, int64_t token, bool accepted);
  // The acquire attempt of `resource` ended with an error (a lock::ConnectionError:
  // whether the lock was taken is unknown): kAcquireEnd with value 2, `what` as text.
  void record_acquire_error(std::string_view resource, std::string_view what);
  // The unlock of `resource` ended (kUnlockEnd): read by check_ghost_locks.
  void record_unlock_end(std::string_view resource, UnlockOutcome outcome,
                         std::string_view detail = {});
  // The lock on `resource` just acquired promises to be this task's alone
  // until `valid_until` on this process's clock (now()'s): kValidity, whose
  // value is the true time at which this clock reads valid_until at its
  // current rate (now, when valid_until is not after now()). Read by the
  // harness's validity checker (sim/world/testing/harness.h).
  void record_validity(std::string_view resource, lock::EnvTime valid_until);
  // Kleppmann's storage service named `name` (fenced_resource.h), one per
  // name in the world, shared by every process; made on first use (include
  // sim/world/fenced_resource.h to call it).
  FencedResource& fenced_resource(std::string_view name);

  const std::string& process_name() const;
  ProcessId process_id() const;

 private:
  detail::Runtime& rt_;
  detail::Process& p_;
};

class World {
 public:
  explicit World(WorldOptions options = {});
  // Unwinds every fiber still alive, then closes sessions and servers.
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A process named `name` (for the timeline) whose main task runs `main`
  // from `start_at`. The process ends when `main` returns (its other tasks
  // are stopped then, as at exit()). Ids are 1, 2, ... in spawn order.
  // `stream` names the process's random streams (latency, faults, ids,
  // random_u64); by default its id. An explicit stream keeps a process's
  // draws unchanged when other processes are added or removed, which lets a
  // shrinker drop a client without reshuffling the others.
  ProcessId spawn_process(std::string name, std::function<void(ProcessEnv&)> main,
                          Micros start_at = Micros{0}, std::optional<uint64_t> stream = {});
  // Stops every task of `pid` at `at` for `duration` (a pause inside a pause
  // extends it). Ignored if the process is gone by then.
  void pause_process(ProcessId pid, Micros at, Micros duration);
  // Crashes `pid` at `at`. Ignored if the process is gone by then.
  void crash_process(ProcessId pid, Micros at);
  // Restarts `pid` at `at` if it is crashed then (ignored otherwise): a new
  // client id (Redisson's new connection-manager UUID), fresh tasks, no
  // connections or subscriptions; its main task runs `main`, or the
  // original main when empty. Recorded as kProcessRestart.
  void restart_process(ProcessId pid, Micros at, std::function<void(ProcessEnv&)> main = {});
  // Runs `action` at `at`, on the scheduler (not a fiber; it must not block).
  void at(Micros at, std::function<void()> action);

  // ---- Network faults.
  // Cuts process `pid` from server `server` from `from` to `to`: every
  // connection between them breaks at `from` (the pub/sub one too; its
  // subscriptions are sent again when the partition heals, as Redisson
  // resubscribes); a call in flight then, or made during the partition,
  // throws lock::TimeoutError when its timeout ends first, else
  // lock::IoError at the heal (a new connection attempt: after
  // WorldOptions::connect_refused_us). Messages already on the wire are lost.
  void partition(ProcessId pid, size_t server, Micros from, Micros to);
  // Every call (Connection::call, SUBSCRIBE) that process `pid` makes to
  // `server` in [from, to) is lost as `loss` says (see FaultPlan::loss_ppm
  // and lost_reply_ppm): e.g. an unlock whose reply is lost, then retried.
  void lose_messages(ProcessId pid, size_t server, Micros from, Micros to, Loss loss);
  // Every message between `pid` and `server` sent in [from, to) (both
  // directions) arrives `extra` later than its latency says, still in order.
  void delay_messages(ProcessId pid, size_t server, Micros from, Micros to, Micros extra);

  // ---- Clocks (drift_clock.h). A process's clock is what ProcessEnv::now
  // reads and what its sleeps, waits and command timeouts are measured on;
  // a server node's clock is what its commands see (TIME, expiry).
  void set_process_clock_drift(ProcessId pid, int64_t drift_ppm, Micros at = Micros{0});
  void jump_process_clock(ProcessId pid, Micros at, Micros delta);
  // `node`: the server index (its current primary) or a replica (node_of).
  void set_server_clock_drift(size_t node, int64_t drift_ppm, Micros at = Micros{0});
  void jump_server_clock(size_t node, Micros at, Micros delta);

  // ---- Server faults. Nodes: 0 .. servers-1 are the servers as first
  // started; replica r of server s is node_of(s, r). After a failover, server
  // s means the promoted node.
  size_t node_of(size_t server, size_t replica) const;
  // Crashes node `node` at `at`: its connections break (calls in flight
  // throw lock::IoError), its data is cut to what WorldOptions::persistence
  // keeps, and it refuses connections until restarted.
  void crash_server(size_t node, Micros at);
  // Restarts a crashed node at `at` with what it kept. A replica (or a
  // former primary after a failover) resynchronises from its primary in
  // full; a restarted primary's replicas resynchronise from it (an empty
  // primary empties them, as in Redis).
  void restart_server(size_t node, Micros at);
  // At `at`, the primary of `server` is stopped (crashed, if up) and its
  // replica `replica` promoted: writes it had not received are lost.
  // Clients reach the promoted node on their next connection (connections
  // to the old primary break). The other replicas follow the new primary.
  void failover(size_t server, Micros at, size_t replica = 0);

  enum class RunEnd : uint8_t {
    kIdle,       // nothing left to do (only housekeeping events remain)
    kTimeLimit,  // WorldOptions::time_limit_us reached
    kPruned,     // exhaustive: the sleep sets proved the rest redundant (explore/exhaustive.h)
  };
  RunEnd run();
  // Runs every event up to and including `t`; then now() == t.
  void run_until(Micros t);
  Micros now() const;

  // The current primary of server i (a reference valid until it crashes or
  // is failed over); std::logic_error while it is down.
  sim::Server& server(size_t i = 0);
  size_t server_count() const;
  // Any node (see node_of); std::logic_error when it is down.
  sim::Server& node(size_t node);
  bool node_up(size_t node) const;
  // What process `pid`'s clock reads now (us).
  int64_t process_clock_us(ProcessId pid) const;
  const History& history() const;
  ProcessState process_state(ProcessId pid) const;
  std::string client_id(ProcessId pid) const;
  uint64_t seed() const;
  // Exhaustive strategy: the choice points met so far and the options taken
  // (empty under the other strategies).
  std::vector<ChoicePoint> choice_points() const;

 private:
  std::unique_ptr<detail::Runtime> rt_;
};

}  // namespace redsim::world

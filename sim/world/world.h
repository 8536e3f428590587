// World: the deterministic simulation. Simulated client processes, each a
// set of tasks on stackful fibers, talk to one or more fake Redis servers
// over a simulated network, in virtual time, with faults from a plan. One
// seed drives every choice; the same seed and the same inputs give the same
// history, byte for byte.
//
//   world::WorldOptions opts;
//   opts.seed = 7;
//   opts.faults.latency_min_us = 200;
//   opts.faults.latency_max_us = 900;
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
// (t = 0), in microseconds. Servers see t plus WorldOptions::start_epoch_us
// (2026-01-01 by default) plus their own DEBUG SLEEP offset; a process sees
// its own clock (ProcessEnv::now, true time for now; drift and jumps later).
//
// Network: each task has its own connection (a sim::Session) to each server,
// made on first use; a process has one more per server for pub/sub. A
// message sent at t reaches the other side at t + latency, drawn per message;
// messages on one connection never overtake each other. A request runs on
// the server when it arrives; its reply travels back the same way.
//
// Faults (FaultPlan, all off by default): latency; process pauses (stop the
// world: no task of the process runs, watchdog included; replies and pushes
// that arrive meanwhile are held and delivered on resume, in order); process
// crashes (every task's fiber is unwound, its connections close after the
// messages already on the wire, so the server drops its subscriptions).
// Pauses and crashes come at chosen times (pause_process, crash_process) or
// at random blocking calls (a Redis round trip, sleep, event wait,
// subscribe) with a probability per call.
//
// Crash and cancellation: a crashed (or ended) process's suspended fibers are
// destroyed; Boost.Context unwinds each stack with its forced_unwind
// exception, so RAII cleanup runs. Code on a fiber must never swallow it:
// `catch (...)` must rethrow (a swallowed unwind aborts the program with a
// message). While unwinding, Env calls do not block: connection() and
// Connection::call() throw lock::ClosedError, sleep_for returns at once,
// Event::wait_for returns false, subscribe throws ClosedError, and
// enter/leave/record calls are ignored (a crash ends the process's critical
// sections by itself).
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

namespace redsim::world {

using Micros = std::chrono::microseconds;

namespace detail {
struct Runtime;
struct Process;
}  // namespace detail

enum class LatencyDistribution : uint8_t {
  kUniform,  // every value in [latency_min_us, latency_max_us] equally likely
};

struct FaultPlan {
  // One-way latency of each message (request, reply, pub/sub push, close),
  // drawn per message. Default 0: messages arrive in the same microsecond.
  LatencyDistribution latency_distribution = LatencyDistribution::kUniform;
  int64_t latency_min_us = 0;
  int64_t latency_max_us = 0;

  // Random pauses: at each blocking call a process pauses with probability
  // pause_ppm / 1e6 (parts per million), for a length drawn uniformly in
  // [pause_min_us, pause_max_us]. The call then proceeds after the pause.
  uint32_t pause_ppm = 0;
  int64_t pause_min_us = 0;
  int64_t pause_max_us = 0;

  // Random crashes: at each blocking call a process crashes with probability
  // crash_ppm / 1e6, before the call sends or waits for anything.
  uint32_t crash_ppm = 0;
};

struct WorldOptions {
  uint64_t seed = 1;
  size_t servers = 1;  // >= 1
  FaultPlan faults;
  // run() stops here (true time since start, us). Default: one virtual hour.
  int64_t time_limit_us = int64_t{3600} * 1000 * 1000;
  // What the servers' clocks read at t = 0 (us since the Unix epoch).
  int64_t start_epoch_us = sim::ManualClock::kDefaultEpochUs;
  // Each server's active_expire_cycle() runs this often (Redis's hz 10); 0 = never.
  int64_t active_expire_interval_us = 100 * 1000;
  // Stack size of each task's fiber.
  size_t fiber_stack_bytes = 256 * 1024;
  // Options of every server; `seed` is replaced by one forked from `seed` above.
  sim::ServerOptions server;
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
  lock::Connection& connection(size_t server = 0) override;  // std::out_of_range on a bad index
  size_t server_count() const override;
  // Throws lock::UnexpectedReply if the server refuses the SUBSCRIBE.
  lock::SubscriptionId subscribe(const std::string& channel,
                                 std::function<void(const std::string& message)> on_message,
                                 size_t server = 0) override;
  // Stops callbacks for `id` at once; when no subscription of this process
  // is left on that channel, UNSUBSCRIBE is sent without waiting for the reply.
  void unsubscribe(lock::SubscriptionId id) override;
  lock::Micros now() override;  // the process clock, us (true time for now)
  void sleep_for(lock::Micros d) override;
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
  // Runs `action` at `at`, on the scheduler (not a fiber; it must not block).
  void at(Micros at, std::function<void()> action);

  enum class RunEnd : uint8_t {
    kIdle,       // nothing left to do (only housekeeping events remain)
    kTimeLimit,  // WorldOptions::time_limit_us reached
  };
  RunEnd run();
  // Runs every event up to and including `t`; then now() == t.
  void run_until(Micros t);
  Micros now() const;

  sim::Server& server(size_t i = 0);
  size_t server_count() const;
  const History& history() const;
  ProcessState process_state(ProcessId pid) const;
  std::string client_id(ProcessId pid) const;
  uint64_t seed() const;

 private:
  std::unique_ptr<detail::Runtime> rt_;
};

}  // namespace redsim::world

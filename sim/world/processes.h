// Internal to sim/world (not installed): the processes component of a
// world's Runtime (runtime.h): client processes, their tasks (fibers), the
// blocking machinery their Env calls use, pauses, crashes, restarts, and
// the client-side fault points.
//
// Execution model: the scheduler's events run on the thread's own stack.
// A task runs only inside run_task(), which resumes its fiber; the fiber runs
// until it blocks (block() + suspend()) or returns. Anything that ends a
// block (a reply, a timer, a signal) calls wake(task, token), which schedules
// run_task at the current time; the token makes stale wake-ups harmless.
// Everything that reaches a process from outside (a reply, a push, a wake-up)
// goes through deliver(), which holds it while the process is paused and
// drops it once the process is gone.
//
// Owns: every Process (processes[pid - 1]) and its Tasks, each process's Env
// (made by the factory spawn() is given), the task whose fiber runs now, how
// often each random stream was given out, and the fenced resources
// (ProcessEnv::fenced_resource), one per name.
//
// Invariants:
// - At most one task runs at a time (current()), and only inside run_task().
// - A task is kReady, kRunning, kBlocked or kDone; only a blocked task with
//   the token of its current block can be woken; a kDone task's fiber is gone.
// - A dying process (crashed or ended) runs nothing more: its blocked calls
//   fail with lock::ClosedError, deliveries to it are dropped, a task that
//   keeps calling is unwound after kCallsAfterCrash calls.
// - Deliveries held by a pause are replayed in arrival order when it ends.
// - A process's random streams are forked from its seed stream, one per use,
//   so two processes never share one, whatever stream they asked for.
//
// Uses: Lifecycle (time, history, strategy), Network (closing a crashed
// process's links, partitions at fault points), Nodes (the server count).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "sim/world/drift_clock.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/fiber.h"
#include "sim/world/prng.h"
#include "sim/world/recent_values.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

class Lifecycle;
class Network;
class Nodes;
struct Link;

// How a blocked call ended (Task::call_end).
enum class CallEnd : uint8_t { kReply, kTimeout, kIoError };

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
  using CallEnd = detail::CallEnd;
  CallEnd call_end = CallEnd::kReply;
  std::string call_error;
  // Per server, made on first use (Network::connection: SimConnections).
  std::vector<std::unique_ptr<lock::Connection>> connections;
  // Crash cancellation (world.h): true while teardown() runs the task on
  // after failing its blocked call; counts its Env calls meanwhile.
  bool cancelling = false;
  int calls_after_crash = 0;
};

struct Subscription {
  size_t server = 0;
  std::string channel;
  // Shared: a message holds it while the callback runs (the callback may
  // erase its subscription) without copying the callable (a lock's callback
  // is a heap block to copy).
  std::shared_ptr<const std::function<void(const std::string&)>> on_message;
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
  // The history's values of this process's last two trace lines
  // (ProcessEnv::trace): a lock writes the same few lines again and again,
  // found here without hashing them for the history's table.
  RecentValues<HistoryText> recent_traces;
  // The same for the channels and payloads of the pub/sub messages it
  // received (Network::dispatch_push): every unlock publishes the same one.
  RecentValues<HistoryText> recent_channels;
  RecentValues<HistoryReply> recent_payloads;
};

class Processes {
 public:
  Processes(Lifecycle& life, Network& net, Nodes& nodes) : life_(life), net_(net), nodes_(nodes) {}
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

  // ---- The process lifecycle (World).
  // A new process (pid = count + 1) whose main starts at true time
  // `start_at_us`, its random streams forked from `stream` (default: its
  // pid); `make_env` makes its Env.
  ProcessId spawn(std::string name, std::function<void(ProcessEnv&)> main, int64_t start_at_us,
                  std::optional<uint64_t> stream,
                  const std::function<std::unique_ptr<ProcessEnv>(Process&)>& make_env);
  // std::out_of_range for an unknown pid.
  Process& process(ProcessId pid) const;
  // Every process, in pid order.
  const std::vector<std::unique_ptr<Process>>& all() const { return processes_; }
  void crash(Process& p, std::string reason);
  void begin_pause(Process& p, int64_t duration_us, std::string_view why);
  // A crashed process runs `main` (its old one when empty) as a new
  // incarnation; nothing for a process that has not crashed.
  void restart(Process& p, std::function<void(ProcessEnv&)> main);
  // Unwinds every live fiber, writing no history (the world going away).
  void unwind_all();

  // ---- Tasks and blocking, on a task's fiber (the Env, the network).
  Task& add_task(Process& p, std::string name, std::function<void()> body);
  Task* current() const { return current_; }
  Task& current_task(Process& p);  // std::logic_error when not on a task of p
  uint64_t block(Task& t);
  // Throws lock::ClosedError when the task was resumed by a crash's teardown.
  // Runs ahead first (run_ahead): the events due next that resume no fiber
  // run on t's stack, and t goes on without a switch when the next event
  // is its own run.
  void suspend(Task& t);
  // run_ahead only on a fiber with this much stack left: the events it runs
  // include the server's commands and scripts (Lua's and cjson's C
  // recursion), which otherwise run on the scheduler's thread stack.
  static constexpr size_t kAheadStackBytes = 192 * 1024;
  bool wake(Task& t, uint64_t token);
  void yield(Task& t);
  // Called by each Env call of a task whose process is gone, before it
  // fails or returns at once: a task that keeps calling (a retry loop) is
  // suspended after kCallsAfterCrash calls and then force-unwound.
  void call_after_crash(Task& t);
  static constexpr int kCallsAfterCrash = 1000;
  // Where an Env call may meet the plan's client-side faults: a crash, a
  // pause of the process or of the task, a clock jump, a partition.
  void fault_point(Process& p, Task& t);
  // Runs `fn` now, holds it while `p` is paused, drops it once `p` is gone.
  void deliver(Process& p, std::function<void()> fn);
  // FaultPlan's stall budget: how long process `p` may still be stalled now
  // (INT64_MAX without a budget), and a stall of `length_us` from now.
  int64_t stall_allowance(Process& p);
  void note_stall(Process& p, int64_t length_us);

  // ProcessEnv::fenced_resource: one per name, shared by every process.
  FencedResource& fenced_resource(std::string_view name);

 private:
  void start_process(Process& p);
  void run_task(Task& t);
  // suspend's first half: true when t's own run came next and t runs on.
  bool run_ahead(Task& t);
  void finish_task(Task& t);
  void teardown(Process& p);
  void end_pause(Process& p);
  void set_client_id(Process& p);
  // fault_point's two halves: the exhaustive strategy's binary choices
  // (explore/exhaustive.h) and the plan's random draws, over the same three faults.
  void exhaustive_fault_point(Process& p, Task& t);
  void random_fault_point(Process& p, Task& t);
  [[noreturn]] void crash_at_fault_point(Process& p, Task& t, const char* why);
  void pause_at_fault_point(Process& p, Task& t, int64_t length, const char* why);
  void pause_task_at_fault_point(Process& p, Task& t, int64_t length, const char* why);

  Lifecycle& life_;
  Network& net_;
  Nodes& nodes_;
  std::vector<std::unique_ptr<Process>> processes_;  // processes_[pid - 1]
  Task* current_ = nullptr;                          // the task whose fiber runs now
  int replaying_ = 0;  // end_pause is replaying held deliveries (no run_ahead)
  // How many processes were spawned with each random stream (spawn).
  std::map<uint64_t, uint64_t> stream_uses_;
  std::map<std::string, std::unique_ptr<FencedResource>, std::less<>> fenced_resources_;
};

}  // namespace redsim::world::detail

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
#include <set>
#include <string>
#include <vector>

#include "lock/env.h"
#include "sim/clock.h"
#include "sim/server.h"
#include "sim/world/fiber.h"
#include "sim/world/history.h"
#include "sim/world/prng.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

struct Process;
struct Runtime;

// One client connection to one server: the server-side Session plus the two
// directions' FIFO clocks.
struct Link {
  size_t server = 0;
  Process* process = nullptr;
  TaskId task = 0;  // 0: the process's pub/sub connection
  std::unique_ptr<sim::Session> session;
  Prng rng{0};                    // latency draws for this connection
  int64_t last_to_server_us = 0;  // arrival time of the last client->server message
  int64_t last_to_client_us = 0;  // arrival time of the last server->client message
  bool closed = false;            // the client side is closed (a close is on the wire)
};

class SimConnection final : public lock::Connection {
 public:
  SimConnection(Runtime& rt, Link& link) : rt_(rt), link_(link) {}
  resp::Reply call(const lock::Argv& argv) override;

 private:
  Runtime& rt_;
  Link& link_;
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
  std::vector<std::unique_ptr<SimConnection>> connections;  // per server, made on first use
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
  Prng random{0};               // random_u64()
  Prng fault_rng{0};            // random pause / crash decisions
  Prng seed_rng{0};             // root of this process's sub-seeds (links)
  int64_t clock_offset_us = 0;  // the process clock: true time + offset (room for drift)
};

// A server's clock: world time plus the epoch plus what DEBUG SLEEP added.
class ServerClock final : public sim::Clock {
 public:
  ServerClock(const Scheduler& sched, int64_t epoch_us) : sched_(sched), epoch_us_(epoch_us) {}
  int64_t now_us() const override { return epoch_us_ + sched_.now_us() + offset_us_; }
  void sleep_us(int64_t us) override { offset_us_ += us > 0 ? us : 0; }

 private:
  const Scheduler& sched_;
  int64_t epoch_us_;
  int64_t offset_us_ = 0;
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
  void note_key_states(size_t server);

  // Blocking, called on a task's fiber (world.cc).
  Task& current_task(Process& p);  // std::logic_error when not on a task of p
  uint64_t block(Task& t);
  void suspend(Task& t);
  bool wake(Task& t, uint64_t token);
  void yield(Task& t);
  void fault_point(Process& p, Task& t);

  // Network (network.cc).
  lock::Connection& connection(Task& t, size_t server);
  Link& new_link(Process& p, TaskId task, size_t server);
  Link& pubsub_link(Process& p, size_t server);
  int64_t draw_latency(Link& link);
  void send_to_server(Link& link, std::function<void()> fn);
  void send_to_client(Link& link, std::function<void()> fn);
  // Sends argv on `link` for task `t`, blocks t until the reply arrives and
  // returns it. `on_arrival` runs when the reply reaches the process (before
  // the task resumes).
  resp::Reply round_trip(Task& t, Link& link, lock::Argv argv,
                         std::function<void(const resp::Reply&)> on_arrival = {});
  void close_link(Link& link);
  void dispatch_push(Process& p, size_t server, const resp::Reply& push);
  lock::SubscriptionId subscribe(Process& p, const std::string& channel,
                                 std::function<void(const std::string&)> on_message, size_t server);
  void unsubscribe(Process& p, lock::SubscriptionId id);

  // Declaration order is destruction order reversed: fibers are unwound in
  // ~Runtime's body, then processes, links (sessions), servers, clocks go.
  WorldOptions options;
  Scheduler sched;
  History history;
  Prng root;
  std::vector<std::unique_ptr<ServerClock>> clocks;
  std::vector<std::unique_ptr<sim::Server>> servers;
  std::vector<std::unique_ptr<Link>> links;
  std::vector<std::unique_ptr<Process>> processes;  // processes[pid - 1]
  Task* current = nullptr;                          // the task whose fiber runs now
  // Tracked keys and, per server, their last recorded state: the deadline
  // as true time (us), -1 for no deadline; absent keys are not in the map.
  std::set<std::string, std::less<>> tracked_keys;
  std::vector<std::map<std::string, int64_t, std::less<>>> key_states;
};

}  // namespace redsim::world::detail

// Env: the port every lock algorithm is written against, and the only thing
// it may call. Lock code reads no clock, starts no thread and sleeps on its
// own never; it asks its Env. That is what lets one lock implementation run
// in the deterministic simulation (sim/world) and against a real
// redis-server (lock/hiredis) unchanged. (LevelDB's Env idea.)
//
//   void work(lock::Env& env) {
//     lock::SimpleLock lock(env, "orders:42");
//     std::unique_lock guard(lock);               // Lockable; unlock() never throws
//     env.connection().call({"INCR", "counter"});
//   }
//
// Threading: an Env belongs to one client process. Several tasks (threads in
// the real world, fibers in the simulation) of that process may use it at
// once; each task is a distinct lock owner (Redisson's "<client-id>:<thread-id>").
//
// Cancellation: in the simulation a crashed process's tasks are unwound by an
// exception that is not an Error. Lock code must catch only the types it
// handles (lock::Error and its subclasses), never `catch (...)` without rethrow.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "sim/resp/reply.h"

namespace redsim::lock {

using resp::Reply;
using Argv = std::vector<std::string>;
using Micros = std::chrono::microseconds;

// The clock of an Env: each process's own monotonic clock, microseconds since
// an arbitrary epoch (0 at a simulated process's start; the steady clock's
// epoch for lock/hiredis). In the simulation it may drift or jump when a fault
// plan says so, which is why is_steady is false: a lock must not assume two
// readings bound the true time between them (Kleppmann's point about Redlock).
struct EnvClock {
  using duration = std::chrono::microseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<EnvClock, duration>;
  static constexpr bool is_steady = false;
  // EnvClock has no static now(): time is read through an Env (Env::now), so
  // EnvClock does not meet the standard's Clock requirements on purpose.
};
using EnvTime = EnvClock::time_point;

// One connection to one Redis server.
class Connection {
 public:
  virtual ~Connection() = default;
  // Sends argv and returns Redis's reply (an error reply is a Reply, not an
  // exception). Blocks the calling task only. Throws ConnectionError (or a
  // subclass) when the transport fails; the command may or may not have run.
  // `timeout`: the longest wait for the reply, after which the call throws
  // TimeoutError; the connection is then broken and replaced (the command
  // may have run). std::nullopt (and call(argv)): the connection's default
  // command timeout (WorldOptions::command_timeout, HiredisOptions::
  // command_timeout). A given timeout must be positive: throws
  // std::invalid_argument for one <= 0. Redlock's per-server timeout uses it.
  Reply call(const Argv& argv, std::optional<Micros> timeout = std::nullopt) {
    if (timeout && *timeout <= Micros::zero()) {
      throw std::invalid_argument("Connection::call: timeout must be positive, got " +
                                  std::to_string(timeout->count()) + " us");
    }
    return do_call(argv, timeout);
  }
  // The same call, handing argv over: a Connection that keeps the command
  // (the simulation records it in the world's history) takes it without a
  // copy. Same errors and replies as call(const Argv&).
  Reply call(Argv&& argv, std::optional<Micros> timeout = std::nullopt) {
    if (timeout && *timeout <= Micros::zero()) {
      throw std::invalid_argument("Connection::call: timeout must be positive, got " +
                                  std::to_string(timeout->count()) + " us");
    }
    return do_call_owned(std::move(argv), timeout);
  }

 protected:
  // The call itself, in each world: `timeout` is std::nullopt (the default)
  // or positive. Pure virtual, so that no Connection drops the timeout.
  virtual Reply do_call(const Argv& argv, std::optional<Micros> timeout) = 0;
  // call(Argv&&): do_call unless a Connection has a use for argv itself.
  virtual Reply do_call_owned(Argv&& argv, std::optional<Micros> timeout) {
    return do_call(argv, timeout);
  }
};

// A wake-up signal a task can wait on, with a timeout. It remembers one
// signal: a signal() with no waiter makes the next wait_for() return true at
// once, so a wake-up between "check" and "wait" is never lost.
class Event {
 public:
  virtual ~Event() = default;
  // Wakes every task blocked in wait_for(), or the next one to call it.
  virtual void signal() = 0;
  // Blocks until signaled or until `timeout` passes. Returns true when
  // signaled (and consumes the signal), false on timeout.
  virtual bool wait_for(Micros timeout) = 0;
};

using SubscriptionId = uint64_t;

class Env {
 public:
  virtual ~Env() = default;

  // The connection the calling task uses to server `server` (0-based; more
  // than one for Redlock). Throws ClosedError when the process is gone.
  virtual Connection& connection(size_t server = 0) = 0;
  virtual size_t server_count() const { return 1; }

  // Subscribes the process to `channel` on server `server`; `on_message` runs
  // for each message published there, must not block, and typically signals
  // an Event. Returns once Redis confirmed the subscription, so a message
  // published after the return is delivered.
  virtual SubscriptionId subscribe(const std::string& channel,
                                   std::function<void(const std::string& message)> on_message,
                                   size_t server = 0) = 0;
  virtual void unsubscribe(SubscriptionId id) = 0;

  // This process's clock (EnvClock). Deadlines are EnvTime values; a
  // duration is the difference of two readings.
  virtual EnvTime now() = 0;
  // Blocks the calling task for `d`.
  virtual void sleep_for(Micros d) = 0;
  virtual std::unique_ptr<Event> make_event() = 0;

  // Starts `fn` as a background task of this process (the watchdog). It may
  // use every call of this Env. It ends when fn returns, or with the process.
  virtual void spawn(std::string name, std::function<void()> fn) = 0;

  // Sends `argv` to server `server` and returns without waiting: the reply
  // and any Error are dropped. Redisson sends the unlock latch's DEL this way
  // (RedissonBaseLock.unlockInnerAsync: commandExecutor.writeAsync, not
  // awaited), so what the caller does next overlaps it and a crash may lose
  // it. Default: a spawned task makes the call with connection(server). An
  // Env without concurrency (DirectEnv) may simply call.
  virtual void call_detached(Argv argv, size_t server = 0) {
    std::string name = "detached " + (argv.empty() ? std::string() : argv.front());
    try {
      spawn(std::move(name), [this, argv = std::move(argv), server] {
        try {
          connection(server).call(argv);
        } catch (const Error&) {
          // Dropped, as an unawaited Redisson future's failure.
        }
      });
    } catch (const Error&) {
      // No task to send it with (the Env is closed): dropped as well.
    }
  }

  // Identity: the process (Redisson's connection-manager UUID) and the
  // calling task (Redisson's thread id). The lock owner is
  // client_id() + ":" + std::to_string(task_id()).
  virtual std::string client_id() = 0;
  virtual uint64_t task_id() = 0;

  // A random 64-bit value (retry jitter, tokens). Seeded in the simulation.
  virtual uint64_t random_u64() = 0;

  // A line for the timeline ("watchdog renewed orders:42"); may be ignored.
  virtual void trace(std::string_view /*what*/) {}
  // False when trace() keeps nothing, so a line on a hot path (every
  // acquire and release) need not be built. True unless the Env says so.
  virtual bool tracing() const { return true; }
};

}  // namespace redsim::lock

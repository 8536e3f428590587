// HiredisEnv: lock::Env for real Redis servers through hiredis 0.14, real
// threads and std::chrono::steady_clock. The lock code that runs in the
// simulation runs here unchanged.
//
//   lock::HiredisEnv env(lock::HiredisOptions::parse_url("redis://127.0.0.1:6379"));
//   lock::ReentrantLock lock(env, "orders:42");
//   std::unique_lock guard(lock);                     // watchdog-renewed
//   env.connection().call({"INCR", "counter"});
//
//   lock::HiredisEnv redlock_env({a, b, c});          // 3 servers: server_count() == 3
//
// Threading (as Redisson's RLock): many threads may share one HiredisEnv.
// Each thread is its own lock owner: task_id() is a per-thread number (the
// same across Envs), client_id() a random UUID per Env, so the owner is
// "<client-id>:<task-id>". connection(server) is the calling thread's own
// connection to that server (one hiredis context per thread per server,
// made on first use, closed with the Env), so threads never share a
// context. The contexts of threads that have ended stay open until the Env
// is destroyed.
//
// Connection::call(argv) sends argv with redisCommandArgv (binary-safe: each
// argument carries its length) and returns the reply as the resp::Reply the
// fake returns (lock/hiredis/reply_conversion.h). A Redis error reply is a
// Reply of kind kError. Transport failures throw, by layer (lock/errors.h):
//   IoError        connect refused, reset, EOF, any other socket error
//   TimeoutError   no connection within connect_timeout, or no reply within
//                  command_timeout (or the per-call timeout of call(argv, t))
//   ProtocolError  bytes that are not RESP
//   ClosedError    the Env is closing (close() or its destructor)
//   ConnectionError  AUTH or SELECT refused at connect time
// After any of these the context is freed and the next call on that thread
// connects afresh: a broken connection is replaced, never reused (the
// command in flight may or may not have run).
//
// Pub/sub: one subscriber connection per server per Env, made on the first
// subscribe(), with a reader thread that runs each message's callbacks (in
// subscription order, on that thread, under the subscriber's lock: they must
// not block nor call subscribe/unsubscribe; signalling an Event is what they
// are for). Once unsubscribe() returns, that callback never runs again. subscribe()
// returns once Redis confirmed the SUBSCRIBE (TimeoutError if it did not
// within connect_timeout + command_timeout). If the subscriber connection
// breaks, its reader thread ends; the next subscribe() reconnects and
// subscribes again to every channel still in use. Messages published while
// it was down are lost (lock waiters still retry after the lock's PTTL).
//
// Background tasks: spawn(fn) runs fn on its own std::thread. close() (also
// run by the destructor) makes every later connection()/subscribe() throw
// ClosedError and wakes every sleep_for() and Event::wait_for() of this Env
// (wait_for then returns false), so a watchdog stops at its next renewal;
// then it joins every spawned thread and the reader threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lock/env.h"
#include "lock/hiredis/hiredis_options.h"

namespace redsim::lock {

class HiredisEnv final : public Env {
 public:
  // One server. Connects lazily: nothing is sent until the first call.
  explicit HiredisEnv(HiredisOptions server);
  // Several independent servers (Redlock); at least one.
  // Throws std::invalid_argument for an empty list.
  explicit HiredisEnv(std::vector<HiredisOptions> servers);
  // close(), then frees every connection.
  ~HiredisEnv() override;
  HiredisEnv(const HiredisEnv&) = delete;
  HiredisEnv& operator=(const HiredisEnv&) = delete;

  // --- Env ---
  // The calling thread's connection to `server`. Throws ClosedError after
  // close(), std::out_of_range for a server index >= server_count().
  Connection& connection(size_t server = 0) override;
  size_t server_count() const override;
  SubscriptionId subscribe(const std::string& channel,
                           std::function<void(const std::string& message)> on_message,
                           size_t server = 0) override;
  void unsubscribe(SubscriptionId id) override;
  // steady_clock, microseconds since its epoch.
  EnvTime now() override;
  // Sleeps, or returns early once the Env is closing.
  void sleep_for(Micros d) override;
  std::unique_ptr<Event> make_event() override;
  void spawn(std::string name, std::function<void()> fn) override;
  // A random UUID (8-4-4-4-12 hex digits), fixed for this Env.
  std::string client_id() override;
  // The calling thread's number: 1, 2, 3, ... in order of first use, in this
  // process; the same in every HiredisEnv.
  uint64_t task_id() override;
  uint64_t random_u64() override;
  // Sent to `tracer` when set (from any thread, possibly concurrently).
  void trace(std::string_view what) override;

  // Optional sink for trace lines; set before sharing the Env.
  std::function<void(std::string_view)> tracer;

  // The options of `server`; std::out_of_range for an index >= server_count().
  const HiredisOptions& options(size_t server = 0) const;
  // See the header comment. Idempotent. Must not be called from a spawned task.
  void close();

 private:
  // Threads, connections and subscribers (hiredis_env.cc): one heap object,
  // so this header names no thread, mutex or hiredis type.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redsim::lock

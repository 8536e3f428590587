// DirectEnv: a minimal, single-threaded lock::Env over one in-process
// sim::Server on a sim::ManualClock. No fibers, no scheduler, no history:
// every call runs at once. For unit tests of lock code that need no
// concurrency (the lock tests use it) and for measuring the lock layer's own
// cost (bench/). Concurrency, latency and faults need world::World.
//
//   world::DirectWorld world;                  // one server, one manual clock
//   world::DirectEnv a(world, "client-a"), b(world, "client-b");   // two "processes"
//   SimpleLock la(a, "k"), lb(b, "k");
//   la.lock(); EXPECT_FALSE(lb.try_lock());
//
// What it does instead of real concurrency:
// - call(): runs the command at once with Server::execute on the env's own
//   Session; `before_call` (if set) runs first and may act as another
//   process, advance the clock, or throw SimulatedCrash to model a crash
//   between two commands. call(argv, timeout) with a timeout throws
//   lock::TimeoutError when the clock moved by more than `timeout` during
//   the call (a hook stood for a slow server): the command ran, as with a
//   reply lost to a real client's timeout.
// - sleep_for(d): advances the shared clock by d.
// - Event::wait_for(t): runs `before_wait` (if set; it may e.g. unlock from
//   another env, whose PUBLISH signals this event), then returns true at once
//   if signaled, else advances the clock by t and returns false.
// - subscribe(): a second Session whose push handler calls the callbacks
//   synchronously, inside the publisher's command.
// - spawn(): records the task; nothing runs it unless the test calls
//   run_spawned().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "lock/errors.h"
#include "sim/clock.h"
#include "sim/server.h"
#include "sim/world/prng.h"

namespace redsim::world {

// What a test hook throws to model a process crash: deliberately not a
// lock::Error, like the world's unwinding exception, so lock code that
// catches only its own errors lets it through.
struct SimulatedCrash {};

struct DirectWorld {
  sim::ManualClock clock;
  sim::Server server{clock};

  std::chrono::milliseconds now_ms() const {
    return std::chrono::milliseconds(clock.now_us() / 1000);
  }
};

class DirectEnv final : public lock::Env {
  using Argv = lock::Argv;
  using Connection = lock::Connection;
  using Event = lock::Event;
  using Micros = lock::Micros;
  using Reply = lock::Reply;
  using SubscriptionId = lock::SubscriptionId;

 public:
  struct Spawned {
    std::string name;
    std::function<void()> fn;
  };

  // random_u64 draws from a stream of (seed, client_id): two clients never
  // share one, so their unlock latches' request ids differ, as two
  // Redisson clients' generateId() do.
  DirectEnv(DirectWorld& world, std::string client_id, uint64_t seed = 1)
      : world_(world),
        client_id_(std::move(client_id)),
        rng_(Prng(seed).fork("direct-env").fork(client_id_)) {
    connection_.env = this;
    connection_.session = world_.server.connect();
  }

  ~DirectEnv() override {
    if (sub_session_) sub_session_->set_push_handler(nullptr);
  }

  // --- Env ---
  Connection& connection(size_t /*server*/ = 0) override { return connection_; }

  SubscriptionId subscribe(const std::string& channel,
                           std::function<void(const std::string&)> on_message,
                           size_t /*server*/ = 0) override {
    if (!sub_session_) {
      sub_session_ = world_.server.connect();
      sub_session_->set_push_handler([this](const resp::Reply& push) { on_push(push); });
    }
    const SubscriptionId id = next_subscription_++;
    bool first = true;
    for (const auto& [_, sub] : subscriptions_) first = first && sub.first != channel;
    subscriptions_.emplace(id, std::make_pair(channel, std::move(on_message)));
    if (first) world_.server.execute(*sub_session_, {"SUBSCRIBE", channel});
    ++subscribe_calls;
    return id;
  }

  void unsubscribe(SubscriptionId id) override {
    auto it = subscriptions_.find(id);
    if (it == subscriptions_.end()) return;
    const std::string channel = it->second.first;
    subscriptions_.erase(it);
    for (const auto& [_, sub] : subscriptions_) {
      if (sub.first == channel) return;
    }
    world_.server.execute(*sub_session_, {"UNSUBSCRIBE", channel});
  }

  lock::EnvTime now() override { return lock::EnvTime(Micros(world_.clock.now_us())); }
  void sleep_for(Micros d) override {
    slept += d;
    world_.clock.advance_us(d.count());
  }
  std::unique_ptr<Event> make_event() override { return std::make_unique<DirectEvent>(*this); }

  void spawn(std::string name, std::function<void()> fn) override {
    spawned.push_back({std::move(name), std::move(fn)});
  }
  // At once: a DirectEnv has no network to overlap with, and its spawned
  // tasks run only when a test runs them.
  void call_detached(Argv argv, size_t server = 0) override {
    try {
      connection(server).call(argv);
    } catch (const lock::Error&) {
      // Dropped, as Env::call_detached says.
    }
  }

  std::string client_id() override { return client_id_; }
  uint64_t task_id() override { return task_id_; }

  uint64_t random_u64() override { return rng_.next_u64(); }

  void trace(std::string_view what) override {
    if (record_traces) traces.emplace_back(what);
  }
  bool tracing() const override { return record_traces; }

  // --- test controls ---
  void set_task_id(uint64_t task) { task_id_ = task; }

  // Runs spawned[i] to completion as task `task`, then restores the task id.
  void run_spawned(size_t i, uint64_t task = 1000) {
    const uint64_t saved = std::exchange(task_id_, task);
    std::function<void()> fn = spawned.at(i).fn;
    fn();
    task_id_ = saved;
  }

  size_t active_subscriptions() const { return subscriptions_.size(); }
  // Channels the pub/sub session is subscribed to, as the server sees it.
  size_t server_subscriptions() const {
    return sub_session_ ? sub_session_->subscription_count() : 0;
  }

  // Runs before every command this env sends (not re-entered while it runs).
  std::function<void(const Argv&)> before_call;
  // Runs at the start of every Event::wait_for of this env's events.
  std::function<void()> before_wait;

  bool record_calls = true;   // keep `calls` (off for long benchmark loops)
  bool record_traces = true;  // keep `traces` (off for long benchmark loops)
  std::vector<Argv> calls;    // every command sent, in order
  std::vector<std::string> traces;
  std::vector<Spawned> spawned;
  Micros slept{0};
  Micros waited{0};  // clock time spent in Event::wait_for timeouts
  int subscribe_calls = 0;

 private:
  class DirectConnection final : public Connection {
   public:
    DirectEnv* env = nullptr;
    std::unique_ptr<sim::Session> session;

   private:
    Reply execute(const Argv& argv) {
      if (env->record_calls) env->calls.push_back(argv);
      if (env->before_call && !env->in_hook_) {
        env->in_hook_ = true;
        struct Reset {
          bool& flag;
          ~Reset() { flag = false; }
        } reset{env->in_hook_};
        env->before_call(argv);
      }
      return env->world_.server.execute(*session, argv);
    }
    Reply do_call(const Argv& argv, std::optional<Micros> timeout) override {
      if (!timeout) return execute(argv);
      const int64_t start_us = env->world_.clock.now_us();
      Reply reply = execute(argv);
      const int64_t took_us = env->world_.clock.now_us() - start_us;
      if (took_us > timeout->count()) {
        throw lock::TimeoutError("no reply within " + std::to_string(timeout->count()) +
                                 " us (the call took " + std::to_string(took_us) + " us)");
      }
      return reply;
    }
  };

  class DirectEvent final : public Event {
   public:
    explicit DirectEvent(DirectEnv& env) : env_(env) {}
    void signal() override { signaled_ = true; }
    bool wait_for(Micros timeout) override {
      if (env_.before_wait) env_.before_wait();
      if (std::exchange(signaled_, false)) return true;
      env_.waited += timeout;
      env_.world_.clock.advance_us(timeout.count());
      return false;
    }

   private:
    DirectEnv& env_;
    bool signaled_ = false;
  };

  void on_push(const resp::Reply& push) {
    const auto& parts = push.elements();
    if (!push.is_array() || parts.size() != 3 || parts[0].str() != "message") return;
    std::vector<std::function<void(const std::string&)>> targets;
    for (const auto& [_, sub] : subscriptions_) {
      if (sub.first == parts[1].str()) targets.push_back(sub.second);
    }
    for (auto& target : targets) target(parts[2].str());
  }

  DirectWorld& world_;
  std::string client_id_;
  uint64_t task_id_ = 1;
  Prng rng_;
  bool in_hook_ = false;
  DirectConnection connection_;
  std::unique_ptr<sim::Session> sub_session_;
  std::map<SubscriptionId, std::pair<std::string, std::function<void(const std::string&)>>>
      subscriptions_;
  SubscriptionId next_subscription_ = 1;
};

}  // namespace redsim::world

// ForwardingEnv<Base>: a Base (lock::Env, or world::ClientEnv) whose
// lock::Env calls all go to another Env. A wrapper derives from it and
// overrides only what it changes; everything else reaches the inner Env.
//
//   class CountingEnv final : public world::ForwardingEnv<> {
//    public:
//     using ForwardingEnv::ForwardingEnv;
//     void sleep_for(lock::Micros d) override { ++sleeps_; inner_.sleep_for(d); }
//     int sleeps_ = 0;
//   };
//
// Used by cli::RealTimeRunner's recording Env and the test harness's
// ReplyHookEnv.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "lock/env.h"

namespace redsim::world {

template <class Base = lock::Env>
requires std::derived_from<Base, lock::Env>
class ForwardingEnv : public Base {
 public:
  // `inner` must outlive this Env.
  explicit ForwardingEnv(lock::Env& inner) : inner_(inner) {}

  lock::Connection& connection(size_t server = 0) override { return inner_.connection(server); }
  size_t server_count() const override { return inner_.server_count(); }
  lock::SubscriptionId subscribe(const std::string& channel,
                                 std::function<void(const std::string&)> on_message,
                                 size_t server = 0) override {
    return inner_.subscribe(channel, std::move(on_message), server);
  }
  void unsubscribe(lock::SubscriptionId id) override { inner_.unsubscribe(id); }
  lock::EnvTime now() override { return inner_.now(); }
  void sleep_for(lock::Micros d) override { inner_.sleep_for(d); }
  std::unique_ptr<lock::Event> make_event() override { return inner_.make_event(); }
  void spawn(std::string name, std::function<void()> fn) override {
    inner_.spawn(std::move(name), std::move(fn));
  }
  std::string client_id() override { return inner_.client_id(); }
  uint64_t task_id() override { return inner_.task_id(); }
  uint64_t random_u64() override { return inner_.random_u64(); }
  void trace(std::string_view what) override { inner_.trace(what); }

 protected:
  lock::Env& inner_;
};

}  // namespace redsim::world

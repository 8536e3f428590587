// Wakeup: how a waiter in lock/ hears that it may try again. It subscribes
// to a channel (an unlock message, a semaphore release) before the waiter's
// next attempt, so a message published after the constructor returns
// signals it, even one that lands before wait_for().
//
//   Wakeup wakeup(env, channel);               // SUBSCRIBE channel
//   try {
//     while (!attempt()) wakeup.wait_for(pause);
//   } catch (const Error&) {
//     wakeup.close();
//     throw;
//   }
//   wakeup.close();                            // UNSUBSCRIBE
//
// close() is explicit, never a destructor's work: when a simulated process
// is torn down its Env throws an unwinding exception that is not a
// lock::Error, and nothing may talk to Redis on that way out.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "lock/env.h"
#include "lock/errors.h"

namespace redsim::lock {

class Wakeup {
 public:
  // With `only_message`, other payloads on the channel do not wake.
  Wakeup(Env& env, std::string channel, std::optional<std::string> only_message = std::nullopt)
      : env_(env), channel_(std::move(channel)), woken_(env.make_event()) {
    subscription_ = env_.subscribe(
        channel_, [woken = woken_, only = std::move(only_message)](const std::string& message) {
          if (!only || message == *only) woken->signal();
        });
  }
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  // Event::wait_for: true when a message came (now or since the last wait).
  bool wait_for(Micros timeout) { return woken_->wait_for(timeout); }

  // Unsubscribes. A failed UNSUBSCRIBE is traced, not thrown: it costs a
  // stray wake-up of an Event nobody waits on.
  void close() {
    try {
      env_.unsubscribe(subscription_);
    } catch (const Error& e) {
      env_.trace("unsubscribe from " + channel_ + " failed: " + e.what());
    }
  }

 private:
  Env& env_;
  std::string channel_;
  std::shared_ptr<Event> woken_;
  SubscriptionId subscription_ = 0;
};

}  // namespace redsim::lock

#include "lock/lock_entry.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "lock/errors.h"

namespace redsim::lock {

namespace {

// Redisson's LockPubSub.UNLOCK_MESSAGE: wakes one waiter.
constexpr std::string_view kWakeOne = "0";

}  // namespace

struct LockEntry::Shared {
  enum class State : uint8_t { kSubscribing, kReady, kFailed };
  struct Waiter {
    Event* event;
    bool picked = false;
  };

  State state = State::kSubscribing;
  WakePolicy policy = WakePolicy::kLock;
  int users = 0;  // LockEntry objects holding it
  SubscriptionId id = 0;
  bool keep_early_message = true;               // see the header
  int64_t permits = 0;                          // wake-ups nobody waited for yet
  std::list<Waiter*> queue;                     // longest waiting first
  std::vector<std::shared_ptr<Event>> joiners;  // waiting for the SUBSCRIBE to be confirmed
};

namespace {

// One mutex for the registry and every entry: the work under it is a few
// pointer moves, and it is never held across an Env call (signalling an
// Event does not block).
struct Registry {
  std::mutex mu;
  std::map<std::pair<const Env*, std::string>, std::shared_ptr<LockEntry::Shared>> entries;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

namespace {

// Wakes up to `n` waiters, longest waiting first; what is left of `n`
// becomes permits for later waits. Called with the registry mutex held.
void release_permits(LockEntry::Shared& s, int64_t n) {
  while (n > 0 && !s.queue.empty()) {
    LockEntry::Shared::Waiter* w = s.queue.front();
    s.queue.pop_front();
    w->picked = true;
    w->event->signal();
    --n;
  }
  s.permits += n;
}

// SemaphorePubSub.onMessage: the message is the count of available permits.
int64_t semaphore_permits(const std::string& message, int users) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(message.data(), message.data() + message.size(), n);
  if (ec != std::errc() || end != message.data() + message.size() || n <= 0) return 0;
  return std::min<int64_t>(n, users);
}

}  // namespace

LockEntry::LockEntry(Env& env, std::string channel, WakePolicy policy, bool keep_early_message)
    : env_(env), channel_(std::move(channel)) {
  Registry& reg = registry();
  const auto key = std::make_pair(static_cast<const Env*>(&env_), channel_);
  while (true) {
    // Made before taking the mutex: make_event is an Env call.
    const std::shared_ptr<Event> ready = env_.make_event();
    bool subscribe = false;
    {
      std::lock_guard<std::mutex> guard(reg.mu);
      std::shared_ptr<Shared>& slot = reg.entries[key];
      if (!slot) {
        slot = std::make_shared<Shared>();
        slot->policy = policy;
        slot->keep_early_message = keep_early_message;
        subscribe = true;
      }
      shared_ = slot;
      ++shared_->users;
      if (!subscribe && shared_->state == Shared::State::kSubscribing) {
        shared_->joiners.push_back(ready);
      }
    }
    if (subscribe) {
      std::weak_ptr<Shared> weak = shared_;
      SubscriptionId id = 0;
      try {
        id = env_.subscribe(channel_, [weak](const std::string& message) {
          const std::shared_ptr<Shared> s = weak.lock();
          if (!s) return;
          std::lock_guard<std::mutex> guard(registry().mu);
          if (s->policy == WakePolicy::kSemaphore) {
            release_permits(*s, semaphore_permits(message, s->users));
            return;
          }
          if (message == kWakeOne) {
            // Semaphore.release(): the longest waiter, or a permit for later.
            if (s->queue.empty() && !s->keep_early_message) return;
            release_permits(*s, 1);
            return;
          }
          // release(queueLength): everyone waiting now.
          for (Shared::Waiter* w : s->queue) {
            w->picked = true;
            w->event->signal();
          }
          s->queue.clear();
        });
      } catch (...) {
        std::lock_guard<std::mutex> guard(reg.mu);
        shared_->state = Shared::State::kFailed;
        for (const auto& joiner : shared_->joiners) joiner->signal();
        shared_->joiners.clear();
        --shared_->users;
        auto it = reg.entries.find(key);
        if (it != reg.entries.end() && it->second == shared_) reg.entries.erase(it);
        shared_.reset();
        throw;
      }
      std::lock_guard<std::mutex> guard(reg.mu);
      shared_->id = id;
      shared_->state = Shared::State::kReady;
      for (const auto& joiner : shared_->joiners) joiner->signal();
      shared_->joiners.clear();
      return;
    }
    // A joiner: our attempts must not start before the subscription is
    // confirmed, or an unlock between them could be missed.
    while (true) {
      {
        std::lock_guard<std::mutex> guard(reg.mu);
        if (shared_->state == Shared::State::kReady) return;
        if (shared_->state == Shared::State::kFailed) {
          --shared_->users;
          shared_.reset();
          break;  // subscribe ourselves
        }
      }
      ready->wait_for(std::chrono::hours(1));
    }
  }
}

LockEntry::~LockEntry() {
  // Torn down without close() (an unwinding process): drop our share, but
  // talk to nobody.
  if (!shared_) return;
  Registry& reg = registry();
  std::lock_guard<std::mutex> guard(reg.mu);
  if (--shared_->users == 0) {
    auto it = reg.entries.find({&env_, channel_});
    if (it != reg.entries.end() && it->second == shared_) reg.entries.erase(it);
  }
}

bool LockEntry::wait_for(Micros timeout) {
  Registry& reg = registry();
  // A fresh Event per wait: a wake-up that lands after our timeout (and is
  // counted through `picked`) must not leave a stale signal behind.
  const std::unique_ptr<Event> event = env_.make_event();
  Shared::Waiter me{event.get()};
  {
    std::lock_guard<std::mutex> guard(reg.mu);
    if (shared_->permits > 0) {
      --shared_->permits;
      return true;
    }
    shared_->queue.push_back(&me);
  }
  try {
    event->wait_for(timeout);
  } catch (...) {
    // An unwinding process: `me` lives on this stack, so it leaves the queue.
    std::lock_guard<std::mutex> guard(reg.mu);
    shared_->queue.remove(&me);
    throw;
  }
  std::lock_guard<std::mutex> guard(reg.mu);
  if (me.picked) return true;
  shared_->queue.remove(&me);
  return false;
}

void LockEntry::close() {
  if (!shared_) return;
  Registry& reg = registry();
  bool last = false;
  SubscriptionId id = 0;
  {
    std::lock_guard<std::mutex> guard(reg.mu);
    last = --shared_->users == 0;
    if (last) {
      id = shared_->id;
      auto it = reg.entries.find({&env_, channel_});
      if (it != reg.entries.end() && it->second == shared_) reg.entries.erase(it);
    }
  }
  shared_.reset();
  if (!last) return;
  try {
    env_.unsubscribe(id);
  } catch (const Error& e) {
    env_.trace("unsubscribe from " + channel_ + " failed: " + e.what());
  }
}

}  // namespace redsim::lock

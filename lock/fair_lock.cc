#include "lock/fair_lock.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

using std::chrono::milliseconds;

// Shared by the OwnerState and the watchdog task, so either may go first.
struct FairLock::Watchdog {
  explicit Watchdog(std::unique_ptr<Event> event) : stop_event(std::move(event)) {}

  void stop() {
    if (!stopped.exchange(true)) stop_event->signal();
  }

  std::unique_ptr<Event> stop_event;
  std::atomic<bool> stopped{false};
};

namespace {

const Script& acquire_script() {
  static const Script& script = Script::get("fair_acquire");
  return script;
}
const Script& unlock_script() {
  static const Script& script = Script::get("fair_unlock");
  return script;
}
const Script& cancel_script() {
  static const Script& script = Script::get("fair_cancel");
  return script;
}
const Script& force_unlock_script() {
  static const Script& script = Script::get("fair_force_unlock");
  return script;
}
// The renewal is RLock's: extend only while the owner's field is there.
const Script& renew_script() {
  static const Script& script = Script::get("reentrant_renew");
  return script;
}

std::string ms_arg(milliseconds ms) { return std::to_string(ms.count()); }

// Redisson's prefixName(prefix, key): a key with a hash tag is not wrapped again.
std::string prefixed(std::string_view prefix, std::string_view key) {
  if (key.find('{') != std::string_view::npos) return std::string(prefix) + ":" + std::string(key);
  return std::string(prefix) + ":{" + std::string(key) + "}";
}

}  // namespace

FairLock::FairLock(Env& env, std::string key, FairLockOptions options)
    : env_(env),
      key_(std::move(key)),
      queue_key_(prefixed("redisson_lock_queue", key_)),
      timeout_key_(prefixed("redisson_lock_timeout", key_)),
      channel_prefix_(prefixed("redisson_lock__channel", key_)),
      options_(options) {
  if (options_.lock_watchdog_timeout.count() <= 0) {
    throw std::invalid_argument("fair lock '" + key_ + "': lock_watchdog_timeout must be > 0 ms");
  }
  if (options_.thread_wait_time.count() <= 0) {
    throw std::invalid_argument("fair lock '" + key_ + "': thread_wait_time must be > 0 ms");
  }
}

FairLock::~FairLock() = default;

std::string FairLock::channel_for(std::string_view owner) const {
  return channel_prefix_ + ":" + std::string(owner);
}

std::string FairLock::owner() { return env_.client_id() + ":" + std::to_string(env_.task_id()); }

std::string FairLock::now_ms_arg() {
  return std::to_string(std::chrono::floor<milliseconds>(env_.now()).count());
}

void FairLock::lock() { acquire(std::nullopt, options_.default_lease); }

void FairLock::lock(milliseconds lease) { acquire(std::nullopt, lease); }

bool FairLock::try_lock() {
  const std::string me = owner();
  if (attempt(me, options_.default_lease, /*enqueue=*/false)) return false;
  on_acquired(me, options_.default_lease);
  return true;
}

bool FairLock::try_lock_wait(Micros wait) {
  return acquire(std::max(wait, Micros(0)), options_.default_lease);
}

std::optional<int64_t> FairLock::attempt(const std::string& owner, milliseconds lease,
                                         bool enqueue) {
  const milliseconds effective = lease.count() > 0 ? lease : options_.lock_watchdog_timeout;
  const Reply reply =
      run_script(env_.connection(), acquire_script(), {key_, queue_key_, timeout_key_},
                 {ms_arg(effective), owner, ms_arg(options_.thread_wait_time), now_ms_arg(),
                  enqueue ? "1" : "0"});
  if (reply.is_nil()) return std::nullopt;
  if (!reply.is_integer()) {
    throw UnexpectedReply("fair_acquire on '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer();
}

void FairLock::leave_queue(const std::string& owner) {
  try {
    const Reply reply = run_script(env_.connection(), cancel_script(), {queue_key_, timeout_key_},
                                   {owner, ms_arg(options_.thread_wait_time)});
    env_.trace("left the queue of " + key_ + " as " + owner + " (" + reply.debug_string() + ")");
  } catch (const Error& e) {
    // The place expires by itself after its reservation.
    env_.trace("leaving the queue of " + key_ + " failed: " + e.what());
  }
}

bool FairLock::acquire(std::optional<Micros> wait, milliseconds lease) {
  const std::string me = owner();
  const Micros start = env_.now();
  std::optional<int64_t> hint = attempt(me, lease, /*enqueue=*/true);
  if (!hint) {
    on_acquired(me, lease);
    return true;
  }
  if (wait && env_.now() - start >= *wait) {
    leave_queue(me);
    env_.trace("gave up on " + key_ + " hint=" + std::to_string(*hint));
    return false;
  }

  // Our own channel, subscribed before the next attempt: a hand-off
  // published after this returns is not missed.
  std::shared_ptr<Event> woken = env_.make_event();
  const std::string channel = channel_for(me);
  const SubscriptionId subscription =
      env_.subscribe(channel, [woken](const std::string& /*message*/) { woken->signal(); });
  auto unsubscribe_quietly = [&] {
    try {
      env_.unsubscribe(subscription);
    } catch (const Error& e) {
      env_.trace("unsubscribe from " + channel + " failed: " + e.what());
    }
  };

  bool acquired = false;
  try {
    while (true) {
      hint = attempt(me, lease, /*enqueue=*/true);
      if (!hint) {
        acquired = true;
        break;
      }
      // A negative hint: the place ahead of ours is past due; the holder's
      // unlock will tell us if we are next. Re-check every threadWaitTime
      // anyway, so an expired waiter ahead of us is dropped even when nobody
      // unlocks (Redisson would wait for the message only).
      Micros pause = *hint >= 0 ? Micros(milliseconds(std::max<int64_t>(*hint, 1)))
                                : Micros(options_.thread_wait_time);
      if (wait) {
        const Micros elapsed = env_.now() - start;
        if (elapsed >= *wait) break;
        pause = std::min(pause, *wait - elapsed);
      }
      env_.trace("queued for " + key_ + " hint=" + std::to_string(*hint));
      woken->wait_for(pause);
    }
  } catch (const Error&) {
    unsubscribe_quietly();
    leave_queue(me);
    throw;
  }
  if (acquired) on_acquired(me, lease);
  unsubscribe_quietly();
  if (!acquired) {
    leave_queue(me);
    env_.trace("gave up on " + key_ + " hint=" + std::to_string(*hint));
  }
  return acquired;
}

void FairLock::on_acquired(const std::string& owner, milliseconds lease) {
  const bool use_watchdog = lease.count() <= 0;
  const milliseconds effective = use_watchdog ? options_.lock_watchdog_timeout : lease;
  std::shared_ptr<Watchdog> candidate;
  if (use_watchdog) candidate = std::make_shared<Watchdog>(env_.make_event());

  bool start = false;
  {
    std::lock_guard<std::mutex> guard(mu_);
    OwnerState& state = owners_[env_.task_id()];
    state.lease = effective;
    if (use_watchdog && (!state.watchdog || state.watchdog->stopped)) {
      state.watchdog = candidate;
      start = true;
    }
  }
  env_.trace("acquired " + key_ + " as " + owner + " lease=" + ms_arg(effective) + "ms" +
             (use_watchdog ? " (watchdog)" : ""));
  if (!start) return;

  // The task copies what it needs: it must not touch `this`.
  env_.spawn("watchdog " + key_ + " " + owner, [&env = env_, dog = candidate, key = key_, owner,
                                                lease = effective] {
    const Micros interval = std::chrono::ceil<Micros>(lease) / 3;
    while (true) {
      if (dog->stop_event->wait_for(interval) || dog->stopped) {
        env.trace("watchdog stopped for " + key);
        break;
      }
      Reply reply;
      try {
        reply = run_script(env.connection(), renew_script(), {key}, {ms_arg(lease), owner});
      } catch (const ConnectionError& e) {
        env.trace("watchdog could not renew " + key + ": " + e.what());
        break;
      }
      if (reply.is_integer() && reply.integer() == 1) {
        env.trace("watchdog renewed " + key + " for " + owner);
        continue;
      }
      env.trace("watchdog found " + key + " no longer held by " + owner + "; stopping");
      break;
    }
    dog->stopped = true;
  });
}

void FairLock::stop_watchdog(uint64_t task) {
  std::shared_ptr<Watchdog> dog;
  {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = owners_.find(task);
    if (it == owners_.end()) return;
    dog = std::move(it->second.watchdog);
    owners_.erase(it);
  }
  if (dog) dog->stop();
}

milliseconds FairLock::lease_of(uint64_t task) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = owners_.find(task);
    if (it != owners_.end() && it->second.lease.count() > 0) return it->second.lease;
  }
  return options_.default_lease.count() > 0 ? options_.default_lease
                                            : options_.lock_watchdog_timeout;
}

bool FairLock::try_unlock() {
  const uint64_t task = env_.task_id();
  const std::string me = owner();
  const Reply reply = run_script(
      env_.connection(), unlock_script(), {key_, queue_key_, timeout_key_, channel_prefix_},
      {std::string(kUnlockMessage), ms_arg(lease_of(task)), me, now_ms_arg()});
  if (reply.is_nil()) {
    stop_watchdog(task);
    env_.trace("unlock of " + key_ + " by " + me + ": not held");
    return false;
  }
  if (!reply.is_integer()) {
    throw UnexpectedReply("fair_unlock on '" + key_ + "' answered " + reply.debug_string());
  }
  if (reply.integer() == 1) {
    stop_watchdog(task);
    env_.trace("released " + key_ + " by " + me);
  } else {
    env_.trace("unlocked one hold of " + key_ + " by " + me + "; still held");
  }
  return true;
}

void FairLock::unlock() {
  if (try_unlock()) return;
  throw LockNotOwned("attempt to unlock lock, not locked by current thread by node id: " +
                     env_.client_id() + " thread-id: " + std::to_string(env_.task_id()));
}

bool FairLock::force_unlock() {
  const Reply reply = run_script(env_.connection(), force_unlock_script(),
                                 {key_, queue_key_, timeout_key_, channel_prefix_},
                                 {std::string(kUnlockMessage), now_ms_arg()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("fair_force_unlock on '" + key_ + "' answered " + reply.debug_string());
  }
  std::vector<std::shared_ptr<Watchdog>> dogs;
  {
    std::lock_guard<std::mutex> guard(mu_);
    for (auto& [task, state] : owners_) {
      if (state.watchdog) dogs.push_back(std::move(state.watchdog));
    }
    owners_.clear();
  }
  for (auto& dog : dogs) dog->stop();
  env_.trace("force_unlock " + key_ + (reply.integer() == 1 ? ": deleted" : ": no lock"));
  return reply.integer() == 1;
}

Reply FairLock::call(const Argv& argv) {
  Reply reply = env_.connection().call(argv);
  if (reply.is_error()) {
    throw UnexpectedReply(argv.front() + " on '" + key_ + "' failed: " + reply.str());
  }
  return reply;
}

bool FairLock::is_locked() {
  const Reply reply = call({"EXISTS", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("EXISTS '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() > 0;
}

bool FairLock::is_held_by_current_thread() {
  const Reply reply = call({"HEXISTS", key_, owner()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("HEXISTS '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

int64_t FairLock::hold_count() {
  const Reply reply = call({"HGET", key_, owner()});
  if (reply.is_nil()) return 0;
  int64_t holds = 0;
  if (reply.is_bulk()) {
    const std::string& text = reply.str();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), holds);
    if (ec == std::errc() && end == text.data() + text.size()) return holds;
  }
  throw UnexpectedReply("HGET '" + key_ + "' hold count answered " + reply.debug_string());
}

milliseconds FairLock::remaining_lease() {
  const Reply reply = call({"PTTL", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("PTTL '" + key_ + "' answered " + reply.debug_string());
  }
  return milliseconds(reply.integer());
}

}  // namespace redsim::lock

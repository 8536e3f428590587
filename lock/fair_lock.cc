#include "lock/fair_lock.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

using std::chrono::milliseconds;

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

// Checked before ReentrantLock's own checks, so the errors name a fair lock.
ReentrantLockOptions reentrant_options(const std::string& key, const FairLockOptions& options) {
  if (options.lock_watchdog_timeout.count() <= 0) {
    throw std::invalid_argument("fair lock '" + key + "': lock_watchdog_timeout must be > 0 ms");
  }
  if (options.thread_wait.count() <= 0) {
    throw std::invalid_argument("fair lock '" + key + "': thread_wait must be > 0 ms");
  }
  return ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                              .default_lease = options.default_lease,
                              .watchdog_stops_on_error = options.watchdog_stops_on_error,
                              .unlock_retries = options.unlock_retries,
                              .unlock_latch = options.unlock_latch,
                              .unlock_latch_ttl = options.unlock_latch_ttl,
                              .retry = options.retry,
                              .recheck_without_ttl = options.recheck_negative_hint};
}

}  // namespace

// The waiters' channels share ReentrantLock's channel name as their prefix
// (KEYS[4] of fair_unlock and fair_force_unlock).
FairLock::FairLock(Env& env, std::string key, FairLockOptions options)
    : ReentrantLock(env, key, reentrant_options(key, options),
                    Flavor{.channel = channel_name(key),
                           .field_suffix = "",
                           .unlock = &unlock_script(),
                           .renew = &renew_script(),
                           .has_latch = true,
                           .latch_by_default = true}),
      queue_key_(prefixed("redisson_lock_queue", this->key())),
      timeout_key_(prefixed("redisson_lock_timeout", this->key())),
      thread_wait_(options.thread_wait) {}

FairLock::~FairLock() = default;

std::string FairLock::channel_for(std::string_view owner) const {
  return channel() + ":" + std::string(owner);
}

std::string FairLock::now_ms_arg() {
  return std::to_string(std::chrono::floor<milliseconds>(env().now().time_since_epoch()).count());
}

milliseconds FairLock::wait_of(const Attempt& attempt) const {
  // Redisson converts waitTime with unit.toMillis (truncating) after testing
  // it in its own unit, so a wait under 1 ms sends 0.
  if (attempt.wait && attempt.wait->count() > 0) {
    return std::chrono::floor<milliseconds>(*attempt.wait);
  }
  return thread_wait_;
}

std::optional<int64_t> FairLock::run_acquire(const std::string& owner, milliseconds lease,
                                             const Attempt& attempt) {
  const Reply reply = run_script(
      env().connection(), acquire_script(), {key(), queue_key_, timeout_key_},
      {ms_arg(lease), owner, ms_arg(wait_of(attempt)), now_ms_arg(), attempt.waiting ? "1" : "0"});
  if (reply.is_nil()) return std::nullopt;
  if (!reply.is_integer()) {
    throw UnexpectedReply("fair_acquire on '" + key() + "' answered " + reply.debug_string());
  }
  return reply.integer();
}

std::string FairLock::wait_channel(const std::string& owner) const { return channel_for(owner); }

std::string FairLock::waiting_trace(int64_t hint) const {
  return "queued for " + key() + " hint=" + std::to_string(hint);
}

std::string FairLock::gave_up_trace(int64_t hint) const {
  return "gave up on " + key() + " hint=" + std::to_string(hint);
}

void FairLock::stop_waiting(const std::string& owner, const Attempt& attempt) {
  try {
    const Reply reply = run_script(env().connection(), cancel_script(), {queue_key_, timeout_key_},
                                   {owner, ms_arg(wait_of(attempt))});
    env().trace("left the queue of " + key() + " as " + owner + " (" + reply.debug_string() + ")");
  } catch (const Error& e) {
    // The place expires by itself after its reservation.
    env().trace("leaving the queue of " + key() + " failed: " + e.what());
  }
}

Reply FairLock::run_unlock(const std::string& owner, milliseconds lease, const UnlockLatch& latch) {
  if (latch.empty()) {
    return run_script(env().connection(), unlock_script(),
                      {key(), queue_key_, timeout_key_, channel()},
                      {std::string(kUnlockMessage), ms_arg(lease), owner, now_ms_arg()});
  }
  return run_script(
      env().connection(), unlock_script(), {key(), queue_key_, timeout_key_, channel(), latch.key},
      {std::string(kUnlockMessage), ms_arg(lease), owner, now_ms_arg(), ms_arg(latch.ttl)});
}

bool FairLock::run_force_unlock() {
  const Reply reply = run_script(env().connection(), force_unlock_script(),
                                 {key(), queue_key_, timeout_key_, channel()},
                                 {std::string(kUnlockMessage), now_ms_arg()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("fair_force_unlock on '" + key() + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

}  // namespace redsim::lock

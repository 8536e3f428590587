#include "lock/token_lock.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

TokenLock::TokenLock(Env& env, std::string key, LockOptions options)
    : DistributedLock(env),
      env_(&env),
      key_(std::move(key)),
      options_(options),
      lease_(options.lease.or_default(LockOptions::kStringLease)) {
  if (!lease_ || lease_->count() <= 0) {
    throw std::invalid_argument("lock '" + key_ + "': lease must be > 0 ms");
  }
  if (options_.retry_backoff_min.count() <= 0 ||
      options_.retry_backoff_max < options_.retry_backoff_min) {
    throw std::invalid_argument("lock '" + key_ + "': retry backoff must satisfy 0 < min <= max");
  }
}

void TokenLock::lock() { acquire_until(std::nullopt); }

bool TokenLock::try_lock() { return acquire_until(env_->now()); }

bool TokenLock::try_lock_wait(Micros wait) {
  return acquire_until(env_->now() + std::max(wait, Micros(0)));
}

bool TokenLock::acquire_until(std::optional<EnvTime> deadline) {
  const std::string token = new_token();
  Micros backoff = options_.retry_backoff_min;
  for (int attempt = 1;; ++attempt) {
    if (acquire_once(token)) {
      token_ = token;
      env_->trace("acquired " + key_ + " token=" + token + " attempt=" + std::to_string(attempt));
      return true;
    }
    Micros pause = jittered(backoff);
    if (deadline) {
      const EnvTime now = env_->now();
      if (now >= *deadline) {
        env_->trace("gave up on " + key_ + " after " + std::to_string(attempt) + " attempts");
        return false;
      }
      pause = std::min(pause, *deadline - now);
    }
    env_->sleep_for(pause);
    backoff = std::min(backoff * 2, options_.retry_backoff_max);
  }
}

UnlockResult TokenLock::release_hold() {
  if (token_.empty()) {
    return std::unexpected(UnlockError{UnlockError::Reason::kNotHeld,
                                       "attempt to unlock lock '" + key_ +
                                           "', not locked by this " + std::string(kind_name()) +
                                           " lock object (node id: " + env_->client_id() +
                                           " thread-id: " + std::to_string(env_->task_id()) + ")"});
  }
  // Forget the token first: whatever the release finds, this acquisition is over.
  const std::string token = std::exchange(token_, std::string());
  if (release_token(token)) {
    env_->trace("released " + key_);
    return {};
  }
  env_->trace("unlock found " + key_ + " lost (lease expired)");
  return std::unexpected(
      UnlockError{UnlockError::Reason::kNotHeld,
                  "lock '" + key_ + "' was lost before unlock: its " + lease_ms_arg() +
                      " ms lease ran out and the key no longer holds this acquisition's token"});
}

bool TokenLock::acquire_once(const std::string& token) {
  const Reply reply = call({"SET", key_, token, "NX", "PX", lease_ms_arg()});
  if (reply.is_status()) return true;  // +OK
  if (reply.is_nil()) return false;    // someone holds it
  throw UnexpectedReply("SET NX PX on '" + key_ + "' answered " + reply.debug_string());
}

bool TokenLock::compare_and_delete(const std::string& token) {
  static const Script& script = Script::get("simple_unlock");
  const Reply reply = run_script(env_->connection(), script, {key_}, {token});
  if (!reply.is_integer()) {
    throw UnexpectedReply("simple_unlock on '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

bool TokenLock::is_locked() {
  const Reply reply = call({"EXISTS", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("EXISTS '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() > 0;
}

bool TokenLock::is_held_by_current_thread() {
  if (token_.empty()) return false;
  const Reply reply = call({"GET", key_});
  return reply.is_bulk() && reply.str() == token_;
}

RemainingLease TokenLock::remaining_lease() {
  const Reply reply = call({"PTTL", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("PTTL '" + key_ + "' answered " + reply.debug_string());
  }
  return RemainingLease::from_pttl(reply.integer());
}

Reply TokenLock::call(const Argv& argv) {
  Reply reply = env_->connection().call(argv);
  if (reply.is_error()) {
    throw UnexpectedReply(argv.front() + " on '" + key_ + "' failed: " + reply.str());
  }
  return reply;
}

std::string TokenLock::lease_ms_arg() const { return std::to_string(lease_->count()); }

std::string TokenLock::new_token() {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(env_->random_u64()));
  return env_->client_id() + ":" + std::to_string(env_->task_id()) + ":" + hex;
}

Micros TokenLock::jittered(Micros delay) {
  // Equal jitter: half the delay fixed, half drawn, so waiters spread out
  // without ever retrying at once.
  const int64_t half = delay.count() / 2;
  const int64_t span = delay.count() - half + 1;
  return Micros(half + static_cast<int64_t>(env_->random_u64() % static_cast<uint64_t>(span)));
}

}  // namespace redsim::lock

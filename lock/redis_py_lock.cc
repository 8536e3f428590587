#include "lock/redis_py_lock.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

RedisPyLock::RedisPyLock(Env& env, std::string key, RedisPyLockOptions options)
    : DistributedLock(env), env_(&env), key_(std::move(key)), options_(options) {
  if (options_.timeout && options_.timeout->count() <= 0) {
    throw std::invalid_argument("redis-py lock '" + key_ + "': timeout must be > 0 ms");
  }
  if (options_.sleep.count() <= 0) {
    throw std::invalid_argument("redis-py lock '" + key_ + "': sleep must be > 0");
  }
}

std::optional<std::string> RedisPyLock::get_token() {
  std::lock_guard<std::mutex> guard(mu_.mu);
  if (!options_.thread_local_token) return shared_;
  auto it = local_.find(env_->task_id());
  return it == local_.end() ? std::nullopt : it->second;
}

void RedisPyLock::set_token(std::optional<std::string> token) {
  std::lock_guard<std::mutex> guard(mu_.mu);
  if (!options_.thread_local_token) {
    shared_ = std::move(token);
  } else if (token) {
    local_.insert_or_assign(env_->task_id(), std::move(token));
  } else {
    local_.erase(env_->task_id());
  }
}

// uuid1().hex: 20 hex digits of time and clock sequence, then 12 of the
// host's node id. Here the first 20 are random and the node is an FNV-1a
// hash of the client id, so two processes never draw the same token even
// when their random streams agree (as DirectEnv's do).
std::string RedisPyLock::new_token() {
  uint64_t node = 14695981039346656037ull;
  for (const char c : env_->client_id())
    node = (node ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%04llx%012llx",
                static_cast<unsigned long long>(env_->random_u64()),
                static_cast<unsigned long long>(env_->random_u64() & 0xffff),
                static_cast<unsigned long long>(node & 0xffffffffffffull));
  return hex;
}

bool RedisPyLock::do_acquire(const std::string& token) {
  Argv argv = {"SET", key_, token, "NX"};
  if (options_.timeout) {
    argv.push_back("PX");
    argv.push_back(std::to_string(options_.timeout->count()));
  }
  const Reply reply = env_->connection().call(argv);
  if (reply.is_error()) throw UnexpectedReply("SET NX of '" + key_ + "': " + reply.str());
  return reply.is_status();
}

bool RedisPyLock::acquire() { return acquire(options_.blocking, options_.blocking_timeout); }

bool RedisPyLock::acquire(bool blocking, std::optional<Micros> blocking_timeout) {
  const std::string token = new_token();
  std::optional<EnvTime> stop_trying_at;
  if (blocking_timeout) stop_trying_at = env_->now() + *blocking_timeout;
  for (;;) {
    if (do_acquire(token)) {
      set_token(token);
      env_->trace("redis-py lock acquired " + key_ + " token=" + token);
      return true;
    }
    if (!blocking) return false;
    if (stop_trying_at && env_->now() + options_.sleep > *stop_trying_at) return false;
    env_->sleep_for(options_.sleep);
  }
}

void RedisPyLock::lock() { acquire(true, std::nullopt); }

bool RedisPyLock::try_lock() { return acquire(false, std::nullopt); }

bool RedisPyLock::try_lock_wait(Micros wait) {
  if (wait.count() <= 0) return try_lock();
  return acquire(true, wait);
}

UnlockResult RedisPyLock::release_hold() {
  static const Script& script = Script::get("redis_py_release");
  const std::optional<std::string> expected = get_token();
  if (!expected) {
    return std::unexpected(UnlockError{
        UnlockError::Reason::kNotHeld,
        "LockError: Cannot release a lock that's not owned or is already unlocked. (lock '" + key_ +
            "', thread-id " + std::to_string(env_->task_id()) + ")"});
  }
  if (options_.clear_token_before_release) set_token(std::nullopt);
  // A ConnectionError leaves this function here: with the #4258 behaviour
  // the token stays, so the caller can release again.
  const Reply reply = run_script(env_->connection(), script, {key_}, {*expected});
  if (!reply.is_integer()) {
    throw UnexpectedReply("redis-py release of '" + key_ + "' answered " + reply.debug_string());
  }
  set_token(std::nullopt);
  if (reply.integer() == 1) {
    env_->trace("redis-py lock released " + key_);
    return {};
  }
  return std::unexpected(UnlockError{
      UnlockError::Reason::kNotHeld,
      "LockNotOwnedError: Cannot release a lock that's no longer owned (lock '" + key_ + "')"});
}

UnlockResult RedisPyLock::run_ttl_script(const char* name, const Argv& args, const char* what) {
  const Script& script = Script::get(name);
  const Reply reply = run_script(env_->connection(), script, {key_}, args);
  if (!reply.is_integer()) {
    throw UnexpectedReply(std::string("redis-py ") + what + " of '" + key_ + "' answered " +
                          reply.debug_string());
  }
  if (reply.integer() == 1) return {};
  return std::unexpected(UnlockError{UnlockError::Reason::kNotHeld,
                                     std::string("LockNotOwnedError: Cannot ") + what +
                                         " a lock that's no longer owned (lock '" + key_ + "')"});
}

UnlockResult RedisPyLock::extend(std::chrono::milliseconds additional, bool replace_ttl) {
  const std::optional<std::string> token = get_token();
  if (!token) {
    return std::unexpected(
        UnlockError{UnlockError::Reason::kNotHeld,
                    "LockError: Cannot extend an unlocked lock (lock '" + key_ + "')"});
  }
  if (!options_.timeout) {
    return std::unexpected(
        UnlockError{UnlockError::Reason::kNotHeld,
                    "LockError: Cannot extend a lock with no timeout (lock '" + key_ + "')"});
  }
  return run_ttl_script("redis_py_extend",
                        {*token, std::to_string(additional.count()), replace_ttl ? "1" : "0"},
                        "extend");
}

UnlockResult RedisPyLock::reacquire() {
  const std::optional<std::string> token = get_token();
  if (!token) {
    return std::unexpected(
        UnlockError{UnlockError::Reason::kNotHeld,
                    "LockError: Cannot reacquire an unlocked lock (lock '" + key_ + "')"});
  }
  if (!options_.timeout) {
    return std::unexpected(
        UnlockError{UnlockError::Reason::kNotHeld,
                    "LockError: Cannot reacquire a lock with no timeout (lock '" + key_ + "')"});
  }
  return run_ttl_script("redis_py_reacquire", {*token, std::to_string(options_.timeout->count())},
                        "reacquire");
}

bool RedisPyLock::locked() {
  const Reply reply = env_->connection().call({"GET", key_});
  if (reply.is_error()) throw UnexpectedReply("GET '" + key_ + "': " + reply.str());
  return !reply.is_nil();
}

bool RedisPyLock::owned() {
  const Reply reply = env_->connection().call({"GET", key_});
  if (reply.is_error()) throw UnexpectedReply("GET '" + key_ + "': " + reply.str());
  const std::optional<std::string> token = get_token();
  return token && reply.is_bulk() && reply.str() == *token;
}

RemainingLease RedisPyLock::remaining_lease() {
  const Reply reply = env_->connection().call({"PTTL", key_});
  if (!reply.is_integer()) throw UnexpectedReply("PTTL '" + key_ + "': " + reply.debug_string());
  return RemainingLease::from_pttl(reply.integer());
}

}  // namespace redsim::lock

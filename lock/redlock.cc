#include "lock/redlock.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/quorum_reads.h"
#include "lock/script.h"

namespace redsim::lock {

Redlock::Redlock(Env& env, std::string key, RedlockOptions options)
    : DistributedLock(env), env_(&env), key_(std::move(key)), options_(options) {
  if (options_.lease.count() <= 0) {
    throw std::invalid_argument("redlock '" + key_ + "': lease must be > 0 ms");
  }
  if (options_.server_timeout.count() <= 0) {
    throw std::invalid_argument("redlock '" + key_ + "': server_timeout must be > 0");
  }
  if (options_.retry_delay_min.count() <= 0 ||
      options_.retry_delay_max < options_.retry_delay_min) {
    throw std::invalid_argument("redlock '" + key_ + "': retry delay must satisfy 0 < min <= max");
  }
}

Micros Redlock::drift(std::chrono::milliseconds lease) const {
  const auto lease_us = static_cast<double>(Micros(lease).count());
  return Micros(static_cast<int64_t>(lease_us * options_.drift_factor)) + options_.drift_min;
}

std::string Redlock::new_token() {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(env_->random_u64()));
  return env_->client_id() + ":" + std::to_string(env_->task_id()) + ":" + hex;
}

bool Redlock::attempt(const std::string& token) {
  const EnvTime start = env_->now();
  const std::string px = std::to_string(options_.lease.count());
  size_t acquired = 0;
  for (size_t i = 0; i < env_->server_count(); ++i) {
    try {
      const Reply reply =
          env_->connection(i).call({"SET", key_, token, "NX", "PX", px}, options_.server_timeout);
      if (reply.is_status()) ++acquired;
    } catch (const ConnectionError& e) {
      env_->trace("redlock: server " + std::to_string(i) + " failed: " + e.what());
    }
  }
  const auto elapsed = env_->now() - start;
  const Micros validity = Micros(options_.lease) - elapsed - drift(options_.lease);
  if (acquired >= quorum() && validity.count() > 0) {
    token_ = token;
    valid_until_ = start + Micros(options_.lease) - drift(options_.lease);
    env_->trace("redlock acquired " + key_ + " on " + std::to_string(acquired) + "/" +
                std::to_string(env_->server_count()) + " servers, validity " +
                std::to_string(validity.count()) + " us");
    return true;
  }
  env_->trace("redlock attempt on " + key_ + " failed: " + std::to_string(acquired) + "/" +
              std::to_string(env_->server_count()) + " servers, validity " +
              std::to_string(validity.count()) + " us; releasing");
  release_all(token);
  return false;
}

size_t Redlock::release_all(const std::string& token) {
  static const Script& script = Script::get("simple_unlock");
  size_t deleted = 0;
  for (size_t i = 0; i < env_->server_count(); ++i) {
    try {
      const Reply reply =
          run_script(env_->connection(i), script, {key_}, {token}, options_.server_timeout);
      if (reply.is_integer() && reply.integer() == 1) ++deleted;
    } catch (const ConnectionError& e) {
      env_->trace("redlock: release on server " + std::to_string(i) + " failed: " + e.what());
    }
  }
  return deleted;
}

bool Redlock::acquire_until(std::optional<EnvTime> deadline) {
  for (;;) {
    if (attempt(new_token())) return true;
    const uint64_t span =
        static_cast<uint64_t>((options_.retry_delay_max - options_.retry_delay_min).count()) + 1;
    Micros pause = options_.retry_delay_min + Micros(env_->random_u64() % span);
    if (deadline) {
      const EnvTime now = env_->now();
      if (now >= *deadline) return false;
      pause = std::min(pause, *deadline - now);
    }
    env_->sleep_for(pause);
  }
}

void Redlock::lock() { acquire_until(std::nullopt); }

bool Redlock::try_lock() { return acquire_until(env_->now()); }

bool Redlock::try_lock_wait(Micros wait) {
  return acquire_until(env_->now() + std::max(wait, Micros(0)));
}

UnlockResult Redlock::release_hold() {
  if (token_.empty()) {
    return std::unexpected(UnlockError{
        UnlockError::Reason::kNotHeld,
        "attempt to unlock redlock '" + key_ + "', not locked by this object (node id: " +
            env_->client_id() + " thread-id: " + std::to_string(env_->task_id()) + ")"});
  }
  const std::string token = std::exchange(token_, std::string());
  const size_t deleted = release_all(token);
  env_->trace("redlock released " + key_ + " on " + std::to_string(deleted) + " servers");
  if (deleted >= quorum()) return {};
  return std::unexpected(UnlockError{UnlockError::Reason::kNotHeld,
                                     "redlock '" + key_ +
                                         "' was lost before unlock: fewer than a quorum of "
                                         "servers still held this acquisition's token"});
}

bool Redlock::extend(std::chrono::milliseconds lease) {
  if (lease.count() <= 0) throw std::invalid_argument("redlock extend: lease must be > 0 ms");
  if (token_.empty()) return false;
  static const Script& script = Script::get("redlock_extend");
  const EnvTime start = env_->now();
  size_t extended = 0;
  for (size_t i = 0; i < env_->server_count(); ++i) {
    try {
      const Reply reply =
          run_script(env_->connection(i), script, {key_}, {token_, std::to_string(lease.count())},
                     options_.server_timeout);
      if (reply.is_integer() && reply.integer() == 1) ++extended;
    } catch (const ConnectionError& e) {
      env_->trace("redlock: extend on server " + std::to_string(i) + " failed: " + e.what());
    }
  }
  const Micros validity = Micros(lease) - (env_->now() - start) - drift(lease);
  if (extended >= quorum() && validity.count() > 0) {
    valid_until_ = start + Micros(lease) - drift(lease);
    return true;
  }
  env_->trace("redlock extend of " + key_ + " failed on " +
              std::to_string(env_->server_count() - extended) + " servers");
  return false;
}

Micros Redlock::validity_left() {
  if (token_.empty()) return Micros(0);
  return valid_until_ - env_->now();
}

bool Redlock::is_locked() {
  return quorum_reads::is_locked(*env_, key_, quorum(), options_.server_timeout);
}

bool Redlock::is_held_by_current_thread() {
  return quorum_reads::holds(*env_, key_, token_, quorum(), options_.server_timeout);
}

RemainingLease Redlock::remaining_lease() {
  return quorum_reads::remaining_lease(*env_, key_, quorum(), options_.server_timeout);
}

}  // namespace redsim::lock

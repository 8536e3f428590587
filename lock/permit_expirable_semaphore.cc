#include "lock/permit_expirable_semaphore.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/lock_entry.h"
#include "lock/script.h"

namespace redsim::lock {

namespace {

std::string timeout_key_name(const std::string& name) {
  if (name.find('{') != std::string::npos) return name + ":timeout";
  return "{" + name + "}:timeout";
}

void require_lease(PermitLease lease) {
  if (lease && lease->count() <= 0) {
    throw std::invalid_argument("permit lease must be > 0 ms (or kNeverExpires), got " +
                                std::to_string(lease->count()));
  }
}

void require_lease(std::chrono::milliseconds lease) {
  if (lease.count() <= 0) {
    throw std::invalid_argument("permit lease must be > 0 ms, got " +
                                std::to_string(lease.count()));
  }
}

}  // namespace

std::string PermitExpirableSemaphore::now_ms() {
  return std::to_string(
      std::chrono::floor<std::chrono::milliseconds>(env_.now().time_since_epoch()).count());
}

PermitExpirableSemaphore::PermitExpirableSemaphore(Env& env, std::string name,
                                                   SemaphoreOptions options)
    : env_(env),
      name_(std::move(name)),
      timeout_key_(timeout_key_name(name_)),
      channel_(Semaphore::channel_name(name_)),
      options_(options),
      counter_(env, name_, options) {}

bool PermitExpirableSemaphore::try_set_permits(int64_t permits) {
  return counter_.try_set_permits(permits);
}

int64_t PermitExpirableSemaphore::add_permits(int64_t permits) {
  return counter_.add_permits(permits);
}

int64_t PermitExpirableSemaphore::available_permits() {
  static const Script& script = Script::get("pe_semaphore_available");
  const Reply reply =
      run_script(env_.connection(), script, {name_, timeout_key_, channel_}, {now_ms()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("pe_semaphore_available on '" + name_ + "' answered " +
                          reply.debug_string());
  }
  return reply.integer();
}

std::string PermitExpirableSemaphore::new_id() {
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx",
                static_cast<unsigned long long>(env_.random_u64()),
                static_cast<unsigned long long>(env_.random_u64()));
  return hex;
}

std::optional<std::string> PermitExpirableSemaphore::attempt(PermitLease lease,
                                                             int64_t& wait_hint_ms) {
  static const Script& script = Script::get("pe_semaphore_acquire");
  const std::string id = new_id();
  const Reply reply = run_script(env_.connection(), script, {name_, timeout_key_, channel_},
                                 {lease ? std::to_string(lease->count()) : "never", id, now_ms()});
  if (reply.is_bulk() && reply.str() == id) {
    env_.trace("permit " + id + " of " + name_ + " for " +
               (lease ? std::to_string(lease->count()) + " ms" : "ever"));
    return id;
  }
  if (!reply.is_integer()) {
    throw UnexpectedReply("pe_semaphore_acquire on '" + name_ + "' answered " +
                          reply.debug_string());
  }
  wait_hint_ms = reply.integer();
  return std::nullopt;
}

std::optional<std::string> PermitExpirableSemaphore::try_acquire(PermitLease lease) {
  require_lease(lease);
  int64_t hint = -1;
  return attempt(lease, hint);
}

std::optional<std::string> PermitExpirableSemaphore::try_acquire_for(Micros wait,
                                                                     PermitLease lease) {
  require_lease(lease);
  const EnvTime start = env_.now();
  int64_t hint = -1;
  if (auto id = attempt(lease, hint)) return id;
  if (env_.now() - start >= wait) return std::nullopt;

  LockEntry wakeup(env_, channel_, LockEntry::WakePolicy::kSemaphore);
  std::optional<std::string> id;
  try {
    // No attempt once the wait is over (RedissonPermitExpirableSemaphore
    // returns null when the time left is <= 0).
    while (env_.now() - start < wait && !(id = attempt(lease, hint))) {
      const auto elapsed = env_.now() - start;
      if (elapsed >= wait) break;
      // RedissonPermitExpirableSemaphore.acquire: latch.tryAcquire(nearest
      // expiry) when a held permit expires, else latch.acquire() (a message only).
      Micros pause = options_.recheck_interval.value_or(kForever);
      if (hint >= 0) pause = std::min(pause, Micros(std::chrono::milliseconds(hint + 1)));
      wakeup.wait_for(std::min(pause, wait - elapsed));
    }
  } catch (const Error&) {
    wakeup.close();
    throw;
  }
  wakeup.close();
  return id;
}

bool PermitExpirableSemaphore::try_release(const std::string& id) {
  static const Script& script = Script::get("pe_semaphore_release");
  const Reply reply =
      run_script(env_.connection(), script, {name_, timeout_key_, channel_}, {id, now_ms()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("pe_semaphore_release on '" + name_ + "' answered " +
                          reply.debug_string());
  }
  return reply.integer() == 1;
}

void PermitExpirableSemaphore::release(const std::string& id) {
  if (try_release(id)) return;
  throw LockNotOwned("Permit with id " + id + " has already been released or doesn't exist (" +
                     name_ + ")");
}

bool PermitExpirableSemaphore::update_lease_time(const std::string& id,
                                                 std::chrono::milliseconds lease) {
  require_lease(lease);
  static const Script& script = Script::get("pe_semaphore_update_lease");
  const Reply reply = run_script(env_.connection(), script, {timeout_key_},
                                 {id, std::to_string(lease.count()), now_ms()});
  if (!reply.is_integer()) {
    throw UnexpectedReply("pe_semaphore_update_lease on '" + name_ + "' answered " +
                          reply.debug_string());
  }
  return reply.integer() == 1;
}

}  // namespace redsim::lock

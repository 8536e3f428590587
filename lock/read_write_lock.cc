#include "lock/read_write_lock.h"

#include <utility>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

namespace {

std::optional<int64_t> pttl_or_granted(const Reply& reply, std::string_view script,
                                       const std::string& key) {
  if (reply.is_nil()) return std::nullopt;
  if (!reply.is_integer()) {
    throw UnexpectedReply(std::string(script) + " on '" + key + "' answered " +
                          reply.debug_string());
  }
  return reply.integer();
}

std::string ms_arg(std::chrono::milliseconds ms) { return std::to_string(ms.count()); }

// The latch's lifetime as the scripts take it: 0 when there is no latch.
std::string latch_ttl_arg(const ReentrantLock::UnlockLatch& latch) {
  return latch.empty() ? "0" : ms_arg(latch.ttl);
}

bool force_unlock_mode(Connection& connection, const std::string& key, std::string_view message,
                       std::string_view mode) {
  static const Script& script = Script::get("rw_force_unlock");
  const Reply reply = run_script(connection, script, {key, ReadWriteLock::channel_name(key)},
                                 {std::string(message), std::string(mode)});
  if (!reply.is_integer()) {
    throw UnexpectedReply("rw_force_unlock on '" + key + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

}  // namespace

std::string ReadWriteLock::channel_name(std::string_view key) {
  if (key.find('{') != std::string_view::npos) return "redisson_rwlock:" + std::string(key);
  return "redisson_rwlock:{" + std::string(key) + "}";
}

std::string ReadWriteLock::key_prefix(std::string_view key) {
  if (key.find('{') != std::string_view::npos) return std::string(key);
  return "{" + std::string(key) + "}";
}

ReadLock::ReadLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, key, options,
                    Flavor{.channel = ReadWriteLock::channel_name(key),
                           .field_suffix = "",
                           .unlock = &Script::get("rw_read_unlock"),
                           .renew = &Script::get("rw_read_renew"),
                           .has_latch = true,
                           .renew_keys = {ReadWriteLock::key_prefix(key)},
                           .latch_by_default = true}) {}

std::string ReadLock::timeout_prefix(const std::string& owner) const {
  return ReadWriteLock::key_prefix(key()) + ":" + owner + ":rwlock_timeout";
}

std::optional<int64_t> ReadLock::run_acquire(const std::string& owner,
                                             std::chrono::milliseconds lease,
                                             const Attempt& /*attempt*/) {
  static const Script& script = Script::get("rw_read_acquire");
  return pttl_or_granted(run_script(env().connection(), script, {key(), timeout_prefix(owner)},
                                    {ms_arg(lease), owner, owner + ":write"}),
                         script.name(), key());
}

Reply ReadLock::run_unlock(const std::string& owner, std::chrono::milliseconds /*lease*/,
                           const UnlockLatch& latch) {
  static const Script& script = Script::get("rw_read_unlock");
  return run_script(env().connection(), script,
                    {key(), channel(), timeout_prefix(owner), ReadWriteLock::key_prefix(key()),
                     latch.empty() ? key() : latch.key},
                    {std::string(kUnlockMessage), owner, latch_ttl_arg(latch)});
}

bool ReadLock::run_force_unlock() {
  return force_unlock_mode(env().connection(), key(), kUnlockMessage, "read");
}

bool ReadLock::is_locked() {
  static const Script& script = Script::get("rw_read_is_locked");
  const Reply reply = run_script(env().connection(), script, {key()}, {});
  if (!reply.is_integer()) {
    throw UnexpectedReply("rw_read_is_locked on '" + key() + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

WriteLock::WriteLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, key, options,
                    Flavor{.channel = ReadWriteLock::channel_name(key),
                           .field_suffix = ":write",
                           .unlock = &Script::get("rw_write_unlock"),
                           .renew = &Script::get("reentrant_renew"),
                           .has_latch = true,
                           .latch_by_default = true}) {}

std::optional<int64_t> WriteLock::run_acquire(const std::string& owner,
                                              std::chrono::milliseconds lease,
                                              const Attempt& /*attempt*/) {
  static const Script& script = Script::get("rw_write_acquire");
  return pttl_or_granted(run_script(env().connection(), script, {key()},
                                    {ms_arg(lease), field(owner),
                                     options().write_reentry_sets_lease_before_1110 ? "1" : "0"}),
                         script.name(), key());
}

Reply WriteLock::run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                            const UnlockLatch& latch) {
  static const Script& script = Script::get("rw_write_unlock");
  return run_script(env().connection(), script,
                    {key(), channel(), latch.empty() ? key() : latch.key},
                    {std::string(ReadWriteLock::kReadUnlockMessage), ms_arg(lease), field(owner),
                     latch_ttl_arg(latch)});
}

bool WriteLock::run_force_unlock() {
  return force_unlock_mode(env().connection(), key(), ReadWriteLock::kReadUnlockMessage, "write");
}

bool WriteLock::is_locked() {
  const Reply reply = env().connection().call({"HGET", key(), "mode"});
  if (reply.is_error()) {
    throw UnexpectedReply("HGET '" + key() + "' mode failed: " + reply.str());
  }
  return reply.is_bulk() && reply.str() == "write";
}

ReadWriteLock::ReadWriteLock(Env& env, std::string key, ReentrantLockOptions options)
    : env_(&env), key_(std::move(key)), read_(env, key_, options), write_(env, key_, options) {}

std::optional<std::string> ReadWriteLock::mode() {
  const Reply reply = env_->connection().call({"HGET", key_, "mode"});
  if (reply.is_nil()) return std::nullopt;
  if (!reply.is_bulk()) {
    throw UnexpectedReply("HGET '" + key_ + "' mode answered " + reply.debug_string());
  }
  return reply.str();
}

}  // namespace redsim::lock

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

}  // namespace

std::string ReadWriteLock::channel_name(std::string_view key) {
  if (key.find('{') != std::string_view::npos) return "redisson_rwlock:" + std::string(key);
  return "redisson_rwlock:{" + std::string(key) + "}";
}

ReadLock::ReadLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, key, options,
                    Flavor{ReadWriteLock::channel_name(key), "", &Script::get("rw_read_unlock"),
                           &Script::get("rw_renew")}) {}

std::optional<int64_t> ReadLock::run_acquire(const std::string& owner,
                                             std::chrono::milliseconds lease,
                                             const Attempt& /*attempt*/) {
  static const Script& script = Script::get("rw_read_acquire");
  return pttl_or_granted(run_script(env().connection(), script, {key()},
                                    {std::to_string(lease.count()), owner, owner + ":write"}),
                         script.name(), key());
}

WriteLock::WriteLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, key, options,
                    Flavor{ReadWriteLock::channel_name(key), ":write",
                           &Script::get("rw_write_unlock"), &Script::get("rw_renew")}) {}

std::optional<int64_t> WriteLock::run_acquire(const std::string& owner,
                                              std::chrono::milliseconds lease,
                                              const Attempt& /*attempt*/) {
  static const Script& script = Script::get("rw_write_acquire");
  return pttl_or_granted(run_script(env().connection(), script, {key()},
                                    {std::to_string(lease.count()), field(owner)}),
                         script.name(), key());
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

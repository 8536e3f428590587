#include "lock/spin_lock.h"

#include <stdexcept>
#include <utility>

#include "lock/script.h"

namespace redsim::lock {

namespace {

const Script& spin_unlock_script() {
  static const Script& script = Script::get("spin_unlock");
  return script;
}

const Script& spin_unlock_latch_script() {
  static const Script& script = Script::get("spin_unlock_latch");
  return script;
}

const Script& spin_renew_script() {
  static const Script& script = Script::get("reentrant_renew");
  return script;
}

}  // namespace

SpinLock::SpinLock(Env& env, std::string key, ReentrantLockOptions options, Backoff backoff)
    : ReentrantLock(env, key, options,
                    Flavor{.channel = channel_name(key),
                           .field_suffix = "",
                           .unlock = &spin_unlock_script(),
                           .renew = &spin_renew_script(),
                           .has_latch = true,
                           .latch_by_default = true}),
      backoff_(backoff) {
  if (backoff_.initial.count() <= 0 || backoff_.max.count() <= 0 ||
      backoff_.initial > backoff_.max || backoff_.multiplier <= 0) {
    throw std::invalid_argument("spin lock '" + this->key() +
                                "': backoff needs 0 < initial <= max and multiplier > 0");
  }
}

Reply SpinLock::run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                           const UnlockLatch& latch) {
  if (latch.empty()) return ReentrantLock::run_unlock(owner, lease, latch);
  return run_script(env().connection(), spin_unlock_latch_script(), {key(), channel(), latch.key},
                    {std::string(kUnlockMessage), std::to_string(lease.count()), field(owner),
                     std::to_string(latch.ttl.count())});
}

bool SpinLock::run_force_unlock() {
  return integer_of(env().connection().call({"DEL", key()}), "DEL '" + key() + "'") == 1;
}

}  // namespace redsim::lock

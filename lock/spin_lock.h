// SpinLock: Redisson's RSpinLock (RedissonSpinLock) on the Env port. The
// same hash as ReentrantLock (owner field, hold count, lease, watchdog,
// re-entry; RedissonSpinLock.tryLockInnerAsync is RedissonLock's acquire
// script), but no pub/sub: a waiter subscribes to nothing and retries after
// an exponential backoff (LockOptions.ExponentialBackOff: 1 ms, x2 plus a
// jitter in [0, failures), at most 128 ms), and unlock publishes nothing
// (scripts/spin_unlock.lua). So a waiter never hangs on a lost message, but
// may sleep up to 128 ms past an unlock, and every waiter polls Redis.
//
//   lock::SpinLock lock(env, "orders:42");
//   if (lock.try_lock_for(std::chrono::seconds(1))) { ...; lock.unlock(); }
//
// Unlock latch: on by default, as RedissonSpinLock.unlockInnerAsync always
// reads and writes "redisson_unlock_latch:{<key>}:<request id>"
// (scripts/spin_unlock_latch.lua, no PUBLISH); ReentrantLockOptions::
// unlock_latch = false sends scripts/spin_unlock.lua instead.
// Difference kept: RedissonSpinLock.tryLock sleeps a whole backoff and then
// tries once more even past the wait; here the sleep is cut at the wait and
// no attempt follows it (as every lock here). Errors as ReentrantLock.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "lock/reentrant_lock.h"

namespace redsim::lock {

class SpinLock final : public ReentrantLock {
 public:
  // Throws what ReentrantLock's constructor throws; std::invalid_argument
  // for a backoff whose initial or max is <= 0, initial > max, or multiplier <= 0.
  SpinLock(Env& env, std::string key, ReentrantLockOptions options = {}, Backoff backoff = {});
  SpinLock(SpinLock&&) = default;

  LockKind kind() const override { return LockKind::kSpin; }

 protected:
  std::optional<Backoff> backoff() const override { return backoff_; }
  // spin_unlock, or spin_unlock_latch with the latch's KEYS/ARGV.
  Reply run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                   const UnlockLatch& latch) override;
  // RedissonSpinLock.forceUnlockAsync: DEL, no message.
  bool run_force_unlock() override;

 private:
  Backoff backoff_;
};

}  // namespace redsim::lock

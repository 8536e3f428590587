// SimpleLock: the single-instance Redis lock the articles end up
// recommending. Acquire is one atomic command, `SET key token NX PX lease`
// (seed 004's "correct locking example"; seed 002's `set lock_key
// unique_value NX PX 30000`); release is the Lua compare-and-delete of seeds
// 000, 002 and 004 (scripts/simple_unlock.lua), so a holder whose lease ran
// out can never delete the next holder's lock.
//
//   lock::SimpleLock lock(env, "orders:42", {.lease = std::chrono::seconds(10)});
//   if (lock.try_lock_for(std::chrono::milliseconds(500))) {
//     ...                       // critical section, shorter than the lease
//     if (auto r = lock.release(); !r) ...   // kNotHeld: the lease ran out meanwhile
//   }
//
// A release whose compare-and-delete returns 0 answers UnlockError kNotHeld
// (and unlock() records it for last_unlock()): the lease expired while the
// caller thought it held the lock, so mutual exclusion may already have been
// broken (someone else may have entered); the literature's clients silently
// return "not released", which hides exactly the failure a test wants to see.
// Not reentrant; no watchdog (the lease is fixed).
#pragma once

#include "lock/token_lock.h"

namespace redsim::lock {

class SimpleLock final : public TokenLock {
 public:
  SimpleLock(Env& env, std::string key, LockOptions options = {})
      : TokenLock(env, std::move(key), options) {}
  SimpleLock(SimpleLock&&) = default;
  LockKind kind() const override { return LockKind::kSimple; }

 protected:
  bool release_token(const std::string& token) override;
};

}  // namespace redsim::lock

// GetDelLock (BROKEN on purpose): acquire is the correct SET NX PX, but
// release is GET, compare in the client, then DEL as two commands. Seed 004's
// "wrongUnLock1" (`if (requestId.equals(jedis.get(lockKey))) jedis.del(lockKey);`)
// and seed 003's RedisLock.unlock; seed 002 spells out the race:
//   1. client A GETs the lock and sees its own token
//   2. A's lease expires before its DEL
//   3. client B acquires the lock
//   4. A's DEL deletes B's lock, and a third client C can enter beside B.
// The expire-then-delete race: a mutual-exclusion failure. release_token() returns
// true once GET matched (the client believes it deleted its own lock, whatever
// the DEL hit), false when GET already showed another value.
#pragma once

#include "lock/token_lock.h"

namespace redsim::lock {

class GetDelLock final : public TokenLock {
 public:
  GetDelLock(Env& env, std::string key, LockOptions options = {})
      : TokenLock(env, std::move(key), options) {}
  GetDelLock(GetDelLock&&) = default;
  LockKind kind() const override { return LockKind::kGetDel; }

 protected:
  bool release_token(const std::string& token) override;
};

}  // namespace redsim::lock

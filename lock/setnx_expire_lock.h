// SetnxExpireLock (BROKEN on purpose): acquire is SETNX, then the expiry as
// a SECOND command. Seed 004, "加锁错误示例1":
//   jedis.setnx("lockName","value"); // redis or the client dies here: deadlock
//   jedis.expire("lockName",10);
// A client that crashes (or loses its connection) between the two commands
// leaves a lock with no TTL (PTTL -1) that nobody ever releases: a liveness
// failure. The expiry is sent as PEXPIRE so the lease has the same
// millisecond unit as the other kinds; the flaw (two commands, not one) is
// the article's.
//
// If the second command fails with a ConnectionError the exception
// propagates: the caller believes the acquire failed while the key is set
// forever. Release is the safe compare-and-delete (as SimpleLock), so the
// only flaw reproduced here is the acquire's.
#pragma once

#include "lock/token_lock.h"

namespace redsim::lock {

class SetnxExpireLock final : public TokenLock {
 public:
  SetnxExpireLock(Env& env, std::string key, LockOptions options = {})
      : TokenLock(env, std::move(key), options) {}
  SetnxExpireLock(SetnxExpireLock&&) = default;
  LockKind kind() const override { return LockKind::kSetnxExpire; }

 protected:
  bool acquire_once(const std::string& token) override;
  bool release_token(const std::string& token) override;
};

}  // namespace redsim::lock

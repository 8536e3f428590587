// BlindDelLock (BROKEN on purpose): acquire is the correct SET NX PX, but
// release is a plain `DEL key` of whatever is there: the "误操作锁" (deleting
// someone else's lock) that seeds 002 and 003 warn against and that the token
// check exists to prevent. A holder whose lease ran out deletes the next
// holder's lock, and a third client can enter beside it: a mutual-exclusion
// failure, even more easily than GetDelLock's (no window needed).
// release_token() is blind: it always reports success.
#pragma once

#include "lock/token_lock.h"

namespace redsim::lock {

class BlindDelLock final : public TokenLock {
 public:
  BlindDelLock(Env& env, std::string key, LockOptions options = {})
      : TokenLock(env, std::move(key), options) {}
  BlindDelLock(BlindDelLock&&) = default;
  LockKind kind() const override { return LockKind::kBlindDel; }

 protected:
  bool release_token(const std::string& token) override;
};

}  // namespace redsim::lock

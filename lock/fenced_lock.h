// FencedLock: Redisson's RFencedLock on the Env port. A ReentrantLock (same
// hash, owner field, hold count, pub/sub wake-up, lease and watchdog, same
// unlock) whose every successful acquisition, re-entries included, also
// INCRs a token counter in the same Lua script (scripts/fenced_acquire.lua)
// and returns the new value: a fencing token in Kleppmann's sense ("How to do
// distributed locking", 2016). A resource that remembers the highest token it
// accepted and rejects lower ones turns a holder that outlived its lease
// (paused past it, say) from a safety violation into a rejected write.
//
// In Redis: the lock hash at `key` and the counter at token_key(), which is
// "redisson_lock_token:{<key>}" ("redisson_lock_token:<key>" when the key
// has a hash tag), RedissonFencedLock's prefixName("redisson_lock_token",
// name), so both share a cluster slot and Redisson clients read our tokens. The counter never
// expires and only grows; tokens are >= 1.
//
//   lock::FencedLock lock(env, "orders:42");
//   int64_t token = lock.lock_and_get_token();        // e.g. 7
//   storage.write(token, data);                       // storage rejects < max seen
//   lock.unlock();
//   if (auto t = lock.try_lock_and_get_token()) ...   // nullopt when busy
//
// token() is the calling task's latest token (the one from its latest
// acquisition through this object), kept in the object; current_token() asks
// Redis for the counter (Redisson's getToken()). Errors as ReentrantLock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "lock/reentrant_lock.h"

namespace redsim::lock {

class FencedLock final : public ReentrantLock {
 public:
  FencedLock(Env& env, std::string key, ReentrantLockOptions options = {});
  FencedLock(FencedLock&&) = default;

  // lock() and returns the token of this acquisition.
  int64_t lock_and_get_token();
  int64_t lock_and_get_token(Lease lease);
  // try_lock(): the token when taken, nullopt when the lock is busy.
  std::optional<int64_t> try_lock_and_get_token();
  // try_lock_for(wait, lease): the token when taken within `wait`.
  template <class Rep, class Period>
  std::optional<int64_t> try_lock_and_get_token(const std::chrono::duration<Rep, Period>& wait,
                                                Lease lease) {
    if (!try_lock_for(wait, lease)) return std::nullopt;
    return token();
  }

  // The calling task's latest token through this object; nullopt before its
  // first acquisition. Not cleared by unlock (the token names the
  // acquisition, a write with it after unlock is exactly what fencing stops).
  std::optional<int64_t> token();
  // GET of the counter: the latest token anyone was given; 0 when none yet.
  int64_t current_token();

  LockKind kind() const override { return LockKind::kFenced; }
  const std::string& token_key() const { return token_key_; }
  // "redisson_lock_token:{<key>}", or "redisson_lock_token:<key>" when the
  // key already has a hash tag.
  static std::string token_key_name(std::string_view key);

 protected:
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;

 private:
  std::string token_key_;
  detail::FreshMutex mu_;               // guards tokens_; never held across an Env call
  std::map<uint64_t, int64_t> tokens_;  // by task id
};

}  // namespace redsim::lock

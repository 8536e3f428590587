// TokenLock: the common machinery of the string-valued locks of the articles
// (SimpleLock and its broken variants): the lock is a string key whose value
// is a token unique to one acquisition, taken by polling with bounded
// exponential backoff plus jitter. Subclasses choose how one attempt takes
// the lock (acquire_once) and how a release is done (release), which is
// exactly where the articles' variants differ.
//
// The token is "<client-id>:<task-id>:<16 hex digits from Env::random_u64>",
// fresh for each acquisition, so a stale holder can never match a newer one.
// A TokenLock is not reentrant: lock() by the holder waits for its own lease
// to run out, as the SET NX lock of the articles does.
//
// release() (and unlock(), which throws nothing) answers kNotHeld when this
// object holds no acquisition, or when the release found the key no longer
// holding its token (the lease ran out: mutual exclusion may already have
// been broken; the articles' clients silently return "not released").
// Either way the acquisition is over: the token is forgotten first.
#pragma once

#include <optional>
#include <string>

#include "lock/lock.h"

namespace redsim::lock {

class TokenLock : public DistributedLock {
 public:
  // Throws std::invalid_argument when options.lease is kWatchdog or <= 0, or
  // the backoff bounds are not 0 < min <= max.
  TokenLock(Env& env, std::string key, LockOptions options);
  TokenLock(TokenLock&&) = default;

  void lock() override;
  bool try_lock() override;

  const std::string& key() const override { return key_; }
  std::string owner() override { return token_; }
  bool is_locked() override;
  bool is_held_by_current_thread() override;
  RemainingLease remaining_lease() override;

  const LockOptions& options() const { return options_; }
  // Whether this object believes it holds the lock (it acquired and has not
  // released since); Redis may disagree once the lease ran out.
  bool believes_held() const { return !token_.empty(); }

 protected:
  bool try_lock_wait(Micros wait) override;
  UnlockResult release_hold() override;

  // One attempt to take the lock with `token`; true when taken. The default
  // is the atomic SET key token NX PX lease.
  virtual bool acquire_once(const std::string& token);
  // Releases the lock this object took with `token`. Returns true when the
  // client believes it released its own lock, false when it found the lock
  // no longer its own (release() then answers kNotHeld).
  virtual bool release_token(const std::string& token) = 0;

  // The Lua compare-and-delete (scripts/simple_unlock.lua): deletes the key
  // only while it holds `token`. True when it did.
  bool compare_and_delete(const std::string& token);

  Env& env() { return *env_; }
  // env().connection().call(argv); an error reply throws UnexpectedReply.
  Reply call(const Argv& argv);
  std::string lease_ms_arg() const;

 private:
  // Polls until taken or until `deadline` (Env clock; nullopt = forever).
  bool acquire_until(std::optional<EnvTime> deadline);
  std::string new_token();
  Micros jittered(Micros delay);

  Env* env_;  // a pointer, so the object can move
  std::string key_;
  LockOptions options_;
  Lease lease_;        // options_.lease, or LockOptions::kStringLease when none was given
  std::string token_;  // the held acquisition's token; empty when not held
};

}  // namespace redsim::lock

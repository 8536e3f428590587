// Redlock: antirez's distributed lock over N independent Redis servers
// ("Distributed locks with Redis", redis.io; the algorithm Redisson's
// RedissonRedLock implements), on the Env port: servers 0..N-1 are
// Env::connection(i), N = Env::server_count().
//
// One attempt (try_lock):
//   1. t0 = Env::now() (the client's own clock; never a server's).
//   2. On each server in turn: SET key token NX PX lease, waiting at most
//      server_timeout for the reply (Connection::call(argv, timeout)); a
//      timeout, I/O error or error reply counts as "not acquired there".
//   3. elapsed = now - t0; drift = lease x drift_factor + drift_min
//      (0.01 x lease + 2 ms by default); validity = lease - elapsed - drift.
//   4. Taken when at least a quorum, N/2 + 1, of servers said OK and
//      validity > 0; the lock is then valid until t0 + lease - drift on the
//      client's clock (validity_left()). Otherwise the attempt releases the
//      key on every server (compare-and-delete, scripts/simple_unlock.lua,
//      so it never deletes another client's key) and fails.
// try_lock_for / lock retry after a random delay drawn uniformly in
// [retry_delay_min, retry_delay_max] (Env::random_u64), to desynchronise
// clients that split the vote.
//
// extend(lease): compare-and-PEXPIRE (scripts/redlock_extend.lua) on every
// server, with the same quorum and validity rule, measured from the start of
// the extension; on failure the lock is considered lost (not released).
// unlock()/release(): compare-and-delete on every server (reachable or not,
// so a server that took the key but whose reply was lost is cleaned too).
// The outcome is kNotHeld when this object holds no acquisition, or when
// fewer than a quorum of servers still had its token (servers that could not
// be reached count as not having it; their keys expire with the lease).
//
//   lock::Redlock lock(env, "orders:42", {.lease = std::chrono::seconds(10)});
//   if (lock.try_lock_for(std::chrono::seconds(1))) {
//     ... // only while lock.validity_left() > 0
//     lock.unlock();               // throws nothing; lock.last_unlock() says how it went
//   }
//
// The calls to the servers go one after the other (the Env has no
// asynchronous call), so elapsed grows with N x round trip; antirez's
// "multiplexing" would send them at once. The token is
// "<client-id>:<task-id>:<16 hex>", fresh per acquisition, kept in the
// object (one object per task, as the string kinds). Safety rests on the
// assumptions the article names: bounded clock drift on the servers and the
// client, and a restarted server not coming back without the keys it had
// (see issue 5's scenarios). Not reentrant.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "lock/lock.h"

namespace redsim::lock {

struct RedlockOptions {
  std::chrono::milliseconds lease{10000};  // the PX of each SET; > 0
  // Longest wait for one server's reply (antirez: small against the lease,
  // 5-50 ms for a 10 s lease).
  Micros server_timeout{std::chrono::milliseconds(50)};
  // Uniform random delay between two attempts; 0 < min <= max.
  Micros retry_delay_min{std::chrono::milliseconds(100)};
  Micros retry_delay_max{std::chrono::milliseconds(200)};
  // drift = lease x drift_factor + drift_min.
  double drift_factor = 0.01;
  Micros drift_min{std::chrono::milliseconds(2)};
};

class Redlock final : public DistributedLock {
 public:
  // Throws std::invalid_argument for a lease <= 0, a server_timeout <= 0, or
  // retry delays not 0 < min <= max.
  Redlock(Env& env, std::string key, RedlockOptions options = {});
  Redlock(Redlock&&) = default;

  void lock() override;
  bool try_lock() override;
  // Re-arms `lease` on every server holding the token; true when a quorum
  // did within the validity rule (then validity_left() is renewed).
  bool extend(std::chrono::milliseconds lease);

  LockKind kind() const override { return LockKind::kRedlock; }
  const std::string& key() const override { return key_; }
  std::string owner() override { return token_; }  // "" when not held
  // A quorum of servers has the key (anyone's).
  bool is_locked() override;
  // A quorum of servers has this acquisition's token.
  bool is_held_by_current_thread() override;
  // The time until fewer than a quorum of servers hold the key: the
  // quorum-th largest PTTL; not locked when fewer than a quorum have it, no
  // ttl when that many have it without expiry.
  RemainingLease remaining_lease() override;
  // What is left of the validity on the client's clock; <= 0 when expired or
  // not held.
  Micros validity_left();

  size_t quorum() const { return env_->server_count() / 2 + 1; }
  // lease x drift_factor + drift_min.
  Micros drift(std::chrono::milliseconds lease) const;
  const RedlockOptions& options() const { return options_; }

 protected:
  bool try_lock_wait(Micros wait) override;
  UnlockResult release_hold() override;

 private:
  bool acquire_until(std::optional<EnvTime> deadline);
  bool attempt(const std::string& token);
  // Compare-and-delete on every server; returns how many deleted our key.
  size_t release_all(const std::string& token);
  std::string new_token();

  Env* env_;  // a pointer, so the object can move
  std::string key_;
  RedlockOptions options_;
  std::string token_;      // the held acquisition's token; empty when not held
  EnvTime valid_until_{};  // client clock
};

}  // namespace redsim::lock

// PermitExpirableSemaphore: Redisson's RPermitExpirableSemaphore on the Env
// port. A Semaphore whose every acquired permit has an id and a lease: a
// holder that crashes or pauses past its lease loses the permit, which goes
// back to the count exactly once, and its late release() is refused.
//
// In Redis (scripts/pe_semaphore_*.lua):
//   <name>                  string: available permits (as Semaphore)
//   {<name>}:timeout        sorted set: permit id -> expiry, ms (Redisson's
//                           "{name}:timeout")
//   redisson_sc:{<name>}    channel: the new count after a release/expiry
// The acquire script first moves expired ids back to the count, at most as
// many as it asks for (one; RedissonPermitExpirableSemaphore's
// "zrangebyscore ... limit 0 <permits>"); available_permits() moves them all.
// Expiry is measured on the caller's clock, as Redisson passes
// System.currentTimeMillis() to every script: each call sends Env::now() in
// ms, the process's own clock, which the simulation can skew or drift (so a
// client whose clock runs ahead expires others' permits early, as with
// Redisson), the same reading FairLock uses for its waiters' timeouts.
//
// Needs ZADD/ZRANGEBYSCORE/ZREM/ZSCORE/ZRANGE, which the fake has: it runs on
// the fake (permit_expirable_semaphore_test.cc) and against a real
// redis-server (lock/real_redis_test.cc).
//
//   lock::PermitExpirableSemaphore sem(env, "workers");
//   sem.try_set_permits(2);
//   if (auto id = sem.try_acquire(std::chrono::seconds(10))) {   // lease 10 s
//     ...; sem.release(*id);
//   }
//
// Ids are 16 random bytes in hex (Redisson's permit id form), from
// Env::random_u64. A lease of kNeverExpires is a permit that never expires
// (Redisson's leaseTime -1, stored with its nonExpirableTimeout score).
// Errors: a lease <= 0 throws std::invalid_argument;
// release() of an id not held throws LockNotOwned (Redisson: "Permit with id
// ... has already been released or doesn't exist"); Redis error replies
// throw UnexpectedReply.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "lock/semaphore.h"

namespace redsim::lock {

// A permit's lease: a duration (> 0) or kNeverExpires.
using PermitLease = std::optional<std::chrono::milliseconds>;
inline constexpr std::nullopt_t kNeverExpires = std::nullopt;

class PermitExpirableSemaphore {
 public:
  PermitExpirableSemaphore(Env& env, std::string name, SemaphoreOptions options = {});

  // As Semaphore's (the same string count).
  bool try_set_permits(int64_t permits);
  int64_t add_permits(int64_t permits);
  // Returns expired permits to the count first.
  int64_t available_permits();

  // One attempt: the new permit's id, or nullopt when none is available.
  std::optional<std::string> try_acquire(PermitLease lease);
  // Attempts until taken or `wait` passed (Env clock); waits on the channel
  // (subscribe first; the process's waiters share it, lock/lock_entry.h) at
  // most until the earliest held permit expires, else for a message only
  // (or options.recheck_interval when set).
  std::optional<std::string> try_acquire_for(Micros wait, PermitLease lease);

  // Gives the permit back; false when `id` is not held (unknown, released,
  // or its lease ran out).
  bool try_release(const std::string& id);
  void release(const std::string& id);
  // A new lease, from now, for a permit still held; false otherwise.
  bool update_lease_time(const std::string& id, std::chrono::milliseconds lease);

  const std::string& timeout_key() const { return timeout_key_; }
  const std::string& channel() const { return channel_; }

 private:
  // One run of the acquire script: the id, or the wait hint in ms (-1: none held).
  std::optional<std::string> attempt(PermitLease lease, int64_t& wait_hint_ms);
  std::string new_id();
  // Env::now() in whole ms: Redisson's System.currentTimeMillis().
  std::string now_ms();

  Env& env_;
  std::string name_;
  std::string timeout_key_;
  std::string channel_;
  SemaphoreOptions options_;
  Semaphore counter_;  // try_set_permits / add_permits
};

}  // namespace redsim::lock

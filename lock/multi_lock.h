// MultiLock: Redisson's RedissonMultiLock (and, with MultiLockOptions::red_lock,
// RedissonRedLock) on the Env port. Several locks (any DistributedLock kinds,
// on any keys) taken as one: all of them, or none.
//
//   lock::ReentrantLock a(env, "account:1"), b(env, "account:2");
//   lock::MultiLock both(env, {&a, &b});
//   if (both.try_lock_for(std::chrono::seconds(2))) {   // a and b, or neither
//     ...; both.unlock();
//   }
//   std::scoped_lock guard(both);                        // Lockable: lock()/unlock()
//
// An attempt (RedissonMultiLock.tryLock(waitTime, leaseTime, unit)) takes
// the locks in the order given, each with min(lock wait, time left) (one
// try_lock() when no wait is given). A lock that fails counts against
// failedLocksLimit() (0; RedLock: n - (n/2 + 1)); once over it, the locks
// this attempt took are released again (best effort, failures ignored, as
// unlockInner) and, when a wait was given, the attempt starts over from the
// first lock; without a wait it returns false. The wait left is checked
// after every lock, the last one included: when it is used up the taken
// locks are released and the call returns false.
//
// Errors while taking a lock count as that lock's failure, as Redisson's
// catch (Exception e) does; nothing propagates. A TimeoutError (Redisson's
// RedisResponseTimeoutException: the acquire may have run) also releases
// that lock, so a lock in doubt is not left behind (redisson#1606).
//
// Lease: a call with a lease takes each lock with newLeaseTime, as
// RedissonMultiLock.tryLock(waitTime, leaseTime, unit) does: 2 x the wait
// (in whole ms) when a wait was given, so a lock taken early cannot expire
// while the later ones are awaited, else the lease itself (a doubled wait
// of 0 ms is Redisson's leaseTime <= 0: the watchdog), through
// DistributedLock::try_lock_with_lease (the reentrant kinds; a kind without
// a per-call lease keeps its own). Once all are taken, each is re-PEXPIREd
// to the lease (expireAsync(leaseTime) per lock). Without a lease each lock
// uses its own default (Redisson: newLeaseTime -1, the watchdog). The
// PEXPIRE goes to server 0: Redlock members are not re-armed. lock(lease) retries try_lock_for with
// a wait of size() x 1500 ms, or, with a lease, one drawn in [lease/2, lease) or [base, lease)
// (RedissonMultiLock.lockInterruptibly).
//
// unlock()/release(): RedissonMultiLock.unlock() is locks.forEach(Lock::unlock),
// which stops at the first lock that throws (not held): the locks after it
// stay held until their leases end; release() does the same and returns that
// failure. With red_lock, every lock is released whatever the outcomes
// (RedissonRedLock.unlock -> unlockInner) and the first failure is returned.
// Never throws a lock::Error. The locks are not owned; they must outlive the
// MultiLock. Movable, not copyable.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "lock/lock.h"

namespace redsim::lock {

struct MultiLockOptions {
  // RedissonRedLock: failedLocksLimit = n - (n/2 + 1) (a majority is
  // enough), each lock waits at most max(time left / n, 1 ms), unlock
  // releases every lock. false (default): RedissonMultiLock.
  bool red_lock = false;

  // Old Redisson behaviours, kept so a scenario can show the bug:
  //
  // Before redisson#2172's fix (3.11.0): a call with a lease and no wait
  // gave each lock a lease of 2 x waitTime = -2 ms, and PEXPIRE -2 deletes
  // the key: each lock is gone as soon as it is taken (emulated by a
  // PEXPIRE -2 after each lock is taken). Scenario multilock-no-wait-2172.
  bool lease_before_2172 = false;
  // Before redisson#5484's fix (3.25.0): lock(leaseTime, unit) passed the
  // lease's count in the caller's unit on as milliseconds; lock(10 s) gave
  // 10 ms (emulated: lock(lease) uses the lease's whole seconds as ms).
  // Scenario multilock-lease-unit-5484.
  bool lease_unit_before_5484 = false;
  // redsim's behaviour before this class followed Redisson master (and
  // Redisson's before redisson#1606): an error while taking a lock releases
  // the locks taken before it and propagates; the lock whose reply timed out
  // (in doubt: its script may have run) is not released.
  // Scenario multilock-in-doubt-4456.
  bool errors_propagate = false;
};

class MultiLock {
 public:
  // Throws std::invalid_argument when `locks` is empty or holds a null.
  MultiLock(Env& env, std::vector<DistributedLock*> locks, MultiLockOptions options = {});
  MultiLock(MultiLock&&) = default;
  MultiLock(const MultiLock&) = delete;
  MultiLock& operator=(const MultiLock&) = delete;

  // Blocks until all are taken; with a lease, re-arms them to it.
  void lock() { lock(std::nullopt); }
  void lock(std::optional<std::chrono::milliseconds> lease);
  // One attempt at each lock (try_lock()); all or none (RedLock: a majority).
  bool try_lock(std::optional<std::chrono::milliseconds> lease = std::nullopt) {
    return acquire(std::nullopt, lease);
  }
  // Takes all within `wait` (Env clock), or none; a lease (> 0) re-arms each.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait,
                    std::optional<std::chrono::milliseconds> lease = std::nullopt) {
    return acquire(std::chrono::ceil<Micros>(wait), lease);
  }
  // Takes all by `deadline` (Env clock), or none.
  bool try_lock_until(EnvTime deadline) { return acquire(deadline - env_->now(), std::nullopt); }
  // BasicLockable: release(), throwing nothing.
  void unlock() { (void)release(); }
  // See the header comment: void when each lock was released, else the
  // first failure (the locks after it are left alone unless red_lock).
  UnlockResult release();
  // The calling task's latest unlock()/release() outcome; nullopt before its first.
  std::optional<UnlockResult> last_unlock();

  size_t size() const { return locks_.size(); }
  const MultiLockOptions& options() const { return options_; }

 private:
  // wait: nullopt or <= 0, no wait (one try_lock() per lock).
  bool acquire(std::optional<Micros> wait, std::optional<std::chrono::milliseconds> lease);
  // One lock of an attempt: taken or not; a TimeoutError releases it.
  // lock_lease: the lease to take it with (newLeaseTime), nullopt: its own.
  bool take(DistributedLock& l, std::optional<Micros> lock_wait, std::optional<Lease> lock_lease);
  bool take_once(DistributedLock& l, std::optional<Micros> lock_wait,
                 std::optional<Lease> lock_lease);
  // unlockInner: release each, ignoring (tracing) failures.
  void release_quietly(const std::vector<DistributedLock*>& taken);
  void pexpire(DistributedLock& l, int64_t ms);
  size_t failed_locks_limit() const;

  Env* env_;
  std::vector<DistributedLock*> locks_;
  MultiLockOptions options_;
  detail::FreshMutex mu_;                         // guards last_unlock_
  std::map<uint64_t, UnlockResult> last_unlock_;  // by task id
};

}  // namespace redsim::lock

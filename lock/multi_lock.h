// MultiLock: Redisson's RedissonMultiLock on the Env port. Several locks
// (any DistributedLock kinds, on any keys or servers) taken as one: all of
// them or none. An attempt takes the locks in the order given; when one
// cannot be had in the time left, the ones this attempt took are released
// again (so a failed attempt never leaves a partial hold behind) and, while
// time remains, the attempt starts over from the first lock.
//
//   lock::ReentrantLock a(env, "account:1"), b(env, "account:2");
//   lock::MultiLock both(env, {&a, &b});
//   if (both.try_lock_for(std::chrono::seconds(2))) {   // a and b, or neither
//     ...; both.unlock();
//   }
//   std::scoped_lock guard(both);                        // Lockable: lock()/unlock()
//
// Leases: each lock keeps its own (its options); Redisson's MultiLock can
// also re-PEXPIRE every lock to one lease after the last is taken, which the
// DistributedLock interface has no call for. lock() retries
// try_lock_for(size() x 1500 ms) until it succeeds, as Redisson's does.
//
// Errors: a ConnectionError or UnexpectedReply while taking lock i releases
// locks 0..i-1 (best effort) and is rethrown. A failure to release during
// that clean-up is traced and ignored (the lease frees the lock), as in
// Redisson's unlockInner. unlock()/release() release every lock (each one's
// release(), so each lock's last_unlock() tells its own story) and never
// throw a lock::Error; the outcome is the first failure in lock order, or
// void when every lock was released (Redisson's unlockInner waits for each
// unlock and rethrows the first failure). The locks are not owned; they must
// outlive the MultiLock. Movable, not copyable.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include "lock/lock.h"

namespace redsim::lock {

class MultiLock {
 public:
  // Throws std::invalid_argument when `locks` is empty or holds a null.
  MultiLock(Env& env, std::vector<DistributedLock*> locks);
  MultiLock(MultiLock&&) = default;
  MultiLock(const MultiLock&) = delete;
  MultiLock& operator=(const MultiLock&) = delete;

  void lock();
  // One attempt at each lock (try_lock()); all or none.
  bool try_lock();
  // Takes all within `wait` (Env clock), or none.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait) {
    return acquire(std::chrono::ceil<Micros>(wait));
  }
  // Takes all by `deadline` (Env clock), or none.
  bool try_lock_until(EnvTime deadline) { return acquire(deadline - env_->now()); }
  // BasicLockable: release(), throwing nothing.
  void unlock() { (void)release(); }
  // Releases every lock; void when each was held, else the first failure.
  UnlockResult release();
  // The calling task's latest unlock()/release() outcome; nullopt before its first.
  std::optional<UnlockResult> last_unlock();

  size_t size() const { return locks_.size(); }

 private:
  // wait <= 0: one try_lock() per lock.
  bool acquire(Micros wait);
  void release_quietly(size_t count);

  Env* env_;
  std::vector<DistributedLock*> locks_;
  detail::FreshMutex mu_;                         // guards last_unlock_
  std::map<uint64_t, UnlockResult> last_unlock_;  // by task id
};

}  // namespace redsim::lock

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
// Redisson's unlockInner. unlock() releases every lock, then throws
// LockNotOwned if any was not held. The locks are not owned; they must
// outlive the MultiLock.
#pragma once

#include <chrono>
#include <vector>

#include "lock/lock.h"

namespace redsim::lock {

class MultiLock {
 public:
  // Throws std::invalid_argument when `locks` is empty or holds a null.
  MultiLock(Env& env, std::vector<DistributedLock*> locks);

  void lock();
  // One attempt at each lock (try_lock()); all or none.
  bool try_lock();
  // Takes all within `wait` (Env clock), or none.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait) {
    return acquire(std::chrono::ceil<Micros>(wait));
  }
  // Releases every lock; LockNotOwned when at least one was not held.
  void unlock();
  // Releases every lock; true when all were held.
  bool try_unlock();

  size_t size() const { return locks_.size(); }

 private:
  // wait <= 0: one try_lock() per lock.
  bool acquire(Micros wait);
  void release_quietly(size_t count);

  Env& env_;
  std::vector<DistributedLock*> locks_;
};

}  // namespace redsim::lock

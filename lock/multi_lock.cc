#include "lock/multi_lock.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "lock/errors.h"

namespace redsim::lock {

using std::chrono::milliseconds;

MultiLock::MultiLock(Env& env, std::vector<DistributedLock*> locks, MultiLockOptions options)
    : env_(&env), locks_(std::move(locks)), options_(options) {
  if (locks_.empty()) throw std::invalid_argument("MultiLock: no locks given");
  for (const DistributedLock* l : locks_) {
    if (l == nullptr) throw std::invalid_argument("MultiLock: a null lock");
  }
}

size_t MultiLock::failed_locks_limit() const {
  // RedissonRedLock.failedLocksLimit: n - minLocksAmount, minLocksAmount = n/2 + 1.
  return options_.red_lock ? locks_.size() - (locks_.size() / 2 + 1) : 0;
}

void MultiLock::lock(std::optional<milliseconds> lease) {
  if (lease && lease->count() <= 0) throw std::invalid_argument("MultiLock: a lease must be > 0");
  if (lease && options_.lease_unit_before_5484) {
    // The old lockInterruptibly(leaseTime, unit): tryLock(..., leaseTime,
    // MILLISECONDS) with leaseTime still in the caller's unit.
    lease = milliseconds(std::chrono::duration_cast<std::chrono::seconds>(*lease).count());
  }
  // RedissonMultiLock.lockInterruptibly: baseWaitTime = n x 1500 ms; with a
  // lease, a wait drawn in [lease/2, lease) or [base, lease).
  const int64_t base_ms = static_cast<int64_t>(locks_.size()) * 1500;
  while (true) {
    int64_t wait_ms = base_ms;
    if (lease && lease->count() > 0) {
      const int64_t l = lease->count();
      const int64_t lo = l <= base_ms ? l / 2 : base_ms;
      const int64_t span = l - lo;
      wait_ms = span > 0
                    ? lo + static_cast<int64_t>(env_->random_u64() % static_cast<uint64_t>(span))
                    : lo;
    }
    if (acquire(Micros(milliseconds(wait_ms)), lease)) return;
  }
}

void MultiLock::release_quietly(const std::vector<DistributedLock*>& taken) {
  for (DistributedLock* l : taken) {
    if (UnlockResult r = l->release(); !r) {
      env_->trace("multi-lock could not release " + l->key() + ": " + r.error().message);
    }
  }
}

void MultiLock::pexpire(DistributedLock& l, int64_t ms) {
  if (l.kind() == LockKind::kRedlock) return;
  try {
    env_->connection().call({"PEXPIRE", l.key(), std::to_string(ms)});
  } catch (const Error& e) {
    env_->trace("multi-lock PEXPIRE " + l.key() + " failed: " + e.what());
  }
}

bool MultiLock::take_once(DistributedLock& l, std::optional<Micros> lock_wait,
                          std::optional<Lease> lock_lease) {
  // RedissonMultiLock.tryLock: tryLock() when neither a wait nor a lease was
  // given, else tryLock(awaitTime, newLeaseTime); a kind without a per-call
  // lease keeps its own.
  if (lock_lease) {
    if (std::optional<bool> taken =
            l.try_lock_with_lease(lock_wait.value_or(Micros(0)), *lock_lease)) {
      return *taken;
    }
  }
  return lock_wait && lock_wait->count() > 0 ? l.try_lock_for(*lock_wait) : l.try_lock();
}

bool MultiLock::take(DistributedLock& l, std::optional<Micros> lock_wait,
                     std::optional<Lease> lock_lease) {
  if (options_.errors_propagate) return take_once(l, lock_wait, lock_lease);
  try {
    return take_once(l, lock_wait, lock_lease);
  } catch (const TimeoutError& e) {
    // In doubt: the acquire may have run. unlockInner(Arrays.asList(lock)).
    env_->trace("multi-lock: " + l.key() + " timed out (" + e.what() + "); releasing it");
    release_quietly({&l});
  } catch (const Error& e) {
    env_->trace("multi-lock: " + l.key() + " failed: " + e.what());
  }
  return false;
}

bool MultiLock::acquire(std::optional<Micros> wait, std::optional<milliseconds> lease) {
  if (lease && lease->count() <= 0) throw std::invalid_argument("MultiLock: a lease must be > 0");
  if (wait && wait->count() <= 0) wait.reset();
  EnvTime last = env_->now();
  // remainTime: the wait left, nullopt when none was given (Redisson's -1).
  std::optional<Micros> remain = wait;
  // calcLockWaitTime: all of it; RedLock max(remain / n, 1 ms).
  std::optional<Micros> lock_wait = remain;
  if (remain && options_.red_lock) {
    lock_wait = std::max<Micros>(*remain / static_cast<int64_t>(locks_.size()), milliseconds(1));
  }
  // newLeaseTime, each lock's lease while the others are taken: 2 x the
  // whole wait (ms) when a wait was given, else the lease itself; with no
  // MultiLock lease, nullopt: each lock's own default. A newLeaseTime of 0
  // (a wait under 0.5 ms) is Redisson's leaseTime <= 0: the watchdog.
  std::optional<Lease> lock_lease;
  if (lease && wait) {
    // unit.toMillis(waitTime) * 2
    const milliseconds doubled = std::chrono::floor<milliseconds>(*wait) * 2;
    if (doubled.count() > 0) {
      lock_lease.emplace(doubled);
    } else {
      lock_lease.emplace(kWatchdog);
    }
  } else if (lease) {
    lock_lease.emplace(*lease);
  }
  size_t failures_left = failed_locks_limit();
  std::vector<DistributedLock*> taken;
  taken.reserve(locks_.size());
  for (size_t i = 0; i < locks_.size(); ++i) {
    DistributedLock& l = *locks_[i];
    std::optional<Micros> await;
    if (remain) await = std::min(*lock_wait, *remain);
    bool ok = false;
    if (options_.errors_propagate) {
      try {
        ok = take(l, await, lock_lease);
      } catch (const Error&) {
        release_quietly(taken);
        throw;
      }
    } else {
      ok = take(l, await, lock_lease);
    }
    if (ok) {
      taken.push_back(&l);
      if (lease && !wait && options_.lease_before_2172) pexpire(l, -2);
    } else {
      if (locks_.size() - taken.size() == failed_locks_limit()) break;
      if (failures_left == 0) {
        env_->trace("multi-lock could not take " + l.key() + "; releasing " +
                    std::to_string(taken.size()) + " taken");
        release_quietly(taken);
        if (!wait) return false;
        failures_left = failed_locks_limit();
        taken.clear();
        i = static_cast<size_t>(-1);  // start over from the first lock
      } else {
        --failures_left;
      }
    }
    if (remain) {
      const EnvTime now = env_->now();
      *remain -= now - last;
      last = now;
      if (remain->count() <= 0) {
        release_quietly(taken);
        return false;
      }
    }
  }
  if (lease) {
    for (DistributedLock* l : taken) pexpire(*l, lease->count());
  }
  return true;
}

UnlockResult MultiLock::release() {
  UnlockResult outcome;
  for (DistributedLock* l : locks_) {
    UnlockResult r = l->release();
    if (r) continue;
    if (outcome) outcome = std::move(r);
    // locks.forEach(Lock::unlock): the first exception ends the loop.
    if (!options_.red_lock) break;
  }
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  last_unlock_.insert_or_assign(task, outcome);
  return outcome;
}

std::optional<UnlockResult> MultiLock::last_unlock() {
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  auto it = last_unlock_.find(task);
  if (it == last_unlock_.end()) return std::nullopt;
  return it->second;
}

}  // namespace redsim::lock

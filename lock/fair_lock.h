// FairLock: Redisson's RFairLock (RedissonFairLock) on the Env port: a
// reentrant lock that hands itself to waiters in the order they queued.
//
// In Redis:
//   <key>                          hash, as ReentrantLock's: owner
//                                  "<client-id>:<task-id>" -> hold count, with
//                                  the lease as the key's expiry
//   redisson_lock_queue:{<key>}    list: the waiting owners, head first
//   redisson_lock_timeout:{<key>}  sorted set: waiter -> the time (ms, on the
//                                  clock of the client that queued it) until
//                                  which its place is kept
//   redisson_lock__channel:{<key>}:<owner>
//                                  each waiter's own channel; an unlock tells
//                                  only the head of the queue
// Every change is one Lua script (scripts/fair_*.lua), sent with EVALSHA.
// Each script first drops the waiters at the head of the queue whose place
// has expired (score <= now), so a crashed waiter blocks the queue for at
// most its reservation. The lock is free for an owner when the hash is
// absent and the queue is empty or starts with that owner. A new waiter's
// place is kept until the place of the one ahead (or the lock's lease, when
// nobody is queued) plus one wait; when the head takes the lock or a waiter
// gives up, the places behind shrink by one wait. The wait is the call's own
// wait when it has one (try_lock_for with wait > 0), else
// options.thread_wait, as RedissonFairLock.tryLockInnerAsync and
// acquireFailedAsync choose it ("wait = waitTime > 0 ? waitTime :
// threadWaitTime"). threadWaitTime is Config.fairLockWaitTimeout: 300,000 ms
// since Redisson 3.13.3 (redisson#2883), 5,000 ms before
// (kThreadWaitBefore2883, which scenario fair-skewed-clock-2883 uses).
//
// Times in the scripts are the caller's Env::now() in ms, as Redisson sends
// System.currentTimeMillis(): clients whose clocks disagree see each other's
// reservations early or late. A client whose clock runs ahead by more than
// what is left of the place of the waiter at the head drops that live waiter
// (it re-queues at the tail on its next attempt) and may take the lock
// first; a first waiter whose clock runs behind gets a place that others see
// ending early by the lag. Within those margins the order holds
// (fair_lock_test.cc, AClientWhoseClockRunsAhead...).
//
// FairLock is a ReentrantLock, as Redisson's RedissonFairLock extends
// RedissonLock: waiting, lease, watchdog, re-entry and errors are
// ReentrantLock's (see lock/reentrant_lock.h); it brings its own acquire,
// unlock and force-unlock scripts and its waiting strategy through
// ReentrantLock's protected hooks. Two differences are taken from Redisson:
// a waiting acquire (lock(), try_lock_for) joins the queue on its first
// attempt and, when it gives up (its wait ran out, or an error), leaves it
// again; try_lock() makes one attempt and never queues. A waiter sleeps
// until its own channel's message or the wait hint the script returns
// (negative hint: until the message only, as Redisson's lock() does with
// latch.acquire(); options.recheck_negative_hint re-checks instead). A waiter already queued is
// answered the lock's PTTL, at least 0 (RedissonFairLock since redisson#4705;
// before, the end of its place minus one wait).
// Unlocking a lock that is gone (expired or forced away) tells the head
// waiter and returns normally, as RedissonFairLock.unlockInnerAsync answers
// 1 there; a lock held by someone else answers kNotHeld.
// channel() is "redisson_lock__channel:{<key>}", the prefix of the waiters'
// channels.
//
//   lock::FairLock lock(env, "orders:42");
//   lock.lock();                               // queued behind earlier waiters
//   lock.unlock();                             // the next waiter is told
//   if (lock.try_lock_for(std::chrono::seconds(1), std::chrono::seconds(10))) ...
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "lock/reentrant_lock.h"

namespace redsim::lock {

struct FairLockOptions {
  // The watchdog's lease, renewed every third of it (Redisson's
  // Config.lockWatchdogTimeout). Must be > 0.
  std::chrono::milliseconds lock_watchdog_timeout{30000};
  // The lease of the calls that take none; kWatchdog (default): the watchdog.
  Lease default_lease = kWatchdog;
  // Redisson's threadWaitTime before 3.13.3 (redisson#2883).
  static constexpr std::chrono::milliseconds kThreadWaitBefore2883{5000};
  // How much longer than the one ahead a waiter's place is kept when the
  // call has no wait of its own (Redisson's threadWaitTime,
  // Config.fairLockWaitTimeout: 300,000 ms since 3.13.3). Must be > 0.
  std::chrono::milliseconds thread_wait{300000};
  // As ReentrantLockOptions::watchdog_stops_on_error: false (Redisson's
  // renewal) keeps renewing every third of the lease after a failed renewal.
  bool watchdog_stops_on_error = false;
  // After a negative hint (the place ahead is due) the waiter waits for its
  // channel's message only (nullopt, default, as RedissonFairLock: a lost
  // message leaves lock() waiting), or also re-checks this often (> 0; redsim
  // before issue 14 re-checked every thread_wait). Becomes
  // ReentrantLockOptions::recheck_without_ttl.
  std::optional<std::chrono::milliseconds> recheck_negative_hint{};
  // As ReentrantLockOptions::unlock_retries and unlock_latch, with
  // RedissonFairLock.unlockInnerAsync's latch (KEYS[5] of fair_unlock):
  // nullopt (default) or true: on, as Redisson's master always has it;
  // false: fair_unlock without the latch (redsim before issue 14).
  int unlock_retries = 0;
  std::optional<bool> unlock_latch{};
  // As ReentrantLockOptions::unlock_latch_ttl and retry: the latch's TTL,
  // drawn per unlock from Redisson's retry settings unless fixed here.
  std::optional<std::chrono::milliseconds> unlock_latch_ttl{};
  RedissonRetrySettings retry{};
};

// lock(), try_lock(), try_lock_for(), unlock(), force_unlock(), is_locked(),
// is_held_by_current_thread(), hold_count(), remaining_lease() and owner()
// are ReentrantLock's, with this lock's queue: lock() and try_lock_for() wait
// in queue order, try_lock() makes one attempt and never joins the queue,
// unlock() and force_unlock() tell only the head waiter.
class FairLock : public ReentrantLock {
 public:
  // Throws std::invalid_argument when lock_watchdog_timeout or
  // thread_wait is <= 0.
  FairLock(Env& env, std::string key, FairLockOptions options = {});
  FairLock(FairLock&&) = default;
  // Leaves held locks and their watchdogs alone, as ReentrantLock does.
  ~FairLock() override;

  LockKind kind() const override { return LockKind::kFair; }

  const std::string& queue_key() const { return queue_key_; }
  const std::string& timeout_key() const { return timeout_key_; }
  // The channel `owner` waits on: "redisson_lock__channel:{<key>}:<owner>".
  std::string channel_for(std::string_view owner) const;

 protected:
  // fair_acquire; joins the queue when `waiting`. The hint is the script's:
  // ms until the place ahead of ours expires, < 0 when it is already due.
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;
  std::string wait_channel(const std::string& owner) const override;
  std::string waiting_trace(int64_t hint) const override;
  std::string gave_up_trace(int64_t hint) const override;
  // fair_cancel, errors swallowed (traced): the waiter's place would expire anyway.
  void stop_waiting(const std::string& owner, const Attempt& attempt) override;
  // fair_unlock, with the latch's KEYS/ARGV when `latch` is set.
  Reply run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                   const UnlockLatch& latch) override;
  bool run_force_unlock() override;

 private:
  std::string now_ms_arg();
  // The call's wait in ms when it is > 0, else thread_wait (Redisson's "wait").
  std::chrono::milliseconds wait_of(const Attempt& attempt) const;

  std::string queue_key_;
  std::string timeout_key_;
  std::chrono::milliseconds thread_wait_;
};

}  // namespace redsim::lock

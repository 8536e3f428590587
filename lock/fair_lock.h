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
// nobody is queued) plus thread_wait_time; when the head takes the lock or a
// waiter gives up, the places behind shrink by one thread_wait_time
// (Redisson's "threadWaitTime", 5 s by default).
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
// Waiting, lease, watchdog, re-entry and errors are ReentrantLock's (see
// lock/reentrant_lock.h), with two differences taken from Redisson: a
// waiting acquire (lock(), try_lock_for) joins the queue on its first
// attempt and, when it gives up (its wait ran out, or an error), leaves it
// again; try_lock() makes one attempt and never queues. A waiter sleeps until
// its channel's message or the wait hint the script returns (negative hint:
// until the message, re-checking every thread_wait_time, where Redisson
// waits for the message only).
// Deviation: when the lock is gone (expired) unlock() answers "not held"
// (LockNotOwned) as the other kinds do; Redisson's answers true there.
//
//   lock::FairLock lock(env, "orders:42");
//   lock.lock();                               // queued behind earlier waiters
//   lock.unlock();                             // the next waiter is told
//   if (lock.try_lock_for(std::chrono::seconds(1), std::chrono::seconds(10))) ...
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "lock/errors.h"
#include "lock/lock.h"

namespace redsim::lock {

struct FairLockOptions {
  // The watchdog's lease, renewed every third of it (Redisson's
  // Config.lockWatchdogTimeout). Must be > 0.
  std::chrono::milliseconds lock_watchdog_timeout{30000};
  // The lease of the calls that take none. <= 0: use the watchdog.
  std::chrono::milliseconds default_lease{0};
  // How much longer than the one ahead a waiter's place is kept (Redisson's
  // threadWaitTime, 5000 ms). Must be > 0.
  std::chrono::milliseconds thread_wait_time{5000};
};

class FairLock : public DistributedLock {
 public:
  // Redisson's LockPubSub.UNLOCK_MESSAGE.
  static constexpr std::string_view kUnlockMessage = "0";

  // Throws std::invalid_argument when lock_watchdog_timeout or
  // thread_wait_time is <= 0.
  FairLock(Env& env, std::string key, FairLockOptions options = {});
  // Leaves held locks and their watchdogs alone, as ReentrantLock does.
  ~FairLock() override;

  using DistributedLock::try_lock_for;

  // Blocks until the calling task holds the lock (once more, if it already
  // did), in queue order. lease <= 0 means the watchdog.
  void lock() override;
  void lock(std::chrono::milliseconds lease);
  // One attempt with the default lease; never joins the queue.
  bool try_lock() override;
  // Waits at most `wait` (Env clock) in the queue; lease <= 0 means the watchdog.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait,
                    std::chrono::milliseconds lease) {
    return acquire(std::chrono::ceil<Micros>(wait), lease);
  }

  // Releases one hold of the calling task; when it was the last, tells the
  // head waiter. Throws LockNotOwned with Redisson's message when the task
  // holds none.
  void unlock() override;
  bool try_unlock() override;
  // Deletes the lock whoever holds it and tells the head waiter; stops this
  // object's watchdogs. True when there was a lock to delete.
  bool force_unlock();

  bool is_locked() override;                             // EXISTS key
  bool is_held_by_current_thread() override;             // HEXISTS key owner
  int64_t hold_count();                                  // HGET key owner; 0 when absent
  std::chrono::milliseconds remaining_lease() override;  // PTTL key

  LockKind kind() const override { return LockKind::kFair; }
  const std::string& key() const override { return key_; }
  // "<client-id>:<task-id>" of the calling task.
  std::string owner() override;

  const std::string& queue_key() const { return queue_key_; }
  const std::string& timeout_key() const { return timeout_key_; }
  // The channel `owner` waits on: "redisson_lock__channel:{<key>}:<owner>".
  std::string channel_for(std::string_view owner) const;

 protected:
  bool try_lock_wait(Micros wait) override;

 private:
  struct Watchdog;
  struct OwnerState {
    std::chrono::milliseconds lease{0};
    std::shared_ptr<Watchdog> watchdog;  // null when the owner's lease is explicit
  };

  // nullopt wait: forever.
  bool acquire(std::optional<Micros> wait, std::chrono::milliseconds lease);
  // One run of fair_acquire: nullopt when the owner now holds the lock, else
  // the script's hint in ms.
  std::optional<int64_t> attempt(const std::string& owner, std::chrono::milliseconds lease,
                                 bool enqueue);
  // fair_cancel, errors swallowed (traced): the waiter's place would expire anyway.
  void leave_queue(const std::string& owner);
  void on_acquired(const std::string& owner, std::chrono::milliseconds lease);
  void stop_watchdog(uint64_t task);
  std::chrono::milliseconds lease_of(uint64_t task);
  std::string now_ms_arg();
  Reply call(const Argv& argv);

  Env& env_;
  std::string key_;
  std::string queue_key_;
  std::string timeout_key_;
  std::string channel_prefix_;
  FairLockOptions options_;
  std::mutex mu_;                          // guards owners_; never held across an Env call
  std::map<uint64_t, OwnerState> owners_;  // by task id
};

}  // namespace redsim::lock

// LockEntry: how the waiters of a Redisson-style lock hear an unlock, shared
// by every waiter of one process on one channel, as Redisson's
// RedissonLockEntry is shared by the threads of one client
// (PublishSubscribe.subscribe keys entries by "<client id>:<lock name>").
//
// The first waiter of a process on a channel SUBSCRIBEs; later ones join
// that subscription (waiting until it is confirmed, so an unlock published
// after the constructor returns is never missed); the last one to close()
// UNSUBSCRIBEs. A message wakes waiters through one counting latch, as
// LockPubSub.onMessage does:
//   "0" (LockPubSub.UNLOCK_MESSAGE)       one waiter, the longest waiting;
//                                         with nobody waiting, one permit is
//                                         kept and the next wait_for returns
//                                         at once (Semaphore.release())
//   anything else ("1", READ_UNLOCK_MESSAGE) every waiter waiting now
//                                         (release(queueLength))
// So an unlock wakes one waiter per process, not all of them; the others
// sleep on until their pause (the lock's PTTL) ends or a later message.
// keep_early_message false drops a "0" that finds nobody waiting, as the
// async waiters of Redisson before 3.28 did (a listener added after the
// message was never run, redisson#5761/#5762, fixed by
// RedissonLockEntry.addListener taking the latch's permit): a message landing
// between a waiter's attempt and its wait is then lost to it. The entry's
// first user decides for the process's entry.
//
// A semaphore's entry (WakePolicy::kSemaphore, Redisson's SemaphorePubSub)
// reads the message as the permits now available, n, and releases
// min(waiters of the process, n) permits of the latch: that many waiters
// wake (longest waiting first) and the rest of those permits stay for the
// process's next waits (Semaphore.release(k) with fewer than k blocked).
// A message that is no positive integer wakes nobody. "Waiters of the
// process" is RedissonLockEntry.acquired(): the LockEntry objects open on
// the channel, waiting now or between two attempts.
//
//   LockEntry entry(env, channel);            // SUBSCRIBE, or join
//   try {
//     while (!attempt()) entry.wait_for(pause);
//   } catch (const Error&) {
//     entry.close();
//     throw;
//   }
//   entry.close();                            // UNSUBSCRIBE when last
//
// close() is explicit, never a destructor's work (see lock/wakeup.h). The
// registry behind it is process-wide (keyed by Env and channel) and guarded
// by a mutex that is never held across an Env call.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "lock/env.h"

namespace redsim::lock {

// The longest single wait of a waiter that waits "for ever" for a message
// (Redisson's latch.acquire() without a timeout): it wakes to try once a
// day, which in the simulation is past any run's time limit.
inline constexpr Micros kForever{std::chrono::hours(24)};

class LockEntry {
 public:
  // How a message on the channel wakes the process's waiters (see above).
  enum class WakePolicy : uint8_t {
    kLock,       // LockPubSub.onMessage: "0" one waiter, else every waiter
    kSemaphore,  // SemaphorePubSub.onMessage: min(waiters, permits in the message)
  };

  // Subscribes, or joins the process's subscription on `channel`. Throws
  // what Env::subscribe throws (the waiter then holds nothing). The policy
  // is the first waiter's: every waiter on one channel must pass the same;
  // so is keep_early_message (see above).
  LockEntry(Env& env, std::string channel, WakePolicy policy = WakePolicy::kLock,
            bool keep_early_message = true);
  LockEntry(const LockEntry&) = delete;
  LockEntry& operator=(const LockEntry&) = delete;
  ~LockEntry();

  // Takes one permit: true when one was there or arrives within `timeout`.
  bool wait_for(Micros timeout);

  // Leaves the entry; the last waiter unsubscribes (a failed UNSUBSCRIBE is
  // traced, not thrown). Idempotent.
  void close();

  struct Shared;

 private:
  Env& env_;
  std::string channel_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace redsim::lock

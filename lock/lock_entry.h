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

#include <memory>
#include <string>

#include "lock/env.h"

namespace redsim::lock {

class LockEntry {
 public:
  // Subscribes, or joins the process's subscription on `channel`. Throws
  // what Env::subscribe throws (the waiter then holds nothing).
  LockEntry(Env& env, std::string channel, bool keep_early_message = true);
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

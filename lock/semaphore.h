// Semaphore: Redisson's RSemaphore on the Env port. A counting semaphore
// whose state is one Redis string, the number of available permits; no
// owners, no lease (a crashed holder's permits are lost until someone calls
// add_permits or release; PermitExpirableSemaphore is the leased variant).
//
// In Redis (scripts/semaphore_*.lua):
//   <name>                 string: available permits (absent = 0)
//   redisson_sc:{<name>}   channel; release/add_permits/try_set_permits
//                          publish the new count there
// acquire(n) takes n permits at once or none (one script: GET, compare,
// DECRBY). A waiter subscribes to the channel before its next attempt (so a
// release between the two is not missed) and sleeps until a message wakes
// it. The waiters of one process share one subscription and one latch
// (lock/lock_entry.h, WakePolicy::kSemaphore): a release publishing n
// available permits wakes min(waiters, n) of them, as Redisson's
// SemaphorePubSub.onMessage does (release(min(acquired(), n))), not all.
// As RedissonSemaphore.acquire, a waiter waits for the message only
// (try_acquire_for: at most the wait left); a lost message leaves acquire()
// waiting for the next release, for ever if none comes (redisson#5761/#5762,
// scenario semaphore-lost-release-5762). options.recheck_interval, when
// set, re-checks at least that often instead (redsim's old behaviour).
//
//   lock::Semaphore sem(env, "db-connections");
//   sem.try_set_permits(3);                       // only the first caller sets
//   if (sem.try_acquire_for(1, std::chrono::seconds(2))) { ...; sem.release(1); }
//
// As in Redisson, release() checks nothing: any caller may release, and
// releasing more than was taken raises the count (a permit "made up").
// Errors: n <= 0 where a positive count is required throws
// std::invalid_argument; Redis error replies (WRONGTYPE, a count that is not
// an integer) throw UnexpectedReply; transport failures ConnectionError.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lock/env.h"

namespace redsim::lock {

struct SemaphoreOptions {
  // Longest sleep between two attempts of a waiter that hears no message
  // (a lost message, or permits added by a plain SET); must be > 0.
  // nullopt (default): no re-check, the waiter waits for a message only, as
  // RedissonSemaphore.acquire / RedissonPermitExpirableSemaphore.acquire
  // (which re-check only when a held permit expires).
  std::optional<Micros> recheck_interval;
};

class Semaphore {
 public:
  Semaphore(Env& env, std::string name, SemaphoreOptions options = {});

  // SETNX of the count: true when this call created the semaphore with
  // `permits` (>= 0), false when it existed already.
  bool try_set_permits(int64_t permits);
  // INCRBY `permits` (may be negative) and publish; returns the new count.
  int64_t add_permits(int64_t permits);
  // GET: the permits available now; 0 when the semaphore does not exist.
  int64_t available_permits();
  // Takes every available permit (scripts/semaphore_drain.lua: SET 0 when
  // the key exists); returns how many. A missing semaphore stays missing and
  // answers 0, as RedissonSemaphore.drainPermitsAsync (GETSET would create it).
  int64_t drain_permits();

  // One attempt at `permits` (> 0) permits: true when taken.
  bool try_acquire(int64_t permits = 1);
  // Attempts until taken or `wait` has passed on the Env's clock.
  template <class Rep, class Period>
  bool try_acquire_for(int64_t permits, const std::chrono::duration<Rep, Period>& wait) {
    return acquire_within(permits, std::chrono::ceil<Micros>(wait));
  }
  // Blocks until `permits` (> 0) permits are taken.
  void acquire(int64_t permits = 1);
  // Gives `permits` (> 0) permits back and wakes the waiters.
  void release(int64_t permits = 1);

  const std::string& name() const { return name_; }
  const std::string& channel() const { return channel_; }
  // "redisson_sc:{<name>}", or "redisson_sc:<name>" when it has a hash tag.
  static std::string channel_name(std::string_view name);

 private:
  bool acquire_within(int64_t permits, std::optional<Micros> wait);
  static void require_positive(int64_t permits, const char* what);

  Env& env_;
  std::string name_;
  std::string channel_;
  SemaphoreOptions options_;
};

}  // namespace redsim::lock

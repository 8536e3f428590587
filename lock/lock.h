// DistributedLock: the one interface every lock kind implements, so that
// workloads, scenarios and the CLI can drive any of them; make_lock() builds
// one by kind. Each kind satisfies the standard's Lockable and the
// try_lock_for half of TimedLockable, so std::unique_lock works:
//
//   auto lock = lock::make_lock(lock::LockKind::kGetDel, env, "orders:42");
//   if (lock->try_lock_for(std::chrono::seconds(2))) { ...; lock->unlock(); }
//   std::unique_lock guard(*lock);                 // lock() ... unlock()
//
// Kinds (each header says which article and failure it reproduces):
//   kSimple       SET NX PX + Lua compare-and-delete         (lock/simple_lock.h)     safe
//   kReentrant    Redisson RLock: hash + pub/sub + watchdog   (lock/reentrant_lock.h)  safe
//   kSetnxExpire  SETNX, then EXPIRE as a second command      (lock/setnx_expire_lock.h) broken
//   kGetDel       unlock = GET, compare in client, then DEL   (lock/get_del_lock.h)    broken
//   kBlindDel     unlock = DEL whatever is there              (lock/blind_del_lock.h)  broken
//   kFenced       Redisson RFencedLock: kReentrant + a fencing token per
//                 acquisition                                 (lock/fenced_lock.h)     safe,
//                 and with a FencedResource safe past the lease too
//   kReadWrite    Redisson RReadWriteLock's write half: exclusive,
//                 reentrant, excludes readers too        (lock/read_write_lock.h) safe
//   kRedlock      antirez's Redlock over Env::server_count() servers
//                                                             (lock/redlock.h)         safe
//                 while clocks are sane and servers keep their keys
// "safe" means mutual exclusion holds while no holder outlives its lease
// (pauses below the lease, clocks sane); nothing here is a fencing scheme.
//
// Errors: Redis error replies and impossible reply shapes throw
// UnexpectedReply; transport failures throw ConnectionError (and subclasses),
// in which case the outcome of the command in flight is unknown. unlock()
// throws LockNotOwned when the caller does not (or no longer) hold the lock.
// Note: std::unique_lock's destructor calls unlock(), and an exception from a
// destructor terminates; code that may outlive its lease should call
// try_unlock() (or unlock() in a try block) itself.
//
// Threading: a lock object uses only its Env, and lives no longer than it.
// A kReentrant object may be shared by the tasks of one process (each task is
// an owner); the string kinds keep the current acquisition's token in the
// object, so each task uses its own object, as each thread in the articles
// uses its own token.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lock/env.h"

namespace redsim::lock {

enum class LockKind {
  kSimple,
  kReentrant,
  kSetnxExpire,
  kGetDel,
  kBlindDel,
  kFenced,
  kReadWrite,
  kRedlock
};

// "simple", "reentrant", "setnx-expire", "get-del", "blind-del", "fenced",
// "read-write", "redlock".
std::string_view lock_kind_name(LockKind kind);
// The inverse of lock_kind_name (exact, lower case); nullopt for anything else.
std::optional<LockKind> parse_lock_kind(std::string_view name);
// Every kind, in declaration order.
std::span<const LockKind> all_lock_kinds();
// The kinds built on Redisson's reentrant hash lock (kReentrant, kFenced,
// kReadWrite):
// a lease <= 0 means the watchdog, a task may re-enter, the object may be
// shared by the tasks of a process, and make_lock returns a ReentrantLock.
bool is_reentrant_kind(LockKind kind);

struct LockOptions {
  // How long the lock lives in Redis unless released or renewed (the PX of
  // SET, the PEXPIRE of the others). Must be > 0 for the string kinds. For
  // the reentrant kinds, <= 0 means "no lease given": lock()/try_lock()/try_lock_for()
  // use the watchdog (Redisson's leaseTime = -1).
  std::chrono::milliseconds lease{30000};
  // Reentrant kinds only: the watchdog's lease, renewed every third of it
  // (Redisson's Config.lockWatchdogTimeout, default 30 s).
  std::chrono::milliseconds lock_watchdog_timeout{30000};
  // String kinds only (kRedlock: its retry delay is drawn uniformly in
  // [min, max], without doubling): a failed attempt sleeps a delay drawn in
  // [d/2, d] (jitter from Env::random_u64), d starting at retry_backoff_min
  // and doubling per attempt up to retry_backoff_max; never past the deadline.
  Micros retry_backoff_min{5000};
  Micros retry_backoff_max{100000};
};

class DistributedLock {
 public:
  virtual ~DistributedLock() = default;

  // Blocks until the lock is taken. Throws ConnectionError / UnexpectedReply.
  virtual void lock() = 0;
  // One attempt; true when taken.
  virtual bool try_lock() = 0;
  // Tries until taken or until `wait` has passed on the Env's clock; true
  // when taken. A zero or negative wait makes exactly one attempt.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait) {
    return try_lock_wait(std::chrono::ceil<Micros>(wait));
  }
  // Releases the caller's hold. Throws LockNotOwned when the caller holds no
  // lock here, including when its lease ran out before the unlock (the
  // message says which).
  virtual void unlock() = 0;
  // unlock() without the throw: true when the caller held the lock (and has
  // now released one hold), false where unlock() throws LockNotOwned.
  virtual bool try_unlock() = 0;

  virtual LockKind kind() const = 0;
  std::string_view kind_name() const { return lock_kind_name(kind()); }
  virtual const std::string& key() const = 0;
  // What this lock writes into Redis for the caller: the current
  // acquisition's token for the string kinds (empty when not held), the
  // owner "<client-id>:<task-id>" for kReentrant.
  virtual std::string owner() = 0;

  // Asked of Redis, now: the key exists (anyone holds it).
  virtual bool is_locked() = 0;
  // Asked of Redis, now: the caller holds it (its token or owner field is there).
  virtual bool is_held_by_current_thread() = 0;
  // PTTL of the lock key: the lease left in ms, -2 when there is no lock,
  // -1 when it has no expiry (SetnxExpireLock's leftover after a crash).
  virtual std::chrono::milliseconds remaining_lease() = 0;

 protected:
  virtual bool try_lock_wait(Micros wait) = 0;
};

// A new lock of `kind` on `key`. Throws std::invalid_argument for options a
// kind cannot use (a lease <= 0 for a string kind, a backoff min above max).
std::unique_ptr<DistributedLock> make_lock(LockKind kind, Env& env, std::string key,
                                           LockOptions options = {});

}  // namespace redsim::lock

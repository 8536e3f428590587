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
//   kFair         Redisson RFairLock: kReentrant's hash + a waiting queue
//                 handed over in FIFO order                   (lock/fair_lock.h)       safe
//   kSpin         Redisson RSpinLock: kReentrant's hash, no pub/sub, waiters
//                 back off exponentially                      (lock/spin_lock.h)       safe
//   kRedisPy      redis-py's Lock: SET NX PX + its release,
//                 extend and reacquire scripts              (lock/redis_py_lock.h)   safe
//   kNodeRedlock  node-redlock v5's Redlock: parallel votes,
//                 retries with jitter, no validity check      (lock/node_redlock.h)    safe
//                 under kRedlock's assumptions
// "safe" means mutual exclusion holds while no holder outlives its lease
// (pauses below the lease, clocks sane); nothing here is a fencing scheme.
//
// Errors: Redis error replies and impossible reply shapes throw
// UnexpectedReply; transport failures throw ConnectionError (and subclasses),
// in which case the outcome of the command in flight is unknown.
//
// Unlock: unlock() throws nothing, as BasicLockable requires, so a
// std::unique_lock whose lease ran out (or whose unlock met a broken
// connection) never terminates the program. The outcome is not lost:
// release() is unlock() returning it (std::expected<void, UnlockError>), and
// last_unlock() gives the calling task's latest one afterwards, e.g. after a
// std::unique_lock's destructor ran:
//
//   { std::unique_lock guard(*lock); ... }                 // lease may run out
//   if (auto last = lock->last_unlock(); last && !*last)
//     log(last->error().message);                          // kNotHeld: lost it
//
// (In the simulation a crashed process's task is unwound by an exception that
// is not a lock::Error; unlock() lets it pass, see sim/world/world.h.)
//
// Moves: lock objects are movable, not copyable: a copy would share one
// token or one owner's watchdog. A lock is bound to its Env for life, so a
// move constructs a new object (move assignment is deleted).
//
// Threading: a lock object uses only its Env, and lives no longer than it.
// A kReentrant object may be shared by the tasks of one process (each task is
// an owner); the string kinds keep the current acquisition's token in the
// object, so each task uses its own object, as each thread in the articles
// uses its own token.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
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
  kRedlock,
  kFair,
  kSpin,
  kRedisPy,
  kNodeRedlock
};

// "simple", "reentrant", "setnx-expire", "get-del", "blind-del", "fenced",
// "read-write", "redlock", "fair", "spin", "redis-py", "node-redlock".
std::string_view lock_kind_name(LockKind kind);
// The inverse of lock_kind_name (exact, lower case); nullopt for anything else.
std::optional<LockKind> parse_lock_kind(std::string_view name);
// Every kind, in declaration order.
std::span<const LockKind> all_lock_kinds();
// The kinds built on Redisson's reentrant hash lock (kReentrant, kFenced,
// kReadWrite, kFair, kSpin):
// a Lease of kWatchdog means the watchdog, a task may re-enter, the object may be
// shared by the tasks of a process, and make_lock returns a ReentrantLock
// (a FairLock for kFair, which has the same hold_count()).
bool is_reentrant_kind(LockKind kind);

// The lease of an acquisition: how long the lock lives in Redis unless
// released or renewed, or kWatchdog: no lease given, a watchdog renews
// lock_watchdog_timeout every third of it (Redisson's leaseTime = -1; the
// reentrant kinds only). A fixed lease must be > 0 (std::invalid_argument).
using Lease = std::optional<std::chrono::milliseconds>;
inline constexpr std::nullopt_t kWatchdog = std::nullopt;

// Why an unlock did not release what the caller asked it to. Each reason
// keeps the message that says which lock and which owner.
struct UnlockError {
  enum class Reason : uint8_t {
    // The caller holds no lock here: it never took it through this object,
    // released it already, or its lease ran out before the unlock (mutual
    // exclusion may already have been broken). Redis was not changed.
    // Redisson throws IllegalMonitorStateException here ("attempt to unlock
    // lock, not locked by current thread by node id: ... thread-id: ...").
    kNotHeld,
    // The transport failed (ConnectionError: I/O error, timeout, closed): the
    // unlock may or may not have run; the lock is released at the latest
    // when its lease runs out (the watchdog, if any, was stopped).
    kConnection,
    // Redis answered with an error reply or a shape the unlock never returns
    // (UnexpectedReply).
    kUnexpectedReply,
  };
  Reason reason = Reason::kNotHeld;
  std::string message;
};
// "not-held", "connection", "unexpected-reply".
std::string_view unlock_reason_name(UnlockError::Reason reason);

// The outcome of one unlock: void when the caller held the lock and released
// one hold (for the string kinds and Redlock: when it believes it deleted its
// own key), else why not.
using UnlockResult = std::expected<void, UnlockError>;

// What PTTL says about a lock key, without PTTL's sentinels (-2, -1).
struct RemainingLease {
  bool locked = false;  // the key exists
  // The key's time to live; nullopt when it does not exist, or exists
  // without expiry (SetnxExpireLock's leftover after a crash).
  std::optional<std::chrono::milliseconds> ttl;

  // From a PTTL reply: -2 no key, -1 no expiry, else the ms left.
  static RemainingLease from_pttl(int64_t pttl);
  bool operator==(const RemainingLease&) const = default;
};

// LockOptions::lease: a Lease given explicitly (a duration, or kWatchdog),
// or, default-constructed, none given: then each kind uses its own default
// (LockOptions::kStringLease for the string kinds and kRedlock, the watchdog
// for the reentrant kinds, as Redisson's lock() without a leaseTime uses
// lockWatchdogTimeout: RedissonLock.lock -> tryAcquireAsync with leaseTime -1).
class LeaseOption {
 public:
  constexpr LeaseOption() = default;
  constexpr LeaseOption(Lease lease) : lease_(lease), given_(true) {}  // NOLINT: implicit
  constexpr LeaseOption(std::nullopt_t) : given_(true) {}              // NOLINT: kWatchdog
  template <class Rep, class Period>
  constexpr LeaseOption(std::chrono::duration<Rep, Period> lease)  // NOLINT: implicit
      : lease_(std::chrono::duration_cast<std::chrono::milliseconds>(lease)), given_(true) {}

  bool given() const { return given_; }
  // The lease given, else `kind_default`.
  Lease or_default(Lease kind_default) const { return given_ ? lease_ : kind_default; }

 private:
  Lease lease_;
  bool given_ = false;
};

struct LockOptions {
  // The string kinds' and kRedlock's lease when none is given.
  static constexpr std::chrono::milliseconds kStringLease{30000};
  // The lease of lock()/try_lock()/try_lock_for(): the PX of SET, the
  // PEXPIRE of the others. The string kinds and kRedlock need a fixed lease
  // (> 0; default kStringLease); for the reentrant kinds kWatchdog means the
  // watchdog, which is also their default (it used to be a fixed 30 s).
  LeaseOption lease{};
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

namespace detail {
// A std::mutex for a movable object: a moved-to object gets a fresh one
// (moving an object while another task uses it is a race anyway).
struct FreshMutex {
  FreshMutex() = default;
  FreshMutex(FreshMutex&& /*other*/) noexcept {}
  FreshMutex& operator=(FreshMutex&&) = delete;
  std::mutex mu;
};
}  // namespace detail

class DistributedLock {
 public:
  virtual ~DistributedLock() = default;
  DistributedLock(const DistributedLock&) = delete;
  DistributedLock& operator=(const DistributedLock&) = delete;
  DistributedLock& operator=(DistributedLock&&) = delete;

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
  // One acquisition with a lease of the caller's choosing, as Redisson's
  // RLock.tryLock(waitTime, leaseTime, unit) (MultiLock passes its
  // newLeaseTime through it): waits at most `wait` (<= 0: one attempt);
  // `lease` > 0 is the lease, kWatchdog the watchdog (Redisson's
  // leaseTime <= 0). true when taken. nullopt, with nothing sent, for the
  // kinds whose lease only their options set (the string kinds, Redlock,
  // redis-py, node-redlock); the reentrant kinds take it. Throws what
  // try_lock_for throws.
  virtual std::optional<bool> try_lock_with_lease(Micros /*wait*/, Lease /*lease*/) {
    return std::nullopt;
  }
  // Tries until taken or until the Env's clock reads `deadline` (an EnvTime:
  // Env::now() plus a duration); true when taken. A deadline already passed
  // makes exactly one attempt.
  bool try_lock_until(EnvTime deadline) { return try_lock_wait(deadline - env_->now()); }

  // BasicLockable: releases the caller's hold and throws nothing (no
  // lock::Error); the outcome is last_unlock(). Equivalent to release().
  void unlock() { (void)release(); }
  // Releases the caller's hold (one hold, for the reentrant kinds) and says
  // how it went; never throws a lock::Error. Also recorded for last_unlock().
  UnlockResult release();
  // The outcome of the calling task's latest unlock()/release() through this
  // object; nullopt before its first. Kept per task (Env::task_id), as a
  // reentrant object is shared by the tasks of a process.
  std::optional<UnlockResult> last_unlock();

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
  // PTTL of the lock key (Redlock: the time until fewer than a quorum hold it).
  virtual RemainingLease remaining_lease() = 0;

 protected:
  explicit DistributedLock(Env& env) : env_(&env) {}
  DistributedLock(DistributedLock&&) = default;

  virtual bool try_lock_wait(Micros wait) = 0;
  // One release of the caller's hold: void, or UnlockError kNotHeld. May
  // throw lock::Error (ConnectionError, UnexpectedReply); release() turns
  // those into kConnection / kUnexpectedReply. Other exceptions pass.
  virtual UnlockResult release_hold() = 0;

 private:
  Env* env_;
  detail::FreshMutex mu_;                         // guards last_unlock_
  std::map<uint64_t, UnlockResult> last_unlock_;  // by task id
};

// A new lock of `kind` on `key`. Throws std::invalid_argument for options a
// kind cannot use (a lease <= 0, kWatchdog for a string kind or kRedlock, a
// backoff min above max).
std::unique_ptr<DistributedLock> make_lock(LockKind kind, Env& env, std::string key,
                                           LockOptions options = {});

}  // namespace redsim::lock

// ReentrantLock: Redisson's RLock (RedissonLock) on the Env port, as seeds
// 000, 001, 002 and 004 describe it.
//
// In Redis the lock is a hash at `key` whose one field is the owner
// "<client-id>:<task-id>" and whose value is the owner's hold count. Every
// change is one Lua script (scripts/reentrant_*.lua), sent with EVALSHA:
//   acquire  absent or ours: HINCRBY owner 1, PEXPIRE lease, nil; else PTTL
//   unlock   not ours: nil; HINCRBY -1; > 0: PEXPIRE lease, 0;
//            0: DEL and PUBLISH kUnlockMessage on channel(), 1
//   renew    ours: PEXPIRE lease, 1; else 0            (the watchdog)
//   force    DEL; if it existed PUBLISH, 1; else 0
// Each task of the process (Env::task_id) is its own owner, as each Java
// thread is to Redisson, so one object may be shared by a process's tasks.
//
// Waiting: after one failed attempt the waiter SUBSCRIBEs to channel() (and
// only then retries, so an unlock between the two cannot be missed), then
// sleeps until an unlock message wakes it, at most min(lock's PTTL, wait
// left) between attempts, and UNSUBSCRIBEs when done. A lock without expiry
// (PTTL -1) frees only by a message, so by default the waiter then waits for
// the message alone (RedissonLock.lock: entry.getLatch().acquire();
// tryLock: the time left): a lost message leaves lock() waiting for good,
// the hang of redisson#5761/#5762. options.recheck_without_ttl re-checks
// instead, as redsim did before. The waiters of one
// process share one subscription and one latch (lock/lock_entry.h, as
// Redisson's RedissonLockEntry): the unlock message 0 wakes one of them,
// not all (LockPubSub.onMessage). No attempt is made once the wait is over
// (RedissonLock.tryLock returns false when the time left is <= 0).
//
// Lease: calls without one (lock(), try_lock(), try_lock_for(wait)) use
// options.default_lease; when that is kWatchdog (the default, Redisson's
// leaseTime = -1) the lease is lock_watchdog_timeout and a watchdog task
// (Env::spawn) renews it every third of that while the owner holds the lock.
// The watchdog stops when the owner's hold count reaches 0, when an unlock
// fails (whatever the failure: not held, a lost reply, an error reply; as
// RedissonBaseLock.unlockAsync0 calls cancelExpirationRenewal in its
// handle() whatever the unlock's outcome, so a failed unlock leaves a lock
// that expires after its lease instead of one renewed for as long as the
// process lives), on force_unlock, and by itself when a renewal finds the
// lock gone. A renewal that fails to
// reach Redis (ConnectionError) is tried again at the next interval, unless
// options.watchdog_stops_on_error asks for the old behaviour. It shares nothing with this object
// but a shared_ptr, so it outlives the object: a lock still held keeps being renewed after the
// object is destroyed, as in Redisson.
//
// Replica check (options.sync_replicas > 0; Redisson's
// checkLockSyncedSlaves): each successful acquisition is followed, on the
// same connection, by WAIT sync_replicas sync_timeout; when fewer replicas
// acknowledged, the hold just taken is released with the unlock script and
// the call throws ReplicaSyncError, so a failover cannot hand a lock that
// only the old primary knew of to a second client.
//
// FencedLock, ReadWriteLock's halves and FairLock reuse this machinery
// through Flavor (channel, hash field, scripts) and the protected hooks:
// run_acquire(), the waiting strategy (wait_channel(), pause_after(),
// stop_waiting()), run_unlock() and run_force_unlock().
//
//   lock::ReentrantLock lock(env, "orders:42");
//   lock.lock();                                    // watchdog-renewed
//   lock.lock();                                    // hold_count() == 2
//   lock.unlock(); lock.unlock();                   // released, waiters woken
//   if (lock.try_lock_for(std::chrono::seconds(1), std::chrono::seconds(10))) ...
//
// Moves: a ReentrantLock is movable (not copyable): its watchdogs share
// nothing with the object but their own state (see above), so moving the
// object while no task of it is inside a call is sound.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock/errors.h"
#include "lock/lock.h"
#include "lock/script.h"

namespace redsim::lock {

// Redisson's client settings that a lock reads (BaseConfig, current master):
// `timeout` (3000 ms), `retryAttempts` (4) and `retryDelay`
// (EqualJitterDelay(1000 ms, 2000 ms)). They size the unlock latch's TTL;
// the retries themselves are ReentrantLockOptions::unlock_retries.
struct RedissonRetrySettings {
  std::chrono::milliseconds timeout{3000};
  int attempts = 4;                            // >= 0
  std::chrono::milliseconds delay_base{1000};  // EqualJitterDelay's baseDelay, > 0
  std::chrono::milliseconds delay_max{2000};   // and its maxDelay, >= 0
};

// The TTL RedissonBaseLock.unlockInnerAsync gives one unlock's latch:
// (timeout + retryDelay.calcDelay(attempts)) x attempts, at least 1 ms,
// saturating instead of overflowing (Redisson: Long.MAX_VALUE). With
// EqualJitterDelay, calcDelay(n) = e/2 + a uniform draw from [0, e/2],
// e = min(base x 2^n, max); `random` is that draw's source (Env::random_u64
// in the lock). Redisson's defaults give 16,000 to 20,000 ms.
std::chrono::milliseconds redisson_unlock_latch_ttl(const RedissonRetrySettings& settings,
                                                    uint64_t random);

struct ReentrantLockOptions {
  // The watchdog's lease, renewed every third of it (Redisson's
  // Config.lockWatchdogTimeout). Must be > 0.
  std::chrono::milliseconds lock_watchdog_timeout{30000};
  // The lease of the calls that take none; kWatchdog (default): the watchdog.
  Lease default_lease = kWatchdog;
  // Replica check (Redisson's Config.checkLockSyncedSlaves): when
  // sync_replicas > 0, every successful acquisition (re-entries included) is
  // followed on the same connection by `WAIT sync_replicas sync_timeout`; if
  // fewer replicas acknowledged, the hold just taken is released again (the
  // unlock script) and the call throws ReplicaSyncError. 0 (default): no WAIT.
  int sync_replicas = 0;
  std::chrono::milliseconds sync_timeout{1000};

  // The watchdog after a renewal that failed to reach Redis (a
  // ConnectionError: timeout, reset, partition). false (default): it keeps
  // going and renews at the next interval, so one transient error costs a
  // third of the lease, not the lock (Redisson's fix, issues #2515, #3194).
  // true: it stops for good, as Redisson's renewExpiration did before: the
  // lock then expires under its holder (scenario watchdog-gives-up).
  bool watchdog_stops_on_error = false;

  // unlock() sends its script again after a ConnectionError (a lost reply,
  // a timeout, a reset; not ClosedError), at most this many times, as
  // Redisson's command executor retries (Config.retryAttempts). Default 0.
  // A retried unlock whose first attempt did run would release a second
  // hold, unless unlock_latch is set.
  int unlock_retries = 0;
  // Redisson's unlock latch (issue #4871): each unlock() draws a request id;
  // the unlock script first reads "redisson_unlock_latch:{<key>}:<id>" and,
  // when present, returns the result stored there instead of releasing
  // again; after releasing it stores its result there for unlock_latch_ttl.
  // So a retried unlock releases one hold at most. ReentrantLock, FencedLock,
  // ReadWriteLock's halves and SpinLock have it (FairLock has its own
  // FairLockOptions::unlock_latch). nullopt: the kind's default, on for all
  // of them, as Redisson's master always reads and writes the latch
  // (RedissonBaseLock.unlockInnerAsync draws the request id,
  // getUnlockLatchName names the key; RedissonLock, RedissonReadLock,
  // RedissonWriteLock and RedissonSpinLock.unlockInnerAsync use it). false:
  // the scripts without the latch's key (redsim's default before issue 14;
  // Redisson before #4871), so a retried unlock can release a second hold
  // (scenario unlock-retry-double-release). Once the script has answered
  // (whatever the answer), the latch is deleted with a DEL that is not
  // waited for (Env::call_detached), as RedissonBaseLock.unlockInnerAsync
  // does; unlock() returns without that round trip. A latch whose DEL is lost
  // (a crash, a partition) expires after unlock_latch_ttl: nullopt (default)
  // draws it per unlock from `retry` as Redisson does
  // (redisson_unlock_latch_ttl: 16 to 20 s with the defaults); a duration
  // (> 0) fixes it.
  std::optional<bool> unlock_latch{};
  std::optional<std::chrono::milliseconds> unlock_latch_ttl{};
  RedissonRetrySettings retry{};

  // A waiter whose attempt saw a lock without expiry (or, for FairLock, a
  // negative hint). nullopt (default): it waits for the unlock message only
  // (lock(): for ever; a timed wait: the time left), as Redisson does, so a
  // lost message hangs it (redisson#5761, #5762; scenarios
  // lost-message-*). A duration (> 0): it also re-checks that often, which
  // hides a lost message; redsim's behaviour before issue 14 was
  // kRecheckBeforeIssue14 (= lock_watchdog_timeout's default, and FairLock's
  // thread_wait).
  std::optional<std::chrono::milliseconds> recheck_without_ttl{};
  static constexpr std::chrono::milliseconds kRecheckBeforeIssue14{30000};

  // An unlock message that arrives while none of the process's waiters is
  // waiting (between an attempt and the wait after it) is kept for the next
  // wait (true, default: Redisson's latch, and its async waiters since 3.28)
  // or dropped (false: Redisson's async waiters before 3.28,
  // redisson#5761/#5762: the waiter then sleeps until the PTTL it saw, or
  // for ever on a lock without TTL). See lock/lock_entry.h.
  bool keep_early_message = true;

  // WriteLock only: a write re-entry sets the hash's expiry to PTTL + lease
  // (false, default: RedissonWriteLock.tryLockInnerAsync since the fix of
  // redisson#1110) or to the re-entry's lease alone (true: before it, so a
  // short nested hold cuts the outer one short; scenario
  // rwlock-reentry-lease-1110).
  bool write_reentry_sets_lease_before_1110 = false;

  // A call without a lease (the watchdog) after one with a lease, on the
  // same object: false (default, RedissonLock since the fix of
  // redisson#4818) sets lock_watchdog_timeout; true sets the earlier call's
  // lease, as Redisson's internalLockLeaseTime carried it before that fix,
  // so a holder that dies before its first renewal leaves the lock for that
  // whole lease (scenario lease-carried-4818).
  bool lease_carried_before_4818 = false;
};

// The replica check failed: WAIT reported fewer replicas than
// ReentrantLockOptions::sync_replicas. The hold was released again (unless
// the release itself failed, which the message says). Redisson throws an
// IllegalStateException here ("... slaves were synced").
class ReplicaSyncError : public Error {
 public:
  using Error::Error;
};

class ReentrantLock : public DistributedLock {
 public:
  // One unlock() call's latch: its key ("redisson_unlock_latch:{<key>}:<request
  // id>", RedissonBaseLock.getUnlockLatchName) and the TTL the script gives it.
  // An empty key: no latch (options().unlock_latch off).
  struct UnlockLatch {
    std::string key;
    std::chrono::milliseconds ttl{0};
    bool empty() const { return key.empty(); }
  };

  // Redisson's LockPubSub.UNLOCK_MESSAGE.
  static constexpr std::string_view kUnlockMessage = "0";

  // Throws std::invalid_argument when lock_watchdog_timeout <= 0 or a fixed
  // default_lease <= 0.
  ReentrantLock(Env& env, std::string key, ReentrantLockOptions options = {});
  ReentrantLock(ReentrantLock&&) = default;
  // Leaves held locks and their watchdogs alone (see above).
  ~ReentrantLock() override;

  using DistributedLock::try_lock_for;
  using DistributedLock::try_lock_until;

  // Blocks until the calling task holds the lock (once more, if it already
  // did). A fixed lease must be > 0 (std::invalid_argument); kWatchdog: the watchdog.
  void lock() override;
  void lock(Lease lease);
  // One attempt with the default lease.
  bool try_lock() override;
  // Waits at most `wait` (Env clock) for the lock, with `lease`.
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& wait, Lease lease) {
    return acquire(std::chrono::ceil<Micros>(wait), lease);
  }
  // DistributedLock's: try_lock_for(wait, lease), one attempt for wait <= 0.
  std::optional<bool> try_lock_with_lease(Micros wait, Lease lease) override {
    return acquire(std::max(wait, Micros(0)), lease);
  }
  // Waits until the Env clock reads `deadline` at most, with `lease`.
  bool try_lock_until(EnvTime deadline, Lease lease) {
    return acquire(deadline - env().now(), lease);
  }

  // unlock()/release() release one hold of the calling task. When it holds
  // none (never did, or the lease ran out) the outcome is kNotHeld with
  // Redisson's message, "attempt to unlock lock, not locked by current
  // thread by node id: <client-id> thread-id: <task-id>", and the holder's
  // lock is untouched. Any failure stops the task's watchdog (see above).
  // Deletes the lock whoever holds it and wakes the waiters; stops this
  // object's watchdogs. True when there was a lock to delete.
  bool force_unlock();

  bool is_locked() override;                  // EXISTS key
  bool is_held_by_current_thread() override;  // HEXISTS key owner
  int64_t hold_count();                       // HGET key owner; 0 when absent
  RemainingLease remaining_lease() override;  // PTTL key

  LockKind kind() const override { return LockKind::kReentrant; }
  const std::string& key() const override { return key_; }
  // "<client-id>:<task-id>" of the calling task.
  std::string owner() override;
  const std::string& channel() const { return channel_; }
  // Redisson's channel for a lock key: "redisson_lock__channel:{<key>}", or
  // "redisson_lock__channel:<key>" when the key already has a hash tag '{'.
  static std::string channel_name(std::string_view key);

 protected:
  bool try_lock_wait(Micros wait) override;
  UnlockResult release_hold() override;

  // The hooks of the locks built on this machinery (FencedLock, ReadLock,
  // WriteLock, FairLock). Each default is ReentrantLock's own behaviour.
  //
  // What kind of call an attempt belongs to. `waiting` is true for the
  // attempts of lock() and try_lock_for(), false for try_lock(): FairLock
  // queues only in the first case, as Redisson's tryLockInnerAsync does.
  // `wait` is the call's whole wait (Redisson's waitTime): nullopt for
  // lock() (forever) and try_lock(); FairLock keeps a waiter's place that
  // much longer than the one ahead when it is > 0.
  struct Attempt {
    bool waiting = false;
    std::optional<Micros> wait;
  };
  // One run of the acquire script for `owner` with `lease` (> 0): nullopt
  // when the owner now holds the lock, else a hint in ms (the lock's PTTL
  // here; < 0 when it has no expiry). FencedLock overrides it to take a
  // fencing token in the same script.
  virtual std::optional<int64_t> run_acquire(const std::string& owner,
                                             std::chrono::milliseconds lease,
                                             const Attempt& attempt);
  // A waiting acquire subscribes to wait_channel(owner) (default channel())
  // and, after an attempt that answered `hint`, sleeps at most
  // pause_after(hint) (default: the PTTL, 0 included; a lock without
  // expiry: options().recheck_without_ttl; nullopt: until a message),
  // tracing waiting_trace(hint). When it ends
  // without the lock, its wait ran out or an error thrown, it calls
  // stop_waiting(owner, attempt) (default: nothing; FairLock leaves its queue) and,
  // unless an error ends it, traces gave_up_trace(hint).
  virtual std::string wait_channel(const std::string& owner) const;
  virtual std::optional<Micros> pause_after(int64_t hint) const;
  // A pause of 0 means: take a waiting message if there is one and attempt
  // again at once (Redisson's latch.tryAcquire(0)), so the next attempt
  // follows the reply by no more than the network's latency. Only when the
  // attempt's round trip took no time on the Env clock (a simulated world
  // without latency, where such a loop would never let time pass) does the
  // waiter wait for its message, at most this long, before the next attempt.
  static constexpr Micros kInstantRoundTripPause{1000};
  // Waiting without pub/sub (RedissonSpinLock): when backoff() is set, a
  // waiting acquire subscribes to nothing and sleeps between attempts as
  // LockOptions.ExponentialBackOff does (initial, then x multiplier plus a
  // jitter in [0, failures), at most max), capped by the wait left.
  // Default nullopt: wait for the unlock message (above).
  struct Backoff {
    std::chrono::milliseconds initial{1};
    std::chrono::milliseconds max{128};
    int64_t multiplier = 2;
  };
  virtual std::optional<Backoff> backoff() const { return std::nullopt; }
  virtual std::string waiting_trace(int64_t hint) const;
  virtual std::string gave_up_trace(int64_t hint) const;
  virtual void stop_waiting(const std::string& owner, const Attempt& attempt);
  // One run of the unlock script for `owner`, re-arming `lease` when holds
  // remain: nil not held, 0 holds remain, 1 released (Flavor::unlock with
  // KEYS {key, channel}, ARGV {kUnlockMessage, lease ms, field(owner)}).
  // With a latch, ReentrantLock runs reentrant_unlock_latch (KEYS + the
  // latch's key, ARGV + its TTL ms); without, reentrant_unlock.
  virtual Reply run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                           const UnlockLatch& latch);
  // One run of the force-unlock script: true when there was a lock to delete.
  virtual bool run_force_unlock();

  // Where a lock built on this machinery keeps its state (ReadWriteLock's
  // halves, FairLock): the channel unlock publishes on and waiters subscribe
  // to; the owner's hash field, owner + field_suffix; the unlock script (see
  // run_unlock; its name() names it in errors) and the renewal script (KEYS
  // {key, renew_keys...}, ARGV {lease ms, field}; 1 renewed, 0 not held).
  // Both scripts live as long as the program. has_latch: run_unlock honours
  // its latch (else unlock_latch is refused); latch_by_default: what an
  // unset unlock_latch means for this kind.
  struct Flavor {
    std::string channel;
    std::string field_suffix;
    const Script* unlock;
    const Script* renew;
    bool has_latch = false;
    std::vector<std::string> renew_keys = {};
    bool latch_by_default = false;
  };
  ReentrantLock(Env& env, std::string key, ReentrantLockOptions options, Flavor flavor);
  // The calling owner's hash field.
  std::string field(const std::string& owner) const { return owner + field_suffix_; }
  Env& env() { return *env_; }
  const ReentrantLockOptions& options() const { return options_; }

 private:
  struct Watchdog;
  struct OwnerState {
    std::chrono::milliseconds lease{0};  // > 0: re-armed by unlock while holds remain
    std::shared_ptr<Watchdog> watchdog;  // null when the owner's lease is explicit
  };

  // nullopt wait: forever.
  bool acquire(std::optional<Micros> wait, Lease lease);
  // run_acquire with the effective lease, then the replica check.
  std::optional<int64_t> try_acquire(const std::string& owner, Lease lease, const Attempt& attempt);
  void on_acquired(const std::string& owner, Lease lease);
  // The lease the scripts set: `lease`, or lock_watchdog_timeout for kWatchdog.
  std::chrono::milliseconds effective(Lease lease) const;
  void start_watchdog(const std::string& owner, OwnerState& state);
  void stop_watchdog(uint64_t task);
  std::chrono::milliseconds lease_of(uint64_t task);
  Reply call(const Argv& argv);
  // One run of the unlock script for `me` (the latch's when `latch` is set).
  Reply send_unlock(const std::string& me, uint64_t task, const UnlockLatch& latch);
  // A fresh latch for one unlock() call (empty when options().unlock_latch is off).
  UnlockLatch new_unlock_latch();

  Env* env_;  // a pointer, so the object can move
  std::string key_;
  std::string channel_;
  std::string field_suffix_;
  std::vector<std::string> renew_keys_;
  const Script& unlock_script_;
  const Script& renew_script_;
  ReentrantLockOptions options_;
  detail::FreshMutex mu_;  // guards owners_, last_lease_; never held across an Env call
  std::map<uint64_t, OwnerState> owners_;  // by task id
  // The node of the last owner that went, for the next owner: a cycle's
  // lock and unlock then neither allocate nor free an owners_ entry.
  std::map<uint64_t, OwnerState>::node_type spare_owner_;
  std::optional<std::chrono::milliseconds> last_lease_;  // lease_carried_before_4818
};

}  // namespace redsim::lock

// Three patterns users write beyond the plain SET NX PX lock, each once
// correct and once broken: an unlock through a WATCH/MULTI/EXEC
// transaction, a Redisson-style reentrant hash lock, and waiters woken by
// pub/sub instead of polling (a message of the lock's own, or the key's
// keyspace notifications).
#include <algorithm>
#include <memory>
#include <string>

#include "props/zoo/watchdog.h"

namespace redsim::zoo {
namespace {

// ---- Unlock through a transaction ---------------------------------------

// The optimistic release of "Redis in Action" (Carlson, section 6.2,
// release_lock) and of the Redis transactions page ("Optimistic locking
// using check-and-set"): WATCH the key, GET it, and only if it still holds
// our token, MULTI / DEL / EXEC. EXEC answers a nil array when the watched
// key changed (another client's write, or its expiry) since WATCH: the
// release starts again. A transport error starts again too: the WATCH lived
// on the connection that broke. Correct: the DEL runs only if nothing
// touched the key since the GET saw our token.
class WatchUnlockLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool unlock() {
    for (int tries = 0;; ++tries) {
      try {
        lock::Connection& c = env_.connection();
        c.call({"WATCH", key_});
        const auto current = c.call({"GET", key_});
        if (!current.is_bulk() || current.str() != token_) {
          c.call({"UNWATCH"});
          return false;
        }
        c.call({"MULTI"});
        c.call({"DEL", key_});
        const auto done = c.call({"EXEC"});
        if (done.is_nil()) continue;  // the key changed under the WATCH: look again
        return done.is_array();
      } catch (const lock::ConnectionError&) {
        if (tries >= 3) throw;
        env_.sleep_for(kPoll);
      }
    }
  }
};

// The same transaction without the WATCH: GET, then MULTI / DEL / EXEC.
// Source: the Redis transactions page (a transaction alone does not make
// the read and the write atomic: "WATCH is used to provide a check-and-set
// behavior"), and the many answers that wrap the DEL in MULTI believing
// that makes the release atomic. What goes wrong: the GET and the EXEC are
// two round trips; a holder paused between them past its lease deletes the
// next holder's lock.
class GetMultiDelLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool unlock() {
    lock::Connection& c = env_.connection();
    const auto current = c.call({"GET", key_});
    if (!current.is_bulk() || current.str() != token_) return false;
    c.call({"MULTI"});
    c.call({"DEL", key_});
    return c.call({"EXEC"}).is_array();
  }
};

// An unlock that asks the key's PTTL and deletes while it is positive,
// reasoning "my lease has not run out, so the key is still mine". Source:
// the Redis SET page's warning (do not DEL a key you may no longer own)
// against the TTL check users put in its place. What goes wrong: a
// positive PTTL says someone holds the key, not who: a holder whose lease
// ended sees the next holder's PTTL and deletes its lock.
class PttlThenDelLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool unlock() {
    const auto ttl = env_.connection().call({"PTTL", key_});
    if (!ttl.is_integer() || ttl.integer() <= 0) return false;
    env_.connection().call({"DEL", key_});
    return true;
  }
};

// ---- A Redisson-style reentrant hash lock -------------------------------

// Redisson's RLock (RedissonLock.tryLockInnerAsync and unlockInnerAsync):
// the key is a hash whose one field, "<client id>:<thread id>", counts the
// owner's holds. Acquire: a free key gets the field at 1, the owner's own
// key gets it incremented, both with a fresh lease (PEXPIRE); otherwise the
// reply is the key's PTTL. nil means acquired.
constexpr const char* kHashAcquire =
    "if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then "
    "redis.call('HINCRBY', KEYS[1], ARGV[2], 1) "
    "redis.call('PEXPIRE', KEYS[1], ARGV[1]) "
    "return nil end "
    "return redis.call('PTTL', KEYS[1])";
// Release as unlockInnerAsync: not the owner's field, nil; else decrement,
// renewing the lease while holds remain (0), deleting the key at the last (1).
constexpr const char* kHashRelease =
    "if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return nil end "
    "if redis.call('HINCRBY', KEYS[1], ARGV[2], -1) > 0 then "
    "redis.call('PEXPIRE', KEYS[1], ARGV[1]) return 0 end "
    "redis.call('DEL', KEYS[1]) return 1";
// The release without its first line: it decrements whatever field it
// names, in whatever hash the key holds now.
constexpr const char* kHashReleaseUnchecked =
    "if redis.call('HINCRBY', KEYS[1], ARGV[2], -1) > 0 then "
    "redis.call('PEXPIRE', KEYS[1], ARGV[1]) return 0 end "
    "redis.call('DEL', KEYS[1]) return 1";

// The hash lock, its release script a parameter. try_lock_for polls the
// acquire script; a holder may take it again (reentry) and must release
// as often. unlock() is true only when it deleted the key (the last hold).
class HashLock {
 public:
  HashLock(lock::Env& env, std::string key, Millis lease, const char* release)
      : env_(env), key_(std::move(key)), lease_(lease), release_(release) {}
  HashLock(const HashLock&) = delete;
  HashLock& operator=(const HashLock&) = delete;

  bool try_lock_for(Micros wait) {
    const std::string owner = env_.client_id() + ":" + std::to_string(env_.task_id());
    return poll(env_, wait, [&] {
      return env_.connection().call({"EVAL", kHashAcquire, "1", key_, ms(lease_), owner}).is_nil();
    });
  }
  bool unlock() {
    const std::string owner = env_.client_id() + ":" + std::to_string(env_.task_id());
    const auto r = env_.connection().call({"EVAL", release_, "1", key_, ms(lease_), owner});
    return r.is_integer() && r.integer() == 1;
  }

 private:
  lock::Env& env_;
  std::string key_;
  Millis lease_;
  const char* release_;
};

// The section of a reentrant lock's user: half the work, the lock taken
// again (a nested call of the same thread: it must succeed at once), the
// rest of the work, the nested hold released (it must not free the lock).
// A transport error in the nested calls leaves the hold count unknown: the
// outer release then says so (not released) instead of guessing.
struct ReenterInside {
  template <class L>
  void operator()(harness::Section& s, L& lock) const {
    const Micros half = s.work() / 2;
    s.env().sleep_for(half);
    bool nested = false;
    try {
      nested = lock.try_lock_for(Micros(0));
    } catch (const lock::ConnectionError&) {
      nested = false;
    }
    s.env().sleep_for(s.work() - half);
    if (!nested) return;
    try {
      lock.unlock();  // true only when the lease had run out: the checkers see that
    } catch (const lock::ConnectionError&) {
    }
  }
};

// Reentrancy counted in a second key beside a plain SET NX PX lock: a
// nested acquire that finds its token INCRs "<key>:holds", each release
// DECRs it and deletes the lock when it reaches 0; unlock() returns
// nothing (java.util.concurrent.locks.Lock.unlock). Source: the hold count
// Redisson keeps in the lock's own hash field (RedissonLock: HINCRBY on
// the lock key, one script), done the other way. What goes wrong: the
// counter is shared by all owners, has no lease and is updated apart from
// the lock: a holder that crashes inside its section (or whose INCR or
// DECR reply is lost) leaves it one too high, so every later holder's
// last release stops at 1 and keeps its key while the caller believes it
// released: a ghost lock.
class SeparateCounterLock : public SetNxLock {
 public:
  SeparateCounterLock(lock::Env& env, std::string key, Millis lease)
      : SetNxLock(env, key, lease), holds_key_(key_ + ":holds") {}
  bool try_lock_for(Micros wait) {
    if (!token_.empty()) {  // held already by this object: a nested acquire
      const auto current = env_.connection().call({"GET", key_});
      if (current.is_bulk() && current.str() == token_) {
        env_.connection().call({"INCR", holds_key_});
        return true;
      }
    }
    token_ = random_token(env_);
    if (!poll(env_, wait, [this] { return set_nx(token_); })) {
      token_.clear();
      return false;
    }
    env_.connection().call({"INCR", holds_key_});
    return true;
  }
  void unlock() {
    const auto left = env_.connection().call({"DECR", holds_key_});
    if (left.is_integer() && left.integer() > 0) return;  // "a nested hold remains"
    compare_and_delete(token_);
    token_.clear();
  }

 private:
  std::string holds_key_;
};

// ---- Waiters woken by pub/sub --------------------------------------------

// SET NX PX, or the key's PTTL when taken (one script): nil = acquired.
constexpr const char* kSetOrPttl =
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return nil end "
    "return redis.call('PTTL', KEYS[1])";
// Compare-and-delete that announces the release on the lock's channel.
constexpr const char* kDeleteAndPublish =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) "
    "redis.call('PUBLISH', ARGV[2], 'unlocked') return 1 end return 0";

// A SET NX PX lock whose release publishes on "<key>:released" and whose
// waiters sleep until that message instead of polling.
class PubSubLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool unlock() {
    const auto r =
        env_.connection().call({"EVAL", kDeleteAndPublish, "1", key_, token_, channel()});
    return r.is_integer() && r.integer() == 1;
  }

 protected:
  std::string channel() const { return key_ + ":released"; }
  // One try: 0 when acquired, else the key's PTTL in ms (-1: no deadline).
  int64_t try_once() {
    const auto r = env_.connection().call({"EVAL", kSetOrPttl, "1", key_, token_, ms(lease_)});
    if (r.is_nil()) return 0;
    return r.is_integer() ? std::max<int64_t>(r.integer(), 1) : 1;
  }
  // Subscribed to channel() for its lifetime; wait() returns on a message
  // (or one that came before it was called) or after `d`.
  class Subscription {
   public:
    Subscription(lock::Env& env, const std::string& channel) : env_(env), event_(env.make_event()) {
      std::shared_ptr<lock::Event> e = event_;
      id_ = env_.subscribe(channel, [e](const std::string&) { e->signal(); });
    }
    ~Subscription() {
      try {
        env_.unsubscribe(id_);
      } catch (const lock::Error&) {
      }
    }
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    void wait(Micros d) { event_->wait_for(d); }

   private:
    lock::Env& env_;
    std::shared_ptr<lock::Event> event_;
    lock::SubscriptionId id_ = 0;
  };
};

// Subscribe, then try again, then sleep until a release message or the
// holder's PTTL, whichever comes first, within the caller's wait. Source:
// Redisson's RedissonLock.lock/tryLock (subscribe to the lock's channel,
// then tryAcquire in a loop, waiting on the entry's latch at most the
// returned TTL). Correct: a release after the subscription is heard, one
// before it is seen by the SET that follows, and a lost message (a
// partition drops the subscription) costs at most the holder's PTTL.
class SubscribeFirstLock : public PubSubLock {
 public:
  using PubSubLock::PubSubLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    const lock::EnvTime deadline = env_.now() + wait;
    if (try_once() == 0) return true;
    if (env_.now() >= deadline) return false;
    Subscription sub(env_, channel());
    for (;;) {
      const int64_t ttl_ms = try_once();
      if (ttl_ms == 0) return true;
      const Micros left = std::chrono::duration_cast<Micros>(deadline - env_.now());
      if (left <= Micros(0)) return false;
      sub.wait(std::min<Micros>(left, Millis(ttl_ms)));
    }
  }
};

// Try, and when the lock is taken, subscribe and wait for the release
// message for the rest of the wait: the check comes before the
// subscription. Source: the lost wake-up that Redisson's order (subscribe
// first, then try again) avoids; the same check-then-wait race as a
// condition variable waited on without its predicate. What goes wrong:
// a release published between the failed SET and the SUBSCRIBE is never
// heard, nor one never published (a holder whose release failed, whose key
// then expired); the waiter sleeps on a free lock until its wait ends.
class CheckThenSubscribeLock : public PubSubLock {
 public:
  using PubSubLock::PubSubLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    const lock::EnvTime deadline = env_.now() + wait;
    for (;;) {
      if (try_once() == 0) return true;
      const Micros left = std::chrono::duration_cast<Micros>(deadline - env_.now());
      if (left <= Micros(0)) return false;
      Subscription sub(env_, channel());
      sub.wait(left);
    }
  }
};

// Waiters woken by keyspace notifications instead of a message of the
// lock's own: the first attempt turns them on (CONFIG SET
// notify-keyspace-events Kg: keyspace events of the generic commands, as an
// operator would write it in redis.conf), then a waiter subscribes to
// __keyspace@0__:<key> first, tries again, and sleeps until the next event
// on the key for the rest of its wait; the release is the plain
// compare-and-delete, whose DEL publishes "del". Source: the Redis docs,
// "Redis keyspace notifications": a key whose time to live ran out
// publishes "expired", class x, which "Kg" leaves out; and ("Timing of
// expired events") even with x, Redis publishes it when it deletes the key,
// lazily when a command touches it or in its expire cycle, not when the
// time to live reaches zero. What goes wrong: a holder that crashes, or
// whose release fails, leaves its key to expire in silence, and the waiter
// sleeps on a free lock until its wait ends. Capping each sleep by the
// key's PTTL (as subscribe-then-retry does) fixes it: with that cap,
// 0 of 20 seeds find it; with "Kgx" instead of "Kg" and no cap, 20 of 20
// still do (median 10 cases against 3).
class KeyspaceEventsLock : public PubSubLock {
 public:
  using PubSubLock::PubSubLock;
  bool unlock() { return compare_and_delete(token_); }
  bool try_lock_for(Micros wait) { return wait_for_events(wait, false); }

 protected:
  // `capped`: each sleep ends at the key's PTTL too (KeyspaceEventsCappedLock).
  bool wait_for_events(Micros wait, bool capped) {
    if (!configured_) {
      env_.connection().call({"CONFIG", "SET", "notify-keyspace-events", "Kg"});
      configured_ = true;
    }
    token_ = random_token(env_);
    const lock::EnvTime deadline = env_.now() + wait;
    if (try_once() == 0) return true;
    if (env_.now() >= deadline) return false;
    Subscription sub(env_, "__keyspace@0__:" + key_);
    for (;;) {
      const int64_t ttl_ms = try_once();
      if (ttl_ms == 0) return true;
      const Micros left = std::chrono::duration_cast<Micros>(deadline - env_.now());
      if (left <= Micros(0)) return false;
      sub.wait(capped ? std::min<Micros>(left, Millis(ttl_ms)) : left);
    }
  }

 private:
  bool configured_ = false;
};

// The same waiters with each sleep capped by the holder's PTTL, as
// Redisson's RedissonLock.tryLock waits at most the returned TTL: an event
// (a release's "del") wakes them early, and a key that expired in silence is
// tried again at its deadline. Correct: keyspace events only shorten sleeps.
class KeyspaceEventsCappedLock : public KeyspaceEventsLock {
 public:
  using KeyspaceEventsLock::KeyspaceEventsLock;
  bool try_lock_for(Micros wait) { return wait_for_events(wait, true); }
};

template <class L>
harness::LockFactory factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); });
}

harness::LockFactory hash_factory(Millis lease, const char* release) {
  return harness::lock_factory(
      [lease, release](lock::Env& env, const std::string& key) {
        return HashLock(env, key, lease, release);
      },
      ReenterInside{});
}

}  // namespace

void add_transaction_hash_pubsub_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions unbounded{.profile = harness::FaultProfile::kUnbounded};
  harness::PlanOptions budgeted{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "get-multi-del",
                 .source = "Redis transactions page (WATCH is the check-and-set)",
                 .what = "unlock GETs its token, then MULTI/DEL/EXEC without WATCH: a pause "
                         "before EXEC deletes the next holder's lock",
                 .lease = lease,
                 .factory = factory<GetMultiDelLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"EXEC"}});
  out.push_back({.name = "pttl-then-del",
                 .source = "Redis SET page (do not DEL a key you may not own)",
                 .what = "unlock DELs while PTTL > 0: a positive PTTL may be the next holder's",
                 .lease = lease,
                 .factory = factory<PttlThenDelLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"DEL"}});
  out.push_back({.name = "hash-unlock-unchecked",
                 .source = "Redisson RedissonLock.unlockInnerAsync (its HEXISTS line left out)",
                 .what = "reentrant hash lock whose release HINCRBYs -1 without checking the "
                         "owner's field: it deletes the next holder's hash",
                 .lease = lease,
                 .factory = hash_factory(lease, kHashReleaseUnchecked),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"EVAL"}});
  out.push_back({.name = "separate-hold-counter",
                 .source = "Redisson RedissonLock (holds in the lock's own hash field), done apart",
                 .what = "reentrant holds counted by INCR/DECR of a second key shared by all "
                         "owners: after a crash inside, later releases keep their keys",
                 .lease = lease,
                 .factory = harness::lock_factory(
                     [lease](lock::Env& env, const std::string& key) {
                       return SeparateCounterLock(env, key, lease);
                     },
                     ReenterInside{}),
                 .plan = budgeted,
                 .checkers = {"ghost-lock", "liveness"},
                 .causes = {"DECR"}});
  // The plain lock whose sections may run longer than its lease, with no
  // watchdog to renew it. Source: Kleppmann 2016 (a GC pause or slow work
  // outlives the lease), Redisson's watchdog docs (why lockWatchdogTimeout
  // exists). The section works up to two leases (WorkPastTheLease).
  out.push_back({.name = "lease-shorter-than-section",
                 .source = "Kleppmann 2016; Redisson lockWatchdogTimeout",
                 .what = "SET NX PX without a watchdog around sections up to two leases long: "
                         "the key expires under its holder",
                 .lease = lease,
                 .factory = harness::lock_factory(
                     [lease](lock::Env& env, const std::string& key) {
                       return PollingSetNxLock(env, key, lease);
                     },
                     WorkPastTheLease{}),
                 .plan = budgeted,
                 .checkers = {"held-past-lease", "mutual-exclusion"},
                 .causes = {"ENTER"}});
  out.push_back({.name = "check-then-subscribe",
                 .source = "Redisson RedissonLock.lock (subscribe, then try again); lost wake-up",
                 .what = "a waiter tries, then subscribes and waits for the release message "
                         "alone: a release before the SUBSCRIBE (or none published) leaves it "
                         "asleep on a free lock",
                 .lease = lease,
                 .factory = factory<CheckThenSubscribeLock>(lease),
                 .plan = budgeted,
                 .checkers = {"liveness"},
                 .causes = {"SUBSCRIBE"}});
  out.push_back({.name = "keyspace-event-wait",
                 .source = "Redis docs, \"Redis keyspace notifications\" (class x; timing of "
                           "expired events)",
                 .what = "waiters sleep until a keyspace event on the key (notify-keyspace-events "
                         "Kg), not capped by its PTTL: an expiry publishes only \"expired\" (not "
                         "in Kg; with x, once Redis deletes the key), so they sleep on a free lock",
                 .lease = lease,
                 .factory = factory<KeyspaceEventsLock>(lease),
                 .plan = budgeted,
                 .checkers = {"liveness"},
                 .causes = {"SUBSCRIBE", "__keyspace@0__"}});
}

void add_transaction_hash_pubsub_correct(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  out.push_back(correct("watch-unlock", "Redis in Action 6.2 release_lock; transactions page",
                        "WATCH, GET, MULTI/DEL/EXEC; a nil EXEC (the key changed) starts again",
                        lease, factory<WatchUnlockLock>(lease)));
  out.push_back(correct("reentrant-hash", "Redisson RedissonLock try/unlockInnerAsync",
                        "hash field <client>:<thread> counts holds; owner-checked release; each "
                        "section re-enters once",
                        lease, hash_factory(lease, kHashRelease)));
  out.push_back(correct("subscribe-then-retry", "Redisson RedissonLock.lock/tryLock",
                        "waiters subscribe, then retry SET NX, sleeping at most the PTTL", lease,
                        factory<SubscribeFirstLock>(lease)));
  out.push_back(correct("keyspace-event-wait-capped",
                        "Redis docs, \"Redis keyspace notifications\"; Redisson tryLock's TTL wait",
                        "waiters sleep until a keyspace event on the key (notify-keyspace-events "
                        "Kg) or the holder's PTTL, whichever comes first",
                        lease, factory<KeyspaceEventsCappedLock>(lease)));
}

}  // namespace redsim::zoo

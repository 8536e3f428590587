// Lease locks that promise a validity (harness::ReportsValidUntil), buggy
// and correct, judged by the validity checker with every section lasting
// its whole promised validity (harness::ValidityMode::kUseWholeValidity).
//
// The rule they keep or break: antirez, "Distributed locks with Redis"
// (redis.io, the distlock page, "The Redlock algorithm" steps 1-4): the
// client reads its clock before the first SET (t0); the lock is acquired
// when a majority said OK and validity = TTL - elapsed - drift > 0, elapsed
// = now - t0, drift = TTL x 0.01 + 2 ms (redlock-py's CLOCK_DRIFT_FACTOR and
// "+ 2 milliseconds for Redis expires precision"; node-redlock's driftFactor;
// Redisson's RedissonRedLock keeps the same majority rule over
// RedissonMultiLock). The keys were set no earlier than t0, so on servers
// whose clocks run within the drift they expire after t0 + TTL - drift on
// the client's clock: a promise until then is kept. Kleppmann, "How to do
// distributed locking" (2016), is about what such a promise still needs
// (bounded pauses and drift); here the world keeps within them (the
// budgeted profile) and the checker judges the promise itself.
#include <optional>
#include <string>

#include "lock/redlock.h"
#include "props/zoo/user_lock.h"

namespace redsim::zoo {
namespace {

// drift = lease x 0.01 + 2 ms (the distlock page; redlock-py; node-redlock).
Micros drift_of(Millis lease) { return Micros(lease) / 100 + Micros(2000); }

// Redlock as the distlock page describes it, written by a user: SET NX PX
// on every server in turn, a majority N/2 + 1, a failed attempt releases
// everywhere (compare-and-delete) and is tried again after kPoll. What the
// acquisition promises is left to the subclass: promise(t0, t_end).
class UserRedlock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    valid_until_.reset();
    bool unknown = false;  // a server's outcome was lost: it may hold our key
    const bool got = poll(env_, wait, [this, &unknown] {
      const lock::EnvTime t0 = env_.now();
      const size_t n = env_.server_count();
      size_t votes = 0;
      for (size_t i = 0; i < n; ++i) {
        try {
          votes += set_nx(token_, i) ? 1 : 0;
        } catch (const lock::ConnectionError&) {
          unknown = true;
        }
      }
      const lock::EnvTime until = promise(t0, env_.now());
      if (votes >= n / 2 + 1 && until > env_.now()) {
        valid_until_ = until;
        return true;
      }
      unknown = !release_everywhere() || unknown;
      return false;
    });
    if (!got && unknown) throw lock::TimeoutError("redlock: some servers' outcome unknown");
    return got;
  }
  // The deadline promised at the last successful acquisition.
  std::optional<lock::EnvTime> valid_until() const { return valid_until_; }
  bool unlock() {
    valid_until_.reset();
    return release_everywhere();
  }

 protected:
  // The deadline an attempt that started at t0 and ended at `end` promises.
  virtual lock::EnvTime promise(lock::EnvTime t0, lock::EnvTime end) const = 0;

 private:
  std::optional<lock::EnvTime> valid_until_;
};

// The validity counted from the END of the acquisition: TTL - drift, the
// elapsed time forgotten. Source: the distlock page, step 3 ("the client
// computes how much time elapsed in order to acquire the lock, by
// subtracting from the current time the timestamp obtained in step 1") and
// step 4 (validity = initial validity minus the time elapsed); redlock-py's
// Lock.validity and node-redlock's expiration both subtract it. What goes
// wrong: when the SETs were slow (latency, a pause between them) the first
// servers' keys expire before the promised deadline; a rival that takes
// the majority then is promised the same time.
class NoElapsedRedlock final : public UserRedlock {
 public:
  using UserRedlock::UserRedlock;

 private:
  lock::EnvTime promise(lock::EnvTime, lock::EnvTime end) const override {
    return end + Micros(lease_) - drift_of(lease_);
  }
};

// A single-instance lock whose acquire retries with the SAME token after a
// lost reply, and takes a later retry that finds its own token (GET) as the
// acquisition, promising TTL - drift from that retry's start: the key was
// set by the earlier attempt whose reply was lost, and its lease runs from
// then. Source: node-redlock#169 / #296 / #299 (an acquisition's expiration
// counted from the wrong attempt's start; there the first, too early), and
// the retry that adopts its own earlier key (node-redlock PR #369, "allow
// acquiring if the key exists with the same value"), which needs the lease
// renewed or counted from the first attempt. What goes wrong: the key
// expires up to a command timeout before the promised deadline; a waiter
// takes it and is promised the same time.
class LastRetryValidityLock final : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    valid_until_.reset();
    bool unknown = false;  // an earlier SET's outcome was lost: the key may be ours
    const bool got = poll(env_, wait, [this, &unknown] {
      const lock::EnvTime start = env_.now();
      try {
        if (set_nx(token_) ||
            (unknown && env_.connection().call({"GET", key_}) == resp::Reply::bulk(token_))) {
          valid_until_ = start + Micros(lease_) - drift_of(lease_);  // the bug: this retry's start
          return true;
        }
      } catch (const lock::ConnectionError&) {
        unknown = true;
      }
      return false;
    });
    if (!got && unknown) throw lock::TimeoutError("set: outcome unknown");
    return got;
  }
  std::optional<lock::EnvTime> valid_until() const { return valid_until_; }
  bool unlock() {
    valid_until_.reset();
    return compare_and_delete(token_);
  }

 private:
  std::optional<lock::EnvTime> valid_until_;
};

// SET NX PX on one server, promising TTL - drift from before the request was
// sent (the distlock page's single-instance lock with Redlock's validity
// rule, N = 1). An unknown outcome (a lost reply) is reported as such
// (lock::ConnectionError), not adopted later. Correct: the key was set
// after `start`, so it outlives start + TTL - drift on the client's clock.
class SetNxValidityLock final : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    valid_until_.reset();
    return poll(env_, wait, [this] {
      const lock::EnvTime start = env_.now();
      if (!set_nx(token_)) return false;  // a ConnectionError passes: outcome unknown
      valid_until_ = start + Micros(lease_) - drift_of(lease_);
      return true;
    });
  }
  std::optional<lock::EnvTime> valid_until() const { return valid_until_; }
  bool unlock() {
    valid_until_.reset();
    return compare_and_delete(token_);
  }

 private:
  std::optional<lock::EnvTime> valid_until_;
};

template <class L>
harness::LockFactory factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); });
}

harness::RunOptions whole_validity() {
  harness::RunOptions run;
  run.validity = harness::ValidityMode::kUseWholeValidity;
  return run;
}

}  // namespace

void add_validity_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions five{.profile = harness::FaultProfile::kBudgeted};
  five.servers = 5;
  out.push_back({.name = "redlock-no-elapsed",
                 .source = "antirez, Distributed locks with Redis (validity = TTL - elapsed - "
                           "drift); redlock-py Lock.validity",
                 .what = "Redlock promises TTL - drift from the end of its acquisition: slow SETs "
                         "let the first servers' keys expire inside the promise",
                 .lease = lease,
                 .factory = factory<NoElapsedRedlock>(lease),
                 .plan = five,
                 .run = whole_validity(),
                 .checkers = {"validity"},
                 .causes = {"VALID lock:test until"}});
  harness::PlanOptions one{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "validity-from-last-retry",
                 .source = "node-redlock #169, #296, #299 (expiration from the wrong attempt); "
                           "PR #369 (adopting its own key)",
                 .what = "after a lost SET reply a retry finds its own token and promises TTL - "
                         "drift from the retry, though the key was set by the lost attempt",
                 .lease = lease,
                 .factory = factory<LastRetryValidityLock>(lease),
                 .plan = one,
                 .run = whole_validity(),
                 .checkers = {"validity"},
                 .causes = {"GET lock:test"}});
}

void add_validity_correct(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  Entry redlock = correct(
      "redlock-validity", "antirez, Distributed locks with Redis; lock::Redlock (validity_left)",
      "redsim's Redlock on 5 servers promises TTL - elapsed - drift from before its first SET",
      lease, harness::lock_factory([lease](lock::Env& env, const std::string& key) {
        lock::RedlockOptions o;
        o.lease = lease;
        // antirez: retry "after a random delay in order to try to
        // desynchronize multiple clients"; a delay well below one attempt
        // (5 SETs in turn: up to 50 ms under the budgeted latency) keeps
        // split votes going (2..6 ms failed the liveness bound 1 case in
        // 1,000-2,000), so it spans a few attempts' length.
        o.server_timeout = 10ms;
        o.retry_delay_min = 10ms;
        o.retry_delay_max = 40ms;
        return lock::Redlock(env, key, o);
      }));
  redlock.plan.servers = 5;
  redlock.run = whole_validity();
  out.push_back(std::move(redlock));
  Entry single = correct("set-nx-validity", "antirez, Distributed locks with Redis (N = 1)",
                         "SET NX PX promising TTL - drift from before the request was sent", lease,
                         factory<SetNxValidityLock>(lease));
  single.run = whole_validity();
  out.push_back(std::move(single));
}

}  // namespace redsim::zoo

// The acquire family: locks released correctly (compare-and-delete) whose
// acquire goes wrong.
#include "props/zoo/user_lock.h"

namespace redsim::zoo {
namespace {

// SETNX, then EXPIRE as a second command. Source: the articles in
// shared/seeds (the second broken lock) and the Redis SETNX page's history.
// What goes wrong: a crash (or a lost reply) between the two commands
// leaves a key with no expiry; nobody ever takes the lock again.
class SetnxThenExpireLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    return poll(env_, wait, [this] {
      const auto r = env_.connection().call({"SETNX", key_, token_});
      if (!r.is_integer() || r.integer() != 1) return false;
      env_.connection().call({"PEXPIRE", key_, ms(lease_)});
      return true;
    });
  }
  bool unlock() { return compare_and_delete(token_); }
};

// Check, then set: EXISTS, and when the key is absent a SET without NX.
// Source: the articles in shared/seeds (check-then-act is not atomic) and
// the Redis SETNX page (SETNX exists to make this one command). What goes
// wrong: two waiters both see the key absent and both SET it.
class CheckThenSetLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    return poll(env_, wait, [this] {
      const auto exists = env_.connection().call({"EXISTS", key_});
      if (!exists.is_integer() || exists.integer() != 0) return false;
      env_.connection().call({"SET", key_, token_, "PX", ms(lease_)});
      return true;
    });
  }
  bool unlock() { return compare_and_delete(token_); }
};

// SET without NX. Source: the Redis SET page (the NX option is what makes
// it a lock). What goes wrong: the acquire always succeeds and overwrites
// the current holder's key.
class SetWithoutNxLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros) {
    token_ = random_token(env_);
    return env_.connection().call({"SET", key_, token_, "PX", ms(lease_)}).is_status();
  }
  bool unlock() { return compare_and_delete(token_); }
};

// The timestamp lock of the old Redis SETNX page: SETNX key <expiry time>,
// and when the stored time has passed, GETSET a new one and own the lock if
// the old value was still the expired one. DEL on release, if not past
// one's own time. Source: the Redis SETNX page, "Design pattern: Locking
// with SETNX" (marked as discouraged there), and the articles in
// shared/seeds. What goes wrong: the key never expires in Redis; clients
// judge expiry by their own clocks, a late holder's DEL or a loser's
// GETSET overwrites another client's lock.
class TimestampGetsetLock {
 public:
  TimestampGetsetLock(lock::Env& env, std::string key, Millis lease)
      : env_(env), key_(std::move(key)), lease_(lease) {}
  TimestampGetsetLock(const TimestampGetsetLock&) = delete;
  TimestampGetsetLock& operator=(const TimestampGetsetLock&) = delete;

  bool try_lock_for(Micros wait) {
    return poll(env_, wait, [this] {
      const int64_t now_ms = now().count();
      const std::string mine = std::to_string(now_ms + lease_.count() + 1);
      const auto set = env_.connection().call({"SETNX", key_, mine});
      if (set.is_integer() && set.integer() == 1) {
        expires_ms_ = now_ms + lease_.count() + 1;
        return true;
      }
      const auto current = env_.connection().call({"GET", key_});
      if (!current.is_bulk() || std::stoll(current.str()) >= now_ms) return false;
      const auto old = env_.connection().call({"GETSET", key_, mine});
      if (old.is_bulk() && std::stoll(old.str()) >= now_ms) return false;
      expires_ms_ = now_ms + lease_.count() + 1;
      return true;
    });
  }
  bool unlock() {
    if (now().count() >= expires_ms_) return false;
    env_.connection().call({"DEL", key_});
    return true;
  }

 private:
  Millis now() { return std::chrono::duration_cast<Millis>(env_.now().time_since_epoch()); }

  lock::Env& env_;
  std::string key_;
  Millis lease_;
  int64_t expires_ms_ = 0;
};

// A SET whose reply was lost is treated as "not acquired". Source: the
// Redis distributed-lock page (Redlock: a client that failed to acquire
// must still release every instance, since it may have set keys whose
// replies it never saw). What goes wrong: the SET ran, the key is the
// client's, and the client walks away: the lock is held by nobody for a
// whole lease (a ghost lock).
class LostReplyGivesUpLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    try {
      return poll(env_, wait, [this] { return set_nx(token_); });
    } catch (const lock::ConnectionError&) {
      return false;  // "could not reach Redis: not acquired"
    }
  }
  bool unlock() { return compare_and_delete(token_); }
};

// A timed-out or reset SET is treated as acquired ("it was sent, so it
// surely ran"). Source: the same page's note that a request's outcome is
// unknown when its reply is lost; Kleppmann 2016 on unreliable networks.
// What goes wrong: a SET NX that did not run, or ran and found another
// holder, lets the client in beside the holder, with no lock of its own.
class TimeoutMeansAcquiredLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    return poll(env_, wait, [this] {
      try {
        return set_nx(token_);
      } catch (const lock::ConnectionError&) {
        return true;
      }
    });
  }
  bool unlock() { return compare_and_delete(token_); }
};

template <class L>
harness::LockFactory factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); });
}

}  // namespace

void add_acquire_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions unbounded{.profile = harness::FaultProfile::kUnbounded};
  harness::PlanOptions budgeted{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "setnx-then-expire",
                 .source = "seeds articles; Redis SETNX page",
                 .what = "SETNX, then PEXPIRE: a crash or lost reply between leaves a key that "
                         "never expires",
                 .lease = lease,
                 .factory = factory<SetnxThenExpireLock>(lease),
                 .plan = budgeted,
                 .checkers = {"liveness"},
                 .causes = {"SETNX"}});
  out.push_back({.name = "check-then-set",
                 .source = "seeds articles; Redis SETNX page",
                 .what = "EXISTS, then SET without NX: two waiters both see it free",
                 .lease = lease,
                 .factory = factory<CheckThenSetLock>(lease),
                 .plan = budgeted,
                 .checkers = {"mutual-exclusion", "foreign-write", "held-past-lease"},
                 .causes = {"SET"}});
  out.push_back({.name = "set-without-nx",
                 .source = "Redis SET page (NX)",
                 .what = "SET without NX always succeeds and overwrites the holder",
                 .lease = lease,
                 .factory = factory<SetWithoutNxLock>(lease),
                 .plan = budgeted,
                 .checkers = {"mutual-exclusion", "foreign-write", "held-past-lease"},
                 .causes = {"SET"}});
  out.push_back({.name = "timestamp-getset",
                 .source = "Redis SETNX page, \"Locking with SETNX\" (old pattern)",
                 .what = "expiry judged by client clocks; GETSET and DEL overwrite another's "
                         "timestamp",
                 .lease = lease,
                 .factory = factory<TimestampGetsetLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"GETSET"}});
  out.push_back({.name = "lost-reply-gives-up",
                 .source = "Redis distributed-lock page (release even where acquiring failed)",
                 .what = "a SET whose reply was lost is taken as not acquired: a ghost lock",
                 .lease = lease,
                 .factory = factory<LostReplyGivesUpLock>(lease),
                 .plan = budgeted,
                 .checkers = {"ghost-lock"},
                 .causes = {"SET"}});
  out.push_back({.name = "timeout-means-acquired",
                 .source = "Kleppmann 2016 (unreliable networks); Redis distributed-lock page",
                 .what = "a timed-out SET is taken as acquired: in beside the holder, no key",
                 .lease = lease,
                 .factory = factory<TimeoutMeansAcquiredLock>(lease),
                 .plan = budgeted,
                 .checkers = {"held-past-lease", "mutual-exclusion"},
                 .causes = {"BROKEN", "LOST", "refused"}});
}

}  // namespace redsim::zoo

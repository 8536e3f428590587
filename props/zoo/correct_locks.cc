// Correct locks: each must stay clean under both fault profiles.
#include <string>

#include "props/zoo/watchdog.h"

namespace redsim::zoo {
namespace {

// SET key <random token> NX PX, released by compare-and-delete. The token
// is only random (no client id): 64 bits from the process's own stream.
// Source: the Redis SET page's pattern. A lost reply propagates as the
// ConnectionError it is: the caller is told the outcome is unknown.
using RandomTokenLock = PollingSetNxLock;

// As RandomTokenLock, then one more round trip: GET to verify the key holds
// its token before entering (a lock whose SET raced an expiry it cannot
// see). Safe because the budget is per lease, not per call.
class VerifyAfterSetLock : public RandomTokenLock {
 public:
  using RandomTokenLock::RandomTokenLock;
  bool try_lock_for(Micros wait) {
    if (!RandomTokenLock::try_lock_for(wait)) return false;
    const auto current = env_.connection().call({"GET", key_});
    return current.is_bulk() && current.str() == token_;
  }
};

// A watchdog that renews only its own lock (compare-and-pexpire script)
// every lease/4, retries a failed renewal after kPoll, and stops when its
// lock is released or lost. Source: Redisson's RLock watchdog
// (lockWatchdogTimeout / 3, renewal by owner) with #2515's fix: a failed
// renewal is retried.
struct OwnerCheckedRenewal {
  void operator()(lock::Env& env, const std::string& key, const std::string& token, Millis lease,
                  WatchState& state, uint64_t generation) const {
    Micros next = lease / 4;
    for (;;) {
      env.sleep_for(next);
      if (state.generation != generation) return;
      try {
        const auto r =
            env.connection().call({"EVAL", kCompareAndPexpire, "1", key, token, ms(lease)});
        if (!r.is_integer() || r.integer() != 1) return;  // lost: nothing left to renew
        next = lease / 4;
      } catch (const lock::ConnectionError&) {
        next = kPoll;
      }
    }
  }
};

// Acquire and token in one script: SET NX PX, then INCR of a counter that
// never expires, returned as the fencing token; each section writes to the
// fenced resource with it. Source: Kleppmann 2016 (fencing tokens); the
// counter as Redisson's RFencedLock keeps it.
class FencedScriptLock : public SetNxLock {
 public:
  FencedScriptLock(lock::Env& env, std::string key, Millis lease)
      : SetNxLock(env, key, lease), fence_key_("{" + key + "}:fence") {}
  bool try_lock_for(Micros wait) {
    static constexpr const char* kAcquire =
        "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
        "return redis.call('INCR', KEYS[2]) end return 0";
    token_ = random_token(env_);
    return poll(env_, wait, [this] {
      const auto r =
          env_.connection().call({"EVAL", kAcquire, "2", key_, fence_key_, token_, ms(lease_)});
      if (!r.is_integer() || r.integer() == 0) return false;
      fence_ = r.integer();
      return true;
    });
  }
  bool unlock() { return compare_and_delete(token_); }
  int64_t fence() const { return fence_; }

 private:
  std::string fence_key_;
  int64_t fence_ = 0;
};

// Acquire and release as Lua scripts run by EVALSHA (SCRIPT LOAD once;
// after a server restart empties the script cache, NOSCRIPT falls back to
// EVAL). Source: the Redis EVALSHA page and the SET page's scripts.
class ScriptLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    return poll(env_, wait, [this] { return run(kAcquire, acquire_sha_, ms(lease_)).is_status(); });
  }
  bool unlock() {
    const auto r = run(kCompareAndDelete, release_sha_, {});
    return r.is_integer() && r.integer() == 1;
  }

 private:
  static constexpr const char* kAcquire =
      "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])";

  resp::Reply run(const char* body, std::string& sha, const std::string& lease_ms) {
    lock::Argv args = {"1", key_, token_};
    if (!lease_ms.empty()) args.push_back(lease_ms);
    if (sha.empty()) {
      const auto loaded = env_.connection().call({"SCRIPT", "LOAD", body});
      if (loaded.is_bulk()) sha = loaded.str();
    }
    if (!sha.empty()) {
      lock::Argv argv = {"EVALSHA", sha};
      argv.insert(argv.end(), args.begin(), args.end());
      const auto r = env_.connection().call(argv);
      if (!r.is_error() || r.str().rfind("NOSCRIPT", 0) != 0) return r;
    }
    lock::Argv argv = {"EVAL", body};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.connection().call(argv);
  }

  std::string acquire_sha_;
  std::string release_sha_;
};

// A lock that knows a lost SET reply may have set its key: it retries the
// SET with the same token, and after any unknown outcome a nil reply is
// checked with the owner-checked PEXPIRE script (its own token: it holds the
// lock, with a whole lease from that script on). Checking with a plain GET
// was wrong: the lease then still runs from the SET whose reply was lost,
// which may be most of a lease ago (a pct:3 plan had the SET's reply time
// out at t=46.7 ms, the server crash three times while the client retried,
// the GET find its token at t=127 ms and the 34 ms section outlive the key
// at t=146 ms: zoo_test's LostReplyAwarePctPlan). When its wait ends
// with an outcome still unknown it says so (TimeoutError), never "not
// acquired". Release retries the compare-and-delete while the reply is
// lost. Source: the Redis distributed-lock page (a failed acquire may have
// set keys); redis-py pull #4258 (keep the token when release fails).
class LostReplyAwareLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    bool unknown = false;
    const bool got = poll(env_, wait, [this, &unknown] {
      try {
        if (set_nx(token_)) return true;
        if (!unknown) return false;
        const auto r =
            env_.connection().call({"EVAL", kCompareAndPexpire, "1", key_, token_, ms(lease_)});
        return r.is_integer() && r.integer() == 1;
      } catch (const lock::ConnectionError&) {
        unknown = true;
        return false;
      }
    });
    if (!got && unknown) throw lock::TimeoutError("SET " + key_ + ": outcome unknown");
    return got;
  }
  bool unlock() {
    for (int tries = 0;; ++tries) {
      try {
        return compare_and_delete(token_);
      } catch (const lock::ConnectionError&) {
        if (tries == 3) throw;
        env_.sleep_for(kPoll);
      }
    }
  }
};

template <class L>
harness::LockFactory factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); });
}

}  // namespace

void add_correct_locks(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  out.push_back(correct("random-token", "Redis SET page",
                        "SET NX PX with a random-only token; compare-and-delete", lease,
                        factory<RandomTokenLock>(lease)));
  out.push_back(correct("verify-after-set", "Redis SET page",
                        "SET NX PX, then GET to verify: one more round trip", lease,
                        factory<VerifyAfterSetLock>(lease)));
  out.push_back(correct(
      "owner-checked-watchdog", "Redisson RLock watchdog; #2515's fix",
      "compare-and-pexpire every lease/4, failed renewals retried; sections up to 2 leases", lease,
      harness::lock_factory(
          [lease](lock::Env& env, const std::string& key) {
            return WatchdogLock<OwnerCheckedRenewal>(env, key, lease);
          },
          WorkPastTheLease{})));
  // Fencing with a Redis counter survives only what keeps the counter: a
  // restart that loses data or a failover reissues tokens (Kleppmann 2016:
  // the token needs a store that never goes back). Its unbounded profile
  // draws every other fault; its budgeted one every fault (restarts there
  // keep their data).
  Entry fenced = correct("fenced-script", "Kleppmann 2016; Redisson RFencedLock",
                         "SET NX PX and INCR in one script; sections write with the token", lease,
                         harness::lock_factory(
                             [lease](lock::Env& env, const std::string& key) {
                               return FencedScriptLock(env, key, lease);
                             },
                             [](harness::Section& s, FencedScriptLock& lock) {
                               s.do_work();
                               s.write_fenced(lock.fence());
                             }));
  fenced.unbounded_faults = harness::all_faults();
  fenced.unbounded_faults->restart = false;
  fenced.unbounded_faults->failover = false;
  out.push_back(std::move(fenced));
  out.push_back(correct("script-lock", "Redis EVALSHA page; SET page scripts",
                        "acquire and release as EVALSHA scripts, NOSCRIPT falls back to EVAL",
                        lease, factory<ScriptLock>(lease)));
  out.push_back(correct("lost-reply-aware", "Redis distributed-lock page; redis-py #4258",
                        "retries SET with the same token, an owner-checked PEXPIRE (a whole "
                        "lease) after an unknown outcome, reports what it cannot know",
                        lease, factory<LostReplyAwareLock>(lease)));
}

}  // namespace redsim::zoo

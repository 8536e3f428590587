// The watchdog family: locks that keep a long section alive by renewing or
// extending their key, and renew the wrong key or stop renewing.
#include <string>

#include "props/zoo/watchdog.h"

namespace redsim::zoo {
namespace {

// A watchdog that PEXPIREs the key, whoever holds it, and checks that its
// lock is still held only before its sleep. Source: Redisson issue #7272
// (the renewal outlives unlock(): cancel races the schedule) and the
// articles in shared/seeds (renew only your own lock). What goes wrong:
// the renewal that wakes after the release extends the next holder's key.
struct BlindPexpire {
  void operator()(lock::Env& env, const std::string& key, const std::string&, Millis lease,
                  WatchState& state, uint64_t generation) const {
    while (state.generation == generation) {
      env.sleep_for(lease / 4);
      try {
        env.connection().call({"PEXPIRE", key, ms(lease)});
      } catch (const lock::ConnectionError&) {
      }
    }
  }
};

// A watchdog that checks ownership, then extends, in two commands. Source:
// the Redis SET page's scripts (the check and the write must be one
// script), Kleppmann 2016 (pauses anywhere). What goes wrong: a pause
// between GET and PEXPIRE lets the key expire and another client take it;
// the PEXPIRE then extends that client's lock.
struct CheckThenPexpire {
  void operator()(lock::Env& env, const std::string& key, const std::string& token, Millis lease,
                  WatchState& state, uint64_t generation) const {
    for (;;) {
      env.sleep_for(lease / 4);
      if (state.generation != generation) return;
      try {
        const auto current = env.connection().call({"GET", key});
        if (!current.is_bulk() || current.str() != token) return;
        env.connection().call({"PEXPIRE", key, ms(lease)});
      } catch (const lock::ConnectionError&) {
      }
    }
  }
};

// A watchdog that stops at its first failed renewal and tells nobody.
// Source: Redisson issues #2515 ("Lock expiration renewal stops working
// after connection error/timeout") and #3194 (the watchdog no longer works
// after a reconnect). What goes wrong: one lost reply ends the renewals;
// the holder keeps working after its lease ran out.
struct StopsOnError {
  void operator()(lock::Env& env, const std::string& key, const std::string& token, Millis lease,
                  WatchState& state, uint64_t generation) const {
    for (;;) {
      env.sleep_for(lease / 4);
      if (state.generation != generation) return;
      try {
        const auto r =
            env.connection().call({"EVAL", kCompareAndPexpire, "1", key, token, ms(lease)});
        if (!r.is_integer() || r.integer() != 1) return;
      } catch (const lock::ConnectionError&) {
        return;  // "Can't update lock expiration": logged, never retried
      }
    }
  }
};

// An extend that SETs the key again with the holder's token, whatever it
// holds now. Source: redlock-rb issue #36 (extending via lock(extend:)
// succeeds on a lock that has expired) and the extend script criticised in
// RedLock.net pull #49 (it re-creates an expired key). What goes wrong: a
// holder that outlived its lease overwrites the next holder's lock.
class ExtendBySetLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  void extend() { env_.connection().call({"SET", key_, token_, "PX", ms(lease_)}); }
};

template <class Watchdog>
harness::LockFactory watchdog_factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) {
        return WatchdogLock<Watchdog>(env, key, lease);
      },
      WorkPastTheLease{});
}

}  // namespace

void add_watchdog_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions unbounded{.profile = harness::FaultProfile::kUnbounded};
  harness::PlanOptions budgeted{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "watchdog-blind-pexpire",
                 .source = "Redisson #7272 (renewal outlives unlock); seeds articles",
                 .what = "the watchdog PEXPIREs whatever holds the key, once more after release",
                 .lease = lease,
                 .factory = watchdog_factory<BlindPexpire>(lease),
                 .plan = budgeted,
                 .checkers = {"foreign-write"},
                 .causes = {"PEXPIRE"}});
  out.push_back({.name = "watchdog-check-then-pexpire",
                 .source = "Redis SET page (one script); Kleppmann 2016",
                 .what = "the watchdog GETs, then PEXPIREs: a pause between extends another's "
                         "lock",
                 .lease = lease,
                 .factory = watchdog_factory<CheckThenPexpire>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"PEXPIRE"}});
  // Its cause (the renewal that failed) comes a lease before the violation:
  // the excerpt shows 40 events around each event of it.
  harness::RunOptions wide;
  wide.excerpt.context_events = 40;
  out.push_back({.name = "watchdog-stops-on-error",
                 .source = "Redisson #2515, #3194",
                 .what = "the watchdog stops at its first failed renewal; the holder works on "
                         "past its lease",
                 .lease = lease,
                 .factory = watchdog_factory<StopsOnError>(lease),
                 .plan = budgeted,
                 .run = wide,
                 .checkers = {"held-past-lease", "mutual-exclusion"},
                 .causes = {"BROKEN", "LOST"}});
  out.push_back({.name = "extend-by-set",
                 .source = "redlock-rb #36; RedLock.net pull #49",
                 .what =
                     "extend re-SETs the key with its token whatever holds it: overwrites the next "
                     "holder",
                 .lease = lease,
                 .factory = harness::lock_factory(
                     [lease](lock::Env& env, const std::string& key) {
                       return ExtendBySetLock(env, key, lease);
                     },
                     [](harness::Section& s, ExtendBySetLock& lock) {
                       s.do_work();
                       try {
                         lock.extend();
                       } catch (const lock::ConnectionError&) {
                         // the next extend will do
                       }
                       s.do_work();
                     }),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"SET"}});
}

}  // namespace redsim::zoo

#include "sim/world/scenarios.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "lock/errors.h"
#include "lock/reentrant_lock.h"
#include "sim/world/runner.h"
#include "sim/world/world.h"

namespace redsim::world {

namespace {

using lock::LockKind;
using std::chrono::milliseconds;

constexpr const char* kKey = "lock:orders";
constexpr const char* kStatsKey = "stats:done";
constexpr int64_t kMs = 1000;
constexpr Micros ms(int64_t v) { return Micros(v * kMs); }

std::string fmt_ms(int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(us) / kMs);
  return buf;
}

// Every scenario: 1 ms one-way latency, nothing random but ids and jitter.
WorldOptions scenario_options(uint64_t seed) {
  WorldOptions o;
  o.seed = seed;
  o.faults.latency_min_us = 1 * kMs;
  o.faults.latency_max_us = 1 * kMs;
  return o;
}

// The string kinds in every scenario: a 100 ms lease, polled every 2..5 ms.
std::unique_ptr<lock::DistributedLock> string_lock(LockKind kind, lock::Env& env) {
  lock::LockOptions o;
  o.lease = milliseconds(100);
  o.retry_backoff_min = ms(2);
  o.retry_backoff_max = ms(5);
  return lock::make_lock(kind, env, kKey, o);
}

// An acquire attempt the liveness checker can see. wait <= 0: one attempt.
bool acquire(ClientEnv& env, lock::DistributedLock& lk, Micros wait) {
  env.record_acquire_start(kKey, wait);
  const bool ok = wait.count() <= 0 ? lk.try_lock() : lk.try_lock_for(wait);
  env.record_acquire_end(kKey, ok);
  env.record(ok ? "acquired" : "gave up");
  return ok;
}

void critical_section(ClientEnv& env, Micros work) {
  env.enter_critical(kKey);
  env.sleep_for(work);
  env.leave_critical(kKey);
}

void unlock_and_record(ClientEnv& env, lock::DistributedLock& lk) {
  env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned (the lock was no longer ours)");
}

Violation expectation_failed(std::string what) {
  Violation v;
  v.checker = "expectation";
  v.description = std::move(what);
  return v;
}

struct Judged {
  std::vector<Violation> extra;
  std::vector<std::string> findings;
};

ScenarioResult judge(const ScenarioRunner& world, Verdict expected, int64_t liveness_bound_us,
                     Judged j, bool hold_counts = false) {
  ScenarioResult r;
  r.expected = expected;
  r.seed = world.seed();
  r.history = world.history();
  r.violations = check_mutual_exclusion(r.history);
  auto live = check_liveness(r.history, liveness_bound_us);
  r.violations.insert(r.violations.end(), live.begin(), live.end());
  if (hold_counts) {
    auto holds = check_hold_counts(r.history);
    r.violations.insert(r.violations.end(), holds.begin(), holds.end());
  }
  r.violations.insert(r.violations.end(), j.extra.begin(), j.extra.end());
  r.findings = std::move(j.findings);
  r.observed = verdict_of(r.violations);
  return r;
}

// B starts at t=10 ms and waits for the lock, then works 90 ms (inside its
// own 100 ms lease); C starts at t=120 ms and waits too. If A's late unlock
// deletes B's lock, C enters beside B.
void spawn_victim_and_intruder(World& world, LockKind kind) {
  auto waiter = [kind](Micros work) {
    return [kind, work](ProcessEnv& env) {
      auto lk = string_lock(kind, env);
      if (!acquire(env, *lk, ms(1000))) return;
      critical_section(env, work);
      unlock_and_record(env, *lk);
    };
  };
  world.spawn_process("B", waiter(ms(90)), ms(10));
  world.spawn_process("C", waiter(ms(20)), ms(120));
}

// expire-then-delete: A's unlock is GET, compare, DEL. A is paused (a GC
// pause) while its GET's reply is on the wire; its key expires, B takes the
// lock, A resumes and its DEL removes B's lock; C then enters beside B.
// With SimpleLock the same schedule is harmless: the compare-and-delete is
// one script, so it runs entirely before the expiry (or entirely after).
ScenarioResult run_expire_then_delete(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(95));  // leaves at t=97 ms, inside the 100 ms lease
    unlock_and_record(env, *lk);    // request executes at t=98 ms
  });
  spawn_victim_and_intruder(world, kind);
  // The reply to A's first unlock command arrives at t=99 ms: pause A just before.
  world.pause_process(a, Micros(98500), ms(50));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

// setnx-expire-crash: SETNX, then EXPIRE as a second command; A crashes in
// between, so the lock never expires and B waits in vain. SimpleLock's
// SET NX PX is one command: the lock expires after its lease and B gets it.
ScenarioResult run_setnx_expire_crash(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(10));
    unlock_and_record(env, *lk);
  });
  world.spawn_process(
      "B",
      [kind](ProcessEnv& env) {
        auto lk = string_lock(kind, env);
        if (!acquire(env, *lk, ms(5000))) return;
        critical_section(env, ms(10));
        unlock_and_record(env, *lk);
      },
      ms(5));
  // The acquire's first command runs at t=1 ms; its reply arrives at t=2 ms.
  world.crash_process(a, Micros(1500));
  world.run();
  Judged j;
  auto pttl = world.server().execute(*world.server().connect(), {"PTTL", kKey});
  j.findings.push_back("PTTL " + std::string(kKey) +
                       " at the end: " + std::to_string(pttl.integer()) +
                       (pttl.integer() == -1 ? " (no expiry: nobody can ever take it)" : ""));
  return judge(runner, expected, 200 * kMs, std::move(j));
}

// blind-del: A's unlock is a plain DEL. A leaves its critical section, is
// paused (GC) before the DEL, its key expires and B takes the lock; A's late
// DEL removes B's lock and C enters beside B.
ScenarioResult run_blind_del(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(80));
    env.connection().call({"INCR", kStatsKey});  // bookkeeping after the work
    unlock_and_record(env, *lk);
  });
  spawn_victim_and_intruder(world, kind);
  // The INCR's reply arrives at t=84 ms: A is paused from t=83.5 ms for 60 ms.
  world.pause_process(a, Micros(83500), ms(60));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

lock::ReentrantLockOptions reentrant_options(int64_t watchdog_ms = 30000) {
  lock::ReentrantLockOptions o;
  o.lock_watchdog_timeout = milliseconds(watchdog_ms);
  return o;
}

// lk.lock() (watchdog lease) as an acquire attempt the liveness checker sees.
void lock_recorded(ClientEnv& env, lock::ReentrantLock& lk) {
  env.record_acquire_start(kKey, Micros(0));
  lk.lock();
  env.record_acquire_end(kKey, true);
}

// reentrant-hold-count: A locks three times; B cannot take the lock until
// A's hold count is back to 0; a fourth unlock by A is refused.
ScenarioResult run_reentrant_hold_count(ScenarioRunner& world, Verdict expected) {
  Judged j;
  struct Shared {
    bool b_refused_while_held = true;
    bool b_acquired_after = false;
    bool extra_unlock_refused = false;
  } s;
  // In the real world every step of A is stretched by the timing slack, so
  // B's three tries still land while A holds the lock (0 in the simulation).
  const Micros step = ms(20) + world.timing_slack();
  world.spawn("A", [&s, step](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    env.enter_critical(kKey);
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    for (int i = 0; i < 2; ++i) {
      lk.lock();
      env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    }
    for (int i = 0; i < 2; ++i) {
      env.sleep_for(step);
      lk.unlock();
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    }
    env.sleep_for(step);
    env.leave_critical(kKey);
    lk.unlock();
    env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    try {
      lk.unlock();
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    } catch (const lock::LockNotOwned& e) {
      s.extra_unlock_refused = true;
      env.record_hold(kKey, HoldOp::kUnlockRejected, lk.hold_count());
      env.record(std::string("4th unlock: LockNotOwned: ") + e.what());
    }
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        for (int i = 0; i < 3; ++i) {
          env.sleep_for(ms(15));
          if (lk.try_lock()) {
            s.b_refused_while_held = false;
            env.record("try_lock succeeded while A held the lock");
            lk.unlock();
          }
        }
        env.record_acquire_start(kKey, ms(1000));
        bool ok = lk.try_lock_for(ms(1000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s.b_acquired_after = true;
        env.enter_critical(kKey);
        env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
        env.leave_critical(kKey);
        lk.unlock();
        env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
      },
      ms(2) + world.timing_slack());
  world.run();
  if (!s.b_refused_while_held)
    j.extra.push_back(expectation_failed("B took the lock while A held it"));
  if (!s.b_acquired_after) j.extra.push_back(expectation_failed("B never took the freed lock"));
  if (!s.extra_unlock_refused) {
    j.extra.push_back(expectation_failed("A's unlock beyond its holds was not refused"));
  }
  j.findings.push_back("B refused 3 times while A's hold count was > 0; A's 4th unlock: " +
                       std::string(s.extra_unlock_refused ? "LockNotOwned" : "accepted"));
  return judge(world, expected, 200 * kMs + world.timing_slack().count(), std::move(j),
               /*hold_counts=*/true);
}

// pubsub-wakeup: B waits on a lock A holds with a 10 s lease; A unlocks at
// t~200 ms; the unlock message wakes B, which holds the lock within one
// round trip, not after the lease.
ScenarioResult run_pubsub_wakeup(ScenarioRunner& world, Verdict expected) {
  struct Shared {
    int64_t unlocked_us = -1;
    int64_t b_acquired_us = -1;
  } s;
  world.spawn("A", [&s](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    env.record_acquire_start(kKey, Micros(0));
    bool ok = lk.try_lock_for(Micros(0), milliseconds(10000));
    env.record_acquire_end(kKey, ok);
    if (!ok) return;
    critical_section(env, ms(200));
    lk.unlock();
    s.unlocked_us = env.now().count();
    env.record("unlocked");
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(30000));
        bool ok = lk.try_lock_for(ms(30000), milliseconds(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s.b_acquired_us = env.now().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(20) + world.timing_slack());  // after A holds it, also in real time
  world.run();
  Judged j;
  if (s.unlocked_us < 0 || s.b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("A never unlocked or B never acquired"));
  } else {
    // From A's unlock reply: the push reaches B 1 ms after the script ran,
    // B's acquire takes one more round trip (2 ms).
    int64_t handoff = s.b_acquired_us - s.unlocked_us;
    j.findings.push_back("hand-off: B held the lock " + fmt_ms(handoff) +
                         " after A's unlock returned (lease was 10000 ms)");
    if (handoff > 5 * kMs + world.timing_slack().count()) {
      j.extra.push_back(expectation_failed("B was not woken by the unlock message: hand-off took " +
                                           fmt_ms(handoff)));
    }
  }
  return judge(world, expected, 10 * kMs + world.timing_slack().count(), std::move(j));
}

// watchdog-renews: A holds a watchdog lock (30 s lease) for 100 s; the
// watchdog renews it every 10 s; B tries all along and never gets in.
// Against a real server every duration is multiplied by long_time_scale().
ScenarioResult run_watchdog_renews(ScenarioRunner& world, Verdict expected) {
  const double scale = world.long_time_scale();
  auto scaled = [scale](int64_t v_ms) {
    return Micros(static_cast<int64_t>(static_cast<double>(v_ms * kMs) * scale));
  };
  const int64_t watchdog_ms = std::max<int64_t>(1, scaled(30000).count() / kMs);
  world.spawn("A", [&](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options(watchdog_ms));
    lock_recorded(env, lk);
    critical_section(env, scaled(100000) + world.timing_slack());
    lk.unlock();
    env.record("unlocked");
  });
  world.spawn(
      "B",
      [&](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options(watchdog_ms));
        env.record_acquire_start(kKey, scaled(200000));
        bool ok = lk.try_lock_for(scaled(200000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(10));
        lk.unlock();
      },
      scaled(1000) + world.timing_slack());
  world.run();
  Judged j;
  int renewals = 0;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.kind == EventKind::kCommand && e.process == 1 && e.task != 1) ++renewals;
  }
  const std::string every = fmt_ms(watchdog_ms * kMs / 3);
  j.findings.push_back("watchdog commands from A's background task: " + std::to_string(renewals) +
                       " (one every " + every + " while held)");
  if (renewals < 9) {
    j.extra.push_back(expectation_failed("the watchdog did not renew every " + every));
  }
  return judge(world, expected, scaled(2000).count() + world.timing_slack().count(), std::move(j));
}

// watchdog-dies-with-holder: A holds a watchdog lock and crashes at t=5 s;
// nothing renews it any more, so it frees within the 30 s watchdog timeout
// and the waiting B takes it.
ScenarioResult run_watchdog_dies(Verdict expected, uint64_t seed) {
  int64_t b_acquired_us = -1;
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    critical_section(env, ms(600000));
    lk.unlock();
  });
  world.spawn_process(
      "B",
      [&b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(60000));
        bool ok = lk.try_lock_for(ms(60000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        b_acquired_us = env.now().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(1000));
  world.crash_process(a, ms(5000));
  world.run();
  Judged j;
  if (b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("B never took the lock after A crashed"));
  } else {
    j.findings.push_back("B took the lock " + fmt_ms(b_acquired_us - 5000 * kMs) +
                         " after A crashed (watchdog timeout 30000 ms)");
  }
  // Free from the crash until the lease ends: at most the watchdog timeout.
  return judge(runner, expected, 31000 * kMs, std::move(j));
}

// unlock-not-owner: B unlocks a lock A holds: LockNotOwned, and A's lock
// (its hash field and hold count) is intact.
ScenarioResult run_unlock_not_owner(ScenarioRunner& world, Verdict expected) {
  struct Shared {
    std::string b_error;
    int64_t a_count_after = -1;
    bool a_held_after = false;
  } s;
  world.spawn("A", [&s](ClientEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    lock_recorded(env, lk);
    critical_section(env, ms(50));
    s.a_held_after = lk.is_held_by_current_thread();
    s.a_count_after = lk.hold_count();
    lk.unlock();
  });
  world.spawn(
      "B",
      [&s](ClientEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        try {
          lk.unlock();
          env.record("unlock by a non-owner succeeded");
        } catch (const lock::LockNotOwned& e) {
          s.b_error = e.what();
          env.record(std::string("LockNotOwned: ") + e.what());
        }
      },
      ms(10));
  world.run();
  Judged j;
  if (s.b_error.empty())
    j.extra.push_back(expectation_failed("B's unlock did not throw LockNotOwned"));
  if (!s.a_held_after || s.a_count_after != 1) {
    j.extra.push_back(expectation_failed("A's lock was not intact after B's unlock"));
  }
  j.findings.push_back("B: LockNotOwned \"" + s.b_error + "\"; A still holds it, hold count " +
                       std::to_string(s.a_count_after));
  return judge(world, expected, 200 * kMs + world.timing_slack().count(), std::move(j));
}

std::vector<Scenario> build_catalogue() {
  std::vector<Scenario> c;
  // The string-lock scenarios all inject a fault (`fault` says which).
  auto add = [&c](std::string name, LockKind kind, Verdict expected, std::string description,
                  std::string source, std::string fault, auto fn) {
    Scenario s{std::move(name),
               kind,
               expected,
               std::move(description),
               std::move(source),
               [fn, kind, expected](uint64_t seed) { return fn(kind, expected, seed); },
               {},
               std::move(fault)};
    c.push_back(std::move(s));
  };
  add("expire-then-delete", LockKind::kGetDel, Verdict::kMutualExclusion,
      "GET-compare-DEL unlock: the key expires between GET and DEL, another client's lock is "
      "deleted",
      "seeds 002, 004 (why the unlock must be one Lua script)",
      "a pause of client A between its unlock's GET and DEL", run_expire_then_delete);
  add("expire-then-delete-simple", LockKind::kSimple, Verdict::kSafe,
      "the same schedule with the Lua compare-and-delete unlock: nothing is deleted that is not "
      "ours",
      "seeds 002, 004", "a pause of client A during its unlock", run_expire_then_delete);
  add("setnx-expire-crash", LockKind::kSetnxExpire, Verdict::kLiveness,
      "SETNX then EXPIRE: a crash in between leaves a lock that never expires",
      "seeds 000, 004 (SETNX + EXPIRE is not atomic)",
      "a crash of client A between SETNX and EXPIRE", run_setnx_expire_crash);
  add("setnx-expire-crash-simple", LockKind::kSimple, Verdict::kSafe,
      "the same crash with SET NX PX: the lock expires after its lease and the waiter gets it",
      "seeds 000, 004", "a crash of client A during its acquire", run_setnx_expire_crash);
  add("blind-del", LockKind::kBlindDel, Verdict::kMutualExclusion,
      "unlock by plain DEL after the lease ran out deletes another client's lock",
      "seeds 003, 004 (store a token and check it on unlock)", "a pause of client A before its DEL",
      run_blind_del);
  add("blind-del-simple", LockKind::kSimple, Verdict::kSafe,
      "the same late unlock with compare-and-delete: the other client's lock survives",
      "seeds 003, 004", "a pause of client A before its unlock", run_blind_del);
  // Fault-free: the same workload runs in the simulation and on a real server.
  auto add_reentrant = [&c](std::string name, Verdict expected, std::string description,
                            std::string source, ScenarioResult (*fn)(ScenarioRunner&, Verdict)) {
    Scenario s{std::move(name),
               LockKind::kReentrant,
               expected,
               std::move(description),
               std::move(source),
               [fn, expected](uint64_t seed) {
                 SimRunner runner(scenario_options(seed));
                 return fn(runner, expected);
               },
               [fn, expected](ScenarioRunner& runner) { return fn(runner, expected); },
               {}};
    c.push_back(std::move(s));
  };
  auto add_faulted_reentrant = [&c](std::string name, Verdict expected, std::string description,
                                    std::string source, std::string fault,
                                    ScenarioResult (*fn)(Verdict, uint64_t)) {
    Scenario s{std::move(name),
               LockKind::kReentrant,
               expected,
               std::move(description),
               std::move(source),
               [fn, expected](uint64_t seed) { return fn(expected, seed); },
               {},
               std::move(fault)};
    c.push_back(std::move(s));
  };
  add_reentrant("reentrant-hold-count", Verdict::kSafe,
                "nested lock/unlock keeps Redisson's hold count; others wait until it reaches 0",
                "seed 001 (RedissonLock hash and HINCRBY)", run_reentrant_hold_count);
  add_reentrant(
      "pubsub-wakeup", Verdict::kSafe,
      "a waiter is woken by the unlock message within one round trip, not after the lease",
      "seeds 001, 002 (RedissonLockEntry and LockPubSub)", run_pubsub_wakeup);
  add_reentrant("watchdog-renews", Verdict::kSafe,
                "the watchdog renews a held lock every lease/3 for 100 s; nobody else gets in",
                "seeds 001, 002 (lockWatchdogTimeout, renewExpiration)", run_watchdog_renews);
  add_faulted_reentrant(
      "watchdog-dies-with-holder", Verdict::kSafe,
      "the holder crashes; with no watchdog left the lock frees within its timeout",
      "seeds 001, 002", "a crash of client A at t=5 s", run_watchdog_dies);
  add_reentrant("unlock-not-owner", Verdict::kSafe,
                "unlock by a non-owner throws LockNotOwned and leaves the owner's lock intact",
                "seed 001 (IllegalMonitorStateException)", run_unlock_not_owner);
  return c;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSafe:
      return "safe";
    case Verdict::kMutualExclusion:
      return "violation: mutual exclusion";
    case Verdict::kLiveness:
      return "violation: liveness";
    case Verdict::kHoldCount:
      return "violation: hold count";
    case Verdict::kExpectation:
      return "violation: expectation";
  }
  return "?";
}

Verdict verdict_of(const std::vector<Violation>& violations) {
  auto has = [&](std::string_view checker) {
    return std::any_of(violations.begin(), violations.end(),
                       [&](const Violation& v) { return v.checker == checker; });
  };
  if (has("mutual-exclusion")) return Verdict::kMutualExclusion;
  if (has("liveness")) return Verdict::kLiveness;
  if (has("hold-count")) return Verdict::kHoldCount;
  if (!violations.empty()) return Verdict::kExpectation;
  return Verdict::kSafe;
}

std::span<const Scenario> all_scenarios() {
  static const std::vector<Scenario> catalogue = build_catalogue();
  return catalogue;
}

ScenarioResult run_scenario_real(const Scenario& scenario, RealRunnerOptions options) {
  if (!scenario.run_on) {
    throw std::invalid_argument("scenario '" + scenario.name + "' needs an injected fault (" +
                                scenario.needs_fault + "); it runs only in the simulation");
  }
  RealTimeRunner runner(std::move(options));
  // A real server keeps what earlier runs left: start from no lock.
  runner.command({"DEL", kKey, kStatsKey});
  return scenario.run_on(runner);
}

const Scenario* find_scenario(std::string_view name) {
  for (const Scenario& s : all_scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace redsim::world

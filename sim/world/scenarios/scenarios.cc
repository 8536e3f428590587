// The scenario catalogue: every scenario's name, lock kind, expected
// verdict, description and source, in the order `redsim scenario list` shows,
// and the helpers the scenarios share (sim/world/scenarios/scenarios_internal.h). The
// scripted worlds themselves are in sim/world/scenarios/scenarios_<family>.cc.
#include "sim/world/scenarios/scenarios.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lock/fair_lock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world {

namespace scenarios_detail {

std::string fmt_ms(int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(us) / kMs);
  return buf;
}

WorldOptions scenario_options(uint64_t seed) {
  WorldOptions o;
  o.seed = seed;
  o.faults.latency_min = Micros{1 * kMs};
  o.faults.latency_max = Micros{1 * kMs};
  return o;
}

std::unique_ptr<lock::DistributedLock> string_lock(LockKind kind, lock::Env& env) {
  lock::LockOptions o;
  o.lease = milliseconds(100);
  o.retry_backoff_min = ms(2);
  o.retry_backoff_max = ms(5);
  return lock::make_lock(kind, env, kKey, o);
}

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
  env.record(lk.release() ? "unlocked" : "unlock: not held (the lock was no longer ours)");
}

Violation expectation_failed(std::string what) {
  Violation v;
  v.checker = "expectation";
  v.description = std::move(what);
  return v;
}

ScenarioResult judge(const ScenarioRunner& world, Verdict expected, int64_t liveness_bound_us,
                     Judged j, bool hold_counts) {
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

lock::ReentrantLockOptions reentrant_options(int64_t watchdog_ms) {
  lock::ReentrantLockOptions o;
  o.lock_watchdog_timeout = milliseconds(watchdog_ms);
  return o;
}

void lock_recorded(ClientEnv& env, lock::ReentrantLock& lk) {
  env.record_acquire_start(kKey, Micros(0));
  lk.lock();
  env.record_acquire_end(kKey, true);
}

namespace {

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
                "unlock by a non-owner reports not held and leaves the owner's lock intact",
                "seed 001 (IllegalMonitorStateException)", run_unlock_not_owner);
  // Faults from the locking debate: each a scripted world, so they all need faults.
  auto add_fault = [&c](std::string name, LockKind kind, Verdict expected, std::string description,
                        std::string source, std::string fault,
                        std::function<ScenarioResult(uint64_t)> fn) {
    Scenario s{std::move(name),   kind,          expected, std::move(description),
               std::move(source), std::move(fn), {},       std::move(fault)};
    c.push_back(std::move(s));
  };
  const std::string kleppmann =
      "Kleppmann, \"How to do distributed locking\" (2016), GC pause figure";
  add_fault("pause-past-lease-simple", LockKind::kSimple, Verdict::kMutualExclusion,
            "a holder paused past its lease writes after another client took the lock", kleppmann,
            "a 150 ms pause of client A inside its critical section", [](uint64_t seed) {
              return run_pause_past_lease_string(LockKind::kSimple, Verdict::kMutualExclusion,
                                                 seed);
            });
  add_fault("pause-past-lease-reentrant", LockKind::kReentrant, Verdict::kMutualExclusion,
            "the same pause with Redisson's watchdog: it is paused too, the lease runs out",
            kleppmann + "; a watchdog runs in the paused process",
            "a 4 s pause of client A (watchdog included)", [](uint64_t seed) {
              return run_pause_past_lease_reentrant(Verdict::kMutualExclusion, seed);
            });
  add_fault("pause-past-lease-fenced", LockKind::kFenced, Verdict::kSafe,
            "the same pause with FencedLock + FencedResource: the stale write is rejected",
            "Kleppmann, \"How to do distributed locking\" (2016), fencing tokens; Redisson "
            "RFencedLock",
            "a 150 ms pause of client A before its write", [](uint64_t seed) {
              return run_pause_past_lease_fenced(LockKind::kFenced, Verdict::kSafe, seed);
            });
  add_fault("failover-loses-lock", LockKind::kReentrant, Verdict::kMutualExclusion,
            "failover before replication loses the lock; a second client takes it",
            "Redis replication docs (asynchronous); Kleppmann (2016); antirez, \"Is Redlock "
            "safe?\" (2016)",
            "a failover at t=80 ms, before the lock reached the replica",
            [](uint64_t seed) { return run_failover(false, Verdict::kMutualExclusion, seed); });
  add_fault("failover-replica-check", LockKind::kReentrant, Verdict::kSafe,
            "the same failover with the replica check (WAIT 1): the first acquisition fails",
            "Redisson Config.checkLockSyncedSlaves; Redis WAIT command page",
            "a failover at t=80 ms, before the lock reached the replica",
            [](uint64_t seed) { return run_failover(true, Verdict::kSafe, seed); });
  add_fault(
      "watchdog-gives-up", LockKind::kReentrant, Verdict::kMutualExclusion,
      "the watchdog stops after one failed renewal; the lock expires under its holder",
      "Redisson issues #2515, #3194 (renewal stops after a connection error)",
      "a partition of client A from t=990 to t=1500 ms (its first renewal fails)",
      [](uint64_t seed) { return run_watchdog_error(true, Verdict::kMutualExclusion, seed); });
  add_fault("watchdog-keeps-renewing", LockKind::kReentrant, Verdict::kSafe,
            "the same failed renewal; the watchdog tries again at the next interval and keeps it",
            "Redisson issues #2515, #3194, PR #3332 (renewal tolerates errors)",
            "a partition of client A from t=990 to t=1500 ms (its first renewal fails)",
            [](uint64_t seed) { return run_watchdog_error(false, Verdict::kSafe, seed); });
  add_fault(
      "lost-wakeup", LockKind::kReentrant, Verdict::kSafe,
      "the waiter misses the unlock message; it waits at most the PTTL it saw, not forever",
      "Redisson RedissonLock.tryLock (waits on the entry's latch at most the ttl)",
      "a partition of client B from t=250 to t=400 ms (the unlock message is lost)",
      [](uint64_t seed) { return run_lost_wakeup(LockKind::kReentrant, Verdict::kSafe, seed); });
  add_fault("unlock-retry-double-release", LockKind::kReentrant, Verdict::kHoldCount,
            "an unlock whose reply is lost is sent again and releases a second hold",
            "Redisson issue #4871 (why unlock has a latch); Config.retryAttempts",
            "A's unlock reply delayed 100 ms past its 50 ms command timeout",
            [](uint64_t seed) { return run_unlock_retry(false, Verdict::kHoldCount, seed); });
  add_fault("unlock-retry-latch", LockKind::kReentrant, Verdict::kSafe,
            "the same retried unlock with an unlock request id: one hold released, not two",
            "Redisson issue #4871 (redisson_unlock_latch)",
            "A's unlock reply delayed 100 ms past its 50 ms command timeout",
            [](uint64_t seed) { return run_unlock_retry(true, Verdict::kSafe, seed); });
  const std::string klepp_redlock =
      "Kleppmann, \"How to do distributed locking\" (2016), \"Making the lock safe with "
      "fencing\" / timing assumptions";
  const std::string antirez = "antirez, \"Is Redlock safe?\" (2016)";
  const milliseconds old_wait = lock::FairLockOptions::kThreadWaitBefore2883;
  add_fault("fair-skewed-clock-2883", LockKind::kFair, Verdict::kExpectation,
            "FairLock with threadWaitTime 5 s: C's clock runs 10 s ahead; it sees B's place as "
            "expired and goes first",
            "Redisson RedissonFairLock before 3.13.3 (waiter timeouts on the caller's clock, "
            "threadWaitTime 5 s; raised to 300 s by redisson#2883)",
            "C's process clock +10000 ms from the start", [old_wait](uint64_t seed) {
              return run_fair_skewed_clock(LockKind::kFair, Verdict::kExpectation, seed, 10000,
                                           old_wait);
            });
  add_fault("fair-skewed-clock", LockKind::kFair, Verdict::kSafe,
            "FairLock with today's threadWaitTime (300 s): the same 10 s skew stays within B's "
            "reservation: FIFO holds",
            "Redisson RedissonFairLock (Config.fairLockWaitTimeout 300,000 ms since 3.13.3, "
            "redisson#2883)",
            "C's process clock +10000 ms from the start", [](uint64_t seed) {
              return run_fair_skewed_clock(LockKind::kFair, Verdict::kSafe, seed, 10000,
                                           lock::FairLockOptions{}.thread_wait);
            });
  add_fault("fair-skewed-clock-small", LockKind::kFair, Verdict::kSafe,
            "FairLock with threadWaitTime 5 s: C's clock runs 3 s ahead, less than B's "
            "reservation: FIFO holds",
            "Redisson RedissonFairLock before 3.13.3 (waiter timeouts on the caller's clock, "
            "threadWaitTime 5 s)",
            "C's process clock +3000 ms from the start", [old_wait](uint64_t seed) {
              return run_fair_skewed_clock(LockKind::kFair, Verdict::kSafe, seed, 3000, old_wait);
            });
  add_fault(
      "redlock-clock-jump", LockKind::kRedlock, Verdict::kMutualExclusion,
      "Redlock, 5 servers: a clock jump on one of A's 3 expires its key; B gets 3 too",
      klepp_redlock, "partitions A|3,4 and B|0,1; server 2's clock +1000 ms at t=100 ms",
      [](uint64_t seed) { return run_redlock_clock_jump(Verdict::kMutualExclusion, seed, 1000); });
  add_fault("redlock-clock-jump-small", LockKind::kRedlock, Verdict::kSafe,
            "the same split with a jump below the drift allowance: A's validity ends first",
            antirez + " (bounded clock drift is the assumption)",
            "partitions A|3,4 and B|0,1; server 2's clock +10 ms at t=100 ms",
            [](uint64_t seed) { return run_redlock_clock_jump(Verdict::kSafe, seed, 10); });
  add_fault("redlock-restart", LockKind::kRedlock, Verdict::kMutualExclusion,
            "Redlock: one of A's 3 servers restarts without persistence; B gets 3 too",
            "antirez, \"Distributed locks with Redis\" (redis.io), safety and persistence",
            "partitions A|3,4 and B|0,1; server 2 crashes at t=100 ms, back empty 10 ms later",
            [](uint64_t seed) { return run_redlock_restart(Verdict::kMutualExclusion, seed, 10); });
  add_fault("redlock-delayed-restart", LockKind::kRedlock, Verdict::kSafe,
            "the same crash, restart delayed past the max lease (antirez's fix): safe",
            "antirez, \"Distributed locks with Redis\" (redis.io): delayed restarts",
            "partitions A|3,4 and B|0,1; server 2 down from t=100 ms for 1100 ms",
            [](uint64_t seed) { return run_redlock_restart(Verdict::kSafe, seed, 1100); });
  add_fault("redlock-paused-replies", LockKind::kRedlock, Verdict::kSafe,
            "replies reach a client paused past the lease; its elapsed-time check rejects them",
            antirez + ", on delayed replies and GC pauses during acquisition",
            "a 1100 ms pause of client A during its first SET",
            [](uint64_t seed) { return run_redlock_paused_replies(Verdict::kSafe, seed); });
  append_redisson_issue_scenarios(c);
  add_semaphore_multi_scenarios(c);
  add_interop_scenarios(c);
  add_zookeeper_scenarios(c);
  return c;
}

}  // namespace

}  // namespace scenarios_detail

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
  static const std::vector<Scenario> catalogue = scenarios_detail::build_catalogue();
  return catalogue;
}

ScenarioResult run_scenario_real(const Scenario& scenario, ScenarioRunner& runner) {
  if (!scenario.run_on) {
    throw std::invalid_argument("scenario '" + scenario.name + "' needs an injected fault (" +
                                scenario.needs_fault + "); it runs only in the simulation");
  }
  // A real server keeps what earlier runs left: start from no lock.
  runner.command({"DEL", scenarios_detail::kKey, scenarios_detail::kStatsKey});
  return scenario.run_on(runner);
}

std::string_view scenario_lock_name(const Scenario& s) {
  return s.lock_name.empty() ? lock::lock_kind_name(s.kind) : std::string_view(s.lock_name);
}

const Scenario* find_scenario(std::string_view name) {
  for (const Scenario& s : all_scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace redsim::world

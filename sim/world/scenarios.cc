#include "sim/world/scenarios.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "lock/errors.h"
#include "lock/fair_lock.h"
#include "lock/fenced_lock.h"
#include "lock/redlock.h"
#include "lock/reentrant_lock.h"
#include "lock/script.h"
#include "sim/world/fenced_resource.h"
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

// ---- Faults from the locking debate (Kleppmann 2016, antirez 2016, Redisson
// issues). Each runs only in the simulation: it injects a fault at a chosen time.

// pause-past-lease: A takes the lock (100 ms lease) at t=0 and is paused at
// t=10 ms for 150 ms (a GC pause) inside its critical section; its lease
// runs out at t=101 ms, B takes the lock, and A resumes at t=160 ms still
// believing it holds the lock: it writes beside B.
ScenarioResult run_pause_past_lease_string(LockKind kind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [kind](ProcessEnv& env) {
    auto lk = string_lock(kind, env);
    if (!acquire(env, *lk, Micros(0))) return;
    critical_section(env, ms(50));  // the write: done at t=160 ms, after the pause
    unlock_and_record(env, *lk);
  });
  world.spawn_process(
      "B",
      [kind](ProcessEnv& env) {
        auto lk = string_lock(kind, env);
        if (!acquire(env, *lk, ms(1000))) return;
        critical_section(env, ms(90));
        unlock_and_record(env, *lk);
      },
      ms(20));
  world.pause_process(a, ms(10), ms(150));
  world.run();
  return judge(runner, expected, 200 * kMs, {});
}

// The same with ReentrantLock and its watchdog (lock_watchdog_timeout 3 s,
// renewed every 1 s): A is paused from t=500 ms for 4 s, its watchdog with
// it, so the lease set at t=1 ms runs out at t=3001 ms and B gets in.
ScenarioResult run_pause_past_lease_reentrant(Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  ProcessId a = world.spawn_process("A", [](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options(3000));
    lock_recorded(env, lk);
    critical_section(env, ms(5000));
    env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned (the lease ran out)");
  });
  world.spawn_process(
      "B",
      [](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options(3000));
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(2000));
        lk.unlock();
      },
      ms(100));
  world.pause_process(a, ms(500), ms(4000));
  world.run();
  return judge(runner, expected, 4000 * kMs, {});
}

// pause-past-lease-fenced: the same pause with FencedLock (100 ms lease) and
// a FencedResource. A's token is 1, B's is 2; B writes first, A's write
// after the pause carries token 1 and is rejected. The critical sections do
// overlap in time (a lease cannot prevent that); what the fencing token
// guarantees is that the storage only sees increasing tokens, so the
// verdict comes from check_fencing and from the rejection itself.
ScenarioResult run_pause_past_lease_fenced(LockKind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto storage = std::make_shared<FencedResource>("storage");
  struct Shared {
    int64_t a_token = 0, b_token = 0;
    bool a_rejected = false, b_accepted = false;
  };
  auto s = std::make_shared<Shared>();
  auto client = [storage, s](bool is_a) {
    return [storage, s, is_a](ProcessEnv& env) {
      lock::FencedLock lk(env, kKey, reentrant_options());
      env.record_acquire_start(kKey, is_a ? Micros(0) : ms(1000));
      std::optional<int64_t> token =
          lk.try_lock_and_get_token(is_a ? Micros(0) : ms(1000), milliseconds(100));
      env.record_acquire_end(kKey, token.has_value());
      if (!token) return;
      (is_a ? s->a_token : s->b_token) = *token;
      env.sleep_for(is_a ? ms(50) : ms(10));  // A's sleep is where the pause hits
      const bool ok = storage->write(env, *token);
      if (is_a) s->a_rejected = !ok;
      if (!is_a) s->b_accepted = ok;
      env.record(std::string("write with token ") + std::to_string(*token) +
                 (ok ? ": accepted" : ": rejected (stale token)"));
      env.sleep_for(ms(is_a ? 0 : 80));
      env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned (the lease ran out)");
    };
  };
  ProcessId a = world.spawn_process("A", client(true));
  world.spawn_process("B", client(false), ms(20));
  world.pause_process(a, ms(10), ms(150));
  world.run();
  Judged j;
  j.extra = check_fencing(runner.history());
  if (!s->a_rejected) j.extra.push_back(expectation_failed("A's stale write was not rejected"));
  if (!s->b_accepted) j.extra.push_back(expectation_failed("B's write was not accepted"));
  j.findings.push_back("tokens: A " + std::to_string(s->a_token) + ", B " +
                       std::to_string(s->b_token) +
                       "; A's write after its pause: " + (s->a_rejected ? "rejected" : "accepted") +
                       "; storage's highest token: " + std::to_string(storage->max_token()));
  return judge(runner, expected, 200 * kMs, std::move(j));
}

// failover-loses-lock: one replica, replication lag 200 ms. A takes the lock
// at t~3 ms; the primary fails at t=80 ms before the write reached the
// replica, which is promoted empty; B asks the new primary at t=90 ms and
// gets the lock while A still holds it. With the replica check
// (sync_replicas 1, sync_timeout 50 ms), A's WAIT sees 0 replicas, A
// releases and fails its acquisition instead: one holder only.
ScenarioResult run_failover(bool replica_check, Verdict expected, uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.replicas = 1;
  options.replication_lag_min_us = 200 * kMs;
  options.replication_lag_max_us = 200 * kMs;
  SimRunner runner(options);
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options();
  if (replica_check) {
    lock_options.sync_replicas = 1;
    lock_options.sync_timeout = milliseconds(50);
  }
  std::string a_result;
  world.spawn_process("A", [&a_result, lock_options](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    env.record_acquire_start(kKey, Micros(0));
    try {
      lk.lock();
    } catch (const lock::Error& e) {
      env.record_acquire_end(kKey, false);
      a_result = std::string("acquisition failed: ") + e.what();
      env.record(a_result);
      return;
    }
    env.record_acquire_end(kKey, true);
    a_result = "acquired";
    critical_section(env, ms(500));
    env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned (the lock was lost)");
  });
  world.spawn_process(
      "B",
      [lock_options](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, lock_options);
        env.record_acquire_start(kKey, ms(1000));
        bool ok = false;
        try {
          ok = lk.try_lock_for(ms(1000));
        } catch (const lock::Error& e) {
          env.record(std::string("acquisition failed: ") + e.what());
        }
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        critical_section(env, ms(100));
        env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned");
      },
      ms(90));
  world.failover(0, ms(80));
  world.run();
  Judged j;
  j.findings.push_back("A: " + a_result);
  if (replica_check && a_result == "acquired") {
    j.extra.push_back(expectation_failed("A's acquisition passed the replica check"));
  }
  return judge(runner, expected, 1000 * kMs, std::move(j));
}

// watchdog after a transient error: A holds a watchdog lock (3 s timeout,
// renewed every 1 s) for 5 s; A is cut from the server from t=990 ms to
// t=1500 ms, so its first renewal fails. Stopping for good (the old
// Redisson behaviour) lets the lease set at t=1 ms run out at t=3001 ms,
// under its holder, and B gets in; retrying renews at t~2.5 s and A keeps it.
ScenarioResult run_watchdog_error(bool stops_on_error, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options(3000);
  lock_options.watchdog_stops_on_error = stops_on_error;
  ProcessId a = world.spawn_process("A", [lock_options](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    lock_recorded(env, lk);
    critical_section(env, ms(5000));
    env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned (the lease ran out)");
  });
  int64_t b_acquired_us = -1;
  world.spawn_process(
      "B",
      [lock_options, &b_acquired_us](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, lock_options);
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        b_acquired_us = env.now().count();
        critical_section(env, ms(100));
        lk.unlock();
      },
      ms(100));
  world.partition(a, 0, ms(990), ms(1500));
  world.run();
  Judged j;
  int failed = 0, renewed = 0;
  for (const HistoryEvent& e : runner.history().events()) {
    if (e.kind != EventKind::kTrace || e.process != a) continue;
    if (e.text.starts_with("watchdog could not renew")) ++failed;
    if (e.text.starts_with("watchdog renewed")) ++renewed;
  }
  j.findings.push_back("A's watchdog: " + std::to_string(failed) + " failed renewal(s), " +
                       std::to_string(renewed) + " renewal(s); B took the lock at " +
                       (b_acquired_us < 0 ? std::string("never") : fmt_ms(b_acquired_us)));
  if (failed == 0) j.extra.push_back(expectation_failed("no renewal failed: the fault missed"));
  return judge(runner, expected, 4000 * kMs, std::move(j));
}

// lost-wakeup: A holds the lock with a 2 s lease and unlocks at t~302 ms. B,
// waiting since t=50 ms, saw PTTL ~1950 ms and subscribed, but its
// connections are cut from t=250 to t=400 ms: the unlock message is lost and
// B subscribes again only after it was published. B must not wait forever:
// it wakes when the PTTL it saw runs out and takes the lock then.
// Redisson's fair lock keeps each waiter's place until a time computed on
// the caller's clock (the holder's lease end plus threadWaitTime, 5 s). B
// queues at t=10 ms, C at t=20 ms; C's clock runs `skew_ms` ahead. A skew
// beyond B's reservation makes C see B as expired, drop it and go first: the
// FIFO guarantee holds only while clocks agree within the reservation.
ScenarioResult run_fair_skewed_clock(LockKind, Verdict expected, uint64_t seed, int64_t skew_ms) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto order = std::make_shared<std::vector<std::string>>();
  world.spawn_process("A", [](ProcessEnv& env) {
    lock::FairLock lk(env, kKey);
    env.record_acquire_start(kKey, Micros::max());
    lk.lock(milliseconds(1000));
    env.record_acquire_end(kKey, true);
    critical_section(env, ms(100));
    lk.unlock();
  });
  auto waiter = [order](std::string name) {
    return [order, name](ProcessEnv& env) {
      lock::FairLock lk(env, kKey);
      env.record_acquire_start(kKey, Micros::max());
      lk.lock(milliseconds(1000));
      env.record_acquire_end(kKey, true);
      order->push_back(name);
      env.record(name + " acquired");
      critical_section(env, ms(10));
      lk.unlock();
    };
  };
  world.spawn_process("B", waiter("B"), ms(10));
  const ProcessId c = world.spawn_process("C", waiter("C"), ms(20));
  world.jump_process_clock(c, Micros(0), ms(skew_ms));
  world.run();
  Judged j;
  std::string got;
  for (const std::string& n : *order) got += (got.empty() ? "" : ", ") + n;
  j.findings.push_back("C's clock " + std::to_string(skew_ms) +
                       " ms ahead; order of the waiters: " + got + " (queued B, then C)");
  if (*order != std::vector<std::string>{"B", "C"}) {
    j.extra.push_back(expectation_failed("FIFO broken: the waiters acquired in the order " + got +
                                         ", though B queued first"));
  }
  // A waiter may wait behind another's reservation (threadWaitTime 5 s).
  return judge(runner, expected, 6000 * kMs, std::move(j));
}

ScenarioResult run_lost_wakeup(LockKind, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  struct Shared {
    int64_t unlocked_us = -1, b_acquired_us = -1;
  };
  auto s = std::make_shared<Shared>();
  world.spawn_process("A", [s](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, reentrant_options());
    env.record_acquire_start(kKey, Micros(0));
    bool ok = lk.try_lock_for(Micros(0), milliseconds(2000));
    env.record_acquire_end(kKey, ok);
    if (!ok) return;
    critical_section(env, ms(300));
    lk.unlock();
    s->unlocked_us = env.now().count();
    env.record("unlocked");
  });
  ProcessId b = world.spawn_process(
      "B",
      [s](ProcessEnv& env) {
        lock::ReentrantLock lk(env, kKey, reentrant_options());
        env.record_acquire_start(kKey, ms(10000));
        bool ok = lk.try_lock_for(ms(10000), milliseconds(2000));
        env.record_acquire_end(kKey, ok);
        if (!ok) return;
        s->b_acquired_us = env.now().count();
        critical_section(env, ms(10));
        lk.unlock();
      },
      ms(50));
  world.partition(b, 0, ms(250), ms(400));
  world.run();
  Judged j;
  if (s->b_acquired_us < 0) {
    j.extra.push_back(expectation_failed("B never took the lock: a lost wake-up"));
  } else {
    j.findings.push_back("A unlocked at " + fmt_ms(s->unlocked_us) +
                         "; B, whose wake-up was lost, " + "took the lock at " +
                         fmt_ms(s->b_acquired_us) + " (A's lease would have ended at 2001 ms)");
    if (s->b_acquired_us > 2010 * kMs) {
      j.extra.push_back(expectation_failed("B waited past the PTTL it saw"));
    }
    if (s->b_acquired_us < 1900 * kMs) {
      j.extra.push_back(expectation_failed("B was woken early: the unlock message was not lost"));
    }
  }
  // B may wait out the PTTL it saw (A's 2 s lease) but no longer.
  return judge(runner, expected, 2000 * kMs, std::move(j));
}

// unlock retried after a lost reply: A holds the lock twice (hold count 2)
// and unlocks once at t=100 ms; the reply is delayed past A's 50 ms command
// timeout, so the unlock throws TimeoutError inside the lock and is sent
// again (unlock_retries 1). Without the latch the retry releases a second
// hold: A believes it holds 1, Redis says 0 (and the lock is free). With
// Redisson's unlock latch the retry returns the first attempt's result.
ScenarioResult run_unlock_retry(bool latch, Verdict expected, uint64_t seed) {
  WorldOptions options = scenario_options(seed);
  options.command_timeout_us = 50 * kMs;
  SimRunner runner(options);
  World& world = runner.world();
  lock::ReentrantLockOptions lock_options = reentrant_options();
  lock_options.unlock_retries = 1;
  lock_options.unlock_latch = latch;
  int64_t count_after_first = -1;
  ProcessId a = world.spawn_process("A", [lock_options, &count_after_first](ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey, lock_options);
    lock_recorded(env, lk);
    env.enter_critical(kKey);
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    lk.lock();
    env.record_hold(kKey, HoldOp::kLock, lk.hold_count());
    env.sleep_for(ms(100) - env.now());
    lk.unlock();  // its reply is delayed: TimeoutError, sent again
    count_after_first = lk.hold_count();
    env.record_hold(kKey, HoldOp::kUnlock, count_after_first);
    env.sleep_for(ms(20));
    env.leave_critical(kKey);
    if (lk.try_unlock()) {
      env.record_hold(kKey, HoldOp::kUnlock, lk.hold_count());
    } else {
      env.record("last unlock: LockNotOwned (the retry had released it)");
      env.record_hold(kKey, HoldOp::kUnlockRejected, lk.hold_count());
    }
  });
  // The unlock scripts are in the server's cache already (as after a first
  // use), so A's EVALSHA runs the unlock at once instead of answering NOSCRIPT.
  for (const char* name : {"reentrant_unlock", "reentrant_unlock_latch"}) {
    world.server().execute(*world.server().connect(),
                           {"SCRIPT", "LOAD", lock::Script::get(name).text()});
  }
  // The unlock runs at t=101 ms; its reply (sent then) arrives 100 ms late.
  world.delay_messages(a, 0, Micros(100500), ms(102), ms(100));
  world.run();
  Judged j;
  j.findings.push_back("hold count after one unlock of two holds: " +
                       std::to_string(count_after_first) + " (expected 1)");
  return judge(runner, expected, 200 * kMs, std::move(j), /*hold_counts=*/true);
}

// ---- Redlock over five servers (antirez's algorithm; Kleppmann's and
// antirez's 2016 exchange). Lease 1000 ms, so the drift allowance is
// 0.01 x 1000 + 2 = 12 ms; each server has 1 ms one-way latency and a 50 ms
// per-server timeout. A holder works only while validity_left() > 0 and then
// lets the lock expire (no unlock), so nothing but expiry frees its servers.
constexpr size_t kRedlockServers = 5;

lock::RedlockOptions redlock_options() {
  lock::RedlockOptions o;
  o.lease = milliseconds(1000);
  return o;
}

struct RedlockRun {
  int64_t a_entered_us = -1, a_left_us = -1, b_entered_us = -1;
  bool a_acquired = false;
};

// A: one attempt at t=0; inside while its validity lasts (at most `work`).
void redlock_holder(ProcessEnv& env, RedlockRun& run, Micros work) {
  lock::Redlock lk(env, kKey, redlock_options());
  env.record_acquire_start(kKey, Micros(0));
  run.a_acquired = lk.try_lock();
  env.record_acquire_end(kKey, run.a_acquired);
  env.record(run.a_acquired ? "acquired a quorum within the validity"
                            : "acquisition rejected (no quorum, or no validity left)");
  if (!run.a_acquired) return;
  env.enter_critical(kKey);
  run.a_entered_us = env.now().count();
  env.sleep_for(std::min(work, lk.validity_left()));
  run.a_left_us = env.now().count();
  env.leave_critical(kKey);
  env.record("validity over: left the section, the lock expires by itself");
}

// B: tries for 3 s from its start, then works 100 ms and unlocks.
void redlock_second(ProcessEnv& env, RedlockRun& run) {
  lock::Redlock lk(env, kKey, redlock_options());
  env.record_acquire_start(kKey, ms(3000));
  const bool ok = lk.try_lock_for(ms(3000));
  env.record_acquire_end(kKey, ok);
  if (!ok) return;
  env.enter_critical(kKey);
  run.b_entered_us = env.now().count();
  env.sleep_for(std::min(ms(100), lk.validity_left()));
  env.leave_critical(kKey);
  env.record(lk.try_unlock() ? "unlocked" : "unlock: LockNotOwned");
}

WorldOptions redlock_world(uint64_t seed) {
  WorldOptions o = scenario_options(seed);
  o.servers = kRedlockServers;
  return o;
}

// Kleppmann's split: A reaches servers 0, 1, 2 only (3 and 4 are cut off:
// a quorum of 3), B reaches 2, 3, 4 only; at t=100 ms `fault` strikes
// server 2 (a clock jump, a crash and restart); B starts at t=150 ms.
ScenarioResult run_redlock_split(Verdict expected, uint64_t seed,
                                 const std::function<void(World&)>& fault,
                                 const std::string& what) {
  SimRunner runner(redlock_world(seed));
  World& world = runner.world();
  RedlockRun run;
  ProcessId a = world.spawn_process(
      "A", [&run](ProcessEnv& env) { redlock_holder(env, run, Micros::max()); });
  ProcessId b = world.spawn_process(
      "B", [&run](ProcessEnv& env) { redlock_second(env, run); }, ms(150));
  world.partition(a, 3, Micros(0), ms(5000));
  world.partition(a, 4, Micros(0), ms(5000));
  world.partition(b, 0, Micros(0), ms(5000));
  world.partition(b, 1, Micros(0), ms(5000));
  fault(world);
  world.run();
  Judged j;
  if (!run.a_acquired) j.extra.push_back(expectation_failed("A did not get its quorum"));
  j.findings.push_back(what + "; A inside " + fmt_ms(run.a_entered_us) + " .. " +
                       fmt_ms(run.a_left_us) + " (its validity), B entered at " +
                       (run.b_entered_us < 0 ? std::string("never") : fmt_ms(run.b_entered_us)));
  return judge(runner, expected, 5000 * kMs, std::move(j));
}

ScenarioResult run_redlock_clock_jump(Verdict expected, uint64_t seed, int64_t jump_ms) {
  return run_redlock_split(
      expected, seed, [jump_ms](World& w) { w.jump_server_clock(2, ms(100), ms(jump_ms)); },
      "server 2's clock jumped " + std::to_string(jump_ms) +
          " ms forward at t=100 ms (drift allowance 12 ms)");
}

ScenarioResult run_redlock_restart(Verdict expected, uint64_t seed, int64_t down_ms) {
  return run_redlock_split(
      expected, seed,
      [down_ms](World& w) {
        w.crash_server(2, ms(100));
        w.restart_server(2, ms(100 + down_ms));
      },
      "server 2 crashed at t=100 ms (no persistence) and restarted empty " +
          std::to_string(down_ms) + " ms later");
}

// antirez's reply: A sends its first SET at t=0 and is paused from t=1.5 ms
// for 1100 ms, past the 1000 ms lease, while the reply is on its way; after
// the pause every server answers OK, but A measures the elapsed time on its
// own clock, finds no validity left, releases and fails. B (t=1300 ms) then
// takes the lock normally.
ScenarioResult run_redlock_paused_replies(Verdict expected, uint64_t seed) {
  SimRunner runner(redlock_world(seed));
  World& world = runner.world();
  RedlockRun run;
  ProcessId a = world.spawn_process(
      "A", [&run](ProcessEnv& env) { redlock_holder(env, run, Micros::max()); });
  world.spawn_process(
      "B", [&run](ProcessEnv& env) { redlock_second(env, run); }, ms(1300));
  world.pause_process(a, Micros(1500), ms(1100));
  world.run();
  Judged j;
  int oks = 0;
  for (const HistoryEvent& e : runner.history().events()) {
    if (e.kind == EventKind::kCommand && e.process == a && !e.argv.empty() && e.argv[0] == "SET" &&
        e.reply == "OK") {
      ++oks;
    }
  }
  j.findings.push_back("A's SETs answered OK: " + std::to_string(oks) + " of 5 (quorum 3); A " +
                       (run.a_acquired ? "kept the lock" : "rejected it: elapsed > lease") +
                       "; B entered at " +
                       (run.b_entered_us < 0 ? std::string("never") : fmt_ms(run.b_entered_us)));
  if (oks < 3) j.extra.push_back(expectation_failed("A did not get a quorum of OK replies"));
  if (run.a_acquired) j.extra.push_back(expectation_failed("A accepted a lock past its lease"));
  if (run.b_entered_us < 0) j.extra.push_back(expectation_failed("B never took the lock"));
  return judge(runner, expected, 5000 * kMs, std::move(j));
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
  add_fault("fair-skewed-clock", LockKind::kFair, Verdict::kExpectation,
            "FairLock: C's clock runs 10 s ahead; it sees B's place as expired and goes first",
            "Redisson RedissonFairLock (waiter timeouts on the caller's clock, threadWaitTime 5 s)",
            "C's process clock +10000 ms from the start", [](uint64_t seed) {
              return run_fair_skewed_clock(LockKind::kFair, Verdict::kExpectation, seed, 10000);
            });
  add_fault("fair-skewed-clock-small", LockKind::kFair, Verdict::kSafe,
            "FairLock: C's clock runs 3 s ahead, less than B's reservation: FIFO holds",
            "Redisson RedissonFairLock (waiter timeouts on the caller's clock, threadWaitTime 5 s)",
            "C's process clock +3000 ms from the start", [](uint64_t seed) {
              return run_fair_skewed_clock(LockKind::kFair, Verdict::kSafe, seed, 3000);
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

ScenarioResult run_scenario_real(const Scenario& scenario, ScenarioRunner& runner) {
  if (!scenario.run_on) {
    throw std::invalid_argument("scenario '" + scenario.name + "' needs an injected fault (" +
                                scenario.needs_fault + "); it runs only in the simulation");
  }
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

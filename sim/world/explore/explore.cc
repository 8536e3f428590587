#include "sim/world/explore/explore.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/fair_lock.h"
#include "lock/fenced_lock.h"
#include "lock/read_write_lock.h"
#include "lock/reentrant_lock.h"
#include "lock/spin_lock.h"
#include "sim/world/explore/explore_internal.h"
#include "sim/world/explore/zk_explore.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/prng.h"

namespace redsim::world {

namespace {

// What a workload throws when a nested unlock found its lock gone.
struct UnlockFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using lock::LockKind;
using std::chrono::milliseconds;

constexpr int64_t kMs = 1000;
// The FairLock's threadWaitTime in explored plans: as long as the lease, so a
// crashed waiter blocks the queue for about two leases, not Redisson's 5 s.
constexpr int64_t kFairThreadWaitMs = 1000;

bool is_string_kind(LockKind kind) { return !lock::is_reentrant_kind(kind); }

int64_t draw(Prng& rng, int64_t lo, int64_t hi) { return rng.uniform(lo, hi); }

std::unique_ptr<lock::DistributedLock> make_plan_lock(const ExplorePlan& plan, ProcessEnv& env) {
  if (lock::is_reentrant_kind(plan.kind)) {
    lock::ReentrantLockOptions options;
    options.lock_watchdog_timeout = milliseconds(plan.lease_ms);
    if (plan.kind == LockKind::kFenced) {
      return std::make_unique<lock::FencedLock>(env, kExploreKey, options);
    }
    if (plan.kind == LockKind::kFair) {
      return std::make_unique<lock::FairLock>(
          env, kExploreKey,
          lock::FairLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                                .thread_wait = milliseconds(kFairThreadWaitMs)});
    }
    if (plan.kind == LockKind::kReadWrite) {
      return std::make_unique<lock::WriteLock>(env, kExploreKey, options);
    }
    if (plan.kind == LockKind::kSpin) {
      return std::make_unique<lock::SpinLock>(env, kExploreKey, options);
    }
    return std::make_unique<lock::ReentrantLock>(env, kExploreKey, options);
  }
  lock::LockOptions options;
  options.lease = milliseconds(plan.lease_ms);
  options.retry_backoff_min = std::min(lock::Micros(1000), lock::Micros(plan.retry_backoff_max_us));
  options.retry_backoff_max = lock::Micros(plan.retry_backoff_max_us);
  return lock::make_lock(plan.kind, env, kExploreKey, options);
}

// Every reentrant kind is a ReentrantLock (FairLock, FencedLock and SpinLock included).
int64_t observed_hold_count(lock::DistributedLock& lk) {
  return static_cast<lock::ReentrantLock&>(lk).hold_count();
}

// One client process: its attempts in order, each recorded for the checkers.
// With a FencedLock, the work ends with a write of the token to `storage`.
void run_attempts(const ExplorePlan& plan, const std::vector<Attempt>& attempts, ProcessEnv& env,
                  FencedResource& storage, bool& inside) {
  auto lk = make_plan_lock(plan, env);
  const bool reentrant = lock::is_reentrant_kind(plan.kind);
  auto* fenced = dynamic_cast<lock::FencedLock*>(lk.get());
  const lock::Micros wait = milliseconds(plan.wait_ms);
  for (const Attempt& a : attempts) {
    env.sleep_for(lock::Micros(a.think_us));
    env.record_acquire_start(kExploreKey, wait);
    bool acquired = lk->try_lock_for(wait);
    env.record_acquire_end(kExploreKey, acquired);
    if (!acquired) continue;
    env.enter_critical(kExploreKey);
    inside = true;
    if (reentrant) env.record_hold(kExploreKey, HoldOp::kLock, observed_hold_count(*lk));
    for (int i = 0; i < a.nested; ++i) {
      lk->lock();
      env.record_hold(kExploreKey, HoldOp::kLock, observed_hold_count(*lk));
    }
    env.sleep_for(lock::Micros(a.work_us));
    if (fenced != nullptr) storage.write(env, fenced->token().value_or(0));
    for (int i = 0; i < a.nested; ++i) {
      // A nested unlock that finds the lock gone ends the task, as the
      // throwing unlock() of round one did: the history then shows the task
      // error instead of a hold count the model cannot explain.
      if (lock::UnlockResult r = lk->release(); !r) throw UnlockFailed(r.error().message);
      env.record_hold(kExploreKey, HoldOp::kUnlock, observed_hold_count(*lk));
    }
    env.leave_critical(kExploreKey);
    inside = false;
    if (lk->release()) {
      if (reentrant) env.record_hold(kExploreKey, HoldOp::kUnlock, observed_hold_count(*lk));
    } else {
      env.record("unlock: the lock was no longer ours (not held)");
      if (reentrant) env.record_hold(kExploreKey, HoldOp::kUnlockRejected, -1);
    }
  }
}

// Under explicit faults a call may fail with a ConnectionError (or a reply
// cut short by a server crash); the client then stops: its sections end and
// its process ends, which resets its hold counts for the checkers.
void run_client(const ExplorePlan& plan, const std::vector<Attempt>& attempts, ProcessEnv& env,
                FencedResource& storage) {
  bool inside = false;
  try {
    run_attempts(plan, attempts, env, storage, inside);
  } catch (const lock::ClosedError&) {
    throw;  // the process is gone
  } catch (const lock::Error& e) {
    if (!plan.fault_set) throw;  // the plain world has no such faults: a bug
    if (inside) env.leave_critical(kExploreKey);
    env.record(std::string("client stops after an error: ") + e.what());
  }
}

}  // namespace

FaultSet parse_fault_set(std::string_view list) {
  FaultSet set;
  bool* fields[] = {&set.pause, &set.latency, &set.loss,     &set.lost_reply, &set.partition,
                    &set.crash, &set.restart, &set.failover, &set.clock};
  std::string all;
  for (std::string_view n : kFaultNames) all += (all.empty() ? "" : ", ") + std::string(n);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view word = list.substr(start, comma - start);
    size_t i = 0;
    while (i < kFaultNames.size() && kFaultNames[i] != word) ++i;
    if (i == kFaultNames.size()) {
      throw std::invalid_argument("unknown fault '" + std::string(word) + "'; one of " + all);
    }
    *fields[i] = true;
    start = comma + 1;
  }
  return set;
}

std::string fault_set_name(const FaultSet& f) {
  const bool on[] = {f.pause, f.latency, f.loss,     f.lost_reply, f.partition,
                     f.crash, f.restart, f.failover, f.clock};
  std::string out;
  for (size_t i = 0; i < kFaultNames.size(); ++i) {
    if (on[i]) out += (out.empty() ? "" : ",") + std::string(kFaultNames[i]);
  }
  return out;
}

namespace {

// The faults of `f` drawn from `rng` (see draw_faults). The unbounded draws
// are `redsim check --faults`'s, in their historical order, so its seeds
// replay as before; the budgeted ones scale the same draws down.
void draw_faults_from(Prng& rng, ExplorePlan& plan, const FaultSet& f, FaultMode mode,
                      int64_t lease_us) {
  const bool budget = mode == FaultMode::kBudgeted;
  FaultPlan& fp = plan.faults;
  fp = FaultPlan{};
  plan.fault_set = f;
  plan.fault_mode = mode;
  plan.command_timeout.reset();
  plan.replicas = 0;
  plan.replication_lag_max_us = 0;
  plan.persistence = Persistence::kNone;
  if (f.latency) {
    fp.latency_distribution =
        rng.chance(500000) ? LatencyDistribution::kUniform : LatencyDistribution::kLongTail;
    fp.latency_min = Micros{0};
    const int64_t tenths = draw(rng, 1, 10);
    fp.latency_max = Micros{budget ? tenths * lease_us / 200 : tenths * kMs};
    fp.latency_tail_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 300000)));
    fp.latency_tail_max = Micros{budget ? lease_us / 20 : lease_us};
  }
  if (f.pause) {
    fp.pause_ppm = Ppm(static_cast<uint32_t>(draw(rng, 20000, 400000)));
    fp.pause_min = Micros{budget ? std::max<int64_t>(1, lease_us / 100) : 1 * kMs};
    fp.pause_max = Micros{budget ? lease_us / 5 : 3 * lease_us};
  }
  if (f.loss) {
    fp.loss_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 50000)));
    fp.loss_executed_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 1000000)));
  }
  if (f.lost_reply) fp.lost_reply_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 50000)));
  if (f.partition) {
    fp.partition_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 30000)));
    fp.partition_min = Micros{budget ? std::max<int64_t>(1, lease_us / 100) : 1 * kMs};
    fp.partition_max = Micros{budget ? lease_us / 5 : 2 * lease_us};
  }
  if (f.crash) {
    fp.crash_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 30000)));
    fp.restart_ppm = Ppm(500000);
    fp.restart_min = Micros{1 * kMs};
    fp.restart_max = Micros{lease_us};
  }
  if (f.restart) {
    fp.server_crash_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 20000)));
    fp.server_down_min = Micros{1 * kMs};
    fp.server_down_max = Micros{budget ? std::max<int64_t>(kMs, lease_us / 5) : lease_us};
    const int64_t p = draw(rng, 0, 2);
    // Budgeted: every acknowledged write survives (appendfsync always).
    plan.persistence = budget   ? Persistence::kAofAlways
                       : p == 0 ? Persistence::kNone
                       : p == 1 ? Persistence::kAofEverysec
                                : Persistence::kAofAlways;
  }
  if (f.failover && !budget) {
    // Asynchronous replication loses acknowledged writes at any lag: no
    // budget keeps a single-instance lock safe across a failover, so the
    // budgeted profile draws none (the unbounded one does).
    plan.replicas = 1;
    plan.replication_lag_max_us = draw(rng, 1, 20) * kMs;
    fp.failover_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 20000)));
  }
  if (f.clock) {
    if (budget) {
      // Drift well inside Redlock's 1% allowance; no jumps.
      fp.clock_drift_ppm_max = draw(rng, 0, 1000);
    } else {
      fp.clock_drift_ppm_max = draw(rng, 0, 100000);
      fp.clock_jump_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 20000)));
      fp.server_clock_jump_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 20000)));
      fp.clock_jump_max = Micros{lease_us};
    }
  }
  // A call that may never be answered needs a timeout (shorter than the lease).
  if (f.loss || f.lost_reply || f.partition || f.restart || (f.failover && !budget)) {
    plan.command_timeout = Micros{budget ? lease_us / 10 : lease_us / 4};
  }
  // Drawn after every other fault: the unbounded draws above keep their
  // historical order, so `redsim check --faults` seeds replay as before.
  if (f.pause) fp.task_pause_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 200000)));
  if (budget) {
    fp.stall_budget = Micros{lease_us / 5};
    fp.stall_budget_window = Micros{lease_us};
  }
}

// The explicit faults of a plan, drawn from their own stream.
void apply_fault_set(ExplorePlan& plan, const FaultSet& f) {
  if (plan.kind == LockKind::kRedlock || plan.kind == LockKind::kNodeRedlock) plan.servers = 5;
  // Unbounded faults overlap any lease-based lock's holders: judged are the
  // foreign writes, and the token order for the fenced kind.
  plan.checks = plan.kind == LockKind::kFenced ? kCheckFencing | kCheckForeignWrites
                                               : kCheckMutualExclusion | kCheckHoldCounts |
                                                     kCheckFencing | kCheckForeignWrites;
  Prng rng = Prng(plan.seed).fork("explore-faults");
  draw_faults_from(rng, plan, f, FaultMode::kUnbounded, plan.lease_ms * kMs);
}

}  // namespace

void draw_faults(ExplorePlan& plan, const FaultSet& set, FaultMode mode, int64_t lease_us,
                 uint64_t seed) {
  Prng rng = Prng(seed).fork("faults");
  draw_faults_from(rng, plan, set, mode, lease_us);
}

ExplorePlan generate_plan(LockKind kind, uint64_t seed, int clients,
                          std::optional<FaultSet> faults) {
  Prng rng = Prng(seed).fork("explore-plan");
  ExplorePlan plan;
  plan.kind = kind;
  plan.seed = seed;
  // Budget for the string kinds: reply latency + work + one pause < lease
  // (3 + 60 + 30 < 100 ms): the critical section makes one blocking call (the
  // work), so at most one pause lands inside it, and a live holder is always
  // inside its lease.
  // Reentrant: every blocking call of both tasks (the nested lock() and
  // hold_count() calls, the work, the watchdog's wait and renewal) may draw a
  // pause, and pauses chain. Between two renewals (lease/3 = 333 ms apart)
  // at most ~8 such calls fall, so 8 x 75 ms + 333 ms + latencies stays below
  // the 1000 ms lease: a live holder's lease never runs out.
  const bool string_kind = is_string_kind(kind);
  plan.lease_ms = string_kind ? 100 : 1000;
  plan.wait_ms = string_kind ? 2000 : 4000;
  plan.retry_backoff_max_us = 2 * kMs;
  const int64_t work_max_us = string_kind ? 50 * kMs : 1500 * kMs;
  plan.faults.latency_min = Micros{0};
  plan.faults.latency_max = Micros{draw(rng, 0, string_kind ? 10 : 3) * kMs};
  plan.faults.pause_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 400000)));
  plan.faults.pause_min = Micros{1 * kMs};
  plan.faults.pause_max = Micros{string_kind ? 30 * kMs : 75 * kMs};
  plan.faults.crash_ppm = Ppm(static_cast<uint32_t>(draw(rng, 0, 30000)));
  int n = clients > 0 ? clients : static_cast<int>(draw(rng, 2, 8));
  plan.clients.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < plan.clients.size(); ++i) {
    plan.clients[i].stream = i + 1;
    plan.clients[i].attempts.resize(static_cast<size_t>(draw(rng, 1, 4)));
    for (Attempt& a : plan.clients[i].attempts) {
      a.think_us = draw(rng, 0, 50) * kMs;
      a.work_us = draw(rng, 0, work_max_us / kMs) * kMs;
      a.nested = lock::is_reentrant_kind(kind) ? static_cast<int>(draw(rng, 0, 2)) : 0;
    }
  }
  if (faults) apply_fault_set(plan, *faults);
  return plan;
}

namespace {

// The single-instance string kinds whose budget is "reply latency + work +
// one pause < lease" (generate_plan's). In a small world their pause
// length and lease are set from the plan (tighten_small_lease), so that the
// budget still holds while a holder's release can land on its contender's
// key. Redlock's validity margin and the reentrant kinds' watchdog have
// budgets of their own and keep generate_plan's figures.
bool has_tight_small_lease(LockKind kind) {
  return kind == LockKind::kSimple || kind == LockKind::kGetDel || kind == LockKind::kBlindDel ||
         kind == LockKind::kSetnxExpire;
}

// The pause length P and lease L of a small world of a string kind.
// Sound: L = longest reply latency + longest work + P + 1 ms, so a holder
// whose one blocking call inside its section (the work) pauses for P still
// leaves before its key expires: a correct lock is never flagged.
// Failing by construction: in the default schedule (every latency at its
// 1 us minimum) the first holder A takes the lock at its think time and
// the next client B polls (or arrives) for it. A paused at its work and
// again at its release (the exhaustive search's stall burst, two
// deviations) sends its release 2P after its work began; P is the
// shortest length that makes that release reach the server after B's SET
// could follow the lease's end (a backoff of retry_backoff_max later) and
// at least 1 ms before B's own release, so get-del's GET (before the
// second pause, inside the lease) and blind-del's DEL delete B's key. When
// no P fits (B's work under about 3 ms), P covers the longest work instead:
// the two pauses then still outlive the lease, and a later hold may land.
void tighten_small_lease(ExplorePlan& plan) {
  int64_t work_max = 0;
  for (const ClientPlan& c : plan.clients) {
    for (const Attempt& a : c.attempts) work_max = std::max(work_max, a.work_us);
  }
  const int64_t latency_max = plan.faults.latency_max.count();
  const int64_t backoff = plan.retry_backoff_max_us;
  auto lease_for = [&](int64_t pause) { return latency_max + work_max + pause + kMs; };
  std::vector<const ClientPlan*> order;
  for (const ClientPlan& c : plan.clients) {
    if (!c.attempts.empty()) order.push_back(&c);
  }
  std::stable_sort(order.begin(), order.end(), [](const ClientPlan* x, const ClientPlan* y) {
    return x->attempts[0].think_us < y->attempts[0].think_us;
  });
  int64_t pause = std::max<int64_t>(plan.faults.pause_max.count(),
                                    work_max + 3 * latency_max + backoff + 2 * kMs);
  if (order.size() >= 2) {
    const Attempt& a = order[0]->attempts[0];
    const Attempt& b = order[1]->attempts[0];
    for (int64_t p = kMs; p <= 4 * lease_for(0); p += kMs / 4) {
      const int64_t expiry = a.think_us + (lease_for(p) + kMs - 1) / kMs * kMs;
      const bool polling = b.think_us < expiry;
      const int64_t b_first = polling ? expiry : b.think_us;
      const int64_t b_last = polling ? expiry + backoff : b.think_us;
      const int64_t release = a.think_us + a.work_us + 2 * p;
      if (release > b_last + kMs && release + kMs < b_first + b.work_us) {
        pause = p;
        break;
      }
    }
  }
  plan.faults.pause_max = Micros{pause};
  plan.faults.pause_min = std::min(plan.faults.pause_min, plan.faults.pause_max);
  plan.lease_ms = (lease_for(pause) + kMs - 1) / kMs;
}

}  // namespace

ExplorePlan generate_small_plan(LockKind kind, uint64_t seed, int clients, int attempts) {
  if (clients < 1 || clients > 3 || attempts < 1 || attempts > 2) {
    throw std::invalid_argument("exhaustive worlds are 1..3 clients x 1..2 attempts");
  }
  ExplorePlan plan = generate_plan(kind, seed, clients);
  // Every message takes at least a microsecond (exhaustive.h, "Ties that
  // need no choice"): a reply no longer ties with the events of the
  // microsecond its request was sent in.
  apply_small_world_latency(plan.faults);
  for (ClientPlan& c : plan.clients) {
    if (c.attempts.size() > static_cast<size_t>(attempts)) {
      c.attempts.resize(static_cast<size_t>(attempts));
    }
  }
  if (has_tight_small_lease(kind)) tighten_small_lease(plan);
  return plan;
}

int64_t liveness_bound_us(const ExplorePlan& plan) {
  // A lock whose holder crashed or paused outside its section frees when the
  // lease ends; a waiter then needs one backoff sleep (or one pub/sub
  // message) and a few round trips.
  int64_t bound = plan.lease_ms * kMs + plan.retry_backoff_max_us + plan.faults.pause_max.count() +
                  8 * plan.faults.latency_max.count() + 20 * kMs;
  // ReadWriteLock's write half: each nested re-entry sets PTTL + lease
  // (RedissonWriteLock, the fix of redisson#1110), so a holder that crashes
  // inside its deepest nesting leaves a lock that lives that many leases more.
  if (plan.kind == LockKind::kReadWrite) {
    int nested_max = 0;
    for (const ClientPlan& c : plan.clients) {
      for (const Attempt& a : c.attempts) nested_max = std::max(nested_max, a.nested);
    }
    bound += nested_max * plan.lease_ms * kMs;
  }
  // FairLock: each crashed waiter ahead keeps its place (one threadWaitTime
  // past the one before it) until someone's attempt finds it expired.
  if (plan.kind == LockKind::kFair) {
    bound += static_cast<int64_t>(plan.clients.size() + 1) * kFairThreadWaitMs * kMs;
  }
  return bound;
}

uint64_t pct_steps(const ExplorePlan& plan) {
  uint64_t steps = 0;
  for (const ClientPlan& c : plan.clients) {
    steps += 8 * c.attempts.size() * static_cast<uint64_t>(std::max(c.tasks, 1));
  }
  return std::max<uint64_t>(steps, 8);
}

ExploreOutcome run_clients(World& world, const ExplorePlan& plan,
                           const std::function<void(const ClientPlan&, ProcessEnv&)>& body) {
  for (size_t i = 0; i < plan.clients.size(); ++i) {
    const ClientPlan* client = &plan.clients[i];
    world.spawn_process(
        "client" + std::to_string(i + 1), [client, body](ProcessEnv& env) { body(*client, env); },
        Micros(0), client->stream);
  }
  const World::RunEnd end = world.run();
  ExploreOutcome out;
  out.history = world.history();
  out.choices = world.choice_points();
  out.pruned = end == World::RunEnd::kPruned;
  return out;
}

void add_violations(ExploreOutcome* out, const std::vector<Violation>& found) {
  out->violations.insert(out->violations.end(), found.begin(), found.end());
}

ExploreOutcome run_plan(const ExplorePlan& plan) {
  if (plan.zk) return run_zk_plan(plan);
  WorldOptions options;
  options.seed = plan.seed;
  options.strategy = plan.strategy;
  // The fenced storage is memory the clients share outside the world: its
  // writes do not commute, so no reduction (exhaustive.h).
  if (plan.kind == LockKind::kFenced) options.strategy.reduce = false;
  // The ReentrantLock family's tasks (one lock task and its watchdogs) share
  // memory only next to an Event signal or a task's start or end, so their
  // runs commute otherwise (exhaustive.h, case 5).
  options.strategy.task_runs_commute =
      lock::is_reentrant_kind(plan.kind) &&
      std::all_of(plan.clients.begin(), plan.clients.end(),
                  [](const ClientPlan& c) { return c.tasks <= 1; });
  options.pct_steps = pct_steps(plan);
  options.faults = plan.faults;
  options.time_limit_us = int64_t{600} * 1000 * kMs;
  options.command_timeout = plan.command_timeout;
  options.replicas = plan.replicas;
  options.replication_lag_max_us = plan.replication_lag_max_us;
  options.persistence = plan.persistence;
  options.servers = plan.servers;
  World world(options);
  FencedResource storage(kExploreKey);
  ExploreOutcome out =
      run_clients(world, plan, [&plan, &storage](const ClientPlan& client, ProcessEnv& env) {
        run_client(plan, client.attempts, env, storage);
      });
  if (out.pruned) return out;  // a redundant schedule: not judged
  // Counted from the history: a server may be down (or replaced) at the end.
  for (const HistoryEvent& e : out.history.events()) out.commands += e.kind == EventKind::kCommand;
  auto add = [&out](const std::vector<Violation>& v) { add_violations(&out, v); };
  if (plan.checks & kCheckMutualExclusion) add(check_mutual_exclusion(out.history));
  if (plan.checks & kCheckLiveness) add(check_liveness(out.history, liveness_bound_us(plan)));
  if ((plan.checks & kCheckHoldCounts) && lock::is_reentrant_kind(plan.kind)) {
    add(check_hold_counts(out.history));
  }
  if ((plan.checks & kCheckFencing) && plan.kind == LockKind::kFenced) {
    add(check_fencing(out.history));
  }
  if (plan.checks & kCheckForeignWrites) add(check_foreign_writes(out.history));
  if (plan.checks & kCheckHeldPastLease) add(check_held_past_lease(out.history));
  return out;
}

ExplorePlan shrink_plan(const ExplorePlan& plan,
                        const std::function<bool(const ExplorePlan&)>& fails, int max_runs) {
  ExplorePlan best = plan;
  int runs = 0;
  auto try_candidate = [&](const ExplorePlan& candidate) {
    if (runs >= max_runs) return false;
    ++runs;
    if (!fails(candidate)) return false;
    best = candidate;
    return true;
  };
  bool progress = true;
  while (progress && runs < max_runs) {
    progress = false;
    // Fewer clients, then fewer attempts per client.
    for (size_t c = 0; c < best.clients.size() && best.clients.size() > 1;) {
      ExplorePlan cand = best;
      cand.clients.erase(cand.clients.begin() + static_cast<std::ptrdiff_t>(c));
      if (try_candidate(cand)) {
        progress = true;
      } else {
        ++c;
      }
    }
    for (size_t c = 0; c < best.clients.size(); ++c) {
      for (size_t a = 0;
           a < best.clients[c].attempts.size() && best.clients[c].attempts.size() > 1;) {
        ExplorePlan cand = best;
        auto& attempts = cand.clients[c].attempts;
        attempts.erase(attempts.begin() + static_cast<std::ptrdiff_t>(a));
        if (try_candidate(cand)) {
          progress = true;
        } else {
          ++a;
        }
      }
    }
    // Faults off one at a time, then simpler attempts.
    auto try_field = [&](auto mutate) {
      ExplorePlan cand = best;
      if (!mutate(cand)) return;
      if (try_candidate(cand)) progress = true;
    };
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.crash_ppm, Ppm()) != Ppm(); });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.pause_ppm, Ppm()) != Ppm(); });
    try_field(
        [](ExplorePlan& p) { return std::exchange(p.faults.latency_max, Micros{0}) != Micros{0}; });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.loss_ppm, Ppm()) != Ppm(); });
    try_field(
        [](ExplorePlan& p) { return std::exchange(p.faults.lost_reply_ppm, Ppm()) != Ppm(); });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.partition_ppm, Ppm()) != Ppm(); });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.restart_ppm, Ppm()) != Ppm(); });
    try_field(
        [](ExplorePlan& p) { return std::exchange(p.faults.server_crash_ppm, Ppm()) != Ppm(); });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.failover_ppm, Ppm()) != Ppm(); });
    try_field(
        [](ExplorePlan& p) { return std::exchange(p.faults.clock_jump_ppm, Ppm()) != Ppm(); });
    try_field([](ExplorePlan& p) {
      return std::exchange(p.faults.server_clock_jump_ppm, Ppm()) != Ppm();
    });
    try_field([](ExplorePlan& p) { return std::exchange(p.faults.clock_drift_ppm_max, 0) != 0; });
    // An exhaustive schedule: each non-default option back to the default.
    for (size_t i = 0; i < best.strategy.schedule.size(); ++i) {
      try_field([i](ExplorePlan& p) {
        std::vector<uint32_t>& s = p.strategy.schedule;
        if (i >= s.size() || s[i] == 0) return false;
        s[i] = 0;
        while (!s.empty() && s.back() == 0) s.pop_back();
        return true;
      });
    }
    for (size_t c = 0; c < best.clients.size(); ++c) {
      for (size_t a = 0; a < best.clients[c].attempts.size(); ++a) {
        auto attempt = [c, a](ExplorePlan& p) -> Attempt& { return p.clients[c].attempts[a]; };
        try_field([&](ExplorePlan& p) { return std::exchange(attempt(p).nested, 0) != 0; });
        try_field([&](ExplorePlan& p) { return std::exchange(attempt(p).think_us, 0) != 0; });
        // Round work times down to whole 5 ms steps: easier to read, often still failing.
        try_field([&](ExplorePlan& p) {
          int64_t& w = attempt(p).work_us;
          int64_t rounded = w / (5 * kMs) * (5 * kMs);
          return std::exchange(w, rounded) != rounded;
        });
      }
    }
  }
  return best;
}

std::string describe_plan(const ExplorePlan& plan) {
  std::ostringstream out;
  if (plan.zk) {
    out << "lock " << zk_lock_kind_name(*plan.zk) << ", seed " << plan.seed << ", session timeout "
        << plan.lease_ms << " ms, wait " << plan.wait_ms << " ms\n";
  } else {
    out << "lock " << lock::lock_kind_name(plan.kind) << ", seed " << plan.seed << ", lease "
        << plan.lease_ms << " ms, wait " << plan.wait_ms << " ms\n";
  }
  out << "faults: latency " << plan.faults.latency_min.count() / 1000.0 << ".."
      << plan.faults.latency_max.count() / 1000.0 << " ms, pause " << plan.faults.pause_ppm
      << " ppm per blocking call (" << plan.faults.pause_min.count() / 1000.0 << ".."
      << plan.faults.pause_max.count() / 1000.0 << " ms), crash " << plan.faults.crash_ppm
      << " ppm\n";
  if (plan.strategy.depth > 0) {
    out << "strategy: " << strategy_name(plan.strategy) << " (k = " << pct_steps(plan)
        << " steps)\n";
  }
  if (plan.strategy.exhaustive()) {
    const std::string schedule = format_schedule(plan.strategy.schedule, plan.strategy.narrow);
    out << "strategy: exhaustive, bound " << plan.strategy.bound << ", schedule "
        << (schedule.empty() ? "all defaults" : schedule) << "\n";
  }
  if (plan.fault_set) {
    const FaultPlan& f = plan.faults;
    out << "explicit faults: " << fault_set_name(*plan.fault_set)
        << (plan.fault_mode == FaultMode::kBudgeted ? " (budgeted)" : "") << "\n";
    if (f.task_pause_ppm) {
      out << "  task pause " << f.task_pause_ppm << " ppm per blocking call\n";
    }
    if (f.stall_budget) {
      out << "  stall budget " << f.stall_budget->count() / 1000.0 << " ms per "
          << f.stall_budget_window.count() / 1000.0 << " ms\n";
    }
    if (f.delay_ppm) {
      out << "  delay " << f.delay_ppm << " ppm per message (" << f.delay_min.count() / 1000.0
          << ".." << f.delay_max.count() / 1000.0 << " ms)\n";
    }
    if (plan.servers > 1) out << "  servers " << plan.servers << "\n";
    if (f.loss_ppm) out << "  loss " << f.loss_ppm << " ppm per command\n";
    if (f.lost_reply_ppm) out << "  lost reply " << f.lost_reply_ppm << " ppm per command\n";
    if (f.partition_ppm) {
      out << "  partition " << f.partition_ppm << " ppm per blocking call (up to "
          << f.partition_max.count() / 1000.0 << " ms)\n";
    }
    if (f.restart_ppm) out << "  crashed clients restart: " << f.restart_ppm << " ppm\n";
    if (f.server_crash_ppm) {
      out << "  server crash " << f.server_crash_ppm << " ppm per command, persistence "
          << (plan.persistence == Persistence::kNone          ? "none"
              : plan.persistence == Persistence::kAofEverysec ? "aof everysec"
                                                              : "aof always")
          << "\n";
    }
    if (f.failover_ppm) {
      out << "  failover " << f.failover_ppm << " ppm per command, replication lag up to "
          << plan.replication_lag_max_us / 1000.0 << " ms\n";
    }
    if (f.clock_drift_ppm_max || f.clock_jump_ppm || f.server_clock_jump_ppm) {
      out << "  clocks: drift up to " << f.clock_drift_ppm_max << " ppm, jumps " << f.clock_jump_ppm
          << " ppm (process) / " << f.server_clock_jump_ppm << " ppm (server) of up to "
          << f.clock_jump_max.count() / 1000.0 << " ms\n";
    }
    if (plan.command_timeout) {
      out << "  command timeout " << plan.command_timeout->count() / 1000.0 << " ms\n";
    }
  }
  for (size_t c = 0; c < plan.clients.size(); ++c) {
    out << "client" << c + 1 << " (stream " << plan.clients[c].stream << "):";
    for (const Attempt& a : plan.clients[c].attempts) {
      out << " [think " << a.think_us / 1000.0 << " ms, work " << a.work_us / 1000.0 << " ms";
      if (a.nested) out << ", nested " << a.nested;
      out << "]";
    }
    out << "\n";
  }
  return out.str();
}

int64_t find_expire_then_delete(const History& history, const std::string& key) {
  ProcessId holder = 0;                       // who set the key's current value
  std::map<ProcessId, std::string> token_of;  // each process's last token
  std::map<ProcessId, bool> saw_own_value;    // its last GET returned its own token
  for (size_t i = 0; i < history.size(); ++i) {
    const HistoryEvent& e = history[i];
    if (e.kind != EventKind::kCommand || e.argv.size() < 2 || e.argv[1] != key) continue;
    std::string name = e.argv[0];
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    const bool ok = e.reply.is_status() && e.reply.str() == "OK";
    const bool one = e.reply.is_integer() && e.reply.integer() == 1;
    if ((name == "SET" && ok && e.argv.size() >= 3) || (name == "SETNX" && one)) {
      holder = e.process;
      token_of[e.process] = e.argv[2];
    } else if (name == "GET") {
      auto it = token_of.find(e.process);
      saw_own_value[e.process] = it != token_of.end() && e.reply == resp::Reply::bulk(it->second);
    } else if (name == "DEL" && one) {
      if (holder != 0 && holder != e.process && saw_own_value[e.process]) {
        return static_cast<int64_t>(i);
      }
      holder = 0;
    }
  }
  return -1;
}

}  // namespace redsim::world

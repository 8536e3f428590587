#include "tools/cli/script_lock_check.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "lock/errors.h"
#include "lock/script_lock.h"
#include "sim/world/testing/harness.h"

namespace redsim::cli {

namespace {

using Micros = std::chrono::microseconds;

// generate_plan's lease for the string kinds, which its ranges are drawn for.
constexpr int64_t kPlanLeaseMs = 100;

// What the harness drives: a ScriptLock. A transport failure while
// acquiring is the lock saying "outcome unknown" (lock::ConnectionError):
// the harness records it, and the client goes on with its next attempt; its
// key, if the script ran, is explained until its lease ends. An unlock
// reports its outcome (false, or the error) for the history.
class CheckedScriptLock {
 public:
  CheckedScriptLock(lock::Env& env, const std::string& key,
                    std::shared_ptr<const lock::ScriptLockSpec> spec)
      : lock_(env, key, std::move(spec)) {}

  bool try_lock_for(Micros wait) { return lock_.try_lock_for(wait); }

  bool unlock() {
    lock_.unlock();
    const auto& result = lock_.last_unlock();
    if (result.outcome == lock::ScriptLock::UnlockOutcome::kFailed) {
      throw lock::IoError(result.error);  // the harness records it with the unlock
    }
    return result.outcome == lock::ScriptLock::UnlockOutcome::kReleased;
  }

 private:
  lock::ScriptLock lock_;
};

}  // namespace

world::ExplorePlan script_lock_plan(const ScriptLockManifest& manifest, uint64_t seed, int clients,
                                    std::optional<world::FaultSet> faults) {
  // The clients and attempts of a string kind's plan, in the manifest's lease.
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kSimple, seed, clients);
  const int64_t lease_ms = manifest.spec->lease.count();
  // Without --faults: the budgeted profile (every live holder stays inside
  // its lease, so a correct lock is never flagged) with the plain plan's
  // faults (pauses, latency, crashes); work then stays within 0.4 lease.
  // With --faults: exactly those, unbounded, as for --lock KIND.
  const bool budgeted = !faults;
  for (world::ClientPlan& c : plan.clients) {
    for (world::Attempt& a : c.attempts) {
      a.think_us = a.think_us * lease_ms / kPlanLeaseMs;
      a.work_us = a.work_us * lease_ms / kPlanLeaseMs * (budgeted ? 4 : 5) / 5;
    }
  }
  world::FaultSet set;
  if (faults) {
    set = *faults;
  } else {
    set.pause = set.latency = set.crash = true;
  }
  world::draw_faults(plan, set,
                     budgeted ? world::FaultMode::kBudgeted : world::FaultMode::kUnbounded,
                     lease_ms * 1000, seed);
  plan.lease_ms = lease_ms;
  plan.wait_ms = manifest.attempt_wait.count();
  plan.retry_backoff_max_us = std::chrono::duration_cast<Micros>(manifest.retry_max).count();
  return plan;
}

world::ExploreOutcome run_script_lock_plan(const ScriptLockManifest& manifest,
                                           const world::ExplorePlan& plan) {
  auto make = harness::lock_factory([spec = manifest.spec](lock::Env& env, const std::string& key) {
    return CheckedScriptLock(env, key, spec);
  });
  harness::RunResult r = harness::run_plan(plan, make, world::kExploreKey);
  world::ExploreOutcome out;
  // The checks of the plan's profile (harness::default_checks): everything
  // for the budgeted one, and under explicit (unbounded) faults what a lock
  // does beyond lease expiry: foreign writes, ghost locks, task errors.
  out.violations = std::move(r.violations);
  out.history = std::move(r.history);
  for (const world::HistoryEvent& e : out.history.events()) {
    out.commands += e.kind == world::EventKind::kCommand;
  }
  return out;
}

}  // namespace redsim::cli

#include "tools/cli/script_lock_check.h"

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

// What the harness drives: a ScriptLock whose transport failures while
// acquiring read as "not acquired" (the client goes on with its next
// attempt, as an application retrying would), and whose unlock reports
// its outcome (false, or the error) for the history.
class CheckedScriptLock {
 public:
  CheckedScriptLock(lock::Env& env, const std::string& key,
                    std::shared_ptr<const lock::ScriptLockSpec> spec)
      : env_(env), lock_(env, key, std::move(spec)) {}

  bool try_lock_for(Micros wait) {
    try {
      return lock_.try_lock_for(wait);
    } catch (const lock::ClosedError&) {
      throw;  // the process is gone
    } catch (const lock::ConnectionError& e) {
      env_.trace(std::string("acquire failed, counted as not acquired: ") + e.what());
      return false;
    }
  }

  bool unlock() {
    lock_.unlock();
    const auto& result = lock_.last_unlock();
    if (result.outcome == lock::ScriptLock::UnlockOutcome::kFailed) {
      throw lock::Error(result.error);  // the harness records it with the unlock
    }
    return result.outcome == lock::ScriptLock::UnlockOutcome::kReleased;
  }

 private:
  lock::Env& env_;
  lock::ScriptLock lock_;
};

}  // namespace

world::ExplorePlan script_lock_plan(const ScriptLockManifest& manifest, uint64_t seed, int clients,
                                    std::optional<world::FaultSet> faults) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kSimple, seed, clients, faults);
  const int64_t lease_ms = manifest.spec->lease.count();
  auto scale = [lease_ms](int64_t& us) { us = us * lease_ms / kPlanLeaseMs; };
  auto scale_down = [&](int64_t& us) {
    if (lease_ms < kPlanLeaseMs) scale(us);
  };
  for (world::ClientPlan& c : plan.clients) {
    for (world::Attempt& a : c.attempts) {
      scale(a.think_us);
      scale(a.work_us);
    }
  }
  world::FaultPlan& f = plan.faults;
  scale_down(f.latency_min_us);
  scale_down(f.latency_max_us);
  for (int64_t* us :
       {&f.latency_tail_max_us, &f.delay_min_us, &f.delay_max_us, &f.partition_min_us,
        &f.partition_max_us, &f.pause_min_us, &f.pause_max_us, &f.restart_min_us, &f.restart_max_us,
        &f.clock_jump_max_us, &f.server_down_min_us, &f.server_down_max_us}) {
    scale(*us);
  }
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
  // The checks the plan asks for, as world::run_plan honours them for a
  // kind: under explicit faults liveness is not judged (a lost reply's
  // acquisition holds the key for a lease with nobody inside).
  for (world::Violation& v : r.violations) {
    if (v.checker == "liveness" && !(plan.checks & world::kCheckLiveness)) continue;
    if (v.checker == "mutual-exclusion" && !(plan.checks & world::kCheckMutualExclusion)) continue;
    out.violations.push_back(std::move(v));
  }
  out.history = std::move(r.history);
  for (const world::HistoryEvent& e : out.history.events()) {
    out.commands += e.kind == world::EventKind::kCommand;
  }
  return out;
}

}  // namespace redsim::cli

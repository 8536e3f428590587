// Properties of the locks, explored in the deterministic world (issue 2, §6).
// Each RapidCheck failure prints the shrunk plan and RapidCheck's reproduce
// string; a plan's own seed replays with `redsim check --lock KIND --seed N`
// only for plans generate_plan made, so the plan is printed in full.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/reentrant_lock.h"
#include "props/plan_gen.h"
#include "props/world_gen.h"
#include "sim/world/explore/explore.h"
#include "sim/world/world.h"

namespace redsim::props {
namespace {

using lock::LockKind;
using std::chrono::milliseconds;
using world::ExplorePlan;
using world::Micros;

std::vector<world::Violation> only(const std::vector<world::Violation>& all,
                                   std::string_view checker) {
  std::vector<world::Violation> out;
  for (const auto& v : all) {
    if (v.checker == checker) out.push_back(v);
  }
  return out;
}

void assert_mutual_exclusion(LockKind kind) {
  const ExplorePlan plan = *gen_plan(kind);
  const auto v = only(world::run_plan(plan).violations, "mutual-exclusion");
  if (!v.empty()) RC_FAIL(world::describe_plan(plan) + world::format_violations(v));
}

// Random clients (2-8), work, latencies, crashes and pauses that stay below
// the lease: never two holders at once.
RC_GTEST_PROP(SimpleLock, NeverTwoHoldersAtOnce, ()) { assert_mutual_exclusion(LockKind::kSimple); }

RC_GTEST_PROP(ReentrantLock, NeverTwoHoldersAtOnce, ()) {
  assert_mutual_exclusion(LockKind::kReentrant);
}

// The same exploration for GetDelLock must break mutual exclusion, and
// RapidCheck must shrink the failure to the expire-then-delete race: a
// client's GET saw its own token, its key expired, another client took the
// lock, and the first client's DEL removed it. Fixed seed: deterministic.
TEST(GetDelLock, RapidCheckFindsAndShrinksTheExpireThenDeleteRace) {
  std::optional<ExplorePlan> last_failing;
  rc::detail::TestParams params;
  params.seed = 2026;
  params.maxSuccess = 10000;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&last_failing] {
        const ExplorePlan plan = *gen_plan(LockKind::kGetDel);
        const auto v = only(world::run_plan(plan).violations, "mutual-exclusion");
        if (!v.empty()) {
          last_failing = plan;  // shrinking ends on the smallest failing plan
          RC_FAIL(world::format_violations(v));
        }
      },
      rc::detail::TestMetadata{}, params);

  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(failure)) << "RapidCheck did not find the race in " << params.maxSuccess
                                     << " plans (seed " << params.seed << ")";
  ASSERT_TRUE(last_failing.has_value());
  const world::ExploreOutcome out = world::run_plan(*last_failing);
  std::cout << "shrunk counterexample after " << failure.numSuccess << " passing plans:\n"
            << world::describe_plan(*last_failing) << world::format_violations(out.violations);
  EXPECT_FALSE(only(out.violations, "mutual-exclusion").empty());
  EXPECT_GE(world::find_expire_then_delete(out.history, world::kExploreKey), 0)
      << "the shrunk failure is not an expire-then-delete";
}

// Random nested lock/unlock sequences by one task keep the hold count equal
// to a model, and another task (another owner) is excluded exactly while the
// count is above zero.
RC_GTEST_PROP(ReentrantLock, HoldCountFollowsTheModel, ()) {
  enum Op { kLock, kUnlock, kProbe };
  const auto ops = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 3));
  const int64_t latency_us = *rc::gen::inRange(0, 3000);
  std::vector<std::string> failures;
  world::WorldOptions options;
  options.seed = *rc::gen::arbitrary<uint32_t>();
  options.faults.latency_max = Micros{latency_us};
  world::World w(options);
  w.spawn_process("owner", [&](world::ProcessEnv& env) {
    lock::ReentrantLock lk(env, "k");
    // A second task is a second owner; it probes on request.
    auto probe_request = env.make_event();
    auto probe_done = env.make_event();
    bool probe_result = false;
    bool stop = false;
    env.spawn("other", [&] {
      lock::ReentrantLock other(env, "k");
      while (probe_request->wait_for(Micros(3600'000'000)) && !stop) {
        probe_result = other.try_lock();
        if (probe_result) other.unlock();
        probe_done->signal();
      }
    });
    int64_t model = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string at = "op " + std::to_string(i) + ": ";
      switch (ops[i]) {
        case kLock:
          lk.lock();
          ++model;
          break;
        case kUnlock:
          if (lk.release().has_value() != (model > 0))
            failures.push_back(at + "unlock disagreed with model");
          if (model > 0) --model;
          break;
        case kProbe:
          probe_request->signal();
          probe_done->wait_for(Micros(3600'000'000));
          if (probe_result != (model == 0)) failures.push_back(at + "other owner's try_lock wrong");
          break;
      }
      if (lk.hold_count() != model) {
        failures.push_back(at + "hold_count " + std::to_string(lk.hold_count()) + " != model " +
                           std::to_string(model));
      }
      if (lk.is_locked() != (model > 0)) failures.push_back(at + "is_locked wrong");
    }
    while (model-- > 0) lk.unlock();
    stop = true;
    probe_request->signal();
  });
  w.run();
  RC_ASSERT(failures.empty());
  RC_ASSERT(w.process_state(1) == world::ProcessState::kEnded);
}

// After a holder crashes, a waiter with enough wait acquires within the
// lease plus a small bound (one backoff or wake-up and a few round trips).
RC_GTEST_PROP(Liveness, WaiterAcquiresWithinLeaseAfterHolderCrashes, ()) {
  const bool reentrant = *rc::gen::arbitrary<bool>();
  const int64_t lease_ms = *rc::gen::inRange(50, 2001);
  const int64_t latency_us = *rc::gen::inRange(0, 3001);
  const int64_t crash_at_us = *rc::gen::inRange<int64_t>(30000, lease_ms * 800);
  world::WorldOptions options;
  options.seed = *rc::gen::arbitrary<uint32_t>();
  options.faults.latency_max = Micros{latency_us};
  world::World w(options);
  auto make = [&](world::ProcessEnv& env) -> std::unique_ptr<lock::DistributedLock> {
    if (reentrant) {
      lock::ReentrantLockOptions o;  // the watchdog's lease
      o.lock_watchdog_timeout = milliseconds(lease_ms);
      return std::make_unique<lock::ReentrantLock>(env, "k", o);
    }
    lock::LockOptions o;
    o.lease = milliseconds(lease_ms);
    o.retry_backoff_min = Micros(1000);
    o.retry_backoff_max = Micros(10000);
    return lock::make_lock(LockKind::kSimple, env, "k", o);
  };
  bool holder_acquired = false;
  int64_t waiter_acquired_us = -1;
  auto holder = w.spawn_process("holder", [&](world::ProcessEnv& env) {
    auto lk = make(env);
    holder_acquired = lk->try_lock();
    env.sleep_for(milliseconds(lease_ms * 10));
  });
  w.spawn_process(
      "waiter",
      [&](world::ProcessEnv& env) {
        auto lk = make(env);
        if (lk->try_lock_for(milliseconds(lease_ms * 4 + 1000)))
          waiter_acquired_us = env.now().time_since_epoch().count();
      },
      Micros(15000));  // the holder has the lock by then (a few round trips of <= 3 ms)
  w.crash_process(holder, Micros(crash_at_us));
  w.run();
  RC_ASSERT(holder_acquired);
  RC_ASSERT(waiter_acquired_us >= 0);
  const int64_t bound_us = 10000 + 6 * latency_us + 2000;
  RC_ASSERT(waiter_acquired_us <= crash_at_us + lease_ms * 1000 + bound_us);
}

// The watchdog keeps a live holder's lock well beyond lock_watchdog_timeout:
// another owner's probes all fail until the holder unlocks, then succeed.
RC_GTEST_PROP(ReentrantLock, WatchdogKeepsALiveHoldersLock, ()) {
  const int64_t timeout_ms = *rc::gen::inRange(100, 5001);
  const int64_t hold_ms = timeout_ms * *rc::gen::inRange(2, 6);
  world::WorldOptions options = gen_world_options({.latency_us_max = 3000});
  world::World w(options);
  lock::ReentrantLockOptions o;
  o.lock_watchdog_timeout = milliseconds(timeout_ms);
  bool held_to_the_end = false;
  int64_t unlock_start_us = -1;  // the holder's unlock call began (-1: not yet)
  int probes = 0;
  int probes_won_while_held = 0;
  bool won_after_release = false;
  w.spawn_process("holder", [&](world::ProcessEnv& env) {
    lock::ReentrantLock lk(env, "k", o);
    lk.lock();
    env.sleep_for(milliseconds(hold_ms));
    held_to_the_end = lk.is_held_by_current_thread() &&
                      lk.remaining_lease().ttl.value_or(milliseconds(0)) > milliseconds(0);
    unlock_start_us = env.now().time_since_epoch().count();
    lk.unlock();
  });
  w.spawn_process(
      "prober",
      [&](world::ProcessEnv& env) {
        lock::ReentrantLock lk(env, "k", o);
        for (int64_t t = 0; t < hold_ms + timeout_ms; t += timeout_ms / 2) {
          env.sleep_for(milliseconds(timeout_ms / 2));
          if (lk.try_lock()) {
            // Won before the holder even began to unlock: two holders.
            if (unlock_start_us < 0 || env.now().time_since_epoch().count() < unlock_start_us) {
              ++probes_won_while_held;
            } else {
              won_after_release = true;
            }
            lk.unlock();
          }
          ++probes;
        }
      },
      Micros(1000));
  w.run();
  RC_ASSERT(held_to_the_end);
  RC_ASSERT(probes_won_while_held == 0);
  RC_ASSERT(won_after_release);
  RC_ASSERT(probes >= 4);
}

}  // namespace
}  // namespace redsim::props

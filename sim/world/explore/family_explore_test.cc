// Exploration (explore.h) of the lock family's kinds that fit DistributedLock.
#include <gtest/gtest.h>

#include "sim/world/explore/explore.h"

namespace redsim::world {
namespace {

// Exploration of the fenced kind: its clients write their token at the end
// of each section's work, and run_plan adds check_fencing to its checkers.
TEST(Explore, FencedPlansAreSafeAndWriteTokens) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const ExplorePlan plan = generate_plan(lock::LockKind::kFenced, seed);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty()) << describe_plan(plan) << format_violations(out.violations);
    size_t writes = 0;
    for (const auto& e : out.history.events()) writes += e.kind == EventKind::kFencedWrite;
    EXPECT_GT(writes, 0u) << "seed " << seed;
  }
}

// The write half of a ReadWriteLock is an exclusive reentrant lock: the
// reentrant kind's plans (watchdog, nesting, pauses within the budget) keep
// mutual exclusion, hold counts and liveness.
TEST(Explore, ReadWritePlansAreSafe) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const ExplorePlan plan = generate_plan(lock::LockKind::kReadWrite, seed);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty()) << describe_plan(plan) << format_violations(out.violations);
  }
}

// Redlock through the string kinds' plans (one server in run_plan's world:
// a quorum of one) behaves as SimpleLock does: safe and live.
TEST(Explore, RedlockPlansAreSafe) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const ExplorePlan plan = generate_plan(lock::LockKind::kRedlock, seed);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty()) << describe_plan(plan) << format_violations(out.violations);
  }
}

}  // namespace
}  // namespace redsim::world

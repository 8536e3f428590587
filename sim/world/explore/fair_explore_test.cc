// Exploration (explore.h) of the fair kind: `redsim check --lock fair`.
#include <gtest/gtest.h>

#include "sim/world/explore/explore.h"

namespace redsim::world {
namespace {

// The fair kind's plans are the reentrant kinds' (watchdog, nesting, pauses
// within the budget, crashes); its liveness bound also covers the places
// crashed waiters keep. No checker may fire, and the queue must be used:
// some acquisitions waited in it.
TEST(Explore, FairPlansAreSafeAndQueue) {
  size_t queued = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const ExplorePlan plan = generate_plan(lock::LockKind::kFair, seed);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty()) << describe_plan(plan) << format_violations(out.violations);
    for (const auto& e : out.history.events()) {
      queued += e.kind == EventKind::kTrace && e.text.starts_with("queued for");
    }
  }
  EXPECT_GT(queued, 0u);
}

// Without faults, the liveness bound of a fair plan is larger than the
// reentrant kind's by one threadWaitTime per client and one more.
TEST(Explore, FairLivenessBoundCoversTheReservations) {
  const ExplorePlan fair = generate_plan(lock::LockKind::kFair, 3, 4);
  ExplorePlan reentrant = fair;
  reentrant.kind = lock::LockKind::kReentrant;
  EXPECT_EQ(liveness_bound_us(fair) - liveness_bound_us(reentrant), 5 * 1000 * 1000);
}

}  // namespace
}  // namespace redsim::world

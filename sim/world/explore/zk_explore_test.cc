// Exploration (zk_explore.h) of the ZooKeeper kinds: what `redsim check
// --lock zk-mutex` stands on.
#include "sim/world/explore/zk_explore.h"

#include <gtest/gtest.h>

#include <string>

namespace redsim::world {
namespace {

bool has_checker(const ExploreOutcome& out, const std::string& checker) {
  for (const Violation& v : out.violations) {
    if (v.checker == checker) return true;
  }
  return false;
}

bool fails(const ExplorePlan& p) { return !run_plan(p).violations.empty(); }

size_t count_traces(const History& h, const std::string& prefix) {
  size_t n = 0;
  for (const HistoryEvent& e : h.events())
    n += e.kind == EventKind::kTrace && e.text.starts_with(prefix);
  return n;
}

TEST(ZkExplore, KindNamesRoundTrip) {
  for (ZkLockKind k : kZkLockKinds) EXPECT_EQ(parse_zk_lock_kind(zk_lock_kind_name(k)), k);
  EXPECT_EQ(parse_zk_lock_kind("zk-mutex-fenced"), ZkLockKind::kFenced);
  EXPECT_EQ(parse_zk_lock_kind("simple"), std::nullopt);
}

TEST(ZkExplore, OnlyTheFaultsTheZooKeeperWorldModels) {
  EXPECT_EQ(zk_fault_problem(parse_fault_set("pause,latency,loss,lost-reply,partition,crash")), "");
  const std::string p = zk_fault_problem(parse_fault_set("pause,restart,clock"));
  EXPECT_TRUE(p.starts_with("restart, clock: not modelled for the ZooKeeper kinds")) << p;
}

// The budgeted profile keeps every live session alive: the correct recipe
// shows nothing, while the faults really happen (lost answers that
// protected mode recovers from, crashes whose sessions expire).
TEST(ZkExplore, BudgetedPlansAreSafeAndLiveForTheCorrectRecipe) {
  size_t found_own = 0, expired_crashes = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    for (ZkLockKind k : {ZkLockKind::kMutex, ZkLockKind::kFenced, ZkLockKind::kHerd}) {
      const ExplorePlan plan = generate_zk_plan(k, seed);
      ASSERT_TRUE(plan.checks & kCheckLiveness);
      ASSERT_TRUE(plan.checks & kCheckMutualExclusion);
      const ExploreOutcome out = run_plan(plan);
      EXPECT_TRUE(out.violations.empty())
          << describe_plan(plan) << format_violations(out.violations);
      if (k != ZkLockKind::kMutex) continue;
      found_own += count_traces(out.history, "zk-mutex: protected mode found");
      for (const HistoryEvent& e : out.history.events()) {
        expired_crashes += e.kind == EventKind::kProcessCrash;
      }
    }
  }
  EXPECT_GT(found_own, 0u);
  EXPECT_GT(expired_crashes, 0u);
}

// Kleppmann's argument, on ZooKeeper: a pause past the session timeout
// makes two holders; the znode's sequence number as a fencing token keeps
// the storage safe on the same schedules.
TEST(ZkExplore, PausesPastTheSessionTimeoutMakeTwoHoldersButNotPastTheFence) {
  const FaultSet pause = parse_fault_set("pause");
  size_t two_holders = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const ExploreOutcome plain = run_plan(generate_zk_plan(ZkLockKind::kMutex, seed, 0, pause));
    two_holders += has_checker(plain, "mutual-exclusion");
    const ExplorePlan fenced_plan = generate_zk_plan(ZkLockKind::kFenced, seed, 0, pause);
    EXPECT_EQ(fenced_plan.checks & kCheckMutualExclusion, 0u);
    const ExploreOutcome fenced = run_plan(fenced_plan);
    EXPECT_TRUE(fenced.violations.empty()) << seed << format_violations(fenced.violations);
  }
  EXPECT_GT(two_holders, 5u);
}

// The unprotected recipe under lost answers: the orphan znode strands the
// lock; the shrunk counterexample is two clients and one lost create.
TEST(ZkExplore, WithoutProtectedModeALostReplyLeavesAnOrphanThatShrinks) {
  const FaultSet lost = parse_fault_set("lost-reply");
  std::optional<ExplorePlan> failing;
  for (uint64_t seed = 1; seed <= 50 && !failing; ++seed) {
    ExplorePlan p = generate_zk_plan(ZkLockKind::kUnprotected, seed, 0, lost);
    if (fails(p)) failing = p;
    // The protected recipe on the same plan is clean.
    EXPECT_TRUE(run_plan(generate_zk_plan(ZkLockKind::kMutex, seed, 0, lost)).violations.empty());
  }
  ASSERT_TRUE(failing.has_value());
  const ExplorePlan small = shrink_plan(*failing, fails);
  EXPECT_LE(small.clients.size(), 2u);
  const ExploreOutcome out = run_plan(small);
  EXPECT_TRUE(has_checker(out, "liveness"));
  EXPECT_FALSE(has_checker(out, "mutual-exclusion"));
  const auto orphan = find_orphan_wait(out.history);
  ASSERT_TRUE(orphan.has_value());
  EXPECT_TRUE(orphan->starts_with("orphan znode: ")) << *orphan;
  // The same plan, run again, gives the same history (the replay).
  EXPECT_EQ(run_plan(small).history.hash(), out.history.hash());
}

// Partitions past the session timeout make two holders too (the node
// expires a session it cannot hear); the herd recipe fails as the others do.
TEST(ZkExplore, PartitionsPastTheSessionTimeoutMakeTwoHolders) {
  const FaultSet partition = parse_fault_set("partition");
  size_t two_holders = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    two_holders += has_checker(run_plan(generate_zk_plan(ZkLockKind::kMutex, seed, 0, partition)),
                               "mutual-exclusion");
  }
  EXPECT_GT(two_holders, 0u);
}

TEST(ZkExplore, TheLivenessBoundGrowsWithExpiredSessions) {
  const ExplorePlan plan = generate_zk_plan(ZkLockKind::kMutex, 3);
  EXPECT_EQ(zk_liveness_bound_us(plan, 2) - zk_liveness_bound_us(plan, 0),
            2 * plan.lease_ms * 1000);
}

}  // namespace
}  // namespace redsim::world

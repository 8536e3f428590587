// Coverage feedback: the abstract-state signal and the corpus.
#include "tools/yardstick/coverage.h"

#include <gtest/gtest.h>

namespace redsim::world {
namespace {

using K = LockStep::Kind;

TEST(Coverage, TwoHoldersInsideIsATransitionOneHolderNeverMakes) {
  // One holder: set, enter, leave, gone.
  const std::vector<LockStep> one = {
      {K::kKeySet, 1}, {K::kEnter, 1}, {K::kLeave, 1}, {K::kKeyGone, 0}};
  // The expire-then-delete shape: 1's key expires while it is inside, 2 takes it.
  const std::vector<LockStep> two = {{K::kKeySet, 1}, {K::kEnter, 1}, {K::kKeyGone, 0},
                                     {K::kKeySet, 2}, {K::kEnter, 2}, {K::kLeave, 1}};
  const std::set<uint64_t> a = coverage_of(one), b = coverage_of(two);
  EXPECT_EQ(a.size(), one.size());
  size_t only_b = 0;
  for (uint64_t edge : b) only_b += a.count(edge) == 0;
  // Every step of `two` after the expiry is a state `one` never reaches.
  EXPECT_GE(only_b, 4u);
  // The signal is a function of the steps.
  EXPECT_EQ(coverage_of(two), b);
}

TEST(Coverage, TheCorpusKeepsOnlyPlansThatCoverSomethingNew) {
  ExplorePlan plan = generate_plan(lock::LockKind::kGetDel, 3, 2);
  const ExploreOutcome out = run_plan(plan);
  CoverageCorpus corpus(1, {});
  EXPECT_TRUE(corpus.add(plan, out.history));
  EXPECT_EQ(corpus.size(), 1u);
  EXPECT_FALSE(corpus.add(plan, out.history)) << "the same history covers nothing new";
  EXPECT_EQ(corpus.size(), 1u);
  // With a corpus, most next plans are its mutations, not fresh ones.
  int fresh = 0;
  for (int i = 0; i < 100; ++i) {
    corpus.next([&] {
      ++fresh;
      return plan;
    });
  }
  EXPECT_LT(fresh, 50);
  EXPECT_GT(fresh, 5);
}

TEST(Coverage, MutationsStayInsideTheGeneratorsRanges) {
  const ExplorePlan plan = generate_plan(lock::LockKind::kSimple, 11, 4);
  Prng rng(5);
  const MutationLimits limits{.think_max_us = 50'000, .work_max_us = 50'000};
  bool changed = false;
  for (int i = 0; i < 200; ++i) {
    const ExplorePlan m = mutate_plan(plan, rng, limits);
    ASSERT_EQ(m.clients.size(), plan.clients.size());
    changed = changed || m.seed != plan.seed || describe_plan(m) != describe_plan(plan);
    for (const ClientPlan& c : m.clients) {
      for (const Attempt& a : c.attempts) {
        EXPECT_GE(a.think_us, 0);
        EXPECT_LE(a.think_us, limits.think_max_us);
        EXPECT_GE(a.work_us, 0);
        EXPECT_LE(a.work_us, limits.work_max_us);
        EXPECT_EQ(a.work_us % 1000, 0);
      }
    }
  }
  EXPECT_TRUE(changed);
}

}  // namespace
}  // namespace redsim::world

// PCT: strategy names, priorities, change points, and the scheduler's ties.
#include "sim/world/pct.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/world/scheduler.h"

namespace redsim::world {
namespace {

TEST(Strategy, ParsesAndNames) {
  EXPECT_EQ(parse_strategy("random"), Strategy{});
  EXPECT_EQ(parse_strategy("pct"), Strategy{.depth = 3});
  EXPECT_EQ(parse_strategy("pct:1"), Strategy{.depth = 1});
  EXPECT_EQ(strategy_name(parse_strategy("pct:5")), "pct:5");
  EXPECT_EQ(strategy_name(Strategy{}), "random");
  for (const char* bad : {"pct:0", "pct:9", "pct:", "pct:2x", "dfs", ""}) {
    EXPECT_THROW(parse_strategy(bad), std::invalid_argument) << bad;
  }
}

TEST(PctPriorities, DistinctStableAndDeterministic) {
  PctPriorities a(3, 10, 42), b(3, 10, 42);
  for (uint32_t pid = 1; pid <= 5; ++pid) EXPECT_EQ(a.priority(pid), b.priority(pid));
  EXPECT_EQ(a.priority(0), 0u);
  for (uint32_t pid = 1; pid <= 5; ++pid) {
    EXPECT_GT(a.priority(pid), 2u) << "above every change point's priority";
    for (uint32_t other = pid + 1; other <= 5; ++other) {
      EXPECT_NE(a.priority(pid), a.priority(other));
    }
  }
  // Ranks are a permutation of 0..n-1.
  std::vector<bool> seen(5, false);
  for (uint32_t pid = 1; pid <= 5; ++pid) {
    const auto [rank, count] = a.rank(pid);
    EXPECT_EQ(count, 5u);
    ASSERT_LT(rank, 5u);
    EXPECT_FALSE(seen[rank]);
    seen[rank] = true;
  }
}

TEST(PctPriorities, DepthMinusOneChangePointsDemoteTheStepsProcess) {
  // k = 1: every change point falls on the first step.
  PctPriorities p(3, 1, 7);
  p.priority(1);
  p.priority(2);
  p.step(2);
  EXPECT_EQ(p.priority(2), 1u) << "the last of the two change points: d - 2";
  EXPECT_EQ(p.rank(2).first, 1u) << "below process 1";
  p.step(1);
  EXPECT_GT(p.priority(1), 2u) << "no change point left";
  // Depth 1: no change points at all.
  PctPriorities one(1, 1, 7);
  const uint64_t before = one.priority(1);
  one.step(1);
  EXPECT_EQ(one.priority(1), before);
}

TEST(Scheduler, PctRunsSameTimeEventsInPriorityOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    PctPriorities p(1, 1, seed);
    Scheduler s;
    s.set_priorities(&p);
    std::string order;
    for (uint32_t pid = 1; pid <= 3; ++pid) {
      s.at(
          5,
          [&order, pid, &s] {
            order += std::to_string(pid);
            EXPECT_EQ(s.current_owner(), pid);
            // Inherits its owner: runs before the lower-priority ones' children.
            s.at(9, [&order, pid] { order += std::to_string(pid); });
          },
          false, pid);
    }
    s.run(100);
    ASSERT_EQ(order.size(), 6u);
    for (size_t i = 0; i + 1 < 3; ++i) {
      const uint32_t a = static_cast<uint32_t>(order[i] - '0');
      const uint32_t b = static_cast<uint32_t>(order[i + 1] - '0');
      EXPECT_GT(p.priority(a), p.priority(b)) << order;
    }
    EXPECT_EQ(order.substr(3), order.substr(0, 3));
  }
}

TEST(Scheduler, WithoutPrioritiesSameTimeEventsKeepScheduleOrder) {
  Scheduler s;
  std::string order;
  for (uint32_t pid = 3; pid >= 1; --pid) {
    s.at(
        5, [&order, pid] { order += std::to_string(pid); }, false, pid);
  }
  s.run(100);
  EXPECT_EQ(order, "321");
}

}  // namespace
}  // namespace redsim::world

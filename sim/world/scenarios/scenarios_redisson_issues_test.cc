// The scenarios of scenarios_redisson_issues.cc give their expected verdict
// for seeds 1 to 5, and each bug has both sides in the catalogue.
#include <gtest/gtest.h>

#include <string>

#include "sim/world/scenarios/scenarios.h"

namespace redsim::world {
namespace {

const char* const kNames[] = {
    "lost-message-5761-rlock",
    "lost-message-5761-rlock-fixed",
    "lost-message-5761-fenced",
    "lost-message-5761-fenced-fixed",
    "lost-message-5761-rwlock",
    "lost-message-5761-rwlock-fixed",
    "lost-message-rwlock-write-unlock",
    "rwlock-reentry-lease-1110",
    "rwlock-reentry-lease-1110-fixed",
    "lease-carried-4818",
    "lease-carried-4818-fixed",
    "watchdog-outlives-holder-1626",
    "watchdog-outlives-holder-1626-lease",
    "watchdog-outlives-thread-3521",
    "watchdog-outlives-thread-3521-fixed",
    "rwlock-reader-pause-past-lease",
    "rwlock-reader-pause-watchdog",
    "rwlock-expired-reader-dropped",
    "rwlock-writer-sleeps-stale-pttl",
    "fair-waiter-dropped-3004",
    "fair-waiter-dropped-3004-fixed",
};

TEST(RedissonIssueScenarios, ExpectedVerdictForSeedsOneToFive) {
  for (const char* name : kNames) {
    const Scenario* s = find_scenario(name);
    ASSERT_NE(s, nullptr) << name;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const ScenarioResult r = s->run(seed);
      std::string findings;
      for (const std::string& f : r.findings) findings += f + "; ";
      EXPECT_TRUE(r.passed()) << name << " seed " << seed << ": expected "
                              << verdict_name(r.expected) << ", observed "
                              << verdict_name(r.observed) << " (" << findings << ")";
    }
  }
}

TEST(RedissonIssueScenarios, EachBugIsShownAndFixed) {
  for (const char* name : kNames) {
    const Scenario* s = find_scenario(name);
    ASSERT_NE(s, nullptr) << name;
    const std::string n = name;
    if (n.ends_with("-fixed")) {
      EXPECT_EQ(s->expected, Verdict::kSafe) << name;
      const Scenario* buggy = find_scenario(n.substr(0, n.size() - 6));
      ASSERT_NE(buggy, nullptr) << name;
      EXPECT_NE(buggy->expected, Verdict::kSafe) << name;
    }
  }
}

}  // namespace
}  // namespace redsim::world

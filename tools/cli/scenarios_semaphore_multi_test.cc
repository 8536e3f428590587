// The semaphore, permit-expirable semaphore, MultiLock and spin-lock
// scenarios (sim/world/scenarios_semaphore_multi.cc): each gives its
// expected verdict for seeds 1 to 5, and `scenario list` names each one's
// lock and, for the issue pairs, the Redisson issue.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/world/scenarios/scenarios.h"
#include "tools/cli/scenario_cmd.h"

namespace redsim::cli {
namespace {

struct Expected {
  const char* name;
  const char* lock;
  world::Verdict verdict;
};

const std::vector<Expected>& family() {
  using world::Verdict;
  static const std::vector<Expected> kFamily = {
      {"semaphore-release-untaken", "semaphore", Verdict::kMutualExclusion},
      {"semaphore-release-taken", "semaphore", Verdict::kSafe},
      {"semaphore-lost-release-5762", "semaphore", Verdict::kLiveness},
      {"semaphore-lost-release-poll", "semaphore", Verdict::kSafe},
      {"pe-semaphore-skewed-clock", "pe-semaphore", Verdict::kMutualExclusion},
      {"pe-semaphore-small-skew", "pe-semaphore", Verdict::kSafe},
      {"multilock-no-wait-2172", "multi-lock", Verdict::kMutualExclusion},
      {"multilock-no-wait", "multi-lock", Verdict::kSafe},
      {"multilock-lease-unit-5484", "multi-lock", Verdict::kMutualExclusion},
      {"multilock-lease-unit", "multi-lock", Verdict::kSafe},
      {"multilock-in-doubt-4456", "multi-lock", Verdict::kLiveness},
      {"multilock-in-doubt", "multi-lock", Verdict::kSafe},
      {"spin-lease-runs-out", "spin", Verdict::kMutualExclusion},
      {"spin-lease-holds", "spin", Verdict::kSafe},
  };
  return kFamily;
}

TEST(SemaphoreMultiScenarios, EachGivesItsVerdictForSeedsOneToFive) {
  for (const Expected& e : family()) {
    const world::Scenario* s = world::find_scenario(e.name);
    ASSERT_NE(s, nullptr) << e.name;
    EXPECT_EQ(s->expected, e.verdict) << e.name;
    EXPECT_EQ(world::scenario_lock_name(*s), e.lock) << e.name;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const world::ScenarioResult r = s->run(seed);
      EXPECT_EQ(r.observed, e.verdict)
          << e.name << " seed " << seed << ": " << world::verdict_name(r.observed);
    }
  }
}

TEST(SemaphoreMultiScenarios, TheListShowsTheLockAndTheIssue) {
  std::ostringstream out;
  ASSERT_EQ(scenario_list(out), 0);
  const std::string list = out.str();
  for (const char* issue :
       {"redisson#5762", "redisson#5761", "redisson#2172", "redisson#5484", "redisson#4456"}) {
    EXPECT_NE(list.find(issue), std::string::npos) << issue;
  }
  for (const Expected& e : family()) {
    const std::string row = std::string(e.name) + " ";
    const size_t at = list.find(row);
    ASSERT_NE(at, std::string::npos) << e.name;
    EXPECT_NE(list.substr(at, 60).find(e.lock), std::string::npos) << e.name;
  }
}

}  // namespace
}  // namespace redsim::cli

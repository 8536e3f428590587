// The interop scenarios (sim/world/scenarios_interop.cc) give their expected
// verdicts for seeds 1-5, each pair differing in the one behaviour its issue
// is about.
#include <gtest/gtest.h>

#include <string>

#include "sim/world/scenarios/scenarios.h"

namespace redsim::world {
namespace {

const std::vector<std::string> kInterop = {
    "node-redlock-extend-169",  "node-redlock-extend-274",  "node-redlock-release-65",
    "node-redlock-release-362", "redis-py-shared-lock-416", "redis-py-thread-local-token",
    "redis-py-token-lost-4258", "redis-py-token-kept-4258"};

TEST(InteropScenarios, ExpectedVerdictsForSeedsOneToFive) {
  for (const std::string& name : kInterop) {
    const Scenario* s = find_scenario(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_NE(s->description.find('#'), std::string::npos) << name << ": names its issue";
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const ScenarioResult r = s->run(seed);
      EXPECT_TRUE(r.passed()) << name << " seed " << seed << ": " << verdict_name(r.observed)
                              << ", expected " << verdict_name(r.expected);
    }
  }
}

// Each buggy twin fails for its own reason, which its findings name.
TEST(InteropScenarios, FindingsNameTheCause) {
  auto finding = [](const char* name) {
    const ScenarioResult r = find_scenario(name)->run(1);
    return r.findings.empty() ? std::string() : r.findings.front();
  };
  EXPECT_NE(finding("node-redlock-extend-169").find("Cannot extend an already-expired lock"),
            std::string::npos);
  EXPECT_NE(finding("node-redlock-extend-274").find("finished its 2 s of work"), std::string::npos);
  EXPECT_NE(finding("node-redlock-release-65").find("unable to achieve a quorum"),
            std::string::npos);
  EXPECT_NE(finding("node-redlock-release-362").find("release succeeded"), std::string::npos);
}

}  // namespace
}  // namespace redsim::world

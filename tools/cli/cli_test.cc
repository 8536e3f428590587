// The CLI's subcommands as functions: verdicts, exit codes, replay lines.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/world/explore.h"
#include "sim/world/scenarios.h"
#include "tools/cli/check_cmd.h"
#include "tools/cli/scenario_cmd.h"

namespace redsim::cli {
namespace {

TEST(ScenarioRun, EveryScenarioGivesItsExpectedVerdict) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.all = true;
  EXPECT_EQ(scenario_run(options, out, err), 0) << out.str();
  EXPECT_NE(out.str().find("11/11 scenarios gave their expected verdict"), std::string::npos)
      << out.str();
}

TEST(ScenarioRun, VerdictsHoldForOtherSeeds) {
  for (uint64_t seed : {2u, 3u, 99u}) {
    for (const world::Scenario& s : world::all_scenarios()) {
      world::ScenarioResult r = s.run(seed);
      EXPECT_TRUE(r.passed()) << s.name << " seed " << seed << ": "
                              << world::verdict_name(r.observed);
    }
  }
}

TEST(ScenarioRun, UnknownNameIsAUsageError) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.name = "no-such-scenario";
  EXPECT_EQ(scenario_run(options, out, err), 2);
  EXPECT_NE(err.str().find("unknown scenario 'no-such-scenario'"), std::string::npos);
}

TEST(ScenarioRun, JsonCarriesVerdictAndReplay) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.name = "expire-then-delete";
  options.json = true;
  EXPECT_EQ(scenario_run(options, out, err), 0);
  EXPECT_NE(out.str().find("\"observed\": \"violation: mutual exclusion\""), std::string::npos);
  EXPECT_NE(out.str().find("\"replay\": \"build/redsim scenario run expire-then-delete --seed 1\""),
            std::string::npos);
}

TEST(ScenarioRun, SameSeedSameHistory) {
  const world::Scenario* s = world::find_scenario("pubsub-wakeup");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->run(5).history.hash(), s->run(5).history.hash());
  EXPECT_NE(s->run(5).history.hash(), s->run(6).history.hash());
}

TEST(Check, FindsTheGetDelRaceAndPrintsAReplayThatReproducesIt) {
  std::ostringstream out;
  CheckOptions options;
  options.kind = lock::LockKind::kGetDel;
  EXPECT_EQ(check(options, out, out), 1) << out.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("diagnosis: expire-then-delete"), std::string::npos) << text;
  const size_t at = text.find("replay: build/redsim check --lock get-del --seed ");
  ASSERT_NE(at, std::string::npos) << text;
  const uint64_t seed = std::stoull(
      text.substr(at + std::string("replay: build/redsim check --lock get-del --seed ").size()));
  std::ostringstream again;
  options.seed = seed;
  EXPECT_EQ(check(options, again, again), 1);
  EXPECT_EQ(again.str(), text) << "a replay must print the same counterexample";
}

TEST(Check, SafeKindsShowNothing) {
  for (auto kind : {lock::LockKind::kSimple, lock::LockKind::kReentrant}) {
    std::ostringstream out;
    CheckOptions options;
    options.kind = kind;
    options.seeds = 200;
    EXPECT_EQ(check(options, out, out), 0) << out.str();
  }
}

TEST(Explore, SamePlanSameHistory) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kReentrant, 7);
  EXPECT_EQ(world::run_plan(plan).history.hash(), world::run_plan(plan).history.hash());
}

}  // namespace
}  // namespace redsim::cli

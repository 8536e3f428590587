// The CLI's subcommands as functions: verdicts, exit codes, replay lines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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
  const size_t n = world::all_scenarios().size();
  EXPECT_GE(n, 20u);
  EXPECT_NE(out.str().find(std::to_string(n) + "/" + std::to_string(n) +
                           " scenarios gave their expected verdict"),
            std::string::npos)
      << out.str();
}

TEST(ScenarioList, EveryScenarioNamesItsSourceAndFaultOrRealRun) {
  std::ostringstream out;
  EXPECT_EQ(scenario_list(out), 0);
  for (const world::Scenario& s : world::all_scenarios()) {
    EXPECT_NE(out.str().find(s.name), std::string::npos) << s.name;
    EXPECT_NE(out.str().find("    source: " + s.source + "\n"), std::string::npos) << s.name;
    EXPECT_FALSE(s.source.empty()) << s.name;
    EXPECT_FALSE(s.description.empty()) << s.name;
    EXPECT_NE(s.needs_fault.empty(), !s.run_on) << s.name << ": a fault xor a real-world run";
  }
  // The catalogue covers both sides of each fault the issue names.
  for (const char* name : {"pause-past-lease-simple", "pause-past-lease-reentrant",
                           "pause-past-lease-fenced", "failover-loses-lock",
                           "failover-replica-check", "watchdog-gives-up", "watchdog-keeps-renewing",
                           "lost-wakeup", "unlock-retry-double-release", "unlock-retry-latch"}) {
    EXPECT_NE(world::find_scenario(name), nullptr) << name;
  }
}

TEST(ScenarioRun, VerdictsHoldForOtherSeeds) {
  for (uint64_t seed : {1u, 2u, 3u, 99u}) {
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
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["name"], "expire-then-delete");
  EXPECT_EQ(j["observed"], "violation: mutual exclusion");
  EXPECT_EQ(j["replay"], "build/redsim scenario run expire-then-delete --seed 1");
  EXPECT_EQ(j["history_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["passed"], true);
  EXPECT_FALSE(j["violations"].empty());
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

TEST(Check, FaultsFindPausesPastTheLeaseAndTheReplayNamesThem) {
  std::ostringstream out;
  CheckOptions options;
  options.kind = lock::LockKind::kSimple;
  options.faults = world::parse_fault_set("pause");
  options.seeds = 200;
  EXPECT_EQ(check(options, out, out), 1) << out.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("VIOLATION (mutual-exclusion)"), std::string::npos) << text;
  EXPECT_NE(text.find("timeline of the shrunk run:"), std::string::npos) << text;
  const std::string prefix = "replay: build/redsim check --lock simple --seed ";
  const size_t at = text.find(prefix);
  ASSERT_NE(at, std::string::npos) << text;
  const uint64_t seed = std::stoull(text.substr(at + prefix.size()));
  EXPECT_NE(text.find(prefix + std::to_string(seed) + " --faults pause\n"), std::string::npos)
      << text;
  std::ostringstream again;
  options.seed = seed;
  EXPECT_EQ(check(options, again, again), 1);
  EXPECT_EQ(again.str(), text) << "a replay must print the same counterexample";
}

TEST(Check, JsonSummary) {
  std::ostringstream out, err;
  CheckOptions options;
  options.kind = lock::LockKind::kSimple;
  options.faults = world::parse_fault_set("latency,lost-reply");
  options.seeds = 5;
  options.json = true;
  EXPECT_EQ(check(options, out, err), 0) << out.str();
  const std::string text = out.str();
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(text.rfind("{\"lock\":\"simple\",\"faults\":\"latency,lost-reply\"", 0), 0u) << text;
  EXPECT_EQ(j["seeds_explored"], 5);
  EXPECT_EQ(j["violation"], false);
  EXPECT_TRUE(err.str().empty()) << "no progress bar unless asked: " << err.str();

  std::ostringstream bad, bad_err;
  options.faults = world::parse_fault_set("pause");
  options.seeds = 200;
  EXPECT_EQ(check(options, bad, bad_err), 1);
  const nlohmann::json v = nlohmann::json::parse(bad.str());
  EXPECT_EQ(v["violation"], true);
  EXPECT_TRUE(v["replay"].get<std::string>().ends_with("--faults pause")) << bad.str();
  EXPECT_EQ(v["violations"][0]["checker"], "mutual-exclusion");
}

TEST(Check, ProgressBarGoesToErr) {
  std::ostringstream out, err;
  CheckOptions options;
  options.kind = lock::LockKind::kSimple;
  options.seeds = 3;
  options.progress = true;
  EXPECT_EQ(check(options, out, err), 0);
  EXPECT_NE(err.str().find("] 3/3 seeds"), std::string::npos) << err.str();
  EXPECT_EQ(out.str().find("seeds\r"), std::string::npos);
}

TEST(Explore, SamePlanSameHistory) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kReentrant, 7);
  EXPECT_EQ(world::run_plan(plan).history.hash(), world::run_plan(plan).history.hash());
}

}  // namespace
}  // namespace redsim::cli

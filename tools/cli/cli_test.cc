// The CLI's subcommands as functions: verdicts, exit codes, replay lines.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/world/explore/explore.h"
#include "sim/world/scenarios/scenarios.h"
#include "tools/cli/check_cmd.h"
#include "tools/cli/merge_cmd.h"
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
  for (auto kind : {lock::LockKind::kSimple, lock::LockKind::kReentrant, lock::LockKind::kRedisPy,
                    lock::LockKind::kNodeRedlock}) {
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

// `text` without its "elapsed_seconds" value (the one field a parallel run
// may print differently).
std::string without_elapsed(std::string text) {
  const size_t at = text.find("\"elapsed_seconds\":");
  if (at == std::string::npos) return text;
  const size_t end = text.find(',', at);
  return text.erase(at, end - at);
}

TEST(Check, JobsGiveTheSerialOutputByteForByte) {
  struct Case {
    lock::LockKind kind;
    int seeds;
    int expected;
  };
  for (const Case& c :
       {Case{lock::LockKind::kGetDel, 1000, 1}, Case{lock::LockKind::kSimple, 300, 0},
        Case{lock::LockKind::kSetnxExpire, 1000, 1}}) {
    for (bool json : {false, true}) {
      CheckOptions options;
      options.kind = c.kind;
      options.seeds = c.seeds;
      options.json = json;
      std::ostringstream serial, serial_err;
      EXPECT_EQ(check(options, serial, serial_err), c.expected) << serial.str();
      for (int jobs : {2, 3}) {
        options.jobs = jobs;
        std::ostringstream parallel, parallel_err;
        EXPECT_EQ(check(options, parallel, parallel_err), c.expected);
        if (json) {
          EXPECT_EQ(without_elapsed(parallel.str()), without_elapsed(serial.str()));
        } else {
          EXPECT_EQ(parallel.str(), serial.str());
        }
        EXPECT_EQ(parallel_err.str(), serial_err.str());
      }
    }
  }
}

TEST(Check, ShardsSplitTheSeedsAndMergeToTheSerialVerdict) {
  const std::string dir = ::testing::TempDir();
  for (lock::LockKind kind : {lock::LockKind::kGetDel, lock::LockKind::kSimple}) {
    CheckOptions options;
    options.kind = kind;
    options.seeds = 300;
    options.json = true;
    std::ostringstream serial, err;
    const int code = check(options, serial, err);
    std::vector<std::string> files;
    uint64_t explored = 0;
    for (int k = 1; k <= 3; ++k) {
      options.shard = k;
      options.shard_count = 3;
      std::ostringstream shard;
      EXPECT_EQ(check(options, shard, err) <= code, true) << shard.str();
      EXPECT_NE(shard.str().find("\"shard\":\"" + std::to_string(k) + "/3\""), std::string::npos);
      files.push_back(dir + "/redsim_shard_" + std::to_string(k) + ".json");
      std::ofstream(files.back()) << shard.str();
      const size_t at = shard.str().find("\"seeds_explored\":");
      explored += std::stoull(shard.str().substr(at + 17));
    }
    std::ostringstream merged, merged_err;
    EXPECT_EQ(check_merge(files, /*json=*/true, merged, merged_err), code) << merged_err.str();
    if (code == 0) {
      EXPECT_EQ(explored, 300u);
      EXPECT_NE(merged.str().find("\"seeds_explored\":300"), std::string::npos) << merged.str();
      EXPECT_NE(merged.str().find("\"violation\":false"), std::string::npos) << merged.str();
    } else {
      // The lowest failing seed over the shards is the serial one, and so
      // is its replay line.
      const size_t at = serial.str().find("\"seed\":");
      const std::string seed = serial.str().substr(at, serial.str().find(',', at) - at);
      EXPECT_NE(merged.str().find(seed + ","), std::string::npos) << merged.str() << serial.str();
      const size_t r = serial.str().find("\"replay\":");
      EXPECT_NE(merged.str().find(serial.str().substr(r, serial.str().find(',', r) - r)),
                std::string::npos);
    }
  }
  // Shards of different explorations do not merge.
  CheckOptions other;
  other.kind = lock::LockKind::kReentrant;
  other.seeds = 3;
  other.json = true;
  std::ostringstream o, err;
  ASSERT_EQ(check(other, o, err), 0);
  std::ofstream(dir + "/redsim_shard_other.json") << o.str();
  std::ostringstream merged, merged_err;
  EXPECT_EQ(check_merge({dir + "/redsim_shard_1.json", dir + "/redsim_shard_other.json"}, false,
                        merged, merged_err),
            2);
  EXPECT_NE(merged_err.str().find("results of different explorations"), std::string::npos)
      << merged_err.str();
}

TEST(Check, PctFindsTheRaceAndItsReplayNamesTheStrategy) {
  for (const char* strategy : {"pct:2", "pct:3"}) {
    std::ostringstream out;
    CheckOptions options;
    options.kind = lock::LockKind::kGetDel;
    options.strategy = world::parse_strategy(strategy);
    EXPECT_EQ(check(options, out, out), 1) << out.str();
    const std::string text = out.str();
    EXPECT_NE(text.find(std::string("strategy: ") + strategy), std::string::npos) << text;
    const std::string prefix = "replay: build/redsim check --lock get-del --seed ";
    const size_t at = text.find(prefix);
    ASSERT_NE(at, std::string::npos) << text;
    const uint64_t seed = std::stoull(text.substr(at + prefix.size()));
    EXPECT_NE(text.find(prefix + std::to_string(seed) + " --strategy " + strategy + "\n"),
              std::string::npos)
        << text;
    std::ostringstream again;
    options.seed = seed;
    EXPECT_EQ(check(options, again, again), 1);
    EXPECT_EQ(again.str(), text) << "a replay must print the same counterexample";
  }
}

TEST(Check, PctNeverFlagsTheSafeKinds) {
  for (auto kind : {lock::LockKind::kSimple, lock::LockKind::kReentrant}) {
    for (int depth : {1, 3}) {
      std::ostringstream out;
      CheckOptions options;
      options.kind = kind;
      options.seeds = 200;
      options.strategy = world::Strategy{.depth = depth};
      EXPECT_EQ(check(options, out, out), 0) << out.str();
    }
  }
}

TEST(Check, ExhaustiveFindsGetDelsRaceAndReplaysTheSchedule) {
  std::ostringstream out;
  CheckOptions options;
  options.kind = lock::LockKind::kGetDel;
  options.seed = 3;
  options.strategy = world::parse_strategy("exhaustive:2");
  ASSERT_EQ(check(options, out, out), 1) << out.str();
  EXPECT_NE(out.str().find("schedule 90 of the exhaustive search (bound 2)"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("diagnosis: expire-then-delete"), std::string::npos) << out.str();
  const std::string replay =
      "replay: build/redsim check --lock get-del --seed 3 --clients 2 --strategy "
      "exhaustive:2@65=1,267=1";
  EXPECT_NE(out.str().find(replay), std::string::npos) << out.str();
  // The replay line runs that one schedule, which fails again.
  std::ostringstream again;
  options.strategy = world::parse_strategy("exhaustive:2@65=1,267=1");
  options.clients = 2;
  EXPECT_EQ(check(options, again, again), 1) << again.str();
}

TEST(Check, ExhaustiveProvesSimpleWithTheScheduleCount) {
  std::ostringstream out;
  CheckOptions options;
  options.kind = lock::LockKind::kSimple;
  options.seed = 2;
  options.strategy = world::parse_strategy("exhaustive:1");
  EXPECT_EQ(check(options, out, out), 0) << out.str();
  EXPECT_NE(out.str().find("no violation in all 85 schedules up to bound 1: lock simple, 2 "
                           "clients x up to 2 attempts, seed 2"),
            std::string::npos)
      << out.str();
}

TEST(Explore, PctIsDeterministicAndChangesTheSchedule) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kSimple, 11, 4);
  const uint64_t random_hash = world::run_plan(plan).history.hash();
  plan.strategy = world::Strategy{.depth = 2};
  EXPECT_EQ(world::run_plan(plan).history.hash(), world::run_plan(plan).history.hash());
  EXPECT_NE(world::run_plan(plan).history.hash(), random_hash);
}

TEST(Explore, SamePlanSameHistory) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kReentrant, 7);
  EXPECT_EQ(world::run_plan(plan).history.hash(), world::run_plan(plan).history.hash());
}

}  // namespace
}  // namespace redsim::cli

// The fault-free scenarios against a real redis-server started by the test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lock/hiredis/hiredis_env.h"
#include "sim/world/scenarios/scenarios.h"
#include "tools/cli/real_time_runner.h"
#include "tools/cli/scenario_cmd.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::cli {
namespace {

testing::RedisServerProcess& server() {
  static testing::RedisServerProcess redis;
  return redis;
}

TEST(ScenarioReal, FaultFreeScenariosGiveTheirVerdictAgainstARealServer) {
  const auto options = lock::HiredisOptions::parse_url(server().url());
  size_t ran = 0;
  for (const world::Scenario& s : world::all_scenarios()) {
    if (!s.run_on) {
      EXPECT_FALSE(s.needs_fault.empty()) << s.name << " says neither how to run nor why not";
      continue;
    }
    RealTimeRunner runner(
        {.make_env = [options] { return std::make_unique<lock::HiredisEnv>(options); }});
    const world::ScenarioResult r = world::run_scenario_real(s, runner);
    ++ran;
    EXPECT_TRUE(r.passed()) << s.name << ": " << world::verdict_name(r.observed) << "\n"
                            << world::format_violations(r.violations) << "\n"
                            << world::render_timeline(r.history);
    EXPECT_EQ(r.seed, 0u);
    bool saw_command = false;
    for (const auto& e : r.history.events()) saw_command |= e.kind == world::EventKind::kCommand;
    EXPECT_TRUE(saw_command) << s.name << ": the real history records the commands";
  }
  EXPECT_EQ(ran, 4u);
}

TEST(ScenarioReal, FaultedScenarioIsRefused) {
  const world::Scenario* s = world::find_scenario("expire-then-delete");
  ASSERT_NE(s, nullptr);
  RealTimeRunner runner(
      {.make_env = [] { return std::make_unique<lock::HiredisEnv>(lock::HiredisOptions{}); }});
  EXPECT_THROW(world::run_scenario_real(*s, runner), std::invalid_argument);
}

TEST(ScenarioRunReal, AllRunsTheFaultFreeOnesAndListsTheRestAsSkipped) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.all = true;
  options.real_url = server().url();
  EXPECT_EQ(scenario_run(options, out, err), 0) << out.str() << err.str();
  const std::string text = out.str();
  size_t faulted = 0;
  for (const world::Scenario& s : world::all_scenarios()) faulted += !s.run_on;
  const size_t fault_free = world::all_scenarios().size() - faulted;
  EXPECT_EQ(fault_free, 4u);
  EXPECT_NE(text.find(std::to_string(fault_free) + "/" + std::to_string(fault_free) +
                      " scenarios gave their expected verdict against " + server().url() + " (" +
                      std::to_string(faulted) + " skipped: they need an injected fault)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("skipped: needs a pause of client A before its DEL"), std::string::npos);
  EXPECT_NE(text.find("rerun: build/redsim scenario run pubsub-wakeup --real " + server().url()),
            std::string::npos);
}

TEST(ScenarioRunReal, NamedScenarioThatNeedsAFaultIsAUsageError) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.name = "blind-del";
  options.real_url = server().url();
  EXPECT_EQ(scenario_run(options, out, err), 2);
  EXPECT_EQ(
      err.str(),
      "redsim: scenario 'blind-del' needs an injected fault (a pause of client A before its "
      "DEL), which a real server cannot give; it runs only in the simulation (drop --real)\n");
}

TEST(ScenarioRunReal, NamedFaultFreeScenarioRuns) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.name = "unlock-not-owner";
  options.real_url = server().url();
  options.json = true;
  EXPECT_EQ(scenario_run(options, out, err), 0) << out.str() << err.str();
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["world"], "real") << out.str();
  EXPECT_EQ(j["observed"], "safe") << out.str();
  EXPECT_EQ(j["server"], options.real_url);
}

TEST(ScenarioRunReal, BadOrUnreachableUrlIsAUsageError) {
  std::ostringstream out, err;
  ScenarioRunOptions options;
  options.name = "pubsub-wakeup";
  options.real_url = "redis://127.0.0.1:0";
  EXPECT_EQ(scenario_run(options, out, err), 2);
  EXPECT_EQ(err.str(),
            "redsim: bad Redis URL 'redis://127.0.0.1:0': port must be 1..65535, got '0'\n");

  std::ostringstream err2;
  const testing::RefusingPort nobody_listens;
  options.real_url = "redis://127.0.0.1:" + std::to_string(nobody_listens.port());
  EXPECT_EQ(scenario_run(options, out, err2), 2);
  EXPECT_EQ(err2.str().rfind("redsim: cannot reach " + options.real_url + ": ", 0), 0u)
      << err2.str();
}

}  // namespace
}  // namespace redsim::cli

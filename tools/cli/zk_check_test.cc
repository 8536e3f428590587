// `redsim check --lock zk-mutex...`: the ZooKeeper kinds through the same
// check path as the Redis kinds (verdicts, shrinking, replay lines, --json,
// --svg, PCT, the usage errors), as functions and through the binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/world/explore/zk_explore.h"
#include "tools/cli/check_cmd.h"
#include "tools/testing/test_paths.h"

namespace redsim::cli {
namespace {

CheckOptions zk_options(world::ZkLockKind kind, int seeds, const char* faults = nullptr) {
  CheckOptions o;
  o.zk_kind = kind;
  o.seeds = seeds;
  if (faults != nullptr) o.faults = world::parse_fault_set(faults);
  return o;
}

// The seed of a "replay: ... --seed N ..." line, or 0.
uint64_t replay_seed(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + prefix.size()));
}

TEST(CheckZk, TheCorrectRecipeIsCleanUnderBudgetedFaults) {
  for (world::ZkLockKind k :
       {world::ZkLockKind::kMutex, world::ZkLockKind::kFenced, world::ZkLockKind::kHerd}) {
    std::ostringstream out, err;
    EXPECT_EQ(check(zk_options(k, 300), out, err), 0) << out.str() << err.str();
    EXPECT_TRUE(out.str().starts_with("no violation: lock " +
                                      std::string(world::zk_lock_kind_name(k)) + ", 300 seeds"))
        << out.str();
  }
}

TEST(CheckZk, PausesPastTheSessionTimeoutShowTwoHoldersAndTheReplayReproducesThem) {
  std::ostringstream out, err;
  const CheckOptions options = zk_options(world::ZkLockKind::kMutex, 200, "pause");
  ASSERT_EQ(check(options, out, err), 1) << out.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("VIOLATION (mutual-exclusion)"), std::string::npos) << text;
  EXPECT_NE(text.find("session timeout 1000 ms"), std::string::npos) << text;
  const std::string prefix = "replay: build/redsim check --lock zk-mutex --seed ";
  const uint64_t seed = replay_seed(text, prefix);
  ASSERT_GT(seed, 0u) << text;
  EXPECT_NE(text.find(prefix + std::to_string(seed) + " --faults pause\n"), std::string::npos);
  CheckOptions again = options;
  again.seed = seed;
  std::ostringstream replayed;
  EXPECT_EQ(check(again, replayed, err), 1);
  EXPECT_EQ(replayed.str(), text);  // the same counterexample, byte for byte
}

TEST(CheckZk, TheFencedRecipeIsSafeUnderTheSamePauses) {
  std::ostringstream out, err;
  EXPECT_EQ(check(zk_options(world::ZkLockKind::kFenced, 500, "pause"), out, err), 0) << out.str();
  EXPECT_NE(out.str().find("no violation: lock zk-mutex-fenced, faults pause, 500 seeds"),
            std::string::npos)
      << out.str();
}

TEST(CheckZk, TheUnprotectedRecipeStrandsTheLockOnAnOrphanAndShrinksIt) {
  const std::string svg = ::testing::TempDir() + "zk_orphan.svg";
  CheckOptions options = zk_options(world::ZkLockKind::kUnprotected, 100, "lost-reply");
  options.svg_path = svg;
  std::ostringstream out, err;
  ASSERT_EQ(check(options, out, err), 1) << out.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("VIOLATION (liveness)"), std::string::npos) << text;
  EXPECT_EQ(text.find("VIOLATION (mutual-exclusion)"), std::string::npos) << text;
  EXPECT_NE(text.find("diagnosis: orphan znode: "), std::string::npos) << text;
  EXPECT_NE(text.find("# zk: unseen by the client, the lost create made /locks/explore/lock-"),
            std::string::npos)
      << text;
  // Shrunk to at most two clients.
  EXPECT_EQ(text.find("\nclient3 (stream"), std::string::npos) << text;
  const std::string prefix = "replay: build/redsim check --lock zk-mutex-unprotected --seed ";
  const uint64_t seed = replay_seed(text, prefix);
  ASSERT_GT(seed, 0u) << text;
  std::ifstream drawn(svg);
  std::stringstream svg_text;
  svg_text << drawn.rdbuf();
  EXPECT_NE(svg_text.str().find("<svg"), std::string::npos);
  EXPECT_NE(svg_text.str().find("--lock zk-mutex-unprotected --faults lost-reply"),
            std::string::npos);

  // JSON: the same seed and replay.
  CheckOptions json = options;
  json.svg_path.clear();
  json.json = true;
  std::ostringstream jout;
  ASSERT_EQ(check(json, jout, err), 1);
  const auto j = nlohmann::json::parse(jout.str());
  EXPECT_EQ(j["lock"], "zk-mutex-unprotected");
  EXPECT_EQ(j["faults"], "lost-reply");
  EXPECT_EQ(j["seed"], seed);
  EXPECT_EQ(j["violations"][0]["checker"], "liveness");

  // The protected recipe on the same seeds: clean.
  std::ostringstream clean;
  EXPECT_EQ(check(zk_options(world::ZkLockKind::kMutex, 100, "lost-reply"), clean, err), 0)
      << clean.str();
}

TEST(CheckZk, PctExploresTheZooKeeperKindsToo) {
  CheckOptions options = zk_options(world::ZkLockKind::kMutex, 200);
  options.strategy = world::parse_strategy("pct:3");
  std::ostringstream out, err;
  EXPECT_EQ(check(options, out, err), 0) << out.str();
  options = zk_options(world::ZkLockKind::kMutex, 200, "pause");
  options.strategy = world::parse_strategy("pct:3");
  std::ostringstream bad;
  ASSERT_EQ(check(options, bad, err), 1);
  EXPECT_NE(bad.str().find(" --faults pause --strategy pct:3\n"), std::string::npos) << bad.str();
}

TEST(CheckZk, FaultsTheZooKeeperWorldDoesNotModelAreAUsageError) {
  std::ostringstream out, err;
  EXPECT_EQ(check(zk_options(world::ZkLockKind::kMutex, 10, "pause,restart"), out, err), 2);
  EXPECT_NE(err.str().find("redsim: --faults restart: not modelled for the ZooKeeper kinds"),
            std::string::npos)
      << err.str();
  CheckOptions exhaustive = zk_options(world::ZkLockKind::kMutex, 1);
  exhaustive.strategy = world::parse_strategy("exhaustive");
  std::ostringstream err2;
  EXPECT_EQ(check(exhaustive, out, err2), 2);
  EXPECT_NE(err2.str().find("no ZooKeeper kind"), std::string::npos) << err2.str();
}

int run_redsim(const std::string& args, std::string& output) {
  FILE* pipe = popen((std::string(REDSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  output.clear();
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The command line: --lock takes the ZooKeeper kinds, and the printed
// replay line, run as printed, gives the same counterexample.
TEST(CheckZkBinary, TheReplayLineRunsAsPrinted) {
  std::string help;
  EXPECT_EQ(run_redsim("check --help", help), 0);
  for (world::ZkLockKind k : world::kZkLockKinds) {
    EXPECT_NE(help.find(std::string(world::zk_lock_kind_name(k))), std::string::npos) << help;
  }
  std::string found;
  ASSERT_EQ(run_redsim("check --lock zk-mutex-unprotected --faults lost-reply --seeds 100", found),
            1)
      << found;
  const size_t at = found.find("replay: build/redsim ");
  ASSERT_NE(at, std::string::npos) << found;
  const std::string line = found.substr(at + std::string("replay: build/redsim ").size());
  const std::string args = line.substr(0, line.find('\n'));
  std::string replayed;
  EXPECT_EQ(run_redsim(args, replayed), 1);
  const std::string from = "shrunk in ";
  EXPECT_EQ(replayed.substr(replayed.find(from)), found.substr(found.find(from)));
  std::string bad;
  EXPECT_EQ(run_redsim("check --lock zk-mutex --faults clock", bad), 2);
  EXPECT_NE(bad.find("not modelled for the ZooKeeper kinds"), std::string::npos) << bad;
}

}  // namespace
}  // namespace redsim::cli

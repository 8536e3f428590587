// Golden history hashes (tools/testdata/golden_history_hashes.txt): each
// listed scenario and seed, run through `redsim scenario run --json`, must
// give the checked-in history hash, so a run's history never changes by
// accident. REDSIM_REGENERATE_GOLDEN=1 rewrites the hashes in the source
// tree instead (the list of scenarios and seeds is kept).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli/scenario_cmd.h"
#include "tools/testing/test_paths.h"

namespace redsim::cli {
namespace {

const std::string kGolden =
    std::string(REDSIM_SOURCE_DIR) + "/tools/testdata/golden_history_hashes.txt";

struct Golden {
  std::string name;
  uint64_t seed = 0;
  std::string hash;
};

// The file's comment lines and its entries, in order.
void read_golden(std::vector<std::string>* comments, std::vector<Golden>* entries) {
  std::ifstream in(kGolden);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      comments->push_back(line);
      continue;
    }
    std::istringstream fields(line);
    Golden g;
    fields >> g.name >> g.seed >> g.hash;
    entries->push_back(g);
  }
}

std::string history_hash(const std::string& name, uint64_t seed) {
  ScenarioRunOptions options;
  options.name = name;
  options.seed = seed;
  options.json = true;
  std::ostringstream out, err;
  scenario_run(options, out, err);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  return j.at("history_hash").get<std::string>();
}

TEST(GoldenHistory, HashesMatchTheCheckedInList) {
  std::vector<std::string> comments;
  std::vector<Golden> entries;
  read_golden(&comments, &entries);
  ASSERT_GE(entries.size(), 10u) << kGolden;
  if (std::getenv("REDSIM_REGENERATE_GOLDEN") != nullptr) {
    std::ofstream out(kGolden);
    for (const std::string& c : comments) out << c << "\n";
    for (const Golden& g : entries) {
      out << g.name << " " << g.seed << " " << history_hash(g.name, g.seed) << "\n";
    }
    GTEST_SKIP() << "regenerated " << kGolden;
  }
  for (const Golden& g : entries) {
    EXPECT_EQ(history_hash(g.name, g.seed), g.hash)
        << g.name << " --seed " << g.seed << ": the history changed; if intended, regenerate (see "
        << kGolden << ")";
  }
}

}  // namespace
}  // namespace redsim::cli

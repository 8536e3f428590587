// redsim_yardstick: schedules to first failure per exploration strategy, on
// redsim's broken kinds (a measurement, not a test: it prints a table).
//
//   build/redsim_yardstick [--seeds N] [--starts S] [--kinds get-del,blind-del]
//
// For each kind and strategy it runs seeds 1..N (the budgeted plans of
// `redsim check --lock KIND`), notes which fail, and for S starting points
// (1, 1 + N/S, ...) counts the seeds from there to the first failing one
// (N - start + 1 when none fails: a lower bound). It prints the failure
// rate, the median and 90th percentile of those counts, and the seconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "sim/world/explore.h"
#include "sim/world/pct.h"

namespace {

using redsim::lock::LockKind;
namespace world = redsim::world;

struct Row {
  double rate = 0;
  uint64_t median = 0;
  uint64_t p90 = 0;
  double seconds = 0;
};

Row measure(LockKind kind, world::Strategy strategy, uint64_t seeds, uint64_t starts) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<bool> fails(seeds + 2, false);
  uint64_t failed = 0;
  for (uint64_t s = 1; s <= seeds; ++s) {
    world::ExplorePlan plan = world::generate_plan(kind, s);
    plan.strategy = strategy;
    fails[s] = !world::run_plan(plan).violations.empty();
    failed += fails[s];
  }
  std::vector<uint64_t> counts;
  for (uint64_t i = 0; i < starts; ++i) {
    const uint64_t start = 1 + i * (seeds / starts);
    uint64_t s = start;
    while (s <= seeds && !fails[s]) ++s;
    counts.push_back(s - start + 1);
  }
  std::sort(counts.begin(), counts.end());
  Row row;
  row.rate = static_cast<double>(failed) / static_cast<double>(seeds);
  row.median = counts[counts.size() / 2];
  row.p90 = counts[std::min(counts.size() - 1, counts.size() * 9 / 10)];
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seeds = 2000, starts = 20;
  std::vector<std::string> kinds = {"get-del", "blind-del", "setnx-expire"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--seeds") {
      seeds = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--starts") {
      starts = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--kinds") {
      kinds.clear();
      std::string list = argv[i + 1];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        kinds.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: redsim_yardstick [--seeds N] [--starts S] [--kinds LIST]\n");
      return 2;
    }
  }
  if (seeds < starts || starts == 0) {
    std::fprintf(stderr, "redsim_yardstick: --seeds must be >= --starts >= 1\n");
    return 2;
  }
  std::printf("| kind | strategy | failing seeds | to first failure: median | p90 | seconds |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const std::string& name : kinds) {
    const auto kind = redsim::lock::parse_lock_kind(name);
    if (!kind) {
      std::fprintf(stderr, "redsim_yardstick: unknown kind '%s'\n", name.c_str());
      return 2;
    }
    for (const char* strategy : {"random", "pct:1", "pct:2", "pct:3"}) {
      const Row r = measure(*kind, world::parse_strategy(strategy), seeds, starts);
      std::printf("| %s | %s | %.2f %% | %llu | %llu | %.1f |\n", name.c_str(), strategy,
                  100 * r.rate, static_cast<unsigned long long>(r.median),
                  static_cast<unsigned long long>(r.p90), r.seconds);
      std::fflush(stdout);
    }
  }
  return 0;
}

// redsim_yardstick: schedules to first failure per exploration strategy, on
// redsim's broken kinds (a measurement, not a test: it prints a table).
//
//   build/redsim_yardstick [--seeds N] [--starts S] [--kinds get-del,blind-del]
//   build/redsim_yardstick --exhaustive B [--seeds N] [--max-runs M] [--kinds simple,get-del]
//
// For each kind and strategy it runs seeds 1..N (the budgeted plans of
// `redsim check --lock KIND`), notes which fail, and for S starting points
// (1, 1 + N/S, ...) counts the seeds from there to the first failing one
// (N - start + 1 when none fails: a lower bound). It prints the failure
// rate, the median and 90th percentile of those counts, and the seconds.
//
// With --exhaustive B it searches instead (sim/world/explore/exhaustive.h): for each
// kind and seed 1..N, every schedule of generate_small_plan(kind, seed) (2
// clients x up to 2 attempts) up to bound B, at most M runs per seed. It
// prints the seeds whose search found a violation, the schedules run from
// seed 1 to the first one found (whole searches of the seeds before it,
// plus the failing seed's schedules up to its counterexample, as
// `redsim check --strategy exhaustive:B --seeds N` runs them), the
// schedules of each completed search without a violation (the N of "no
// violation in all N schedules"), the searches cut by M, and the seconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/explore.h"
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

int exhaustive_table(const std::vector<std::string>& kinds, int bound, uint64_t seeds,
                     uint64_t max_runs) {
  std::printf(
      "| kind | strategy | seeds with a violation | schedules to first failure | proved seeds: "
      "schedules each | cut at %llu runs | seconds |\n",
      static_cast<unsigned long long>(max_runs));
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const std::string& name : kinds) {
    const auto kind = redsim::lock::parse_lock_kind(name);
    if (!kind) {
      std::fprintf(stderr, "redsim_yardstick: unknown kind '%s'\n", name.c_str());
      return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t found = 0, cut = 0, total = 0;
    std::optional<uint64_t> to_first;
    std::string proved;
    for (uint64_t s = 1; s <= seeds; ++s) {
      world::ExplorePlan plan = world::generate_small_plan(*kind, s);
      plan.strategy = world::Strategy{.bound = bound};
      const world::ExhaustiveResult r = world::explore_exhaustive(plan, max_runs);
      total += r.schedules;
      if (r.counterexample) {
        ++found;
        if (!to_first) to_first = total;
      } else if (r.complete) {
        proved += (proved.empty() ? "" : ", ") + std::to_string(r.schedules);
      } else {
        ++cut;
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "| %s | exhaustive:%d | %llu / %llu | %s | %s | %llu | %.1f |\n", name.c_str(), bound,
        static_cast<unsigned long long>(found), static_cast<unsigned long long>(seeds),
        to_first ? std::to_string(*to_first).c_str() : "none",
        proved.empty() ? "-" : proved.c_str(), static_cast<unsigned long long>(cut), seconds);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seeds = 2000, starts = 20, max_runs = 20000;
  int bound = -1;
  std::vector<std::string> kinds = {"get-del", "blind-del", "setnx-expire"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--seeds") {
      seeds = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--starts") {
      starts = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--exhaustive") {
      bound = std::atoi(argv[i + 1]);
    } else if (flag == "--max-runs") {
      max_runs = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--kinds") {
      kinds.clear();
      std::string list = argv[i + 1];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        kinds.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: redsim_yardstick [--seeds N] [--starts S] [--kinds LIST] "
                   "[--exhaustive B [--max-runs M]]\n");
      return 2;
    }
  }
  if (bound >= 0) return exhaustive_table(kinds, bound, seeds, max_runs);
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

// scan_seeds: the serial answer on any number of threads, shards by stride.
#include "tools/cli/seed_scan.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <stdexcept>

namespace redsim::cli {
namespace {

// Seed s costs s commands and 2s simulated us; the seeds in `failing` fail.
ScanResult scan_with(SeedScan scan, std::set<uint64_t> failing) {
  return scan_seeds(scan, [&failing](uint64_t seed) {
    return SeedOutcome{seed, static_cast<int64_t>(2 * seed), failing.contains(seed)};
  });
}

TEST(SeedScan, EveryJobCountGivesTheSerialAnswer) {
  for (int jobs : {1, 2, 3, 8}) {
    const ScanResult r = scan_with({.first = 1, .last = 500, .jobs = jobs}, {90, 37, 400});
    ASSERT_TRUE(r.failing_seed) << jobs;
    EXPECT_EQ(*r.failing_seed, 37u) << jobs;
    EXPECT_EQ(r.explored, 37u) << jobs;
    EXPECT_EQ(r.commands, 37u * 38 / 2) << jobs;
    EXPECT_EQ(r.simulated_us, 37 * 38) << jobs;
  }
}

TEST(SeedScan, CleanRunCountsEverySeed) {
  for (int jobs : {1, 2, 5}) {
    const ScanResult r = scan_with({.first = 11, .last = 310, .jobs = jobs}, {});
    EXPECT_FALSE(r.failing_seed) << jobs;
    EXPECT_EQ(r.explored, 300u) << jobs;
    EXPECT_EQ(r.commands, (11u + 310u) * 300 / 2) << jobs;
  }
}

TEST(SeedScan, FailureOnTheFirstOrLastSeed) {
  for (int jobs : {1, 2}) {
    EXPECT_EQ(scan_with({.first = 1, .last = 100, .jobs = jobs}, {1}).failing_seed, 1u);
    const ScanResult last = scan_with({.first = 1, .last = 100, .jobs = jobs}, {100});
    EXPECT_EQ(last.failing_seed, 100u);
    EXPECT_EQ(last.explored, 100u);
  }
}

TEST(SeedScan, ShardsTakeEveryNthSeed) {
  SeedScan scan{.first = 1, .last = 10, .shard = 2, .shard_count = 3};
  EXPECT_EQ(shard_seed_count(scan), 3u);  // 2, 5, 8
  std::set<uint64_t> seen;
  for (int jobs : {1, 2}) {
    scan.jobs = jobs;
    seen.clear();
    std::mutex m;  // the seed function runs on `jobs` threads at once
    scan_seeds(scan, [&seen, &m](uint64_t s) {
      std::lock_guard<std::mutex> hold(m);
      seen.insert(s);
      return SeedOutcome{};
    });
    EXPECT_EQ(seen, (std::set<uint64_t>{2, 5, 8}));
  }
  // A shard past the range owns nothing.
  EXPECT_EQ(shard_seed_count({.first = 1, .last = 2, .shard = 3, .shard_count = 3}), 0u);
  // The shards' lowest failing seeds: their minimum is the serial one.
  uint64_t lowest = UINT64_MAX;
  uint64_t explored = 0;
  for (int k = 1; k <= 4; ++k) {
    const ScanResult r =
        scan_with({.first = 1, .last = 1000, .shard = k, .shard_count = 4, .jobs = 2}, {77, 78});
    if (r.failing_seed) lowest = std::min(lowest, *r.failing_seed);
    explored += r.explored;
  }
  EXPECT_EQ(lowest, 77u);
  EXPECT_EQ(explored, 20u + 20u + 250u + 250u);  // shard 1 stops at 77, shard 2 at 78
}

TEST(SeedScan, AnExceptionIsRethrownOnlyWhenNoEarlierSeedFailed) {
  auto run = [](uint64_t throws, uint64_t fails) {
    return [throws, fails](uint64_t seed) {
      if (seed == throws) throw std::runtime_error("seed " + std::to_string(seed));
      return SeedOutcome{1, 1, seed == fails};
    };
  };
  for (int jobs : {1, 2}) {
    EXPECT_THROW(scan_seeds({.first = 1, .last = 200, .jobs = jobs}, run(20, 30)),
                 std::runtime_error);
    const ScanResult r = scan_seeds({.first = 1, .last = 200, .jobs = jobs}, run(20, 10));
    EXPECT_EQ(r.failing_seed, 10u);
  }
}

}  // namespace
}  // namespace redsim::cli

// Running the seeds of `redsim check` on several threads with the result of
// a serial run: the seeds are taken in order, in blocks, by N workers; once
// a seed fails, no later seed is started, and the result is exactly what a
// serial loop that stops at its first failure computes (the lowest failing
// seed, the seeds and commands counted up to it).
//
//   SeedScan scan{.first = 1, .last = 2000, .jobs = 2};
//   ScanResult r = scan_seeds(scan, [](uint64_t seed) { return run_one(seed); });
//   if (r.failing_seed) shrink(*r.failing_seed);
//
// Shards (`--shard K/N`, a CI matrix) take every N-th seed: shard K of N
// owns the seeds s in [first, last] with (s - first) mod N == K - 1, so each
// shard covers the low seeds too and the shards cost about the same. The
// lowest failing seed over all shards is the lowest of the shards' own.
//
// Every `run` call must be independent of the others (each builds its own
// world): they run concurrently when jobs > 1.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace redsim::cli {

struct SeedScan {
  uint64_t first = 1;
  uint64_t last = 1;  // inclusive
  int shard = 1;      // 1..shard_count
  int shard_count = 1;
  int jobs = 1;  // worker threads; 1 runs on the caller's thread
};

// What one seed gave.
struct SeedOutcome {
  uint64_t commands = 0;
  int64_t simulated_us = 0;
  bool failed = false;
};

struct ScanResult {
  uint64_t explored = 0;     // seeds of the shard up to the failing one (all of them if none)
  uint64_t commands = 0;     // summed over those seeds
  int64_t simulated_us = 0;  // summed over those seeds
  std::optional<uint64_t> failing_seed;  // the lowest seed whose outcome failed
};

// The number of seeds shard `scan.shard` owns.
uint64_t shard_seed_count(const SeedScan& scan);

// Runs the shard's seeds as above. `progress(done)` (may be empty) is called
// with the number of seeds finished so far, from one thread at a time. An
// exception thrown by `run` for seed s is rethrown (after every worker has
// stopped) when no seed below s failed: what a serial loop would do.
ScanResult scan_seeds(const SeedScan& scan, const std::function<SeedOutcome(uint64_t)>& run,
                      const std::function<void(uint64_t)>& progress = {});

}  // namespace redsim::cli

#include "tools/cli/seed_scan.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace redsim::cli {

namespace {

// What the seeds of one block gave, up to its first failure.
struct Block {
  uint64_t commands = 0;
  int64_t simulated_us = 0;
  uint64_t ran = 0;
  std::optional<uint64_t> failed_index;
  std::exception_ptr error;  // thrown at failed_index
};

}  // namespace

uint64_t shard_seed_count(const SeedScan& scan) {
  const uint64_t start = scan.first + static_cast<uint64_t>(scan.shard - 1);
  if (scan.last < start) return 0;
  return (scan.last - start) / static_cast<uint64_t>(scan.shard_count) + 1;
}

ScanResult scan_seeds(const SeedScan& scan, const std::function<SeedOutcome(uint64_t)>& run,
                      const std::function<void(uint64_t)>& progress) {
  const uint64_t count = shard_seed_count(scan);
  const uint64_t start = scan.first + static_cast<uint64_t>(scan.shard - 1);
  const uint64_t stride = static_cast<uint64_t>(scan.shard_count);
  const uint64_t jobs = static_cast<uint64_t>(std::max(scan.jobs, 1));
  // Small blocks keep the work past a failure short; 64 bounds the bookkeeping.
  const uint64_t block_size = std::clamp<uint64_t>(count / (jobs * 16), 1, 64);
  const uint64_t blocks = (count + block_size - 1) / block_size;

  std::vector<Block> results(blocks);
  std::atomic<uint64_t> next_block{0};
  std::atomic<uint64_t> stop_index{count};  // the lowest failing index seen so far
  std::atomic<uint64_t> done{0};
  std::mutex progress_mutex;

  auto worker = [&] {
    for (;;) {
      const uint64_t b = next_block.fetch_add(1);
      if (b >= blocks || b * block_size >= stop_index.load()) return;
      Block& block = results[b];
      const uint64_t end = std::min(count, (b + 1) * block_size);
      for (uint64_t i = b * block_size; i < end && i < stop_index.load(); ++i) {
        if (progress && jobs == 1) progress(done.load());
        bool failed = false;
        try {
          const SeedOutcome o = run(start + i * stride);
          block.commands += o.commands;
          block.simulated_us += o.simulated_us;
          failed = o.failed;
        } catch (...) {
          block.error = std::current_exception();
          failed = true;
        }
        ++block.ran;
        const uint64_t finished = done.fetch_add(1) + 1;
        if (progress && jobs > 1) {
          std::lock_guard lock(progress_mutex);
          progress(finished);
        }
        if (failed) {
          block.failed_index = i;
          uint64_t seen = stop_index.load();
          while (i < seen && !stop_index.compare_exchange_weak(seen, i)) {
          }
          break;
        }
      }
    }
  };
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::jthread> threads;
    for (uint64_t j = 0; j < jobs; ++j) threads.emplace_back(worker);
  }

  // Every block below the lowest failing index ran whole: no index below it
  // was ever at or past stop_index.
  ScanResult result;
  const uint64_t failing = stop_index.load();
  for (uint64_t b = 0; b < blocks && b * block_size <= failing; ++b) {
    const Block& block = results[b];
    result.explored += block.ran;
    result.commands += block.commands;
    result.simulated_us += block.simulated_us;
    if (block.failed_index == failing) {
      if (block.error) std::rethrow_exception(block.error);
      result.failing_seed = start + failing * stride;
    }
  }
  return result;
}

}  // namespace redsim::cli

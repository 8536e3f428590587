// `redsim check`: random schedules for one lock kind, judged by the checkers.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "lock/lock.h"

namespace redsim::cli {

struct CheckOptions {
  lock::LockKind kind = lock::LockKind::kSimple;
  int clients = 0;               // 0: drawn per seed in 2..8
  int seeds = 1000;              // seeds 1..seeds, unless `seed` is set
  std::optional<uint64_t> seed;  // exactly this seed (a replay)
  std::string svg_path;          // non-empty: draw the shrunk counterexample there
};

// Explores; returns 0 when no violation was found, 1 after printing the
// shrunk counterexample and the command that replays it (and drawing it to
// options.svg_path when set), 2 when the SVG file cannot be written
// (message on `err`).
int check(const CheckOptions& options, std::ostream& out, std::ostream& err);

// The command line that replays `seed` with these options.
std::string check_replay_command(const CheckOptions& options, uint64_t seed);

}  // namespace redsim::cli

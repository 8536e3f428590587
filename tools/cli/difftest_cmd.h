// `redsim difftest`: the differential tester (tools/difftest/difftest.h)
// against a real redis-server.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace redsim::cli {

struct DifftestOptions {
  std::string host = "127.0.0.1";
  // A redis-server 7.0 started with --enable-debug-command yes; 0: start one
  // (Debian's /usr/bin/redis-server) on a free loopback port for the run.
  int port = 0;
  uint64_t seed = 1;                  // first seed
  int seeds = 1;                      // seeds seed .. seed+seeds-1
  size_t commands = 1000;             // steps per seed
  bool shrink = true;                 // shrink a mismatch before printing it
  std::vector<std::string> families;  // difftest::GenOptions::families; empty: all
};

// Runs the seeds; prints a summary line per seed and, on a mismatch, the
// shrunk sequence, both sides' bytes, the seed and the replay command.
// Returns 0 with no mismatch, 1 on a mismatch, 2 when the server cannot be
// reached or started (message on `err`).
int difftest(const DifftestOptions& options, std::ostream& out, std::ostream& err);

}  // namespace redsim::cli

// What the fake-vs-real benchmarks share: the real redis-server of the run
// and the wall-clock counters every side-by-side row reports.
//
//   void BM_Something_Real(benchmark::State& state) {
//     if (!bench::require_real_server(state)) return;   // skipped, with the reason
//     lock::HiredisEnv env(bench::real_options());
//     ...
//   }
//
// bench/main.cc starts one testing::RedisServerProcess (Debian's
// redis-server 7.0 on a free loopback port, persistence off) on the main
// thread before any benchmark runs and stops it after the last one, so
// nothing is left running. When it cannot start (no binary, no port), every
// *_Real benchmark is skipped with SkipWithError and the reason, and the
// fake rows still run.
//
// Rates are computed from wall time (std::chrono::steady_clock) measured by
// the benchmark itself around the measured work, never from Google
// Benchmark's CPU time: a real round trip spends its time in the kernel and
// in redis-server, which the client's CPU time does not see.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "lock/hiredis/hiredis_options.h"

namespace redsim::bench {

// Set by main(): the port of the running server, 0 when none.
void set_real_server(uint16_t port, std::string why_not);

// True when a real server runs; otherwise skips `state` with the reason.
bool require_real_server(benchmark::State& state);

// Options for a HiredisEnv connected to the run's server (command timeout
// 10 s: a loaded machine may stall a reply for a long while).
lock::HiredisOptions real_options();

// Reads INFO stats' total_commands_processed of the run's server: every
// command it executed, including the redis.call()s of scripts (as the fake's
// Server::commands_processed() counts them).
uint64_t real_commands_processed();

using WallClock = std::chrono::steady_clock;

inline double seconds_since(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

}  // namespace redsim::bench

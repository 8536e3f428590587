// The same lock code, fake vs real, in one run (issue 3, section 3). Every
// *_Real benchmark runs against the redis-server that main() started for the
// run (bench_support.h); every *_Fake one against the in-process fake. Rates
// are wall-clock rates measured here (counters), not Google Benchmark's CPU
// time. bench/README.md has the table this produces.
//
// - BM_OneClient_{Simple,Reentrant}_{Fake,Real}: one client, lock() then
//   unlock() in a loop. Fake: world::DirectEnv over sim::Server (no fibers,
//   no history: the lock code plus the fake server). Real: lock::HiredisEnv
//   on loopback. ReentrantLock with an explicit 30 s lease (no watchdog
//   thread), as Redisson's lock(leaseTime).
// - BM_OneClient_Reentrant_FakeWorld: the same cycle on a process of the
//   deterministic world (zero latency): fibers, scheduler, history.
// - BM_Contention_{Simple,Reentrant}_{Fake,Real}/clients:N: N clients on one
//   lock, each looping lock, a tiny critical section (an occupancy counter
//   that detects overlaps), unlock. Real: N std::threads, each with its own
//   HiredisEnv (its own connection and subscriber connection), for a
//   window of wall time. Fake: N processes of a World at zero latency, each
//   doing a fixed number of sections. Counters: completed critical sections
//   per second of wall time, server commands per second, overlaps (must be 0).
// - BM_Handoff_{Reentrant,Simple}_{Real,Fake}: time from the holder's unlock
//   call to the waiting client holding the lock. The ReentrantLock waiter is
//   woken by the unlock message on its channel (pub/sub); the SimpleLock
//   waiter polls (SET NX PX retried with jittered exponential backoff,
//   5 ms doubling to 100 ms). Real: wall-clock us between two threads. Fake:
//   virtual us in a World whose every message takes latency_us one way.
// - BM_PingRoundTrip_Real: one PING round trip on loopback (for reading the
//   hand-off figures).
// - BM_SimSpeed_Fake/clients:N: simulated Redis commands (as the server
//   counts them: client commands and the redis.call()s of scripts) per
//   second of wall time, N processes contending on a ReentrantLock in a
//   World whose messages take 50-150 us one way. BM_SimSpeed_Real/clients:8:
//   the same loop as 8 threads on the real server for a window (INFO's
//   total_commands_processed counts the same way). Fake rows also report
//   cmds_per_cpu_s: the same commands per second of the thread's CPU time,
//   which a loaded (shared) machine does not distort.
//
// A lock::Error in a real client (timeout, broken connection) skips that
// benchmark with the error's message.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support.h"
#include "lock/errors.h"
#include "lock/hiredis/hiredis_env.h"
#include "lock/lock.h"
#include "lock/reentrant_lock.h"
#include "sim/world/direct_env.h"
#include "sim/world/world.h"

namespace redsim::bench {
namespace {

using lock::LockKind;
using std::chrono::milliseconds;

constexpr const char* kKey = "bench:side-by-side";

lock::LockOptions lock_options() {
  lock::LockOptions options;
  options.lease = milliseconds(30000);  // ReentrantLock: explicit lease, no watchdog
  return options;
}

// How long each real contention run lasts (REDSIM_BENCH_WINDOW_MS, default 500).
milliseconds real_window() {
  static const milliseconds window = [] {
    const char* text = std::getenv("REDSIM_BENCH_WINDOW_MS");
    const long ms = text ? std::strtol(text, nullptr, 10) : 0;
    return milliseconds(ms > 0 ? ms : 500);
  }();
  return window;
}

// ---------------------------------------------------------------- one client

void cycles(benchmark::State& state, lock::Env& env, LockKind kind) {
  auto lk = lock::make_lock(kind, env, kKey, lock_options());
  lk->lock();  // warm-up: connects, loads the scripts
  lk->unlock();
  const auto start = WallClock::now();
  for (auto _ : state) {
    lk->lock();
    lk->unlock();
  }
  state.counters["cycles_per_s"] = static_cast<double>(state.iterations()) / seconds_since(start);
}

void one_client_fake(benchmark::State& state, LockKind kind) {
  world::DirectWorld world;
  world::DirectEnv env(world, "c1-0123abcd");
  env.record_calls = false;
  env.record_traces = false;
  cycles(state, env, kind);
}

void one_client_real(benchmark::State& state, LockKind kind) {
  if (!require_real_server(state)) return;
  lock::HiredisEnv env(real_options());
  cycles(state, env, kind);
}

void BM_OneClient_Simple_Fake(benchmark::State& state) {
  one_client_fake(state, LockKind::kSimple);
}
void BM_OneClient_Simple_Real(benchmark::State& state) {
  one_client_real(state, LockKind::kSimple);
}
void BM_OneClient_Reentrant_Fake(benchmark::State& state) {
  one_client_fake(state, LockKind::kReentrant);
}
void BM_OneClient_Reentrant_Real(benchmark::State& state) {
  one_client_real(state, LockKind::kReentrant);
}

void BM_OneClient_Reentrant_FakeWorld(benchmark::State& state) {
  world::World w;
  double seconds = 0;
  w.spawn_process("bench", [&state, &seconds](world::ProcessEnv& env) {
    lock::ReentrantLock lk(env, kKey);
    const auto start = WallClock::now();
    for (auto _ : state) {
      lk.lock(milliseconds(30000));
      lk.unlock();
    }
    seconds = seconds_since(start);
  });
  w.run();
  state.counters["cycles_per_s"] = static_cast<double>(state.iterations()) / seconds;
}

BENCHMARK(BM_OneClient_Simple_Fake)->UseRealTime();
BENCHMARK(BM_OneClient_Simple_Real)->UseRealTime();
BENCHMARK(BM_OneClient_Reentrant_Fake)->UseRealTime();
BENCHMARK(BM_OneClient_Reentrant_FakeWorld)->UseRealTime();
BENCHMARK(BM_OneClient_Reentrant_Real)->UseRealTime();

// ---------------------------------------------------------------- contention

struct ContentionTotals {
  uint64_t sections = 0;
  uint64_t commands = 0;
  uint64_t overlaps = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // fake runs only: this thread's CPU time (the machine may be shared)
  std::string error;       // the first lock::Error a real client hit ("" if none)

  void report(benchmark::State& state) const {
    if (!error.empty()) {
      state.SkipWithError(("a client failed: " + error).c_str());
      return;
    }
    state.counters["cs_per_s"] = static_cast<double>(sections) / seconds;
    state.counters["cmds_per_s"] = static_cast<double>(commands) / seconds;
    state.counters["overlaps"] = static_cast<double>(overlaps);
    if (cpu_seconds > 0) {
      state.counters["cmds_per_cpu_s"] = static_cast<double>(commands) / cpu_seconds;
    }
  }
};

// CPU time of the calling thread in seconds (a fake run is single-threaded).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// N real clients (threads, one HiredisEnv each) for one window.
void run_real_contention(LockKind kind, int clients, ContentionTotals& totals) {
  std::vector<std::unique_ptr<lock::HiredisEnv>> envs;
  for (int i = 0; i < clients; ++i)
    envs.push_back(std::make_unique<lock::HiredisEnv>(real_options()));
  std::latch ready(clients);
  std::latch go(1);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sections{0};
  std::atomic<int> inside{0};
  std::atomic<uint64_t> overlaps{0};
  std::mutex error_mu;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      lock::HiredisEnv& env = *envs[i];
      auto lk = lock::make_lock(kind, env, kKey, lock_options());
      try {
        env.connection().call({"PING"});  // connected before the window opens
      } catch (const lock::Error& e) {
        std::lock_guard guard(error_mu);
        if (totals.error.empty()) totals.error = e.what();
        stop = true;
      }
      ready.count_down();
      go.wait();
      uint64_t mine = 0;
      try {
        while (!stop.load(std::memory_order_relaxed)) {
          lk->lock();
          if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);  // the critical section
          inside.fetch_sub(1);
          lk->unlock();
          ++mine;
        }
      } catch (const lock::Error& e) {
        std::lock_guard guard(error_mu);
        if (totals.error.empty()) totals.error = e.what();
        stop = true;
      }
      sections.fetch_add(mine);
    });
  }
  ready.wait();
  const uint64_t commands_before = real_commands_processed();
  const auto start = WallClock::now();
  go.count_down();
  std::this_thread::sleep_for(real_window());
  stop = true;
  for (auto& t : threads) t.join();
  totals.seconds += seconds_since(start);
  totals.commands += real_commands_processed() - commands_before;
  totals.sections += sections.load();
  totals.overlaps += overlaps.load();
}

// N simulated clients in a World, `per_client` sections each.
void run_fake_contention(LockKind kind, int clients, int per_client, const world::FaultPlan& faults,
                         ContentionTotals& totals) {
  const auto start = WallClock::now();
  const double cpu_start = thread_cpu_seconds();
  world::WorldOptions options;
  options.faults = faults;
  world::World w(options);
  uint64_t sections = 0;
  int inside = 0;
  for (int i = 0; i < clients; ++i) {
    w.spawn_process("c" + std::to_string(i + 1), [&](world::ProcessEnv& env) {
      auto lk = lock::make_lock(kind, env, kKey, lock_options());
      for (int k = 0; k < per_client; ++k) {
        lk->lock();
        if (inside++ != 0) ++totals.overlaps;  // the critical section
        --inside;
        lk->unlock();
        ++sections;
      }
    });
  }
  w.run();
  totals.seconds += seconds_since(start);
  totals.cpu_seconds += thread_cpu_seconds() - cpu_start;
  totals.sections += sections;
  totals.commands += w.server().commands_processed();
}

// Sections per fake run: enough to dwarf the world's setup.
int fake_sections_per_client(int clients) { return std::max(16, 2000 / clients); }

void contention_fake(benchmark::State& state, LockKind kind) {
  const int clients = static_cast<int>(state.range(0));
  ContentionTotals totals;
  for (auto _ : state) {
    run_fake_contention(kind, clients, fake_sections_per_client(clients), {}, totals);
  }
  totals.report(state);
}

void contention_real(benchmark::State& state, LockKind kind) {
  if (!require_real_server(state)) return;
  const int clients = static_cast<int>(state.range(0));
  ContentionTotals totals;
  for (auto _ : state) {
    run_real_contention(kind, clients, totals);
    if (!totals.error.empty()) break;
  }
  totals.report(state);
}

void BM_Contention_Simple_Fake(benchmark::State& state) {
  contention_fake(state, LockKind::kSimple);
}
void BM_Contention_Simple_Real(benchmark::State& state) {
  contention_real(state, LockKind::kSimple);
}
void BM_Contention_Reentrant_Fake(benchmark::State& state) {
  contention_fake(state, LockKind::kReentrant);
}
void BM_Contention_Reentrant_Real(benchmark::State& state) {
  contention_real(state, LockKind::kReentrant);
}

BENCHMARK(BM_Contention_Simple_Fake)->ArgName("clients")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();
BENCHMARK(BM_Contention_Simple_Real)->ArgName("clients")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();
BENCHMARK(BM_Contention_Reentrant_Fake)->ArgName("clients")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();
BENCHMARK(BM_Contention_Reentrant_Real)->ArgName("clients")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();

// ---------------------------------------------------------------- hand-off

constexpr int kHandoffRounds = 200;
// How long the holder keeps the lock after the waiter started waiting.
constexpr milliseconds kHold{5};

void report_latencies(benchmark::State& state, std::vector<double> us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  auto pct = [&us](double q) {
    return us[std::min(us.size() - 1, static_cast<size_t>(q * static_cast<double>(us.size())))];
  };
  state.counters["mean_us"] =
      std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(us.size());
  state.counters["p50_us"] = pct(0.50);
  state.counters["p90_us"] = pct(0.90);
  state.counters["p99_us"] = pct(0.99);
  state.counters["max_us"] = us.back();
  state.counters["samples"] = static_cast<double>(us.size());
}

void handoff_real(benchmark::State& state, LockKind kind) {
  if (!require_real_server(state)) return;
  lock::HiredisEnv holder_env(real_options());
  lock::HiredisEnv waiter_env(real_options());
  auto holder = lock::make_lock(kind, holder_env, kKey, lock_options());
  holder->lock();  // warm-up: connect, load the scripts
  holder->unlock();

  std::mutex mu;
  std::condition_variable cv;
  int round_started = 0;  // rounds the waiter was asked to wait in
  int round_done = 0;     // rounds in which the waiter took the lock
  bool quit = false;
  std::string error;  // set by the waiter when a lock call failed
  WallClock::time_point acquired_at;
  std::thread waiter([&] {
    auto lk = lock::make_lock(kind, waiter_env, kKey, lock_options());
    waiter_env.connection().call({"PING"});
    int seen = 0;
    while (true) {
      {
        std::unique_lock guard(mu);
        cv.wait(guard, [&] { return quit || round_started > seen; });
        if (quit) return;
        seen = round_started;
      }
      WallClock::time_point t;
      std::string failed;
      try {
        lk->lock();
        t = WallClock::now();
        lk->unlock();
      } catch (const lock::Error& e) {
        failed = e.what();
      }
      {
        std::lock_guard guard(mu);
        acquired_at = t;
        round_done = seen;
        if (error.empty()) error = failed;
      }
      cv.notify_all();
      if (!failed.empty()) return;
    }
  });

  const std::string channel = lock::ReentrantLock::channel_name(kKey);
  std::vector<double> samples;
  for (auto _ : state) {
    holder->lock();
    {
      std::lock_guard guard(mu);
      ++round_started;
    }
    cv.notify_all();
    if (kind == LockKind::kReentrant) {
      // Wait until the waiter is subscribed to the unlock channel.
      while (true) {
        const lock::Reply r = holder_env.connection().call({"PUBSUB", "NUMSUB", channel});
        if (r.is_array() && r.elements().size() == 2 && r.elements()[1].integer() > 0) break;
        {
          std::lock_guard guard(mu);
          if (!error.empty()) break;  // the waiter gave up: it will never subscribe
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    std::this_thread::sleep_for(kHold);
    const auto unlock_at = WallClock::now();
    holder->unlock();
    std::unique_lock guard(mu);
    cv.wait(guard, [&] { return round_done == round_started; });
    if (!error.empty()) break;
    samples.push_back(std::chrono::duration<double, std::micro>(acquired_at - unlock_at).count());
  }
  {
    std::lock_guard guard(mu);
    quit = true;
  }
  cv.notify_all();
  waiter.join();
  if (!error.empty()) {
    state.SkipWithError(("the waiter failed: " + error).c_str());
    return;
  }
  report_latencies(state, std::move(samples));
}

// The same rounds in a World: virtual time, `latency_us` per message one way.
void handoff_fake(benchmark::State& state, LockKind kind) {
  const int64_t latency_us = state.range(0);
  std::vector<double> samples;
  for (auto _ : state) {
    world::WorldOptions options;
    options.faults.latency_min = world::Micros{latency_us};
    options.faults.latency_max = world::Micros{latency_us};
    world::World w(options);
    int round_started = 0;
    int round_done = 0;
    lock::EnvTime unlock_at{};
    const lock::Micros poll{10};
    w.spawn_process("holder", [&](world::ProcessEnv& env) {
      auto lk = lock::make_lock(kind, env, kKey, lock_options());
      for (int r = 0; r < kHandoffRounds; ++r) {
        lk->lock();
        ++round_started;
        env.sleep_for(kHold);
        unlock_at = env.now();
        lk->unlock();
        while (round_done < round_started) env.sleep_for(poll);
      }
    });
    w.spawn_process("waiter", [&](world::ProcessEnv& env) {
      auto lk = lock::make_lock(kind, env, kKey, lock_options());
      for (int r = 0; r < kHandoffRounds; ++r) {
        while (round_started <= r) env.sleep_for(poll);
        lk->lock();
        samples.push_back(static_cast<double>((env.now() - unlock_at).count()));
        lk->unlock();
        round_done = r + 1;
      }
    });
    w.run();
  }
  report_latencies(state, std::move(samples));
}

void BM_Handoff_Reentrant_Real(benchmark::State& state) {
  handoff_real(state, LockKind::kReentrant);
}
void BM_Handoff_Simple_Real(benchmark::State& state) { handoff_real(state, LockKind::kSimple); }
void BM_Handoff_Reentrant_Fake(benchmark::State& state) {
  handoff_fake(state, LockKind::kReentrant);
}
void BM_Handoff_Simple_Fake(benchmark::State& state) { handoff_fake(state, LockKind::kSimple); }

BENCHMARK(BM_Handoff_Reentrant_Real)->Iterations(kHandoffRounds)->UseRealTime();
BENCHMARK(BM_Handoff_Simple_Real)->Iterations(kHandoffRounds)->UseRealTime();
BENCHMARK(BM_Handoff_Reentrant_Fake)->ArgName("latency_us")->Arg(0)->Arg(50)->Iterations(1);
BENCHMARK(BM_Handoff_Simple_Fake)->ArgName("latency_us")->Arg(0)->Arg(50)->Iterations(1);

void BM_PingRoundTrip_Real(benchmark::State& state) {
  if (!require_real_server(state)) return;
  lock::HiredisEnv env(real_options());
  lock::Connection& c = env.connection();
  c.call({"PING"});
  const auto start = WallClock::now();
  for (auto _ : state) benchmark::DoNotOptimize(c.call({"PING"}));
  state.counters["mean_us"] = seconds_since(start) * 1e6 / static_cast<double>(state.iterations());
}
BENCHMARK(BM_PingRoundTrip_Real)->UseRealTime();

// ---------------------------------------------------------------- simulation speed

constexpr int kSimSpeedSectionsPerClient = 20;

void BM_SimSpeed_Fake(benchmark::State& state) {
  const int clients = static_cast<int>(state.range(0));
  world::FaultPlan faults;
  faults.latency_min = world::Micros{50};
  faults.latency_max = world::Micros{150};
  ContentionTotals totals;
  for (auto _ : state) {
    run_fake_contention(LockKind::kReentrant, clients, kSimSpeedSectionsPerClient, faults, totals);
  }
  totals.report(state);
}
BENCHMARK(BM_SimSpeed_Fake)
    ->ArgName("clients")
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->UseRealTime();

void BM_SimSpeed_Real(benchmark::State& state) { contention_real(state, LockKind::kReentrant); }
BENCHMARK(BM_SimSpeed_Real)->ArgName("clients")->Arg(8)->UseRealTime();

}  // namespace
}  // namespace redsim::bench

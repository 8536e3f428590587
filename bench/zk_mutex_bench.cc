// One InterProcessMutex acquire+release cycle (Curator's recipe, lock/zk_mutex.h):
//
// - BM_ZkMutexCycle_FakeWorld: a simulated process of the deterministic
//   world on the simulated ZooKeeper node (sim/world/zk_world.h) at zero
//   latency: create, getChildren and delete through the fiber, the
//   scheduler and the node's state machine.
// - BM_ZkMutexCycle_Real: the same recipe through the C client
//   (lock::ZookeeperClient) against Debian's zookeeper server, started by
//   this file on first use on a free loopback port and stopped at exit
//   (testing::ZookeeperServerProcess); skipped with the reason when it
//   cannot start.
// Each cycle is three round trips (create, getChildren, delete).
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>

#include "bench/bench_support.h"
#include "lock/hiredis/hiredis_env.h"
#include "lock/zk_mutex.h"
#include "lock/zookeeper/zookeeper_client.h"
#include "sim/world/world.h"
#include "sim/world/zk_world.h"
#include "tools/testing/zookeeper_server_process.h"

namespace redsim::bench {
namespace {

using std::chrono::milliseconds;

constexpr const char* kPath = "/bench/zk";

void parents(lock::ZkClient& zk) {
  (void)zk.create("/bench", "", lock::ZkMode::kPersistent);
  (void)zk.create(kPath, "", lock::ZkMode::kPersistent);
}

void cycles(benchmark::State& state, lock::Env& env, lock::ZkClient& zk) {
  parents(zk);
  lock::InterProcessMutex m(env, zk, kPath);
  const auto start = WallClock::now();
  for (auto _ : state) {
    if (m.acquire() != true || !m.release()) {
      state.SkipWithError("acquire or release failed");
      return;
    }
  }
  state.counters["cycles_per_s"] = static_cast<double>(state.iterations()) / seconds_since(start);
}

void BM_ZkMutexCycle_FakeWorld(benchmark::State& state) {
  world::World w;
  world::ZkWorldOptions o;
  o.latency_min = o.latency_max = world::Micros{0};
  world::ZkWorld zk(w, o);
  w.spawn_process("bench", [&](world::ProcessEnv& env) {
    auto client = zk.connect(env, milliseconds(30000));
    cycles(state, env, *client);
  });
  w.run();
}
BENCHMARK(BM_ZkMutexCycle_FakeWorld)->UseRealTime();

// The run's server: started on first use (on the main thread, which
// outlives it: PR_SET_PDEATHSIG), stopped by its destructor at exit.
testing::ZookeeperServerProcess& server(bool& up) {
  static testing::ZookeeperServerProcess zk;
  static const bool started = zk.start();
  up = started;
  return zk;
}

void BM_ZkMutexCycle_Real(benchmark::State& state) {
  bool up = false;
  testing::ZookeeperServerProcess& zk = server(up);
  if (!up) {
    state.SkipWithError(("no zookeeper server for this run: " + zk.why_not()).c_str());
    return;
  }
  auto client = lock::ZookeeperClient::connect(zk.hosts(), milliseconds(30000));
  if (!client) {
    state.SkipWithError("could not connect to the zookeeper server");
    return;
  }
  // Only its clock, sleeps, events and thread ids: it never connects.
  lock::HiredisEnv env(lock::HiredisOptions::parse_url("redis://127.0.0.1:1"));
  cycles(state, env, *client);
}
BENCHMARK(BM_ZkMutexCycle_Real)->UseRealTime();

}  // namespace
}  // namespace redsim::bench

// Commands per second on the fake server, called directly (no network, no
// world): the cost of dispatch, the keyspace and reply building.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/server.h"

namespace redsim {
namespace {

void BM_Set(benchmark::State& state) {
  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  const sim::Argv argv = {"SET", "key", "value"};
  for (auto _ : state) benchmark::DoNotOptimize(server.execute(*session, argv));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Set);

void BM_Get(benchmark::State& state) {
  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  server.execute(*session, {"SET", "key", "value"});
  const sim::Argv argv = {"GET", "key"};
  for (auto _ : state) benchmark::DoNotOptimize(server.execute(*session, argv));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Get);

void BM_HIncrBy(benchmark::State& state) {
  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  const sim::Argv argv = {"HINCRBY", "hash", "field", "1"};
  for (auto _ : state) benchmark::DoNotOptimize(server.execute(*session, argv));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HIncrBy);

}  // namespace
}  // namespace redsim

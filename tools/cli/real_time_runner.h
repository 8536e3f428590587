// RealTimeRunner: the ScenarioRunner (sim/world/runner.h) of the real world,
// kept out of sim/ because it reads the wall clock and starts threads. One
// std::thread per client, each with its own lock::Env from a factory (a
// HiredisEnv on a real server), events recorded at steady-clock time; used
// by `redsim scenario run --real`.
//
//   cli::RealTimeRunner runner({.make_env = [] {
//     return std::make_unique<lock::HiredisEnv>(lock::HiredisOptions{});
//   }});
//   world::ScenarioResult r = world::run_scenario_real(*scenario, runner);
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lock/env.h"
#include "sim/world/runner.h"

namespace redsim::cli {

using world::ClientEnv;
using world::History;
using world::HistoryEvent;
using world::Micros;
using world::ProcessId;

struct RealRunnerOptions {
  // A new Env for each client process (and one for command()). Required.
  std::function<std::unique_ptr<lock::Env>()> make_env;
  Micros timing_slack = std::chrono::milliseconds(100);
  double long_time_scale = 0.01;
};

class RealTimeRunner final : public world::ScenarioRunner {
 public:
  // Throws std::invalid_argument when options.make_env is empty.
  explicit RealTimeRunner(RealRunnerOptions options);
  ~RealTimeRunner() override;

  void spawn(std::string name, std::function<void(ClientEnv&)> main,
             Micros start_at = Micros{0}) override;
  // Starts one thread per client, joins them all. Call once.
  void run() override;
  lock::Reply command(const lock::Argv& argv) override;
  const History& history() const override { return history_; }
  uint64_t seed() const override { return 0; }
  bool simulated() const override { return false; }
  Micros timing_slack() const override { return options_.timing_slack; }
  double long_time_scale() const override { return options_.long_time_scale; }

  // Appends `e` stamped with the time since run() began (thread-safe; events
  // are in time order). Used by the clients' recording Envs.
  void add_event(HistoryEvent e);

 private:
  struct Client {
    std::string name;
    std::function<void(ClientEnv&)> main;
    Micros start_at;
  };
  void run_client(ProcessId pid, const Client& client);

  RealRunnerOptions options_;
  std::vector<Client> clients_;
  std::unique_ptr<lock::Env> admin_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;  // guards history_ during run()
  History history_;
};

}  // namespace redsim::cli

// ScenarioRunner: where a scenario's client processes run, so one workload
// (written against ClientEnv) runs in both worlds:
//   SimRunner       the deterministic World: fibers, virtual time, a seed;
//   cli::RealTimeRunner (tools/cli/real_time_runner.h), outside sim/ because
//                   it reads the wall clock: one std::thread per client, each
//                   with its own lock::Env from a factory (a HiredisEnv on a
//                   real server), events recorded at steady-clock time.
//
//   world::SimRunner runner(world::WorldOptions{});
//   runner.spawn("A", [](world::ClientEnv& env) { ... });
//   runner.spawn("B", [](world::ClientEnv& env) { ... }, std::chrono::milliseconds(10));
//   runner.run();
//   auto violations = world::check_mutual_exclusion(runner.history());
//
// Process ids are 1, 2, ... in spawn order in both. Times in the history are
// microseconds since run() began. In the real world a command is recorded
// when its reply arrives (what the client saw), with the reply; the
// client's main thread is task 1, its other threads (the watchdog) 2, 3, ...
// in order of their first recorded event. A client whose main lets an
// exception escape gets kTaskError and kProcessCrash; after its main returns
// or throws, its events are no longer recorded (as in the simulation), and
// its Env is destroyed (which stops its background tasks).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lock/env.h"
#include "sim/world/client_env.h"
#include "sim/world/history.h"
#include "sim/world/world.h"

namespace redsim::world {

class ScenarioRunner {
 public:
  virtual ~ScenarioRunner() = default;

  // A client process named `name` whose main task runs `main` from
  // `start_at` (time since run() began). Call before run().
  virtual void spawn(std::string name, std::function<void(ClientEnv&)> main,
                     Micros start_at = Micros{0}) = 0;
  // Runs until every client has ended.
  virtual void run() = 0;
  // One command to server 0 from outside every client (e.g. to read the end
  // state after run()); it is not part of the history.
  virtual lock::Reply command(const lock::Argv& argv) = 0;
  // What happened; complete after run().
  virtual const History& history() const = 0;
  // The simulation's seed; 0 in the real world.
  virtual uint64_t seed() const = 0;
  virtual bool simulated() const = 0;
  // Added to every timing bound a scenario judges by: 0 in the simulation,
  // where latency is exact; the real world's scheduling noise otherwise.
  virtual Micros timing_slack() const = 0;
  // Scenarios whose schedule spans tens of seconds (watchdog-renews) multiply
  // those durations by this: 1 in the simulation; in the real world a
  // fraction, so they finish in about a second. The ratios the verdict rests
  // on (renewals per lease) do not change.
  virtual double long_time_scale() const = 0;
};

class SimRunner final : public ScenarioRunner {
 public:
  explicit SimRunner(WorldOptions options) : world_(options) {}

  void spawn(std::string name, std::function<void(ClientEnv&)> main,
             Micros start_at = Micros{0}) override;
  void run() override { world_.run(); }
  lock::Reply command(const lock::Argv& argv) override;
  const History& history() const override { return world_.history(); }
  uint64_t seed() const override { return world_.seed(); }
  bool simulated() const override { return true; }
  Micros timing_slack() const override { return Micros{0}; }
  double long_time_scale() const override { return 1.0; }

  // For scenarios that also inject faults (pause_process, crash_process).
  World& world() { return world_; }

 private:
  World world_;
};

}  // namespace redsim::world

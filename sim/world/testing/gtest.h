// GoogleTest support for testing your own lock code in the simulated world:
// the LockWorldTest fixture (a world with N clients in a few lines, judged by
// redsim's checkers) and the is_safe() assertion, whose failure message
// carries the seed, every violation with its timeline, and the command that
// replays the run. Link redsim::testing (GoogleTest and RapidCheck).
//
//   class MyLockTest : public redsim::harness::LockWorldTest {};
//
//   TEST_F(MyLockTest, FourClientsNeverOverlap) {
//     world_options().faults.latency_max = world::Micros{2000};
//     spawn_clients(4, my_lock_factory, {.attempts = 3, .work = 20ms});
//     run();
//     EXPECT_TRUE(no_violations());
//   }
//
//   TEST(MyLock, SurvivesExpireThenDelete) {
//     EXPECT_TRUE(redsim::harness::is_safe(
//         redsim::harness::run_expire_then_delete(my_lock_factory, {.lease = 100ms})));
//   }
//
// The fixture's seed is REDSIM_SEED from the environment, else 1; a failure
// prints "replay: REDSIM_SEED=<seed> <test binary> --gtest_filter=<test>",
// which replays the run as long as the test took that default (a test that
// sets world_options().seed itself replays with that seed anyway).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world/testing/harness.h"

namespace redsim::harness {

// "Suite.Name" of the running GoogleTest test ("" outside a test).
inline std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "";
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Success when `r` has no violation; otherwise the report (seed, findings,
// violations with timelines, replay line for the current test).
inline ::testing::AssertionResult is_safe(const RunResult& r) {
  if (r.safe()) {
    return ::testing::AssertionSuccess() << "no violation (seed " << r.seed << ")";
  }
  return ::testing::AssertionFailure() << report(r, replay_hint(r.seed, current_test_name()));
}

// A fixture owning one simulated world. Set world_options() first; the world
// is built on the first world() or spawn call, with seed() as its seed.
class LockWorldTest : public ::testing::Test {
 protected:
  // The options of the world to build. options.seed is seed(). Throws
  // std::logic_error once the world is built: a change then would be lost.
  world::WorldOptions& world_options() {
    if (world_) {
      throw std::logic_error(
          "LockWorldTest: world_options() after world() or a spawn call; the world is "
          "already built with the options it had then");
    }
    if (!options_) {
      options_.emplace();
      options_->seed = default_seed();
    }
    return *options_;
  }
  uint64_t seed() { return options_ ? options_->seed : world_options().seed; }
  // How the world orders what is left to chance: "random" (the default),
  // "pct:D" with PCT's k = `pct_steps` (about the messages the test's
  // clients send; sim/world/pct.h), or "exhaustive:B@SCHEDULE" (one
  // schedule, in a world whose latencies are at least 1 us, as the harness's
  // search takes them: world::apply_small_world_latency). Throws
  // std::invalid_argument on a bad name, std::logic_error once the world is
  // built.
  void set_strategy(std::string_view name, uint64_t pct_steps = 100) {
    world::WorldOptions& o = world_options();
    o.strategy = world::parse_strategy(name);
    o.pct_steps = pct_steps;
  }

  world::World& world() {
    if (!world_) {
      world_options();  // the defaults, if nothing was set
      // An exhaustive schedule runs in the world the harness searches: every
      // latency at least 1 us (world::apply_small_world_latency).
      if (options_->strategy.exhaustive()) world::apply_small_world_latency(options_->faults);
      world_ = std::make_unique<world::World>(*options_);
    }
    return *world_;
  }

  // A client process that makes its lock with `make` on key() and runs
  // `options.attempts` attempts (think, try_lock_for(wait), the section's
  // body, unlock) in each of its `options.tasks` tasks.
  world::ProcessId spawn_client(std::string name, const LockFactory& make,
                                const ClientOptions& options = {}) {
    return harness::spawn_client(
        world(), std::move(name), make, key_,
        ClientSpec{attempts_of(options), options.wait, options.start_at, std::nullopt,
                   options.tasks, options.shared_lock, options.validity});
  }
  // `n` clients named client1..clientN, all with `options`.
  void spawn_clients(int n, const LockFactory& make, const ClientOptions& options = {}) {
    for (int i = 1; i <= n; ++i) spawn_client("client" + std::to_string(i), make, options);
  }

  // Runs the world until nothing is left to do (or its time limit).
  world::World::RunEnd run() { return world().run(); }

  // The lock key clients contend for; change it before spawning.
  const std::string& key() const { return key_; }
  void set_key(std::string key) { key_ = std::move(key); }

  // What result() checks and how its report shows the history.
  CheckOptions& check_options() { return checks_; }
  ExcerptOptions& excerpt_options() { return excerpt_; }

  // The run judged by check_all(check_options()), with liveness within
  // `liveness_bound` when given (else check_options()'s).
  RunResult result(std::optional<Micros> liveness_bound = std::nullopt) {
    RunResult r;
    r.seed = seed();
    r.history = world().history();
    CheckOptions checks = checks_;
    if (liveness_bound) checks.liveness_bound = liveness_bound;
    r.violations = check_all(r.history, checks);
    r.excerpt = excerpt_;
    return r;
  }
  ::testing::AssertionResult no_violations(std::optional<Micros> liveness_bound = std::nullopt) {
    return is_safe(result(liveness_bound));
  }

 private:
  std::optional<world::WorldOptions> options_;
  std::unique_ptr<world::World> world_;
  std::string key_ = kDefaultKey;
  CheckOptions checks_;
  ExcerptOptions excerpt_;
};

}  // namespace redsim::harness

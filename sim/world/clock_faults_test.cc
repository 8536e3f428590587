// The fault model's clocks: DriftClock, process clocks that drift and
// jump (sleeps follow the rate), server clocks that drive expiry.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/simple_lock.h"
#include "sim/keyspace.h"
#include "sim/world/checkers.h"
#include "sim/world/drift_clock.h"
#include "sim/world/faults_test_util.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using namespace faults_testing;  // NOLINT(google-build-using-namespace)
using resp::Reply;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// ---------------------------------------------------------------- clocks

TEST(DriftClock, DriftAndJumps) {
  DriftClock c;
  EXPECT_EQ(c.read(5'000'000), 5'000'000);
  c.set_drift(0, 100);
  EXPECT_EQ(c.read(1'000'000), 1'000'100);
  c.jump(2'000'000, -500'000);
  EXPECT_EQ(c.read(2'000'000), 2'000'200 - 500'000);
  EXPECT_EQ(c.read(3'000'000), 2'000'200 - 500'000 + 1'000'100);
  EXPECT_EQ(c.true_duration(1'000'100), 1'000'000);
  c.set_drift(3'000'000, -200'000);  // runs at 0.8x
  EXPECT_EQ(c.true_duration(800), 1000);
  EXPECT_EQ(c.read(3'000'010), c.read(3'000'000) + 8);
  c.set_drift(3'000'010, -50);
  EXPECT_EQ(c.read(3'000'010 + 1), c.read(3'000'010));  // floor(1 - 50e-6) = 0
}

TEST(Clocks, ProcessClockDriftsAndJumpsSleepsFollowTheRate) {
  World w;
  std::vector<int64_t> reads;
  int64_t slept_true_us = 0;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    reads.push_back(env.now().time_since_epoch().count());
    const int64_t t0 = w.now().count();
    env.sleep_for(milliseconds(1000));  // 1 s on a clock running 10 % fast
    slept_true_us = w.now().count() - t0;
    reads.push_back(env.now().time_since_epoch().count());
    env.sleep_for(milliseconds(1000));
    reads.push_back(env.now().time_since_epoch().count());
  });
  w.set_process_clock_drift(pid, 100'000);
  w.jump_process_clock(pid, microseconds(1'500'000), milliseconds(-700));
  w.run();
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_EQ(reads[0], 0);
  EXPECT_EQ(slept_true_us, 909'091);  // ceil(1e6 / 1.1)
  EXPECT_EQ(reads[1], 1'000'000);
  EXPECT_EQ(reads[2], 2'000'000 - 700'000);  // the jump does not shorten the sleep
  EXPECT_EQ(count(w.history(), EventKind::kClockJump), 1u);
  EXPECT_EQ(count(w.history(), EventKind::kClockDrift), 1u);
}

TEST(Clocks, ServerExpiryFollowsTheServersClock) {
  WorldOptions o;
  o.servers = 2;
  World w(o);
  std::vector<Reply> got;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection(0).call({"SET", "k", "v", "PX", "1000"});
    env.connection(1).call({"SET", "k", "v", "PX", "1000"});
    env.sleep_for(milliseconds(200));
    got.push_back(env.connection(0).call({"GET", "k"}));
    got.push_back(env.connection(1).call({"GET", "k"}));
  });
  w.jump_server_clock(1, milliseconds(100), milliseconds(2000));  // Kleppmann's jump
  w.run();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], Reply::bulk("v"));
  EXPECT_EQ(got[1], Reply::nil());
}

// Kleppmann's clock jump on one server, with a plain lock: the key expires
// early on the jumped clock and a second client enters while the first is
// still inside.
TEST(Clocks, ServerClockJumpLetsASecondHolderIn) {
  World w;
  auto worker = [](milliseconds start, milliseconds hold) {
    return [start, hold](ProcessEnv& env) {
      env.sleep_for(start);
      lock::SimpleLock l(env, "res", {.lease = milliseconds(1000)});
      if (!l.try_lock_for(milliseconds(0))) return;
      env.enter_critical("res");
      env.sleep_for(hold);
      env.leave_critical("res");
      l.unlock();
    };
  };
  w.spawn_process("a", worker(milliseconds(0), milliseconds(500)));
  w.spawn_process("b", worker(milliseconds(200), milliseconds(10)));
  w.jump_server_clock(0, milliseconds(100), milliseconds(2000));
  w.run();
  const auto v = check_mutual_exclusion(w.history());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "mutual-exclusion");
}

TEST(Clocks, RandomDriftIsDrawnPerProcessAndServer) {
  WorldOptions o;
  o.seed = 5;
  o.faults.clock_drift_ppm_max = 50'000;
  World w(o);
  const ProcessId a =
      w.spawn_process("a", [](ProcessEnv& env) { env.sleep_for(milliseconds(100)); });
  const ProcessId b =
      w.spawn_process("b", [](ProcessEnv& env) { env.sleep_for(milliseconds(100)); });
  w.run_until(microseconds(1'000'000));
  const int64_t ca = w.process_clock_us(a);
  const int64_t cb = w.process_clock_us(b);
  EXPECT_NE(ca, 1'000'000);
  EXPECT_NE(ca, cb);
  EXPECT_GE(ca, 950'000);
  EXPECT_LE(ca, 1'050'000);
  const int64_t server_us = w.server(0).clock().now_us() - sim::ManualClock::kDefaultEpochUs;
  EXPECT_NE(server_us, 1'000'000);
  EXPECT_LE(std::abs(server_us - 1'000'000), 50'000);
}

}  // namespace
}  // namespace redsim::world

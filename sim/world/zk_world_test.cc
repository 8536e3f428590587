// ZkWorld and InterProcessMutex in the simulated world: sessions kept by
// pings and lost to pauses, partitions and crashes; connection loss vs
// session expiry as the client sees them; the recipe's re-entrancy, timeout
// and one-shot watches.
#include "sim/world/zk_world.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lock/zk_mutex.h"
#include "sim/world/checkers.h"
#include "sim/world/prng.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using std::chrono::milliseconds;

constexpr const char* kPath = "/locks/m";
constexpr Micros kTimeout = milliseconds(1000);

WorldOptions options() {
  WorldOptions o;
  o.seed = 3;
  return o;
}

void parents(lock::ZkClient& zk) {
  (void)zk.create("/locks", "", lock::ZkMode::kPersistent);
  (void)zk.create(kPath, "", lock::ZkMode::kPersistent);
}

void sleep_until(ProcessEnv& env, Micros t) {
  const Micros left = t - env.now().time_since_epoch();
  if (left > Micros::zero()) env.sleep_for(left);
}

// Random schedules, a small fixed form of `redsim check --lock zk-mutex`
// (sim/world/explore/zk_explore.h, which explores with the world's faults): 2..4 clients with 2..4
// attempts each at 0.5..1.5 ms latency; each client's connection resets after a request ran (its
// answer lost) in a random 5 ms window with chance 1/2. Judged by mutual exclusion and by liveness
// with the session timeout as bound. A client whose acquire fails with an error stops, as `check`
// does under faults.
struct RandomRun {
  size_t mutual_exclusion = 0;
  size_t liveness = 0;
  size_t lost_windows = 0;
};

RandomRun run_random(uint64_t seed, bool protected_mode) {
  WorldOptions o;
  o.seed = seed;
  World w(o);
  ZkWorldOptions zo;
  zo.latency_min = Micros(500);
  zo.latency_max = Micros(1500);
  ZkWorld zk(w, zo);
  Prng rng = Prng(seed).fork("zk-random-plan");
  lock::ZkMutexOptions mo;
  mo.protected_mode = protected_mode;
  RandomRun out;
  const int clients = static_cast<int>(rng.uniform(2, 4));
  for (int c = 0; c < clients; ++c) {
    struct Attempt {
      int64_t think_us, work_us;
    };
    std::vector<Attempt> attempts(static_cast<size_t>(rng.uniform(2, 4)));
    for (Attempt& a : attempts) a = {rng.uniform(0, 30'000), rng.uniform(1'000, 20'000)};
    const ProcessId pid = w.spawn_process(
        "c" + std::to_string(c),
        [&zk, mo, attempts](ProcessEnv& env) {
          auto client = zk.connect(env, kTimeout);
          parents(*client);
          lock::InterProcessMutex m(env, *client, kPath, mo);
          for (const Attempt& a : attempts) {
            env.sleep_for(Micros(a.think_us));
            env.record_acquire_start(kPath, milliseconds(3000));
            auto got = m.acquire(milliseconds(3000));
            if (!got) {
              env.record_acquire_error(kPath, lock::zk_code_name(got.error()));
              return;
            }
            env.record_acquire_end(kPath, *got);
            if (!*got) continue;
            env.enter_critical(kPath);
            env.sleep_for(Micros(a.work_us));
            env.leave_critical(kPath);
            if (!m.release()) return;
          }
        },
        Micros(rng.uniform(0, 20'000)));
    if (rng.chance(500'000)) {
      const int64_t at = rng.uniform(0, 150'000);
      zk.lose_messages(pid, Micros(at), Micros(at + 5'000), ZkLoss::kReplyAfterRun);
      ++out.lost_windows;
    }
  }
  w.run();
  out.mutual_exclusion = check_mutual_exclusion(w.history()).size();
  out.liveness = check_liveness(w.history(), 1200 * 1000).size();
  return out;
}

TEST(ZkMutexRandom, ProtectedModeKeepsSafetyAndLivenessWhenAnswersAreLost) {
  size_t windows = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const RandomRun r = run_random(seed, true);
    windows += r.lost_windows;
    EXPECT_EQ(r.mutual_exclusion, 0u) << "seed " << seed;
    EXPECT_EQ(r.liveness, 0u) << "seed " << seed;
  }
  EXPECT_GT(windows, 30u);
}

TEST(ZkMutexRandom, WithoutProtectedModeALostCreateStrandsTheLock) {
  size_t stuck = 0, unsafe = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const RandomRun r = run_random(seed, false);
    stuck += r.liveness > 0;
    unsafe += r.mutual_exclusion;
  }
  EXPECT_GT(stuck, 0u);   // the orphan znode: nobody holds the lock, nobody gets it
  EXPECT_EQ(unsafe, 0u);  // but never two holders
}

TEST(ZkMutex, TheTokenIsTheTenDigitSequenceSuffix) {
  EXPECT_EQ(lock::InterProcessMutex::sequence_of("_c_ab-lock-0000000042"), 42);
  EXPECT_EQ(lock::InterProcessMutex::sequence_of("lock-2147483647"), 2147483647);  // int32 max
  EXPECT_EQ(lock::InterProcessMutex::sequence_of("lock-x000000001"), std::nullopt);
  EXPECT_EQ(lock::InterProcessMutex::sequence_of("lock-"), std::nullopt);
}

TEST(ZkMutex, ReentrantPerTaskAndTheNodeGoesAtTheLastRelease) {
  World w(options());
  ZkWorld zk(w);
  std::vector<std::string> seen;
  w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    parents(*c);
    lock::InterProcessMutex m(env, *c, kPath);
    ASSERT_EQ(m.acquire(), true);
    const std::string path = m.lock_path().value();
    ASSERT_EQ(m.acquire(milliseconds(10)), true);
    EXPECT_EQ(m.lock_path(), path);
    EXPECT_EQ(m.token(), 0);
    // Another task of the same process is another owner: it waits.
    std::optional<bool> other;
    env.spawn("other", [&] {
      auto got = m.acquire(milliseconds(20));
      other = got.has_value() && *got;
    });
    env.sleep_for(milliseconds(50));
    EXPECT_EQ(other, false);
    ASSERT_TRUE(m.release().has_value());
    EXPECT_TRUE(zk.node().has_node(path));
    ASSERT_TRUE(m.release().has_value());
    EXPECT_FALSE(zk.node().has_node(path));
    EXPECT_FALSE(m.is_acquired_in_this_process());
    EXPECT_THROW((void)m.release(), std::logic_error);
    seen.push_back("done");
  });
  w.run();
  EXPECT_EQ(seen.size(), 1u);
}

TEST(ZkMutex, AcquireTimesOutAndDeletesItsNode) {
  World w(options());
  ZkWorld zk(w);
  std::optional<bool> b_got;
  std::vector<std::string> b_nodes;
  w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    parents(*c);
    lock::InterProcessMutex m(env, *c, kPath);
    ASSERT_EQ(m.acquire(), true);
    env.sleep_for(milliseconds(300));
    ASSERT_TRUE(m.release().has_value());
  });
  w.spawn_process(
      "B",
      [&](ProcessEnv& env) {
        auto c = zk.connect(env, kTimeout);
        lock::InterProcessMutex m(env, *c, kPath);
        auto got = m.acquire(milliseconds(100));
        b_got = got.has_value() && *got;
        b_nodes = zk.node().ephemerals_of(c->session_id());
      },
      milliseconds(20));
  w.run();
  EXPECT_EQ(b_got, false);
  EXPECT_TRUE(b_nodes.empty());
}

TEST(ZkWorld, PingsKeepAnIdleSessionAlive) {
  World w(options());
  ZkWorld zk(w);
  std::optional<lock::ZkState> state;
  w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    auto made = c->create("/e", "", lock::ZkMode::kEphemeral);
    ASSERT_TRUE(made.has_value());
    env.sleep_for(milliseconds(5000));  // five session timeouts, no call
    state = c->state();
    EXPECT_TRUE(c->exists("/e").value().has_value());
  });
  w.run();
  EXPECT_EQ(state, lock::ZkState::kConnected);
  EXPECT_EQ(zk.sessions_expired(), 0);
}

TEST(ZkWorld, APausePastTheTimeoutExpiresTheSessionAndTheClientLearnsIt) {
  World w(options());
  ZkWorld zk(w);
  std::optional<lock::ZkCode> after;
  std::optional<lock::ZkState> state;
  bool gone_during_pause = false;
  ProcessId a = w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    ASSERT_TRUE(c->create("/e", "", lock::ZkMode::kEphemeral).has_value());
    env.sleep_for(milliseconds(3000));
    auto r = c->create("/f", "", lock::ZkMode::kEphemeral);
    if (!r) after = r.error();
    state = c->state();
  });
  w.pause_process(a, milliseconds(100), milliseconds(2000));
  w.at(milliseconds(2000), [&] { gone_during_pause = !zk.node().has_node("/e"); });
  w.run();
  EXPECT_TRUE(gone_during_pause);
  EXPECT_EQ(after, lock::ZkCode::kSessionExpired);
  EXPECT_EQ(state, lock::ZkState::kLost);
  EXPECT_EQ(zk.sessions_expired(), 1);
}

TEST(ZkWorld, ALostRequestIsAConnectionLossAndTheSessionLivesOn) {
  World w(options());
  ZkWorld zk(w);
  std::optional<lock::ZkCode> first;
  int64_t session_before = 0, session_after = 0;
  bool second_ok = false;
  ProcessId a = w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    session_before = c->session_id();
    sleep_until(env, milliseconds(10));
    auto r = c->create("/x", "", lock::ZkMode::kEphemeral);  // lost before it runs
    if (!r) first = r.error();
    EXPECT_FALSE(zk.node().has_node("/x"));
    EXPECT_EQ(c->state(), lock::ZkState::kSuspended);
    second_ok = c->create("/x", "", lock::ZkMode::kEphemeral).has_value();
    session_after = c->session_id();
    EXPECT_EQ(c->state(), lock::ZkState::kConnected);
  });
  zk.lose_messages(a, milliseconds(10), milliseconds(11), ZkLoss::kRequest);
  w.run();
  EXPECT_EQ(first, lock::ZkCode::kConnectionLoss);
  EXPECT_TRUE(second_ok);
  EXPECT_EQ(session_before, session_after);
}

TEST(ZkWorld, ALostAnswerLeavesTheNodeCreated) {
  World w(options());
  ZkWorld zk(w);
  std::optional<lock::ZkCode> first, retry;
  ProcessId a = w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    sleep_until(env, milliseconds(10));
    auto r = c->create("/x", "", lock::ZkMode::kEphemeral);
    if (!r) first = r.error();
    auto again = c->create("/x", "", lock::ZkMode::kEphemeral);
    if (!again) retry = again.error();
  });
  zk.lose_messages(a, milliseconds(10), milliseconds(11), ZkLoss::kReplyAfterRun);
  w.run();
  EXPECT_EQ(first, lock::ZkCode::kConnectionLoss);
  EXPECT_EQ(retry, lock::ZkCode::kNodeExists);
}

TEST(ZkWorld, WatchesFireOnceAndAreToldOfAConnectionLoss) {
  World w(options());
  ZkWorld zk(w);
  std::vector<lock::ZkEvent::Type> events;
  ProcessId b = 0;
  w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    ASSERT_TRUE(c->create("/n", "", lock::ZkMode::kPersistent).has_value());
    env.sleep_for(milliseconds(50));
    ASSERT_TRUE(c->remove("/n").has_value());
    ASSERT_TRUE(c->create("/n", "", lock::ZkMode::kPersistent).has_value());
    ASSERT_TRUE(c->remove("/n").has_value());
    env.sleep_for(milliseconds(3000));
  });
  b = w.spawn_process(
      "B",
      [&](ProcessEnv& env) {
        auto c = zk.connect(env, kTimeout);
        auto watcher = [&](const lock::ZkEvent& e) { events.push_back(e.type); };
        ASSERT_TRUE(c->get_data("/n", watcher).has_value());
        EXPECT_EQ(c->exists("/never", watcher).value(), std::nullopt);
        env.sleep_for(milliseconds(2000));
      },
      milliseconds(10));
  // B is cut off from 200 ms: its client declares the connection lost after
  // the read timeout, and its pending exists-watch hears of it.
  zk.partition(b, milliseconds(200), milliseconds(1500));
  w.run();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0], lock::ZkEvent::Type::kDeleted);  // one event for two deletes
  EXPECT_EQ(events[1], lock::ZkEvent::Type::kSession);
  EXPECT_EQ(zk.watch_wakeups(b), 1);
}

TEST(ZkWorld, ACrashedHoldersNodeStaysUntilItsSessionExpires) {
  World w(options());
  ZkWorld zk(w);
  std::optional<bool> b_got;
  std::string a_path;
  bool there_at_500 = false;
  ProcessId a = w.spawn_process("A", [&](ProcessEnv& env) {
    auto c = zk.connect(env, kTimeout);
    parents(*c);
    lock::InterProcessMutex m(env, *c, kPath);
    ASSERT_EQ(m.acquire(), true);
    a_path = m.lock_path().value();
    env.sleep_for(milliseconds(5000));
  });
  w.spawn_process(
      "B",
      [&](ProcessEnv& env) {
        auto c = zk.connect(env, kTimeout);
        lock::InterProcessMutex m(env, *c, kPath);
        auto got = m.acquire(milliseconds(3000));
        b_got = got.has_value() && *got;
        if (*b_got) (void)m.release();
      },
      milliseconds(20));
  w.crash_process(a, milliseconds(50));
  w.at(milliseconds(500), [&] { there_at_500 = zk.node().has_node(a_path); });
  w.run();
  EXPECT_TRUE(there_at_500);
  EXPECT_EQ(b_got, true);
  EXPECT_EQ(zk.sessions_expired(), 1);
}

}  // namespace
}  // namespace redsim::world

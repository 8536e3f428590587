// The fault model: process restart, server crash and restart with
// persistence, replication, failover and WAIT; then every fault at once,
// asserted outcomes, and the same seed giving the same history. Clocks and
// the network have their own files (clock_faults_test.cc,
// network_faults_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/simple_lock.h"
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

// ---------------------------------------------------------------- processes

TEST(ProcessFaults, RestartGivesANewClientIdAndFreshTasks) {
  World w;
  std::vector<std::string> ids;
  int runs = 0;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    ++runs;
    ids.push_back(env.client_id());
    env.spawn("watchdog", [&env] { env.sleep_for(milliseconds(1000)); });
    env.connection().call({"INCR", "n"});
    env.sleep_for(milliseconds(100));
  });
  w.crash_process(pid, milliseconds(50));
  w.restart_process(pid, milliseconds(70));
  w.run();
  EXPECT_EQ(runs, 2);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_EQ(w.client_id(pid), ids[1]);
  EXPECT_EQ(w.process_state(pid), ProcessState::kEnded);
  EXPECT_EQ(count(w.history(), EventKind::kProcessRestart), 1u);
  EXPECT_EQ(w.server(0).peek("n")->elements.at(0), "2");
}

TEST(ProcessFaults, RandomRestartsFollowCrashes) {
  WorldOptions o;
  o.seed = 4;
  o.faults.crash_ppm = Ppm(100'000);
  o.faults.restart_ppm = Ppm(1'000'000);
  o.faults.restart_min = Micros{1 * kMs};
  o.faults.restart_max = Micros{5 * kMs};
  World w(o);
  w.spawn_process("p", [](ProcessEnv& env) {
    for (int i = 0; i < 20; ++i) env.connection().call({"INCR", "n"});
  });
  w.run();
  const size_t crashes = count(w.history(), EventKind::kProcessCrash);
  EXPECT_GT(crashes, 0u);
  EXPECT_EQ(count(w.history(), EventKind::kProcessRestart), crashes);
  EXPECT_EQ(count(w.history(), EventKind::kProcessEnd), 1u);
}

// ---------------------------------------------------------------- servers

struct CrashRun {
  std::vector<std::string> outcomes;
  Reply after;
};

CrashRun crash_and_restart(Persistence persistence) {
  WorldOptions o = fixed_latency(100);
  o.persistence = persistence;
  World w(o);
  CrashRun run;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"SET", "early", "1"});  // before the 1 s fsync
    env.sleep_for(milliseconds(1500));
    env.connection().call({"SET", "late", "1"});  // after it
    env.sleep_for(milliseconds(100));
    try {
      env.connection().call({"PING"});
      run.outcomes.push_back("ok");
    } catch (const lock::IoError&) {
      run.outcomes.push_back("io");
    }
    env.sleep_for(milliseconds(200));
    run.after = env.connection().call({"MGET", "early", "late"});
  });
  w.crash_server(0, milliseconds(1550));
  w.restart_server(0, milliseconds(1700));
  w.run();
  EXPECT_EQ(count(w.history(), EventKind::kServerCrash), 1u);
  EXPECT_EQ(count(w.history(), EventKind::kServerRestart), 1u);
  return run;
}

TEST(ServerFaults, CrashAndRestartWithEachPersistence) {
  const CrashRun none = crash_and_restart(Persistence::kNone);
  EXPECT_EQ(none.outcomes, (std::vector<std::string>{"io"}));  // refused while down
  EXPECT_EQ(none.after, Reply::array({Reply::nil(), Reply::nil()}));
  EXPECT_EQ(crash_and_restart(Persistence::kAofAlways).after,
            Reply::array({Reply::bulk("1"), Reply::bulk("1")}));
  EXPECT_EQ(crash_and_restart(Persistence::kAofEverysec).after,
            Reply::array({Reply::bulk("1"), Reply::nil()}));
}

TEST(ServerFaults, CrashBreaksCallsInFlight) {
  WorldOptions o = fixed_latency(1 * kMs);
  World w(o);
  std::string outcome;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"PING"});
    try {
      env.connection().call({"DEBUG", "SLEEP", "0"});
      outcome = "ok";
    } catch (const lock::IoError& e) {
      outcome = "io@" + std::to_string(w.now().count());
    }
  });
  w.crash_server(0, microseconds(2500));  // the second request is on the wire
  w.run();
  EXPECT_EQ(outcome, "io@3500");  // the reset travels back
}

TEST(Replication, ReplicasFollowWithLagAndFailoverLosesUnreplicatedWrites) {
  WorldOptions o = with_replicas(2, 10 * kMs);
  World w(o);
  Reply after_failover;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"SET", "a", "1", "PX", "60000"});
    env.sleep_for(milliseconds(20));
    env.connection().call({"SET", "b", "2"});  // at 20 ms; the failover at 25 ms loses it
    env.sleep_for(milliseconds(10));
    after_failover = env.connection().call({"MGET", "a", "b"});
  });
  w.failover(0, milliseconds(25));
  w.run_until(microseconds(15 * kMs));
  EXPECT_EQ(w.node(w.node_of(0, 1)).peek("a")->elements.at(0), "1");
  EXPECT_EQ(w.node(w.node_of(0, 1)).peek("a")->expire_at_ms,
            w.node(0).peek("a")->expire_at_ms);  // absolute deadline
  w.run();
  EXPECT_EQ(after_failover, Reply::array({Reply::bulk("1"), Reply::nil()}));
  EXPECT_FALSE(w.node_up(0));
  EXPECT_EQ(&w.server(0), &w.node(w.node_of(0, 0)));
  EXPECT_EQ(count(w.history(), EventKind::kFailover), 1u);
  // The other replica follows the promoted one.
  EXPECT_EQ(w.node(w.node_of(0, 1)).peek("b"), std::nullopt);
  // The old primary comes back as a replica: a full resync drops its "b".
  w.restart_server(0, milliseconds(100));
  w.run();
  ASSERT_TRUE(w.node_up(0));
  EXPECT_EQ(w.node(0).peek("b"), std::nullopt);
  EXPECT_EQ(w.node(0).peek("a")->elements.at(0), "1");
  EXPECT_EQ(&w.server(0), &w.node(w.node_of(0, 0)));
}

TEST(Replication, ScriptsAndDeletesReplicateTheirEffects) {
  WorldOptions o;
  o.replicas = 1;
  World w(o);
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"SET", "gone", "x"});
    env.connection().call(
        {"EVAL", "redis.call('HSET', KEYS[1], 'f', 'v') redis.call('DEL', KEYS[2]) return 1", "2",
         "h", "gone"});
  });
  w.run();
  sim::Server& replica = w.node(w.node_of(0, 0));
  const std::optional<sim::StoredKey> h = replica.peek("h");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->type, "hash");
  EXPECT_EQ(h->elements, (std::vector<std::string>{"f", "v"}));
  EXPECT_EQ(replica.peek("gone"), std::nullopt);
}

TEST(Replication, WaitBlocksUntilReplicasAcknowledgeOrTimeout) {
  WorldOptions o = with_replicas(2, 5 * kMs);
  World w(o);
  std::vector<std::string> got;
  w.spawn_process("p", [&](ProcessEnv& env) {
    auto wait = [&](std::string n, std::string timeout) {
      const Reply r = env.connection().call({"WAIT", n, timeout});
      got.push_back(std::to_string(r.integer()) + "@" + std::to_string(w.now().count() / kMs));
    };
    wait("1", "100");  // nothing written yet: at once
    env.connection().call({"SET", "k", "v"});
    wait("2", "100");  // acknowledged after the 5 ms lag
    env.connection().call({"SET", "k", "w"});
    wait("3", "20");  // only 2 replicas: the timeout answers 2
  });
  w.run();
  EXPECT_EQ(got, (std::vector<std::string>{"2@0", "2@5", "2@25"}));
}

TEST(Replication, WaitCountsOnlyLiveReplicas) {
  WorldOptions o = with_replicas(1, 5 * kMs);
  World w(o);
  Reply r;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"SET", "k", "v"});
    r = env.connection().call({"WAIT", "1", "50"});
  });
  w.crash_server(w.node_of(0, 0), microseconds(1));
  w.run();
  EXPECT_EQ(r, Reply::integer(0));
}

TEST(Replication, WaitInsideMultiAnswersAtOnce) {
  WorldOptions o = with_replicas(1, 50 * kMs);
  World w(o);
  Reply exec;
  int64_t at = -1;
  w.spawn_process("p", [&](ProcessEnv& env) {
    lock::Connection& c = env.connection();
    c.call({"SET", "k", "v"});
    c.call({"MULTI"});
    c.call({"WAIT", "1", "0"});
    exec = c.call({"EXEC"});
    at = w.now().count();
  });
  w.run();
  EXPECT_EQ(exec, Reply::array({Reply::integer(0)}));
  EXPECT_EQ(at, 0);
}

TEST(ServerFaults, SubscribersResubscribeAfterARestart) {
  WorldOptions o = fixed_latency(100);
  o.record_messages = true;
  World w(o);
  std::vector<std::string> messages;
  w.spawn_process("sub", [&](ProcessEnv& env) {
    env.subscribe("ch", [&](const std::string& m) { messages.push_back(m); });
    env.sleep_for(milliseconds(100));
  });
  w.spawn_process("pub", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(50));
    env.connection().call({"PUBLISH", "ch", "after-restart"});
  });
  w.crash_server(0, milliseconds(10));
  w.restart_server(0, milliseconds(20));
  w.run();
  EXPECT_EQ(messages, (std::vector<std::string>{"after-restart"}));
  EXPECT_GT(count(w.history(), EventKind::kMessageSent), 4u);
  // Nothing was on the wire at the crash: every message sent arrived.
  EXPECT_EQ(count(w.history(), EventKind::kMessageSent),
            count(w.history(), EventKind::kMessageDelivered));
}

// ---------------------------------------------------------------- all together

uint64_t run_everything(uint64_t seed) {
  WorldOptions o;
  o.seed = seed;
  o.replicas = 1;
  o.replication_lag_min_us = 1 * kMs;
  o.replication_lag_max_us = 3 * kMs;
  o.persistence = Persistence::kAofEverysec;
  o.command_timeout = Micros{20 * kMs};
  FaultPlan& f = o.faults;
  f.latency_distribution = LatencyDistribution::kLongTail;
  f.latency_min = Micros{100};
  f.latency_max = Micros{900};
  f.latency_tail_ppm = Ppm(100'000);
  f.loss_ppm = Ppm(20'000);
  f.lost_reply_ppm = Ppm(20'000);
  f.delay_ppm = Ppm(20'000);
  f.delay_min = Micros{1 * kMs};
  f.delay_max = Micros{30 * kMs};
  f.partition_ppm = Ppm(10'000);
  f.partition_min = Micros{1 * kMs};
  f.partition_max = Micros{20 * kMs};
  f.pause_ppm = Ppm(20'000);
  f.pause_min = Micros{1 * kMs};
  f.pause_max = Micros{10 * kMs};
  f.crash_ppm = Ppm(5'000);
  f.restart_ppm = Ppm(500'000);
  f.restart_max = Micros{10 * kMs};
  f.clock_drift_ppm_max = 1000;
  f.clock_jump_ppm = Ppm(5'000);
  f.server_clock_jump_ppm = Ppm(5'000);
  f.clock_jump_max = Micros{50 * kMs};
  f.server_crash_ppm = Ppm(2'000);
  f.server_down_min = Micros{1 * kMs};
  f.server_down_max = Micros{20 * kMs};
  f.failover_ppm = Ppm(2'000);
  World w(o);
  for (int i = 0; i < 3; ++i) {
    w.spawn_process("p" + std::to_string(i), [](ProcessEnv& env) {
      for (int j = 0; j < 60; ++j) {
        try {
          env.connection().call({"SET", "k", env.client_id(), "PX", "50"});
          env.connection().call({"WAIT", "1", "5"});
        } catch (const lock::ConnectionError&) {
        }
        env.sleep_for(milliseconds(1));
      }
    });
  }
  w.run();
  return w.history().hash();
}

// A sanity check of the network faults against a correct lock: losses,
// lost replies, timeouts and delays well below the lease never break
// SimpleLock's mutual exclusion (they may make it give up or leave a lock
// behind until its lease ends).
TEST(AllFaults, SimpleLockStaysSafeUnderNetworkFaults) {
  size_t io_errors = 0, sections = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    WorldOptions o;
    o.seed = seed;
    o.command_timeout = Micros{10 * kMs};
    FaultPlan& f = o.faults;
    f.latency_distribution = LatencyDistribution::kLongTail;
    f.latency_min = Micros{100};
    f.latency_max = Micros{1000};
    f.latency_tail_ppm = Ppm(200'000);
    f.latency_tail_max = Micros{4 * kMs};
    f.loss_ppm = Ppm(50'000);
    f.lost_reply_ppm = Ppm(50'000);
    f.delay_ppm = Ppm(50'000);
    f.delay_min = Micros{1 * kMs};
    f.delay_max = Micros{3 * kMs};
    World w(o);
    for (int i = 0; i < 3; ++i) {
      w.spawn_process("c" + std::to_string(i), [&io_errors](ProcessEnv& env) {
        for (int j = 0; j < 5; ++j) {
          lock::SimpleLock l(env, "res", {.lease = milliseconds(200)});
          try {
            if (!l.try_lock_for(milliseconds(100))) continue;
            env.enter_critical("res");
            env.sleep_for(milliseconds(2));
            env.leave_critical("res");
            l.unlock();
          } catch (const lock::ConnectionError&) {
            ++io_errors;
          }
        }
      });
    }
    w.run();
    sections += count(w.history(), EventKind::kEnterCritical);
    const auto v = check_mutual_exclusion(w.history());
    EXPECT_TRUE(v.empty()) << "seed " << seed << ": " << v.front().description;
  }
  EXPECT_GT(io_errors, 0u);   // the faults did happen
  EXPECT_GT(sections, 100u);  // and many attempts (of 300) still got the lock
}

TEST(TaskPauses, StallOneTaskWhileTheOthersRunOn) {
  WorldOptions o;
  o.faults.task_pause_ppm = Ppm(1000000);
  o.faults.pause_min = Micros{10000};
  o.faults.pause_max = Micros{10000};
  World w(o);
  std::vector<int64_t> main_wakes;
  int64_t other_steps = 0;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.spawn("other", [&] {
      for (int i = 0; i < 3; ++i) {
        env.sleep_for(milliseconds(1));
        ++other_steps;
      }
    });
    env.sleep_for(milliseconds(1));
    main_wakes.push_back(w.now().count());
    env.sleep_for(milliseconds(40));
  });
  w.run();
  // Each blocking call first stalls its own task for 10 ms, then sleeps.
  ASSERT_EQ(main_wakes.size(), 1u);
  EXPECT_EQ(main_wakes[0], 11000);
  EXPECT_EQ(other_steps, 3) << "the other task ran on through the main task's pauses";
  EXPECT_EQ(count(w.history(), EventKind::kProcessPause), 0u) << "no process-wide pause";
  size_t traces = 0;
  for (const auto& e : w.history().events()) {
    traces += e.kind == EventKind::kTrace && e.text == "task paused for 10.000ms (fault)";
  }
  EXPECT_EQ(traces, 5u);  // main: 2 calls, other: 3 calls
}

TEST(AllFaults, SameSeedSameHistoryDifferentSeedDifferentHistory) {
  EXPECT_EQ(run_everything(21), run_everything(21));
  EXPECT_NE(run_everything(21), run_everything(22));
}

}  // namespace
}  // namespace redsim::world

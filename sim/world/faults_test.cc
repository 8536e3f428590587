// The fault model: network (latency distributions, loss, lost replies,
// timeouts, delays, partitions), process restart, clocks, server crash and
// restart with persistence, replication, failover and WAIT. Small worlds,
// asserted outcomes, and the same seed giving the same history.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/simple_lock.h"
#include "sim/keyspace.h"
#include "sim/world/checkers.h"
#include "sim/world/drift_clock.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using resp::Reply;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr int64_t kMs = 1000;

size_t count(const History& h, EventKind kind) {
  return static_cast<size_t>(
      std::count_if(h.events().begin(), h.events().end(),
                    [kind](const HistoryEvent& e) { return e.kind == kind; }));
}

std::vector<const HistoryEvent*> commands(const History& h, std::string_view name) {
  std::vector<const HistoryEvent*> out;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kCommand && e.argv.at(0) == name) out.push_back(&e);
  }
  return out;
}

// A world whose every message takes exactly latency_us each way.
WorldOptions fixed_latency(int64_t latency_us) {
  WorldOptions o;
  o.faults.latency_min_us = latency_us;
  o.faults.latency_max_us = latency_us;
  return o;
}

// A world whose server has `replicas` replicas, each applying a write
// exactly lag_us after the primary.
WorldOptions with_replicas(size_t replicas, int64_t lag_us) {
  WorldOptions o;
  o.replicas = replicas;
  o.replication_lag_min_us = lag_us;
  o.replication_lag_max_us = lag_us;
  return o;
}

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
    reads.push_back(env.now().count());
    const int64_t t0 = w.now().count();
    env.sleep_for(milliseconds(1000));  // 1 s on a clock running 10 % fast
    slept_true_us = w.now().count() - t0;
    reads.push_back(env.now().count());
    env.sleep_for(milliseconds(1000));
    reads.push_back(env.now().count());
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
      l.try_unlock();
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

// ---------------------------------------------------------------- network

TEST(NetworkFaults, FixedAndLongTailLatency) {
  for (auto dist : {LatencyDistribution::kFixed, LatencyDistribution::kLongTail}) {
    WorldOptions o;
    o.seed = 3;
    o.faults.latency_distribution = dist;
    o.faults.latency_min_us = 100;
    o.faults.latency_max_us = 200;
    o.faults.latency_tail_ppm = 300'000;
    o.faults.latency_tail_max_us = 50'000;
    World w(o);
    std::vector<int64_t> rtts;
    w.spawn_process("p", [&](ProcessEnv& env) {
      for (int i = 0; i < 300; ++i) {
        const auto t0 = env.now();
        env.connection().call({"PING"});
        rtts.push_back((env.now() - t0).count());
      }
    });
    w.run();
    ASSERT_EQ(rtts.size(), 300u);
    const auto [lo, hi] = std::minmax_element(rtts.begin(), rtts.end());
    if (dist == LatencyDistribution::kFixed) {
      EXPECT_EQ(*lo, 200);
      EXPECT_EQ(*hi, 200);
    } else {
      EXPECT_GE(*lo, 200);
      EXPECT_GT(*hi, 800);  // some message doubled at least twice
      EXPECT_LE(*hi, 100'000);
      const auto tail = std::count_if(rtts.begin(), rtts.end(), [](int64_t r) { return r > 400; });
      EXPECT_GT(tail, 30);
      EXPECT_LT(tail, 270);
    }
  }
}

TEST(NetworkFaults, LossBreaksTheConnectionAndTheNextCallReconnects) {
  WorldOptions o = fixed_latency(100);
  o.seed = 11;
  o.faults.loss_ppm = 300'000;
  World w(o);
  int io_errors = 0, ok = 0;
  w.spawn_process("p", [&](ProcessEnv& env) {
    lock::Connection& c = env.connection();
    for (int i = 0; i < 100; ++i) {
      try {
        c.call({"INCR", "n"});
        ++ok;
      } catch (const lock::IoError&) {
        ++io_errors;
      }
    }
  });
  w.run();
  EXPECT_EQ(ok + io_errors, 100);
  EXPECT_GT(io_errors, 10);
  EXPECT_GT(ok, 40);
  // Some lost commands ran (the reset came after), some did not.
  const auto incrs = commands(w.history(), "INCR");
  EXPECT_GT(static_cast<int>(incrs.size()), ok);
  EXPECT_LT(static_cast<int>(incrs.size()), 100);
  EXPECT_EQ(count(w.history(), EventKind::kLinkBroken), static_cast<size_t>(io_errors));
  // A new server session per reconnect.
  EXPECT_EQ(w.server(0).keyspace().db(0).peek("n")->str(), std::to_string(incrs.size()));
}

TEST(NetworkFaults, LostReplyTimesOutAfterTheCommandTimeout) {
  WorldOptions o = fixed_latency(100);
  o.faults.lost_reply_ppm = 1'000'000;
  o.command_timeout_us = 50 * kMs;
  World w(o);
  int64_t waited = 0;
  bool timed_out = false;
  Reply after;
  w.spawn_process("p", [&](ProcessEnv& env) {
    const auto t0 = env.now();
    try {
      env.connection().call({"SET", "k", "v"});
    } catch (const lock::TimeoutError&) {
      timed_out = true;
    }
    waited = (env.now() - t0).count();
  });
  w.run();
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(waited, 50 * kMs);
  EXPECT_EQ(commands(w.history(), "SET").size(), 1u);  // it ran
  EXPECT_EQ(w.server(0).keyspace().db(0).peek("k")->str(), "v");
  EXPECT_EQ(count(w.history(), EventKind::kMessageLost), 1u);
}

TEST(NetworkFaults, PerCallTimeoutAndReplacedConnection) {
  WorldOptions o = fixed_latency(10 * kMs);
  World w(o);
  bool timed_out = false;
  Reply second;
  w.spawn_process("p", [&](ProcessEnv& env) {
    try {
      env.connection().call({"SET", "k", "v"}, milliseconds(5));
    } catch (const lock::TimeoutError&) {
      timed_out = true;
    }
    second = env.connection().call({"GET", "k"}, milliseconds(50));
  });
  w.run();
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(second, Reply::bulk("v"));  // the SET ran; its late reply was dropped
  EXPECT_EQ(count(w.history(), EventKind::kLinkBroken), 1u);
  EXPECT_EQ(count(w.history(), EventKind::kDisconnect), 2u);  // the old and the last connection
}

TEST(NetworkFaults, ScheduledLossesOfEachKind) {
  WorldOptions o = fixed_latency(100);
  o.command_timeout_us = 5 * kMs;
  World w(o);
  std::vector<std::string> outcomes;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    for (int i = 0; i < 4; ++i) {
      try {
        env.connection().call({"INCR", "n"});
        outcomes.push_back("ok");
      } catch (const lock::TimeoutError&) {
        outcomes.push_back("timeout");
      } catch (const lock::IoError&) {
        outcomes.push_back("io");
      }
      env.sleep_for(milliseconds(10));
    }
  });
  w.lose_messages(pid, 0, microseconds(0), microseconds(1), Loss::kRequest);
  w.lose_messages(pid, 0, milliseconds(10), milliseconds(11), Loss::kReplyAfterRun);
  w.lose_messages(pid, 0, milliseconds(20), milliseconds(21), Loss::kReplyWithTimeout);
  w.run();
  EXPECT_EQ(outcomes, (std::vector<std::string>{"io", "io", "timeout", "ok"}));
  EXPECT_EQ(w.server(0).keyspace().db(0).peek("n")->str(), "3");  // all but the first ran
}

TEST(NetworkFaults, DelayedRepliesStayInOrder) {
  WorldOptions o = fixed_latency(100);
  World w(o);
  std::vector<int64_t> arrivals;
  std::vector<Reply> replies;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    for (int i = 0; i < 3; ++i) {
      replies.push_back(env.connection().call({"INCR", "n"}));
      arrivals.push_back(w.now().count());
    }
  });
  // Catches the second reply, sent at 300 us.
  w.delay_messages(pid, 0, microseconds(250), microseconds(350), milliseconds(30));
  w.run();
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_EQ(arrivals[0], 200);
  EXPECT_EQ(arrivals[1], 300 + 100 + 30 * kMs);
  EXPECT_EQ(arrivals[2], arrivals[1] + 200);
  EXPECT_EQ(replies[2], Reply::integer(3));
  ASSERT_EQ(count(w.history(), EventKind::kMessageDelayed), 1u);
}

TEST(NetworkFaults, PartitionFailsCallsRefusesConnectionsBreaksPubSubAndHeals) {
  WorldOptions o = fixed_latency(100);
  World w(o);
  std::vector<std::string> outcomes;
  std::vector<std::string> messages;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    env.subscribe("ch", [&](const std::string& m) { messages.push_back(m); });
    env.sleep_for(milliseconds(10));
    auto attempt = [&](lock::Micros timeout) {
      try {
        env.connection().call({"PING"}, timeout);
        outcomes.push_back("ok@" + std::to_string(w.now().count() / kMs));
      } catch (const lock::TimeoutError&) {
        outcomes.push_back("timeout@" + std::to_string(w.now().count() / kMs));
      } catch (const lock::IoError&) {
        outcomes.push_back("io@" + std::to_string(w.now().count() / kMs));
      }
    };
    attempt(milliseconds(5));  // at 10 ms: fine
    env.sleep_for(milliseconds(10));
    attempt(milliseconds(0));  // at 20 ms, partitioned: refused after 1 ms
    attempt(milliseconds(0));  // refused
    env.sleep_for(milliseconds(80));
    attempt(milliseconds(5));  // healed at 60 ms
    env.sleep_for(milliseconds(50));
  });
  w.spawn_process("publisher", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(30));
    env.connection().call({"PUBLISH", "ch", "during"});
    env.sleep_for(milliseconds(100));
    env.connection().call({"PUBLISH", "ch", "after"});
  });
  w.partition(pid, 0, milliseconds(15), milliseconds(60));
  w.run();
  EXPECT_EQ(outcomes, (std::vector<std::string>{"ok@10", "io@21", "io@22", "ok@102"}));
  const std::string timeline = render_timeline(w.history());
  EXPECT_NE(timeline.find("PARTITION from s0 until 60.000ms"), std::string::npos) << timeline;
  EXPECT_NE(timeline.find("partition from s0 healed"), std::string::npos);
  EXPECT_NE(timeline.find("BROKEN (partition)"), std::string::npos);
  EXPECT_EQ(messages, (std::vector<std::string>{"after"}));  // resubscribed at the heal
  EXPECT_EQ(count(w.history(), EventKind::kPartitionStart), 1u);
  EXPECT_EQ(count(w.history(), EventKind::kPartitionHeal), 1u);
}

TEST(NetworkFaults, ASubscribeThatTimesOutKeepsTheEarlierSubscriptions) {
  WorldOptions o = fixed_latency(100);
  o.command_timeout_us = 5 * kMs;
  World w(o);
  std::vector<std::string> messages;
  bool timed_out = false;
  const ProcessId pid = w.spawn_process("sub", [&](ProcessEnv& env) {
    env.subscribe("a", [&](const std::string& m) { messages.push_back("a:" + m); });
    try {
      env.subscribe("b", [&](const std::string& m) { messages.push_back("b:" + m); });
    } catch (const lock::TimeoutError&) {
      timed_out = true;
    }
    env.sleep_for(milliseconds(200));
  });
  w.spawn_process("pub", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(100));
    env.connection().call({"PUBLISH", "a", "1"});
    env.connection().call({"PUBLISH", "b", "2"});
  });
  // The SUBSCRIBE b reply (sent at 300 us) comes 50 ms late.
  w.delay_messages(pid, 0, microseconds(250), microseconds(1000), milliseconds(50));
  w.run();
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(messages, (std::vector<std::string>{"a:1"}));
}

TEST(NetworkFaults, CallInFlightDuringPartitionTimesOutOrFailsAtTheHeal) {
  WorldOptions o = fixed_latency(5 * kMs);
  World w(o);
  std::vector<std::string> outcomes;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    for (auto timeout : {milliseconds(20), milliseconds(0)}) {
      try {
        env.connection().call({"PING"}, timeout);
        outcomes.push_back("ok");
      } catch (const lock::TimeoutError&) {
        outcomes.push_back("timeout@" + std::to_string(w.now().count() / kMs));
      } catch (const lock::IoError&) {
        outcomes.push_back("io@" + std::to_string(w.now().count() / kMs));
      }
    }
  });
  w.partition(pid, 0, milliseconds(2), milliseconds(40));
  w.run();
  // The first call (sent at 0) times out at 20; the second is refused at 21.
  EXPECT_EQ(outcomes, (std::vector<std::string>{"timeout@20", "io@21"}));
}

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
  EXPECT_EQ(w.server(0).keyspace().db(0).peek("n")->str(), "2");
}

TEST(ProcessFaults, RandomRestartsFollowCrashes) {
  WorldOptions o;
  o.seed = 4;
  o.faults.crash_ppm = 100'000;
  o.faults.restart_ppm = 1'000'000;
  o.faults.restart_min_us = 1 * kMs;
  o.faults.restart_max_us = 5 * kMs;
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
  EXPECT_EQ(w.node(w.node_of(0, 1)).keyspace().db(0).peek("a")->str(), "1");
  EXPECT_EQ(w.node(w.node_of(0, 1)).keyspace().db(0).peek("a")->expire_ms,
            w.node(0).keyspace().db(0).peek("a")->expire_ms);  // absolute deadline
  w.run();
  EXPECT_EQ(after_failover, Reply::array({Reply::bulk("1"), Reply::nil()}));
  EXPECT_FALSE(w.node_up(0));
  EXPECT_EQ(&w.server(0), &w.node(w.node_of(0, 0)));
  EXPECT_EQ(count(w.history(), EventKind::kFailover), 1u);
  // The other replica follows the promoted one.
  EXPECT_EQ(w.node(w.node_of(0, 1)).keyspace().db(0).peek("b"), nullptr);
  // The old primary comes back as a replica: a full resync drops its "b".
  w.restart_server(0, milliseconds(100));
  w.run();
  ASSERT_TRUE(w.node_up(0));
  EXPECT_EQ(w.node(0).keyspace().db(0).peek("b"), nullptr);
  EXPECT_EQ(w.node(0).keyspace().db(0).peek("a")->str(), "1");
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
  sim::Db& replica = w.node(w.node_of(0, 0)).keyspace().db(0);
  ASSERT_NE(replica.peek("h"), nullptr);
  EXPECT_EQ(*replica.peek("h")->hash().find("f"), "v");
  EXPECT_EQ(replica.peek("gone"), nullptr);
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
  o.command_timeout_us = 20 * kMs;
  FaultPlan& f = o.faults;
  f.latency_distribution = LatencyDistribution::kLongTail;
  f.latency_min_us = 100;
  f.latency_max_us = 900;
  f.latency_tail_ppm = 100'000;
  f.loss_ppm = 20'000;
  f.lost_reply_ppm = 20'000;
  f.delay_ppm = 20'000;
  f.delay_min_us = 1 * kMs;
  f.delay_max_us = 30 * kMs;
  f.partition_ppm = 10'000;
  f.partition_min_us = 1 * kMs;
  f.partition_max_us = 20 * kMs;
  f.pause_ppm = 20'000;
  f.pause_min_us = 1 * kMs;
  f.pause_max_us = 10 * kMs;
  f.crash_ppm = 5'000;
  f.restart_ppm = 500'000;
  f.restart_max_us = 10 * kMs;
  f.clock_drift_ppm_max = 1000;
  f.clock_jump_ppm = 5'000;
  f.server_clock_jump_ppm = 5'000;
  f.clock_jump_max_us = 50 * kMs;
  f.server_crash_ppm = 2'000;
  f.server_down_min_us = 1 * kMs;
  f.server_down_max_us = 20 * kMs;
  f.failover_ppm = 2'000;
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
    o.command_timeout_us = 10 * kMs;
    FaultPlan& f = o.faults;
    f.latency_distribution = LatencyDistribution::kLongTail;
    f.latency_min_us = 100;
    f.latency_max_us = 1000;
    f.latency_tail_ppm = 200'000;
    f.latency_tail_max_us = 4 * kMs;
    f.loss_ppm = 50'000;
    f.lost_reply_ppm = 50'000;
    f.delay_ppm = 50'000;
    f.delay_min_us = 1 * kMs;
    f.delay_max_us = 3 * kMs;
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
            l.try_unlock();
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

TEST(AllFaults, SameSeedSameHistoryDifferentSeedDifferentHistory) {
  EXPECT_EQ(run_everything(21), run_everything(21));
  EXPECT_NE(run_everything(21), run_everything(22));
}

}  // namespace
}  // namespace redsim::world

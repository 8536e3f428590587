// The fault model's network: latency distributions, loss, lost replies,
// timeouts, delayed messages and partitions.
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

// ---------------------------------------------------------------- network

TEST(NetworkFaults, FixedAndLongTailLatency) {
  for (auto dist : {LatencyDistribution::kFixed, LatencyDistribution::kLongTail}) {
    WorldOptions o;
    o.seed = 3;
    o.faults.latency_distribution = dist;
    o.faults.latency_min = Micros{100};
    o.faults.latency_max = Micros{200};
    o.faults.latency_tail_ppm = Ppm(300'000);
    o.faults.latency_tail_max = Micros{50'000};
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
  o.faults.loss_ppm = Ppm(300'000);
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
  EXPECT_EQ(w.server(0).peek("n")->elements.at(0), std::to_string(incrs.size()));
}

TEST(NetworkFaults, LostReplyTimesOutAfterTheCommandTimeout) {
  WorldOptions o = fixed_latency(100);
  o.faults.lost_reply_ppm = Ppm(1'000'000);
  o.command_timeout = Micros{50 * kMs};
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
  EXPECT_EQ(w.server(0).peek("k")->elements.at(0), "v");
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
  o.command_timeout = Micros{5 * kMs};
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
  EXPECT_EQ(w.server(0).peek("n")->elements.at(0), "3");  // all but the first ran
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
    auto attempt = [&](std::optional<lock::Micros> timeout) {
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
    attempt(std::nullopt);  // at 20 ms, partitioned: refused after 1 ms
    attempt(std::nullopt);  // refused
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

// A connection that breaks while idle with a MULTI open (and a key
// WATCHed) must not carry the transaction's next command to a new
// connection, where it would run at once: hiredis reads EOF on the old
// socket and reports it. A connection without such state reconnects
// silently, as before. (The zoo's watch-unlock lock deleted another
// client's key when a failover broke its connection between MULTI and DEL.)
TEST(NetworkFaults, AnIdleBreakFailsTheNextCallOfATransactionOnly) {
  World w(fixed_latency(100));
  std::vector<std::string> outcomes;
  const ProcessId pid = w.spawn_process("p", [&](ProcessEnv& env) {
    lock::Connection& c = env.connection();
    c.call({"SET", "k", "mine"});
    c.call({"WATCH", "k"});
    c.call({"MULTI"});
    env.sleep_for(milliseconds(30));  // partitioned from 5 to 15 ms, idle
    try {
      outcomes.push_back("DEL " + format_reply(c.call({"DEL", "k"})));
    } catch (const lock::IoError& e) {
      outcomes.push_back(std::string("io: ") + e.what());
    }
    outcomes.push_back("EXISTS " + format_reply(c.call({"EXISTS", "k"})));
    env.sleep_for(milliseconds(30));  // partitioned from 40 to 50 ms, idle, no MULTI
    outcomes.push_back("GET " + format_reply(c.call({"GET", "k"})));
  });
  w.partition(pid, 0, milliseconds(5), milliseconds(15));
  w.partition(pid, 0, milliseconds(40), milliseconds(50));
  w.run();
  EXPECT_EQ(outcomes, (std::vector<std::string>{
                          "io: connection to server 0 was reset: its MULTI/WATCH state is gone",
                          "EXISTS (integer) 1", "GET \"mine\""}));
}

TEST(NetworkFaults, ASubscribeThatTimesOutKeepsTheEarlierSubscriptions) {
  WorldOptions o = fixed_latency(100);
  o.command_timeout = Micros{5 * kMs};
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
    for (std::optional<lock::Micros> timeout :
         {std::optional<lock::Micros>(milliseconds(20)), std::optional<lock::Micros>()}) {
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

}  // namespace
}  // namespace redsim::world

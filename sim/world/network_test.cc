// The world with Redis traffic: round trips through the fake server,
// latency, FIFO order, pub/sub, crash disconnects, determinism.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "sim/world/checkers.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using resp::Reply;
using std::chrono::microseconds;
using std::chrono::milliseconds;

std::vector<const HistoryEvent*> commands(const History& h, std::string_view name = "") {
  std::vector<const HistoryEvent*> out;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kCommand && (name.empty() || e.argv.at(0) == name)) out.push_back(&e);
  }
  return out;
}

TEST(Network, RoundTripReachesTheServerAndRecordsIt) {
  World w;
  Reply set, get;
  w.spawn_process("p", [&](ProcessEnv& env) {
    set = env.connection().call({"SET", "k", "v"});
    get = env.connection().call({"GET", "k"});
  });
  w.run();
  EXPECT_EQ(set, Reply::ok());
  EXPECT_EQ(get, Reply::bulk("v"));
  auto cmds = commands(w.history());
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(cmds[0]->argv, (std::vector<std::string>{"SET", "k", "v"}));
  EXPECT_EQ(cmds[0]->reply, resp::Reply::ok());
  EXPECT_EQ(cmds[1]->reply, resp::Reply::bulk("v"));
  EXPECT_EQ(cmds[1]->server, 0);
  EXPECT_EQ(cmds[1]->task, 1u);
}

// Connection::call's timeout is an optional, not a sentinel: no timeout is
// the world's command_timeout, and a given one must be positive (lock/env.h).
TEST(Network, CallTimeoutIsOptionalAndAGivenOneMustBePositive) {
  WorldOptions o;
  o.command_timeout = milliseconds(50);
  World w(o);
  std::vector<std::string> outcomes;
  w.spawn_process("p", [&](ProcessEnv& env) {
    outcomes.push_back(env.connection().call({"PING"}, std::nullopt).str());
    outcomes.push_back(env.connection().call({"PING"}, milliseconds(20)).str());
    for (const lock::Micros bad : {lock::Micros(0), lock::Micros(-5)}) {
      try {
        env.connection().call({"PING"}, bad);
        outcomes.push_back("sent");
      } catch (const std::invalid_argument& e) {
        outcomes.push_back(e.what());
      }
    }
  });
  w.run();
  EXPECT_EQ(outcomes, (std::vector<std::string>{
                          "PONG", "PONG", "Connection::call: timeout must be positive, got 0 us",
                          "Connection::call: timeout must be positive, got -5 us"}));
  EXPECT_EQ(commands(w.history(), "PING").size(), 2u);
}

TEST(Network, LatencyIsDrawnPerMessageWithinThePlan) {
  WorldOptions o;
  o.faults.latency_min = Micros{300};
  o.faults.latency_max = Micros{700};
  World w(o);
  std::vector<int64_t> rtts;
  w.spawn_process("p", [&](ProcessEnv& env) {
    for (int i = 0; i < 50; ++i) {
      const auto t0 = env.now();
      env.connection().call({"PING"});
      rtts.push_back((env.now() - t0).count());
    }
  });
  w.run();
  ASSERT_EQ(rtts.size(), 50u);
  int64_t lo = INT64_MAX, hi = 0;
  for (int64_t r : rtts) {
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  EXPECT_GE(lo, 600);
  EXPECT_LE(hi, 1400);
  EXPECT_LT(lo, hi);  // really drawn, not constant
}

TEST(Network, ServerTimeStartsIn2026) {
  World w;
  Reply time;
  w.spawn_process(
      "p", [&](ProcessEnv& env) { time = env.connection().call({"TIME"}); }, milliseconds(1500));
  w.run();
  ASSERT_TRUE(time.is_array());
  ASSERT_EQ(time.elements().size(), 2u);
  EXPECT_EQ(time.elements()[0].str(), "1767225601");  // 2026-01-01T00:00:01Z
  EXPECT_EQ(time.elements()[1].str(), "500000");
}

TEST(Network, EachTaskHasItsOwnSession) {
  World w;
  Reply main_get, other_get;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"SELECT", "3"});
    env.connection().call({"SET", "k", "db3"});
    env.spawn("other", [&] { other_get = env.connection().call({"GET", "k"}); });
    env.sleep_for(milliseconds(1));
    main_get = env.connection().call({"GET", "k"});
  });
  w.run();
  EXPECT_EQ(main_get, Reply::bulk("db3"));
  EXPECT_TRUE(other_get.is_nil());  // still on db 0
}

TEST(Network, PushesArriveInServerOrderDespiteRandomLatency) {
  WorldOptions o;
  o.seed = 3;
  o.faults.latency_min = Micros{100};
  o.faults.latency_max = Micros{5000};
  World w(o);
  std::vector<std::string> received;
  w.spawn_process("subscriber", [&](ProcessEnv& env) {
    auto done = env.make_event();
    env.subscribe("ch", [&](const std::string& m) {
      received.push_back(m);
      if (received.size() == 20) done->signal();
    });
    EXPECT_TRUE(done->wait_for(milliseconds(500)));
  });
  for (int i = 0; i < 20; ++i) {
    w.spawn_process(
        "pub" + std::to_string(i),
        [i](ProcessEnv& env) {
          env.connection().call({"PUBLISH", "ch", std::to_string(i)});
        },
        milliseconds(50));
  }
  w.run();
  std::vector<std::string> published;
  for (const auto* e : commands(w.history(), "PUBLISH")) published.push_back(e->argv[2]);
  ASSERT_EQ(published.size(), 20u);
  EXPECT_EQ(received, published);
  // Latency really reordered the publishers: server order is not spawn order.
  std::vector<std::string> spawn_order;
  for (int i = 0; i < 20; ++i) spawn_order.push_back(std::to_string(i));
  EXPECT_NE(published, spawn_order);
}

TEST(Network, SubscribeReturnsAfterConfirmationSoLaterPublishesArrive) {
  WorldOptions o;
  o.faults.latency_min = Micros{1000};
  o.faults.latency_max = Micros{1000};
  World w(o);
  int64_t subscribed_at = -1, message_at = -1;
  std::string message;
  w.spawn_process("waiter", [&](ProcessEnv& env) {
    auto ev = env.make_event();
    env.subscribe("lock:ch", [&](const std::string& m) {
      message = m;
      message_at = env.now().time_since_epoch().count();
      ev->signal();
    });
    subscribed_at = env.now().time_since_epoch().count();
    env.connection().call({"PUBLISH", "lock:ch", "0"});
    EXPECT_TRUE(ev->wait_for(milliseconds(100)));
  });
  w.run();
  EXPECT_EQ(subscribed_at, 2000);  // SUBSCRIBE ran at 1 ms, the confirmation came back at 2 ms
  EXPECT_EQ(message, "0");
  EXPECT_EQ(message_at, 4000);  // PUBLISH ran at 3 ms, the push arrived at 4 ms
  auto subs = commands(w.history(), "SUBSCRIBE");
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0]->task, 1u);
}

TEST(Network, UnsubscribeStopsCallbacksAndKeepsFifoWithResubscribe) {
  World w;
  std::vector<std::string> got;
  w.spawn_process("p", [&](ProcessEnv& env) {
    auto id = env.subscribe("ch", [&](const std::string& m) { got.push_back("a:" + m); });
    env.connection().call({"PUBLISH", "ch", "1"});
    env.sleep_for(milliseconds(1));
    env.unsubscribe(id);
    env.connection().call({"PUBLISH", "ch", "2"});  // no subscriber left
    env.subscribe("ch", [&](const std::string& m) { got.push_back("b:" + m); });
    env.connection().call({"PUBLISH", "ch", "3"});
    env.sleep_for(milliseconds(1));
  });
  w.run();
  EXPECT_EQ(got, std::vector<std::string>({"a:1", "b:3"}));
  std::vector<std::string> order;
  for (const auto* e : commands(w.history())) order.push_back(e->argv[0]);
  EXPECT_EQ(order, std::vector<std::string>(
                       {"SUBSCRIBE", "PUBLISH", "UNSUBSCRIBE", "PUBLISH", "SUBSCRIBE", "PUBLISH"}));
  auto pubs = commands(w.history(), "PUBLISH");
  EXPECT_EQ(pubs[1]->reply, resp::Reply::integer(0));
}

TEST(Network, RequestsOnOneConnectionNeverOvertake) {
  // UNSUBSCRIBE is sent without waiting; the SUBSCRIBE right behind it on the
  // same connection must still run after it, whatever latencies are drawn.
  WorldOptions o;
  o.seed = 5;
  o.faults.latency_min = Micros{100};
  o.faults.latency_max = Micros{5000};
  World w(o);
  Reply receivers;
  w.spawn_process("p", [&](ProcessEnv& env) {
    auto id = env.subscribe("ch", [](const std::string&) {});
    for (int i = 0; i < 30; ++i) {
      env.unsubscribe(id);
      id = env.subscribe("ch", [](const std::string&) {});
    }
    receivers = env.connection().call({"PUBLISH", "ch", "x"});
  });
  w.run();
  EXPECT_EQ(receivers, Reply::integer(1));
  std::vector<std::string> order;
  for (const auto* e : commands(w.history())) order.push_back(e->argv[0]);
  ASSERT_EQ(order.size(), 62u);
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(order[1 + 2 * i], "UNSUBSCRIBE");
    EXPECT_EQ(order[2 + 2 * i], "SUBSCRIBE");
  }
}

TEST(Network, PausedProcessGetsItsRepliesAndPushesOnResume) {
  WorldOptions o;
  o.faults.latency_min = Micros{1000};
  o.faults.latency_max = Micros{1000};
  World w(o);
  int64_t reply_at = -1;
  std::vector<int64_t> pushes_at;
  auto pid = w.spawn_process("p", [&](ProcessEnv& env) {
    env.subscribe("ch", [&](const std::string&) {
      pushes_at.push_back(env.now().time_since_epoch().count());
    });
    env.connection().call({"GET", "k"});  // sent at 2 ms, runs at 3 ms
    reply_at = env.now().time_since_epoch().count();
  });
  w.spawn_process(
      "publisher",
      [](ProcessEnv& env) {
        env.connection().call({"PUBLISH", "ch", "x"});
      },
      milliseconds(3));
  w.pause_process(pid, microseconds(2500), milliseconds(10));
  w.run();
  EXPECT_EQ(reply_at, 12500);
  EXPECT_EQ(pushes_at, std::vector<int64_t>({12500}));
}

TEST(Network, CrashDisconnectsSoTheServerDropsSubscriptions) {
  World w;
  Reply before, after;
  auto pid = w.spawn_process("sub", [&](ProcessEnv& env) {
    env.subscribe("ch", [](const std::string&) {});
    env.sleep_for(std::chrono::seconds(10));
  });
  w.spawn_process("pub", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(5));
    before = env.connection().call({"PUBLISH", "ch", "a"});
    env.sleep_for(milliseconds(10));
    after = env.connection().call({"PUBLISH", "ch", "b"});
  });
  w.crash_process(pid, milliseconds(10));
  w.run();
  EXPECT_EQ(before, Reply::integer(1));
  EXPECT_EQ(after, Reply::integer(0));
  size_t disconnects = 0;
  for (const auto& e : w.history().events()) {
    disconnects += e.kind == EventKind::kDisconnect && e.process == pid;
  }
  EXPECT_EQ(disconnects, 1u);  // only the pub/sub connection was ever opened
}

TEST(Network, RequestInFlightAtCrashStillRuns) {
  WorldOptions o;
  o.faults.latency_min = Micros{1000};
  o.faults.latency_max = Micros{1000};
  World w(o);
  auto pid = w.spawn_process("setter", [](ProcessEnv& env) {
    env.connection().call({"SET", "k", "v"});  // sent at 0, runs at 1 ms
  });
  w.crash_process(pid, microseconds(500));
  Reply got;
  w.spawn_process(
      "reader",
      [&](ProcessEnv& env) {
        got = env.connection().call({"GET", "k"});
      },
      milliseconds(5));
  w.run();
  EXPECT_EQ(got, Reply::bulk("v"));
}

TEST(Network, ActiveExpiryRunsOnVirtualTime) {
  World w;
  w.spawn_process("p", [](ProcessEnv& env) {
    env.connection().call({"SET", "k", "v", "PX", "150"});
    env.sleep_for(milliseconds(400));  // nobody touches k: only the active cycle can delete it
  });
  w.run();
  size_t notes = 0;
  for (const auto& e : w.history().events()) notes += e.kind == EventKind::kServerNote;
  EXPECT_EQ(notes, 1u);
  EXPECT_EQ(w.server().execute(*w.server().connect(), {"DBSIZE"}), Reply::integer(0));
}

TEST(Network, MultipleServersAreIndependent) {
  WorldOptions o;
  o.servers = 3;
  World w(o);
  std::vector<Reply> got;
  w.spawn_process("p", [&](ProcessEnv& env) {
    EXPECT_EQ(env.server_count(), 3u);
    env.connection(1).call({"SET", "k", "one"});
    for (size_t s = 0; s < 3; ++s) got.push_back(env.connection(s).call({"GET", "k"}));
    EXPECT_THROW(env.connection(3), std::out_of_range);
  });
  w.run();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].is_nil());
  EXPECT_EQ(got[1], Reply::bulk("one"));
  EXPECT_TRUE(got[2].is_nil());
}

// Several clients doing SET NX PX / DEL loops with latency, random pauses
// and crashes: the determinism self-check.
uint64_t lock_loop_hash(uint64_t seed, std::string* timeline = nullptr) {
  WorldOptions o;
  o.seed = seed;
  o.faults.latency_min = Micros{50};
  o.faults.latency_max = Micros{2000};
  o.faults.pause_ppm = Ppm(30000);
  o.faults.pause_min = Micros{1000};
  o.faults.pause_max = Micros{40000};
  o.faults.crash_ppm = Ppm(5000);
  World w(o);
  for (int i = 0; i < 5; ++i) {
    w.spawn_process("client" + std::to_string(i), [](ProcessEnv& env) {
      const std::string token = env.client_id();
      for (int round = 0; round < 20; ++round) {
        env.record_acquire_start("lock", milliseconds(50));
        Reply r = env.connection().call({"SET", "lock", token, "NX", "PX", "30"});
        env.record_acquire_end("lock", r.is_status());
        if (r.is_status()) {
          env.enter_critical("lock");
          env.sleep_for(microseconds(static_cast<int64_t>(env.random_u64() % 5000)));
          env.leave_critical("lock");
          env.connection().call({"DEL", "lock"});
        } else {
          env.sleep_for(microseconds(500 + static_cast<int64_t>(env.random_u64() % 3000)));
        }
      }
    });
  }
  w.run();
  if (timeline != nullptr) *timeline = render_timeline(w.history());
  return w.history().hash();
}

TEST(Determinism, SameSeedSameHistoryHash) {
  std::string first, second;
  const uint64_t a = lock_loop_hash(1234, &first);
  const uint64_t b = lock_loop_hash(1234, &second);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first, second);
  EXPECT_GT(first.size(), 1000u);  // a real run, not an empty one
}

TEST(Determinism, DifferentSeedDifferentHash) {
  EXPECT_NE(lock_loop_hash(1234), lock_loop_hash(1235));
}

}  // namespace
}  // namespace redsim::world

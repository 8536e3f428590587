// Case 17 of the exhaustive reduction (exhaustive.h): a server that may do
// more than a command's keys say. With notify-keyspace-events on, a SET
// publishes on __keyspace@0__:<key>, so it does not commute with a
// SUBSCRIBE of that channel; with maxmemory on, two writes of different
// keys compete for the same memory. Each world here ties two such commands
// in one microsecond: the reduced search reaches every outcome the
// unreduced one reaches, whether the setting was there from the start or
// came with a CONFIG SET sent during the run.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/pubsub.h"
#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/explore.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using Args = std::vector<std::string>;

TEST(ServerEffects, AFootprintIsAnythingOnceItsServerFlagIsOn) {
  auto flag = std::make_shared<bool>(false);
  const auto set = command_footprint(0, {"SET", "k", "v"}, flag);
  const auto ping = command_footprint(0, {"PING"}, flag);
  const auto subscribe = command_footprint(0, {"SUBSCRIBE", "__keyspace@0__:k"}, flag);
  const auto other = command_footprint(1, {"SET", "k", "v"});
  ASSERT_NE(set, nullptr);
  ASSERT_NE(ping, nullptr);
  ASSERT_NE(subscribe, nullptr);
  EXPECT_TRUE(set->commutes_with(*subscribe));
  EXPECT_TRUE(ping->commutes_with(*set));
  EXPECT_FALSE(set->publishes());
  *flag = true;  // the footprints made before read it when judged
  EXPECT_FALSE(set->commutes_with(*subscribe));
  EXPECT_FALSE(subscribe->commutes_with(*set));
  EXPECT_FALSE(ping->commutes_with(*set));
  EXPECT_TRUE(set->publishes());
  EXPECT_TRUE(set->commutes_with(*other));  // another server is still apart
  // A script's footprint as it ran keeps the flag.
  const auto eval =
      command_footprint(0, {"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k"}, flag);
  ASSERT_NE(eval, nullptr);
  bool within = false;
  const auto ran = script_footprint(*eval, {{"SET", "k", "v"}}, false, &within);
  ASSERT_NE(ran, nullptr);
  EXPECT_TRUE(within);
  EXPECT_FALSE(ran->commutes_with(*subscribe));
}

// How the server gets its setting.
enum class Setting { kNone, kFromTheStart, kByConfigSet };

// A world of fixed 100 us latencies at bound 0: `subscriber` subscribes to
// k's keyspace channel while `writer` runs `write` at the same
// microsecond (with kByConfigSet it first sends CONFIG SET
// notify-keyspace-events K$ and waits 300 us). `received`: how many
// notifications the subscriber got, per judged run.
ExhaustiveResult search_notifications(bool reduce, Setting setting, const Args& write,
                                      std::set<int>* received) {
  return search_schedules(0, [&](const std::vector<uint32_t>& prefix,
                                 const std::vector<uint64_t>& narrow) {
    WorldOptions o;
    o.faults.latency_distribution = LatencyDistribution::kFixed;
    o.faults.latency_min = Micros(100);
    o.strategy = Strategy{.bound = 0, .schedule = prefix, .narrow = narrow, .reduce = reduce};
    World w(o);
    if (setting == Setting::kFromTheStart) {
      w.server().config().notify_keyspace_events = sim::notify::kKeyspace | sim::notify::kString;
    }
    auto got = std::make_shared<int>(0);
    const lock::Micros start(setting == Setting::kByConfigSet ? 300 : 0);
    w.spawn_process("subscriber", [got, start](ProcessEnv& env) {
      env.sleep_for(start);
      env.subscribe("__keyspace@0__:k", [got](const std::string&) { ++*got; });
      env.sleep_for(lock::Micros(1000));
    });
    w.spawn_process("writer", [setting, write, start](ProcessEnv& env) {
      if (setting == Setting::kByConfigSet) {
        env.connection().call({"CONFIG", "SET", "notify-keyspace-events", "K$"});
        env.sleep_for(start - lock::Micros(200));
      }
      env.connection().call(write);
    });
    const bool pruned = w.run() == World::RunEnd::kPruned;
    if (!pruned) received->insert(*got);
    return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
  });
}

TEST(ServerEffects, AKeyspaceNotificationKeepsAWriteOrderedWithASubscribe) {
  const Args set = {"SET", "k", "v"};
  const Args script = {"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k"};
  for (Setting setting : {Setting::kFromTheStart, Setting::kByConfigSet}) {
    for (const Args& write : {set, script}) {
      std::set<int> full, reduced;
      const ExhaustiveResult f = search_notifications(false, setting, write, &full);
      const ExhaustiveResult r = search_notifications(true, setting, write, &reduced);
      ASSERT_TRUE(f.complete);
      ASSERT_TRUE(r.complete);
      const int which = static_cast<int>(setting);
      EXPECT_EQ(full, (std::set<int>{0, 1})) << which << " " << write[0];
      EXPECT_EQ(reduced, full) << which << " " << write[0];
    }
  }
  // Without notifications the two commute: one schedule, nothing received.
  std::set<int> none;
  const ExhaustiveResult r = search_notifications(true, Setting::kNone, set, &none);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.schedules, 1u);
  EXPECT_EQ(none, (std::set<int>{0}));
}

// maxmemory: two SETs of different keys at the same microsecond, with room
// for one of them only: which one is refused depends on their order.
TEST(ServerEffects, MaxmemoryKeepsWritesOfDifferentKeysOrdered) {
  auto search = [](bool reduce, std::set<std::string>* refused) {
    return search_schedules(
        0, [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
          WorldOptions o;
          o.faults.latency_distribution = LatencyDistribution::kFixed;
          o.faults.latency_min = Micros(100);
          o.strategy = Strategy{.bound = 0, .schedule = prefix, .narrow = narrow, .reduce = reduce};
          World w(o);
          const std::string value(4096, 'x');
          w.server().config().maxmemory_bytes =
              static_cast<int64_t>(w.server().used_memory_bytes()) + 100;
          auto who = std::make_shared<std::string>();
          for (const char* key : {"a", "b"}) {
            w.spawn_process(key, [who, key, value](ProcessEnv& env) {
              const auto r = env.connection().call({"SET", key, value});
              if (r.is_error()) *who += key;
            });
          }
          const bool pruned = w.run() == World::RunEnd::kPruned;
          if (!pruned) refused->insert(*who);
          return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
        });
  };
  std::set<std::string> full, reduced;
  const ExhaustiveResult f = search(false, &full);
  const ExhaustiveResult r = search(true, &reduced);
  ASSERT_TRUE(f.complete);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(full, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(reduced, full);
}

}  // namespace
}  // namespace redsim::world

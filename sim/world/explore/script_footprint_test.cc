// Case 16 of the exhaustive reduction (exhaustive.h): a script's footprint
// as it ran. Each rule is tested where it prunes and where the pair stays
// dependent, on footprints alone and in small worlds; and the reduction
// keeps every outcome of small contended worlds of a script lock.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/exhaustive_test_util.h"
#include "sim/world/explore/explore.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using Args = std::vector<std::string>;

// A script's footprint as it ran, from its argv and the calls it made.
std::shared_ptr<const Footprint> as_ran(const Args& script, const std::vector<Args>& calls,
                                        bool* within, bool shared = false) {
  const auto declared = command_footprint(0, script);
  EXPECT_NE(declared, nullptr);
  return script_footprint(*declared, calls, shared, within);
}

bool commute(const Footprint& a, const Footprint& b) {
  EXPECT_EQ(a.commutes_with(b), b.commutes_with(a));
  return a.commutes_with(b);
}

TEST(ScriptFootprint, DeclaredKeysAndTheScriptCache) {
  const auto eval = command_footprint(0, {"EVAL", "return 1", "2", "a", "b", "x"});
  ASSERT_NE(eval, nullptr);
  EXPECT_TRUE(eval->any_key);  // before it ran: anything
  ASSERT_NE(eval->within, nullptr);
  EXPECT_EQ(eval->within->keys, (Args{"a", "b"}));
  EXPECT_TRUE(eval->within->pubsub);
  EXPECT_TRUE(eval->loads_script);
  const auto evalsha = command_footprint(0, {"evalsha_ro", "e0e1", "1", "a"});
  ASSERT_NE(evalsha, nullptr);
  ASSERT_NE(evalsha->within, nullptr);
  EXPECT_TRUE(evalsha->reads_scripts);
  EXPECT_EQ(evalsha->within->keys, (Args{"a"}));
  // A numkeys out of range declares nothing (the script is refused).
  for (const char* n : {"3", "-1", "x", ""}) {
    const auto bad = command_footprint(0, {"EVAL", "return 1", n, "a"});
    ASSERT_NE(bad, nullptr);
    ASSERT_NE(bad->within, nullptr);
    EXPECT_TRUE(bad->within->keys.empty()) << n;
  }
  // FCALL keeps "any key": a library's functions may keep state.
  const auto fcall = command_footprint(0, {"FCALL", "f", "1", "a"});
  ASSERT_NE(fcall, nullptr);
  EXPECT_EQ(fcall->within, nullptr);
  bool within = true;
  EXPECT_EQ(script_footprint(*fcall, {{"GET", "a"}}, false, &within), nullptr);
  EXPECT_FALSE(within);
}

TEST(ScriptFootprint, AsItRanItTouchesItsCallsKeys) {
  const Args script = {"EVAL", "...", "1", "a"};
  bool within = false;
  const auto inside = as_ran(script, {{"GET", "a"}, {"hincrby", "a", "f", "1"}}, &within);
  ASSERT_NE(inside, nullptr);
  EXPECT_TRUE(within);
  EXPECT_EQ(inside->keys, (Args{"a"}));
  EXPECT_FALSE(inside->any_key);
  EXPECT_FALSE(inside->pubsub);
  const auto set_b = command_footprint(0, {"SET", "b", "1"});
  const auto set_a = command_footprint(0, {"SET", "a", "1"});
  EXPECT_TRUE(commute(*inside, *set_b));   // prunes
  EXPECT_FALSE(commute(*inside, *set_a));  // its own key
  // A key it was not given (read from a value): kept, and not `within`.
  const auto outside = as_ran(script, {{"GET", "a"}, {"SET", "b", "x"}}, &within);
  ASSERT_NE(outside, nullptr);
  EXPECT_FALSE(within);
  EXPECT_EQ(outside->keys, (Args{"a", "b"}));
  EXPECT_FALSE(commute(*outside, *set_b));
  EXPECT_TRUE(commute(*outside, *command_footprint(0, {"DEL", "c"})));
  // Not key-addressed (KEYS, SCAN, FLUSHALL, RANDOMKEY, DBSIZE, TIME, an
  // unknown command): anything, as before it ran.
  for (const Args& call : std::vector<Args>{{"KEYS", "*"},
                                            {"SCAN", "0"},
                                            {"FLUSHALL"},
                                            {"RANDOMKEY"},
                                            {"DBSIZE"},
                                            {"TIME"},
                                            {"nosuchcommand"},
                                            {"SUBSCRIBE", "c"},
                                            {"SCRIPT", "LOAD", "return 1"}}) {
    EXPECT_EQ(as_ran(script, {{"GET", "a"}, call}, &within), nullptr) << call[0];
    EXPECT_FALSE(within);
  }
  // math.random's stream (and loadstring's sites, the call depth): shared.
  EXPECT_EQ(as_ran(script, {{"GET", "a"}}, &within, /*shared=*/true), nullptr);
  EXPECT_FALSE(within);
}

TEST(ScriptFootprint, PublishingAndTheScriptCache) {
  bool within = false;
  const auto unlock =
      as_ran({"EVALSHA", "sha", "2", "lock", "chan"},
             {{"HEXISTS", "lock", "o"}, {"DEL", "lock"}, {"PUBLISH", "chan", "0"}}, &within);
  ASSERT_NE(unlock, nullptr);
  EXPECT_TRUE(within);
  EXPECT_TRUE(unlock->publishes());
  EXPECT_TRUE(commute(*unlock, *command_footprint(0, {"SET", "other", "1"})));
  EXPECT_FALSE(commute(*unlock, *command_footprint(0, {"SUBSCRIBE", "chan"})));
  const auto quiet = as_ran({"EVALSHA", "sha", "1", "lock"}, {{"PTTL", "lock"}}, &within);
  ASSERT_NE(quiet, nullptr);
  EXPECT_FALSE(quiet->publishes());
  EXPECT_TRUE(commute(*quiet, *command_footprint(0, {"SUBSCRIBE", "chan"})));
  // EVAL fills the cache EVALSHA reads; two EVALs (two loads) and two
  // EVALSHAs commute on disjoint keys.
  const auto eval_a = as_ran({"EVAL", "return 1", "1", "a"}, {}, &within);
  const auto eval_b = as_ran({"EVAL", "return 2", "1", "b"}, {}, &within);
  const auto sha_b = as_ran({"EVALSHA", "sha", "1", "b"}, {}, &within);
  const auto sha_c = as_ran({"EVALSHA", "sha", "1", "c"}, {}, &within);
  EXPECT_TRUE(commute(*eval_a, *eval_b));
  EXPECT_TRUE(commute(*sha_b, *sha_c));
  EXPECT_FALSE(commute(*eval_a, *sha_b));
  const auto load = command_footprint(0, {"SCRIPT", "LOAD", "return 1"});
  EXPECT_FALSE(commute(*load, *sha_b));
  EXPECT_TRUE(commute(*load, *eval_b));
  // Another server: always.
  const auto far = script_footprint(*command_footprint(1, {"EVALSHA", "sha", "1", "a"}),
                                    {{"GET", "a"}}, false, &within);
  EXPECT_TRUE(commute(*far, *eval_a));
}

// The options of a world of fixed 100 us latencies, run at bound 0 on
// `prefix` with the sibling runs' masks `narrow`.
WorldOptions tie_world(const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow,
                       bool reduce) {
  WorldOptions o;
  o.faults.latency_distribution = LatencyDistribution::kFixed;
  o.faults.latency_min = Micros(100);
  o.strategy = Strategy{.bound = 0, .schedule = prefix, .narrow = narrow, .reduce = reduce};
  return o;
}

// A world of fixed 100 us latencies searched at bound 0 with the sibling
// runs' masks (a sleeping script carries its declared KEYS when its
// sibling stayed within them); `body` spawns its processes. `seen`
// collects each judged run's command replies, in order.
ExhaustiveResult search_scripts(bool reduce, const std::function<void(World&)>& body,
                                std::set<std::vector<std::string>>* seen = nullptr) {
  return search_schedules(
      0, [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
        World w(tie_world(prefix, narrow, reduce));
        body(w);
        const bool pruned = w.run() == World::RunEnd::kPruned;
        if (!pruned && seen != nullptr) {
          std::vector<std::string> replies;
          for (const HistoryEvent& e : w.history().events()) {
            if (e.kind == EventKind::kCommand) replies.push_back(render_event(w.history(), e, 200));
          }
          std::sort(replies.begin(), replies.end());
          seen->insert(std::move(replies));
        }
        return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
      });
}

// Two processes whose commands reach the server at 100 us.
std::function<void(World&)> two(Args a, Args b) {
  return [a, b](World& w) {
    w.spawn_process("p1", [a](ProcessEnv& env) { env.connection().call(a); });
    w.spawn_process("p2", [b](ProcessEnv& env) { env.connection().call(b); });
  };
}

const char* const kIncr = "return redis.call('INCR', KEYS[1])";

TEST(ScriptFootprint, ScriptsOnDisjointKeysCommuteInAWorld) {
  const ExhaustiveResult apart =
      search_scripts(true, two({"EVAL", kIncr, "1", "a"}, {"EVAL", kIncr, "1", "b"}));
  const ExhaustiveResult same =
      search_scripts(true, two({"EVAL", kIncr, "1", "a"}, {"EVAL", kIncr, "1", "a"}));
  const ExhaustiveResult beside_set =
      search_scripts(true, two({"EVAL", kIncr, "1", "a"}, {"SET", "b", "1"}));
  const ExhaustiveResult on_its_key =
      search_scripts(true, two({"EVAL", kIncr, "1", "a"}, {"SET", "a", "1"}));
  for (const ExhaustiveResult* r : {&apart, &same, &beside_set, &on_its_key}) {
    ASSERT_TRUE(r->complete);
  }
  EXPECT_EQ(apart.schedules, 1u);  // two before case 16
  EXPECT_EQ(same.schedules, 2u);
  EXPECT_EQ(beside_set.schedules, 1u);
  EXPECT_EQ(on_its_key.schedules, 2u);
  // math.random's stream is shared by every script of a server.
  const char* random = "return tostring(math.random())";
  const ExhaustiveResult randoms =
      search_scripts(true, two({"EVAL", random, "1", "a"}, {"EVAL", random, "1", "b"}));
  ASSERT_TRUE(randoms.complete);
  EXPECT_EQ(randoms.schedules, 2u);
}

// A script that reads key `a` and writes the key `a` names ("b"), a key it
// was not given, beside another process's SET of b at 300 us: dependent,
// in either order of the tie (as the event that ran, and asleep: a
// sibling that left its KEYS sleeps as "any key"). Both of SET b's
// outcomes are reached.
TEST(ScriptFootprint, AScriptThatChoosesItsKeyStaysOrderedWithThatKey) {
  const char* follow = "local k = redis.call('GET', KEYS[1]) redis.call('SET', k, 'x') return k";
  auto world = [follow](const char* other_key, bool other_first) {
    return [=](World& w) {
      auto script = [follow](ProcessEnv& env) {
        env.connection().call({"SET", "a", "b"});  // its reply at 200 us
        env.connection().call({"EVAL", follow, "1", "a"});
      };
      auto setter = [other_key](ProcessEnv& env) {
        env.sleep_for(lock::Micros(200));
        env.connection().call({"SET", other_key, "y"});
        env.connection().call({"GET", "b"});
      };
      if (other_first) {
        w.spawn_process("setter", setter);
        w.spawn_process("script", script);
      } else {
        w.spawn_process("script", script);
        w.spawn_process("setter", setter);
      }
    };
  };
  for (bool other_first : {false, true}) {
    std::set<std::vector<std::string>> chosen, apart;
    const ExhaustiveResult on_b = search_scripts(true, world("b", other_first), &chosen);
    const ExhaustiveResult on_c = search_scripts(true, world("c", other_first), &apart);
    ASSERT_TRUE(on_b.complete);
    ASSERT_TRUE(on_c.complete);
    EXPECT_EQ(on_b.schedules, 2u) << other_first;
    EXPECT_EQ(chosen.size(), 2u) << other_first;  // GET b: "x" or "y"
    EXPECT_EQ(on_c.schedules, 1u) << other_first;
  }
}

// A publishing script (Redisson's unlock) commutes with another session's
// keyed command, not with its SUBSCRIBE of the channel.
TEST(ScriptFootprint, APublishingScriptStaysOrderedWithSubscriptions) {
  const char* unlock = "redis.call('DEL', KEYS[1]) return redis.call('PUBLISH', KEYS[2], 'u')";
  const Args script = {"EVAL", unlock, "2", "lock", "chan"};
  const ExhaustiveResult keyed = search_scripts(true, two(script, {"SET", "other", "1"}));
  ASSERT_TRUE(keyed.complete);
  EXPECT_EQ(keyed.schedules, 1u);
  const ExhaustiveResult subscribed = search_scripts(true, [script](World& w) {
    w.spawn_process("p1", [script](ProcessEnv& env) { env.connection().call(script); });
    w.spawn_process("p2",
                    [](ProcessEnv& env) { env.subscribe("chan", [](const std::string&) {}); });
  });
  ASSERT_TRUE(subscribed.complete);
  EXPECT_GE(subscribed.schedules, 2u);
}

// A script that publishes, as it ran and asleep (its sibling stayed
// within its KEYS, so it sleeps as them with pub/sub), against another
// session's SUBSCRIBE of that channel in the same microsecond: the
// reduced search still reaches both "the message arrived" and "it did
// not", as the unreduced one does.
TEST(ScriptFootprint, KeepsBothOrdersOfAPublishAndASubscribe) {
  const char* publish = "redis.call('INCR', KEYS[1]) return redis.call('PUBLISH', KEYS[2], 'm')";
  // `publisher_first`: which of the two events is the tie's option 0 (so
  // which one sleeps while the other runs first).
  auto search = [publish](bool reduce, bool publisher_first, std::set<int>* received) {
    return search_schedules(
        0, [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
          World w(tie_world(prefix, narrow, reduce));
          auto got = std::make_shared<int>(0);
          auto subscriber = [got](ProcessEnv& env) {
            env.subscribe("ch", [got](const std::string&) { ++*got; });
            env.sleep_for(lock::Micros(1000));
          };
          auto publisher = [publish](ProcessEnv& env) {
            env.connection().call({"EVAL", publish, "2", "k", "ch"});
          };
          if (publisher_first) w.spawn_process("publisher", publisher);
          w.spawn_process("subscriber", subscriber);
          if (!publisher_first) w.spawn_process("publisher", publisher);
          const bool pruned = w.run() == World::RunEnd::kPruned;
          if (!pruned) received->insert(*got);
          return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
        });
  };
  for (bool publisher_first : {false, true}) {
    std::set<int> full, reduced;
    const ExhaustiveResult f = search(false, publisher_first, &full);
    const ExhaustiveResult r = search(true, publisher_first, &reduced);
    ASSERT_TRUE(f.complete);
    ASSERT_TRUE(r.complete);
    EXPECT_EQ(full, (std::set<int>{0, 1})) << publisher_first;
    EXPECT_EQ(reduced, full) << publisher_first;
    EXPECT_LT(r.schedules, f.schedules);
  }
}

// The reduction keeps every outcome of small contended worlds of script
// locks (simple: SET NX and a compare-and-delete script; redis-py: its
// release and extend scripts), as on the simple lock under faults
// (exhaustive_test.cc): every history the unreduced search reaches is
// reached by the reduced one.
TEST(ScriptFootprint, KeepsEveryOutcomeOfScriptLocks) {
  size_t compared = 0;
  for (lock::LockKind kind : {lock::LockKind::kSimple, lock::LockKind::kRedisPy}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      ExplorePlan plan = generate_small_plan(kind, seed, 2, 1);
      // Both clients start together and every message takes 100 us: their
      // commands meet at the server in one microsecond.
      plan.clients[1].attempts = plan.clients[0].attempts;
      plan.faults.latency_distribution = LatencyDistribution::kFixed;
      plan.faults.latency_min = plan.faults.latency_max = Micros(100);
      bool full_complete = false, reduced_complete = false;
      const auto full = outcomes(plan, false, &full_complete);
      const auto reduced = outcomes(plan, true, &reduced_complete);
      if (!full_complete) continue;
      ASSERT_TRUE(reduced_complete) << "seed " << seed;
      ++compared;
      for (const auto& o : full) {
        EXPECT_TRUE(reduced.contains(o))
            << lock::lock_kind_name(kind) << " seed " << seed << ": an outcome the reduction lost";
      }
      std::printf("%s seed %llu: %zu outcomes unreduced, %zu reduced\n",
                  std::string(lock::lock_kind_name(kind)).c_str(),
                  static_cast<unsigned long long>(seed), full.size(), reduced.size());
    }
  }
  EXPECT_GE(compared, 4u);
}

// The same on a world of scripts that leave their KEYS and draw from
// math.random: two processes, each running two scripts, meeting at the
// server at 100 us and 300 us. Every set of replies the unreduced search
// reaches, the reduced one reaches too.
TEST(ScriptFootprint, KeepsEveryOutcomeOfScriptsThatChooseTheirKeys) {
  const char* follow =
      "local k = redis.call('GET', KEYS[1]) local n = 0 "
      "if k then n = redis.call('INCR', k) end "
      "redis.call('SET', KEYS[1], ARGV[1]) return (k or '-') .. ':' .. n";
  const char* random =
      "local r = tostring(math.random()) redis.call('SET', KEYS[1], r) "
      "return r .. ':' .. redis.call('GET', 'a')";
  auto body = [=](World& w) {
    for (const char* mine : {"b", "c"}) {
      w.spawn_process(mine, [=](ProcessEnv& env) {
        env.connection().call({"EVAL", follow, "1", "a", mine});
        env.connection().call({"EVAL", random, "1", mine});
      });
    }
  };
  std::set<std::vector<std::string>> full, reduced;
  const ExhaustiveResult f = search_scripts(false, body, &full);
  const ExhaustiveResult r = search_scripts(true, body, &reduced);
  ASSERT_TRUE(f.complete);
  ASSERT_TRUE(r.complete);
  EXPECT_LT(r.schedules, f.schedules);
  EXPECT_GT(full.size(), 1u);
  for (const auto& o : full) EXPECT_TRUE(reduced.contains(o)) << "an outcome the reduction lost";
  std::printf("scripts: %zu outcomes in %llu schedules unreduced, %zu in %llu reduced\n",
              full.size(), static_cast<unsigned long long>(f.schedules), reduced.size(),
              static_cast<unsigned long long>(r.schedules));
}

}  // namespace
}  // namespace redsim::world

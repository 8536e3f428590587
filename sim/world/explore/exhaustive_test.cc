// Exhaustive exploration: schedule text, the search, the sleep-set
// reduction's counts on a tiny world, a bug found and a correct lock proved.
#include "sim/world/explore/exhaustive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/world/explore/exhaustive_test_util.h"
#include "sim/world/explore/explore.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/pct.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

TEST(ExhaustiveStrategy, ParsesAndNames) {
  EXPECT_EQ(parse_strategy("exhaustive"), Strategy{.bound = 2});
  EXPECT_EQ(parse_strategy("exhaustive:0"), Strategy{.bound = 0});
  const Strategy one = parse_strategy("exhaustive:3@2=1,17=4");
  EXPECT_EQ(one.bound, 3);
  EXPECT_EQ(one.schedule,
            (std::vector<uint32_t>{0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4}));
  EXPECT_EQ(strategy_name(one), "exhaustive:3@2=1,17=4");
  EXPECT_EQ(strategy_name(Strategy{.bound = 2}), "exhaustive:2");
  // Narrow masks ride after a slash (only the bits below the option).
  const Strategy masked = parse_strategy("exhaustive:2@3=2/1,5=1");
  EXPECT_EQ(masked.schedule, (std::vector<uint32_t>{0, 0, 0, 2, 0, 1}));
  EXPECT_EQ(masked.narrow, (std::vector<uint64_t>{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(strategy_name(masked), "exhaustive:2@3=2/1,5=1");
  EXPECT_EQ(format_schedule({0, 2}, {0, 7}), "1=2/3");
  EXPECT_TRUE(parse_strategy("exhaustive:2@3=2").narrow.empty());
  for (const char* bad :
       {"exhaustive:9", "exhaustive:", "exhaustive:1@3", "exhaustive:1@3=1,2=1", "exhaustive:1@x=1",
        "exhaustive:1@3=1/", "exhaustive:1@3=1/0", "exhaustive:1@3/1=1"}) {
    EXPECT_THROW(parse_strategy(bad), std::invalid_argument) << bad;
  }
}

// A fake world of `points` binary deviation choices: the search runs every
// sequence with at most `bound` ones: sum over i <= bound of C(points, i).
TEST(SearchSchedules, RunsEverySequenceUpToTheBound) {
  for (int bound = 0; bound <= 3; ++bound) {
    std::vector<std::vector<uint32_t>> seen;
    const ExhaustiveResult r = search_schedules(bound, [&](const std::vector<uint32_t>& prefix) {
      Chooser c(prefix);
      std::vector<uint32_t> taken;
      for (int i = 0; i < 5; ++i) taken.push_back(c.choose(2, /*tie=*/false));
      seen.push_back(taken);
      return ScheduleRun{.failed = false, .pruned = false, .points = c.points()};
    });
    const uint64_t expected[] = {1, 1 + 5, 1 + 5 + 10, 1 + 5 + 10 + 10};
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.schedules, expected[bound]) << "bound " << bound;
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "each sequence once";
  }
}

// Placements first: a failure that needs one deviation at point 7 of 12 is
// the 9th schedule (the default, then points 0..7 in turn), where the
// depth-first order alone runs every schedule of the deeper points first;
// a failure that needs two deviations is left to the depth-first phase,
// and a complete search still counts each schedule once.
TEST(SearchSchedules, PlacementsComeFirst) {
  auto world = [](std::vector<size_t> need) {
    return [need](const std::vector<uint32_t>& prefix) {
      Chooser c(prefix);
      std::vector<size_t> took;
      for (size_t i = 0; i < 12; ++i) {
        if (c.choose(2, /*tie=*/false) == 1) took.push_back(i);
      }
      return ScheduleRun{.failed = took == need, .pruned = false, .points = c.points()};
    };
  };
  const ExhaustiveResult one = search_schedules(2, world({7}));
  ASSERT_TRUE(one.counterexample.has_value());
  EXPECT_EQ(one.schedules, 9u);
  EXPECT_EQ(one.placements, 9u);
  EXPECT_EQ(*one.counterexample, (std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 0, 1}));
  const ExhaustiveResult two = search_schedules(2, world({2, 5}));
  ASSERT_TRUE(two.counterexample.has_value());
  EXPECT_EQ(two.placements, 13u);  // the default and the 12 single deviations, all clean
  EXPECT_GT(two.schedules, two.placements);
  EXPECT_EQ(*two.counterexample, (std::vector<uint32_t>{0, 0, 1, 0, 0, 1}));
  const ExhaustiveResult none = search_schedules(2, world({}));  // fails only by default
  EXPECT_EQ(none.schedules, 1u);
  const ExhaustiveResult clean = search_schedules(2, world({1, 2, 3}));
  EXPECT_TRUE(clean.complete);
  EXPECT_EQ(clean.schedules, 1u + 12u + 66u);  // each sequence once, as without phase 1
  EXPECT_EQ(clean.placements, 13u);
}

// A stall placement is followed by its burst: the same stall at the same
// process's next points of that kind, up to the bound; a proof's count is
// unchanged (each schedule judged once).
TEST(SearchSchedules, StallBurstsFollowTheirPlacement) {
  auto world = [](std::vector<size_t> need) {
    return [need](const std::vector<uint32_t>& prefix) {
      Chooser c(prefix);
      std::vector<size_t> took;
      for (size_t i = 0; i < 12; ++i) {
        // Even points: process 1's pauses; odd points: its latencies.
        const ChoiceKind kind = i % 2 == 0 ? ChoiceKind::kPause : ChoiceKind::kLatency;
        if (c.choose(2, /*tie=*/false, kind, /*owner=*/1) == 1) took.push_back(i);
      }
      return ScheduleRun{.failed = took == need, .pruned = false, .points = c.points()};
    };
  };
  // Default; {0}, {0,2}, {0,2,4}; {1}; {2}, {2,4}, {2,4,6}: the eighth.
  const ExhaustiveResult three = search_schedules(3, world({2, 4, 6}));
  ASSERT_TRUE(three.counterexample.has_value());
  EXPECT_EQ(three.schedules, 8u);
  EXPECT_EQ(three.placements, 8u);
  EXPECT_EQ(*three.counterexample, (std::vector<uint32_t>{0, 0, 1, 0, 1, 0, 1}));
  // At bound 2 the burst stops at two stalls: {2, 4, 6} is out of bounds.
  const ExhaustiveResult two = search_schedules(2, world({2, 4, 6}));
  EXPECT_TRUE(two.complete);
  EXPECT_FALSE(two.counterexample.has_value());
  EXPECT_EQ(two.schedules, 1u + 12u + 66u);
  EXPECT_EQ(two.placements, 1u + 12u + 5u);  // five pauses with a later pause point: a burst each
  const ExhaustiveResult clean = search_schedules(3, world({1, 2, 3, 4}));
  EXPECT_TRUE(clean.complete);
  EXPECT_EQ(clean.schedules, 1u + 12u + 66u + 220u);
  // A latency burst is not placed: {1, 3} waits for the depth-first phase.
  const ExhaustiveResult latency = search_schedules(2, world({1, 3}));
  ASSERT_TRUE(latency.counterexample.has_value());
  EXPECT_GT(latency.schedules, latency.placements);
}

// Two processes, each sending one SET of `keys[i]`: fixed latency, no
// faults, so only same-time ties are choices. Every schedule of this world.
ExhaustiveResult tiny_world(bool reduce, std::array<const char*, 2> keys = {"a", "b"},
                            int64_t latency_us = 100) {
  return search_schedules(0, [reduce, keys, latency_us](const std::vector<uint32_t>& prefix) {
    WorldOptions o;
    o.faults.latency_distribution = LatencyDistribution::kFixed;
    o.faults.latency_min = Micros(latency_us);
    o.strategy = Strategy{.bound = 0, .schedule = prefix, .reduce = reduce};
    World w(o);
    for (const char* key : keys) {
      w.spawn_process(key, [key](ProcessEnv& env) { env.connection().call({"SET", key, "1"}); });
    }
    const bool pruned = w.run() == World::RunEnd::kPruned;
    return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
  });
}

TEST(ExhaustiveReduction, TinyWorldCounts) {
  const ExhaustiveResult full = tiny_world(/*reduce=*/false);
  const ExhaustiveResult reduced = tiny_world(/*reduce=*/true);
  const ExhaustiveResult one_key = tiny_world(/*reduce=*/true, {"a", "a"});
  ASSERT_TRUE(full.complete);
  ASSERT_TRUE(reduced.complete);
  ASSERT_TRUE(one_key.complete);
  EXPECT_EQ(full.pruned, 0u);
  // No tie is of dependent events: the two requests reaching the server at
  // t = 100 us set different keys (exhaustive.h, case 3), and the two
  // connections' closes at t = 300 us (each process ends after its reply)
  // drop sessions without subscriptions. Every tie (the processes starting,
  // the requests, the replies arriving, the closes) is run in one order.
  EXPECT_EQ(reduced.schedules, 1u);
  // And since messages take time, each of those ties has a first event
  // independent of everything due with it: no choice is made, so no run is
  // cut short either (exhaustive.h, "Ties that need no choice").
  EXPECT_EQ(reduced.pruned, 0u);
  // At latency 0 a reply can tie with the events of the microsecond its
  // request was sent in: the sleep sets alone cut the redundant orders.
  const ExhaustiveResult zero = tiny_world(/*reduce=*/true, {"a", "b"}, 0);
  ASSERT_TRUE(zero.complete);
  EXPECT_EQ(zero.schedules, 1u);
  EXPECT_GT(zero.pruned, 0u);
  // On one key the two SETs conflict: 2 orders.
  EXPECT_EQ(one_key.schedules, 2u);
  // Without the reduction: at t = 0 each process's start event wakes its
  // task, two chains of two events: C(4, 2) = 6 orders; the 2 request
  // orders; each reply's delivery wakes its task: 6 more; the 2 close orders.
  EXPECT_EQ(full.schedules, 6u * 2u * 6u * 2u);
  std::printf(
      "tiny world: %llu schedules with sleep sets (%llu pruned; %llu pruned at latency 0; %llu on "
      "one key), %llu without\n",
      static_cast<unsigned long long>(reduced.schedules),
      static_cast<unsigned long long>(reduced.pruned), static_cast<unsigned long long>(zero.pruned),
      static_cast<unsigned long long>(one_key.schedules),
      static_cast<unsigned long long>(full.schedules));
}

// A process's own timer and another process's request reaching the server
// at the same microsecond commute (case 2): one order. Two requests of one
// key from two processes do not.
TEST(ExhaustiveReduction, AClientTimerCommutesWithAnotherClientsCommand) {
  auto search = [](bool reduce) {
    return search_schedules(0, [reduce](const std::vector<uint32_t>& prefix) {
      WorldOptions o;
      o.faults.latency_distribution = LatencyDistribution::kFixed;
      o.faults.latency_min = Micros(100);
      o.strategy = Strategy{.bound = 0, .schedule = prefix, .reduce = reduce};
      World w(o);
      // Its SET reaches the server at t = 100 us ...
      w.spawn_process("writer", [](ProcessEnv& env) { env.connection().call({"SET", "k", "1"}); });
      // ... when this process's sleep ends (a client-side timer), twice over.
      w.spawn_process("sleeper", [](ProcessEnv& env) {
        env.sleep_for(lock::Micros(100));
        env.sleep_for(lock::Micros(0));
      });
      const bool pruned = w.run() == World::RunEnd::kPruned;
      return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
    });
  };
  const ExhaustiveResult reduced = search(true), full = search(false);
  ASSERT_TRUE(reduced.complete);
  ASSERT_TRUE(full.complete);
  EXPECT_EQ(reduced.schedules, 1u);
  EXPECT_GT(full.schedules, reduced.schedules);
}

// The expire-then-delete race of get-del (a holder's GET sees its own token,
// its lease runs out, another client takes the lock, the first one's DEL
// removes it), in a two-client world: seed 3's plan needs two deviations
// (two pauses of the small world's pause length, 48.75 ms in a 104 ms
// lease: one before the holder's GET, one before its DEL), so bound 2
// finds it and bound 1 proves that plan safe.
TEST(ExhaustiveSearch, FindsTheGetDelRaceAndItReplays) {
  ExplorePlan plan = generate_small_plan(lock::LockKind::kGetDel, 3);
  plan.strategy = parse_strategy("exhaustive:1");
  const ExhaustiveResult one = explore_exhaustive(plan);
  EXPECT_TRUE(one.complete);
  EXPECT_FALSE(one.counterexample.has_value());
  EXPECT_GT(one.schedules, 1u);

  plan.strategy = parse_strategy("exhaustive:2");
  const ExhaustiveResult two = explore_exhaustive(plan);
  ASSERT_TRUE(two.counterexample.has_value());
  int deviations = 0;
  for (uint32_t c : *two.counterexample) deviations += c > 0;
  EXPECT_LE(deviations, 2);
  // The printed schedule replays the failure, byte for byte.
  ExplorePlan replay = plan;
  replay.strategy = parse_strategy("exhaustive:2@" +
                                   format_schedule(*two.counterexample, two.counterexample_narrow));
  const ExploreOutcome a = run_plan(replay), b = run_plan(replay);
  ASSERT_FALSE(a.violations.empty());
  EXPECT_GE(find_expire_then_delete(a.history, kExploreKey), 0);
  EXPECT_EQ(a.history.hash(), b.history.hash());
  // Without the schedule (every default) the same plan is fine.
  replay.strategy.schedule.clear();
  EXPECT_TRUE(run_plan(replay).violations.empty());
}

// A one-fault bug: setnx-expire's crash between SETNX and EXPIRE is one
// placement away from the default schedule, so phase 1 finds it (it took a
// median of 2,114 schedules depth first), and the schedule replays.
TEST(ExhaustiveSearch, PlacementsFindTheSetnxExpireCrash) {
  ExplorePlan plan = generate_small_plan(lock::LockKind::kSetnxExpire, 1);
  plan.strategy = parse_strategy("exhaustive:2");
  const ExhaustiveResult r = explore_exhaustive(plan);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.placements, r.schedules);
  EXPECT_LE(r.schedules, 50u);
  EXPECT_EQ(std::count_if(r.counterexample->begin(), r.counterexample->end(),
                          [](uint32_t c) { return c > 0; }),
            1);
  ExplorePlan replay = plan;
  replay.strategy = parse_strategy("exhaustive:2@" + format_schedule(*r.counterexample));
  EXPECT_FALSE(run_plan(replay).violations.empty());
}

// Losses and lost replies are in the fixed fault set: each command gets a
// choice point for each when the plan has them, and option 0 (no fault)
// leaves the run as it was without them.
TEST(ExhaustiveSearch, LossesAndLostRepliesAreChoicePoints) {
  ExplorePlan plan = generate_small_plan(lock::LockKind::kSimple, 2);
  plan.strategy = parse_strategy("exhaustive:1");
  const ExploreOutcome quiet = run_plan(plan);
  plan.faults.loss_ppm = Ppm(1);
  plan.faults.lost_reply_ppm = Ppm(1);
  plan.command_timeout = Micros{20'000};
  const ExploreOutcome faulty = run_plan(plan);
  EXPECT_EQ(quiet.commands, faulty.commands);
  EXPECT_TRUE(faulty.violations.empty());
  // Two more points per command: a reset (3 options: before or after the
  // command ran) and a lost reply.
  ASSERT_GE(faulty.choices.size(), quiet.choices.size() + 2 * quiet.commands);
  size_t resets = 0, lost = 0;
  for (const ChoicePoint& p : faulty.choices) {
    resets += !p.tie && p.options == 3;
  }
  EXPECT_EQ(resets, quiet.commands);
  // The first command's reset, before it ran: its connection breaks.
  size_t first_reset = 0;
  while (faulty.choices[first_reset].options != 3) ++first_reset;
  std::vector<uint32_t> schedule(first_reset + 1, 0);
  schedule.back() = 1;
  plan.strategy.schedule = schedule;
  const ExploreOutcome reset = run_plan(plan);
  for (const HistoryEvent& e : reset.history.events()) lost += e.kind == EventKind::kMessageLost;
  EXPECT_EQ(lost, 1u);
}

// A correct lock over a whole bounded space: no violation, and the sleep
// sets run fewer schedules than the plain enumeration of tie orders.
TEST(ExhaustiveSearch, ProvesSimpleAndTheReductionPrunes) {
  ExplorePlan plan = generate_small_plan(lock::LockKind::kSimple, 2);
  plan.strategy = parse_strategy("exhaustive:1");
  const ExhaustiveResult reduced = explore_exhaustive(plan);
  EXPECT_TRUE(reduced.complete);
  EXPECT_FALSE(reduced.counterexample.has_value());
  EXPECT_GT(reduced.schedules, 1u);
  plan.strategy.reduce = false;
  const ExhaustiveResult full = explore_exhaustive(plan);
  EXPECT_TRUE(full.complete);
  EXPECT_FALSE(full.counterexample.has_value());
  EXPECT_EQ(full.pruned, 0u);
  EXPECT_LT(reduced.schedules, full.schedules);
  std::printf("simple, seed 2, bound 1: %llu schedules with sleep sets, %llu without\n",
              static_cast<unsigned long long>(reduced.schedules),
              static_cast<unsigned long long>(full.schedules));
}

// Per task (exhaustive.h, cases 4 to 7): a ReentrantLock client's lock
// task and watchdog run at the same microsecond; with their runs judged
// narrow from their sibling runs, the second order sleeps and its run is
// cut as redundant (before the per-task relation: 0 of the first 2,000
// runs pruned). With a watchdog's end (case 6) and a run that opens a
// connection (case 7) no longer process-wide, seed 1's whole space at
// bound 0 is run: 2 clients x 2 attempts of reentrant are proved (it was
// cut at 20,000 runs before).
TEST(ExhaustiveReduction, ALockTaskAndItsWatchdogCommute) {
  ExplorePlan plan = generate_small_plan(lock::LockKind::kReentrant, 1);
  plan.strategy = parse_strategy("exhaustive:0");
  const ExhaustiveResult r = explore_exhaustive(plan, /*max_runs=*/20000);
  EXPECT_FALSE(r.counterexample.has_value());
  EXPECT_GT(r.pruned, 0u);
  EXPECT_TRUE(r.complete);
  EXPECT_LT(r.schedules, 1000u);
  std::printf("reentrant, seed 1, bound 0: no violation in all %llu schedules (%llu pruned)\n",
              static_cast<unsigned long long>(r.schedules),
              static_cast<unsigned long long>(r.pruned));
}

// A world of fixed 100 us latencies searched at bound 0: `body` spawns its
// processes; the search's result.
ExhaustiveResult search_world(bool reduce, const std::function<void(World&)>& body) {
  return search_schedules(0, [reduce, &body](const std::vector<uint32_t>& prefix) {
    WorldOptions o;
    o.faults.latency_distribution = LatencyDistribution::kFixed;
    o.faults.latency_min = Micros(100);
    o.strategy = Strategy{.bound = 0, .schedule = prefix, .reduce = reduce};
    World w(o);
    body(w);
    const bool pruned = w.run() == World::RunEnd::kPruned;
    return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
  });
}

// Case 8: UNSUBSCRIBE's reply, which nobody waits for, reaches the process
// at t = 400 us with its SET's reply: it touches no state, so one order.
// A SUBSCRIBE's reply (it registers the subscription) and another task's
// SET reply at one microsecond stay dependent: both orders are run.
TEST(ExhaustiveReduction, AReplyNobodyWaitsForCommutesWithEverything) {
  auto unsubscribe_then_set = [](World& w) {
    w.spawn_process("p", [](ProcessEnv& env) {
      const lock::SubscriptionId id = env.subscribe("ch", [](const std::string&) {});
      env.unsubscribe(id);                       // its reply arrives at 400 us ...
      env.connection().call({"SET", "a", "1"});  // ... with this one's
    });
  };
  const ExhaustiveResult reduced = search_world(true, unsubscribe_then_set);
  const ExhaustiveResult full = search_world(false, unsubscribe_then_set);
  ASSERT_TRUE(reduced.complete);
  ASSERT_TRUE(full.complete);
  EXPECT_EQ(reduced.schedules, 1u);
  EXPECT_GT(full.schedules, reduced.schedules);
  auto subscribe_beside_set = [](World& w) {
    w.spawn_process("p", [](ProcessEnv& env) {
      env.spawn("subscriber", [&env] { env.subscribe("ch", [](const std::string&) {}); });
      env.connection().call({"SET", "a", "1"});  // both replies arrive at 200 us
    });
  };
  const ExhaustiveResult dependent = search_world(true, subscribe_beside_set);
  ASSERT_TRUE(dependent.complete);
  EXPECT_GE(dependent.schedules, 2u);
  std::printf("case 8: %llu schedules (%llu without sleep sets); a subscription's reply: %llu\n",
              static_cast<unsigned long long>(reduced.schedules),
              static_cast<unsigned long long>(full.schedules),
              static_cast<unsigned long long>(dependent.schedules));
}

// Case 9: main's run in which it returns (the process ends) and another
// task's reply at one microsecond (200 us). The order "main first" keeps
// the reply asleep and is cut as redundant; when main's run does something
// else process-wide instead (it starts a task) both orders are judged.
TEST(ExhaustiveReduction, AProcessEndCommutesWithAnotherTasksReply) {
  auto world = [](bool ends) {
    return [ends](World& w) {
      w.spawn_process("p", [ends](ProcessEnv& env) {
        env.spawn("getter", [&env] { env.connection().call({"GET", "b"}); });
        env.sleep_for(lock::Micros(200));  // wakes with the GET's reply
        if (ends) return;
        env.spawn("late", [] {});
        env.sleep_for(lock::Micros(1000));
      });
    };
  };
  const ExhaustiveResult ending = search_world(true, world(true));
  const ExhaustiveResult going_on = search_world(true, world(false));
  ASSERT_TRUE(ending.complete);
  ASSERT_TRUE(going_on.complete);
  EXPECT_GT(ending.pruned, 0u);
  EXPECT_LT(ending.schedules, going_on.schedules);
  std::printf("case 9: %llu schedules (%llu pruned) when main ends; %llu when it goes on\n",
              static_cast<unsigned long long>(ending.schedules),
              static_cast<unsigned long long>(ending.pruned),
              static_cast<unsigned long long>(going_on.schedules));
}

// Case 10: two processes' SUBSCRIBEs reach the server at 100 us. Different
// channels: one order; one channel (the subscriber list's order differs):
// both. A pub/sub connection's close and another session's SUBSCRIBE of
// the same channel commute (a removal and an addition).
TEST(ExhaustiveReduction, SubscriptionsOfTwoSessionsCommuteUnlessBothAddOneChannel) {
  auto two = [](const char* a, const char* b) {
    return [a, b](World& w) {
      for (const char* ch : {a, b}) {
        w.spawn_process(ch,
                        [ch](ProcessEnv& env) { env.subscribe(ch, [](const std::string&) {}); });
      }
    };
  };
  const ExhaustiveResult apart = search_world(true, two("x", "y"));
  const ExhaustiveResult same = search_world(true, two("x", "x"));
  ASSERT_TRUE(apart.complete);
  ASSERT_TRUE(same.complete);
  EXPECT_EQ(apart.schedules, 1u);
  EXPECT_EQ(same.schedules, 2u);
  // p1's close (it ends once subscribed, at 200 us) reaches the server at
  // 300 us with p2's SUBSCRIBE of the same channel.
  const ExhaustiveResult close = search_world(true, [](World& w) {
    w.spawn_process("p1", [](ProcessEnv& env) { env.subscribe("x", [](const std::string&) {}); });
    w.spawn_process("p2", [](ProcessEnv& env) {
      env.sleep_for(lock::Micros(200));
      env.subscribe("x", [](const std::string&) {});
    });
  });
  ASSERT_TRUE(close.complete);
  EXPECT_EQ(close.schedules, 1u);
}

// Case 11: a transaction's commands have footprints. WATCH reads and joins
// its keys; MULTI, UNWATCH and DISCARD change only their own session; EXEC
// may touch what a script may. Case 12: SCRIPT LOAD meets only scripts.
TEST(ExhaustiveReduction, TransactionsAndScriptLoadsHaveFootprints) {
  auto commute = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    const auto fa = command_footprint(0, a);
    const auto fb = command_footprint(0, b);
    if (fa == nullptr || fb == nullptr) return false;
    EXPECT_EQ(fa->commutes_with(*fb), fb->commutes_with(*fa));
    return fa->commutes_with(*fb);
  };
  const std::vector<std::string> set_k = {"SET", "k", "1"};
  EXPECT_FALSE(commute({"WATCH", "k"}, set_k));
  EXPECT_TRUE(commute({"WATCH", "j"}, set_k));
  EXPECT_TRUE(commute({"MULTI"}, set_k));
  EXPECT_TRUE(commute({"UNWATCH"}, set_k));
  EXPECT_TRUE(commute({"DISCARD"}, set_k));
  EXPECT_FALSE(commute({"EXEC"}, set_k));
  EXPECT_FALSE(commute({"EXEC"}, {"EXEC"}));
  EXPECT_TRUE(commute({"SCRIPT", "LOAD", "return 1"}, set_k));
  EXPECT_TRUE(commute({"script", "load", "return 1"}, {"SCRIPT", "LOAD", "return 2"}));
  EXPECT_FALSE(commute({"SCRIPT", "LOAD", "return 1"},
                       {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"}));
  EXPECT_FALSE(commute({"SCRIPT", "LOAD", "return 1"}, {"EVAL", "return 1", "0"}));
  EXPECT_FALSE(commute({"SCRIPT", "LOAD", "return 1"}, {"EXEC"}));
  EXPECT_EQ(command_footprint(0, {"SCRIPT", "FLUSH"}), nullptr);
  // In a world: another process's SET of k reaches the server at 100 us
  // with a MULTI (one order) or with a WATCH of k (both orders: the WATCH
  // sees the key's state, and the SET may dirty the watch).
  auto beside_set = [](std::vector<std::string> argv) {
    return [argv](World& w) {
      w.spawn_process("tx", [argv](ProcessEnv& env) { env.connection().call(argv); });
      w.spawn_process("setter", [](ProcessEnv& env) { env.connection().call({"SET", "k", "1"}); });
    };
  };
  const ExhaustiveResult multi = search_world(true, beside_set({"MULTI"}));
  const ExhaustiveResult watch = search_world(true, beside_set({"WATCH", "k"}));
  ASSERT_TRUE(multi.complete);
  ASSERT_TRUE(watch.complete);
  EXPECT_EQ(multi.schedules, 1u);
  EXPECT_EQ(watch.schedules, 2u);
}

// Case 13: two processes write one FencedResource at 100 us. With
// fence_writes both orders run, and one of them rejects the lower token;
// without it (the harness's reduce = true before this case) the writes
// counted as independent and the rejection was never seen. One writer
// against a process that writes nothing: one order.
TEST(ExhaustiveReduction, FenceWritesOfTwoProcessesStayOrdered) {
  struct Seen {
    ExhaustiveResult result;
    size_t rejected = 0;
  };
  auto search = [](bool fence_writes, bool both_write) {
    Seen seen;
    seen.result = search_schedules(
        0, [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
          WorldOptions o;
          o.faults.latency_distribution = LatencyDistribution::kFixed;
          o.faults.latency_min = Micros(100);
          o.strategy = Strategy{
              .bound = 0, .schedule = prefix, .narrow = narrow, .fence_writes = fence_writes};
          World w(o);
          for (int64_t token : {1, 2}) {
            const bool writes = both_write || token == 2;
            w.spawn_process("p" + std::to_string(token), [token, writes](ProcessEnv& env) {
              env.sleep_for(lock::Micros(100));
              if (writes) env.fenced_resource("storage").write(env, token);
              env.sleep_for(lock::Micros(50));  // a run that ends nothing: narrow unless it wrote
            });
          }
          const bool pruned = w.run() == World::RunEnd::kPruned;
          if (!pruned) {
            for (const HistoryEvent& e : w.history().events()) {
              seen.rejected +=
                  e.kind == EventKind::kFencedWrite && e.verdict == FenceVerdict::kRejected;
            }
          }
          return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
        });
    return seen;
  };
  const Seen ordered = search(true, true);
  const Seen unordered = search(false, true);
  const Seen one_writer = search(true, false);
  ASSERT_TRUE(ordered.result.complete);
  ASSERT_TRUE(unordered.result.complete);
  ASSERT_TRUE(one_writer.result.complete);
  EXPECT_EQ(ordered.result.schedules, 2u);
  EXPECT_EQ(ordered.rejected, 1u);
  EXPECT_EQ(unordered.result.schedules, 1u);
  EXPECT_EQ(unordered.rejected, 0u);
  EXPECT_EQ(one_writer.result.schedules, 1u);
}

// Ties that need no choice take a whole persistent set: a command of task
// A and a timer of task B of one process at 100 us are independent, but
// the timer starts B's run, whose fault point may crash the process first:
// the SET then runs orphaned (its caller gone), which the lock-key
// checkers read. So both events form one set and both orders run: some
// schedule crashes at 100 us before the SET runs (the rule of one event
// ran the command first, never orphaned).
TEST(ExhaustiveReduction, AnotherTasksTimerMayCrashTheProcessFirst) {
  size_t crashed_before_set = 0;
  const ExhaustiveResult r = search_schedules(1, [&](const std::vector<uint32_t>& prefix) {
    WorldOptions o;
    o.faults.latency_distribution = LatencyDistribution::kFixed;
    o.faults.latency_min = Micros(100);
    o.faults.crash_ppm = Ppm(1);
    o.strategy = Strategy{.bound = 1, .schedule = prefix};
    World w(o);
    w.spawn_process("p", [](ProcessEnv& env) {
      env.spawn("b", [&env] {
        env.sleep_for(lock::Micros(100));  // its timer comes after the SET's arrival
        env.sleep_for(lock::Micros(1));    // a fault point at 100 us
      });
      env.connection().call({"SET", "k", "1"});  // reaches the server at 100 us
    });
    const bool pruned = w.run() == World::RunEnd::kPruned;
    if (!pruned) {
      bool crashed = false, orphaned = false;
      for (const HistoryEvent& e : w.history().events()) {
        crashed |= e.kind == EventKind::kProcessCrash && e.t_us == 100;
        orphaned |= e.kind == EventKind::kCommand && e.t_us == 100 && e.orphaned;
      }
      crashed_before_set += crashed && orphaned;
    }
    return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
  });
  ASSERT_TRUE(r.complete);
  EXPECT_GE(crashed_before_set, 1u);
}

// A world of two servers under `faults` (bound 0, latency 100 us), each
// schedule searched with the reduction.
ExhaustiveResult search_faulty_world(const FaultPlan& faults,
                                     const std::function<void(World&)>& body) {
  return search_schedules(0, [&](const std::vector<uint32_t>& prefix) {
    WorldOptions o;
    o.faults = faults;
    o.faults.latency_distribution = LatencyDistribution::kFixed;
    o.faults.latency_min = Micros(100);
    o.servers = 2;
    o.strategy = Strategy{.bound = 0, .schedule = prefix};
    World w(o);
    body(w);
    const bool pruned = w.run() == World::RunEnd::kPruned;
    return ScheduleRun{.failed = false, .pruned = pruned, .points = w.choice_points()};
  });
}

// Two processes' SETs reaching the server(s) at 100 us.
std::function<void(World&)> two_sets(size_t second_server, const char* second_key) {
  return [second_server, second_key](World& w) {
    w.spawn_process("p1", [](ProcessEnv& env) { env.connection(0).call({"SET", "a", "1"}); });
    w.spawn_process("p2", [second_server, second_key](ProcessEnv& env) {
      env.connection(second_server).call({"SET", second_key, "1"});
    });
  };
}

// A process whose run at 100 us starts a task (process-wide), and another
// process's `argv` reaching server 0 at 100 us.
std::function<void(World&)> wide_run_beside(std::vector<std::string> argv) {
  return [argv](World& w) {
    w.spawn_process("spawner", [](ProcessEnv& env) {
      env.sleep_for(lock::Micros(100));
      env.spawn("t", [] {});
    });
    w.spawn_process("sender", [argv](ProcessEnv& env) { env.connection(0).call(argv); });
  };
}

// Case 14: under random partitions, requests keep their footprints (two
// SETs on two servers, or of two keys: one order; before, every request
// was dependent on everything: two). A client-side event not known to stay
// within its task may start a partition, which drops its process's
// subscriptions as a close would: it stays dependent on a PUBLISH of
// another process (both orders), and commutes with a keyed command, as it
// does without partitions.
TEST(ExhaustiveReduction, PartitionsKeepFootprintsButNotBesidePublishes) {
  FaultPlan parts;
  parts.partition_ppm = Ppm(1);
  parts.partition_min = Micros(1000);
  parts.partition_max = Micros(2000);
  const ExhaustiveResult servers = search_faulty_world(parts, two_sets(1, "a"));
  const ExhaustiveResult keys = search_faulty_world(parts, two_sets(0, "b"));
  const ExhaustiveResult one_key = search_faulty_world(parts, two_sets(0, "a"));
  const ExhaustiveResult publish =
      search_faulty_world(parts, wide_run_beside({"PUBLISH", "c", "m"}));
  const ExhaustiveResult set = search_faulty_world(parts, wide_run_beside({"SET", "a", "1"}));
  const ExhaustiveResult calm =
      search_faulty_world(FaultPlan{}, wide_run_beside({"PUBLISH", "c", "m"}));
  for (const ExhaustiveResult* r : {&servers, &keys, &one_key, &publish, &set, &calm}) {
    ASSERT_TRUE(r->complete);
  }
  EXPECT_EQ(servers.schedules, 1u);
  EXPECT_EQ(keys.schedules, 1u);
  EXPECT_EQ(one_key.schedules, 2u);
  EXPECT_EQ(publish.schedules, 2u);
  EXPECT_EQ(set.schedules, 1u);
  EXPECT_EQ(calm.schedules, 1u);
}

// Case 15: a command draws from its server's stream (a crash, a clock
// jump): two commands on one server stay ordered even on disjoint keys,
// two on different servers commute. A command that may crash its server
// (breaking every process's links to it) is dependent on any client-side
// event; with clock jumps alone it is not.
TEST(ExhaustiveReduction, ServerDrawsOrderOneServersCommands) {
  FaultPlan crashes;
  crashes.server_crash_ppm = Ppm(1);
  crashes.server_down_min = Micros(1000);
  crashes.server_down_max = Micros(2000);
  FaultPlan jumps;
  jumps.server_clock_jump_ppm = Ppm(1);
  jumps.clock_jump_max = Micros(1000);
  for (const FaultPlan* f : {&crashes, &jumps}) {
    const ExhaustiveResult servers = search_faulty_world(*f, two_sets(1, "a"));
    const ExhaustiveResult keys = search_faulty_world(*f, two_sets(0, "b"));
    ASSERT_TRUE(servers.complete);
    ASSERT_TRUE(keys.complete);
    EXPECT_EQ(servers.schedules, 1u);
    // The SETs at 100 us and the two connections' closes at 300 us: 2 x 2.
    EXPECT_EQ(keys.schedules, 4u);
  }
  // A SET of p2 at 100 us beside p1's timer at 100 us (a narrow event).
  auto timer_beside_set = [](World& w) {
    w.spawn_process("sleeper", [](ProcessEnv& env) {
      env.sleep_for(lock::Micros(100));
      env.sleep_for(lock::Micros(0));
    });
    w.spawn_process("writer", [](ProcessEnv& env) { env.connection(0).call({"SET", "k", "1"}); });
  };
  const ExhaustiveResult crash = search_faulty_world(crashes, timer_beside_set);
  const ExhaustiveResult jump = search_faulty_world(jumps, timer_beside_set);
  ASSERT_TRUE(crash.complete);
  ASSERT_TRUE(jump.complete);
  EXPECT_GT(crash.schedules, 1u);
  EXPECT_EQ(jump.schedules, 1u);
  // A server whose restart may fall in its crash's microsecond keeps no
  // footprints: even two servers' SETs (and closes) run in both orders.
  FaultPlan instant = crashes;
  instant.server_down_min = Micros(0);
  const ExhaustiveResult no_footprints = search_faulty_world(instant, two_sets(1, "a"));
  ASSERT_TRUE(no_footprints.complete);
  EXPECT_EQ(no_footprints.schedules, 4u);
}

// The reduction keeps every outcome: on small worlds of the simple lock (2
// clients x 1 attempt, contending in one microsecond) with frequent
// partitions or server crashes, every
// history the unreduced search reaches (its events as a multiset: the
// order of one microsecond's records and the client ids aside) is reached
// by the reduced search too (cases 14 and 15).
TEST(ExhaustiveReduction, KeepsEveryOutcomeUnderPartitionsAndServerCrashes) {
  size_t compared = 0, with_fault = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    ExplorePlan plan = generate_small_plan(lock::LockKind::kSimple, seed, 2, 1);
    // Both clients start together and every message takes 100 us: their
    // requests meet at the server in one microsecond.
    plan.clients[1].attempts = plan.clients[0].attempts;
    plan.faults.latency_distribution = LatencyDistribution::kFixed;
    plan.faults.latency_min = plan.faults.latency_max = Micros(100);
    if (seed % 2 == 1) {
      plan.faults.partition_ppm = Ppm(300000);
      plan.faults.partition_min = Micros(500);
      plan.faults.partition_max = Micros(3000);
    } else {
      plan.faults.server_crash_ppm = Ppm(100000);
      plan.faults.server_down_min = Micros(1000);
      plan.faults.server_down_max = Micros(3000);
    }
    bool full_complete = false, reduced_complete = false;
    const auto full = outcomes(plan, false, &full_complete);
    const auto reduced = outcomes(plan, true, &reduced_complete);
    if (!full_complete) continue;
    ASSERT_TRUE(reduced_complete) << "seed " << seed;
    ++compared;
    for (const auto& o : full) {
      EXPECT_TRUE(reduced.contains(o)) << "seed " << seed << ": an outcome the reduction lost";
      with_fault += std::any_of(o.begin(), o.end(), [](const std::string& e) {
        return e.find("partition") != std::string::npos || e.find("crash") != std::string::npos;
      });
    }
    std::printf("seed %llu: %zu outcomes unreduced, %zu reduced\n",
                static_cast<unsigned long long>(seed), full.size(), reduced.size());
  }
  EXPECT_GE(compared, 2u);
  EXPECT_GE(with_fault, 1u);
}

}  // namespace
}  // namespace redsim::world

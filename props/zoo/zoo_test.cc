// The bug zoo, both directions, through the harness's DEFAULT property:
// gen_plan(lease, options) + run_plan + the default checks of the plan's
// profile, run by RapidCheck with fixed seeds (as testing_test.cc's
// FindAndShrinkAUsersGetThenDelRace does).
//
// - Every buggy lock is found within 200 cases for at least 19 of 20
//   seeds; its failure, shrunk, has at most 3 clients, is reported by one
//   of its expected checkers, and the violation's excerpt shows the cause.
// - Every correct lock is clean for REDSIM_ZOO_CASES cases (default 150)
//   under each profile, budgeted and unbounded.
//
// REDSIM_ZOO_SHRINK_SEEDS (default 2) sets how many of the 20 seeds are
// also shrunk (shrinking costs far more than finding); the full figures of
// README.md's table come from REDSIM_ZOO_SHRINK_SEEDS=20 and
// REDSIM_ZOO_CASES=10000. Each test prints one "zoo:" line with its figures.
#include "props/zoo/zoo.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "lock/redlock.h"
#include "sim/world/checkers.h"
#include "sim/world/testing/generators.h"
#include "sim/world/testing/harness.h"

namespace redsim::zoo {
namespace {

constexpr int kSeeds = 20;
constexpr int kMaxCases = 200;

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::max(0, std::atoi(text));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One RapidCheck run of the default property of `e` under `options`.
struct Outcome {
  bool failed = false;
  int cases = 0;                             // cases run up to the first failure
  std::optional<world::ExplorePlan> shrunk;  // the last failing plan (shrunk when asked)
  std::string description;                   // RapidCheck's failure text (the report)
};

Outcome run_property(const Entry& e, const harness::PlanOptions& options, uint64_t seed, int cases,
                     bool shrink) {
  Outcome out;
  harness::RunOptions run = e.run;
  // REDSIM_ZOO_WHOLE_TIMELINE=1: failures print the whole history.
  run.excerpt.whole_timeline = env_int("REDSIM_ZOO_WHOLE_TIMELINE", 0) == 1;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  params.disableShrinking = !shrink;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&] {
        const harness::LockSchedule plan = *harness::gen_plan(e.lease, options);
        const harness::RunResult r = harness::run_plan(plan, e.factory, run);
        if (!r.safe()) out.shrunk = plan;
        harness::rc_assert_safe(plan, r);
      },
      rc::detail::TestMetadata{}, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    out.failed = true;
    out.cases = static_cast<int>(failure.numSuccess) + 1;
    out.description = failure.description;
  }
  return out;
}

}  // namespace

// How GoogleTest names an entry in a failure.
void PrintTo(const Entry& e, std::ostream* os) { *os << e.name; }

namespace {

std::vector<Entry> pick(bool buggy) {
  std::vector<Entry> out;
  for (Entry& e : entries()) {
    if (e.buggy == buggy) out.push_back(std::move(e));
  }
  return out;
}

std::string test_name(const ::testing::TestParamInfo<Entry>& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

TEST(Zoo, HasSixteenBuggyAndSixCorrectLocksEachWithItsSource) {
  const std::vector<Entry> all = entries();
  size_t buggy = 0;
  std::vector<std::string> names;
  for (const Entry& e : all) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.source.empty());
    EXPECT_FALSE(e.what.empty());
    ASSERT_TRUE(static_cast<bool>(e.factory));
    if (e.buggy) {
      ++buggy;
      EXPECT_FALSE(e.checkers.empty());
      EXPECT_FALSE(e.causes.empty());
    }
    names.push_back(e.name);
  }
  EXPECT_GE(buggy, 16u);
  size_t within_three = 0;
  for (const Entry& e : all) within_three += e.buggy && e.shrunk_clients_max <= 3 ? 1 : 0;
  std::cout << "zoo: " << within_three << " of " << buggy
            << " buggy locks held to the target of 3 shrunk clients\n";
  EXPECT_GE(all.size() - buggy, 6u);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "names are unique";
}

// RapidCheck's shrunk plan for watchdog-blind-pexpire with RapidCheck seed 6
// (REDSIM_ZOO_SHRINK_SEEDS=20): five clients, no faults, every time 0 or
// 1 ms. Its violation hangs on two events of one microsecond (the stale
// watchdog's PEXPIRE at t=25 ms just before the holder's release at 25 ms),
// so dropping any client, with any world seed, loses it: only new times for
// the remaining attempts bring the interleaving back.
TEST(Zoo, MinimizePlanRetimesWhenDroppingAClientLosesAFaultFreeFailure) {
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(
      "p1/1,100,2000,10000,1,0,0,0,0,1,0,0,0,0,0,0,500000,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,20000,100000,512/1.1.0.0.0.1000.0.0/1.1.0.1000.0/1.1.1000.0.0/1.1.0.1000.0/"
      "1.1.1000.1000.0.0.1000.0");
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->clients.size(), 5u);
  std::vector<Entry> all = entries();
  const auto e = std::find_if(all.begin(), all.end(),
                              [](const Entry& x) { return x.name == "watchdog-blind-pexpire"; });
  ASSERT_NE(e, all.end());
  auto fails = [](const harness::RunResult& r) { return r.has("foreign-write"); };
  ASSERT_TRUE(fails(harness::run_plan(*plan, e->factory, e->run)));
  const world::ExplorePlan reseeded_only =
      harness::minimize_plan(*plan, e->factory, e->run, fails, 16, 3000, /*retimes=*/0);
  EXPECT_EQ(reseeded_only.clients.size(), 5u) << "no client drops with other seeds alone";
  const world::ExplorePlan minimal = harness::minimize_plan(*plan, e->factory, e->run, fails);
  EXPECT_LE(minimal.clients.size(), 2u);
  EXPECT_TRUE(fails(harness::run_plan(minimal, e->factory, e->run))) << "the result replays";
}

class BuggyLock : public ::testing::TestWithParam<Entry> {};

TEST_P(BuggyLock, FoundByTheDefaultPropertyAndShrunk) {
  const Entry& e = GetParam();
  const int shrink_seeds = std::min(env_int("REDSIM_ZOO_SHRINK_SEEDS", 2), kSeeds);
  std::vector<int> cases;
  int found = 0;
  int shrunk_ok = 0;
  std::string sizes;
  size_t max_clients = 0;
  for (int s = 1; s <= kSeeds; ++s) {
    const auto seed = static_cast<uint64_t>(s);
    const bool shrink = s <= shrink_seeds;
    const Outcome o = run_property(e, e.plan, seed, kMaxCases, shrink);
    if (!o.failed) {
      std::cout << e.name << ": not found in " << kMaxCases << " cases with RapidCheck seed "
                << seed << "\n";
      continue;
    }
    ++found;
    cases.push_back(o.cases);
    if (!shrink) continue;
    if (!o.shrunk) {
      ADD_FAILURE() << "no failing plan kept for seed " << seed;
      continue;
    }
    // RapidCheck's plan, then harness::minimize_plan (fewer clients, tried
    // with other world seeds and other times) for a smaller counterexample
    // of an expected checker.
    auto expected_fails = [&e](const harness::RunResult& run) {
      for (const std::string& checker : e.checkers) {
        if (run.has(checker)) return true;
      }
      return false;
    };
    const world::ExplorePlan minimal =
        harness::minimize_plan(*o.shrunk, e.factory, e.run, expected_fails);
    const size_t clients = minimal.clients.size();
    max_clients = std::max(max_clients, clients);
    sizes += (sizes.empty() ? "" : ",") + std::to_string(o.shrunk->clients.size()) + "->" +
             std::to_string(clients);
    // The shrunk plan replays (REDSIM_PLAN), and a violation of an expected
    // checker shows the cause in its own excerpt, as report() prints it.
    harness::RunResult r = harness::run_plan(minimal, e.factory, e.run);
    bool expected = false;
    bool cause_shown = false;
    for (const world::Violation& v : r.violations) {
      if (std::find(e.checkers.begin(), e.checkers.end(), v.checker) == e.checkers.end()) continue;
      expected = true;
      harness::RunResult one;
      one.violations = {v};
      one.history = r.history;
      one.excerpt = r.excerpt;
      const std::string text = harness::report(one, "");
      EXPECT_TRUE(contains(text, "VIOLATION (" + v.checker + ")"));
      for (const std::string& cause : e.causes) cause_shown = cause_shown || contains(text, cause);
    }
    const bool replay =
        contains(o.description, "REDSIM_PLAN='" + harness::encode_plan(*o.shrunk) + "'");
    const bool ok = clients <= e.shrunk_clients_max && expected && cause_shown && replay;
    shrunk_ok += ok ? 1 : 0;
    if (!ok) {
      std::cout << e.name << ", RapidCheck seed " << seed << ": shrunk to " << clients
                << " clients; expected checker " << (expected ? "yes" : "no") << ", cause shown "
                << (cause_shown ? "yes" : "no") << ", replay line " << (replay ? "yes" : "no")
                << "\n"
                << o.description << "\n";
    }
  }
  std::sort(cases.begin(), cases.end());
  const int median = cases.empty() ? -1 : cases[cases.size() / 2];
  std::cout << "zoo: " << e.name << " | " << profile_name(e.plan.profile) << " | found by " << found
            << "/" << kSeeds << " seeds | median cases " << median << " | shrunk ok " << shrunk_ok
            << "/" << shrink_seeds << " | shrunk clients " << sizes << " (max " << max_clients
            << ")\n";
  EXPECT_GE(found, kSeeds - 1) << "found within " << kMaxCases << " cases";
  // At least 19 of 20 seeds: of the seeds shrunk, one in 20 (rounded up) may miss.
  EXPECT_GE(shrunk_ok, shrink_seeds - (shrink_seeds + 19) / 20)
      << "shrunk to at most " << e.shrunk_clients_max
      << " clients, by an expected checker, with its cause in the excerpt";
}

INSTANTIATE_TEST_SUITE_P(Zoo, BuggyLock, ::testing::ValuesIn(pick(true)), test_name);

class CorrectLock : public ::testing::TestWithParam<Entry> {};

void expect_clean(const Entry& e, harness::FaultProfile profile) {
  const int cases = env_int("REDSIM_ZOO_CASES", 150);
  const uint64_t seed = harness::default_seed(1);
  const Outcome o = run_property(e, plan_for(e, profile), seed, cases, /*shrink=*/true);
  std::cout << "zoo: " << e.name << " | " << profile_name(profile) << " | " << cases << " cases | "
            << (o.failed ? "flagged at case " + std::to_string(o.cases) : std::string("clean"))
            << "\n";
  EXPECT_FALSE(o.failed) << e.name << " flagged under " << profile_name(profile)
                         << " (RapidCheck seed " << seed
                         << ", replay the whole run with REDSIM_SEED=" << seed
                         << ", or the shrunk plan with the REDSIM_PLAN line):\n"
                         << o.description;
}

TEST_P(CorrectLock, CleanUnderTheBudgetedProfile) {
  expect_clean(GetParam(), harness::FaultProfile::kBudgeted);
}

TEST_P(CorrectLock, CleanUnderTheUnboundedProfile) {
  expect_clean(GetParam(), harness::FaultProfile::kUnbounded);
}

INSTANTIATE_TEST_SUITE_P(Zoo, CorrectLock, ::testing::ValuesIn(pick(false)), test_name);

// A user's property runs under PCT through the public generators: the plan
// carries the strategy (PlanOptions::strategy), run_plan uses it, and the
// replay line (encode_plan) keeps it.
TEST(Zoo, PctFindsAUsersBugThroughTheHarness) {
  std::optional<Entry> entry;
  for (Entry& e : entries()) {
    if (e.name == "get-then-del") entry = std::move(e);
  }
  ASSERT_TRUE(entry.has_value());
  harness::PlanOptions options = entry->plan;
  options.strategy = world::parse_strategy("pct:3");
  int found = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Outcome out = run_property(*entry, options, seed, kMaxCases, /*shrink=*/false);
    if (!out.failed) continue;
    ++found;
    ASSERT_TRUE(out.shrunk.has_value());
    EXPECT_EQ(out.shrunk->strategy, world::parse_strategy("pct:3"));
    const std::string line = harness::encode_plan(*out.shrunk);
    EXPECT_NE(line.find("/s=pct:3/"), std::string::npos) << line;
    const std::optional<world::ExplorePlan> back = harness::parse_plan(line);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->strategy, out.shrunk->strategy);
    // The replayed plan fails the same way.
    EXPECT_FALSE(harness::run_plan(*back, entry->factory, entry->run).safe());
  }
  EXPECT_GE(found, 4) << "pct:3 found get-then-del for " << found << " of 5 seeds";
}

std::optional<Entry> entry_named(const std::string& name) {
  for (Entry& e : entries()) {
    if (e.name == name) return std::move(e);
  }
  return std::nullopt;
}

// The two plans pct:3 flagged on correct locks in the yardstick (--zoo --cap
// 200, 20 runs): each must replay clean.
// - verify-after-set: client 2 crashed right after its SET (t=50.7 ms),
//   client 1 restarted, won the SET the moment that key expired (t=155.2 ms)
//   and crashed too: the restarted client 2 waited 193 ms behind two
//   crashed owners' keys, which the liveness checker counted as a free lock
//   (excused_holds now counts a crashed owner's expiring key as held).
// - lost-reply-aware: its SET's reply timed out (t=46.7 ms), the server
//   crashed three times while it retried, and its GET found its own token
//   at t=127 ms: it entered a 34 ms section on a key that expired at
//   t=146 ms (the lock now renews with an owner-checked PEXPIRE).
constexpr const char* kVerifyAfterSetPctPlan =
    "p1/216507688,100,2000,10000,1,0,0,0,10000,1,0,0,5000,160070,5000,16332,951037,0,0,0,0,0,0,"
    "0,0,0,0,0,26245,500000,1000,100000,901,0,0,0,0,0,0,0,20000,100000,806/s=pct:3/"
    "110890171.1.10000.11000.0.7000.0.0/"
    "356315797.1.1000.10000.0.17000.1000.0.16000.15000.0.3000.5000.0";
constexpr const char* kLostReplyAwarePctPlan =
    "p1/150426374,100,2000,10000,1,0,0,1,10000,1,2,0,4500,264100,5000,0,500000,19070,0,0,0,0,0,"
    "0,0,0,0,0,0,0,0,0,0,0,0,0,18711,1000,20000,0,20000,100000,714/s=pct:3/"
    "36254569.1.17000.11000.0.12000.26000.0/127996050.1.28000.34000.0/"
    "303513592.1.21000.18000.0/391691994.1.29000.11000.0.11000.2000.0/"
    "459093622.1.37000.15000.0.42000.25000.0.13000.24000.0";

TEST(Zoo, VerifyAfterSetPctPlanReplaysClean) {
  const std::optional<Entry> e = entry_named("verify-after-set");
  ASSERT_TRUE(e.has_value());
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(kVerifyAfterSetPctPlan);
  ASSERT_TRUE(plan.has_value());
  const harness::RunResult r = harness::run_plan(*plan, e->factory, e->run);
  EXPECT_TRUE(r.safe()) << harness::report(r, kVerifyAfterSetPctPlan);
  // The history is the one flagged: without the crashed owners' keys
  // counted as held, the liveness checker still flags the 193 ms wait.
  const harness::CheckOptions checks = harness::default_checks(*plan);
  ASSERT_TRUE(checks.liveness_bound.has_value());
  const auto bare = world::check_liveness(r.history, checks.liveness_bound->count());
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_TRUE(contains(bare[0].description, "c2/2 waited")) << bare[0].description;
}

TEST(Zoo, LostReplyAwarePctPlanReplaysClean) {
  const std::optional<Entry> e = entry_named("lost-reply-aware");
  ASSERT_TRUE(e.has_value());
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(kLostReplyAwarePctPlan);
  ASSERT_TRUE(plan.has_value());
  const harness::RunResult r = harness::run_plan(*plan, e->factory, e->run);
  EXPECT_TRUE(r.safe()) << harness::report(r, kLostReplyAwarePctPlan);
}

// The plan that flagged watch-unlock (unbounded profile, RapidCheck seed 1,
// case 10): a failover broke c2's connection between its MULTI and its
// DEL; the world then sent the DEL on a new connection, where it ran at
// once and deleted c1's lock (foreign-write), while a real client's next
// call reads EOF on the old socket. An idle break of a connection with a
// MULTI or WATCH open now fails the next call (network.cc), and the lock
// starts its release again.
constexpr const char* kWatchUnlockFailoverPlan =
    "p1/22403120,100,2000,10000,1,1,4000,0,25000,0,0,0,0,0,0,0,500000,0,0,0,0,0,0,0,208027,1000,"
    "300000,126909,13672,500000,1000,100000,0,0,0,0,0,0,0,4144,0,0,673/10063684.1.0.0.0.0.0.0/"
    "67252022.1.0.0.0.0.0.0";

TEST(Zoo, WatchUnlockFailoverPlanReplaysClean) {
  const std::optional<Entry> e = entry_named("watch-unlock");
  ASSERT_TRUE(e.has_value());
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(kWatchUnlockFailoverPlan);
  ASSERT_TRUE(plan.has_value());
  const harness::RunResult r = harness::run_plan(*plan, e->factory, e->run);
  EXPECT_TRUE(r.safe()) << harness::report(r, kWatchUnlockFailoverPlan);
  // The release met the reset and started again: its EXEC never ran alone.
  const std::string timeline = world::render_timeline(r.history);
  EXPECT_EQ(timeline.find("EXEC without MULTI"), std::string::npos) << timeline;
}

// The plan that flagged redlock-validity (unbounded profile, RapidCheck
// seed 1, case 284, REDSIM_ZOO_CASES=2000): a failed attempt's release was
// reset before it ran on s1, so that server kept c2's earlier key; s1's
// clock then jumped back three times, and the key outlived c2's later
// release (by a quorum: 3 of 5) by 30 ms. The ghost-lock checker judged one
// server's key; a key on a minority keeps nobody out (checkers.h), so with
// several servers a ghost now needs a quorum.
constexpr const char* kRedlockValidityGhostPlan =
    "p1/1,100,2000,10000,5,0,0,0,25000,0,0,0,0,0,0,24740,455720,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
    "18381,4144,12691,100000,0,0,0,0,0,0,772/1.1.0.0.0/1.1.0.0.0/8.1.0.0.0.2000.0.0";

TEST(Zoo, RedlockValidityMinorityKeyPlanReplaysClean) {
  const std::optional<Entry> e = entry_named("redlock-validity");
  ASSERT_TRUE(e.has_value());
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(kRedlockValidityGhostPlan);
  ASSERT_TRUE(plan.has_value());
  // The entry as it was then: retries after 2..6 ms.
  const harness::LockFactory then =
      harness::lock_factory([](lock::Env& env, const std::string& key) {
        lock::RedlockOptions o;
        o.lease = std::chrono::milliseconds(100);
        o.server_timeout = std::chrono::milliseconds(10);
        o.retry_delay_min = std::chrono::milliseconds(2);
        o.retry_delay_max = std::chrono::milliseconds(6);
        return lock::Redlock(env, key, o);
      });
  const harness::RunResult r = harness::run_plan(*plan, then, e->run);
  EXPECT_TRUE(r.safe()) << harness::report(r, kRedlockValidityGhostPlan);
  // The leftover key is in the history: s1 still held c2's earlier token
  // after c2's unlock said released.
  const std::string timeline = world::render_timeline(r.history);
  EXPECT_NE(timeline.find("release on server 1 failed"), std::string::npos);
}

// The plan that flagged redlock-validity in the default validity mode
// (clock and latency faults, RapidCheck seed 1, case 1724 of 2,000): three
// waiters started together on 5 servers and split the vote round after
// round; the lock stayed free but untaken for 188 ms, past the liveness
// bound of 166 ms, which allowed one server's round trips. The bound now
// grows with the servers (harness::liveness_bound).
constexpr const char* kRedlockSplitVotePlan =
    "p1/379917,100,2000,10000,5,0,0,0,0,1,2,0,4500,176332,5000,0,500000,0,0,0,0,0,0,0,0,0,0,0,0,0,"
    "0,0,0,0,0,0,0,0,0,0,20000,100000,514/42421335.1.0.0.0/43556499.1.0.0.0/61253967.1.0.0.0";

TEST(Zoo, RedlockSplitVotePlanReplaysCleanWithinTheServersLivenessBound) {
  std::optional<Entry> e = entry_named("redlock-validity");
  ASSERT_TRUE(e.has_value());
  e->run.validity = harness::ValidityMode::kStopAtDeadline;
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(kRedlockSplitVotePlan);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->servers, 5u);
  const harness::RunResult r = harness::run_plan(*plan, e->factory, e->run);
  EXPECT_TRUE(r.safe()) << harness::report(r, kRedlockSplitVotePlan);
  // With one server's allowance the same history is a liveness violation.
  const int64_t one_server =
      harness::liveness_bound(*plan).count() - 8 * 4 * plan->faults.latency_max.count();
  EXPECT_FALSE(world::check_liveness(r.history, one_server).empty());
}

// The validity entries' counterexamples show both promises: each failing
// plan's validity violation names two windows and its excerpt holds both
// VALID lines.
TEST(Zoo, ValidityCounterexamplesShowBothWindows) {
  for (const char* name : {"redlock-no-elapsed", "validity-from-last-retry"}) {
    SCOPED_TRACE(name);
    const std::optional<Entry> e = entry_named(name);
    ASSERT_TRUE(e.has_value());
    const Outcome o = run_property(*e, e->plan, 1, kMaxCases, /*shrink=*/false);
    ASSERT_TRUE(o.failed);
    ASSERT_TRUE(o.shrunk.has_value());
    const harness::RunResult r = harness::run_plan(*o.shrunk, e->factory, e->run);
    ASSERT_TRUE(r.has("validity")) << harness::report(r, "");
    for (const world::Violation& v : r.violations) {
      if (v.checker != "validity") continue;
      harness::RunResult one;
      one.violations = {v};
      one.history = r.history;
      const std::string text = harness::report(one, "");
      const size_t first = text.find("VALID lock:test until");
      ASSERT_NE(first, std::string::npos) << text;
      EXPECT_NE(text.find("VALID lock:test until", first + 1), std::string::npos) << text;
      EXPECT_TRUE(contains(v.description, "'s promise [t=")) << v.description;
      break;
    }
  }
}

// The correct validity locks under drifting clocks alone (the budgeted
// profile's clock fault: every process and server drifts up to 1000 ppm,
// with latency so that acquisitions take time), with sections that use the
// whole validity and with the default mode (the plan's work, cut at the
// deadline, where mutual-exclusion and held-past-lease judge too), and the
// default mode under every budgeted fault: REDSIM_ZOO_CASES cases each.
TEST(Zoo, ValidityLocksCleanUnderClockDriftAndInTheDefaultMode) {
  const int cases = env_int("REDSIM_ZOO_CASES", 150);
  struct Config {
    const char* name;
    bool clock_only;
    harness::ValidityMode mode;
  };
  const Config configs[] = {
      {"clock+latency, whole validity", true, harness::ValidityMode::kUseWholeValidity},
      {"clock+latency, stop at deadline", true, harness::ValidityMode::kStopAtDeadline},
      {"budgeted, stop at deadline", false, harness::ValidityMode::kStopAtDeadline},
  };
  for (const char* name : {"redlock-validity", "set-nx-validity"}) {
    const std::optional<Entry> e = entry_named(name);
    ASSERT_TRUE(e.has_value());
    for (const Config& c : configs) {
      Entry variant = *e;
      variant.run.validity = c.mode;
      harness::PlanOptions options = plan_for(variant, harness::FaultProfile::kBudgeted);
      if (c.clock_only) {
        options.faults = world::FaultSet{};
        options.faults.clock = true;
        options.faults.latency = true;
      }
      const Outcome o = run_property(variant, options, 1, cases, /*shrink=*/true);
      std::cout << "zoo: " << name << " | " << c.name << " | " << cases << " cases | "
                << (o.failed ? "flagged at case " + std::to_string(o.cases) : std::string("clean"))
                << "\n";
      EXPECT_FALSE(o.failed) << name << " (" << c.name << "):\n" << o.description;
    }
  }
}

// check-then-subscribe's zoo failures mostly shrink to a release that
// never published (the holder's connection was cut). Without any fault the
// property must find the lost wake-up itself: every release publishes, and
// a waiter still sleeps on a free lock because the PUBLISH reached the
// server between its failed SET and its SUBSCRIBE.
TEST(Zoo, CheckThenSubscribeLostWakeUpFoundWithoutFaults) {
  const std::optional<Entry> e = entry_named("check-then-subscribe");
  ASSERT_TRUE(e.has_value());
  harness::PlanOptions options = e->plan;
  options.profile = harness::FaultProfile::kNone;
  int found = 0;
  std::vector<int> cases;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Outcome o = run_property(*e, options, seed, kMaxCases, /*shrink=*/false);
    if (!o.failed) continue;
    ++found;
    cases.push_back(o.cases);
    ASSERT_TRUE(o.shrunk.has_value());
    const harness::RunResult r = harness::run_plan(*o.shrunk, e->factory, e->run);
    ASSERT_TRUE(r.has("liveness")) << harness::report(r, "");
    // The waiter's SUBSCRIBE came after a release that published (reply 1).
    size_t published = r.history.size();
    bool subscribed_after = false;
    for (size_t i = 0; i < r.history.size(); ++i) {
      const world::HistoryEvent& ev = r.history[i];
      if (ev.kind != world::EventKind::kCommand || ev.argv.empty()) continue;
      if (ev.argv[0] == "EVAL" && contains(ev.argv[1], "PUBLISH") && ev.reply.is_integer() &&
          ev.reply.integer() == 1 && published == r.history.size()) {
        published = i;
      }
      if (ev.argv[0] == "SUBSCRIBE" && i > published) subscribed_after = true;
    }
    EXPECT_TRUE(subscribed_after) << harness::report(r, "");
  }
  std::sort(cases.begin(), cases.end());
  std::cout << "zoo: check-then-subscribe | no faults | found by " << found
            << "/20 seeds | median cases " << (cases.empty() ? -1 : cases[cases.size() / 2])
            << "\n";
  EXPECT_GE(found, 19);
}

// The yardstick's zoo rows for the correct locks, under pct:3: plans drawn
// as redsim_yardstick --zoo draws them (run r, plan i: rc::Random(r *
// 1000003 + i) at size i mod 101), budgeted profile, all clean. Runs 10
// and 11, 200 plans each (the yardstick cell's --cap 200): the flagged plans are run
// 10's 90th and run 11's 144th (both entries draw the same plans).
TEST(Zoo, CorrectLocksCleanUnderPct3Plans) {
  constexpr uint64_t kRuns = 2;
  constexpr uint64_t kPlans = 200;
  for (const char* name : {"verify-after-set", "lost-reply-aware"}) {
    const std::optional<Entry> e = entry_named(name);
    ASSERT_TRUE(e.has_value());
    harness::PlanOptions options = plan_for(*e, harness::FaultProfile::kBudgeted);
    options.strategy = world::parse_strategy("pct:3");
    int flagged = 0;
    for (uint64_t r = 10; r < 10 + kRuns; ++r) {
      for (uint64_t i = 0; i < kPlans; ++i) {
        const world::ExplorePlan p = harness::gen_plan(e->lease, options)(
                                         rc::Random(r * 1000003 + i), static_cast<int>(i % 101))
                                         .value();
        const harness::RunResult res = harness::run_plan(p, e->factory, e->run);
        if (!res.safe()) {
          ++flagged;
          ADD_FAILURE() << name << " flagged: " << harness::report(res, harness::encode_plan(p));
        }
      }
    }
    std::cout << "zoo: " << name << " | pct:3 | " << kRuns * kPlans << " plans | " << flagged
              << " flagged\n";
  }
}

}  // namespace
}  // namespace redsim::zoo

// The public testing harness, used as a user would: locks written here
// against lock::Env only, run by the fixture, the expire-then-delete
// schedule and the RapidCheck generators.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "lock/lock.h"
#include "lock/redlock.h"
#include "sim/world/explore/explore.h"
#include "sim/world/testing/generators.h"
#include "sim/world/testing/gtest.h"
#include "sim/world/testing/harness.h"

namespace redsim::harness {
namespace {

using namespace std::chrono_literals;

// A user's lock: SET NX PX to acquire, polling every 2 ms while waiting.
// Non-copyable and non-movable, as a lock holding a reference often is.
class UserLock {
 public:
  UserLock(lock::Env& env, std::string key, std::chrono::milliseconds lease)
      : env_(env), key_(std::move(key)), lease_(lease) {}
  UserLock(const UserLock&) = delete;
  UserLock& operator=(const UserLock&) = delete;

  virtual ~UserLock() = default;
  // A fresh token for each acquisition.
  virtual std::string new_token() {
    return env_.client_id() + ":" + std::to_string(env_.task_id()) + ":" +
           std::to_string(env_.random_u64());
  }

  bool try_lock_for(std::chrono::microseconds wait) {
    token_ = new_token();
    const auto deadline = env_.now() + wait;
    for (;;) {
      const auto reply =
          env_.connection().call({"SET", key_, token_, "NX", "PX", std::to_string(lease_.count())});
      if (reply.is_status()) return true;
      if (env_.now() >= deadline) return false;
      env_.sleep_for(2ms);
    }
  }

 protected:
  lock::Env& env_;
  std::string key_;
  std::chrono::milliseconds lease_;
  std::string token_;
};

// BROKEN: unlock is GET, compare in the client, then DEL.
class GetThenDelLock : public UserLock {
 public:
  using UserLock::UserLock;
  bool unlock() {
    const auto current = env_.connection().call({"GET", key_});
    if (!current.is_bulk() || current.str() != token_) return false;
    env_.connection().call({"DEL", key_});
    return true;
  }
};

// Correct: unlock is one compare-and-delete script.
class CompareAndDeleteLock : public UserLock {
 public:
  using UserLock::UserLock;
  bool unlock() {
    const auto reply = env_.connection().call(
        {"EVAL",
         "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) "
         "else return 0 end",
         "1", key_, token_});
    return reply.is_integer() && reply.integer() == 1;
  }
};

// BROKEN beyond repair: no lock at all.
struct NoLock {
  bool try_lock_for(std::chrono::microseconds) { return true; }
  void unlock() {}
};

LockFactory get_then_del(std::chrono::milliseconds lease = 100ms) {
  return lock_factory(
      [lease](lock::Env& env, const std::string& key) { return GetThenDelLock(env, key, lease); });
}
LockFactory compare_and_delete(std::chrono::milliseconds lease = 100ms) {
  return lock_factory([lease](lock::Env& env, const std::string& key) {
    return CompareAndDeleteLock(env, key, lease);
  });
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the expire-then-delete schedule ---

TEST(ExpireThenDelete, CatchesAUsersGetThenDelUnlock) {
  const RunResult r = run_expire_then_delete(get_then_del(), {.lease = 100ms, .seed = 3});
  EXPECT_TRUE(r.has("mutual-exclusion")) << report(r, "");
  EXPECT_GE(world::find_expire_then_delete(r.history, kDefaultKey), 0)
      << "A's DEL removed B's lock after A's GET saw its own token";
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(contains(r.findings[0], "A paused at t=")) << r.findings[0];
  const ::testing::AssertionResult verdict = is_safe(r);
  EXPECT_FALSE(verdict);
  EXPECT_TRUE(contains(verdict.message(), "seed 3")) << verdict.message();
  EXPECT_TRUE(
      contains(verdict.message(),
               "replay: " + replay_hint(3, "ExpireThenDelete.CatchesAUsersGetThenDelUnlock")))
      << verdict.message();
  EXPECT_TRUE(contains(replay_hint(3), "REDSIM_SEED=3 /")) << replay_hint(3);
  EXPECT_TRUE(contains(verdict.message(), "mutual-exclusion") ||
              contains(verdict.message(), "critical"))
      << verdict.message();
}

TEST(ExpireThenDelete, ACompareAndDeleteScriptUnlockIsSafe) {
  const RunResult r = run_expire_then_delete(compare_and_delete(), {.lease = 100ms, .seed = 3});
  EXPECT_TRUE(is_safe(r));
  EXPECT_LT(world::find_expire_then_delete(r.history, kDefaultKey), 0);
  // The script ran whole before the pause, inside A's lease: A released
  // its own lock, and B took it after that.
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_TRUE(contains(r.findings[0], "A paused at t=")) << r.findings[0];
  EXPECT_EQ(r.findings[1], "A's unlock: released");
}

TEST(ExpireThenDelete, EveryLeaseAndSeedGivesTheSameVerdicts) {
  for (auto lease : {50ms, 100ms, 400ms, 2000ms}) {
    for (uint64_t seed : {1, 2, 99}) {
      SCOPED_TRACE("lease " + std::to_string(lease.count()) + " ms, seed " + std::to_string(seed));
      EXPECT_TRUE(run_expire_then_delete(get_then_del(lease), {.lease = lease, .seed = seed})
                      .has("mutual-exclusion"));
      EXPECT_TRUE(is_safe(
          run_expire_then_delete(compare_and_delete(lease), {.lease = lease, .seed = seed})));
    }
  }
}

TEST(ExpireThenDelete, AgreesWithRedsimsOwnLockKinds) {
  auto kind = [](lock::LockKind k) {
    return lock_factory([k](lock::Env& env, const std::string& key) {
      lock::LockOptions o;
      o.lease = 100ms;
      o.retry_backoff_min = 2ms;
      o.retry_backoff_max = 5ms;
      return lock::make_lock(k, env, key, o);
    });
  };
  EXPECT_TRUE(run_expire_then_delete(kind(lock::LockKind::kGetDel)).has("mutual-exclusion"));
  EXPECT_TRUE(is_safe(run_expire_then_delete(kind(lock::LockKind::kSimple))));
  // BlindDelLock's unlock is one DEL, sent before the pause here: this
  // schedule splits an unlock, it does not delay one (the blind-del scenario does).
  EXPECT_TRUE(is_safe(run_expire_then_delete(kind(lock::LockKind::kBlindDel))));
}

// --- exhaustive exploration of a user's lock ---

TEST(Exhaustive, ACompareAndDeleteLockHasNoViolationInAnySchedule) {
  world::ExplorePlan plan = world::generate_small_plan(lock::LockKind::kSimple, 2);
  const ExhaustiveRunResult r = explore_exhaustive(plan, compare_and_delete(), /*bound=*/1);
  EXPECT_TRUE(r.search.complete);
  EXPECT_FALSE(r.failure.has_value()) << report(*r.failure, "");
  EXPECT_GT(r.search.schedules, 1u);
  // Two clients' own events commute: fewer schedules than without the
  // reduction (which the persistent sets now reach without cutting runs).
  const ExhaustiveRunResult full =
      explore_exhaustive(plan, compare_and_delete(), /*bound=*/1, {}, /*reduce=*/false);
  EXPECT_TRUE(full.search.complete);
  EXPECT_LT(r.search.schedules, full.search.schedules) << "two clients' own events commute";
}

TEST(Harness, DefaultSeedReadsRedsimSeed) {
  ::setenv("REDSIM_SEED", "77", 1);
  EXPECT_EQ(default_seed(), 77u);
  ::setenv("REDSIM_SEED", "7x", 1);
  EXPECT_EQ(default_seed(5), 5u) << "not a number: the fallback";
  ::unsetenv("REDSIM_SEED");
  EXPECT_EQ(default_seed(5), 5u);
}

TEST(Harness, AnExceptionEscapingTheLockIsATaskError) {
  struct Throws {
    bool try_lock_for(std::chrono::microseconds) { throw std::runtime_error("boom"); }
    void unlock() {}
  };
  world::World w;
  spawn_client(w, "c", lock_factory([](lock::Env&, const std::string&) { return Throws{}; }),
               kDefaultKey, {world::Attempt{}}, 1s);
  w.run();
  const auto v = check_all(w.history(), std::nullopt);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "task-error");
  EXPECT_TRUE(contains(v[0].description, "boom")) << v[0].description;
}

// --- the fixture ---

class LockWorldTestTest : public LockWorldTest {
 protected:
  int entries() {
    int n = 0;
    for (const auto& e : world().history().events())
      n += e.kind == world::EventKind::kEnterCritical;
    return n;
  }
};

TEST_F(LockWorldTestTest, FourClientsOfACorrectLockTakeTurns) {
  world_options().faults.latency_max = world::Micros{2000};
  spawn_clients(4, compare_and_delete(), {.attempts = 3, .work = 10ms});
  run();
  EXPECT_TRUE(no_violations(300ms));
  EXPECT_EQ(entries(), 12) << "every attempt got the lock within its 2 s wait";
  EXPECT_EQ(seed(), 1u);
}

TEST_F(LockWorldTestTest, NoLockAtAllIsCaughtWithSeedAndReplay) {
  spawn_clients(2, lock_factory([](lock::Env&, const std::string&) { return NoLock{}; }),
                {.work = 10ms});
  run();
  const ::testing::AssertionResult verdict = no_violations();
  ASSERT_FALSE(verdict);
  EXPECT_TRUE(contains(verdict.message(), "seed 1:")) << verdict.message();
  EXPECT_TRUE(contains(verdict.message(),
                       "--gtest_filter=LockWorldTestTest.NoLockAtAllIsCaughtWithSeedAndReplay"))
      << verdict.message();
  EXPECT_TRUE(result().has("mutual-exclusion"));
}

TEST_F(LockWorldTestTest, PausesPastTheLeaseBreakAGetThenDelLock) {
  // A holder paused at its unlock: the fault plan's random pauses, long
  // enough to outlive the 100 ms lease, find the race within a few seeds.
  world_options().seed = 11;
  world_options().faults.latency_max = world::Micros{1000};
  world_options().faults.pause_ppm = world::Ppm(200000);
  world_options().faults.pause_min = world::Micros{60000};
  world_options().faults.pause_max = world::Micros{150000};
  spawn_clients(6, get_then_del(), {.attempts = 4, .think = 5ms, .work = 30ms, .wait = 5s});
  run();
  EXPECT_FALSE(no_violations());
  EXPECT_TRUE(result().has("mutual-exclusion"));
  EXPECT_GE(world::find_expire_then_delete(world().history(), key()), 0);
}

// --- the generators ---

RC_GTEST_PROP(Generators, PlansStayInsideTheLeaseBudget, ()) {
  const auto lease = std::chrono::milliseconds(*rc::gen::inRange(20, 2001));
  const LockSchedule plan = *gen_plan(lease);
  RC_ASSERT(plan.clients.size() >= 2u);
  RC_ASSERT(plan.clients.size() <= 8u);
  int64_t work_max_us = 0;
  for (const auto& c : plan.clients) {
    RC_ASSERT(!c.attempts.empty());
    RC_ASSERT(c.attempts.size() <= 4u);
    for (const auto& a : c.attempts) work_max_us = std::max(work_max_us, a.work_us);
  }
  const int64_t lease_us = lease.count() * 1000;
  RC_ASSERT(plan.faults.latency_max.count() + work_max_us + plan.faults.pause_max.count() <
            lease_us);
  RC_ASSERT(plan.lease_ms == lease.count());
}

RC_GTEST_PROP(UsersCompareAndDeleteLock, NeverTwoHoldersAtOnce, ()) {
  const LockSchedule plan = *gen_plan(100ms);
  rc_assert_safe(plan, run_plan(plan, compare_and_delete()));
}

TEST(Generators, RunPlanIsDeterministic) {
  world::ExplorePlan plan = world::generate_plan(lock::LockKind::kSimple, 8);
  const RunResult a = run_plan(plan, compare_and_delete());
  const RunResult b = run_plan(plan, compare_and_delete());
  EXPECT_EQ(a.history.hash(), b.history.hash());
  plan.seed = 9;
  EXPECT_NE(run_plan(plan, compare_and_delete()).history.hash(), a.history.hash());
}

// A property over a user's GET-then-DEL lock fails under the unbounded
// profile (a pause inside its unlock outlives the lease), and RapidCheck
// shrinks it to an expire-then-delete: the holder's DEL removes the next
// holder's lock (a foreign write). Fixed RapidCheck seed: deterministic.
TEST(Generators, FindAndShrinkAUsersGetThenDelRace) {
  std::optional<world::ExplorePlan> last_failing;
  std::string last_report;
  rc::detail::TestParams params;
  params.seed = 7;
  params.maxSuccess = 3000;
  PlanOptions options;
  options.profile = FaultProfile::kUnbounded;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&] {
        const LockSchedule plan = *gen_plan(100ms, options);
        const RunResult r = run_plan(plan, get_then_del());
        if (!r.has("foreign-write")) return;
        last_failing = plan;  // shrinking ends on the smallest failing plan
        last_report = report(r, "");
        rc_assert_safe(plan, r);
      },
      rc::detail::TestMetadata{}, params);
  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(failure)) << "no race in " << params.maxSuccess << " plans";
  std::cout << "found after " << failure.numSuccess << " passing plans\n";
  ASSERT_TRUE(last_failing.has_value());
  EXPECT_TRUE(contains(failure.description, "seed " + std::to_string(last_failing->seed) + ": "))
      << failure.description;
  EXPECT_TRUE(
      contains(failure.description, "replay: REDSIM_PLAN='" + encode_plan(*last_failing) + "' /"))
      << failure.description;
  EXPECT_TRUE(
      contains(failure.description, "--gtest_filter=Generators.FindAndShrinkAUsersGetThenDelRace"))
      << failure.description;
  LockSchedule shown;
  static_cast<world::ExplorePlan&>(shown) = *last_failing;
  EXPECT_EQ(rc::toString(shown), describe_schedule(*last_failing));
  EXPECT_FALSE(contains(rc::toString(shown), "lock simple")) << "a user's lock has no kind";
  const RunResult r = run_plan(*last_failing, get_then_del());
  EXPECT_TRUE(r.has("foreign-write"));
  EXPECT_GE(world::find_expire_then_delete(r.history, kDefaultKey), 0) << report(r, "");
  EXPECT_TRUE(contains(last_report, ">> t=") && contains(last_report, "DEL lock:test"))
      << "the excerpt shows the DEL that removed the other lock\n"
      << last_report;
  EXPECT_LE(last_failing->clients.size(), 3u) << describe_schedule(*last_failing);
  // The replay line's plan is the same plan, and REDSIM_PLAN makes gen_plan draw it.
  const auto parsed = parse_plan(encode_plan(*last_failing));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(encode_plan(*parsed), encode_plan(*last_failing));
  ::setenv("REDSIM_PLAN", encode_plan(*last_failing).c_str(), 1);
  const LockSchedule replayed = gen_plan(100ms)(rc::Random(1), 0).value();
  ::unsetenv("REDSIM_PLAN");
  EXPECT_EQ(run_plan(replayed, get_then_del()).history.hash(), r.history.hash());
}

// Under the budgeted profile every live holder stays inside its lease, so
// the same GET-then-DEL lock is never caught: its race needs a holder that
// outlives its lease. The profile draws every fault of the CLI.
RC_GTEST_PROP(Generators, TheBudgetedProfileNeverFlagsACorrectLock, ()) {
  const LockSchedule plan = *gen_plan(100ms);
  rc_assert_safe(plan, run_plan(plan, compare_and_delete()));
}

TEST(Generators, PlansEncodeAndParseBack) {
  PlanOptions options;
  options.max_tasks = 3;
  options.servers = 3;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const LockSchedule plan = gen_plan(100ms, options)(rc::Random(seed), 50).value();
    const auto parsed = parse_plan(encode_plan(plan));
    ASSERT_TRUE(parsed.has_value()) << encode_plan(plan);
    EXPECT_EQ(encode_plan(*parsed), encode_plan(plan));
    EXPECT_EQ(world::describe_plan(*parsed), world::describe_plan(plan));
  }
  EXPECT_FALSE(parse_plan("p1/1,2"));
  EXPECT_FALSE(parse_plan("nonsense"));
}

RC_GTEST_PROP(Generators, BudgetedStallsStayWithinTheirBudgetPerLease, ()) {
  PlanOptions options;
  const LockSchedule plan = *gen_plan(100ms, options);
  const RunResult r = run_plan(plan, compare_and_delete());
  // Pauses and partitions of one process within any 100 ms window add up to
  // at most 20 ms (the stall budget; lost replies and delays count too).
  std::map<world::ProcessId, std::vector<std::pair<int64_t, int64_t>>> stalls;
  for (const auto& e : r.history.events()) {
    if (e.kind == world::EventKind::kProcessPause && e.text == "random") {
      stalls[e.process].emplace_back(e.t_us, e.t_us + e.value);
    }
  }
  for (const auto& [pid, list] : stalls) {
    for (const auto& [from, to] : list) {
      int64_t used = 0;
      for (const auto& [a, b] : list) {
        used += std::max<int64_t>(0, std::min(b, from + 100000) - std::max(a, from));
      }
      RC_ASSERT(used <= 20000);
    }
  }
}

TEST(Generators, ProfilesDrawTheCliFaults) {
  const auto draw = [](FaultProfile p, uint64_t seed) {
    return gen_faults(100ms, p)(rc::Random(seed), 100).value();
  };
  bool budget_seen = false, lost_reply_seen = false, jump_seen = false, failover_seen = false;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const FaultDraw b = draw(FaultProfile::kBudgeted, seed);
    EXPECT_EQ(b.plan.faults.clock_jump_ppm, world::Ppm()) << "no clock jumps in the budget";
    EXPECT_EQ(b.plan.faults.failover_ppm, world::Ppm());
    EXPECT_LE(b.plan.faults.pause_max, world::Micros{20000});
    EXPECT_LE(b.plan.faults.latency_max, world::Micros{5000});
    if (b.plan.faults.server_crash_ppm) {
      EXPECT_EQ(b.plan.persistence, world::Persistence::kAofAlways);
    }
    budget_seen = budget_seen || b.plan.faults.stall_budget == world::Micros{20000};
    lost_reply_seen = lost_reply_seen || b.plan.faults.lost_reply_ppm > world::Ppm();
    const FaultDraw u = draw(FaultProfile::kUnbounded, seed);
    jump_seen = jump_seen || u.plan.faults.clock_jump_ppm > world::Ppm();
    failover_seen = failover_seen || u.plan.faults.failover_ppm > world::Ppm();
    EXPECT_FALSE(u.plan.faults.stall_budget) << "no budget in the unbounded profile";
  }
  EXPECT_TRUE(budget_seen && lost_reply_seen && jump_seen && failover_seen);
  std::ostringstream shown;
  world::FaultPlan f;
  f.pause_ppm = world::Ppm(5);
  world::showValue(f, shown);
  EXPECT_EQ(shown.str(), "FaultPlan{loss_executed_ppm 500000, pause_ppm 5}");
}

// --- the workload API ---

// A fenced user lock: the token is an INCR of a counter taken with the lock.
class FencedUserLock : public CompareAndDeleteLock {
 public:
  using CompareAndDeleteLock::CompareAndDeleteLock;
  bool try_lock_for(std::chrono::microseconds wait) {
    if (!CompareAndDeleteLock::try_lock_for(wait)) return false;
    fence_ = env_.connection().call({"INCR", key_ + ":fence"}).integer();
    return true;
  }
  int64_t fence() const { return fence_; }

 private:
  int64_t fence_ = 0;
};

TEST_F(LockWorldTestTest, TheSectionRunsTheUsersCodeWithTheLock) {
  int sections = 0;
  auto make = lock_factory(
      [](lock::Env& env, const std::string& key) { return FencedUserLock(env, key, 100ms); },
      [&sections](Section& s, FencedUserLock& lock) {
        ++sections;
        s.do_work();
        EXPECT_TRUE(s.write_fenced(lock.fence()));
        s.env().record("wrote " + std::to_string(lock.fence()));
      });
  spawn_clients(3, make, {.attempts = 2, .work = 5ms});
  run();
  EXPECT_TRUE(no_violations(300ms));
  EXPECT_EQ(sections, 6);
  int writes = 0;
  for (const auto& e : world().history().events()) {
    writes +=
        e.kind == world::EventKind::kFencedWrite && e.verdict == world::FenceVerdict::kAccepted;
  }
  EXPECT_EQ(writes, 6);
}

TEST_F(LockWorldTestTest, TasksOfOneClientEachRunTheAttempts) {
  spawn_client("c", compare_and_delete(), {.attempts = 2, .work = 5ms, .tasks = 3});
  run();
  EXPECT_TRUE(no_violations(300ms));
  std::set<world::TaskId> tasks;
  for (const auto& e : world().history().events()) {
    if (e.kind == world::EventKind::kEnterCritical) tasks.insert(e.task);
  }
  EXPECT_EQ(tasks.size(), 3u);
  EXPECT_EQ(entries(), 6);
}

TEST_F(LockWorldTestTest, TasksCanShareOneLockObject) {
  int made = 0;
  auto make = lock_factory([&made](lock::Env& env, const std::string& key) {
    ++made;
    return CompareAndDeleteLock(env, key, 100ms);
  });
  spawn_client("shared", make, {.attempts = 1, .work = 5ms, .tasks = 3, .shared_lock = true});
  spawn_client("own", make, {.attempts = 1, .work = 5ms, .tasks = 3});
  run();
  EXPECT_EQ(made, 4) << "one object for the sharing client, one per task for the other";
}

TEST_F(LockWorldTestTest, WorldOptionsAfterTheWorldIsBuiltIsAnError) {
  world_options().seed = 5;
  world();
  EXPECT_THROW(world_options(), std::logic_error);
  EXPECT_EQ(seed(), 5u);
}

TEST_F(LockWorldTestTest, ReportsShowEveryEventOfAViolationAndCanShowTheWholeRun) {
  spawn_clients(2, lock_factory([](lock::Env&, const std::string&) { return NoLock{}; }),
                {.work = 10ms});
  run();
  excerpt_options().context_events = 0;
  const std::string small = report(result(), "");
  excerpt_options().whole_timeline = true;
  const std::string whole = report(result(), "");
  EXPECT_LT(small.size(), whole.size());
  EXPECT_TRUE(contains(small, ">> ")) << small;
  EXPECT_TRUE(contains(whole, "start client1")) << whole;
}

TEST(Harness, ProcessesNeverShareARandomStream) {
  world::World w;
  std::vector<uint64_t> draws;
  std::set<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    w.spawn_process(
        "p",
        [&](world::ProcessEnv& env) {
          draws.push_back(env.random_u64());
          ids.insert(env.client_id());
        },
        0ms, /*stream=*/1);
  }
  w.run();
  ASSERT_EQ(draws.size(), 4u);
  EXPECT_EQ(std::set<uint64_t>(draws.begin(), draws.end()).size(), 4u);
  EXPECT_EQ(ids.size(), 4u);
}

// ---- Validity: a lease lock's promise (ReportsValidUntil).

// A lock that always gets the key at once and promises `promise` from then;
// `report` false: a lock that promises nothing.
class PromisingLock {
 public:
  PromisingLock(lock::Env& env, Micros promise) : env_(env), promise_(promise) {}
  bool try_lock_for(Micros) {
    until_ = env_.now() + promise_;
    return true;
  }
  void unlock() {}
  std::optional<lock::EnvTime> valid_until() const { return until_; }

 private:
  lock::Env& env_;
  Micros promise_;
  std::optional<lock::EnvTime> until_;
};
class SilentLock {
 public:
  bool try_lock_for(Micros) { return true; }
  void unlock() {}
};
static_assert(ReportsValidUntil<PromisingLock> && !ReportsValidUntil<SilentLock>);
static_assert(ReportsValidityLeft<lock::Redlock>);

// Where the section of one client with one attempt of `work` ended, and the
// kValidity events of the run.
struct SectionEnd {
  int64_t leave_us = -1;
  std::vector<world::HistoryEvent> promises;
};
SectionEnd run_one(const LockFactory& make, Micros work, ValidityMode mode) {
  world::World w;
  ClientSpec spec;
  spec.attempts = {world::Attempt{0, work.count(), 0}};
  spec.validity = mode;
  spawn_client(w, "c", make, kDefaultKey, spec);
  w.run();
  SectionEnd out;
  for (const world::HistoryEvent& e : w.history().events()) {
    if (e.kind == world::EventKind::kLeaveCritical) out.leave_us = e.t_us;
    if (e.kind == world::EventKind::kValidity) out.promises.push_back(e);
  }
  return out;
}

TEST(Validity, APromiseIsRecordedAndBoundsTheSection) {
  auto promising = lock_factory(
      [](lock::Env& env, const std::string&) { return PromisingLock(env, Micros(30000)); });
  // Work past the promise stops at the deadline.
  SectionEnd cut = run_one(promising, 50ms, ValidityMode::kStopAtDeadline);
  ASSERT_EQ(cut.promises.size(), 1u);
  EXPECT_EQ(cut.promises[0].value, 30000);
  EXPECT_EQ(cut.promises[0].resource, kDefaultKey);
  EXPECT_EQ(cut.leave_us, 30000);
  // Shorter work ends first...
  EXPECT_EQ(run_one(promising, 10ms, ValidityMode::kStopAtDeadline).leave_us, 10000);
  // ...unless the holder uses the whole validity.
  EXPECT_EQ(run_one(promising, 10ms, ValidityMode::kUseWholeValidity).leave_us, 30000);
  // A lock that promises nothing: today's section, nothing recorded.
  auto silent = lock_factory([](lock::Env&, const std::string&) { return SilentLock(); });
  SectionEnd plain = run_one(silent, 50ms, ValidityMode::kUseWholeValidity);
  EXPECT_TRUE(plain.promises.empty());
  EXPECT_EQ(plain.leave_us, 50000);
}

// The window ends when the holder's own clock reads the deadline: a clock
// 10% fast reads +110 ms after 100 ms of true time.
TEST(Validity, TheDeadlineIsReadOnTheHoldersClock) {
  world::World w;
  const world::ProcessId p = w.spawn_process("c", [](world::ProcessEnv& env) {
    env.sleep_for(10ms);
    env.record_validity(kDefaultKey, env.now() + 110ms);
  });
  w.set_process_clock_drift(p, 100000);
  w.run();
  bool seen = false;
  for (const world::HistoryEvent& e : w.history().events()) {
    if (e.kind != world::EventKind::kValidity) continue;
    seen = true;
    EXPECT_EQ(e.value - e.t_us, 100000) << world::render_event(w.history(), e);
    EXPECT_NE(world::render_event(w.history(), e).find("VALID lock:test until t="),
              std::string::npos);
  }
  EXPECT_TRUE(seen);
}

// Two holders, each promised 100 ms; the first leaves after `first_work`.
// Its window ends there (it gave the lock up), so the second's promise at
// 60 ms overlaps it only when the first was still inside.
std::vector<world::Violation> two_promises(Micros first_work) {
  world::World w;
  auto holder = [](Micros work) {
    return [work](world::ProcessEnv& env) {
      env.record_acquire_start(kDefaultKey, 1s);
      env.record_acquire_end(kDefaultKey, true);
      env.record_validity(kDefaultKey, env.now() + 100ms);
      env.enter_critical(kDefaultKey);
      env.sleep_for(work);
      env.leave_critical(kDefaultKey);
    };
  };
  w.spawn_process("a", holder(first_work));
  w.spawn_process("b", holder(10ms), 60ms);
  w.run();
  return check_validity(w.history());
}

TEST(Validity, OverlappingPromisesAreFlaggedWithBothWindows) {
  EXPECT_TRUE(two_promises(50ms).empty());
  const std::vector<world::Violation> v = two_promises(80ms);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "validity");
  EXPECT_NE(v[0].description.find("c2/1 was promised lock:test for [t=60.000ms, t=70.000ms]"),
            std::string::npos)
      << v[0].description;
  EXPECT_NE(v[0].description.find("c1/1's promise [t=0.000ms, t=80.000ms]"), std::string::npos)
      << v[0].description;
  EXPECT_NE(v[0].description.find("overlap 10.000ms"), std::string::npos) << v[0].description;
  // Both VALID lines are in the excerpt.
  const size_t first = v[0].timeline.find("VALID lock:test until t=100.000ms");
  const size_t second = v[0].timeline.find("VALID lock:test until t=160.000ms");
  EXPECT_NE(first, std::string::npos) << v[0].timeline;
  EXPECT_NE(second, std::string::npos) << v[0].timeline;
  // The default checks judge it; the unbounded profile's do not.
  EXPECT_EQ(check_all(world::History(), CheckOptions{}).size(), 0u);
  EXPECT_FALSE(CheckOptions::unbounded(std::nullopt).validity);
}

// A correct lock with random-only tokens (no client id in them): before
// streams were made distinct, RapidCheck's first case gave every client
// stream 1 and so the same token.
class RandomTokenLock : public CompareAndDeleteLock {
 public:
  using CompareAndDeleteLock::CompareAndDeleteLock;
  std::string new_token() override { return std::to_string(env_.random_u64()); }
};

RC_GTEST_PROP(UsersRandomTokenLock, IsNeverFlaggedFromTheFirstCase, ()) {
  const LockSchedule plan = *gen_plan(100ms);
  rc_assert_safe(plan, run_plan(plan, lock_factory([](lock::Env& env, const std::string& key) {
                                  return RandomTokenLock(env, key, 100ms);
                                })));
}

}  // namespace
}  // namespace redsim::harness

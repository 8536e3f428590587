// Exploration with explicit faults (explore.h's FaultSet): the results the
// issue asks for, each over a fixed range of seeds.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/world/explore/explore.h"

namespace redsim::world {
namespace {

using lock::LockKind;

size_t count_events(const History& h, EventKind kind) {
  size_t n = 0;
  for (const HistoryEvent& e : h.events()) n += e.kind == kind;
  return n;
}

TEST(FaultSet, ParsesAndPrintsTheCanonicalList) {
  const FaultSet f = parse_fault_set("lost-reply,pause");
  EXPECT_TRUE(f.pause);
  EXPECT_TRUE(f.lost_reply);
  EXPECT_FALSE(f.loss);
  EXPECT_EQ(fault_set_name(f), "pause,lost-reply");
  std::string every;
  for (std::string_view n : kFaultNames) every += (every.empty() ? "" : ",") + std::string(n);
  const FaultSet all = parse_fault_set(every);
  EXPECT_EQ(fault_set_name(all),
            "pause,latency,loss,lost-reply,partition,crash,restart,failover,clock");
  EXPECT_THROW(parse_fault_set("pause,gc"), std::invalid_argument);
  EXPECT_THROW(parse_fault_set(""), std::invalid_argument);
  EXPECT_THROW(parse_fault_set("pause,"), std::invalid_argument);
}

TEST(FaultSet, ChangesOnlyTheFaultsNotTheClients) {
  const ExplorePlan plain = generate_plan(LockKind::kSimple, 11);
  const ExplorePlan faulted = generate_plan(LockKind::kSimple, 11, 0, parse_fault_set("loss"));
  ASSERT_EQ(plain.clients.size(), faulted.clients.size());
  EXPECT_EQ(faulted.faults.pause_ppm, world::Ppm());
  EXPECT_EQ(faulted.faults.crash_ppm, world::Ppm());
  EXPECT_GT(faulted.command_timeout.value_or(Micros{0}), Micros{0})
      << "a lost connection needs a command timeout";
  EXPECT_EQ(describe_plan(generate_plan(LockKind::kSimple, 11, 0, parse_fault_set("loss"))),
            describe_plan(faulted));
}

// Kleppmann's GC pause: with pauses up to three leases, some seed below 200
// puts a holder to sleep past its lease while another client takes the lock.
TEST(ExploreFaults, PausesPastTheLeaseBreakSimpleLockWithin200Seeds) {
  const FaultSet pause = parse_fault_set("pause");
  uint64_t found = 0;
  for (uint64_t seed = 1; seed <= 200 && found == 0; ++seed) {
    const ExploreOutcome out = run_plan(generate_plan(LockKind::kSimple, seed, 0, pause));
    for (const Violation& v : out.violations) {
      if (v.checker == "mutual-exclusion") found = seed;
    }
  }
  EXPECT_NE(found, 0u) << "no mutual-exclusion violation in seeds 1..200 with --faults pause";
}

// Fencing: the same pauses past the lease overlap the holders' sections, but
// the storage never accepts a stale token; some writes are rejected.
TEST(ExploreFaults, FencedLockNeverLetsAStaleTokenThrough) {
  const FaultSet pause = parse_fault_set("pause");
  size_t rejected = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const ExplorePlan plan = generate_plan(LockKind::kFenced, seed, 0, pause);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty())
        << "seed " << seed << " (replay: build/redsim check --lock fenced --seed " << seed
        << " --faults pause)\n"
        << describe_plan(plan) << format_violations(out.violations);
    for (const HistoryEvent& e : out.history.events()) {
      rejected += e.kind == EventKind::kFencedWrite && e.verdict == FenceVerdict::kRejected;
    }
  }
  EXPECT_GT(rejected, 0u) << "no stale write was ever attempted: the pauses never outlived a lease";
}

// Network faults and client crashes alone cannot break SET NX PX +
// compare-and-delete: a lost reply or a reset loses an acquisition or a
// release, never hands the lock to two clients.
TEST(ExploreFaults, SimpleLockSurvivesNetworkFaultsAndCrashes) {
  const FaultSet faults = parse_fault_set("latency,loss,lost-reply,crash");
  size_t lost = 0, broken = 0, crashes = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const ExplorePlan plan = generate_plan(LockKind::kSimple, seed, 0, faults);
    const ExploreOutcome out = run_plan(plan);
    EXPECT_TRUE(out.violations.empty())
        << "seed " << seed << " (replay: build/redsim check --lock simple --seed " << seed
        << " --faults latency,loss,lost-reply,crash)\n"
        << describe_plan(plan) << format_violations(out.violations);
    lost += count_events(out.history, EventKind::kMessageLost);
    broken += count_events(out.history, EventKind::kLinkBroken);
    crashes += count_events(out.history, EventKind::kProcessCrash);
  }
  EXPECT_GT(lost, 0u);
  EXPECT_GT(broken, 0u);
  EXPECT_GT(crashes, 0u);
}

// Clocks that jump (a server's forward: the key expires early; a client's
// back: its work outlasts the lease) give Redlock two holders at once.
TEST(ExploreFaults, RedlockWithClockFaultsFindsTwoHolders) {
  const FaultSet clock = parse_fault_set("clock");
  uint64_t found = 0;
  for (uint64_t seed = 1; seed <= 200 && found == 0; ++seed) {
    const ExplorePlan plan = generate_plan(LockKind::kRedlock, seed, 0, clock);
    EXPECT_EQ(plan.servers, 5u);
    for (const Violation& v : run_plan(plan).violations) {
      if (v.checker == "mutual-exclusion") found = seed;
    }
  }
  EXPECT_NE(found, 0u) << "no two-holder state in seeds 1..200 with --faults clock";
}

TEST(ExploreFaults, SameFaultedPlanSameHistory) {
  const ExplorePlan plan = generate_plan(
      LockKind::kReentrant, 5, 0,
      parse_fault_set("pause,latency,loss,lost-reply,partition,crash,restart,failover,clock"));
  EXPECT_EQ(run_plan(plan).history.hash(), run_plan(plan).history.hash());
}

}  // namespace
}  // namespace redsim::world

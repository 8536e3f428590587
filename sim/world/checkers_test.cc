#include "sim/world/checkers.h"

#include <gtest/gtest.h>

namespace redsim::world {
namespace {

// A small builder for hand-written histories.
class Builder {
 public:
  Builder& at(int64_t t_ms) {
    t_us_ = t_ms * 1000;
    return *this;
  }
  Builder& ev(EventKind kind, ProcessId p, TaskId task, std::string resource = "",
              int64_t value = 0, std::string text = "") {
    HistoryEvent e;
    e.t_us = t_us_;
    e.kind = kind;
    e.process = p;
    e.task = task;
    e.resource = std::move(resource);
    e.value = value;
    e.text = std::move(text);
    h_.add(std::move(e));
    return *this;
  }
  Builder& enter(ProcessId p, std::string r = "lock") {
    return ev(EventKind::kEnterCritical, p, 1, r);
  }
  Builder& leave(ProcessId p, std::string r = "lock") {
    return ev(EventKind::kLeaveCritical, p, 1, r);
  }
  Builder& crash(ProcessId p) { return ev(EventKind::kProcessCrash, p, 0, "", 0, "scheduled"); }
  Builder& pause(ProcessId p, int64_t ms) {
    return ev(EventKind::kProcessPause, p, 0, "", ms * 1000);
  }
  Builder& resume(ProcessId p) { return ev(EventKind::kProcessResume, p, 0); }
  Builder& wait(ProcessId p, int64_t budget_ms) {
    return ev(EventKind::kAcquireStart, p, 1, "lock", budget_ms < 0 ? -1 : budget_ms * 1000);
  }
  Builder& got(ProcessId p, bool ok) {
    return ev(EventKind::kAcquireEnd, p, 1, "lock", ok ? 1 : 0);
  }
  Builder& hold(ProcessId p, HoldOp op, int64_t seen) {
    HistoryEvent e;
    e.t_us = t_us_;
    e.kind = EventKind::kHold;
    e.process = p;
    e.task = 1;
    e.resource = "lock";
    e.value = seen;
    e.hold_op = op;
    h_.add(std::move(e));
    return *this;
  }
  History done(int64_t end_ms = -1) {
    if (end_ms >= 0) h_.set_end_us(end_ms * 1000);
    return h_;
  }

 private:
  int64_t t_us_ = 0;
  History h_;
};

TEST(MutualExclusion, AcceptsACleanHandOver) {
  History h = Builder()
                  .at(0)
                  .enter(1)
                  .at(10)
                  .leave(1)
                  .at(10)
                  .enter(2)
                  .at(20)
                  .leave(2)
                  .at(25)
                  .enter(1)
                  .enter(1)
                  .leave(1)
                  .at(30)
                  .leave(1)  // reentrant nesting
                  .done();
  EXPECT_TRUE(check_mutual_exclusion(h).empty());
}

TEST(MutualExclusion, FindsAnInjectedOverlap) {
  History h = Builder().at(0).enter(1).at(5).enter(2).at(10).leave(1).at(12).leave(2).done();
  auto v = check_mutual_exclusion(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "mutual-exclusion");
  EXPECT_NE(v[0].description.find("c2/1 entered lock at t=5.000ms while c1/1"), std::string::npos);
  EXPECT_EQ(v[0].events, (std::vector<size_t>{0, 1}));
  EXPECT_NE(v[0].timeline.find(">> t=     5.000ms  c2/1    ENTER lock"), std::string::npos);
  EXPECT_NE(format_violations(v).find("VIOLATION (mutual-exclusion)"), std::string::npos);
}

TEST(MutualExclusion, SameTimeOrderDecides) {
  // Leave then enter in the same microsecond is a hand-over; enter first is an overlap.
  EXPECT_TRUE(check_mutual_exclusion(Builder().enter(1).at(1).leave(1).enter(2).done()).empty());
  EXPECT_EQ(check_mutual_exclusion(Builder().enter(1).at(1).enter(2).leave(1).done()).size(), 1u);
}

TEST(MutualExclusion, CrashEndsTheSectionPauseDoesNot) {
  EXPECT_TRUE(
      check_mutual_exclusion(Builder().enter(1).at(5).crash(1).at(6).enter(2).done()).empty());
  auto v = check_mutual_exclusion(
      Builder().enter(1).at(5).pause(1, 100).at(50).enter(2).at(105).resume(1).done());
  EXPECT_EQ(v.size(), 1u);
}

TEST(MutualExclusion, ResourcesAreIndependent) {
  EXPECT_TRUE(check_mutual_exclusion(Builder().enter(1, "a").enter(2, "b").done()).empty());
}

TEST(HoldCounts, AcceptsAMatchingSequence) {
  History h = Builder()
                  .hold(1, HoldOp::kLock, 1)
                  .hold(1, HoldOp::kLock, 2)
                  .hold(1, HoldOp::kUnlock, 1)
                  .hold(1, HoldOp::kUnlock, 0)
                  .hold(1, HoldOp::kUnlockRejected, 0)
                  .hold(2, HoldOp::kLock, -1)  // not observed: not compared
                  .done();
  EXPECT_TRUE(check_hold_counts(h).empty());
}

TEST(HoldCounts, FindsWrongCountsAndBadUnlocks) {
  auto v = check_hold_counts(Builder().hold(1, HoldOp::kLock, 1).hold(1, HoldOp::kLock, 1).done());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].description.find("observed hold count 1 after lock, model says 2"),
            std::string::npos);
  EXPECT_EQ(check_hold_counts(Builder().hold(1, HoldOp::kUnlock, 0).done()).size(), 1u);
  EXPECT_EQ(check_hold_counts(
                Builder().hold(1, HoldOp::kLock, 1).hold(1, HoldOp::kUnlockRejected, 1).done())
                .size(),
            1u);
}

TEST(HoldCounts, CrashResetsTheModel) {
  History h =
      Builder().hold(1, HoldOp::kLock, 1).crash(1).hold(1, HoldOp::kUnlockRejected, 0).done();
  EXPECT_TRUE(check_hold_counts(h).empty());
}

TEST(Liveness, WaiterThatAcquiresSoonAfterTheFreeIsFine) {
  History h = Builder()
                  .at(0)
                  .enter(1)
                  .at(1)
                  .wait(2, 1000)
                  .at(50)
                  .leave(1)
                  .at(52)
                  .got(2, true)
                  .enter(2)
                  .at(60)
                  .leave(2)
                  .done(100);
  EXPECT_TRUE(check_liveness(h, 10 * 1000).empty());
}

TEST(Liveness, ResourceIdleWhileSomeoneWaitsIsAViolation) {
  // The holder crashed at 10 ms; the waiter never got it (e.g. SETNX then
  // EXPIRE crash: the key never expires).
  History h =
      Builder().at(0).enter(1).at(1).wait(2, 5000).at(10).crash(1).at(5001).got(2, false).done(
          6000);
  auto v = check_liveness(h, 100 * 1000);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "liveness");
  EXPECT_NE(v[0].description.find("from t=10.000ms to t=5001.000ms"), std::string::npos);
  EXPECT_EQ(v[0].events, (std::vector<size_t>{1, 2, 3}));
  // A bound longer than the idle stretch accepts it.
  EXPECT_TRUE(check_liveness(h, 5000 * 1000).empty());
}

TEST(Liveness, WaiterWithoutEnoughBudgetIsNotBlamed) {
  History h =
      Builder().at(0).enter(1).at(1).wait(2, 20).at(10).leave(1).at(21).got(2, false).done(100);
  EXPECT_TRUE(check_liveness(h, 15 * 1000).empty());  // free 10..21: 11 ms < 15 ms
}

TEST(Liveness, AnotherAcquirerEndsTheIdleStretch) {
  History h = Builder()
                  .at(0)
                  .enter(1)
                  .at(1)
                  .wait(2, 1000)
                  .at(10)
                  .leave(1)
                  .at(12)
                  .enter(3)
                  .at(500)
                  .leave(3)
                  .at(505)
                  .got(2, true)
                  .enter(2)
                  .done(600);
  EXPECT_TRUE(check_liveness(h, 20 * 1000).empty());
}

TEST(Liveness, WaitersPauseIsNotCountedAgainstTheLock) {
  History h = Builder()
                  .at(0)
                  .enter(1)
                  .at(1)
                  .wait(2, 1000)
                  .at(10)
                  .leave(1)
                  .at(11)
                  .pause(2, 200)
                  .at(211)
                  .resume(2)
                  .at(215)
                  .got(2, true)
                  .enter(2)
                  .done(300);
  EXPECT_TRUE(check_liveness(h, 20 * 1000).empty());
}

TEST(Liveness, OpenWaitAtTheEndOfTheHistoryCounts) {
  History h = Builder().at(0).wait(1, -1).done(1000);
  EXPECT_EQ(check_liveness(h, 100 * 1000).size(), 1u);
}

}  // namespace
}  // namespace redsim::world

#include "sim/world/fiber.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/world/scheduler.h"

namespace redsim::world {
namespace {

TEST(Fiber, ResumeRunsUntilSuspend) {
  std::vector<int> steps;
  Fiber* self = nullptr;
  Fiber f([&] {
    steps.push_back(1);
    self->suspend();
    steps.push_back(2);
  });
  self = &f;
  EXPECT_FALSE(f.started());
  f.resume();
  EXPECT_EQ(steps, std::vector<int>({1}));
  EXPECT_FALSE(f.done());
  f.resume();
  EXPECT_EQ(steps, std::vector<int>({1, 2}));
  EXPECT_TRUE(f.done());
}

struct Guard {
  std::vector<std::string>* log;
  std::string name;
  ~Guard() { log->push_back(name); }
};

TEST(Fiber, DestroyingSuspendedFiberRunsDestructors) {
  std::vector<std::string> log;
  bool after_suspend = false;
  {
    Fiber* self = nullptr;
    Fiber f([&] {
      Guard outer{&log, "outer"};
      {
        Guard inner{&log, "inner"};
        self->suspend();
        after_suspend = true;
      }
    });
    self = &f;
    f.resume();
    EXPECT_TRUE(log.empty());
  }
  EXPECT_FALSE(after_suspend);
  EXPECT_EQ(log, std::vector<std::string>({"inner", "outer"}));
}

TEST(Fiber, UnwindPassesThroughTypedCatch) {
  // Catching std::exception must not intercept Boost's forced_unwind.
  std::vector<std::string> log;
  bool caught = false;
  {
    Fiber* self = nullptr;
    Fiber f([&] {
      Guard g{&log, "g"};
      try {
        self->suspend();
      } catch (const std::exception&) {
        caught = true;
      }
    });
    self = &f;
    f.resume();
  }
  EXPECT_FALSE(caught);
  EXPECT_EQ(log, std::vector<std::string>({"g"}));
}

TEST(Fiber, NeverStartedFiberNeverRunsItsBody) {
  bool ran = false;
  {
    Fiber f([&] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

TEST(Fiber, ExceptionEscapingBodyIsRethrownByResume) {
  Fiber f([] { throw std::runtime_error("boom"); });
  try {
    f.resume();
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom");
  }
  EXPECT_TRUE(f.done());
}

TEST(Fiber, DeepRecursionFitsTheStack) {
  // A modest depth with locals: the default stack is enough for lock code.
  std::function<int(int)> depth = [&](int n) -> int {
    char buf[256];
    buf[0] = static_cast<char>(n);
    return n == 0 ? buf[0] : depth(n - 1) + 1;
  };
  int result = -1;
  Fiber f([&] { result = depth(200); });
  f.resume();
  EXPECT_EQ(result, 200);
}

TEST(FiberDeathTest, SwallowingTheUnwindAborts) {
  EXPECT_DEATH(
      {
        Fiber* self = nullptr;
        Fiber f([&] {
          try {
            self->suspend();
          } catch (...) {  // wrong: swallows forced_unwind
          }
        });
        self = &f;
        f.resume();
      },
      // Ours, or (with assertions on, as in the sanitized build) Boost's own
      // check in forced_unwind's destructor, which fires first.
      "swallowed|caught");
}

TEST(Scheduler, RunsByTimeThenSchedulingOrder) {
  Scheduler s;
  std::vector<std::string> order;
  s.at(20, [&] { order.push_back("b@20"); });
  s.at(10, [&] { order.push_back("a@10"); });
  s.at(20, [&] { order.push_back("c@20"); });
  s.at(10, [&] {
    order.push_back("d@10");
    s.after(0, [&] { order.push_back("e@10"); });
  });
  EXPECT_EQ(s.run(1000), Scheduler::Stop::kIdle);
  EXPECT_EQ(order, std::vector<std::string>({"a@10", "d@10", "e@10", "b@20", "c@20"}));
  EXPECT_EQ(s.now_us(), 20);
}

TEST(Scheduler, DaemonEventsDoNotKeepRunGoing) {
  Scheduler s;
  int ticks = 0;
  std::function<void()> tick = [&] {
    ++ticks;
    s.after(100, tick, /*daemon=*/true);
  };
  s.after(100, tick, true);
  s.at(350, [] {});
  EXPECT_EQ(s.run(1000000), Scheduler::Stop::kIdle);
  EXPECT_EQ(ticks, 3);  // 100, 200, 300: the daemon ran while live work remained
  EXPECT_EQ(s.now_us(), 350);
}

TEST(Scheduler, TimeLimitStopsAndRunUntilSetsNow) {
  Scheduler s;
  bool late = false;
  s.at(5000, [&] { late = true; });
  EXPECT_EQ(s.run(1000), Scheduler::Stop::kTimeLimit);
  EXPECT_FALSE(late);
  EXPECT_EQ(s.now_us(), 1000);
  s.run_until(4999);
  EXPECT_FALSE(late);
  EXPECT_EQ(s.now_us(), 4999);
  s.run_until(5000);
  EXPECT_TRUE(late);
  s.at(10, [] {});  // in the past: runs now
  s.run_until(5000);
  EXPECT_EQ(s.pending(), 0u);
}

}  // namespace
}  // namespace redsim::world

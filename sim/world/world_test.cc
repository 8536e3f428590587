// The world without Redis traffic: tasks, virtual time, events, pauses,
// crashes. (Network and pub/sub tests: network_test.cc.)
#include "sim/world/world.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lock/errors.h"

namespace redsim::world {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

size_t count_kind(const History& h, EventKind kind, ProcessId pid = 0) {
  size_t n = 0;
  for (const auto& e : h.events()) n += e.kind == kind && (pid == 0 || e.process == pid);
  return n;
}

TEST(World, FibersInterleaveByVirtualTime) {
  World w;
  std::vector<std::string> log;
  auto worker = [&log](std::string name, int step_ms) {
    return [&log, name, step_ms](ProcessEnv& env) {
      for (int i = 0; i < 3; ++i) {
        env.sleep_for(milliseconds(step_ms));
        log.push_back(name + "@" + std::to_string(env.now().time_since_epoch().count() / 1000));
      }
    };
  };
  w.spawn_process("a", worker("a", 10));
  w.spawn_process("b", worker("b", 15));
  EXPECT_EQ(w.run(), World::RunEnd::kIdle);
  // At 30 ms both wake; b's timer was set first (at 15 ms), so b runs first.
  EXPECT_EQ(log, std::vector<std::string>({"a@10", "b@15", "a@20", "b@30", "a@30", "b@45"}));
  EXPECT_EQ(w.now(), milliseconds(45));
}

TEST(World, SleepAdvancesVirtualTimeExactly) {
  World w;
  std::vector<int64_t> seen;
  w.spawn_process(
      "sleeper",
      [&](ProcessEnv& env) {
        seen.push_back(env.now().time_since_epoch().count());
        env.sleep_for(std::chrono::microseconds(1234));
        seen.push_back(env.now().time_since_epoch().count());
        env.sleep_for(std::chrono::microseconds(0));  // a yield: no time passes
        seen.push_back(env.now().time_since_epoch().count());
        env.sleep_for(std::chrono::seconds(2));
        seen.push_back(env.now().time_since_epoch().count());
      },
      std::chrono::microseconds(500));
  w.run();
  EXPECT_EQ(seen, std::vector<int64_t>({500, 1734, 1734, 2001734}));
}

TEST(World, ProcessLifecycleIsRecorded) {
  World w;
  auto pid = w.spawn_process("solo", [](ProcessEnv& env) { env.record("hello"); });
  EXPECT_EQ(w.process_state(pid), ProcessState::kScheduled);
  w.run();
  EXPECT_EQ(w.process_state(pid), ProcessState::kEnded);
  const History& h = w.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].kind, EventKind::kProcessStart);
  EXPECT_EQ(h[0].text, "solo");
  EXPECT_EQ(h[0].client_id, w.client_id(pid));
  EXPECT_EQ(h[1].kind, EventKind::kResult);
  EXPECT_EQ(h[1].task, 1u);
  EXPECT_EQ(h[2].kind, EventKind::kProcessEnd);
  EXPECT_EQ(h.process_name(pid), "solo");
}

TEST(World, ClientIdsAreSeededAndDistinct) {
  auto ids = [](uint64_t seed) {
    WorldOptions o;
    o.seed = seed;
    World w(o);
    auto a = w.spawn_process("a", [](ProcessEnv&) {});
    auto b = w.spawn_process("b", [](ProcessEnv&) {});
    return std::make_pair(w.client_id(a), w.client_id(b));
  };
  auto [a1, b1] = ids(1);
  auto [a1again, b1again] = ids(1);
  auto [a2, b2] = ids(2);
  EXPECT_EQ(a1, a1again);
  EXPECT_EQ(b1, b1again);
  EXPECT_NE(a1, b1);
  EXPECT_NE(a1, a2);
  EXPECT_EQ(a1.rfind("c1-", 0), 0u);
  EXPECT_EQ(b1.size(), 11u);  // "c2-" + 8 hex digits
}

TEST(World, EventRemembersASignalBeforeTheWait) {
  World w;
  std::vector<std::string> log;
  w.spawn_process("p", [&](ProcessEnv& env) {
    auto ev = env.make_event();
    ev->signal();
    const auto t0 = env.now();
    log.push_back(ev->wait_for(milliseconds(100)) ? "signaled" : "timeout");
    log.push_back("waited " + std::to_string((env.now() - t0).count()));
    // The signal was consumed: the next wait times out, exactly.
    log.push_back(ev->wait_for(milliseconds(100)) ? "signaled" : "timeout");
    log.push_back("waited " + std::to_string((env.now() - t0).count()));
  });
  w.run();
  EXPECT_EQ(log, std::vector<std::string>({"signaled", "waited 0", "timeout", "waited 100000"}));
}

TEST(World, EventWakesAWaiterFromAnotherTask) {
  World w;
  int64_t woke_at = -1;
  bool result = false;
  w.spawn_process("p", [&](ProcessEnv& env) {
    std::shared_ptr<lock::Event> ev = env.make_event();
    env.spawn("signaler", [&env, ev] {
      env.sleep_for(milliseconds(30));
      ev->signal();
    });
    result = ev->wait_for(milliseconds(1000));
    woke_at = env.now().time_since_epoch().count();
  });
  w.run();
  EXPECT_TRUE(result);
  EXPECT_EQ(woke_at, 30000);
}

TEST(World, SpawnedTasksHaveTheirOwnIdsAndDieWithMain) {
  World w;
  std::vector<uint64_t> ids;
  int watchdog_ticks = 0;
  w.spawn_process("p", [&](ProcessEnv& env) {
    ids.push_back(env.task_id());
    env.spawn("watchdog", [&] {
      ids.push_back(env.task_id());
      for (;;) {
        env.sleep_for(milliseconds(10));
        ++watchdog_ticks;
      }
    });
    env.sleep_for(milliseconds(35));
  });
  EXPECT_EQ(w.run(), World::RunEnd::kIdle);  // the endless watchdog stopped with main
  EXPECT_EQ(ids, std::vector<uint64_t>({1, 2}));
  EXPECT_EQ(watchdog_ticks, 3);
  EXPECT_EQ(count_kind(w.history(), EventKind::kTaskStart), 1u);
}

TEST(World, PauseHoldsEveryTaskOfTheProcess) {
  World w;
  std::vector<int64_t> ticks;      // the watchdog-like task
  std::vector<int64_t> main_wake;  // the main task
  auto pid = w.spawn_process("p", [&](ProcessEnv& env) {
    env.spawn("watchdog", [&] {
      for (int i = 0; i < 10; ++i) {
        env.sleep_for(milliseconds(10));
        ticks.push_back(env.now().time_since_epoch().count() / 1000);
      }
    });
    env.sleep_for(milliseconds(25));
    main_wake.push_back(env.now().time_since_epoch().count() / 1000);
    env.sleep_for(milliseconds(200));
  });
  w.pause_process(pid, milliseconds(15), milliseconds(50));  // paused in [15, 65) ms
  w.run_until(milliseconds(40));
  EXPECT_EQ(w.process_state(pid), ProcessState::kPaused);
  w.run();
  // The watchdog ticked at 10, then nothing until the resume at 65, where the
  // held tick (due at 20) runs; main's wake-up (due at 25) is held likewise.
  ASSERT_GE(ticks.size(), 3u);
  EXPECT_EQ(ticks[0], 10);
  EXPECT_EQ(ticks[1], 65);
  EXPECT_EQ(ticks[2], 75);
  EXPECT_EQ(main_wake, std::vector<int64_t>({65}));
  EXPECT_EQ(count_kind(w.history(), EventKind::kProcessPause, pid), 1u);
  EXPECT_EQ(count_kind(w.history(), EventKind::kProcessResume, pid), 1u);
}

TEST(World, CrashUnwindsEveryFiberAndEndsTheProcess) {
  World w;
  std::vector<std::string> cleaned;
  struct Cleanup {
    std::vector<std::string>* log;
    std::string name;
    ~Cleanup() { log->push_back(name); }
  };
  bool main_continued = false;
  std::string throw_during_unwind;
  auto pid = w.spawn_process("victim", [&](ProcessEnv& env) {
    Cleanup c{&cleaned, "main"};
    env.spawn("watchdog", [&] {
      Cleanup wc{&cleaned, "watchdog"};
      for (;;) env.sleep_for(milliseconds(5));
    });
    env.sleep_for(milliseconds(100));
    main_continued = true;
  });
  // A second process sees nothing of the first's unwinding.
  int other_steps = 0;
  w.spawn_process("other", [&](ProcessEnv& env) {
    for (int i = 0; i < 5; ++i) {
      env.sleep_for(milliseconds(10));
      ++other_steps;
    }
  });
  w.crash_process(pid, milliseconds(12));
  w.run();
  EXPECT_FALSE(main_continued);
  EXPECT_EQ(cleaned.size(), 2u);
  EXPECT_EQ(w.process_state(pid), ProcessState::kCrashed);
  EXPECT_EQ(other_steps, 5);
  EXPECT_EQ(count_kind(w.history(), EventKind::kProcessCrash, pid), 1u);
  EXPECT_EQ(count_kind(w.history(), EventKind::kProcessEnd, pid), 0u);
}

TEST(World, EnvCallsDuringUnwindDoNotBlock) {
  World w;
  std::string seen;
  auto pid = w.spawn_process("victim", [&](ProcessEnv& env) {
    struct OnUnwind {
      ProcessEnv& env;
      std::string& seen;
      ~OnUnwind() {
        env.sleep_for(milliseconds(10));  // returns at once
        seen += "slept;";
        try {
          env.connection().call({"PING"});
        } catch (const lock::ClosedError&) {
          seen += "closed;";
        }
      }
    } guard{env, seen};
    env.sleep_for(milliseconds(100));
  });
  w.crash_process(pid, milliseconds(1));
  w.run();
  EXPECT_EQ(seen, "slept;closed;");
}

TEST(World, UncaughtExceptionCrashesTheProcess) {
  World w;
  auto pid = w.spawn_process("thrower", [](ProcessEnv& env) {
    env.sleep_for(milliseconds(1));
    throw lock::LockNotOwned("not mine");
  });
  w.run();
  EXPECT_EQ(w.process_state(pid), ProcessState::kCrashed);
  const History& h = w.history();
  ASSERT_EQ(count_kind(h, EventKind::kTaskError, pid), 1u);
  bool found = false;
  for (const auto& e : h.events()) found |= e.kind == EventKind::kTaskError && e.text == "not mine";
  EXPECT_TRUE(found);
}

TEST(World, CrashBeforeStartMeansItNeverRuns) {
  World w;
  bool ran = false;
  auto pid = w.spawn_process(
      "late", [&](ProcessEnv&) { ran = true; }, milliseconds(10));
  w.crash_process(pid, milliseconds(5));
  w.run();
  EXPECT_FALSE(ran);
  EXPECT_EQ(w.process_state(pid), ProcessState::kCrashed);
}

TEST(World, RandomPausesAndCrashesComeFromTheSeed) {
  auto run = [](uint64_t seed) {
    WorldOptions o;
    o.seed = seed;
    o.faults.pause_ppm = Ppm(200000);
    o.faults.pause_min = Micros{1000};
    o.faults.pause_max = Micros{9000};
    o.faults.crash_ppm = Ppm(20000);
    World w(o);
    for (int i = 0; i < 4; ++i) {
      w.spawn_process("p" + std::to_string(i), [](ProcessEnv& env) {
        for (int k = 0; k < 30; ++k) env.sleep_for(milliseconds(1));
      });
    }
    w.run();
    return w.history().hash();
  };
  EXPECT_EQ(run(9), run(9));
  EXPECT_NE(run(9), run(10));
  WorldOptions o;
  o.faults.pause_ppm = Ppm(1000000);  // every blocking call pauses
  o.faults.pause_min = Micros{500};
  o.faults.pause_max = Micros{500};
  World w(o);
  int64_t end = 0;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(1));
    end = env.now().time_since_epoch().count();
  });
  w.run();
  EXPECT_EQ(end, 1500);  // paused 0.5 ms, then slept 1 ms
}

TEST(World, WorkloadRecordsCarryTheCallingTask) {
  World w;
  w.spawn_process("p", [](ProcessEnv& env) {
    env.spawn("second", [&env] {
      env.record_acquire_start("r", milliseconds(5));
      env.record_acquire_end("r", true);
      env.enter_critical("r");
      env.record_hold("r", HoldOp::kLock, 1);
      env.trace("note");
      env.leave_critical("r");
    });
    env.record_acquire_start("r", Micros::max());
    env.sleep_for(milliseconds(1));
  });
  w.run();
  std::vector<std::string> seen;
  for (const auto& e : w.history().events()) {
    if (e.process == 0 || e.task == 0) continue;
    const std::string text =
        e.kind == EventKind::kHold ? std::string(to_string(e.hold_op)) : e.text;
    seen.push_back(std::string(to_string(e.kind)) + "/" + std::to_string(e.task) + "/" +
                   e.resource + "/" + text + "/" + std::to_string(e.value));
  }
  EXPECT_EQ(seen, std::vector<std::string>({
                      "task-start/2//second/0",
                      "acquire-start/1/r//-1",  // unbounded
                      "acquire-start/2/r//5000",
                      "acquire-end/2/r//1",
                      "enter/2/r//0",
                      "hold/2/r/lock/1",
                      "trace/2//note/0",
                      "leave/2/r//0",
                      "task-end/2///0",
                  }));
}

TEST(World, PauseInsidePauseExtendsIt) {
  World w;
  int64_t woke = -1;
  auto pid = w.spawn_process("p", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(1));
    woke = env.now().time_since_epoch().count();
  });
  w.pause_process(pid, microseconds(100), milliseconds(10));  // until 10.1 ms
  w.pause_process(pid, milliseconds(5), milliseconds(20));    // until 25 ms
  w.pause_process(pid, milliseconds(6), milliseconds(1));     // inside: no change
  w.run();
  EXPECT_EQ(woke, 25000);
  size_t resumes = 0;
  for (const auto& e : w.history().events()) resumes += e.kind == EventKind::kProcessResume;
  EXPECT_EQ(resumes, 1u);
}

TEST(World, RunStopsAtTheTimeLimit) {
  WorldOptions o;
  o.time_limit_us = 50000;
  World w(o);
  w.spawn_process("forever", [](ProcessEnv& env) {
    for (;;) env.sleep_for(milliseconds(7));
  });
  EXPECT_EQ(w.run(), World::RunEnd::kTimeLimit);
  EXPECT_EQ(w.now(), milliseconds(50));
  EXPECT_EQ(w.history().end_us(), 50000);
}

}  // namespace
}  // namespace redsim::world

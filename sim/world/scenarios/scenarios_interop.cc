// Scenarios: the interop kinds (issue 14, row 10), each a pair: a reported
// bug of redis-py's Lock or node-redlock v5 reproduced with the behaviour the
// report is about, and the same schedule with the fix. Catalogue entries are
// added by add_interop_scenarios() at the end of the catalogue.
//
//   node-redlock#169/#283  expiration counted from the first attempt: an
//                          acquisition that needed retries is "expired" at
//                          once, the first automatic extension is refused
//   node-redlock#65/#168   releasing a lock whose key just expired fails the
//                          quorum after every retry
//   redis-py#416/#489      a Lock instance shared by threads without
//                          thread-local tokens releases another thread's lock
//   redis-py#4258          the token is cleared before a release that then
//                          fails: the lock (no timeout) stays forever
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lock/node_redlock.h"
#include "lock/redis_py_lock.h"
#include "sim/world/scenarios/scenarios_internal.h"

namespace redsim::world::scenarios_detail {

namespace {

int64_t now_us(ProcessEnv& env) { return env.now().time_since_epoch().count(); }

// ---- node-redlock, 3 servers, 1 ms one-way latency.

constexpr size_t kNodeRedlockServers = 3;

WorldOptions node_redlock_world(uint64_t seed) {
  WorldOptions o = scenario_options(seed);
  o.servers = kNodeRedlockServers;
  return o;
}

// Retries 200 ms apart without jitter, so the schedule does not depend on
// the seed; durations of 1000 ms (drift 12 ms).
lock::NodeRedlockOptions node_redlock_options(bool from_first_attempt, bool missing_counts) {
  lock::NodeRedlockOptions o;
  o.duration = milliseconds(1000);
  o.retry_count = 10;
  o.retry_delay = ms(200);
  o.retry_jitter = Micros(0);
  o.expiration_from_first_attempt = from_first_attempt;
  o.release_counts_missing = missing_counts;
  return o;
}

// Servers holding `key` with `value`, asked from outside the clients.
size_t holders(World& world, const std::string& value) {
  size_t n = 0;
  for (size_t i = 0; i < kNodeRedlockServers; ++i) {
    sim::Server& s = world.server(i);
    n += s.execute(*s.connect(), {"GET", kKey}) == lock::Reply::bulk(value);
  }
  return n;
}

// node-redlock#169/#283: B holds the lock from t=0 to t=1100 ms. A asks for
// it at t=10 ms through Redlock.using (duration 1000 ms) and gets it at its
// seventh attempt (t=1.2 s). As 5.0.0-beta.2 counts the expiration from the
// first attempt (t=10 ms), the lock is already "expired" for A: the first
// automatic extension is refused without a server call ("Cannot extend an
// already-expired lock."), the routine's AbortSignal fires, and A stops its
// 2 s of work although a quorum still holds its key for ~1 s. On main
// (#274) the expiration counts from the winning attempt: two extensions,
// the work completes.
ScenarioResult run_node_redlock_expired_extension(bool from_first_attempt, Verdict expected,
                                                  uint64_t seed) {
  SimRunner runner(node_redlock_world(seed));
  World& world = runner.world();
  struct Run {
    bool ran = false, aborted = false, completed = false;
    int64_t entered_us = -1, aborted_us = -1;
    std::string value, error;
    size_t holders_at_abort = 0;
  };
  auto run = std::make_shared<Run>();
  world.spawn_process("B", [](ProcessEnv& env) {
    lock::NodeRedlockOptions o = node_redlock_options(false, false);
    o.duration = milliseconds(2000);
    lock::NodeRedlock lk(env, kKey, o);
    if (!acquire(env, lk, Micros(0))) return;
    critical_section(env, ms(1100));
    unlock_and_record(env, lk);
  });
  world.spawn_process(
      "A",
      [run, from_first_attempt, &world](ProcessEnv& env) {
        lock::NodeRedlock lk(env, kKey, node_redlock_options(from_first_attempt, false));
        env.record_acquire_start(kKey, ms(3000));
        run->ran = lk.run_using(milliseconds(1000), [&](const lock::AbortSignal& signal) {
          env.record_acquire_end(kKey, true);
          run->value = lk.owner();
          env.enter_critical(kKey);
          run->entered_us = now_us(env);
          // 2 s of work in 100 ms steps, stopping when told (the README's use).
          for (int step = 0; step < 20; ++step) {
            if (signal.aborted()) {
              run->aborted = true;
              run->aborted_us = now_us(env);
              run->error = signal.error();
              run->holders_at_abort = holders(world, run->value);
              env.leave_critical(kKey);
              env.record("routine aborted: " + run->error);
              return;
            }
            env.sleep_for(ms(100));
          }
          run->completed = true;
          env.leave_critical(kKey);
        });
        if (!run->ran) env.record_acquire_end(kKey, false);
      },
      ms(10));
  world.run();
  Judged j;
  j.findings.push_back(
      std::string(from_first_attempt ? "5.0.0-beta.2 (expiration from the first attempt)"
                                     : "main, #274 (expiration from the winning attempt)") +
      ": A entered at " + (run->entered_us < 0 ? std::string("never") : fmt_ms(run->entered_us)) +
      (run->aborted ? ", aborted at " + fmt_ms(run->aborted_us) + " (" + run->error + ") while " +
                          std::to_string(run->holders_at_abort) + "/3 servers held its key"
       : run->completed ? ", finished its 2 s of work under automatic extension"
                        : ", did not finish"));
  if (!run->ran) j.extra.push_back(expectation_failed("A never acquired the lock"));
  if (run->aborted && run->holders_at_abort >= 2) {
    j.extra.push_back(expectation_failed(
        "A's automatic extension was refused as expired while a quorum still held its key"));
  }
  if (run->ran && !run->completed && !run->aborted) {
    j.extra.push_back(expectation_failed("A's routine did not complete"));
  }
  return judge(runner, expected, 5000 * kMs, std::move(j));
}

// node-redlock#65/#168: A takes the lock for 100 ms (the keys expire at
// t=103 ms; its expiration is 3 ms earlier: drift 1 + 2 ms), leaves its
// section at t=89 ms and is paused from t=90 to t=105 ms just before its
// release, which reaches the servers after the keys expired. The
// release script answers 0 on every server, so each attempt is voted
// against and release fails after 10 retries, about 2 s later. With PR
// #362's script (a gone key counts as released), it succeeds at once.
ScenarioResult run_node_redlock_release_expired(bool missing_counts, Verdict expected,
                                                uint64_t seed) {
  SimRunner runner(node_redlock_world(seed));
  World& world = runner.world();
  struct Run {
    bool released = false;
    int64_t release_us = -1;
    std::string error;
  };
  auto run = std::make_shared<Run>();
  ProcessId a = world.spawn_process("A", [run, missing_counts](ProcessEnv& env) {
    lock::NodeRedlockOptions o = node_redlock_options(false, missing_counts);
    o.duration = milliseconds(100);
    lock::NodeRedlock lk(env, kKey, o);
    if (!acquire(env, lk, Micros(0))) return;
    critical_section(env, ms(85));  // leaves at t=89 ms, inside its validity
    env.sleep_for(ms(2));           // the pause from t=90 ms stretches this to t=105 ms
    const int64_t start = now_us(env);
    const lock::UnlockResult r = lk.release();
    run->release_us = now_us(env) - start;
    run->released = r.has_value();
    if (!r) run->error = r.error().message;
    env.record(r ? "released" : "release failed: " + r.error().message);
  });
  world.pause_process(a, ms(90), ms(15));
  world.run();
  Judged j;
  j.findings.push_back(
      std::string(missing_counts ? "PR #362 release script" : "v5 release script") + ": release " +
      (run->released ? "succeeded" : "failed") + " after " + fmt_ms(run->release_us) +
      (run->error.empty() ? "" : " (" + run->error + ")"));
  if (!run->released) {
    j.extra.push_back(expectation_failed(
        "releasing a lock whose key had just expired failed the quorum after every retry"));
  }
  return judge(runner, expected, 5000 * kMs, std::move(j));
}

// ---- redis-py, one server.

// redis-py#416 (#489 and the thread-local fix #491/#492): one Lock instance
// (timeout 100 ms, sleep 5 ms) shared by two tasks of process A. Task 1
// takes it, works 80 ms, then spends 70 ms on something else (the report's
// "waiting for a TCP connection to time out") before release(). Task 2
// waits on the same instance and takes the lock when the key expires (t=100
// ms). Without thread-local tokens task 2's token replaced task 1's in the
// shared object, so task 1's release at t=150 ms deletes task 2's key, and
// C (its own Lock, waiting since t=120 ms) enters beside task 2. With
// thread_local=True task 1's release answers LockNotOwnedError instead.
ScenarioResult run_redis_py_shared_instance(bool thread_local_token, Verdict expected,
                                            uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::RedisPyLockOptions o;
  o.timeout = milliseconds(100);
  o.sleep = ms(5);
  o.thread_local_token = thread_local_token;
  world.spawn_process("A", [o](ProcessEnv& env) {
    auto shared = std::make_shared<lock::RedisPyLock>(env, kKey, o);
    std::shared_ptr<lock::Event> second_done = env.make_event();
    env.spawn("task-2", [&env, shared, second_done] {
      env.sleep_for(ms(10));
      if (acquire(env, *shared, ms(1000))) {
        critical_section(env, ms(90));
        unlock_and_record(env, *shared);
      }
      second_done->signal();
    });
    if (!acquire(env, *shared, Micros(0))) return;
    critical_section(env, ms(80));
    env.sleep_for(ms(70));  // outside the section, but the lease runs out
    unlock_and_record(env, *shared);
    second_done->wait_for(ms(5000));
  });
  world.spawn_process(
      "C",
      [o](ProcessEnv& env) {
        lock::RedisPyLockOptions own = o;
        own.thread_local_token = true;
        lock::RedisPyLock lk(env, kKey, own);
        if (!acquire(env, lk, ms(1000))) return;
        critical_section(env, ms(20));
        unlock_and_record(env, lk);
      },
      ms(120));
  world.run();
  Judged j;
  j.findings.push_back(std::string("thread_local=") + (thread_local_token ? "True" : "False") +
                       ": task 1 of A released at t=150 ms, after its key expired under it");
  return judge(runner, expected, 300 * kMs, std::move(j));
}

// redis-py#4258: A takes a Lock without timeout (the key never expires),
// works 50 ms and releases while cut off from the server (t=55..80 ms): the
// call fails with a connection error. A calls release() again after the
// partition healed. Before #4258 the token was cleared before the call, so
// the second release raises LockError ("not owned or already unlocked")
// without touching Redis and the key stays forever: B waits in vain. With
// #4258 the token is kept and the second release deletes the key.
ScenarioResult run_redis_py_token_lost(bool clear_before, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  lock::RedisPyLockOptions o;
  o.sleep = ms(5);
  o.clear_token_before_release = clear_before;
  ProcessId a = world.spawn_process("A", [o](ProcessEnv& env) {
    lock::RedisPyLock lk(env, kKey, o);
    if (!acquire(env, lk, Micros(0))) return;
    critical_section(env, ms(50));
    env.sleep_for(ms(4));
    const lock::UnlockResult first = lk.release();
    env.record(first ? "released" : "release failed: " + first.error().message);
    if (first) return;
    env.sleep_for(ms(30));
    const lock::UnlockResult second = lk.release();
    env.record(second ? "second release: released"
                      : "second release failed: " + second.error().message);
  });
  world.spawn_process(
      "B",
      [o](ProcessEnv& env) {
        lock::RedisPyLock lk(env, kKey, o);
        if (!acquire(env, lk, ms(2000))) return;
        critical_section(env, ms(10));
        unlock_and_record(env, lk);
      },
      ms(10));
  world.partition(a, 0, ms(55), ms(80));
  world.run();
  Judged j;
  j.findings.push_back(clear_before ? "before #4258: the token was gone after the failed release"
                                    : "#4258: the token survived the failed release");
  return judge(runner, expected, 500 * kMs, std::move(j));
}

}  // namespace

void add_interop_scenarios(std::vector<Scenario>& c) {
  auto add = [&c](std::string name, LockKind kind, Verdict expected, std::string description,
                  std::string source, std::string fault,
                  std::function<ScenarioResult(uint64_t)> fn) {
    c.push_back(Scenario{std::move(name),
                         kind,
                         expected,
                         std::move(description),
                         std::move(source),
                         std::move(fn),
                         {},
                         std::move(fault)});
  };
  const std::string retried =
      "A's acquisition needs 7 attempts 200 ms apart (B holds the lock until t=1100 ms); "
      "simulation only";
  add("node-redlock-extend-169", LockKind::kNodeRedlock, Verdict::kExpectation,
      "node-redlock#169/#283: 5.0.0-beta.2 counts the expiration from the first attempt; after "
      "retries `using` refuses its own extension as expired and aborts a valid lock",
      "node-redlock#169, #283 (its report: 1 node, retryDelay 500 ms, fits this cause; a routine "
      "blocking the event loop past the duration gives the same error and is no library bug), "
      "#296; Redlock.acquire/_execute in 5.0.0-beta.2",
      retried, [](uint64_t seed) {
        return run_node_redlock_expired_extension(true, Verdict::kExpectation, seed);
      });
  add("node-redlock-extend-274", LockKind::kNodeRedlock, Verdict::kSafe,
      "node-redlock#169 fixed on main (#274): the same retried acquisition, expiration from "
      "the winning attempt; `using` extends and the work completes",
      "node-redlock PR #274 (fix of #169, merged, unreleased) and #276", retried,
      [](uint64_t seed) {
        return run_node_redlock_expired_extension(false, Verdict::kSafe, seed);
      });
  const std::string late_release = "a 15 ms pause of client A just before its release (t=90 ms)";
  add("node-redlock-release-65", LockKind::kNodeRedlock, Verdict::kExpectation,
      "node-redlock#65/#168: releasing a lock whose key just expired fails the quorum after 10 "
      "retries (2 s); with retryCount -1 it never returns (#313)",
      "node-redlock#65 (v4 \"Unable to fully release the lock\"), #168 and #131 (v5 "
      "ExecutionError), RELEASE_SCRIPT in src/index.ts",
      late_release, [](uint64_t seed) {
        return run_node_redlock_release_expired(false, Verdict::kExpectation, seed);
      });
  add("node-redlock-release-362", LockKind::kNodeRedlock, Verdict::kSafe,
      "the same late release with PR #362's script (a gone key counts as released): released "
      "at once",
      "node-redlock PR #362 (open, not merged): NodeRedlockOptions::release_counts_missing",
      late_release,
      [](uint64_t seed) { return run_node_redlock_release_expired(true, Verdict::kSafe, seed); });
  const std::string slow_release =
      "A's task 1 releases 70 ms after leaving its section, past its 100 ms timeout; "
      "simulation only";
  add("redis-py-shared-lock-416", LockKind::kRedisPy, Verdict::kMutualExclusion,
      "redis-py#416/#489: a Lock shared by two threads with thread_local=False; the late "
      "release of thread 1 deletes thread 2's lock and C enters beside it",
      "redis-py#416 (shared Lock instances with timeouts), #489, the Lock docstring's "
      "thread_local timeline",
      slow_release, [](uint64_t seed) {
        return run_redis_py_shared_instance(false, Verdict::kMutualExclusion, seed);
      });
  add("redis-py-thread-local-token", LockKind::kRedisPy, Verdict::kSafe,
      "redis-py#416 fixed (#491/#492): thread_local=True, redis-py's default; thread 1's "
      "release raises LockNotOwnedError, thread 2 keeps its lock",
      "redis-py PR #491/#492 (thread-local token, the `thread_local` toggle)", slow_release,
      [](uint64_t seed) { return run_redis_py_shared_instance(true, Verdict::kSafe, seed); });
  const std::string cut_release = "a partition of client A from the server at t=55..80 ms";
  add("redis-py-token-lost-4258", LockKind::kRedisPy, Verdict::kLiveness,
      "redis-py#4258: the token is cleared before a release that fails; the retry raises "
      "LockError and a lock without timeout stays forever",
      "redis-py PR #4258 (Lock.release before the fix; the async Lock's #3900)", cut_release,
      [](uint64_t seed) { return run_redis_py_token_lost(true, Verdict::kLiveness, seed); });
  add("redis-py-token-kept-4258", LockKind::kRedisPy, Verdict::kSafe,
      "the same failed release with #4258: the token is kept and the second release frees the "
      "lock",
      "redis-py PR #4258 (merged): clear the token only after the script answered", cut_release,
      [](uint64_t seed) { return run_redis_py_token_lost(false, Verdict::kSafe, seed); });
}

}  // namespace redsim::world::scenarios_detail

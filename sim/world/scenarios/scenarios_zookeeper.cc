// Scenarios: the ZooKeeper contrast (issue 17). Curator's InterProcessMutex
// (lock/zk_mutex.h) on a simulated coordination node (sim/world/zk_world.h)
// in the same world as the Redis locks, under the same kinds of faults: a
// holder paused past its session timeout (as pause-past-lease, with and
// without fencing), a connection loss during the create (the orphan znode
// protected mode exists for), the hand-off that wakes only the successor
// (and the herd recipe for contrast), a partitioned holder (with and
// without Curator's advice to stop on SUSPENDED).
//
// Every scenario: 1 ms one-way latency to the node, a 1000 ms session
// timeout (the client pings after 333 ms idle and declares the connection
// lost after 667 ms without hearing from the node), the lock's parent znode
// /locks/orders; the critical sections are recorded under kKey as the
// Redis scenarios do, so the same checkers judge them.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lock/zk_mutex.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/scenarios/scenarios_internal.h"
#include "sim/world/zk_world.h"

namespace redsim::world::scenarios_detail {

namespace {

constexpr const char* kZkPath = "/locks/orders";
constexpr Micros kSessionTimeout = ms(1000);
// Liveness: a waiter may wait a session timeout after its holder stopped
// (a holder's znode stays until its session ends) plus the hand-off.
constexpr int64_t kLivenessBound = 1200 * kMs;

std::string zk_error(lock::ZkCode c) { return lock::zk_code_name(c); }

// The lock's parents, made once by whoever comes first.
void make_parents(lock::ZkClient& zk) {
  for (const char* p : {"/locks", kZkPath}) (void)zk.create(p, "", lock::ZkMode::kPersistent);
}

// An acquire attempt the checkers see; `wait` as Curator's acquire(time).
bool zk_acquire(ProcessEnv& env, lock::InterProcessMutex& m, Micros wait) {
  env.record_acquire_start(kKey, wait);
  auto got = m.acquire(wait);
  if (!got) {
    env.record_acquire_error(kKey, zk_error(got.error()));
    env.record("acquire failed: " + zk_error(got.error()));
    return false;
  }
  env.record_acquire_end(kKey, *got);
  env.record(*got ? "acquired " + m.lock_path().value_or("?") : "gave up");
  return *got;
}

// Releases; "ok" or the error's name, also recorded.
std::string zk_release(ProcessEnv& env, lock::InterProcessMutex& m) {
  auto r = m.release();
  env.record(r ? "released" : "release failed: " + zk_error(r.error()));
  return r ? "ok" : zk_error(r.error());
}

// Sleeps until true time `t` (process clocks do not drift here).
void sleep_until(ProcessEnv& env, Micros t) {
  const Micros left = t - env.now().time_since_epoch();
  if (left > Micros::zero()) env.sleep_for(left);
}

// What a client does while it holds the lock (the skeleton releases after).
using ZkHold = std::function<void(ProcessEnv&, lock::ZkClient&, lock::InterProcessMutex&)>;

// The holder-and-waiter skeleton of the scenarios below: A connects, makes
// the lock's parents and takes the lock at once (acquire(0)); B connects at
// t=50 ms and waits up to 5 s for it. Each runs its `holds` while holding,
// then releases. The scenario then puts its fault on A (`a`).
struct ZkPair {
  std::shared_ptr<ZkWorld> zk;
  ProcessId a = 0;
  std::shared_ptr<std::string> a_release;  // A's release: "ok" or the error; "" if none
};

ZkPair spawn_zk_pair(World& world, ZkHold a_holds, ZkHold b_holds) {
  ZkPair pair{std::make_shared<ZkWorld>(world), 0, std::make_shared<std::string>()};
  auto zk = pair.zk;
  auto a_release = pair.a_release;
  pair.a = world.spawn_process("A", [zk, a_release, a_holds](ProcessEnv& env) {
    auto client = zk->connect(env, kSessionTimeout);
    make_parents(*client);
    lock::InterProcessMutex m(env, *client, kZkPath);
    if (!zk_acquire(env, m, Micros(0))) return;
    a_holds(env, *client, m);
    *a_release = zk_release(env, m);
  });
  world.spawn_process(
      "B",
      [zk, b_holds](ProcessEnv& env) {
        auto client = zk->connect(env, kSessionTimeout);
        lock::InterProcessMutex m(env, *client, kZkPath);
        if (!zk_acquire(env, m, ms(5000))) return;
        b_holds(env, *client, m);
        zk_release(env, m);
      },
      ms(50));
  return pair;
}

// A hold that only works `d` inside the critical section.
ZkHold works(Micros d) {
  return
      [d](ProcessEnv& env, lock::ZkClient&, lock::InterProcessMutex&) { critical_section(env, d); };
}

// zk-pause-past-session: A takes the lock at t=10 ms and works 3 s; it is
// paused at t=100 ms for 2 s (a GC pause: its ping task stops with it). The
// node hears nothing from A after t~9 ms, expires its session a timeout
// later (t~1.01 s) and deletes its znode; B, watching it, takes the lock; A
// resumes at 2.1 s believing it holds the lock and works on beside B. The
// session timeout is the lease: Kleppmann's argument applies to ZooKeeper
// as to Redis.
ScenarioResult run_zk_pause(Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  const ZkPair pair = spawn_zk_pair(world, works(ms(3000)), works(ms(1500)));
  world.pause_process(pair.a, ms(100), ms(2000));
  world.run();
  Judged j;
  j.findings.push_back("sessions expired: " + std::to_string(pair.zk->sessions_expired()) +
                       "; A's release after its pause: " + *pair.a_release);
  if (pair.zk->sessions_expired() < 1) j.extra.push_back(expectation_failed("A's session lived"));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

// zk-pause-past-session-fenced: the same pause; each client writes to
// Kleppmann's storage with its znode's sequence number as the fencing token
// (ZooKeeper hands them out in increasing order per lock path; the czxid
// would do as well). B (token 1) writes first; A's write after its pause
// carries token 0 and is rejected.
ScenarioResult run_zk_pause_fenced(Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto storage = std::make_shared<FencedResource>("storage");
  struct Shared {
    int64_t a_token = -1, b_token = -1;
    bool a_rejected = false, b_accepted = false;
  };
  auto s = std::make_shared<Shared>();
  auto writer = [storage, s](bool is_a) -> ZkHold {
    return [storage, s, is_a](ProcessEnv& env, lock::ZkClient&, lock::InterProcessMutex& m) {
      const int64_t token = m.token().value_or(-1);
      (is_a ? s->a_token : s->b_token) = token;
      env.sleep_for(is_a ? ms(3000) : ms(10));  // A's sleep is where the pause hits
      const bool ok = storage->write(env, token);
      (is_a ? s->a_rejected : s->b_accepted) = is_a ? !ok : ok;
      env.record("write with token " + std::to_string(token) +
                 (ok ? ": accepted" : ": rejected (stale token)"));
      if (!is_a) env.sleep_for(ms(1500));
    };
  };
  const ZkPair pair = spawn_zk_pair(world, writer(true), writer(false));
  world.pause_process(pair.a, ms(100), ms(2000));
  world.run();
  Judged j;
  j.extra = check_fencing(runner.history());
  if (!s->a_rejected) j.extra.push_back(expectation_failed("A's stale write was not rejected"));
  if (!s->b_accepted) j.extra.push_back(expectation_failed("B's write was not accepted"));
  j.findings.push_back("tokens (znode sequence numbers): A " + std::to_string(s->a_token) + ", B " +
                       std::to_string(s->b_token) +
                       "; A's write after its pause: " + (s->a_rejected ? "rejected" : "accepted"));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

// zk-create-lost[-protected]: A's create at t=10 ms runs on the node and
// then its connection resets (the answer is lost): A sees ConnectionLoss,
// reconnects (the session lives) and retries after 10 ms.
// - Without protection the retry creates a second znode. The first, an
//   orphan of A's live session, is the lowest: A waits on its own orphan
//   until its acquire(500 ms) gives up (deleting only the second), and B,
//   arriving at t=50 ms, waits behind the orphan for its whole 2 s: the lock
//   is held by nobody while A's session lives (A keeps pinging until it
//   closes at t=3 s). Liveness fails; mutual exclusion holds.
// - With protection the retry lists the children, finds the znode with its
//   GUID prefix, and A holds the lock with it; B follows. Safe and live.
ScenarioResult run_zk_create_lost(bool protected_mode, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto zk = std::make_shared<ZkWorld>(world);
  struct Shared {
    int64_t a_nodes_after_retry = 0;
    std::string a_outcome = "?";
  };
  auto s = std::make_shared<Shared>();
  lock::ZkMutexOptions o;
  o.protected_mode = protected_mode;
  ProcessId a = world.spawn_process("A", [zk, s, o](ProcessEnv& env) {
    auto client = zk->connect(env, kSessionTimeout);
    make_parents(*client);
    lock::InterProcessMutex m(env, *client, kZkPath, o);
    sleep_until(env, ms(10));
    const bool got = zk_acquire(env, m, ms(500));
    s->a_nodes_after_retry =
        static_cast<int64_t>(zk->node().ephemerals_of(client->session_id()).size());
    s->a_outcome = got ? "held" : "gave up";
    if (got) {
      critical_section(env, ms(100));
      zk_release(env, m);
    }
    sleep_until(env, ms(3000));  // A's process (and session) lives on
  });
  world.spawn_process(
      "B",
      [zk](ProcessEnv& env) {
        auto client = zk->connect(env, kSessionTimeout);
        lock::InterProcessMutex m(env, *client, kZkPath);
        if (!zk_acquire(env, m, ms(2000))) return;
        critical_section(env, ms(100));
        zk_release(env, m);
      },
      ms(50));
  zk->lose_messages(a, ms(10), ms(11), ZkLoss::kReplyAfterRun);
  world.run();
  Judged j;
  j.findings.push_back("A's acquire: " + s->a_outcome + "; A's ephemeral znodes right after it: " +
                       std::to_string(s->a_nodes_after_retry) +
                       (protected_mode ? " (its own, found by its GUID prefix)"
                                       : " (the orphan of the lost create, owned by A's live "
                                         "session)"));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

// zk-herd-free / zk-herd: A holds the lock; B, C, D, E queue behind it at
// t=10..40 ms; each holds it 50 ms in turn. Curator's recipe watches only
// the predecessor's znode: each release wakes one waiter (4 wake-ups in all,
// one per waiter), and they take the lock in sequence order. The herd
// recipe (a child watch on the parent) wakes every waiter at every change.
ScenarioResult run_zk_herd(bool watch_parent, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto zk = std::make_shared<ZkWorld>(world);
  auto order = std::make_shared<std::vector<std::string>>();
  lock::ZkMutexOptions o;
  o.watch_parent = watch_parent;
  const std::vector<std::string> names = {"A", "B", "C", "D", "E"};
  std::vector<ProcessId> pids;
  for (size_t i = 0; i < names.size(); ++i) {
    pids.push_back(world.spawn_process(
        names[i],
        [zk, order, o, i, name = names[i]](ProcessEnv& env) {
          auto client = zk->connect(env, kSessionTimeout);
          if (i == 0) make_parents(*client);
          lock::InterProcessMutex m(env, *client, kZkPath, o);
          if (!zk_acquire(env, m, ms(5000))) return;
          order->push_back(name);
          critical_section(env, i == 0 ? ms(200) : ms(50));
          zk_release(env, m);
        },
        ms(10 * static_cast<int64_t>(i))));
  }
  world.run();
  Judged j;
  std::string counts, got;
  bool one_each = true;
  for (size_t i = 0; i < pids.size(); ++i) {
    const int64_t w = zk->watch_wakeups(pids[i]);
    counts += (i ? ", " : "") + names[i] + " " + std::to_string(w);
    if (i > 0 && w != 1) one_each = false;
  }
  for (const std::string& n : *order) got += n;
  j.findings.push_back("watch wake-ups per client: " + counts + "; acquisition order: " + got);
  if (!one_each) {
    j.extra.push_back(
        expectation_failed("a release woke more than its successor (the herd): " + counts));
  }
  if (got != "ABCDE") j.extra.push_back(expectation_failed("not fair: order " + got));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

// zk-partitioned-holder[-listener]: A holds the lock and works 3 s; it is
// cut from the node from t=100 ms to t=2.5 s. Its pings are lost; the node
// expires its session at t~1.01 s and B takes the lock.
// - A that ignores its connection state works on beside B.
// - A that follows Curator's advice (a ConnectionStateListener: treat
//   SUSPENDED as losing the lock) checks state() before each 50 ms slice of
//   work; its client declares the connection lost 667 ms after it last
//   heard from the node (t~677 ms; A sees it at its next slice, t=710 ms), before the node expires
//   the session, so A stops before B starts. (A pause gives no such warning: the check and the
//   write it guards can be separated by the pause.)
ScenarioResult run_zk_partition(bool listener, Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto stopped_at = std::make_shared<int64_t>(-1);
  ZkHold a_works = [listener, stopped_at](ProcessEnv& env, lock::ZkClient& client,
                                          lock::InterProcessMutex&) {
    env.enter_critical(kKey);
    for (int slice = 0; slice < 60; ++slice) {
      if (listener && client.state() != lock::ZkState::kConnected) {
        *stopped_at = env.now().time_since_epoch().count();
        env.record("connection SUSPENDED: stop working, the lock may be lost");
        break;
      }
      env.sleep_for(ms(50));
    }
    env.leave_critical(kKey);
  };
  const ZkPair pair = spawn_zk_pair(world, a_works, works(ms(500)));
  pair.zk->partition(pair.a, ms(100), ms(2500));
  world.run();
  Judged j;
  j.findings.push_back("sessions expired: " + std::to_string(pair.zk->sessions_expired()) +
                       (listener
                            ? "; A stopped on SUSPENDED at " +
                                  (*stopped_at < 0 ? std::string("never") : fmt_ms(*stopped_at))
                            : std::string("; A ignored its connection state")));
  if (pair.zk->sessions_expired() < 1) j.extra.push_back(expectation_failed("A's session lived"));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

// zk-crashed-holder: A takes the lock and its process crashes at t=100 ms
// inside the critical section (the section ends with the crash). Nobody
// deletes A's znode: it goes when the node expires A's silent session
// (t~1.01 s), and B, watching it, takes the lock then. No lease to tune:
// the session timeout bounds how long a dead holder blocks the lock.
ScenarioResult run_zk_crash(Verdict expected, uint64_t seed) {
  SimRunner runner(scenario_options(seed));
  World& world = runner.world();
  auto b_at = std::make_shared<int64_t>(-1);
  ZkHold b_works = [b_at](ProcessEnv& env, lock::ZkClient&, lock::InterProcessMutex&) {
    *b_at = env.now().time_since_epoch().count();
    critical_section(env, ms(100));
  };
  const ZkPair pair = spawn_zk_pair(world, works(ms(3000)), b_works);
  world.crash_process(pair.a, ms(100));
  world.run();
  Judged j;
  j.findings.push_back("sessions expired: " + std::to_string(pair.zk->sessions_expired()) +
                       "; B acquired at " + (*b_at < 0 ? std::string("never") : fmt_ms(*b_at)));
  if (*b_at < 0) j.extra.push_back(expectation_failed("B never took the lock"));
  return judge(runner, expected, kLivenessBound, std::move(j));
}

}  // namespace

void add_zookeeper_scenarios(std::vector<Scenario>& c) {
  auto add = [&c](std::string name, Verdict expected, std::string description, std::string source,
                  std::string fault, std::function<ScenarioResult(uint64_t)> fn) {
    Scenario s{std::move(name),
               LockKind::kSimple,  // no LockKind: lock_name says which
               expected,          std::move(description), std::move(source), std::move(fn), {},
               std::move(fault)};
    s.lock_name = "zk-mutex";
    c.push_back(std::move(s));
  };
  const std::string curator =
      "Curator InterProcessMutex/LockInternals.internalLockLoop; ZooKeeper Programmer's Guide "
      "(sessions, ephemeral nodes)";
  add("zk-pause-past-session", Verdict::kMutualExclusion,
      "InterProcessMutex: the holder is paused past its session timeout; the node expires the "
      "session and deletes its znode, the next waiter takes the lock, the holder resumes "
      "believing it holds it (two holders, as with a Redis lease)",
      curator + "; Kleppmann 2016 (\"How to do distributed locking\")",
      "a 2 s pause of client A (session timeout 1 s)",
      [](uint64_t seed) { return run_zk_pause(Verdict::kMutualExclusion, seed); });
  add("zk-pause-past-session-fenced", Verdict::kSafe,
      "the same pause with the znode's sequence number as fencing token: the storage rejects "
      "the stale holder's write",
      curator + "; Kleppmann 2016 (fencing tokens)",
      "a 2 s pause of client A (session timeout 1 s)",
      [](uint64_t seed) { return run_zk_pause_fenced(Verdict::kSafe, seed); });
  add("zk-crashed-holder", Verdict::kSafe,
      "the holder's process crashes inside its section; its znode stays until the node expires "
      "the silent session, then the waiter takes the lock (within the session timeout)",
      curator, "a crash of client A at t=100 ms",
      [](uint64_t seed) { return run_zk_crash(Verdict::kSafe, seed); });
  add("zk-create-lost", Verdict::kLiveness,
      "InterProcessMutex without protected mode: the create's answer is lost, the retry makes a "
      "second znode; the first is an orphan of the live session that nobody deletes, so the "
      "lock is stuck (held by nobody) until that session ends",
      "Curator CreateBuilderImpl.withProtection (why protected mode exists), "
      "StandardLockInternalsDriver.createsTheLock",
      "a connection reset after A's create ran (t=10 ms)",
      [](uint64_t seed) { return run_zk_create_lost(false, Verdict::kLiveness, seed); });
  add("zk-create-lost-protected", Verdict::kSafe,
      "the same lost create with protected mode: the retry finds its own znode by its GUID "
      "prefix and the lock works",
      "Curator CreateBuilderImpl.findProtectedNodeInForeground, ProtectedUtils",
      "a connection reset after A's create ran (t=10 ms)",
      [](uint64_t seed) { return run_zk_create_lost(true, Verdict::kSafe, seed); });
  add("zk-herd-free", Verdict::kSafe,
      "five clients queue on InterProcessMutex; each release wakes only its successor (one "
      "watch wake-up per waiter) and they hold it in sequence order",
      curator + "; ZooKeeper recipes, \"Locks\" (avoiding the herd effect)",
      "the simulated ZooKeeper node (no real-ZooKeeper runner for scenarios)",
      [](uint64_t seed) { return run_zk_herd(false, Verdict::kSafe, seed); });
  add("zk-herd", Verdict::kExpectation,
      "the herd recipe for contrast (a child watch on the lock's parent): every change wakes "
      "every waiter",
      "ZooKeeper recipes, \"Locks\" (the herd effect it avoids)",
      "the simulated ZooKeeper node (no real-ZooKeeper runner for scenarios)",
      [](uint64_t seed) { return run_zk_herd(true, Verdict::kExpectation, seed); });
  add("zk-partitioned-holder", Verdict::kMutualExclusion,
      "the holder is partitioned from the node past its session timeout and ignores its "
      "connection state: its session expires, the next waiter takes the lock beside it",
      curator + "; Curator tech note on ConnectionStateListener (SUSPENDED/LOST)",
      "a partition of client A from the node, t=100 ms to 2.5 s",
      [](uint64_t seed) { return run_zk_partition(false, Verdict::kMutualExclusion, seed); });
  add("zk-partitioned-holder-listener", Verdict::kSafe,
      "the same partition; the holder stops on SUSPENDED (no answer for 2/3 of the session "
      "timeout), before the node expires its session",
      "Curator ConnectionStateListener docs (treat SUSPENDED as lost); ZooKeeper ClientCnxn "
      "read timeout",
      "a partition of client A from the node, t=100 ms to 2.5 s",
      [](uint64_t seed) { return run_zk_partition(true, Verdict::kSafe, seed); });
}

}  // namespace redsim::world::scenarios_detail

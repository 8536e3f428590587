// Properties of the lock family (issue 5, §2), each for its own safety claim,
// explored in the deterministic world. A failure prints the drawn parameters
// and RapidCheck's reproduce string; the world seed is among the parameters.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/fenced_lock.h"
#include "lock/multi_lock.h"
#include "lock/read_write_lock.h"
#include "lock/redlock.h"
#include "lock/semaphore.h"
#include "props/world_gen.h"
#include "sim/world/checkers.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/world.h"

namespace redsim::props {
namespace {

using std::chrono::milliseconds;
using world::Micros;

// Latency up to 2 ms, pauses of up to 50 ms (far below the 1000 ms budget of
// the watchdog the clients use) and crashes.
const FaultRanges kBelowTheWatchdogWithCrashes{.latency_us_max = 2000,
                                               .pause_ppm_max = 200000,
                                               .pause_us_max = 50000,
                                               .crash_ppm_max = 20000,
                                               .time_limit_us = int64_t{120} * 1000 * 1000};

// Clients take a FencedLock, work, write their token to one FencedResource,
// and unlock, while random pauses of up to three leases stop them anywhere
// (the watchdog too, when the lease is the watchdog's): holders outlive
// their lease often. The resource must never accept a stale token (nor a
// token twice, nor refuse a current one), and the run must write.
RC_GTEST_PROP(FencedLock, NeverAcceptsAStaleToken, ()) {
  const int clients = *rc::gen::inRange(2, 6);
  const int64_t lease_ms = *rc::gen::inRange(20, 201);
  const bool watchdog = *rc::gen::arbitrary<bool>();
  const int attempts = *rc::gen::inRange(1, 5);
  world::WorldOptions options = gen_world_options({.latency_us_max = 3000,
                                                   .pause_ppm_max = 300000,
                                                   .pause_us_max = lease_ms * 3000,
                                                   .time_limit_us = int64_t{120} * 1000 * 1000});
  std::ostringstream drawn;
  drawn << "seed " << options.seed << ", " << clients << " clients x " << attempts
        << " attempts, lease " << lease_ms << " ms" << (watchdog ? " (watchdog)" : "")
        << ", latency <= " << options.faults.latency_max.count() << " us, pause "
        << options.faults.pause_ppm << " ppm up to " << lease_ms * 3 << " ms";
  RC_LOG() << drawn.str() << "\n";

  world::World w(options);
  world::FencedResource storage("storage");
  int writes = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::ReentrantLockOptions o;
      o.lock_watchdog_timeout = milliseconds(lease_ms);
      o.default_lease = watchdog ? lock::kWatchdog : lock::Lease(milliseconds(lease_ms));
      lock::FencedLock lock(env, "k", o);
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 20000));
        const auto token =
            lock.try_lock_and_get_token(milliseconds(lease_ms * 10), o.default_lease);
        if (!token) continue;
        env.sleep_for(Micros(env.random_u64() % static_cast<uint64_t>(lease_ms * 1000)));
        storage.write(env, *token);
        ++writes;
        lock.unlock();
      }
    });
  }
  w.run();
  const auto v = world::check_fencing(w.history());
  if (!v.empty()) RC_FAIL(drawn.str() + "\n" + world::format_violations(v));
  RC_ASSERT(writes > 0);
  int rejected = 0;
  for (const auto& e : w.history().events()) {
    rejected +=
        e.kind == world::EventKind::kFencedWrite && e.verdict == world::FenceVerdict::kRejected;
  }
  RC_CLASSIFY(rejected > 0, "a stale write came and was rejected");
}

// Read/write exclusion from the kEnterCritical / kLeaveCritical events of
// resources "read" and "write": at a write enter no other owner may be inside
// either; at a read enter no other owner may be writing. A crash or end of a
// process ends its owners' sections. Returns the first problem, or "".
std::string read_write_problem(const world::History& h) {
  using Owner = std::pair<world::ProcessId, world::TaskId>;
  std::map<Owner, std::pair<int, int>> depth;  // owner -> (read, write) sections open
  for (size_t i = 0; i < h.size(); ++i) {
    const world::HistoryEvent& e = h[i];
    if (e.kind == world::EventKind::kProcessCrash || e.kind == world::EventKind::kProcessEnd) {
      std::erase_if(depth, [&](const auto& kv) { return kv.first.first == e.process; });
      continue;
    }
    const bool enter = e.kind == world::EventKind::kEnterCritical;
    if (!enter && e.kind != world::EventKind::kLeaveCritical) continue;
    const Owner me{e.process, e.task};
    const bool write = e.resource == "write";
    if (enter) {
      for (const auto& [other, d] : depth) {
        if (other == me) continue;
        if (d.second > 0 || (write && d.first > 0)) {
          return "t=" + world::format_time_ms(e.t_us) + ": c" + std::to_string(me.first) + "/" +
                 std::to_string(me.second) + " enters " + e.resource + " while c" +
                 std::to_string(other.first) + "/" + std::to_string(other.second) + " holds " +
                 (d.second > 0 ? "write" : "read") + "\n" + world::render_timeline(h);
        }
      }
    }
    int& d = write ? depth[me].second : depth[me].first;
    d += enter ? 1 : -1;
  }
  return "";
}

// Clients take the read or the write half of one ReadWriteLock at random (a
// writer sometimes also reads, a reader sometimes tries to upgrade, which
// must fail), with latency, pauses below the watchdog's budget and crashes:
// never a writer together with any other holder.
RC_GTEST_PROP(ReadWriteLock, NeverAWriterWithAnyOtherHolder, ()) {
  const int clients = *rc::gen::inRange(2, 7);
  const int attempts = *rc::gen::inRange(1, 6);
  world::WorldOptions options = gen_world_options(kBelowTheWatchdogWithCrashes);
  RC_LOG() << "seed " << options.seed << ", " << clients << " clients x " << attempts
           << " attempts\n";
  world::World w(options);
  int writes = 0;
  int reads = 0;
  int upgrades_granted = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::ReentrantLockOptions o;
      o.lock_watchdog_timeout = milliseconds(1000);
      lock::ReadWriteLock rw(env, "k", o);
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 20000));
        const uint64_t choice = env.random_u64() % 4;
        const Micros work(env.random_u64() % 30000);
        if (choice == 0) {  // write, and also read inside
          if (!rw.write_lock().try_lock_for(milliseconds(3000))) continue;
          env.enter_critical("write");
          ++writes;
          env.sleep_for(work);
          if (rw.read_lock().try_lock()) {
            env.enter_critical("read");
            env.sleep_for(work);
            env.leave_critical("read");
            rw.read_lock().unlock();
          }
          env.leave_critical("write");
          rw.write_lock().unlock();
        } else if (choice == 1) {  // write
          if (!rw.write_lock().try_lock_for(milliseconds(3000))) continue;
          env.enter_critical("write");
          ++writes;
          env.sleep_for(work);
          env.leave_critical("write");
          rw.write_lock().unlock();
        } else {  // read, sometimes trying to upgrade
          if (!rw.read_lock().try_lock_for(milliseconds(3000))) continue;
          env.enter_critical("read");
          ++reads;
          env.sleep_for(work);
          if (choice == 3 && rw.write_lock().try_lock()) {
            ++upgrades_granted;
            rw.write_lock().unlock();
          }
          env.leave_critical("read");
          rw.read_lock().unlock();
        }
      }
    });
  }
  w.run();
  const std::string problem = read_write_problem(w.history());
  if (!problem.empty()) RC_FAIL(problem);
  RC_ASSERT(upgrades_granted == 0);
  RC_ASSERT(writes + reads > 0);
}

// Clients take 1..2 permits of an N-permit Semaphore, work and release
// them, with latency, pauses and (sometimes) crashes. The permits held never
// exceed N, no client ever reads a negative count, and without crashes the
// count returns to exactly N (no permit lost or made up).
RC_GTEST_PROP(Semaphore, PermitsNeverNegativeNorDuplicated, ()) {
  const int64_t permits = *rc::gen::inRange(1, 5);
  const int clients = *rc::gen::inRange(2, 7);
  const int attempts = *rc::gen::inRange(1, 5);
  const bool crashes = *rc::gen::arbitrary<bool>();
  world::WorldOptions options = gen_world_options({.latency_us_max = 3000,
                                                   .pause_ppm_max = 300000,
                                                   .pause_us_max = 100000,
                                                   .crash_ppm_max = crashes ? 30000 : 0,
                                                   .time_limit_us = int64_t{120} * 1000 * 1000});
  RC_LOG() << "seed " << options.seed << ", " << permits << " permits, " << clients << " clients x "
           << attempts << " attempts, crash " << options.faults.crash_ppm << " ppm\n";
  world::World w(options);
  int64_t held = 0;  // permits the clients believe they hold, in true time order
  int64_t most_held = 0;
  int64_t lowest_seen = permits;
  int taken = 0;
  w.spawn_process(
      "init", [&](world::ProcessEnv& env) { lock::Semaphore(env, "s").try_set_permits(permits); });
  for (int c = 0; c < clients; ++c) {
    w.spawn_process(
        "client" + std::to_string(c + 1),
        [&](world::ProcessEnv& env) {
          lock::Semaphore sem(env, "s", {.recheck_interval = Micros(50000)});
          for (int a = 0; a < attempts; ++a) {
            env.sleep_for(Micros(env.random_u64() % 20000));
            const int64_t want =
                1 + static_cast<int64_t>(env.random_u64() % std::min<uint64_t>(2, permits));
            if (!sem.try_acquire_for(want, milliseconds(5000))) continue;
            held += want;
            ++taken;
            most_held = std::max(most_held, held);
            lowest_seen = std::min(lowest_seen, sem.available_permits());
            env.sleep_for(Micros(env.random_u64() % 30000));
            held -= want;
            sem.release(want);
          }
        },
        Micros(1000));
  }
  w.run();
  RC_ASSERT(most_held <= permits);
  RC_CLASSIFY(most_held == permits, "every permit held at once");
  RC_ASSERT(lowest_seen >= 0);
  RC_ASSERT(taken > 0 || crashes);
  if (!crashes) {
    const resp::Reply left = w.server().execute(*w.server().connect(), {"GET", "s"});
    RC_ASSERT(left == resp::Reply::bulk(std::to_string(permits)));
  }
}

// Clients take MultiLocks over random subsets (in random orders) of four
// keys, each a ReentrantLock with the watchdog, with latency, pauses below
// the watchdog's budget and crashes. All or none: after a successful
// attempt the client holds every lock of its set, after a failed one none of
// them; and no key ever has two holders (each key is its own resource for
// check_mutual_exclusion).
RC_GTEST_PROP(MultiLock, AllOrNone, ()) {
  const int clients = *rc::gen::inRange(2, 6);
  const int attempts = *rc::gen::inRange(1, 5);
  world::WorldOptions options = gen_world_options(kBelowTheWatchdogWithCrashes);
  RC_LOG() << "seed " << options.seed << ", " << clients << " clients x " << attempts
           << " attempts\n";
  world::World w(options);
  std::vector<std::string> problems;
  int successes = 0;
  int failures = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::ReentrantLockOptions o;
      o.lock_watchdog_timeout = milliseconds(1000);
      std::vector<std::unique_ptr<lock::ReentrantLock>> keys;
      for (const char* k : {"a", "b", "c", "d"}) {
        keys.push_back(std::make_unique<lock::ReentrantLock>(env, k, o));
      }
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 20000));
        // A random subset of 2..4 keys in a random order.
        std::vector<lock::DistributedLock*> set;
        for (auto& k : keys) set.push_back(k.get());
        for (size_t i = set.size() - 1; i > 0; --i) {
          std::swap(set[i], set[env.random_u64() % (i + 1)]);
        }
        set.resize(2 + env.random_u64() % 3);
        lock::MultiLock multi(env, set);
        const bool ok = multi.try_lock_for(milliseconds(env.random_u64() % 400));
        for (lock::DistributedLock* l : set) {
          if (l->is_held_by_current_thread() != ok) {
            problems.push_back("c" + std::to_string(env.process_id()) + ": after " +
                               (ok ? "success" : "failure") + " " + l->key() + " is " +
                               (ok ? "not held" : "held"));
          }
        }
        if (!ok) {
          ++failures;
          continue;
        }
        ++successes;
        for (lock::DistributedLock* l : set) env.enter_critical(l->key());
        env.sleep_for(Micros(env.random_u64() % 30000));
        for (lock::DistributedLock* l : set) env.leave_critical(l->key());
        multi.unlock();
      }
    });
  }
  w.run();
  RC_ASSERT(problems.empty());
  const auto v = world::check_mutual_exclusion(w.history());
  if (!v.empty()) RC_FAIL(world::format_violations(v));
  RC_ASSERT(successes > 0 || options.faults.crash_ppm > world::Ppm());
  RC_CLASSIFY(failures > 0, "some attempt failed and gave its locks back");
}

// Redlock over 1, 3 or 5 servers, no faults but latency: clients contend,
// each works only while its validity lasts (on its own clock, which is true
// time here). Never two holders at once.
RC_GTEST_PROP(Redlock, NeverTwoHoldersWithoutFaults, ()) {
  const size_t servers = *rc::gen::element<size_t>(1, 3, 5);
  const int clients = *rc::gen::inRange(2, 6);
  const int attempts = *rc::gen::inRange(1, 5);
  const int64_t lease_ms = *rc::gen::inRange(30, 301);
  world::WorldOptions options =
      gen_world_options({.latency_us_max = 2000, .time_limit_us = int64_t{120} * 1000 * 1000});
  options.servers = servers;
  RC_LOG() << "seed " << options.seed << ", " << servers << " servers, " << clients << " clients x "
           << attempts << " attempts, lease " << lease_ms << " ms\n";
  world::World w(options);
  int taken = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::Redlock lock(env, "k",
                         {.lease = milliseconds(lease_ms),
                          .retry_delay_min = Micros(1000),
                          .retry_delay_max = Micros(20000)});
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 20000));
        if (!lock.try_lock_for(milliseconds(lease_ms * 4))) continue;
        ++taken;
        env.enter_critical("k");
        const Micros left = lock.validity_left();
        if (left.count() > 0) {
          env.sleep_for(Micros(env.random_u64() % static_cast<uint64_t>(left.count())));
        }
        env.leave_critical("k");
        lock.unlock();
      }
    });
  }
  w.run();
  const auto v = world::check_mutual_exclusion(w.history());
  if (!v.empty()) RC_FAIL(world::format_violations(v));
  RC_ASSERT(taken > 0);
}

}  // namespace
}  // namespace redsim::props

// Properties of the FairLock (Redisson's RFairLock) and of the
// PermitExpirableSemaphore (issue 5, §2), explored in the deterministic
// world. A failure prints the drawn parameters (the world seed among them)
// and RapidCheck's reproduce string.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/fair_lock.h"
#include "lock/permit_expirable_semaphore.h"
#include "lock/script.h"
#include "props/plan_gen.h"
#include "props/world_gen.h"
#include "sim/world/checkers.h"
#include "sim/world/explore/explore.h"
#include "sim/world/world.h"

namespace redsim::props {
namespace {

using std::chrono::milliseconds;
using world::Micros;

Micros ms(int64_t n) { return Micros(milliseconds(n)); }

// A holder takes the lock; 2-6 waiters then join the queue one after the
// other (their starts at least 5 ms apart, one-way latency at most 2 ms, so
// the server sees them in start order), and all of them are queued before the
// holder lets go. Some waiters are impatient (try_lock_for a drawn wait) and
// may give up. Nobody crashes or pauses, and every hold stays well inside the
// places Redisson keeps (the lease plus threadWaitTime): the waiters that get
// the lock get it in the order they queued, and every patient one gets it.
RC_GTEST_PROP(FairLock, FifoAmongLiveWaiters, ()) {
  const int waiters = *rc::gen::inRange(2, 7);
  const bool watchdog = *rc::gen::arbitrary<bool>();
  world::WorldOptions options =
      gen_world_options({.latency_us_max = 2000, .time_limit_us = int64_t{60} * 1000 * 1000});
  std::vector<int64_t> start_ms;
  std::vector<int64_t> work_ms;
  std::vector<int64_t> patience_ms;  // < 0: lock(), patient
  int64_t t = 0;
  for (int i = 0; i < waiters; ++i) {
    t += *rc::gen::inRange(5, 31);
    start_ms.push_back(t);
    work_ms.push_back(*rc::gen::inRange(0, 201));
    patience_ms.push_back(*rc::gen::weightedOneOf<int64_t>(
        {{3, rc::gen::just<int64_t>(-1)}, {1, rc::gen::inRange<int64_t>(0, 401)}}));
  }
  const int64_t holder_ms = t + *rc::gen::inRange(10, 101);
  std::ostringstream drawn;
  drawn << "seed " << options.seed << ", latency <= " << options.faults.latency_max.count()
        << " us, lease " << (watchdog ? "watchdog 1000 ms" : "1000 ms") << ", holder " << holder_ms
        << " ms; waiters (start, work, patience) ms:";
  for (int i = 0; i < waiters; ++i) {
    drawn << " (" << start_ms[i] << ", " << work_ms[i] << ", " << patience_ms[i] << ")";
  }
  RC_LOG() << drawn.str() << "\n";

  const lock::Lease lease = watchdog ? lock::kWatchdog : lock::Lease(milliseconds(1000));
  const lock::FairLockOptions fair{.lock_watchdog_timeout = milliseconds(1000)};
  world::World w(options);
  std::vector<int> order;
  std::vector<bool> got(static_cast<size_t>(waiters), false);
  w.spawn_process("holder", [&](world::ProcessEnv& env) {
    lock::FairLock lock(env, "k", fair);
    lock.lock(lease);
    env.sleep_for(ms(holder_ms));
    lock.unlock();
  });
  for (int i = 0; i < waiters; ++i) {
    w.spawn_process(
        "w" + std::to_string(i + 1),
        [&, i](world::ProcessEnv& env) {
          lock::FairLock lock(env, "k", fair);
          const int64_t patience = patience_ms[static_cast<size_t>(i)];
          if (patience < 0) {
            lock.lock(lease);
          } else if (!lock.try_lock_for(milliseconds(patience), lease)) {
            return;
          }
          order.push_back(i);
          got[static_cast<size_t>(i)] = true;
          env.sleep_for(ms(work_ms[static_cast<size_t>(i)]));
          lock.unlock();
        },
        ms(start_ms[static_cast<size_t>(i)]));
  }
  w.run();
  std::ostringstream seen;
  for (int i : order) seen << " w" << i + 1;
  RC_LOG() << "acquired in order:" << seen.str() << "\n";
  RC_ASSERT(std::is_sorted(order.begin(), order.end()));
  for (int i = 0; i < waiters; ++i) {
    if (patience_ms[static_cast<size_t>(i)] < 0) RC_ASSERT(got[static_cast<size_t>(i)]);
  }
  RC_CLASSIFY(static_cast<int>(order.size()) < waiters, "an impatient waiter gave up");
  const resp::Reply left =
      w.server().execute(*w.server().connect(),
                         {"EXISTS", "k", "redisson_lock_queue:{k}", "redisson_lock_timeout:{k}"});
  RC_ASSERT(left == resp::Reply::integer(0));
}

// Clients contend for one FairLock with latency, crashes and random pauses
// below the lease (75 ms at a time; lease 1000 ms, explicit or the
// watchdog's, which renews every 333 ms): never two holders at once.
RC_GTEST_PROP(FairLock, NeverTwoHoldersUnderPausesBelowTheLease, ()) {
  const int clients = *rc::gen::inRange(2, 7);
  const int attempts = *rc::gen::inRange(1, 5);
  const bool watchdog = *rc::gen::arbitrary<bool>();
  const int64_t thread_wait_ms = *rc::gen::element<int64_t>(200, 1000, 5000);
  world::WorldOptions options = gen_world_options({.latency_us_max = 3000,
                                                   .pause_ppm_max = 300000,
                                                   .pause_us_max = 75000,
                                                   .crash_ppm_max = 20000,
                                                   .time_limit_us = int64_t{300} * 1000 * 1000});
  RC_LOG() << "seed " << options.seed << ", " << clients << " clients x " << attempts
           << " attempts, lease " << (watchdog ? "watchdog " : "") << "1000 ms, threadWaitTime "
           << thread_wait_ms << " ms, latency <= " << options.faults.latency_max.count()
           << " us, pause " << options.faults.pause_ppm << " ppm, crash "
           << options.faults.crash_ppm << " ppm\n";
  const lock::Lease lease = watchdog ? lock::kWatchdog : lock::Lease(milliseconds(1000));
  const lock::FairLockOptions fair{.lock_watchdog_timeout = milliseconds(1000),
                                   .thread_wait = milliseconds(thread_wait_ms)};
  world::World w(options);
  int taken = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::FairLock lock(env, "k", fair);
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 30000));
        if (env.random_u64() % 3 == 0) {
          lock.lock(lease);
        } else if (!lock.try_lock_for(Micros(env.random_u64() % 3000000), lease)) {
          continue;
        }
        ++taken;
        env.enter_critical("k");
        if (env.random_u64() % 4 == 0) {  // re-enter once
          lock.lock(lease);
          lock.unlock();
        }
        env.sleep_for(Micros(env.random_u64() % 300000));
        env.leave_critical("k");
        lock.unlock();
      }
    });
  }
  w.run();
  const auto v = world::check_mutual_exclusion(w.history());
  if (!v.empty()) RC_FAIL(world::format_violations(v));
  RC_ASSERT(taken > 0 || options.faults.crash_ppm > world::Ppm());
}

// The exploration `redsim check --lock fair` runs: random plans (clients,
// nested holds, work, latency, pauses below the lease, crashes) never break
// mutual exclusion nor the hold counts.
RC_GTEST_PROP(FairLock, ExploredPlansKeepMutualExclusionAndHoldCounts, ()) {
  const world::ExplorePlan plan = *gen_plan(lock::LockKind::kFair);
  for (const auto& v : world::run_plan(plan).violations) {
    if (v.checker == "mutual-exclusion" || v.checker == "hold-count") {
      RC_FAIL(world::describe_plan(plan) + world::format_violations({v}));
    }
  }
}

// Clients take permits of an N-permit PermitExpirableSemaphore with a lease,
// work (sometimes past the lease: pauses up to three leases), and release
// them; some crash holding one. Every 3 ms an observer reads the server: the
// count is never negative and count + permits in the timeout set is exactly
// N (a permit is neither duplicated nor lost, and an expired permit comes
// back exactly once: moved from the set to the count). Ids are never handed
// out twice, a release after the lease ran out is refused, and once
// everything is over and every lease has passed, all N permits are available.
RC_GTEST_PROP(PermitExpirableSemaphore, PermitsNeverNegativeNorDuplicatedAndExpireOnce, ()) {
  const int64_t permits = *rc::gen::inRange(1, 5);
  const int clients = *rc::gen::inRange(2, 7);
  const int attempts = *rc::gen::inRange(1, 5);
  const int64_t lease_ms = *rc::gen::inRange(20, 201);
  world::WorldOptions options = gen_world_options({.latency_us_max = 3000,
                                                   .pause_ppm_max = 300000,
                                                   .pause_us_max = lease_ms * 3000,
                                                   .crash_ppm_max = 30000,
                                                   .time_limit_us = int64_t{60} * 1000 * 1000});
  RC_LOG() << "seed " << options.seed << ", " << permits << " permits, " << clients << " clients x "
           << attempts << " attempts, lease " << lease_ms
           << " ms, latency <= " << options.faults.latency_max.count() << " us, pause "
           << options.faults.pause_ppm << " ppm up to " << lease_ms * 3 << " ms, crash "
           << options.faults.crash_ppm << " ppm\n";

  world::World w(options);
  std::set<std::string> ids;
  int duplicate_ids = 0;
  int taken = 0;
  int late_refused = 0;
  int late_accepted = 0;
  int on_time_refused = 0;
  // The permits are set before anyone starts (try_set_permits is a SETNX of
  // the count), from the scheduler, so no crash can lose them.
  w.at(Micros(0), [&] {
    w.server().execute(*w.server().connect(), {"SET", "s", std::to_string(permits)});
  });
  // The clients are done well before the final count at 31 s: at most
  // 4 attempts x (20 ms + wait 2 s + a pause + work and pauses of a few
  // leases), under 16 s.
  for (int c = 0; c < clients; ++c) {
    w.spawn_process(
        "client" + std::to_string(c + 1),
        [&](world::ProcessEnv& env) {
          lock::PermitExpirableSemaphore sem(env, "s", {.recheck_interval = Micros(50000)});
          for (int a = 0; a < attempts; ++a) {
            env.sleep_for(Micros(env.random_u64() % 20000));
            const auto id = sem.try_acquire_for(ms(2000), milliseconds(lease_ms));
            if (!id) continue;
            ++taken;
            duplicate_ids += !ids.insert(*id).second;
            // The lease runs on the caller's clock from the reading sent
            // with the acquire (Redisson: System.currentTimeMillis()), which
            // a pause during that call puts before the reply: read the
            // permit's expiry itself. Without drift the process clock is
            // true time.
            const resp::Reply score = env.connection().call({"ZSCORE", "{s}:timeout", *id});
            env.sleep_for(Micros(env.random_u64() % static_cast<uint64_t>(lease_ms * 1000)));
            auto now_ms = [&env] {
              return std::chrono::floor<milliseconds>(env.now().time_since_epoch()).count();
            };
            // Reclaimed already (paused past the lease): certainly late.
            const int64_t expiry_ms = score.is_bulk() ? std::stoll(score.str()) : 0;
            const bool late = now_ms() >= expiry_ms;
            const bool released = sem.try_release(*id);
            if (late) {
              (released ? late_accepted : late_refused) += 1;
            } else if (!released && now_ms() < expiry_ms) {
              ++on_time_refused;  // its release read a clock still inside the lease
            }
          }
        },
        ms(10));
  }
  std::vector<std::string> problems;
  int64_t observations = 0;
  for (int64_t t_us = 0; t_us <= 30 * 1000 * 1000; t_us += 3000) {
    w.at(Micros(t_us), [&] {
      if (!w.node_up(0)) return;
      sim::Server& server = w.server();
      auto session = server.connect();
      const resp::Reply count = server.execute(*session, {"GET", "s"});
      if (count.is_nil()) return;  // before the init
      const resp::Reply held = server.execute(*session, {"ZCARD", "{s}:timeout"});
      ++observations;
      const int64_t available = std::stoll(count.str());
      if (available < 0 || available + held.integer() != permits) {
        problems.push_back("t=" + world::format_time_ms(w.now().count()) + ": " +
                           std::to_string(available) + " available + " +
                           std::to_string(held.integer()) +
                           " in the timeout set != " + std::to_string(permits));
      }
    });
  }
  // At 31 s every lease has passed: the availability script moves what
  // expired back to the count, exactly once, so the count is N again. It
  // is given the time as a client without drift reads it (the scripts take
  // the caller's clock, as Redisson passes System.currentTimeMillis()).
  resp::Reply final_available;
  w.at(ms(31000), [&] {
    const lock::Script& available = lock::Script::get("pe_semaphore_available");
    final_available = w.server().execute(
        *w.server().connect(),
        {"EVAL", available.text(), "3", "s", "{s}:timeout", "redisson_sc:{s}", "31000"});
  });
  w.run();
  if (!problems.empty()) RC_FAIL(problems.front());
  RC_ASSERT(observations > 0);
  RC_ASSERT(duplicate_ids == 0);
  RC_ASSERT(late_accepted == 0);
  RC_ASSERT(on_time_refused == 0);
  RC_ASSERT(final_available == resp::Reply::integer(permits));
  RC_ASSERT(taken > 0 || options.faults.crash_ppm > world::Ppm());
  RC_CLASSIFY(late_refused > 0, "a release after the lease was refused");
}

}  // namespace
}  // namespace redsim::props

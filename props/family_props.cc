// Properties of the lock family (issue 5, §2), each for its own safety claim,
// explored in the deterministic world. A failure prints the drawn parameters
// and RapidCheck's reproduce string; the world seed is among the parameters.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "lock/fenced_lock.h"
#include "sim/world/checkers.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/world.h"

namespace redsim::props {
namespace {

using std::chrono::milliseconds;
using world::Micros;

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
  world::WorldOptions options;
  options.seed = *rc::gen::arbitrary<uint32_t>();
  options.faults.latency_max_us = *rc::gen::inRange(0, 3001);
  options.faults.pause_ppm = static_cast<uint32_t>(*rc::gen::inRange(0, 300001));
  options.faults.pause_min_us = 1000;
  options.faults.pause_max_us = lease_ms * 3000;
  options.time_limit_us = int64_t{120} * 1000 * 1000;
  std::ostringstream drawn;
  drawn << "seed " << options.seed << ", " << clients << " clients x " << attempts
        << " attempts, lease " << lease_ms << " ms" << (watchdog ? " (watchdog)" : "")
        << ", latency <= " << options.faults.latency_max_us << " us, pause "
        << options.faults.pause_ppm << " ppm up to " << lease_ms * 3 << " ms";
  RC_LOG() << drawn.str() << "\n";

  world::World w(options);
  world::FencedResource storage("storage");
  int writes = 0;
  for (int c = 0; c < clients; ++c) {
    w.spawn_process("client" + std::to_string(c + 1), [&](world::ProcessEnv& env) {
      lock::ReentrantLockOptions o;
      o.lock_watchdog_timeout = milliseconds(lease_ms);
      o.default_lease = watchdog ? milliseconds(0) : milliseconds(lease_ms);
      lock::FencedLock lock(env, "k", o);
      for (int a = 0; a < attempts; ++a) {
        env.sleep_for(Micros(env.random_u64() % 20000));
        const auto token =
            lock.try_lock_and_get_token(milliseconds(lease_ms * 10), o.default_lease);
        if (!token) continue;
        env.sleep_for(Micros(env.random_u64() % static_cast<uint64_t>(lease_ms * 1000)));
        storage.write(env, *token);
        ++writes;
        lock.try_unlock();
      }
    });
  }
  w.run();
  const auto v = world::check_fencing(w.history());
  if (!v.empty()) RC_FAIL(drawn.str() + "\n" + world::format_violations(v));
  RC_ASSERT(writes > 0);
  int rejected = 0;
  for (const auto& e : w.history().events()) {
    rejected += e.kind == world::EventKind::kFencedWrite && e.text == "rejected";
  }
  RC_CLASSIFY(rejected > 0, "a stale write came and was rejected");
}

}  // namespace
}  // namespace redsim::props

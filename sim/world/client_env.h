// ClientEnv: a lock::Env plus what a workload tells the history about itself
// (critical sections, acquire attempts, hold counts, results). Scenario
// workloads are written against it, so one workload runs in the simulation
// (world::ProcessEnv, events at true virtual time) and against a real Redis
// (cli::RealTimeRunner's env, events at steady-clock time).
//
//   void client(world::ClientEnv& env) {
//     lock::SimpleLock lock(env, "k");
//     env.record_acquire_start("k", std::chrono::seconds(1));
//     const bool ok = lock.try_lock_for(std::chrono::seconds(1));
//     env.record_acquire_end("k", ok);
//     if (!ok) return;
//     env.enter_critical("k"); ...; env.leave_critical("k");
//     lock.unlock();
//   }
//
// Every call records one event with the calling task as owner; checkers.h
// says how the checkers read them.
#pragma once

#include <cstdint>
#include <string_view>

#include "lock/env.h"
#include "sim/world/history.h"

namespace redsim::world {

class ClientEnv : public lock::Env {
 public:
  // The critical section of `resource` begins (acquire returned success)...
  virtual void enter_critical(std::string_view resource) = 0;
  // ...and ends (just before the unlock call).
  virtual void leave_critical(std::string_view resource) = 0;
  // A wait for `resource` begins, willing to wait `wait` (Micros::max() =
  // unbounded), and ends acquired or given up. Read by check_liveness.
  virtual void record_acquire_start(std::string_view resource, lock::Micros wait) = 0;
  virtual void record_acquire_end(std::string_view resource, bool acquired) = 0;
  // Reentrant workloads: the hold count observed right after `op`. Read by
  // check_hold_counts.
  virtual void record_hold(std::string_view resource, HoldOp op, int64_t observed_count) = 0;
  // Any other result ("acquire failed", "unlock error LockNotOwned").
  virtual void record(std::string_view result) = 0;
};

}  // namespace redsim::world

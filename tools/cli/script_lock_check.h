// Exploring a script lock (lock::ScriptLock from a manifest,
// tools/cli/script_lock_manifest.h) as `redsim check --lock KIND` explores a
// built-in kind: plans from world::generate_plan, run through the public
// harness (harness::lock_factory + harness::run_plan), so a user's lock is
// judged exactly as a C++ user's lock under sim/world/testing would be.
//
//   ScriptLockManifest m = load_script_lock_manifest("examples/script-locks/correct");
//   world::ExplorePlan plan = script_lock_plan(m, /*seed=*/7, 0, std::nullopt);
//   world::ExploreOutcome out = run_script_lock_plan(m, plan);
#pragma once

#include <cstdint>
#include <optional>

#include "sim/world/explore/explore.h"
#include "tools/cli/script_lock_manifest.h"

namespace redsim::cli {

// The plan generate_plan draws for a string kind (its 100 ms lease budget:
// latency + work + one pause < lease), with every lease-relative time (think,
// work, pauses, partitions, restarts, server downtime, clock jumps, the
// long-tail latency cap) scaled to the manifest's lease_ms; latency itself
// is scaled only down (a 10 ms network stays 10 ms under a 30 s lease). The
// plan's lease_ms, wait_ms (wait.timeout_ms) and retry_backoff_max_us (the
// poll interval, or the lease for pub/sub) are the manifest's, so
// world::liveness_bound_us(plan) fits the lock.
world::ExplorePlan script_lock_plan(const ScriptLockManifest& manifest, uint64_t seed, int clients,
                                    std::optional<world::FaultSet> faults);

// Runs `plan` with one ScriptLock per client process on world::kExploreKey,
// through harness::run_plan: mutual exclusion, liveness within
// world::liveness_bound_us(plan), exceptions escaping a client, as far as
// plan.checks asks for them (under explicit faults, as for a built-in kind,
// liveness is not judged: a lost reply's acquisition legitimately holds the
// key for a lease with nobody inside). A client's
// try_lock_for that fails with a transport error (ConnectionError: loss, a
// lost reply past command_timeout_ms, a partition) counts as "not acquired"
// and is traced; a script's error reply escapes and is reported
// (task-error): a script that fails is a bug in the lock. Deterministic.
world::ExploreOutcome run_script_lock_plan(const ScriptLockManifest& manifest,
                                           const world::ExplorePlan& plan);

}  // namespace redsim::cli

// Exploration of the ZooKeeper kinds: Curator's InterProcessMutex
// (lock/zk_mutex.h) on the simulated coordination node (sim/world/zk_world.h),
// with the plans, shrinking and checkers of the Redis kinds (explore.h), so
// `redsim check --lock zk-mutex` runs the same machinery as `--lock simple`.
//
//   world::ExplorePlan plan = world::generate_zk_plan(world::ZkLockKind::kMutex, 42);
//   world::ExploreOutcome out = world::run_plan(plan);  // run_plan dispatches on plan.zk
//
// A plan's clients each open a session (timeout: plan.lease_ms, 1000 ms) and
// make their attempts on one InterProcessMutex of kZkExplorePath: acquire(wait)
// (plan.wait_ms, 6000 ms), the work inside the section, release. A client
// whose acquire or release fails (ConnectionLoss after Curator's retries,
// SessionExpired) records the error and stops; its process ends, which closes
// its session (its znodes go: what Curator's LockInternals.deleteOurPath,
// a delete().guaranteed() retried in the background, achieves for a failed
// release). The fenced kind writes its token, the
// znode's sequence number, to a FencedResource at the end of its work.
//
// Faults (draw_faults with the session timeout as the lease; explore.h has
// the ranges):
// - without a FaultSet: the budgeted profile of pause, latency, loss,
//   lost-reply and crash. Pauses stay within FaultPlan's stall budget (a
//   fifth of the session timeout per timeout), one-way latency at most a
//   twentieth, at most one lost or reset request per process in two
//   session timeouts (ZkWorldOptions::network_fault_gap): a live client's
//   session never goes unheard for its timeout (a reset is seen one latency
//   later and the client reconnects at once), so a correct recipe must show
//   nothing. No partitions: here a partition stalls the connection until
//   the client's read timeout, which counts from the last message the
//   client heard (notifications too), so one lost ping can leave the node
//   without news of a live client for a whole timeout (TCP would retransmit
//   through a short partition). Judged: mutual exclusion, liveness, and
//   fencing for the fenced kind.
// - with a FaultSet (`--faults`): exactly those faults, unbounded (pauses up
//   to 3 session timeouts, partitions up to 2). Judged: mutual exclusion
//   (the unfenced kinds) or fencing (the fenced kind), and liveness unless
//   pause is on (a task stalled for seconds while it waits looks, to
//   check_liveness, like a waiter that runs): a pause past the session
//   timeout makes two holders, as with a Redis lease (Kleppmann 2016); the
//   token keeps the storage safe.
// Only pause, latency, loss, lost-reply, partition and crash reach the
// ZooKeeper world: zk_fault_problem names the others. The network faults
// are drawn per request (ZkWorldOptions): loss and lost-reply reset the
// connection (the client sees ConnectionLoss; with lost-reply and with
// loss_executed the request ran), a partition cuts the process from the node.
// Latency is uniform in [latency_min, latency_max] (the long tail is a Redis
// connection's), 0..1 ms when latency is not among the faults.
//
// Liveness bound (zk_liveness_bound_us): two session timeouts, plus one per
// session the node expired in the run, plus ten latencies and 100 ms. A
// holder or waiter ahead in the queue that crashed, stalled or was cut off
// frees its place when the node expires its session (at most a timeout after
// it was last heard), and such places chain (as FairLock's crashed waiters
// do: explore.cc); an orphan znode of the unprotected recipe blocks the lock
// until its owner's acquire gives up and the process ends (the 6 s wait).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/world/explore/explore.h"

namespace redsim::world {

inline constexpr std::array<ZkLockKind, 4> kZkLockKinds = {
    ZkLockKind::kMutex, ZkLockKind::kFenced, ZkLockKind::kUnprotected, ZkLockKind::kHerd};

// "zk-mutex", "zk-mutex-fenced", "zk-mutex-unprotected", "zk-mutex-herd".
std::string_view zk_lock_kind_name(ZkLockKind kind);
// The kind of a name above; nullopt for any other.
std::optional<ZkLockKind> parse_zk_lock_kind(std::string_view name);

// The parent znode every client of a plan locks.
inline constexpr const char* kZkExplorePath = "/locks/explore";

// A random plan for `kind` from `seed`: `clients` processes (0 = 2..8 drawn),
// 1..4 attempts each (think 0..200 ms, work 0..1200 ms: past the
// session timeout, which a live session outlasts), the faults above.
ExplorePlan generate_zk_plan(ZkLockKind kind, uint64_t seed, int clients = 0,
                             std::optional<FaultSet> faults = std::nullopt);

// Runs a plan with `zk` set (run_plan calls it). Deterministic.
ExploreOutcome run_zk_plan(const ExplorePlan& plan);

// The liveness bound of a run whose node expired `sessions_expired` sessions.
int64_t zk_liveness_bound_us(const ExplorePlan& plan, int64_t sessions_expired);

// The orphan znode in a history, as a readable sentence: a client whose
// create's answer was lost (the world's "the lost create made P" trace)
// later waits for P's name (the recipe's "X waits for P" trace): it queues
// behind its own znode. nullopt when there is none.
std::optional<std::string> find_orphan_wait(const History& history);

// Why `faults` cannot be explored for the ZooKeeper kinds ("restart, clock:
// not modelled for the ZooKeeper kinds ..."), or "" when they can.
std::string zk_fault_problem(const FaultSet& faults);

}  // namespace redsim::world

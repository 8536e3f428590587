// Exploration: random lock workloads run in the world and judged by the
// checkers. A plan is explicit data (clients, attempts, work, faults, seed),
// so a failing plan can be shrunk field by field to a small counterexample
// and replayed exactly from the seed it was generated from.
//
//   auto plan = world::generate_plan(lock::LockKind::kGetDel, /*seed=*/42);
//   world::ExploreOutcome out = world::run_plan(plan);
//   if (!out.violations.empty()) {
//     plan = world::shrink_plan(plan, [](const world::ExplorePlan& p) {
//       return !world::run_plan(p).violations.empty();
//     });
//   }
//
// The parameters generate_plan draws keep every live holder inside its
// lease (see the budget in explore.cc), so the safe kinds (simple,
// reentrant) must never show a violation, while the broken kinds fail in the ways the literature
// says: get-del and blind-del break mutual exclusion through a pause between the holder's check and
// its DEL (expire-then-delete), setnx-expire breaks liveness through a crash between SETNX and
// EXPIRE.
//
// With a FaultSet (`redsim check --faults pause,loss,...`) the plan switches
// on exactly those faults, with no budget: pauses run past the lease, clocks
// jump by up to a lease, servers lose their data. What each name turns on:
//   pause       random process pauses of 1 ms .. 3 leases (watchdog paused too)
//   latency     uniform or long-tailed one-way latency
//   loss        connection resets (before or after the command ran)
//   lost-reply  replies that never arrive (the command ran; the client times out)
//   partition   a client cut from the server for 1 ms .. 2 leases
//   crash       client process crashes; half of the crashed clients restart
//               with a new client id
//   restart     the server crashes and restarts (persistence drawn: none,
//               AOF everysec, AOF always)
//   failover    one replica with replication lag; random failovers promote it
//   clock       clock drift of processes and server, random jumps of either
//               by up to a lease
// Under explicit faults Redlock runs on 5 independent servers (quorum 3).
// Under explicit faults a client whose call fails with a ConnectionError
// stops (its process ends, which ends its sections and holds); liveness is
// not judged (a lost reply's acquisition legitimately holds the lock for a
// lease with nobody inside), and for the fenced kind only the storage's
// token order is (check_fencing): overlapping sections are what a pause past
// the lease does, the fencing token is what keeps them harmless.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "sim/world/checkers.h"
#include "sim/world/explore/exhaustive.h"
#include "sim/world/pct.h"
#include "sim/world/world.h"

namespace redsim::world {

// One lock attempt of one client.
struct Attempt {
  int64_t think_us = 0;  // sleep before trying
  int64_t work_us = 0;   // time inside the critical section
  int nested = 0;        // reentrant only: extra nested lock()/unlock() pairs inside it
};

// One client process: its random stream (see World::spawn_process; stable
// when other clients are removed) and its attempts in order.
struct ClientPlan {
  uint64_t stream = 0;
  std::vector<Attempt> attempts;
  // Tasks (threads) of the process that each run `attempts` (the public
  // harness's user locks; redsim's own kinds run one).
  int tasks = 1;
};

// The faults an exploration switches on (see above for what each does).
struct FaultSet {
  bool pause = false;
  bool latency = false;
  bool loss = false;
  bool lost_reply = false;
  bool partition = false;
  bool crash = false;
  bool restart = false;
  bool failover = false;
  bool clock = false;
  bool operator==(const FaultSet&) const = default;
};

// The names, in the canonical order fault_set_name prints them.
inline constexpr std::array<std::string_view, 9> kFaultNames = {
    "pause", "latency", "loss", "lost-reply", "partition", "crash", "restart", "failover", "clock"};
// "pause,loss" -> FaultSet. Throws std::invalid_argument naming an unknown
// or empty entry ("unknown fault 'x'; one of pause, latency, ...").
FaultSet parse_fault_set(std::string_view list);
// The canonical comma list ("pause,lost-reply"); "" when none.
std::string fault_set_name(const FaultSet& faults);

// How far the faults of a FaultSet go (draw_faults).
enum class FaultMode : uint8_t {
  // `redsim check --faults`: pauses up to 3 leases, partitions up to 2,
  // clock jumps up to a lease, servers that restart without their data,
  // failovers that lose writes. Only a fenced lock stays safe under all of it.
  kUnbounded,
  // Every live holder stays inside its lease, so a correct lock is never
  // flagged: one-way latency <= lease/20; pauses, partitions, delays and lost
  // replies (each counted for the time it holds the process up, a lost
  // reply for the lease/10 command timeout) add up to at most lease/5 in any
  // window of one lease per process (FaultPlan's stall budget); servers
  // restart with appendfsync always and are down at most lease/5; clocks
  // drift at most 1000 ppm and never jump; no failover (asynchronous
  // replication loses acknowledged writes whatever the lag). A workload
  // that spends at most 0.4 lease inside its section, plus a few round
  // trips, then never outlives its lease.
  kBudgeted,
};

// Which checkers run_plan applies (bits; the ones that fit the kind).
enum ExploreCheck : uint32_t {
  kCheckMutualExclusion = 1,
  kCheckLiveness = 2,
  kCheckHoldCounts = 4,      // reentrant kinds
  kCheckFencing = 8,         // the fenced kind
  kCheckForeignWrites = 16,  // check_foreign_writes
  kCheckHeldPastLease = 32,  // check_held_past_lease
  kCheckAll = 63,
};

// The ZooKeeper kinds (Curator's InterProcessMutex in a ZkWorld;
// sim/world/explore/zk_explore.h): a plan with `zk` set runs them instead of
// `kind`.
enum class ZkLockKind : uint8_t {
  kMutex,        // zk-mutex: protected mode, the predecessor watch
  kFenced,       // zk-mutex-fenced: writes with its znode's sequence number as token
  kUnprotected,  // zk-mutex-unprotected: no protected mode (the orphan after a lost create)
  kHerd,         // zk-mutex-herd: a child watch on the parent (every release wakes all)
};

struct ExplorePlan {
  lock::LockKind kind = lock::LockKind::kSimple;
  std::optional<ZkLockKind> zk;  // set: this ZooKeeper kind instead of `kind`
  uint64_t seed = 1;             // the world's seed (latency draws, random faults, client ids)
  int64_t lease_ms = 100;        // string kinds: the PX; reentrant: lock_watchdog_timeout
  int64_t wait_ms = 2000;        // try_lock_for budget of every attempt
  int64_t retry_backoff_max_us = 10000;  // string kinds' polling backoff cap
  FaultPlan faults;
  std::vector<ClientPlan> clients;
  // Explicit faults only (see FaultSet); the defaults are the plain world's.
  std::optional<FaultSet> fault_set;      // what generate_plan was asked for
  uint32_t checks = kCheckAll;            // ExploreCheck bits
  std::optional<Micros> command_timeout;  // WorldOptions::command_timeout (nullopt: none)
  size_t replicas = 0;                    // WorldOptions::replicas
  int64_t replication_lag_max_us = 0;     // lag drawn in [0, this]
  Persistence persistence = Persistence::kNone;
  size_t servers = 1;  // WorldOptions::servers; explicit faults give Redlock 5
  // How far the faults go: the plain plans and draw_faults(kBudgeted) keep
  // live holders inside their lease; explicit faults (apply by
  // generate_plan) are unbounded.
  FaultMode fault_mode = FaultMode::kBudgeted;
  // How same-time events and latencies are chosen (pct.h): random, PCT with
  // k = pct_steps(plan) steps, or one exhaustive schedule (exhaustive.h;
  // explore_exhaustive searches them all).
  Strategy strategy;
};

// PCT's k for a plan (pct.h): about the messages its clients send, 8 per
// attempt of each task (a SET, a reply, a GET or script, a reply, ...).
uint64_t pct_steps(const ExplorePlan& plan);

// Draws the faults of `set` for a lock with lease `lease_us`, from `seed`,
// into plan.faults, command_timeout, replicas, replication_lag_max_us,
// persistence and fault_set (everything else in `plan` is kept).
void draw_faults(ExplorePlan& plan, const FaultSet& set, FaultMode mode, int64_t lease_us,
                 uint64_t seed);

// The lock key every client of a plan contends for.
inline constexpr const char* kExploreKey = "lock:explore";

// A random plan for `kind` from `seed`: `clients` processes (0 = 2..8 drawn),
// 1..4 attempts each, latency, pauses and crashes in the ranges above. With
// `faults`, exactly those faults, drawn from their own stream (the clients
// and attempts are the same as without).
ExplorePlan generate_plan(lock::LockKind kind, uint64_t seed, int clients = 0,
                          std::optional<FaultSet> faults = std::nullopt);

// The small world the exhaustive strategy searches (exhaustive.h):
// generate_plan(kind, seed, clients) with each client's attempts cut to the
// first `attempts`, and a latency of at least kSmallWorldLatencyMin (the
// minimum the exhaustive strategy takes by default: 1 us, not 0, so fewer
// events tie). For simple, get-del, blind-del and setnx-expire the pause
// length and the lease are then set from the plan (explore.cc,
// tighten_small_lease): the lease is 1 ms above the longest reply latency +
// work + one pause (the budget, so a correct lock is never flagged), and
// the pause is the shortest that makes the first holder, paused at its work
// and at its release, release while its contender holds the lock (two
// deviations: the expire-then-delete race is in every such plan's bounded
// space at bound 2). Bounds: clients in 1..3, attempts in 1..2 (throws
// std::invalid_argument otherwise).
inline constexpr Micros kSmallWorldLatencyMin{1};
// That latency rule on `faults`: latency_min raised to kSmallWorldLatencyMin
// (and latency_max to latency_min). What every exhaustive world takes: the
// yardstick's zoo rows and the harness's exhaustive strategy (run_plan,
// explore_exhaustive, LockWorldTest) apply it to users' plans too, so a
// user's lock is searched as cheaply as generate_small_plan's worlds.
inline void apply_small_world_latency(FaultPlan& faults) {
  faults.latency_min = std::max(faults.latency_min, kSmallWorldLatencyMin);
  faults.latency_max = std::max(faults.latency_max, faults.latency_min);
}
ExplorePlan generate_small_plan(lock::LockKind kind, uint64_t seed, int clients = 2,
                                int attempts = 2);

struct ExploreOutcome {
  // Every checker that applies to the kind (fenced: check_fencing too; its
  // clients write their token to a FencedResource named kExploreKey at the
  // end of each critical section's work).
  std::vector<Violation> violations;
  History history;
  uint64_t commands = 0;  // commands the servers executed (kCommand events)
  // Exhaustive strategy (exhaustive.h): the choice points the run met, and
  // whether the sleep sets cut it short as redundant (then `violations` is
  // empty: a cut run is not judged).
  std::vector<ChoicePoint> choices;
  bool pruned = false;
};

// Runs `plan` in a fresh world. Deterministic: the same plan gives the same
// history (and hash).
ExploreOutcome run_plan(const ExplorePlan& plan);

// The liveness bound run_plan checks against, in us: a free lock must be
// taken by a waiter within this long (lease, backoff, pause and latencies).
int64_t liveness_bound_us(const ExplorePlan& plan);

// Greedy shrinking: repeatedly tries smaller variants (fewer clients, fewer
// attempts, no nesting, shorter think and work times, fewer faults, lower
// latency) and keeps each one for which `fails` is still true. Returns the
// smallest plan found; `fails(plan)` is assumed true on entry. Bounded by
// `max_runs` calls of `fails`.
ExplorePlan shrink_plan(const ExplorePlan& plan,
                        const std::function<bool(const ExplorePlan&)>& fails, int max_runs = 400);

// A multi-line readable description of the plan.
std::string describe_plan(const ExplorePlan& plan);

// The expire-then-delete signature in a history: a client's DEL of `key`
// that removed a value another client had set, after that first client's
// GET of the key had returned its own value. Returns the index of the
// offending DEL event, or -1.
int64_t find_expire_then_delete(const History& history, const std::string& key);

}  // namespace redsim::world

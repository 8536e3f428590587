// `redsim check`: random schedules for one lock kind, judged by the checkers.
//
//   redsim check --lock simple --faults pause --seeds 200
//   redsim check --lock fenced --faults pause,latency --json
//
// Without --faults the plans stay inside the kinds' timing budget (latency,
// short pauses, crashes: see sim/world/explore/explore.h), so the safe kinds must
// show nothing. With --faults LIST exactly those faults are on, with no
// budget (explore.h says what each does); a violation found is printed
// shrunk, with its timeline and a replay command that names the faults.
//
//   redsim check --script-lock examples/script-locks/correct --faults crash,loss
//
// With --lock zk-mutex (zk-mutex-fenced, zk-mutex-unprotected, zk-mutex-herd)
// the lock is Curator's InterProcessMutex on the simulated ZooKeeper node
// (sim/world/explore/zk_explore.h): the same plans, shrinking, replay line,
// --json, --svg and random/PCT strategies; the faults it takes are pause,
// latency, loss, lost-reply, partition and crash (others: exit 2).
//
//   redsim check --lock zk-mutex --faults pause          # two holders
//   redsim check --lock zk-mutex-fenced --faults pause   # safe
//   redsim check --lock zk-mutex-unprotected --faults lost-reply  # the orphan znode
//
// With --script-lock DIR the lock is the user's Lua scripts described by
// DIR/lock.json (tools/cli/script_lock_manifest.h), explored through the
// public harness (tools/cli/script_lock_check.h) with the same plans, faults,
// shrinking, replay line, --json and --svg.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "lock/lock.h"
#include "sim/world/explore/explore.h"

namespace redsim::cli {

struct CheckOptions {
  lock::LockKind kind = lock::LockKind::kSimple;
  // set: this ZooKeeper kind (zk-mutex, ...; sim/world/explore/zk_explore.h) instead of `kind`
  std::optional<world::ZkLockKind> zk_kind;
  std::string script_lock_dir;            // non-empty: this script lock instead of `kind`
  int clients = 0;                        // 0: drawn per seed in 2..8
  int seeds = 1000;                       // seeds 1..seeds, unless `seed` is set
  std::optional<uint64_t> seed;           // exactly this seed (a replay)
  std::string svg_path;                   // non-empty: draw the shrunk counterexample there
  std::optional<world::FaultSet> faults;  // --faults: exactly these, no budget
  bool json = false;                      // one JSON object on `out` instead of text
  bool progress = false;  // a progress bar on `err` (main sets it when stderr is a terminal)
  // Worker threads, each running whole worlds (seeds); the output is the
  // serial run's (tools/cli/seed_scan.h).
  int jobs = 1;
  // --shard K/N: only the seeds s with (s - first) mod N == K - 1.
  int shard = 1;
  int shard_count = 1;
  world::Strategy strategy;  // --strategy random|pct[:d]|exhaustive[:b] (pct.h, exhaustive.h)
};

// Explores; returns 0 when no violation was found, 1 after printing the
// shrunk counterexample, its timeline and the command that replays it (and
// drawing it to options.svg_path when set), 2 when the SVG file cannot be
// written, when the script lock's manifest is unusable ("redsim: <file>:
// <field>: <problem>") or when --faults asks a script lock for failover,
// which the harness's worlds do not model yet (they have no replica);
// messages on `err`.
//
// With jobs > 1 the seeds run on that many threads; the output (but for
// "elapsed_seconds") and the exit code are those of jobs = 1. With a shard,
// only that shard's seeds run (seeds_explored counts them).
//
// With --strategy exhaustive[:B] (no schedule): for each seed, every
// schedule of generate_small_plan(kind, seed, clients or 2) up to bound B
// (sim/world/explore/exhaustive.h); prints "no violation in all N schedules up to
// bound B: ..." or the first failing schedule, shrunk, with a replay line
// whose --strategy exhaustive:B@SCHEDULE runs that one schedule. Only the
// built-in Redis kinds without --faults, 1..3 clients (else 2). JSON: "lock",
// "strategy", "violation", "schedules", "pruned", and "seed", "replay",
// "shrink_runs", "plan", "violations", "timeline" on a violation, or
// "first_seed", "last_seed", "clients", "elapsed_seconds" without.
//
// JSON (--json): {"lock" (a kind, or a script lock's name), "script_lock"
// (DIR; only with --script-lock), "faults", "strategy" (only for PCT),
// "shard" ("K/N", only when sharded), "first_seed", "last_seed",
// "seeds_explored", "commands", "simulated_seconds", "elapsed_seconds",
// "violation": false} or, on a violation, also "seed", "replay",
// "shrink_runs", "plan" (describe_plan of the shrunk plan), "violations"
// [{"checker", "description"}] and "timeline" (the shrunk run's).
int check(const CheckOptions& options, std::ostream& out, std::ostream& err);

// The command line that replays `seed` with these options (--lock KIND or
// --script-lock DIR, with --clients, --faults and --strategy when they were
// given).
std::string check_replay_command(const CheckOptions& options, uint64_t seed);

}  // namespace redsim::cli

// `redsim check merge FILE...`: one report from the `--json` results of the
// shards of a CI matrix (`redsim check --shard K/N --json > shard-K.json`).
//
//   redsim check --lock get-del --seeds 2000 --shard 1/2 --json > a.json
//   redsim check --lock get-del --seeds 2000 --shard 2/2 --json > b.json
//   redsim check merge a.json b.json
//
// Each shard stops at its own lowest failing seed, so the lowest failing
// seed over all shards is the one a serial run would report; its replay
// line (and shrunk plan, violations and timeline) are that shard's.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace redsim::cli {

// Reads the files (each one JSON object as `redsim check --json` prints; a
// file may hold several, one per line) and prints the merged report: the
// lock, faults and strategy, the seed range, the shards seen, total seeds
// explored, commands and simulated seconds, and either "no violation" or
// the lowest failing seed with its shard's replay line, plan and
// violations. With `json`, one JSON object instead: {"lock", "faults",
// "strategy", "first_seed", "last_seed", "results" (objects merged),
// "seeds_explored", "commands", "simulated_seconds", "violation" and, on a
// violation, "seed", "replay", "plan", "violations"}.
//
// Returns 0 when no shard failed, 1 when one did, 2 (a message on `err`)
// when a file cannot be read or parsed, when there is none, or when the
// results are not of one exploration (a different lock, faults, strategy or
// seed range).
int check_merge(const std::vector<std::string>& files, bool json, std::ostream& out,
                std::ostream& err);

}  // namespace redsim::cli

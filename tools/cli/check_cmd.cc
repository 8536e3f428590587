#include "tools/cli/check_cmd.h"

#include <ostream>

#include "sim/world/explore.h"
#include "sim/world/timeline_svg.h"
#include "tools/cli/svg_file.h"

namespace redsim::cli {

std::string check_replay_command(const CheckOptions& options, uint64_t seed) {
  std::string cmd = "build/redsim check --lock " + std::string(lock::lock_kind_name(options.kind)) +
                    " --seed " + std::to_string(seed);
  if (options.clients > 0) cmd += " --clients " + std::to_string(options.clients);
  return cmd;
}

int check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  uint64_t first = options.seed.value_or(1);
  uint64_t last = options.seed ? *options.seed : static_cast<uint64_t>(options.seeds);
  uint64_t commands = 0;
  int64_t simulated_us = 0;
  for (uint64_t seed = first; seed <= last; ++seed) {
    world::ExplorePlan plan = world::generate_plan(options.kind, seed, options.clients);
    world::ExploreOutcome outcome = world::run_plan(plan);
    commands += outcome.commands;
    simulated_us += outcome.history.end_us();
    if (outcome.violations.empty()) continue;

    out << "violation found: lock " << lock::lock_kind_name(options.kind) << ", seed " << seed
        << "\n\nshrinking...\n";
    int runs = 0;
    world::ExplorePlan shrunk = world::shrink_plan(plan, [&runs](const world::ExplorePlan& p) {
      ++runs;
      return !world::run_plan(p).violations.empty();
    });
    world::ExploreOutcome small = world::run_plan(shrunk);
    out << "shrunk in " << runs << " runs to:\n"
        << world::describe_plan(shrunk) << "\n"
        << world::format_violations(small.violations) << "\n";
    if (world::find_expire_then_delete(small.history, world::kExploreKey) >= 0) {
      out << "diagnosis: expire-then-delete: a client's DEL removed a lock another client had "
             "taken after the first one's had expired\n";
    }
    out << "replay: " << check_replay_command(options, seed) << "\n";
    if (!options.svg_path.empty()) {
      world::SvgOptions svg;
      svg.title = "redsim check --lock " + std::string(lock::lock_kind_name(options.kind)) +
                  ": shrunk counterexample, seed " + std::to_string(seed);
      svg.violations = small.violations;
      if (!write_svg_file(options.svg_path, world::render_svg(small.history, svg), out, err)) {
        return 2;
      }
    }
    return 1;
  }
  out << "no violation: lock " << lock::lock_kind_name(options.kind) << ", " << (last - first + 1)
      << " seeds (" << first << ".." << last << "), " << commands << " commands, "
      << simulated_us / 1000000.0 << " simulated seconds\n";
  return 0;
}

}  // namespace redsim::cli

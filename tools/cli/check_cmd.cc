#include "tools/cli/check_cmd.h"

#include <chrono>
#include <functional>
#include <ostream>

#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/explore.h"
#include "sim/world/explore/zk_explore.h"
#include "sim/world/testing/harness.h"
#include "sim/world/timeline_svg.h"
#include "tools/cli/json.h"
#include "tools/cli/script_lock_check.h"
#include "tools/cli/script_lock_manifest.h"
#include "tools/cli/seed_scan.h"
#include "tools/cli/svg_file.h"

namespace redsim::cli {

namespace {

// "\r[#######.............]  35/200 seeds" on a terminal, redrawn in place.
void draw_progress(std::ostream& err, uint64_t done, uint64_t total) {
  constexpr uint64_t kWidth = 30;
  const uint64_t filled = total == 0 ? kWidth : done * kWidth / total;
  err << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done
      << "/" << total << " seeds" << std::flush;
}

std::string faults_text(const CheckOptions& options) {
  return options.faults ? world::fault_set_name(*options.faults) : "";
}

// `word` as one shell word: as is when it is plain, else in single quotes.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_./:,=+-") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "--lock simple" or "--script-lock DIR".
std::string lock_flag(const CheckOptions& options) {
  if (!options.script_lock_dir.empty())
    return "--script-lock " + shell_word(options.script_lock_dir);
  if (options.zk_kind) return "--lock " + std::string(world::zk_lock_kind_name(*options.zk_kind));
  return "--lock " + std::string(lock::lock_kind_name(options.kind));
}

}  // namespace

std::string check_replay_command(const CheckOptions& options, uint64_t seed) {
  std::string cmd = "build/redsim check " + lock_flag(options) + " --seed " + std::to_string(seed);
  if (options.clients > 0) cmd += " --clients " + std::to_string(options.clients);
  if (options.faults) cmd += " --faults " + world::fault_set_name(*options.faults);
  if (!options.strategy.random()) {
    cmd += " --strategy " + world::strategy_name(options.strategy);
  }
  return cmd;
}

static int check_exhaustive(const CheckOptions& options, uint64_t first, uint64_t last,
                            std::ostream& out, std::ostream& err) {
  const auto started = std::chrono::steady_clock::now();
  const int clients = options.clients > 0 ? options.clients : 2;
  const std::string kind_name(lock::lock_kind_name(options.kind));
  const std::string bound = std::to_string(options.strategy.bound);
  uint64_t schedules = 0, pruned = 0;
  for (uint64_t seed = first; seed <= last; ++seed) {
    world::ExplorePlan plan = world::generate_small_plan(options.kind, seed, clients);
    plan.strategy = options.strategy;
    const world::ExhaustiveResult r = world::explore_exhaustive(plan);
    schedules += r.schedules;
    pruned += r.pruned;
    if (r.counterexample) {
      plan.strategy.schedule = *r.counterexample;
      plan.strategy.narrow = r.counterexample_narrow;
      int runs = 0;
      const world::ExplorePlan shrunk = world::shrink_plan(plan, [&](const world::ExplorePlan& p) {
        ++runs;
        return !world::run_plan(p).violations.empty();
      });
      const world::ExploreOutcome small = world::run_plan(shrunk);
      CheckOptions replay_options = options;
      replay_options.clients = clients;
      replay_options.strategy = plan.strategy;
      const std::string replay = check_replay_command(replay_options, seed);
      const std::string timeline = world::render_timeline(small.history);
      if (options.json) {
        Json o;
        o["lock"] = kind_name;
        o["strategy"] = "exhaustive:" + bound;
        o["violation"] = true;
        o["seed"] = seed;
        o["schedules"] = schedules;
        o["pruned"] = pruned;
        o["replay"] = replay;
        o["shrink_runs"] = runs;
        o["plan"] = world::describe_plan(shrunk);
        o["violations"] = Json::array();
        for (const auto& v : small.violations) {
          o["violations"].push_back(Json{{"checker", v.checker}, {"description", v.description}});
        }
        o["timeline"] = timeline;
        out << dump_json(o) << "\n";
      } else {
        out << "violation found: lock " << kind_name << ", seed " << seed << ", schedule "
            << schedules << " of the exhaustive search (bound " << bound << ")\n\nshrinking...\n"
            << "shrunk in " << runs << " runs to:\n"
            << world::describe_plan(shrunk) << "\n"
            << world::format_violations(small.violations) << "\n";
        if (world::find_expire_then_delete(small.history, world::kExploreKey) >= 0) {
          out << "diagnosis: expire-then-delete: a client's DEL removed a lock another client "
                 "had taken after the first one's had expired\n";
        }
        out << "timeline of the shrunk run:\n" << timeline << "\nreplay: " << replay << "\n";
      }
      if (!options.svg_path.empty()) {
        world::SvgOptions svg;
        svg.title = "redsim check --lock " + kind_name + " --strategy exhaustive:" + bound +
                    ": shrunk counterexample, seed " + std::to_string(seed);
        svg.violations = small.violations;
        if (!write_svg_file(options.svg_path, world::render_svg(small.history, svg),
                            options.json ? err : out, err)) {
          return 2;
        }
      }
      return 1;
    }
    if (!r.complete) {
      err << "redsim: seed " << seed << ": the search stopped before the bound was covered\n";
      return 2;
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (options.json) {
    Json o;
    o["lock"] = kind_name;
    o["strategy"] = "exhaustive:" + bound;
    o["violation"] = false;
    o["first_seed"] = first;
    o["last_seed"] = last;
    o["clients"] = clients;
    o["schedules"] = schedules;
    o["pruned"] = pruned;
    o["elapsed_seconds"] = elapsed;
    out << dump_json(o) << "\n";
    return 0;
  }
  out << "no violation in all " << schedules << " schedules up to bound " << bound << ": lock "
      << kind_name << ", " << clients << " clients x up to 2 attempts, seed"
      << (first == last ? " " + std::to_string(first)
                        : "s " + std::to_string(first) + ".." + std::to_string(last))
      << " (" << pruned << " redundant orders pruned by sleep sets)\n";
  return 0;
}

int check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const uint64_t first = options.seed.value_or(1);
  const uint64_t last = options.seed ? *options.seed : static_cast<uint64_t>(options.seeds);

  // What is explored: a built-in kind, or the script lock of a manifest.
  std::optional<ScriptLockManifest> manifest;
  if (!options.script_lock_dir.empty()) {
    try {
      manifest = load_script_lock_manifest(options.script_lock_dir);
    } catch (const ManifestError& e) {
      err << "redsim: " << e.what() << "\n";
      return 2;
    }
  }
  const std::string kind_name = manifest ? manifest->spec->name
                                : options.zk_kind
                                    ? std::string(world::zk_lock_kind_name(*options.zk_kind))
                                    : std::string(lock::lock_kind_name(options.kind));
  if (options.zk_kind && options.faults) {
    if (const std::string problem = world::zk_fault_problem(*options.faults); !problem.empty()) {
      err << "redsim: --faults " << problem << "\n";
      return 2;
    }
  }
  // "lock simple", "script lock set-nx-px (examples/script-locks/correct)".
  const std::string label = manifest
                                ? "script lock " + kind_name + " (" + options.script_lock_dir + ")"
                                : "lock " + kind_name;
  auto make_plan = [&](uint64_t seed) {
    world::ExplorePlan plan =
        manifest ? script_lock_plan(*manifest, seed, options.clients, options.faults)
        : options.zk_kind
            ? world::generate_zk_plan(*options.zk_kind, seed, options.clients, options.faults)
        : options.strategy.exhaustive()
            ? world::generate_small_plan(options.kind, seed,
                                         options.clients > 0 ? options.clients : 2)
            : world::generate_plan(options.kind, seed, options.clients, options.faults);
    plan.strategy = options.strategy;
    return plan;
  };
  auto run = [&](const world::ExplorePlan& p) {
    return manifest ? run_script_lock_plan(*manifest, p) : world::run_plan(p);
  };
  auto describe = [&](const world::ExplorePlan& p) {
    return manifest ? label + ", " + harness::describe_schedule(p) : world::describe_plan(p);
  };

  if (options.strategy.exhaustive() && options.strategy.schedule.empty()) {
    if (manifest || options.zk_kind || options.faults || options.clients > 3) {
      err << "redsim: --strategy exhaustive searches the built-in Redis kinds' plain worlds of "
             "1..3 clients (no --script-lock, no ZooKeeper kind, no --faults)\n";
      return 2;
    }
    return check_exhaustive(options, first, last, out, err);
  }

  uint64_t commands = 0;
  int64_t simulated_us = 0;
  auto summary_json = [&](uint64_t explored) {
    Json o;
    o["lock"] = kind_name;
    if (manifest) o["script_lock"] = options.script_lock_dir;
    o["faults"] = faults_text(options);
    if (!options.strategy.random()) o["strategy"] = world::strategy_name(options.strategy);
    if (options.shard_count > 1) {
      o["shard"] = std::to_string(options.shard) + "/" + std::to_string(options.shard_count);
    }
    o["first_seed"] = first;
    o["last_seed"] = last;
    o["seeds_explored"] = explored;
    o["commands"] = commands;
    o["simulated_seconds"] = static_cast<double>(simulated_us) / 1e6;
    o["elapsed_seconds"] = elapsed_s();
    return o;
  };
  // The shard's seeds on options.jobs threads, with the serial result.
  SeedScan scan{.first = first,
                .last = last,
                .shard = options.shard,
                .shard_count = options.shard_count,
                .jobs = options.jobs};
  const uint64_t shard_total = shard_seed_count(scan);
  std::function<void(uint64_t)> progress;
  if (options.progress) progress = [&](uint64_t done) { draw_progress(err, done, shard_total); };
  const ScanResult scanned = scan_seeds(
      scan,
      [&](uint64_t seed) {
        world::ExploreOutcome outcome = run(make_plan(seed));
        return SeedOutcome{outcome.commands, outcome.history.end_us(), !outcome.violations.empty()};
      },
      progress);
  commands = scanned.commands;
  simulated_us = scanned.simulated_us;
  if (scanned.failing_seed) {
    const uint64_t seed = *scanned.failing_seed;
    world::ExplorePlan plan = make_plan(seed);
    if (options.progress) err << "\n";

    int runs = 0;
    world::ExplorePlan shrunk = world::shrink_plan(plan, [&](const world::ExplorePlan& p) {
      ++runs;
      return !run(p).violations.empty();
    });
    world::ExploreOutcome small = run(shrunk);
    const std::string timeline = world::render_timeline(small.history);
    const std::string replay = check_replay_command(options, seed);
    if (options.json) {
      Json o = summary_json(scanned.explored);
      o["violation"] = true;
      o["seed"] = seed;
      o["replay"] = replay;
      o["shrink_runs"] = runs;
      o["plan"] = describe(shrunk);
      o["violations"] = Json::array();
      for (const auto& v : small.violations) {
        o["violations"].push_back(Json{{"checker", v.checker}, {"description", v.description}});
      }
      o["timeline"] = timeline;
      out << dump_json(o) << "\n";
    } else {
      out << "violation found: " << label << ", seed " << seed;
      if (options.faults) out << ", faults " << faults_text(options);
      out << "\n\nshrinking...\n"
          << "shrunk in " << runs << " runs to:\n"
          << describe(shrunk) << "\n"
          << world::format_violations(small.violations) << "\n";
      if (world::find_expire_then_delete(small.history, world::kExploreKey) >= 0) {
        out << "diagnosis: expire-then-delete: a client's DEL removed a lock another client had "
               "taken after the first one's had expired\n";
      }
      if (options.zk_kind) {
        if (auto orphan = world::find_orphan_wait(small.history)) {
          out << "diagnosis: " << *orphan << "\n";
        }
      }
      out << "timeline of the shrunk run:\n" << timeline << "\n";
      out << "replay: " << replay << "\n";
    }
    if (!options.svg_path.empty()) {
      world::SvgOptions svg;
      svg.title = "redsim check " + lock_flag(options) +
                  (options.faults ? " --faults " + faults_text(options) : std::string()) +
                  ": shrunk counterexample, seed " + std::to_string(seed);
      svg.violations = small.violations;
      if (!write_svg_file(options.svg_path, world::render_svg(small.history, svg),
                          options.json ? err : out, err)) {
        return 2;
      }
    }
    return 1;
  }
  if (options.progress) {
    draw_progress(err, shard_total, shard_total);
    err << "\n";
  }
  if (options.json) {
    Json o = summary_json(shard_total);
    o["violation"] = false;
    out << dump_json(o) << "\n";
    return 0;
  }
  out << "no violation: " << label;
  if (options.faults) out << ", faults " << faults_text(options);
  out << ", " << shard_total << " seeds (" << first << ".." << last;
  if (options.shard_count > 1) {
    out << ", shard " << options.shard << "/" << options.shard_count << ": every "
        << options.shard_count << "th from " << first + options.shard - 1;
  }
  out << "), " << commands << " commands, " << simulated_us / 1000000.0 << " simulated seconds\n";
  return 0;
}

}  // namespace redsim::cli

// redsim: the command line. Subcommands live in their own files; this file
// only wires them to CLI11 and maps usage errors to exit code 2.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "sim/world/explore/explore.h"
#include "sim/world/explore/zk_explore.h"
#include "tools/cli/check_cmd.h"
#include "tools/cli/difftest_cmd.h"
#include "tools/cli/merge_cmd.h"
#include "tools/cli/repl.h"
#include "tools/cli/scenario_cmd.h"
#include "tools/cli/version.h"
#include "tools/server/proc_title.h"
#include "tools/server/redis_server_args.h"
#include "tools/server/server_cmd.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  redsim::server::proc_title_init(argc, argv);  // before anything reads environ
  // redis-server's command line: as a `redis-server` symlink, as
  // `redsim redis-server ...`, or `redsim server` with Redis's syntax.
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  std::string_view program = argc > 0 ? argv[0] : "";
  program = program.substr(program.rfind('/') + 1);
  if (program == "redis-server")
    return redsim::server::redis_server_main(args, std::cout, std::cerr);
  if (!args.empty() && (args[0] == "redis-server" ||
                        (args[0] == "server" &&
                         redsim::server::uses_redis_server_syntax(std::span(args).subspan(1))))) {
    return redsim::server::redis_server_main(std::span(args).subspan(1), std::cout, std::cerr);
  }

  CLI::App app{"redsim: a deterministic in-process Redis simulator and distributed-lock harness"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", std::string("redsim ") + redsim::kVersion,
                       "Print the version and exit");
  int exit_code = 0;

  // scenario list | run
  auto* scenario = app.add_subcommand("scenario", "Named, scripted runs from the literature");
  scenario->require_subcommand(1);
  auto* list = scenario->add_subcommand("list", "Name, lock kind, expected verdict, description");
  list->callback([&] { exit_code = redsim::cli::scenario_list(std::cout); });

  redsim::cli::ScenarioRunOptions run_options;
  auto* run = scenario->add_subcommand(
      "run", "Run a scenario (or --all): timeline and verdict; exit 0 iff as expected");
  auto* name_opt = run->add_option("name", run_options.name, "Scenario name (see `scenario list`)");
  auto* all_flag = run->add_flag("--all", run_options.all, "Run every scenario, with a summary");
  name_opt->excludes(all_flag);
  run->add_option("--seed", run_options.seed, "Seed (client ids, tokens, jitter)")
      ->capture_default_str();
  run->add_flag("--json", run_options.json, "JSON instead of text");
  run->add_option("--svg", run_options.svg_path, "Draw the run's timeline to this SVG file")
      ->excludes(all_flag);
  run->add_option("--real", run_options.real_url,
                  "Run against this Redis (redis://host:port[/db]); fault-free scenarios only");
  run->callback([&] {
    if (run_options.name.empty() && !run_options.all) {
      throw CLI::ValidationError("scenario run", "give a scenario name or --all");
    }
    exit_code = redsim::cli::scenario_run(run_options, std::cout, std::cerr);
  });

  // check
  redsim::cli::CheckOptions check_options;
  std::string lock_name;
  uint64_t seed = 0;
  auto* check = app.add_subcommand(
      "check",
      "Explore random schedules for one lock (--lock KIND or --script-lock DIR); exit 1 with a "
      "shrunk counterexample, 2 on a usage error or an unusable manifest");
  // Every kind make_lock builds (lock::all_lock_kinds), by name.
  std::vector<std::string> kind_names;
  std::string kind_list;
  for (redsim::lock::LockKind kind : redsim::lock::all_lock_kinds()) {
    kind_names.emplace_back(redsim::lock::lock_kind_name(kind));
    kind_list += (kind_list.empty() ? "" : ", ") + kind_names.back();
  }
  // The ZooKeeper kinds (sim/world/explore/zk_explore.h).
  for (redsim::world::ZkLockKind kind : redsim::world::kZkLockKinds) {
    kind_names.emplace_back(redsim::world::zk_lock_kind_name(kind));
    kind_list += ", " + kind_names.back();
  }
  auto* lock_opt = check->add_option("--lock", lock_name, "A built-in lock kind: " + kind_list)
                       ->check(CLI::IsMember(kind_names));
  check
      ->add_option("--script-lock", check_options.script_lock_dir,
                   "A lock written as Lua scripts: DIR holds lock.json (scripts, KEYS/ARGV "
                   "templates with {key} {token} {owner} {lease_ms}, what the replies mean, "
                   "lease, poll or pub/sub waiting; see tools/cli/script_lock_manifest.h and "
                   "examples/script-locks/) and the scripts. Without --faults: the budgeted "
                   "profile (pauses, latency, crashes that keep live holders inside their lease)")
      ->excludes(lock_opt);
  std::string faults_list;
  std::string faults_help = "Comma list of faults to switch on, without the timing budget:";
  for (std::string_view f : redsim::world::kFaultNames) faults_help += " " + std::string(f);
  auto* faults_opt = check->add_option("--faults", faults_list, faults_help)
                         ->check([](const std::string& v) -> std::string {
                           try {
                             redsim::world::parse_fault_set(v);
                             return "";
                           } catch (const std::invalid_argument& e) {
                             return e.what();
                           }
                         });
  check->add_flag("--json", check_options.json, "A JSON summary instead of text");
  check->add_option("--clients", check_options.clients, "Client processes (default: 2..8 per seed)")
      ->check(CLI::Range(1, 64));
  auto* seeds_opt = check->add_option("--seeds", check_options.seeds, "Explore seeds 1..N")
                        ->check(CLI::Range(1, 10000000))
                        ->capture_default_str();
  auto* seed_opt = check->add_option("--seed", seed, "Run exactly this seed (a replay)");
  check->add_option("--svg", check_options.svg_path,
                    "Draw the shrunk counterexample's timeline to this SVG file");
  check
      ->add_option("--jobs", check_options.jobs,
                   "Worker threads, each running whole seeds; output as with 1")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  std::string shard_text;
  auto* shard_opt =
      check
          ->add_option("--shard", shard_text,
                       "K/N: only seeds s with (s - first) mod N == K-1 (a CI matrix; merge the "
                       "--json results with `check merge`)")
          ->check([](const std::string& v) -> std::string {
            int k = 0, n = 0;
            char slash = 0;
            std::istringstream in(v);
            if ((in >> k >> slash >> n) && in.eof() && slash == '/' && n >= 1 && k >= 1 && k <= n) {
              return "";
            }
            return "--shard wants K/N with 1 <= K <= N, got '" + v + "'";
          });
  shard_opt->excludes(seed_opt);
  std::string strategy_text = "random";
  check
      ->add_option("--strategy", strategy_text,
                   "random, pct[:D] (PCT priorities of depth D, default 3; sim/world/pct.h), or "
                   "exhaustive[:B] (every schedule of a 2-client x 2-attempt world with at most B "
                   "latency/fault deviations, default 2; sim/world/explore/exhaustive.h)")
      ->check([](const std::string& v) -> std::string {
        try {
          redsim::world::parse_strategy(v);
          return "";
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      })
      ->capture_default_str();
  std::vector<std::string> merge_files;
  bool merge_json = false;
  auto* merge = check->add_subcommand(
      "merge",
      "Merge the --json results of shards into one report; exit 1 if any failed, 2 if unusable");
  merge->add_option("files", merge_files, "The shards' --json outputs")->required();
  merge->add_flag("--json", merge_json, "A JSON report instead of text");
  merge->callback(
      [&] { exit_code = redsim::cli::check_merge(merge_files, merge_json, std::cout, std::cerr); });
  check->callback([&] {
    if (merge->parsed()) return;
    if (lock_name.empty() == check_options.script_lock_dir.empty()) {
      throw CLI::ValidationError("check", "give one of --lock KIND or --script-lock DIR");
    }
    if (auto zk = redsim::world::parse_zk_lock_kind(lock_name)) {
      check_options.zk_kind = zk;
    } else if (!lock_name.empty()) {
      check_options.kind = *redsim::lock::parse_lock_kind(lock_name);
    }
    if (seed_opt->count() > 0) check_options.seed = seed;
    if (faults_opt->count() > 0) check_options.faults = redsim::world::parse_fault_set(faults_list);
    if (shard_opt->count() > 0) {
      char slash = 0;
      std::istringstream(shard_text) >> check_options.shard >> slash >> check_options.shard_count;
    }
    check_options.strategy = redsim::world::parse_strategy(strategy_text);
    // An exhaustive search covers one plan per seed: one seed unless asked.
    if (check_options.strategy.exhaustive() && seeds_opt->count() == 0) check_options.seeds = 1;
    check_options.progress = isatty(STDERR_FILENO) != 0;
    exit_code = redsim::cli::check(check_options, std::cout, std::cerr);
  });

  redsim::cli::DifftestOptions diff_options;
  auto* diff = app.add_subcommand(
      "difftest",
      "Random command sequences against a real redis-server and the fake; exit 1 on a mismatch");
  diff->add_option("--host", diff_options.host, "redis-server address (IPv4)")
      ->capture_default_str();
  diff->add_option("--port", diff_options.port,
                   "Port of a running redis-server 7.0 (with --enable-debug-command yes); "
                   "default: start one for the run")
      ->check(CLI::Range(1, 65535));
  diff->add_option("--seed", diff_options.seed, "First seed")->capture_default_str();
  diff->add_option("--seeds", diff_options.seeds, "Number of seeds")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  diff->add_option("--commands", diff_options.commands, "Steps per seed")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  diff->add_flag("!--no-shrink", diff_options.shrink, "Print a mismatch without shrinking it");
  diff->add_option("--family", diff_options.families,
                   "Draw only from these command families (repeatable; default: all)");
  diff->callback([&] { exit_code = redsim::cli::difftest(diff_options, std::cout, std::cerr); });

  auto* repl = app.add_subcommand(
      "repl", "Run commands from stdin on an embedded fake Redis; print replies as redis-cli does");
  repl->callback([&] { exit_code = redsim::cli::run_repl(std::cin, std::cout); });

  redsim::server::ServerCmdOptions server_options;
  auto* server = app.add_subcommand(
      "server",
      "Serve the fake Redis 7.0 over TCP (RESP2) to any client; stop with SIGINT/SIGTERM. "
      "Also takes redis-server's command line (a config file, --save '', --daemonize yes, ...; "
      "see `redsim redis-server --help`)");
  server->add_option("--port", server_options.port, "TCP port; 0 picks a free one (printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  server->add_option("--bind", server_options.bind, "Numeric address to listen on")
      ->capture_default_str();
  server
      ->add_option("--clock", server_options.clock,
                   "real: wall time; virtual: moves only on DEBUG SLEEP and REDSIM.ADVANCE <ms>")
      ->check(CLI::IsMember({"real", "virtual"}))
      ->capture_default_str();
  server->add_option("--seed", server_options.seed, "Seed of the server's random choices")
      ->capture_default_str();
  server->callback(
      [&] { exit_code = redsim::server::run_server(server_options, std::cout, std::cerr); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "redsim: " << e.what() << "\nRun with --help for usage.\n";
    return kUsageError;
  }
  return exit_code;
}

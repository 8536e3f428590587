// redsim: the command line. Subcommands live in their own files; this file
// only wires them to CLI11 and maps usage errors to exit code 2.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "lock/lock.h"
#include "tools/cli/check_cmd.h"
#include "tools/cli/repl.h"
#include "tools/cli/scenario_cmd.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"redsim: a deterministic in-process Redis simulator and distributed-lock harness"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
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
      "check", "Explore random schedules for one lock kind; exit 1 with a shrunk counterexample");
  // Every kind make_lock builds (lock::all_lock_kinds), by name.
  std::vector<std::string> kind_names;
  std::string kind_list;
  for (redsim::lock::LockKind kind : redsim::lock::all_lock_kinds()) {
    kind_names.emplace_back(redsim::lock::lock_kind_name(kind));
    kind_list += (kind_list.empty() ? "" : ", ") + kind_names.back();
  }
  check->add_option("--lock", lock_name, kind_list)->required()->check(CLI::IsMember(kind_names));
  check->add_option("--clients", check_options.clients, "Client processes (default: 2..8 per seed)")
      ->check(CLI::Range(1, 64));
  check->add_option("--seeds", check_options.seeds, "Explore seeds 1..N")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  auto* seed_opt = check->add_option("--seed", seed, "Run exactly this seed (a replay)");
  check->callback([&] {
    check_options.kind = *redsim::lock::parse_lock_kind(lock_name);
    if (seed_opt->count() > 0) check_options.seed = seed;
    exit_code = redsim::cli::check(check_options, std::cout);
  });

  auto* repl = app.add_subcommand(
      "repl", "Run commands from stdin on an embedded fake Redis; print replies as redis-cli does");
  repl->callback([&] { exit_code = redsim::cli::run_repl(std::cin, std::cout); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "redsim: " << e.what() << "\nRun with --help for usage.\n";
    return kUsageError;
  }
  return exit_code;
}

// `redsim scenario list` and `redsim scenario run`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace redsim::cli {

// Prints name, lock kind, expected verdict and description of each scenario,
// then (indented) its source and the fault it injects, or that it also runs
// against a real server. Returns 0.
int scenario_list(std::ostream& out);

struct ScenarioRunOptions {
  std::string name;  // empty with all = true
  bool all = false;
  uint64_t seed = 1;
  bool json = false;
  std::string svg_path;  // non-empty (one scenario only): draw the run there
  // "redis://host:port[/db]": run against that server instead of the
  // simulation. Only the fault-free scenarios can; with --all the others are
  // listed as skipped, a named one is refused (exit 2).
  std::string real_url;
};

// Runs one scenario (or all) and prints timeline, findings and verdict (or
// JSON). Returns 0 when every scenario run gave its expected verdict, 1 when
// one did not, 2 for an unknown name, an SVG file that cannot be written, a
// bad or unreachable --real URL, or a named scenario that needs a fault with
// --real (message on `err`).
//
// JSON (--json): one line per run, {"name", "world", "lock", "expected",
// "observed", "passed", then "seed", "history_hash" (16 hex digits) and
// "replay" (simulated) or "server" (--real), "violations" [{"checker",
// "description"}], "findings" [...], "timeline"}; with --all one array of
// them. Written by nlohmann-json: valid UTF-8 for any bytes (tools/cli/json.h).
int scenario_run(const ScenarioRunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace redsim::cli

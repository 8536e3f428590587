#include "tools/cli/scenario_cmd.h"

#include <cstdio>
#include <ostream>
#include <vector>

#include "lock/errors.h"
#include "lock/hiredis/hiredis_env.h"
#include "sim/world/scenarios/scenarios.h"
#include "sim/world/timeline_svg.h"
#include "tools/cli/json.h"
#include "tools/cli/real_time_runner.h"
#include "tools/cli/svg_file.h"

namespace redsim::cli {

namespace {

using world::Scenario;
using world::ScenarioResult;

// `s` padded to `width`; a longer `s` still gets one space, so it never
// runs into the next column.
std::string pad(std::string_view s, size_t width) {
  std::string out(s);
  out.append(out.size() < width ? width - out.size() : 1, ' ');
  return out;
}

std::string hex64(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string replay_command(const Scenario& s, uint64_t seed) {
  return "build/redsim scenario run " + s.name + " --seed " + std::to_string(seed);
}

// The line under a result: how to run it again.
std::string rerun_line(const Scenario& s, const ScenarioResult& r, const std::string& real_url) {
  if (!real_url.empty()) {
    return "real run against " + real_url +
           " (steady-clock times; rerun: build/redsim scenario run " + s.name + " --real " +
           real_url + ")";
  }
  return "seed " + std::to_string(r.seed) + ", history hash " + hex64(r.history.hash()) +
         "; replay: " + replay_command(s, r.seed);
}

void print_text(const Scenario& s, const ScenarioResult& r, const std::string& real_url,
                std::ostream& out) {
  out << "== " << s.name << " (" << world::scenario_lock_name(s) << ") ==\n"
      << s.description << "\nsource: " << s.source << "\n\ntimeline:\n"
      << world::render_timeline(r.history) << "\n";
  if (!r.violations.empty())
    out << "violations:\n" << world::format_violations(r.violations) << "\n";
  for (const std::string& f : r.findings) out << "finding: " << f << "\n";
  out << "verdict: " << world::verdict_name(r.observed)
      << " (expected: " << world::verdict_name(r.expected) << ") "
      << (r.passed() ? "as expected" : "NOT AS EXPECTED") << "\n"
      << rerun_line(s, r, real_url) << "\n\n";
}

Json scenario_json(const Scenario& s, const ScenarioResult& r, const std::string& real_url) {
  Json o;
  o["name"] = s.name;
  o["world"] = real_url.empty() ? "simulated" : "real";
  o["lock"] = std::string(world::scenario_lock_name(s));
  o["expected"] = std::string(world::verdict_name(r.expected));
  o["observed"] = std::string(world::verdict_name(r.observed));
  o["passed"] = r.passed();
  if (real_url.empty()) {
    o["seed"] = r.seed;
    o["history_hash"] = hex64(r.history.hash());
    o["replay"] = replay_command(s, r.seed);
  } else {
    o["server"] = real_url;
  }
  o["violations"] = Json::array();
  for (const auto& v : r.violations) {
    o["violations"].push_back(Json{{"checker", v.checker}, {"description", v.description}});
  }
  o["findings"] = Json::array();
  for (const std::string& f : r.findings) o["findings"].push_back(f);
  o["timeline"] = world::render_timeline(r.history);
  return o;
}

}  // namespace

int scenario_list(std::ostream& out) {
  // One row per scenario, then its source and what it injects (or that it
  // also runs against a real server), indented under the row.
  out << pad("SCENARIO", 29) << pad("LOCK", 14) << pad("EXPECTED", 30) << "DESCRIPTION\n";
  for (const Scenario& s : world::all_scenarios()) {
    out << pad(s.name, 29) << pad(world::scenario_lock_name(s), 14)
        << pad(world::verdict_name(s.expected), 30) << s.description << "\n"
        << "    source: " << s.source << "\n"
        << "    " << (s.run_on ? "fault-free: also runs with --real" : "injects: " + s.needs_fault)
        << "\n";
  }
  return 0;
}

int scenario_run(const ScenarioRunOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<const Scenario*> chosen;
  if (options.all) {
    for (const Scenario& s : world::all_scenarios()) chosen.push_back(&s);
  } else {
    const Scenario* s = world::find_scenario(options.name);
    if (s == nullptr) {
      err << "redsim: unknown scenario '" << options.name
          << "'; `redsim scenario list` shows them all\n";
      return 2;
    }
    chosen.push_back(s);
  }

  // --real: the server must answer, and only fault-free scenarios can run.
  const bool real = !options.real_url.empty();
  lock::HiredisOptions server;
  std::vector<const Scenario*> skipped;
  if (real) {
    try {
      server = lock::HiredisOptions::parse_url(options.real_url);
    } catch (const std::invalid_argument& e) {
      err << "redsim: " << e.what() << "\n";
      return 2;
    }
    try {
      lock::HiredisEnv probe(server);
      const resp::Reply pong = probe.connection().call({"PING"});
      if (pong.is_error()) {
        err << "redsim: " << options.real_url << " refused PING: " << pong.str() << "\n";
        return 2;
      }
    } catch (const lock::Error& e) {
      err << "redsim: cannot reach " << options.real_url << ": " << e.what() << "\n";
      return 2;
    }
    std::vector<const Scenario*> runnable;
    for (const Scenario* s : chosen) (s->run_on ? runnable : skipped).push_back(s);
    if (!options.all && !skipped.empty()) {
      err << "redsim: scenario '" << skipped[0]->name << "' needs an injected fault ("
          << skipped[0]->needs_fault
          << "), which a real server cannot give; it runs only in the simulation (drop --real)\n";
      return 2;
    }
    chosen = std::move(runnable);
  }

  std::vector<ScenarioResult> results;
  Json all_json = Json::array();
  for (size_t i = 0; i < chosen.size(); ++i) {
    ScenarioResult r;
    if (real) {
      try {
        RealTimeRunner runner(
            {.make_env = [server] { return std::make_unique<lock::HiredisEnv>(server); }});
        r = world::run_scenario_real(*chosen[i], runner);
      } catch (const lock::Error& e) {
        err << "redsim: scenario " << chosen[i]->name << " against " << options.real_url
            << " failed: " << e.what() << "\n";
        return 2;
      }
    } else {
      r = chosen[i]->run(options.seed);
    }
    if (!options.svg_path.empty()) {
      world::SvgOptions svg;
      svg.title = "scenario " + chosen[i]->name + " (" +
                  std::string(world::scenario_lock_name(*chosen[i])) + "), seed " +
                  std::to_string(r.seed) + ": " + std::string(world::verdict_name(r.observed));
      svg.violations = r.violations;
      std::ostream& note = options.json ? err : out;
      if (!write_svg_file(options.svg_path, world::render_svg(r.history, svg), note, err)) {
        return 2;
      }
    }
    if (options.json) {
      Json one = scenario_json(*chosen[i], r, options.real_url);
      if (options.all) {
        all_json.push_back(std::move(one));
      } else {
        out << dump_json(one) << "\n";
      }
    } else {
      print_text(*chosen[i], r, options.real_url, out);
    }
    results.push_back(std::move(r));
  }
  if (options.json && options.all) out << dump_json(all_json) << "\n";

  size_t passed = 0;
  for (const ScenarioResult& r : results) passed += r.passed() ? 1 : 0;
  if (!options.json && options.all) {
    out << pad("SCENARIO", 28) << pad("LOCK", 14) << pad("EXPECTED", 30) << pad("OBSERVED", 30)
        << "RESULT\n";
    for (size_t i = 0; i < chosen.size(); ++i) {
      out << pad(chosen[i]->name, 28) << pad(world::scenario_lock_name(*chosen[i]), 14)
          << pad(world::verdict_name(results[i].expected), 30)
          << pad(world::verdict_name(results[i].observed), 30)
          << (results[i].passed() ? "ok" : "FAILED") << "\n";
    }
    for (const Scenario* s : skipped) {
      out << pad(s->name, 28) << pad(world::scenario_lock_name(*s), 14)
          << pad(world::verdict_name(s->expected), 30) << pad("-", 30) << "skipped: needs "
          << s->needs_fault << "\n";
    }
    out << passed << "/" << results.size() << " scenarios gave their expected verdict ";
    if (real) {
      out << "against " << options.real_url << " (" << skipped.size()
          << " skipped: they need an injected fault)\n";
    } else {
      out << "(seed " << options.seed << ")\n";
    }
  }
  return passed == results.size() ? 0 : 1;
}

}  // namespace redsim::cli

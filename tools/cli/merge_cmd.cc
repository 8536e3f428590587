#include "tools/cli/merge_cmd.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "tools/cli/json.h"

namespace redsim::cli {

namespace {

using nlohmann::json;

// A field of a result, or "" when absent (script_lock, strategy, shard).
std::string text_field(const json& r, const char* name) {
  return r.contains(name) && r[name].is_string() ? r[name].get<std::string>() : std::string();
}

// What must agree between the shards of one exploration.
std::string identity(const json& r) {
  return text_field(r, "lock") + "|" + text_field(r, "script_lock") + "|" +
         text_field(r, "faults") + "|" + text_field(r, "strategy") + "|" +
         std::to_string(r.at("first_seed").get<uint64_t>()) + ".." +
         std::to_string(r.at("last_seed").get<uint64_t>());
}

}  // namespace

int check_merge(const std::vector<std::string>& files, bool json_out, std::ostream& out,
                std::ostream& err) {
  std::vector<json> results;
  for (const std::string& file : files) {
    std::ifstream in(file);
    if (!in) {
      err << "redsim: " << file << ": cannot be read\n";
      return 2;
    }
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        json r = json::parse(line);
        if (!r.is_object() || !r.contains("violation") || !r.contains("seeds_explored")) {
          throw std::invalid_argument("not a `redsim check --json` result");
        }
        identity(r);  // the fields it needs are there
        results.push_back(std::move(r));
      } catch (const std::exception& e) {
        err << "redsim: " << file << ":" << line_no << ": " << e.what() << "\n";
        return 2;
      }
    }
  }
  if (results.empty()) {
    err << "redsim: check merge: no results in the files given\n";
    return 2;
  }
  const std::string id = identity(results.front());
  uint64_t seeds = 0, commands = 0;
  double simulated_s = 0;
  std::optional<size_t> worst;  // the result with the lowest failing seed
  std::string shards;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    if (identity(r) != id) {
      err << "redsim: check merge: results of different explorations (" << id << " and "
          << identity(r) << ")\n";
      return 2;
    }
    seeds += r.at("seeds_explored").get<uint64_t>();
    commands += r.at("commands").get<uint64_t>();
    simulated_s += r.at("simulated_seconds").get<double>();
    shards += (shards.empty() ? "" : ", ") +
              (r.contains("shard") ? text_field(r, "shard") : std::string("all"));
    if (r.at("violation").get<bool>() &&
        (!worst || r.at("seed").get<uint64_t>() < results[*worst].at("seed").get<uint64_t>())) {
      worst = i;
    }
  }
  const json& first = results.front();
  const std::string lock = text_field(first, "lock");
  const std::string faults = text_field(first, "faults");
  const std::string strategy = text_field(first, "strategy");
  if (json_out) {
    Json o;
    o["lock"] = lock;
    if (first.contains("script_lock")) o["script_lock"] = text_field(first, "script_lock");
    o["faults"] = faults;
    if (!strategy.empty()) o["strategy"] = strategy;
    o["first_seed"] = first.at("first_seed");
    o["last_seed"] = first.at("last_seed");
    o["results"] = results.size();
    o["seeds_explored"] = seeds;
    o["commands"] = commands;
    o["simulated_seconds"] = simulated_s;
    o["violation"] = worst.has_value();
    if (worst) {
      const json& w = results[*worst];
      o["seed"] = w.at("seed");
      o["replay"] = w.at("replay");
      o["plan"] = w.at("plan");
      o["violations"] = w.at("violations");
    }
    out << dump_json(o);
    out << "}\n";
    return worst ? 1 : 0;
  }
  out << "merged " << results.size() << " results (shards " << shards << "): lock " << lock;
  if (!faults.empty()) out << ", faults " << faults;
  if (!strategy.empty()) out << ", strategy " << strategy;
  out << ", seeds " << first.at("first_seed") << ".." << first.at("last_seed") << "\n"
      << seeds << " seeds explored, " << commands << " commands, " << simulated_s
      << " simulated seconds\n";
  if (!worst) {
    out << "no violation\n";
    return 0;
  }
  const json& w = results[*worst];
  out << "violation found: lowest failing seed " << w.at("seed") << " (shard "
      << (w.contains("shard") ? text_field(w, "shard") : std::string("all")) << ")\n"
      << text_field(w, "plan") << "\n";
  for (const json& v : w.at("violations")) {
    out << "VIOLATION (" << v.at("checker").get<std::string>()
        << "): " << v.at("description").get<std::string>() << "\n";
  }
  out << "replay: " << text_field(w, "replay") << "\n";
  return 1;
}

}  // namespace redsim::cli

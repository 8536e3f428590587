#include "sim/world/script_trace.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <string_view>
#include <utility>

namespace redsim::world {

namespace {

// The script commands whose footprint may narrow once run (FCALL keeps its
// declared one: command_footprint).
bool narrows(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  constexpr std::array<std::string_view, 4> kNames = {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO"};
  const std::string& name = argv[0];
  return std::any_of(kNames.begin(), kNames.end(), [&name](std::string_view n) {
    return name.size() == n.size() &&
           std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
             return a == std::toupper(static_cast<unsigned char>(b));
           });
  });
}

}  // namespace

ScriptTrace::ScriptTrace(Scheduler& sched, sim::Server& server, size_t server_index,
                         const std::vector<std::string>& argv, bool on,
                         std::shared_ptr<const bool> server_effects)
    : sched_(sched),
      server_(server),
      server_index_(server_index),
      argv_(argv),
      server_effects_(std::move(server_effects)) {
  on_ = on && narrows(argv);
  if (on_) server_.log_script_calls(&log_);
}

ScriptTrace::~ScriptTrace() {
  if (on_) server_.log_script_calls(nullptr);
}

void ScriptTrace::finish() {
  if (!on_) return;
  server_.log_script_calls(nullptr);
  on_ = false;
  const std::shared_ptr<const Footprint> declared =
      command_footprint(server_index_, argv_, server_effects_);
  bool within = false;
  std::shared_ptr<const Footprint> as_ran;
  if (declared != nullptr) as_ran = script_footprint(*declared, log_.calls, log_.shared, &within);
  sched_.note_footprint(std::move(as_ran), within);
}

}  // namespace redsim::world

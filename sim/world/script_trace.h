// ScriptTrace: what a script request did on its server, for the exhaustive
// reduction's footprints (explore/exhaustive.h, case 16). Around one
// Server::execute of an EVAL or EVALSHA (or their _RO forms), while the
// world keeps footprints, it logs the commands the script asked to run
// (Server::log_script_calls) and then tells the scheduler the script's
// footprint as it ran (Scheduler::note_footprint, script_footprint).
//
//   ScriptTrace trace(sched, server, index, argv, footprints_on);
//   resp::Reply reply = server.execute(session, argv);
//   trace.finish();
//
// Internal to sim/world (Network::request_arrived); not installed API.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sim/server.h"
#include "sim/world/scheduler.h"

namespace redsim::world {

class ScriptTrace {
 public:
  // Logs nothing unless `on` and argv names EVAL, EVALSHA, EVAL_RO or
  // EVALSHA_RO (case-insensitive).
  // `server_effects`: the server's flag of exhaustive.h case 17.
  ScriptTrace(Scheduler& sched, sim::Server& server, size_t server_index,
              const std::vector<std::string>& argv, bool on,
              std::shared_ptr<const bool> server_effects = nullptr);
  // Stops logging (however execute ended).
  ~ScriptTrace();
  ScriptTrace(const ScriptTrace&) = delete;
  ScriptTrace& operator=(const ScriptTrace&) = delete;
  // After execute returned: notes the running event's footprint as it ran.
  void finish();

 private:
  Scheduler& sched_;
  sim::Server& server_;
  size_t server_index_;
  const std::vector<std::string>& argv_;
  std::shared_ptr<const bool> server_effects_;
  bool on_ = false;
  sim::Server::ScriptCallLog log_;
};

}  // namespace redsim::world

// Internal to sim/world (not installed): the state behind World and
// ProcessEnv, composed of four components, each with its own interface and
// its own header comment (what it owns, its invariants, which components it
// uses):
//
//   Lifecycle (lifecycle.h)   virtual time, the run loop, the history, the
//                             strategy (PCT, exhaustive chooser), the root seed
//   Network   (network.h)     links, round trips, pub/sub, partitions,
//                             delays, losses: message delivery
//   Nodes     (nodes.h)       server nodes and replication: crashes,
//                             restarts, persistence, failover, WAIT, expiry
//   Processes (processes.h)   client processes and tasks: spawn, blocking,
//                             pauses, crashes, restarts, fault points
//
// Runtime only composes them; World (world.cc) and ProcessEnv
// (process_env.cc) reach the component they need. world.h is the contract.
#pragma once

#include "sim/world/lifecycle.h"
#include "sim/world/network.h"
#include "sim/world/nodes.h"
#include "sim/world/processes.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

struct Runtime {
  explicit Runtime(WorldOptions opts);
  // Unwinds every live fiber while everything it may touch still exists,
  // then ends the sessions; the components go in reverse order of
  // declaration (processes, links, nodes, the scheduler last).
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  Lifecycle life;
  Nodes nodes{life, net, procs};
  Network net{life, procs, nodes};
  Processes procs{life, net, nodes};
};

}  // namespace redsim::world::detail

// Private to redsim::explore (not installed; sim/world/explore/explore.h and
// zk_explore.h are the public API): the part of a run that
// run_plan (explore.cc) and run_zk_plan (zk_explore.cc) share.
#pragma once

#include <functional>
#include <vector>

#include "sim/world/explore/explore.h"
#include "sim/world/world.h"

namespace redsim::world {

// Spawns one process per client of `plan` ("client1", "client2", ..., at
// time 0, on the client's PRNG stream) whose body is body(client, env), runs
// `world`, and returns an outcome with its history, choice points and
// pruned flag set; violations and commands are left to the caller.
ExploreOutcome run_clients(World& world, const ExplorePlan& plan,
                           const std::function<void(const ClientPlan&, ProcessEnv&)>& body);

// Appends `found` to out->violations.
void add_violations(ExploreOutcome* out, const std::vector<Violation>& found);

}  // namespace redsim::world

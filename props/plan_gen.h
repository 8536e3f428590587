// RapidCheck generators for exploration plans (sim/world/explore/explore.h): the
// public ones of sim/world/testing/generators.h, under the names props/ uses.
// gen_plan(kind) draws the same ranges as world::generate_plan, but as
// RapidCheck values, so a failing plan shrinks field by field: fewer clients,
// fewer attempts, shorter work, no faults.
#pragma once

#include "sim/world/testing/generators.h"

namespace redsim::props {

using harness::gen_attempt;
using harness::gen_plan;

}  // namespace redsim::props

// The world's name for the leaf probability type base::Ppm (base/ppm.h):
// parts per million, the unit of every chance in a FaultPlan.
#pragma once

#include "base/ppm.h"

namespace redsim::world {

using base::Ppm;

}  // namespace redsim::world

// How RapidCheck prints a resp::Reply in a counterexample: its debug string
// (found by argument-dependent lookup; props/ only).
#pragma once

#include <ostream>

#include "sim/resp/reply.h"

namespace redsim::resp {

inline void showValue(const Reply& r, std::ostream& os) { os << r.debug_string(); }

}  // namespace redsim::resp

// The world's names for the leaf PRNG and hashing helpers (base/prng.h,
// base/hash.h), which every layer shares: Prng, mix64, splitmix64, fnv1a64.
// The algorithm and its specification live in base/prng.h.
#pragma once

#include "base/hash.h"
#include "base/prng.h"

namespace redsim::world {

using base::fnv1a64;
using base::kFnvOffset;
using base::kFnvPrime;
using base::mix64;
using base::Prng;
using base::splitmix64;

}  // namespace redsim::world

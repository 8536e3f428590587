// The faulty world the lock properties run in, drawn with RapidCheck: the
// world seed, then latency, then pauses, then crashes, each up to a bound the
// property gives (props/ only; not installed).
//
//   world::WorldOptions options = gen_world_options(
//       {.latency_us_max = 3000, .pause_ppm_max = 300000, .pause_us_max = 75000,
//        .crash_ppm_max = 20000, .time_limit_us = int64_t{300} * 1000 * 1000});
//   world::World w(options);
//
// The draws are always made in that order, and a fault whose bound is 0 is
// not drawn at all, so a property keeps its values (and its shrinking) when
// it moves to this helper. Pauses last 1 ms up to pause_us_max.
#pragma once

#include <rapidcheck.h>

#include <cstdint>

#include "sim/world/world.h"

namespace redsim::props {

struct FaultRanges {
  // Upper bounds, inclusive; 0 = off, no draw.
  int latency_us_max = 0;
  int pause_ppm_max = 0;
  int64_t pause_us_max = 0;  // the longest pause (the shortest is 1 ms)
  int crash_ppm_max = 0;
  // The world's time limit (virtual time).
  int64_t time_limit_us = world::WorldOptions{}.time_limit_us;
};

inline world::WorldOptions gen_world_options(const FaultRanges& r) {
  world::WorldOptions options;
  options.seed = *rc::gen::arbitrary<uint32_t>();
  if (r.latency_us_max > 0) {
    options.faults.latency_max = world::Micros{*rc::gen::inRange(0, r.latency_us_max + 1)};
  }
  if (r.pause_ppm_max > 0) {
    options.faults.pause_ppm =
        world::Ppm(static_cast<uint32_t>(*rc::gen::inRange(0, r.pause_ppm_max + 1)));
    options.faults.pause_min = world::Micros{1000};
    options.faults.pause_max = world::Micros{r.pause_us_max};
  }
  if (r.crash_ppm_max > 0) {
    options.faults.crash_ppm =
        world::Ppm(static_cast<uint32_t>(*rc::gen::inRange(0, r.crash_ppm_max + 1)));
  }
  options.time_limit_us = r.time_limit_us;
  return options;
}

}  // namespace redsim::props

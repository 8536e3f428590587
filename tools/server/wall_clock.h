// WallClock: the sim::Clock of `redsim server --clock real`. It reads the
// system clock (so TIME, EXPIREAT and TTLs agree with the clients' own
// clocks) and its sleep_us really blocks the calling thread, which is how
// DEBUG SLEEP blocks a single-threaded Redis. Only tools/ may read the wall
// clock; sim/ is always handed a Clock.
//
//   server::WallClock clock;
//   sim::Server fake(clock);
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include "sim/clock.h"

namespace redsim::server {

class WallClock final : public sim::Clock {
 public:
  int64_t now_us() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void sleep_us(int64_t us) override { std::this_thread::sleep_for(std::chrono::microseconds(us)); }
};

}  // namespace redsim::server

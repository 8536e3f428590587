// DriftClock: a clock of the simulated world (one per process, one per
// server node) that runs at its own rate and jumps when told to. It maps
// true virtual time (us since the world started) to what the clock reads.
//
//   world::DriftClock c;                 // reads true time: drift 0, no jump
//   c.set_drift(0, 100);                 // +100 ppm: gains 100 us per true second
//   c.read(1'000'000);                   // 1'000'100
//   c.jump(2'000'000, -500'000);         // at t = 2 s, steps back 0.5 s
//   c.true_duration(1000);               // 1000 us on this clock = 999 us of true time
//
// Semantics (units: us; drift in parts per million, > -1'000'000):
//   read(t) = (what the clock read at its last change) + elapsed + elapsed * drift / 1e6,
//   the product rounded down, elapsed = t - (true time of that change);
//   a jump adds its delta at once (forward or back: the clock is then not
//   monotonic, as a wall clock stepped by NTP or an operator).
// Durations measured on the clock (sleeps, waits, command timeouts) follow
// the rate only: true_duration(d) is how long d of this clock lasts in true
// time, ceil(d * 1e6 / (1e6 + drift)); jumps never shorten or lengthen them,
// as a timer on CLOCK_MONOTONIC is not moved by a step of the wall clock.
//
// Sources: Kleppmann, "How to do distributed locking" (2016) and antirez,
// "Is Redlock safe?" (2016) on drift and jumps; Redis expires keys on its
// own wall clock (mstime), so a server's jump moves every deadline's expiry.
#pragma once

#include <cstdint>

namespace redsim::world {

class DriftClock {
 public:
  static constexpr int64_t kMillion = 1000000;

  int64_t read(int64_t true_us) const { return base_read_us_ + scaled(true_us - base_true_us_); }
  int64_t drift_ppm() const { return drift_ppm_; }

  // From `true_us` on, the clock runs at (1 + ppm / 1e6) times true time.
  // ppm is clamped to > -1e6 (a clock that never stops).
  void set_drift(int64_t true_us, int64_t ppm) {
    rebase(true_us);
    drift_ppm_ = ppm <= -kMillion ? -kMillion + 1 : ppm;
  }
  // At `true_us`, the clock steps by `delta_us` (negative: back).
  void jump(int64_t true_us, int64_t delta_us) {
    rebase(true_us);
    base_read_us_ += delta_us;
  }
  // True time that `clock_us` of this clock lasts (drift only, no jumps),
  // rounded up; 0 for clock_us <= 0.
  int64_t true_duration(int64_t clock_us) const {
    if (clock_us <= 0) return 0;
    if (drift_ppm_ == 0) return clock_us;
    const __int128 num = static_cast<__int128>(clock_us) * kMillion;
    const __int128 den = kMillion + drift_ppm_;
    return static_cast<int64_t>((num + den - 1) / den);
  }

 private:
  int64_t scaled(int64_t dt) const {
    if (drift_ppm_ == 0) return dt;
    const __int128 p = static_cast<__int128>(dt) * drift_ppm_;
    __int128 q = p / kMillion;
    if (p % kMillion != 0 && p < 0) --q;  // floor
    return dt + static_cast<int64_t>(q);
  }
  void rebase(int64_t true_us) {
    base_read_us_ = read(true_us);
    base_true_us_ = true_us;
  }

  int64_t base_true_us_ = 0;
  int64_t base_read_us_ = 0;
  int64_t drift_ppm_ = 0;
};

}  // namespace redsim::world

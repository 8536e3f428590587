// Ppm: a probability in parts per million, the unit of every fault chance in
// a FaultPlan. A strong type, so that a chance is never mistaken for a
// duration or a count, with exact integer arithmetic (the draws that read it,
// Prng::chance, use no floating point, so a seed replays on any platform).
//
//   world::FaultPlan plan;                 // (sim/world/world.h)
//   plan.pause_ppm = base::Ppm(2500);                       // 0.25 %
//   plan.loss_ppm = base::Ppm::from_probability(0.001);     // 1000 ppm
//   if (rng.chance(plan.pause_ppm)) ...
//
// Range: parts() in [0, 1'000'000] means probability parts() / 1e6. A value
// above 1'000'000 is kept as given (a plan's text form round-trips), and
// every draw treats it as certainty, as it does 1'000'000.
#pragma once

#include <compare>
#include <cstdint>
#include <ostream>

namespace redsim::base {

class Ppm {
 public:
  // Parts in one certain event.
  static constexpr uint32_t kMillion = 1'000'000;

  // Zero: never.
  constexpr Ppm() = default;
  constexpr explicit Ppm(uint32_t parts) : parts_(parts) {}

  // The nearest Ppm to probability `p`; p <= 0 (and NaN) gives 0, p >= 1
  // gives 1'000'000. For configuration only: no draw goes through a double.
  static constexpr Ppm from_probability(double p) {
    if (!(p > 0.0)) return Ppm();
    if (p >= 1.0) return Ppm(kMillion);
    return Ppm(static_cast<uint32_t>(p * kMillion + 0.5));
  }
  // Certainty: 1'000'000 parts.
  static constexpr Ppm always() { return Ppm(kMillion); }

  // The raw count of parts per million (what a plan's text form holds).
  constexpr uint32_t parts() const { return parts_; }
  // parts() / 1e6, capped at 1 (for reports; draws use parts()).
  constexpr double probability() const {
    return parts_ >= kMillion ? 1.0 : static_cast<double>(parts_) / kMillion;
  }
  // True when this chance is not zero (the fault can happen at all).
  constexpr explicit operator bool() const { return parts_ != 0; }

  friend constexpr auto operator<=>(Ppm, Ppm) = default;

 private:
  uint32_t parts_ = 0;
};

// Writes parts() ("2500"), the number a plan's text and reports show.
inline std::ostream& operator<<(std::ostream& os, Ppm p) { return os << p.parts(); }

}  // namespace redsim::base

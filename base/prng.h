// Prng: the simulation's own small, fully specified pseudo-random generator.
// Every random choice of a world (latencies, faults, client ids, the
// processes' random_u64) comes from one of these, forked from the world's
// seed, so a seed replays byte for byte on any standard library. (No
// std::*_distribution: their algorithms differ between implementations.)
//
//   base::Prng root(42);
//   base::Prng net = root.fork("network");     // independent sub-stream
//   int64_t latency_us = net.uniform(100, 900);  // inclusive, unbiased
//   if (net.chance(base::Ppm(2500))) ...         // 0.25 % (base/ppm.h)
//
// Algorithm (the specification the replay depends on):
// - State: xoshiro256** (Blackman & Vigna, 2018), four 64-bit words filled by
//   four successive outputs of splitmix64 started at the seed.
// - below(n): lemire_below (base/hash.h): unbiased.
// - fork(tag): a new generator seeded with mix64(seed ^ mix64(tag + k)) where
//   seed is this generator's own seed (not its current state): forks do not
//   depend on how many numbers were drawn before, so adding a draw in one
//   component never shifts another component's stream.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/hash.h"
#include "base/ppm.h"

namespace redsim::base {

class Prng {
 public:
  explicit constexpr Prng(uint64_t seed) : seed_(seed) {
    uint64_t sm = seed;
    for (uint64_t& word : s_) word = splitmix64(sm);
  }

  // The seed this generator was built from (forks derive from it).
  constexpr uint64_t seed() const { return seed_; }

  // xoshiro256**: the next 64 uniformly distributed bits.
  constexpr uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // A uniform value in [0, n); 0 when n == 0 (no draw).
  constexpr uint64_t below(uint64_t n) {
    return lemire_below(n, [this] { return next_u64(); });
  }

  // A uniform value in [lo, hi], both inclusive; lo when hi <= lo (no draw).
  constexpr int64_t uniform(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t offset = span == UINT64_MAX ? next_u64() : below(span + 1);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
  }

  // True with probability ppm / 1,000,000. ppm 0 is always false and ppm >=
  // 1,000,000 always true, without a draw; anything between draws once.
  constexpr bool chance(uint32_t ppm) {
    if (ppm == 0) return false;
    if (ppm >= kMillion) return true;
    return below(kMillion) < ppm;
  }
  // The same draw for a typed chance (base/ppm.h).
  constexpr bool chance(Ppm p) { return chance(p.parts()); }

  // An independent generator for a component, derived from seed() and `tag`.
  constexpr Prng fork(uint64_t tag) const {
    return Prng(mix64(seed_ ^ mix64(tag + 0x6A09E667F3BCC909ULL)));
  }
  constexpr Prng fork(std::string_view tag) const { return fork(fnv1a64(tag)); }

 private:
  static constexpr uint32_t kMillion = 1000000;
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t seed_;
  uint64_t s_[4] = {};
};

}  // namespace redsim::base

// Prng: the simulation's own small, fully specified pseudo-random generator.
// Every random choice of a world (latencies, faults, client ids, the
// processes' random_u64) comes from one of these, forked from the world's
// seed, so a seed replays byte for byte on any standard library. (No
// std::*_distribution: their algorithms differ between implementations.)
//
//   world::Prng root(42);
//   world::Prng net = root.fork("network");     // independent sub-stream
//   int64_t latency_us = net.uniform(100, 900);  // inclusive, unbiased
//   if (net.chance(2500)) ...                    // 0.25 % (parts per million)
//
// Algorithm (the specification the replay depends on):
// - State: xoshiro256** (Blackman & Vigna, 2018), four 64-bit words filled by
//   four successive outputs of splitmix64 started at the seed.
// - below(n): Lemire's multiply-shift with rejection ("Fast Random Integer
//   Generation in an Interval", 2019): unbiased.
// - fork(tag): a new generator seeded with mix64(seed ^ mix64(tag + k)) where
//   seed is this generator's own seed (not its current state): forks do not
//   depend on how many numbers were drawn before, so adding a draw in one
//   component never shifts another component's stream.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/world/ppm.h"

namespace redsim::world {

// splitmix64's output function (Steele, Lea & Flood, 2014): a bijective mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One splitmix64 step: advances `state` and returns the next output.
constexpr uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  return mix64(state);
}

// FNV-1a, 64 bit (Fowler, Noll, Vo): hashes fork tags and histories.
inline constexpr uint64_t kFnvOffset = 0xCBF29CE484222325ULL;
inline constexpr uint64_t kFnvPrime = 0x100000001B3ULL;
constexpr uint64_t fnv1a64(std::string_view bytes, uint64_t hash = kFnvOffset) {
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

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
    if (n == 0) return 0;
    unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next_u64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
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
  // The same draw for a typed chance (sim/world/ppm.h).
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

}  // namespace redsim::world

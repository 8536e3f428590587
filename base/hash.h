// Hashing helpers every layer may use (base/ depends on nothing else of
// redsim): splitmix64's mixer and step, and 64-bit FNV-1a. All constexpr
// and fully specified, so a hash or a seed derived from them is the same on
// every platform and standard library.
//
//   uint64_t h = base::mix64(base::fnv1a64("lock:a"));  // a fixed 64-bit hash
//   uint64_t state = seed;
//   uint64_t x = base::splitmix64(state);               // the next output
#pragma once

#include <cstdint>
#include <string_view>

namespace redsim::base {

// splitmix64's output function (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", 2014): a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One splitmix64 step: advances `state` by the golden gamma and returns the
// mixed value.
constexpr uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  return mix64(state);
}

// FNV-1a, 64 bit (Fowler, Noll, Vo): of `bytes`, continuing from `hash`.
inline constexpr uint64_t kFnvOffset = 0xCBF29CE484222325ULL;
inline constexpr uint64_t kFnvPrime = 0x100000001B3ULL;
constexpr uint64_t fnv1a64(std::string_view bytes, uint64_t hash = kFnvOffset) {
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

// A uniform value in [0, n) from a source of uniform 64-bit words `next`
// (called once, or more on rejection); 0 when n == 0, without a call.
// Lemire's multiply-shift with rejection ("Fast Random Integer Generation in
// an Interval", 2019): unbiased, no division on the common path.
template <class Next>
constexpr uint64_t lemire_below(uint64_t n, Next&& next) {
  if (n == 0) return 0;
  unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

}  // namespace redsim::base

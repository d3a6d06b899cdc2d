// The random ops' generator: a counter-based SplitMix64 stream, so that a seeded model gives the
// same numbers on every platform and standard library (std:: distributions differ between
// libstdc++, libc++ and MSVC), and element i can be computed without the ones before it.
//
//   key       = Mix(bits of the float seed)                  (or a fresh key per run, unseeded)
//   Word(key, i) = Mix(key + (i + 1) * 0x9E3779B97F4A7C15)   (SplitMix64's i-th output from key)
//   Uniform01(key, i) = (Word(key, i) >> 11) * 2^-53          in [0, 1)
//   StandardNormal(key, i): Box-Muller on words 2i and 2i + 1:
//       sqrt(-2 ln(1 - u1)) * cos(2 pi u2)
// Mix is SplitMix64's finalizer (Steele, Lea and Flood, 2014). The unit tests recompute these
// formulas independently to check seeded draws value by value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace prism::cpu {

inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint64_t KeyFromSeed(float seed) {
  uint32_t bits = 0;
  std::memcpy(&bits, &seed, sizeof(bits));
  return Mix64(bits);
}

inline uint64_t RandomWord(uint64_t key, uint64_t index) {
  return Mix64(key + (index + 1) * kGoldenGamma);
}

inline double Uniform01(uint64_t key, uint64_t index) {
  return static_cast<double>(RandomWord(key, index) >> 11) * 0x1p-53;
}

inline double StandardNormal(uint64_t key, uint64_t index) {
  constexpr double kTwoPiNormal = 6.283185307179586476925286766559;
  const double u1 = Uniform01(key, 2 * index);
  const double u2 = Uniform01(key, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(kTwoPiNormal * u2);
}

}  // namespace prism::cpu

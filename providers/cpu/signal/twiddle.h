// Twiddle factors shared by the signal kernels (the FFT behind DFT and STFT, the windows):
// e^(sign * 2 pi i r / n) in double, exact at the quarter turns, where cos and sin of the rounded
// angle would leave 1e-16 residues instead of 0 (a Hann window's first sample, the imaginary part
// of a DC bin).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>

namespace prism::cpu {

inline constexpr double kTwoPi = 6.283185307179586476925286766559;

// r in [0, n), n > 0.
inline std::complex<double> Twiddle(int64_t r, int64_t n, double sign) {
  if ((4 * r) % n == 0) {
    switch ((4 * r / n) % 4) {
      case 0:
        return {1, 0};
      case 1:
        return {0, sign};
      case 2:
        return {-1, 0};
      default:
        return {0, -sign};
    }
  }
  const double angle = sign * kTwoPi * static_cast<double>(r) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace prism::cpu

// The signal kernels' FFT plan (providers/cpu/signal/fft.h) against the direct sum computed in
// long double, both directions: every length 1..64 (each radix and the generic odd butterfly),
// the primes either side of the Bluestein threshold, and longer mixed, prime (Bluestein) and
// power-of-two lengths; and the forward-inverse round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "providers/cpu/signal/fft.h"

namespace prism::cpu {
namespace {

using Complex = std::complex<double>;
using LongComplex = std::complex<long double>;

std::vector<Complex> RandomSignal(int64_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Complex> signal(static_cast<size_t>(n));
  for (Complex& x : signal) x = Complex(value(engine), value(engine));
  return signal;
}

std::vector<LongComplex> DirectSum(const std::vector<Complex>& x, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  const long double sign = inverse ? 1.0L : -1.0L;
  const long double two_pi = 6.283185307179586476925286766559005768L;
  std::vector<LongComplex> roots(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    const long double angle = sign * two_pi * static_cast<long double>(r) / n;
    roots[r] = LongComplex(std::cos(angle), std::sin(angle));
  }
  std::vector<LongComplex> spectrum(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    LongComplex sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += LongComplex(x[j]) * roots[j * k % n];
    spectrum[k] = sum;
  }
  return spectrum;
}

std::vector<Complex> Transform(const FftPlan& plan, std::vector<Complex> data) {
  // Scratch starts as NaN: a plan that read it before writing would poison the result.
  std::vector<Complex> scratch(plan.ScratchSize(),
                               Complex(std::numeric_limits<double>::quiet_NaN(), 0));
  plan.Execute(data.data(), scratch.data());
  return data;
}

// The largest error over the spectrum's 2-norm.
double RelativeError(const std::vector<Complex>& actual, const std::vector<LongComplex>& expected) {
  long double norm = 0, worst = 0;
  for (size_t k = 0; k < expected.size(); ++k) {
    norm += std::norm(expected[k]);
    worst = std::max(worst, std::abs(LongComplex(actual[k]) - expected[k]));
  }
  return static_cast<double>(worst / std::sqrt(norm));
}

std::vector<int64_t> TestedLengths() {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 64; ++n) lengths.push_back(n);
  for (int64_t n : {83,  89,  97,  127,  128,  166,  210,  256,  257,  400,
                    509, 512, 999, 1000, 1001, 1009, 1024, 1028, 2310, 4096})
    lengths.push_back(n);
  return lengths;
}

TEST(FftTest, MatchesTheLongDoubleDirectSumInBothDirections) {
  for (int64_t n : TestedLengths()) {
    for (bool inverse : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "n " << n << (inverse ? " inverse" : " forward"));
      const FftPlan plan(n, inverse);
      ASSERT_EQ(plan.Size(), n);
      const std::vector<Complex> signal = RandomSignal(n, static_cast<unsigned>(n * 2 + inverse));
      const std::vector<Complex> spectrum = Transform(plan, signal);
      ASSERT_EQ(spectrum.size(), static_cast<size_t>(n));
      EXPECT_LT(RelativeError(spectrum, DirectSum(signal, inverse)), 1e-14);
    }
  }
}

TEST(FftTest, ForwardThenInverseGivesBackTheSignalTimesN) {
  for (int64_t n : TestedLengths()) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const std::vector<Complex> signal = RandomSignal(n, static_cast<unsigned>(n));
    std::vector<Complex> back = Transform(FftPlan(n, true), Transform(FftPlan(n, false), signal));
    double worst = 0;
    for (int64_t j = 0; j < n; ++j)
      worst = std::max(worst, std::abs(back[j] / static_cast<double>(n) - signal[j]));
    EXPECT_LT(worst, 1e-14);
  }
}

TEST(FftTest, LargePrimeFactorsGoToBluestein) {
  for (int64_t n : {1, 2, 7, 210, 1001, 4096, 83, 2 * 3 * 83})
    EXPECT_FALSE(FftPlan(n, false).UsesBluestein()) << n;
  for (int64_t n : {89, 97, 257, 1009, 4 * 257, 3 * 89})
    EXPECT_TRUE(FftPlan(n, false).UsesBluestein()) << n;
  static_assert(FftPlan::kMaxButterflyRadix == 83, "update the lengths above");
}

// A real impulse: every bin is exactly 1 (the twiddles at the quarter turns are exact, and the
// DC bin is a plain sum), whichever path the length takes.
TEST(FftTest, ImpulseGivesAFlatSpectrum) {
  for (int64_t n : {1, 2, 4, 8, 12, 30, 210}) {
    std::vector<Complex> impulse(static_cast<size_t>(n), Complex(0, 0));
    impulse[0] = 1;
    for (const Complex& bin : Transform(FftPlan(n, false), impulse))
      EXPECT_EQ(bin, Complex(1, 0)) << n;
  }
}

TEST(FftTest, RefusesLengthsOutOfRange) {
  EXPECT_ANY_THROW(FftPlan(0, false));
  EXPECT_ANY_THROW(FftPlan(-4, true));
  EXPECT_ANY_THROW(FftPlan((int64_t{1} << 60) + 1, false));
}

}  // namespace
}  // namespace prism::cpu

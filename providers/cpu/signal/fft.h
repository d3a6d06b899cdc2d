// The fast Fourier transform behind the signal kernels (DFT, STFT): X[k] = sum_j x[j]
// e^(sign 2 pi i jk / n), sign -1 forward and +1 inverse, unscaled, in double, in O(n log n) for
// every n >= 1. A plan is built once per (length, direction) and executed on many signals.
// Lengths whose prime factors are all small run a mixed-radix Cooley-Tukey FFT (Stockham
// autosort: each pass reads one buffer and writes the other in natural order, so no bit
// reversal); a length with a larger prime factor runs Bluestein's chirp-z algorithm, a
// convolution done by power-of-two FFTs, where a generic prime butterfly would cost O(n p).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace prism::cpu {

class FftPlan {
 public:
  // Prime factors up to this run as Cooley-Tukey butterflies; a larger one sends the whole
  // length to Bluestein (the timings are in fft.cc).
  static constexpr int kMaxButterflyRadix = 83;

  FftPlan(int64_t n, bool inverse);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  int64_t Size() const { return n_; }
  bool UsesBluestein() const { return convolution_ != nullptr; }
  // The number of elements Execute needs in its scratch buffer.
  size_t ScratchSize() const { return scratch_size_; }
  // Transforms data[0, n) in place; scratch holds ScratchSize() elements (any contents).
  void Execute(std::complex<double>* data, std::complex<double>* scratch) const;

 private:
  struct Pass {
    int radix;
    int64_t stride;         // the product of the radices of the earlier passes
    int64_t length;         // the length of each sub-transform this pass starts (radix * m)
    size_t twiddle_offset;  // into twiddles_: [j][k - 1], j < length / radix, 0 < k < radix
    size_t root_offset;     // into roots_ (generic radices): e^(sign 2 pi i t / radix), t < radix
  };

  void RunPasses(std::complex<double>* data, std::complex<double>* scratch) const;
  void RunBluestein(std::complex<double>* data, std::complex<double>* scratch) const;

  int64_t n_;
  double sign_;
  size_t scratch_size_ = 0;
  std::vector<Pass> passes_;
  std::vector<std::complex<double>> twiddles_;
  std::vector<std::complex<double>> roots_;
  // Bluestein: x[j] e^(sign pi i j^2 / n) convolved with the conjugate chirp, through a forward
  // FFT of a power-of-two length m >= 2n - 1.
  std::unique_ptr<FftPlan> convolution_;
  std::vector<std::complex<double>> chirp_;   // e^(sign pi i j^2 / n), j < n
  std::vector<std::complex<double>> kernel_;  // FFT_m of the conjugate chirp, divided by m
};

}  // namespace prism::cpu

// Stockham passes: a pass of radix p over sub-transforms of length L = p m at stride s (the
// product of the earlier radices) reads a_r = x[q + s (j + r m)] for r < p and writes
// y[q + s (p j + k)] = W_L^(jk) sum_r a_r W_p^(rk), for j < m, q < s, k < p; after the last pass
// the spectrum is in natural order. Twiddles come from Twiddle() (exact at the quarter turns),
// precomputed per pass in the order the pass reads them.
//
// The Bluestein threshold, kMaxButterflyRadix = 83, timed on a 2-core Xeon (no AVX in this
// code): a prime length p through the generic butterfly (about p^2 / 2 real-complex products)
// against Bluestein (two power-of-two FFTs of length >= 2p - 1 per transform), in us: 61: 1.7
// against 1.5; 67: 2.0 against 3.2 (Bluestein's length doubles to 256); 79: 2.7 against 3.3;
// 83: 3.1 against 3.3; 97: 4.1 against 3.3. As a factor of a longer length the butterfly wins
// further: 16 * 97 takes 71 us against 74, 1024 * 97 5.2 ms against 9.1.
#include "providers/cpu/signal/fft.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/status.h"
#include "providers/cpu/signal/twiddle.h"

namespace prism::cpu {
namespace {

using Complex = std::complex<double>;

// std::complex's operator* checks every product for NaN and infinity (a libgcc call on the slow
// path, which also keeps the loops from vectorizing); the plain formula is all an FFT needs.
inline Complex Mul(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// sign * i * z
inline Complex TimesI(Complex z, double sign) {
  return {-sign * z.imag(), sign * z.real()};
}

// The butterflies: b[k] = sum_r a[r] W_p^(rk), W_p = e^(sign 2 pi i / p), then b[k] *= w[k - 1]
// for k > 0. a[r] sits at in[r * in_step], b[k] goes to out[k * out_step].
struct Radix2 {
  static void Run(const Complex* in, int64_t in_step, Complex* out, int64_t out_step,
                  const Complex* w, double /*sign*/, const Complex* /*roots*/, int /*radix*/) {
    const Complex a0 = in[0], a1 = in[in_step];
    out[0] = a0 + a1;
    out[out_step] = Mul(a0 - a1, w[0]);
  }
};

struct Radix3 {
  static void Run(const Complex* in, int64_t in_step, Complex* out, int64_t out_step,
                  const Complex* w, double sign, const Complex* /*roots*/, int /*radix*/) {
    constexpr double kSin60 = 0.86602540378443864676372317075294;
    const Complex a0 = in[0], a1 = in[in_step], a2 = in[2 * in_step];
    const Complex sum = a1 + a2;
    const Complex mid = a0 - 0.5 * sum;
    const Complex rot = TimesI(kSin60 * (a1 - a2), sign);
    out[0] = a0 + sum;
    out[out_step] = Mul(mid + rot, w[0]);
    out[2 * out_step] = Mul(mid - rot, w[1]);
  }
};

struct Radix4 {
  static void Run(const Complex* in, int64_t in_step, Complex* out, int64_t out_step,
                  const Complex* w, double sign, const Complex* /*roots*/, int /*radix*/) {
    const Complex a0 = in[0], a1 = in[in_step], a2 = in[2 * in_step], a3 = in[3 * in_step];
    const Complex even_sum = a0 + a2, even_diff = a0 - a2;
    const Complex odd_sum = a1 + a3, odd_rot = TimesI(a1 - a3, sign);
    out[0] = even_sum + odd_sum;
    out[out_step] = Mul(even_diff + odd_rot, w[0]);
    out[2 * out_step] = Mul(even_sum - odd_sum, w[1]);
    out[3 * out_step] = Mul(even_diff - odd_rot, w[2]);
  }
};

struct Radix5 {
  static void Run(const Complex* in, int64_t in_step, Complex* out, int64_t out_step,
                  const Complex* w, double sign, const Complex* /*roots*/, int /*radix*/) {
    constexpr double kCos1 = 0.30901699437494742410229341718282;   // cos(2 pi / 5)
    constexpr double kCos2 = -0.80901699437494742410229341718282;  // cos(4 pi / 5)
    constexpr double kSin1 = 0.95105651629515357211643933337938;   // sin(2 pi / 5)
    constexpr double kSin2 = 0.58778525229247312916870595463907;   // sin(4 pi / 5)
    const Complex a0 = in[0], a1 = in[in_step], a2 = in[2 * in_step], a3 = in[3 * in_step],
                  a4 = in[4 * in_step];
    const Complex t1 = a1 + a4, t2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
    const Complex c1 = a0 + kCos1 * t1 + kCos2 * t2, c2 = a0 + kCos2 * t1 + kCos1 * t2;
    const Complex s1 = TimesI(kSin1 * d1 + kSin2 * d2, sign);
    const Complex s2 = TimesI(kSin2 * d1 - kSin1 * d2, sign);
    out[0] = a0 + t1 + t2;
    out[out_step] = Mul(c1 + s1, w[0]);
    out[2 * out_step] = Mul(c2 + s2, w[1]);
    out[3 * out_step] = Mul(c2 - s2, w[2]);
    out[4 * out_step] = Mul(c1 - s1, w[3]);
  }
};

// Any odd radix up to kMaxButterflyRadix: inputs r and p - r pair up, so b[k] and b[p - k]
// share the cosine sum and differ in the sign of the sine sum. roots[t] = W_p^t (sign included).
struct RadixOdd {
  static void Run(const Complex* in, int64_t in_step, Complex* out, int64_t out_step,
                  const Complex* w, double /*sign*/, const Complex* roots, int radix) {
    constexpr int kHalf = FftPlan::kMaxButterflyRadix / 2;
    std::array<Complex, kHalf + 1> sums, diffs;
    const int half = radix / 2;
    const Complex a0 = in[0];
    Complex total = a0;
    for (int r = 1; r <= half; ++r) {
      const Complex low = in[r * in_step], high = in[(radix - r) * in_step];
      sums[r] = low + high;
      diffs[r] = low - high;
      total += sums[r];
    }
    out[0] = total;
    for (int k = 1; k <= half; ++k) {
      Complex cosines = a0, sines = 0;
      int turn = 0;  // r k mod p
      for (int r = 1; r <= half; ++r) {
        turn += k;
        if (turn >= radix) turn -= radix;
        cosines += roots[turn].real() * sums[r];
        sines += roots[turn].imag() * diffs[r];
      }
      const Complex rot = TimesI(sines, 1.0);
      out[k * out_step] = Mul(cosines + rot, w[k - 1]);
      out[(radix - k) * out_step] = Mul(cosines - rot, w[radix - k - 1]);
    }
  }
};

template <typename Butterfly>
void RunPass(int radix, int64_t stride, int64_t length, const Complex* twiddles,
             const Complex* roots, double sign, const Complex* x, Complex* y) {
  const int64_t m = length / radix;
  for (int64_t j = 0; j < m; ++j) {
    const Complex* w = twiddles + j * (radix - 1);
    const Complex* in = x + stride * j;
    Complex* out = y + stride * radix * j;
    for (int64_t q = 0; q < stride; ++q)
      Butterfly::Run(in + q, stride * m, out + q, stride, w, sign, roots, radix);
  }
}

}  // namespace

FftPlan::FftPlan(int64_t n, bool inverse) : n_(n), sign_(inverse ? 1.0 : -1.0) {
  // The bound keeps Bluestein's 2n - 1 and its power of two clear of overflow (an output that
  // long was refused before any plan is made).
  PRISM_ENFORCE(n > 0 && n <= (int64_t{1} << 60), kInvalidArgument,
                "FFT length must be in [1, 2^60], got ", n);
  std::vector<int> radices;
  int64_t rest = n;
  while (rest % 4 == 0) {
    radices.push_back(4);
    rest /= 4;
  }
  if (rest % 2 == 0) {
    radices.push_back(2);
    rest /= 2;
  }
  for (int p = 3; p <= kMaxButterflyRadix && rest > 1; p += 2)
    while (rest % p == 0) {
      radices.push_back(p);
      rest /= p;
    }
  if (rest > 1) {
    // A prime factor too large for a butterfly: Bluestein, x[j] W^(jk) = c[j] c[k] conj(c[k - j])
    // with c[j] = e^(sign pi i j^2 / n), so X = c . (conv(c . x, conj(c))) by a cyclic
    // convolution of length m >= 2n - 1 (no wrap-around of the lags -(n-1) .. n-1).
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    convolution_ = std::make_unique<FftPlan>(m, false);
    chirp_.resize(static_cast<size_t>(n));
    int64_t turn = 0;  // j^2 mod 2n, stepped by (j + 1)^2 - j^2 = 2j + 1
    for (int64_t j = 0; j < n; ++j) {
      chirp_[j] = Twiddle(turn, 2 * n, sign_);
      turn += 2 * j + 1;
      if (turn >= 2 * n) turn -= 2 * n;
    }
    kernel_.assign(static_cast<size_t>(m), Complex(0, 0));
    kernel_[0] = std::conj(chirp_[0]);
    for (int64_t d = 1; d < n; ++d) kernel_[d] = kernel_[m - d] = std::conj(chirp_[d]);
    std::vector<Complex> scratch(convolution_->ScratchSize());
    convolution_->Execute(kernel_.data(), scratch.data());
    for (Complex& value : kernel_) value /= static_cast<double>(m);
    scratch_size_ = static_cast<size_t>(m) + convolution_->ScratchSize();
    return;
  }
  int64_t stride = 1;
  for (int radix : radices) {
    const int64_t length = n / stride;
    Pass pass{radix, stride, length, twiddles_.size(), roots_.size()};
    for (int64_t j = 0; j < length / radix; ++j)
      for (int k = 1; k < radix; ++k) twiddles_.push_back(Twiddle(j * k * stride, n, sign_));
    if (radix > 5)
      for (int t = 0; t < radix; ++t) roots_.push_back(Twiddle(t, radix, sign_));
    passes_.push_back(pass);
    stride *= radix;
  }
  scratch_size_ = static_cast<size_t>(n);
}

FftPlan::~FftPlan() = default;

void FftPlan::Execute(Complex* data, Complex* scratch) const {
  if (convolution_ != nullptr) {
    RunBluestein(data, scratch);
  } else {
    RunPasses(data, scratch);
  }
}

void FftPlan::RunPasses(Complex* data, Complex* scratch) const {
  Complex* x = data;
  Complex* y = scratch;
  for (const Pass& pass : passes_) {
    const Complex* twiddles = twiddles_.data() + pass.twiddle_offset;
    const Complex* roots = roots_.data() + pass.root_offset;
    const auto run = [&](auto butterfly) {
      RunPass<decltype(butterfly)>(pass.radix, pass.stride, pass.length, twiddles, roots, sign_, x,
                                   y);
    };
    switch (pass.radix) {
      case 2:
        run(Radix2{});
        break;
      case 3:
        run(Radix3{});
        break;
      case 4:
        run(Radix4{});
        break;
      case 5:
        run(Radix5{});
        break;
      default:
        run(RadixOdd{});
        break;
    }
    std::swap(x, y);
  }
  if (x != data) std::copy(x, x + n_, data);
}

void FftPlan::RunBluestein(Complex* data, Complex* scratch) const {
  const int64_t m = convolution_->Size();
  Complex* work = scratch;
  Complex* inner_scratch = scratch + m;
  for (int64_t j = 0; j < n_; ++j) work[j] = Mul(data[j], chirp_[j]);
  std::fill(work + n_, work + m, Complex(0, 0));
  convolution_->Execute(work, inner_scratch);
  for (int64_t j = 0; j < m; ++j) work[j] = Mul(work[j], kernel_[j]);
  // The inverse transform as a forward one read backwards: FFT(Y)[(m - k) mod m] = m IFFT(Y)[k]
  // (kernel_ holds the 1 / m).
  convolution_->Execute(work, inner_scratch);
  for (int64_t k = 0; k < n_; ++k) data[k] = Mul(work[(m - k) & (m - 1)], chirp_[k]);
}

}  // namespace prism::cpu

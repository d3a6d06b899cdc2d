// e^x, ln x, tanh, the logistic sigmoid and the softmax steps, kErfLanes floats at a time (one
// zmm on the AVX-512 level, 8 lanes elsewhere); part of isa_kernels_impl.h, which includes it
// after the erf kernels whose vector types and Horner helper it shares. Every lane runs the same
// operations and selects among the branches at the end, so the loops have no per-element
// branches; accuracy is stated per function and tested against double references
// (tests/unit/mlas/transcendental_kernels_test.cc).

// a > b ? a : b and a < b ? a : b, lane by lane: b where either is NaN, as x86's maxps/minps
// give (one instruction each, where the generic select is a compare and a blend).
inline ErfF SelectMax(ErfF a, ErfF b) {
#if defined(__AVX512F__)
  return std::bit_cast<ErfF>(_mm512_max_ps(std::bit_cast<__m512>(a), std::bit_cast<__m512>(b)));
#elif defined(__AVX2__)
  return std::bit_cast<ErfF>(_mm256_max_ps(std::bit_cast<__m256>(a), std::bit_cast<__m256>(b)));
#else
  return a > b ? a : b;
#endif
}

inline ErfF SelectMin(ErfF a, ErfF b) {
#if defined(__AVX512F__)
  return std::bit_cast<ErfF>(_mm512_min_ps(std::bit_cast<__m512>(a), std::bit_cast<__m512>(b)));
#elif defined(__AVX2__)
  return std::bit_cast<ErfF>(_mm256_min_ps(std::bit_cast<__m256>(a), std::bit_cast<__m256>(b)));
#else
  return a < b ? a : b;
#endif
}

// p 2^n for integral n in [-160, 128]: AVX-512's scalef does it in one instruction, rounding
// denormal results and overflowing to infinity; elsewhere 2^n is applied as two factors
// 2^(n/2) 2^(n - n/2) built in the exponent bits, each within the normal range.
inline ErfF ScaleByPowerOfTwo(ErfF p, ErfF n) {
#if defined(__AVX512F__)
  return std::bit_cast<ErfF>(_mm512_scalef_ps(std::bit_cast<__m512>(p), std::bit_cast<__m512>(n)));
#else
  const ErfI whole = __builtin_convertvector(n, ErfI);
  const ErfI half = whole >> 1;  // floor(n / 2)
  const ErfF first = std::bit_cast<ErfF>((half + 127) << 23);
  const ErfF second = std::bit_cast<ErfF>((whole - half + 127) << 23);
  return (p * first) * second;
#endif
}

// e^x within 2 ulp over the whole float range: x = n ln2 + r with |r| <= ln2 / 2 (ln2 in two
// parts, n ln2_hi exact), e^r by a degree-6 polynomial (fitted for Prism toward the minimax
// relative error: 1.7e-8 over the interval with the float coefficients), times 2^n, so that
// results in the denormal range come out gradually, below it 0, and past the largest float
// infinity. x is clamped to [-110, 89] first (e^-110 rounds to 0, e^89 overflows); the clamps
// pass NaN through, and every later step keeps it.
inline ErfF ExpLanes(ErfF x) {
  const ErfF clamped = SelectMin(SplatErf(89.0f), SelectMax(SplatErf(-110.0f), x));
  const ErfF shifter = SplatErf(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const ErfF n = (clamped * 1.44269504088896341f + shifter) - shifter;
  const ErfF r = (clamped - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
  constexpr float kExpPolynomial[] = {1.0f,
                                      1.0f,
                                      0.4999999403953552f,
                                      0.16666431725025177f,
                                      0.04166800156235695f,
                                      0.00837415549904108f,
                                      0.0013843653723597527f};
  return ScaleByPowerOfTwo(HornerErf(r, kExpPolynomial), n);
}

// ln x within 2 ulp of the result or 1e-45 absolute: x = m 2^e with m in [sqrt(1/2), sqrt(2))
// (denormals scaled by 2^23 first), ln m = 2 atanh(t) = 2 (t + t^3/3 + ... + t^11/11) with
// t = (m - 1) / (m + 1), |t| <= 0.1716 (remainder below 1e-10 relative), plus e ln2 in two
// parts. ln 0 = -inf, ln of a negative number NaN, ln inf = inf, NaN stays NaN.
inline ErfF LogLanes(ErfF x) {
  const ErfF smallest_normal = SplatErf(std::numeric_limits<float>::min());
  const auto denormal = x < smallest_normal;
  const ErfF scaled = denormal ? x * 8388608.0f : x;
  const ErfI bits = std::bit_cast<ErfI>(scaled);
  const ErfI exponent = (bits - SplatErfI(0x3F3504F3)) >> 23;  // 0x3F3504F3: sqrt(1/2)
  const ErfF m = std::bit_cast<ErfF>(bits - (exponent << 23));
  const ErfF e =
      __builtin_convertvector(exponent, ErfF) - (denormal ? SplatErf(23.0f) : SplatErf(0.0f));
  const ErfF t = (m - 1.0f) / (m + 1.0f);
  const ErfF t2 = t * t;
  constexpr float kAtanh[] = {1.0f / 3.0f, 1.0f / 5.0f, 1.0f / 7.0f, 1.0f / 9.0f, 1.0f / 11.0f};
  const ErfF two_t = t + t;
  const ErfF log_m = two_t + two_t * t2 * HornerErf(t2, kAtanh);
  const ErfF result = e * 0.693145751953125f + (log_m + e * 1.42860682030941723212e-6f);
  const ErfF inf = SplatErf(std::numeric_limits<float>::infinity());
  const ErfF nan = SplatErf(std::numeric_limits<float>::quiet_NaN());
  ErfF out = x == inf ? inf : result;
  out = x == 0.0f ? -inf : out;
  out = x < 0.0f ? nan : out;
  return x == x ? out : x;
}

// tanh x within 3e-7 relative: for |x| < 0.3 the odd Taylor polynomial to x^11 (remainder below
// 2e-9 relative), beyond it sign(x) (1 - t) / (1 + t) with t = e^(-2|x|) (no cancellation there:
// t <= 0.55, and t -> 0 gives +-1 from |x| = 9 on). NaN stays NaN.
inline ErfF TanhLanes(ErfF x) {
  const ErfF magnitude = AbsErf(x);
  constexpr float kTanhTaylor[] = {
      1.0f, -1.0f / 3.0f, 2.0f / 15.0f, -17.0f / 315.0f, 62.0f / 2835.0f, -1382.0f / 155925.0f};
  const ErfF small = x * HornerErf(x * x, kTanhTaylor);
  const ErfF t = ExpLanes(-2.0f * magnitude);
  const ErfF large_magnitude = (1.0f - t) / (1.0f + t);
  const ErfI sign = std::bit_cast<ErfI>(x) & SplatErfI(static_cast<int32_t>(0x80000000u));
  const ErfF large = std::bit_cast<ErfF>(std::bit_cast<ErfI>(large_magnitude) | sign);
  const ErfF result = magnitude < 0.3f ? small : large;
  return x == x ? result : x;
}

// 1 / (1 + e^-x) within 4 ulp: with t = e^-|x| (at most 1), 1 / (1 + t) for x >= 0 and
// t / (1 + t) below 0, neither of which cancels. NaN stays NaN.
inline ErfF SigmoidLanes(ErfF x) {
  const ErfF t = ExpLanes(-AbsErf(x));
  const ErfF inverse = 1.0f / (1.0f + t);
  const ErfF result = x >= 0.0f ? inverse : t * inverse;
  return x == x ? result : x;
}

void ExpF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) { return ExpLanes(x); });
}

void LogF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) { return LogLanes(x); });
}

void TanhF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) { return TanhLanes(x); });
}

void SigmoidF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) { return SigmoidLanes(x); });
}

// The sum and the maximum of a vector's lanes by halves (log2 lanes dependent steps, where a lane
// by lane loop is a chain of one per lane: a softmax row of 128 floats spent about as long
// reducing its sum and maximum as computing them). HorizontalMax's lanes hold no NaN. (Generic
// shuffles and selects: GCC 12's AVX-512 reduction, shuffle and max intrinsics, inlined here,
// warn of an uninitialized operand.)
template <typename Combine>
inline float ReduceLanes(ErfF v, Combine combine) {
#if defined(__AVX512F__)
  v = combine(v,
              __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  v = combine(v,
              __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11));
  v = combine(v,
              __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
  v = combine(v,
              __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
#else
  v = combine(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3));
  v = combine(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5));
  v = combine(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
#endif
  return v[0];
}

inline float HorizontalSum(ErfF v) {
  return ReduceLanes(v, [](ErfF a, ErfF b) { return a + b; });
}

inline float HorizontalMax(ErfF v) {
  return ReduceLanes(v, [](ErfF a, ErfF b) { return a > b ? a : b; });
}

// The largest of src[0 .. count) that is not NaN (-inf when there is none), from kErfLanes
// running maxima: the scalar loop is one compare per element in a chain.
float MaxF32(const float* src, int64_t count) {
  ErfF largest = SplatErf(-std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + kErfLanes <= count; i += kErfLanes) {
    largest = SelectMax(LoadLanes<ErfF>(src + i), largest);  // a NaN value keeps largest
  }
  float result = HorizontalMax(largest);
  for (; i < count; ++i) result = src[i] > result ? src[i] : result;
  return result;
}

// dst[i] = e^(src[i] - shift) for i < count, returning their sum (kErfLanes partial sums, added
// at the end; NaN and infinity carry into it). dst may be src.
float ExpShiftedSumF32(const float* src, float* dst, int64_t count, float shift) {
  const ErfF offset = SplatErf(shift);
  ErfF sums = SplatErf(0.0f);
  int64_t i = 0;
  for (; i + kErfLanes <= count; i += kErfLanes) {
    const ErfF e = ExpLanes(LoadLanes<ErfF>(src + i) - offset);
    StoreLanes(dst + i, e);
    sums += e;
  }
  if (i < count) {
    const auto rest = static_cast<size_t>(count - i);
    float block[kErfLanes] = {};
    std::memcpy(block, src + i, sizeof(float) * rest);
    ErfF e = ExpLanes(LoadLanes<ErfF>(block) - offset);
    for (size_t lane = rest; lane < static_cast<size_t>(kErfLanes); ++lane) e[lane] = 0.0f;
    StoreLanes(block, e);
    std::memcpy(dst + i, block, sizeof(float) * rest);
    sums += e;
  }
  return HorizontalSum(sums);
}

// dst[i] = src[i] * factor (a softmax's normalization). dst may be src.
void ScaleF32(float* dst, const float* src, int64_t count, float factor) {
  MapErfLanes(src, dst, count, [factor](ErfF x) { return x * factor; });
}

// FastGelu's 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715 x^3), as x sigmoid(2u) (the
// same function: (1 + tanh u) / 2 = sigmoid(2u)), which keeps its relative precision in the
// negative tail where 1 + tanh(u) would cancel.
void GeluTanhF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) {
    const ErfF twice_u = x * (1.5957691216057308f + 0.07135481627260025f * (x * x));
    return x * SigmoidLanes(twice_u);
  });
}

// QuickGelu's x sigmoid(alpha x).
void QuickGeluF32(const float* src, float* dst, int64_t count, float alpha) {
  MapErfLanes(src, dst, count, [alpha](ErfF x) { return x * SigmoidLanes(alpha * x); });
}

// e^x - 1 without the cancellation near 0: x times the Taylor polynomial of (e^x - 1) / x for
// |x| < 1/4 (the remainder is below 2e-9 relative there), e^x - 1 elsewhere (where e^x is at
// least a quarter away from 1: under 6e-7 relative). -inf gives -1, +inf infinity, NaN NaN.
inline ErfF ExpMinusOneLanes(ErfF x) {
  constexpr float kTaylor[] = {1.0f,          0.5f,          1.0f / 6.0f,   1.0f / 24.0f,
                               1.0f / 120.0f, 1.0f / 720.0f, 1.0f / 5040.0f};
  const ErfF small = x * HornerErf(x, kTaylor);
  const ErfF large = ExpLanes(x) - 1.0f;
  return AbsErf(x) < 0.25f ? small : large;
}

// ln(1 + e^x), as max(x, 0) + ln(1 + e^-|x|): the argument of the logarithm stays in (1, 2], and
// ln(1 + y) is taken as ln(u) y / (u - 1) with u = 1 + y rounded, which cancels u's rounding (y
// itself where u rounds to 1). +inf gives +inf, -inf 0, NaN NaN.
inline ErfF SoftplusLanes(ErfF x) {
  const ErfF y = ExpLanes(-AbsErf(x));
  const ErfF u = 1.0f + y;
  const ErfF d = u - 1.0f;
  const ErfF log1p = d == 0.0f ? y : LogLanes(u) * (y / d);
  return (x > 0.0f ? x : SplatErf(0.0f)) + log1p;
}

// Floor, ceil, round half to even and the square root, lane by lane: one instruction each on the
// AVX levels (exact: the results equal std::floor, std::ceil, std::nearbyint and std::sqrt, NaN,
// infinities and signed zeros included), the library functions lane by lane on the baseline.
template <int kind>
inline ErfF RoundingLanes(ErfF x) {
#if defined(__AVX512F__) || defined(__AVX2__)
  constexpr int mode = (kind == kUnaryFloor  ? _MM_FROUND_TO_NEG_INF
                        : kind == kUnaryCeil ? _MM_FROUND_TO_POS_INF
                                             : _MM_FROUND_TO_NEAREST_INT) |
                       _MM_FROUND_NO_EXC;
#endif
#if defined(__AVX512F__)
  const __m512 v = std::bit_cast<__m512>(x);
  if constexpr (kind == kUnarySqrt) return std::bit_cast<ErfF>(_mm512_sqrt_ps(v));
  return std::bit_cast<ErfF>(_mm512_roundscale_ps(v, mode));
#elif defined(__AVX2__)
  const __m256 v = std::bit_cast<__m256>(x);
  if constexpr (kind == kUnarySqrt) return std::bit_cast<ErfF>(_mm256_sqrt_ps(v));
  return std::bit_cast<ErfF>(_mm256_round_ps(v, mode));
#else
  ErfF r;
  for (int lane = 0; lane < kErfLanes; ++lane) {
    if constexpr (kind == kUnaryFloor) r[lane] = std::floor(x[lane]);
    if constexpr (kind == kUnaryCeil) r[lane] = std::ceil(x[lane]);
    if constexpr (kind == kUnaryRound) r[lane] = std::nearbyint(x[lane]);
    if constexpr (kind == kUnarySqrt) r[lane] = std::sqrt(x[lane]);
  }
  return r;
#endif
}

// The elementwise activations of the ONNX ops (mlas/isa_kernels.h, kUnary*), the branches
// selected lane by lane, NaN kept wherever the scalar formulas keep it.
void ActivationF32(const float* src, float* dst, int64_t count, int kind, float a, float b) {
  const ErfF zero = SplatErf(0.0f);
  const ErfF one = SplatErf(1.0f);
  switch (kind) {
    case kUnaryLeakyRelu:
      return MapErfLanes(src, dst, count, [a](ErfF x) { return x < 0.0f ? a * x : x; });
    case kUnaryElu:
      return MapErfLanes(src, dst, count,
                         [a](ErfF x) { return x < 0.0f ? a * ExpMinusOneLanes(x) : x; });
    case kUnarySelu:
      return MapErfLanes(src, dst, count,
                         [a, b](ErfF x) { return b * (x > 0.0f ? x : a * ExpMinusOneLanes(x)); });
    case kUnaryCelu:
      return MapErfLanes(src, dst, count, [a, zero](ErfF x) {
        const ErfF negative = a * ExpMinusOneLanes(x / a);
        const ErfF sum = (x > 0.0f ? x : zero) + (negative < 0.0f ? negative : zero);
        return x == x ? sum : x;
      });
    case kUnaryHardSigmoid:
      return MapErfLanes(src, dst, count, [a, b, zero, one](ErfF x) {
        const ErfF y = a * x + b;
        const ErfF below_one = y > 1.0f ? one : y;  // NaN stays NaN through both
        return below_one < 0.0f ? zero : below_one;
      });
    case kUnaryHardSwish:
      return MapErfLanes(src, dst, count, [zero, one](ErfF x) {
        const ErfF y = x / 6.0f + 0.5f;
        const ErfF below_one = y > 1.0f ? one : y;
        return x * (below_one < 0.0f ? zero : below_one);
      });
    case kUnaryThresholdedRelu:
      return MapErfLanes(src, dst, count, [a, zero](ErfF x) { return x > a ? x : zero; });
    case kUnaryMish:
      return MapErfLanes(src, dst, count, [](ErfF x) { return x * TanhLanes(SoftplusLanes(x)); });
    case kUnarySoftplus:
      return MapErfLanes(src, dst, count, [](ErfF x) { return SoftplusLanes(x); });
    case kUnaryFloor:
      return MapErfLanes(src, dst, count, [](ErfF x) { return RoundingLanes<kUnaryFloor>(x); });
    case kUnaryCeil:
      return MapErfLanes(src, dst, count, [](ErfF x) { return RoundingLanes<kUnaryCeil>(x); });
    case kUnaryRound:
      return MapErfLanes(src, dst, count, [](ErfF x) { return RoundingLanes<kUnaryRound>(x); });
    case kUnarySqrt:
      return MapErfLanes(src, dst, count, [](ErfF x) { return RoundingLanes<kUnarySqrt>(x); });
    default:
      std::abort();  // the callers pass the kinds above only
  }
}

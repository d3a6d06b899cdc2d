// The NCHWc kernels (formats in mlas/nchwc.h): part of isa_kernels_impl.h, which includes this
// inside its anonymous namespace in every unit (no include guard; the includer's Float8 helpers,
// and <immintrin.h> where the unit has AVX, are used). One template over a lane type: zmm (16
// floats) on the AVX-512 level, Float8 (one ymm on AVX2, two SSE registers on baseline) elsewhere.
//
// Direct convolution: a tile of kPositions output positions along a row times kBlocks output
// blocks is summed in registers; per input channel each position's value is broadcast and
// multiplied into the blocks' packed filter vectors. Positions whose window reaches into the
// horizontal padding run one at a time with their taps clipped; rows clip their vertical taps.
// A range of work goes strip by strip of output rows, and within a strip chunk by chunk of input
// channels (a chunk's filters ~ half the L1): the first chunk stores its sums, the next ones add
// to them, the last applies bias, sum and activation.

#if defined(__AVX512F__)
struct NchwcLanes {
  using V = __m512;
  static constexpr int64_t kLanes = 16;
  static constexpr int kAccumulators = 24;  // of the 32 zmm
  static constexpr int kRegisters = 32;
  // Floats of filter per input channel chunk (see NchwcConvRows).
  static constexpr int64_t kFilterChunkFloats = 16384;
  // Floats of output and input per strip of output rows (see NchwcConvStripRows).
  static constexpr int64_t kStripFloats = 65536;
  // See NchwcConvChunkGroups: on the Emerald Rapids machine of sessions 31-34 (48 KiB 12-way
  // L1) resnet50's 256 -> 64 1x1 at 56x56 took 0.97 of the time with it.
  static constexpr bool kChunkWithinL1Sets = true;
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Splat(float x) { return _mm512_set1_ps(x); }
  static V Zero() { return _mm512_setzero_ps(); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  // The masked forms: gcc 12's _mm512_max_ps passes an undefined vector that -Wuninitialized
  // flags once inlined into a tile's unrolled stores (a false positive of its header).
  static V Max(V a, V b) { return _mm512_mask_max_ps(a, 0xffff, a, b); }
  static V Min(V a, V b) { return _mm512_mask_min_ps(a, 0xffff, a, b); }
  static V Less(V a, V b, V if_less, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), otherwise, if_less);
  }
  // Lanes flagged for NaN: the lanes where a or b is NaN, those flagged NaN in a vector, any.
  using Flags = __mmask16;
  static Flags NoFlags() { return 0; }
  static Flags Unordered(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
  static V NanWhere(Flags f, V v) {
    return _mm512_mask_blend_ps(f, v, Splat(std::numeric_limits<float>::quiet_NaN()));
  }
  static bool Any(Flags f) { return f != 0; }
};
#else
struct NchwcLanes {
  using V = Float8;
  static constexpr int64_t kLanes = 8;
#if defined(__AVX2__)
  static constexpr int kAccumulators = 12;  // of the 16 ymm
  static constexpr int kRegisters = 16;
#else
  static constexpr int kAccumulators = 8;
  static constexpr int kRegisters = 8;  // two SSE registers per vector
#endif
  static constexpr int64_t kFilterChunkFloats = 4096;
  static constexpr int64_t kStripFloats = 65536;
  static constexpr bool kChunkWithinL1Sets = true;
  static V Load(const float* p) {
    return LoadFloat8(p);
  }
  static void Store(float* p, V v) {
    StoreFloat8(p, v);
  }
  static V Splat(float x) {
    return V{x, x, x, x, x, x, x, x};
  }
  static V Zero() {
    return V{};
  }
  static V Fma(V a, V b, V c) {
    return MultiplyAdd(a, b, c);
  }
  static V Add(V a, V b) {
    return a + b;
  }
  static V Sub(V a, V b) {
    return a - b;
  }
  static V Mul(V a, V b) {
    return a * b;
  }
#if defined(__AVX__)
  static V Max(V a, V b) {
    return reinterpret_cast<V>(
        _mm256_max_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
  }
  static V Min(V a, V b) {
    return reinterpret_cast<V>(
        _mm256_min_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
  }
#else
  // As _mm256_max_ps: the second operand where the comparison fails (NaN).
  static V Max(V a, V b) {
    V r;
    for (int i = 0; i < 8; ++i) r[i] = a[i] > b[i] ? a[i] : b[i];
    return r;
  }
  static V Min(V a, V b) {
    V r;
    for (int i = 0; i < 8; ++i) r[i] = a[i] < b[i] ? a[i] : b[i];
    return r;
  }
#endif
  static V Less(V a, V b, V if_less, V otherwise) {
    V r;
    for (int i = 0; i < 8; ++i) r[i] = a[i] < b[i] ? if_less[i] : otherwise[i];
    return r;
  }
  using Flags = Int8;  // all bits set in a flagged lane
  static Flags NoFlags() {
    return Flags{};
  }
  static Flags Unordered(V a, V b) {
#if defined(__AVX__)
    return reinterpret_cast<Flags>(
        _mm256_cmp_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), _CMP_UNORD_Q));
#else
    return (a != a) | (b != b);
#endif
  }
  static V NanWhere(Flags f, V v) {
    return f != 0 ? Splat(std::numeric_limits<float>::quiet_NaN()) : v;
  }
  static bool Any(Flags f) {
    int any = 0;
    for (int i = 0; i < 8; ++i) any |= f[i];
    return any != 0;
  }
};
#endif

constexpr int64_t kNchwcBlock = NchwcLanes::kLanes;
// A convolution tile's positions for kBlocks output blocks: as many as the accumulator registers
// allow (one filter vector per block is loaded for all of them, one broadcast per position), at
// most 8: each position keeps a pointer in a general register. Positions one pixel apart (a
// stride-1 1x1 convolution without padding reads its input as one run of pixels) share one
// pointer, so a tile of few blocks takes up to 16 of them: a 1-block tile of 8 had just the 8
// independent multiply-add chains that the FMA units' latency needs, no slack.
template <int kBlocks>
constexpr int kNchwcTilePositions = std::min(8, NchwcLanes::kAccumulators / kBlocks);
template <int kBlocks>
constexpr int kNchwcContiguousTilePositions = std::min(16, NchwcLanes::kAccumulators / kBlocks);
using NchwcV = NchwcLanes::V;

inline int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The taps [lo, hi) of a window starting at `start` (step `dilation`, `taps` of them) that land
// inside [0, size).
struct TapRange {
  int64_t lo, hi;
};
inline TapRange ClipTaps(int64_t start, int64_t taps, int64_t dilation, int64_t size) {
  int64_t lo = start >= 0 ? 0 : CeilDiv(-start, dilation);
  int64_t hi = start >= size ? 0 : std::min(taps, (size - 1 - start) / dilation + 1);
  if (hi < lo) hi = lo;
  return {std::min(lo, taps), std::min(std::max(hi, lo), taps)};
}

// The output positions [lo, hi) of a row whose windows lie wholly inside [0, size).
inline TapRange InteriorPositions(int64_t outputs, int64_t stride, int64_t pad, int64_t taps,
                                  int64_t dilation, int64_t size) {
  const int64_t lo = std::min(outputs, CeilDiv(pad, stride));
  const int64_t last = size - 1 - (taps - 1) * dilation + pad;  // largest start + pad
  const int64_t hi = last < 0 ? lo : std::clamp(last / stride + 1, lo, outputs);
  return {lo, hi};
}

// Bias, residual sum and activation on one output vector.
struct NchwcStore {
  int activation;
  NchwcV alpha, beta;

  template <int kActivation>
  NchwcV Activate(NchwcV v) const {
    if constexpr (kActivation == kActivationRelu) return NchwcLanes::Max(v, NchwcLanes::Zero());
    if constexpr (kActivation == kActivationLeakyRelu)
      return NchwcLanes::Less(v, NchwcLanes::Zero(), NchwcLanes::Mul(v, alpha), v);
    if constexpr (kActivation == kActivationClip)
      return NchwcLanes::Min(NchwcLanes::Max(v, alpha), beta);
    return v;
  }

  NchwcV Apply(NchwcV v, const float* bias, const float* sum) const {
    if (bias != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(bias));
    if (sum != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(sum));
    switch (activation) {
      case kActivationRelu:
        return Activate<kActivationRelu>(v);
      case kActivationLeakyRelu:
        return Activate<kActivationLeakyRelu>(v);
      case kActivationClip:
        return Activate<kActivationClip>(v);
      default:
        return v;
    }
  }
};

// Where a run of output rows [row_begin, row_end) of one image reads its input: the input itself
// when the convolution has no padding, else a zero-padded copy of exactly the rows and columns
// the run reads (scratch, per thread), so that every window lies inside and output positions
// can be tiled across row ends. Addresses: group g, source row r, column c, lane i at
// base + g * group_stride + r * row_stride + c * pixel_stride + i * lane_stride; the window of
// output (oh, ow) starts at (oh - first_row) * window_row_step + ow * window_col_step.
// A strided 1x1 convolution reads a compact copy of the pixels its windows take (one per output
// position): in place, each 32-byte pixel read came from its own cache line pair, and resnet50's
// three stride-2 projections ran at 0.7 of oneDNN's rate.
struct NchwcSource {
  const float* base;
  int64_t group_stride, row_stride, pixel_stride, lane_stride;
  int64_t first_row;  // the output row whose window starts at source row 0
  int64_t window_row_step, window_col_step;
};

// The scratch's type is this unit's own (aligned_vector.h: the tag).
struct NchwcScratchTag {};
using NchwcScratchVector = std::vector<float, CacheLineAllocator<float, NchwcScratchTag>>;
NchwcScratchVector& NchwcScratch() {
  thread_local NchwcScratchVector scratch;
  return scratch;
}

// What the scratch holds: the padded rows [row_begin, row_end) of `image`, valid within one
// NchwcConvF32 call (its `call`): the output block groups of one image read the same rows, so a
// range of items builds the copy once, not once per group. A new call may see new input data at
// the same address, hence the call number.
struct NchwcScratchContents {
  int64_t call = 0;
  const float* image = nullptr;
  int64_t row_begin = 0, row_end = 0;
  NchwcSource source{};
};
NchwcScratchContents& NchwcScratchState() {
  thread_local NchwcScratchContents state;
  return state;
}
int64_t& NchwcCallNumber() {
  thread_local int64_t call = 0;
  return call;
}

bool NchwcUnpadded(const NchwcConvShape& s) {
  return s.pad_top == 0 && s.pad_left == 0 && s.pad_bottom == 0 && s.pad_right == 0;
}

// Whether a direct convolution reads a compact copy of its input (NchwcSource).
bool NchwcReadsCompactCopy(const NchwcConvShape& s) {
  return !s.input_is_nchw && NchwcUnpadded(s) && s.kernel_h == 1 && s.kernel_w == 1 &&
         (s.stride_h > 1 || s.stride_w > 1);
}

// kNchwInput: the image is [C][H][W] (lanes = C, one group); else [groups][H][W][b].
template <bool kNchwInput>
NchwcSource NchwcSourceOf(const NchwcConvShape& s, const float* image, int64_t groups,
                          int64_t lanes, int64_t row_begin, int64_t row_end) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t pixel = kNchwInput ? 1 : b;
  const bool unpadded = NchwcUnpadded(s);
  const bool compact = !kNchwInput && NchwcReadsCompactCopy(s);
  if (unpadded && !compact) {
    if (kNchwInput)
      return {image, 0, s.input_w, 1, s.input_h * s.input_w, 0, s.stride_h * s.input_w, s.stride_w};
    return {image, s.input_h * s.input_w * b,  s.input_w * b, b, 1,
            0,     s.stride_h * s.input_w * b, s.stride_w * b};
  }
  NchwcScratchContents& held = NchwcScratchState();
  if (held.call == NchwcCallNumber() && held.image == image && held.row_begin == row_begin &&
      held.row_end == row_end)
    return held.source;
  if (compact) {
    const int64_t rows = row_end - row_begin;
    const int64_t plane_floats = rows * s.output_w * b;
    NchwcScratchVector& scratch = NchwcScratch();
    if (static_cast<int64_t>(scratch.size()) < groups * plane_floats)
      scratch.resize(static_cast<size_t>(groups * plane_floats));
    float* dst = scratch.data();
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r = 0; r < rows; ++r) {
        const float* src_row =
            image + (g * s.input_h + (row_begin + r) * s.stride_h) * s.input_w * b;
        float* row = dst + (g * rows + r) * s.output_w * b;
        for (int64_t ow = 0; ow < s.output_w; ++ow)
          NchwcLanes::Store(row + ow * b, NchwcLanes::Load(src_row + ow * s.stride_w * b));
      }
    }
    const NchwcSource source{dst, plane_floats, s.output_w * b, b, 1, row_begin, s.output_w * b, b};
    held = NchwcScratchContents{NchwcCallNumber(), image, row_begin, row_end, source};
    return source;
  }
  const int64_t rows = (row_end - 1 - row_begin) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1;
  const int64_t cols = (s.output_w - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1;
  const int64_t first_input_row = row_begin * s.stride_h - s.pad_top;
  // Planes: one per group (blocked) or per lane (NCHW), each rows x cols pixels.
  const int64_t planes = kNchwInput ? lanes : groups;
  const int64_t plane_floats = rows * cols * pixel;
  NchwcScratchVector& scratch = NchwcScratch();
  if (static_cast<int64_t>(scratch.size()) < planes * plane_floats)
    scratch.resize(static_cast<size_t>(planes * plane_floats));
  float* dst = scratch.data();
  const int64_t left = std::min(cols, s.pad_left);
  const int64_t inside = std::clamp<int64_t>(s.input_w, 0, cols - left);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const float* src_plane = image + plane * s.input_h * s.input_w * pixel;
    for (int64_t r = 0; r < rows; ++r) {
      float* row = dst + (plane * rows + r) * cols * pixel;
      const int64_t ih = first_input_row + r;
      if (ih < 0 || ih >= s.input_h) {
        std::fill_n(row, cols * pixel, 0.0f);
        continue;
      }
      std::fill_n(row, left * pixel, 0.0f);
      std::memcpy(row + left * pixel, src_plane + ih * s.input_w * pixel,
                  sizeof(float) * static_cast<size_t>(inside * pixel));
      std::fill(row + (left + inside) * pixel, row + cols * pixel, 0.0f);
    }
  }
  const NchwcSource source =
      kNchwInput
          ? NchwcSource{dst, 0, cols, 1, plane_floats, row_begin, s.stride_h * cols, s.stride_w}
          : NchwcSource{dst,       plane_floats,          cols * b,      b, 1,
                        row_begin, s.stride_h * cols * b, s.stride_w * b};
  held = NchwcScratchContents{NchwcCallNumber(), image, row_begin, row_end, source};
  return source;
}

// What a convolution tile needs besides its positions.
struct NchwcConvPlan {
  const NchwcConvShape* shape;
  NchwcSource source;
  const float* filter;   // the packed filter at the item's first output block
  float* output;         // the output image at the item's first output block
  const float* sum;      // the residual at the same place, or nullptr
  const float* bias;     // at the item's first output block, or nullptr
  int64_t lanes;         // input channels per packed group: b, or C for NCHW input
  int64_t filter_group;  // floats between input channel groups' filters (all kBlocks blocks)
  int64_t output_plane;  // floats between output blocks: OH * OW * b
  NchwcStore store;
  // For the AVX2 assembly tiles of windows larger than 1x1 (4- and 3-block items) and of NCHW
  // inputs of 3 channels (4-block items): for each input group g of the call's range (from
  // tap_group_begin) and tap t, in the filter's order, the byte offset of that group's tap from a
  // window's start, at (g - tap_group_begin) * taps + t; else nullptr.
  const int64_t* tap_bytes;
  int64_t tap_group_begin;
  // Floats from this item's filter to the filter the next call reads, or 0: the first tile of a
  // call prefetches it (AVX-512).
  int64_t next_filter_offset;
};

// A tile's sums plus bias and residual, activated, stored at output offset out_offset.
template <int kActivation, int kPositions, int kBlocks>
[[gnu::always_inline]] inline void NchwcStoreTile(const NchwcConvPlan& plan, int64_t out_offset,
                                                  const NchwcV (&acc)[kPositions][kBlocks]) {
  constexpr int64_t b = kNchwcBlock;
#pragma GCC unroll 4
  for (int j = 0; j < kBlocks; ++j) {
    float* out = plan.output + j * plan.output_plane + out_offset;
    const NchwcV bias =
        plan.bias != nullptr ? NchwcLanes::Load(plan.bias + j * b) : NchwcLanes::Zero();
    const float* sum =
        plan.sum != nullptr ? plan.sum + j * plan.output_plane + out_offset : nullptr;
#pragma GCC unroll 16
    for (int p = 0; p < kPositions; ++p) {
      NchwcV v = NchwcLanes::Add(acc[p][j], bias);
      if (sum != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(sum + p * b));
      NchwcLanes::Store(out + p * b, plan.store.Activate<kActivation>(v));
    }
  }
}

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__) && defined(__x86_64__)
#define PRISM_NCHWC_ASM_TILES 1
// The two 1x1 tiles of 12 accumulators that most pointwise layers run on AVX2 (3 positions x 4
// blocks, 4 x 3), whole in assembly: the sums start in registers (zeros, or the output's partial
// sums), go over the input channel groups, and end in the output (partial sums, or with bias,
// residual and activation), never passing through memory between. gcc's code for the template's
// loop rotated accumulators through spare registers and spilled one, and resnet50's 1x1 layers
// ran at 60-75 GFLOP/s against oneDNN's 74-90; a first assembly form that loaded and stored the
// sums around the loop spent about 50 of a tile's 490 instructions on that round trip, a fair
// share where the layer has only 2-4 groups (mobilenetv2's 16-32 channel inputs).
// acc[p][j] += x_p[c] * w[c][j] for the 8 channels c of each group; x_p advance by group_stride
// floats a group, w by 8 x kBlocks vectors.

// What the assembly reads at a tile's ends, at fixed offsets (static_asserts below).
struct NchwcAsmEnds {
  const float* bias;    // kBlocks vectors (zeros when the convolution has none)
  const float* sum;     // the residual at the tile's first output, or nullptr
  float* out;           // the tile's first output (block j at out + j * plane_bytes)
  int64_t plane_bytes;  // between output blocks, also the residual's
  int32_t first;        // the sums start at zero, else at the output
  int32_t last;         // bias, residual and activation are applied
  int32_t activation;   // kActivation*
  float alpha, beta;    // LeakyRelu's slope (alpha); Clip's bounds
};
static_assert(offsetof(NchwcAsmEnds, bias) == 0 && offsetof(NchwcAsmEnds, sum) == 8 &&
              offsetof(NchwcAsmEnds, out) == 16 && offsetof(NchwcAsmEnds, plane_bytes) == 24 &&
              offsetof(NchwcAsmEnds, first) == 32 && offsetof(NchwcAsmEnds, last) == 36 &&
              offsetof(NchwcAsmEnds, activation) == 40 && offsetof(NchwcAsmEnds, alpha) == 44 &&
              offsetof(NchwcAsmEnds, beta) == 48);
static_assert(kActivationRelu == 1 && kActivationLeakyRelu == 2 && kActivationClip == 3);

// clang-format off
// Block j of an output-shaped array at base: r9 holds the plane's bytes, base3 = base + 3 planes.
#define PRISM_NCHWC_AT(j, off, base, base3) PRISM_NCHWC_AT_##j(off, base, base3)
#define PRISM_NCHWC_AT_0(off, base, base3) off "(" base ")"
#define PRISM_NCHWC_AT_1(off, base, base3) off "(" base ",%%r9,1)"
#define PRISM_NCHWC_AT_2(off, base, base3) off "(" base ",%%r9,2)"
#define PRISM_NCHWC_AT_3(off, base, base3) off "(" base3 ")"
// One operation on each sum: OP(byte offset of its position, its block, its register).
#define PRISM_NCHWC_SUMS_3X4(OP)                                                   \
  OP("0", 0, 0) OP("0", 1, 1) OP("0", 2, 2) OP("0", 3, 3)                          \
  OP("32", 0, 4) OP("32", 1, 5) OP("32", 2, 6) OP("32", 3, 7)                      \
  OP("64", 0, 8) OP("64", 1, 9) OP("64", 2, 10) OP("64", 3, 11)
#define PRISM_NCHWC_SUMS_4X3(OP)                                                   \
  OP("0", 0, 0) OP("0", 1, 1) OP("0", 2, 2) OP("32", 0, 3) OP("32", 1, 4)          \
  OP("32", 2, 5) OP("64", 0, 6) OP("64", 1, 7) OP("64", 2, 8) OP("96", 0, 9)       \
  OP("96", 1, 10) OP("96", 2, 11)
#define PRISM_NCHWC_ZERO(off, j, r) "vxorps %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_NCHWC_LOAD(off, j, r) \
  "vmovups " PRISM_NCHWC_AT(j, off, "%%r8", "%%r10") ", %%ymm" #r "\n\t"
#define PRISM_NCHWC_STORE(off, j, r) \
  "vmovups %%ymm" #r ", " PRISM_NCHWC_AT(j, off, "%%r8", "%%r10") "\n\t"
#define PRISM_NCHWC_BIAS(off, j, r) "vaddps " #j "*32(%%r11), %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_NCHWC_RESIDUAL(off, j, r) \
  "vaddps " PRISM_NCHWC_AT(j, off, "%%r11", "%[w]") ", %%ymm" #r ", %%ymm" #r "\n\t"
// As NchwcStore::Activate: vmaxps/vminps give their second source (ymm13/14) where v is NaN.
#define PRISM_NCHWC_RELU(off, j, r) "vmaxps %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_NCHWC_CLIP(off, j, r) \
  "vmaxps %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t" "vminps %%ymm14, %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_NCHWC_LEAKY(off, j, r)                      \
  "vmulps %%ymm12, %%ymm" #r ", %%ymm15\n\t"              \
  "vcmpltps %%ymm13, %%ymm" #r ", %%ymm14\n\t"            \
  "vblendvps %%ymm14, %%ymm15, %%ymm" #r ", %%ymm" #r "\n\t"
// r8 = out, r9 = plane bytes, r10 = out + 3 planes (set at both ends: the loops may use them).
#define PRISM_NCHWC_OUT_REGISTERS                        \
  "mov 16(%[e]), %%r8\n\t"                               \
  "mov 24(%[e]), %%r9\n\t"                               \
  "lea (%%r8,%%r9,2), %%r10\n\t"                         \
  "add %%r9, %%r10\n\t"
// The tile's start: the sums zeroed or loaded.
#define PRISM_NCHWC_BEGIN(SUMS)                          \
  PRISM_NCHWC_OUT_REGISTERS                              \
  "cmpl $0, 32(%[e])\n\t"                                \
  "jne 2f\n\t"                                           \
  SUMS(PRISM_NCHWC_LOAD)                                 \
  "jmp 3f\n\t"                                           \
  "2:\n\t"                                               \
  SUMS(PRISM_NCHWC_ZERO)                                 \
  "3:\n\t"                                               \
  "test %[groups], %[groups]\n\t"                        \
  "jz 5f\n\t"                                            \
  ".p2align 5\n\t"                                       \
  "4:\n\t"
// The tile's end: partial sums stored, or bias, residual and activation applied and stored.
#define PRISM_NCHWC_END(SUMS)                            \
  "5:\n\t"                                               \
  PRISM_NCHWC_OUT_REGISTERS                              \
  "cmpl $0, 36(%[e])\n\t"                                \
  "je 9f\n\t"                                            \
  "mov 0(%[e]), %%r11\n\t"                               \
  SUMS(PRISM_NCHWC_BIAS)                                 \
  "mov 8(%[e]), %%r11\n\t"                               \
  "test %%r11, %%r11\n\t"                                \
  "jz 6f\n\t"                                            \
  "lea (%%r11,%%r9,2), %[w]\n\t"                         \
  "add %%r9, %[w]\n\t"                                   \
  SUMS(PRISM_NCHWC_RESIDUAL)                             \
  "6:\n\t"                                               \
  "vxorps %%ymm13, %%ymm13, %%ymm13\n\t"                 \
  "mov 40(%[e]), %%r11d\n\t"                             \
  "cmp $1, %%r11d\n\t"                                   \
  "jne 7f\n\t"                                           \
  SUMS(PRISM_NCHWC_RELU)                                 \
  "jmp 9f\n\t"                                           \
  "7:\n\t"                                               \
  "cmp $2, %%r11d\n\t"                                   \
  "jne 8f\n\t"                                           \
  "vbroadcastss 44(%[e]), %%ymm12\n\t"                   \
  SUMS(PRISM_NCHWC_LEAKY)                                \
  "jmp 9f\n\t"                                           \
  "8:\n\t"                                               \
  "cmp $3, %%r11d\n\t"                                   \
  "jne 9f\n\t"                                           \
  "vbroadcastss 44(%[e]), %%ymm13\n\t"                   \
  "vbroadcastss 48(%[e]), %%ymm14\n\t"                   \
  SUMS(PRISM_NCHWC_CLIP)                                 \
  "9:\n\t"                                               \
  SUMS(PRISM_NCHWC_STORE)
// What every assembly tile overwrites: r8-r11 (the output pointers at the ends, the positions'
// pointers of a table entry) and every vector register.
#define PRISM_NCHWC_CLOBBERS                                                                   \
  "cc", "memory", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",    \
      "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
//
// 3 x 4: the positions' broadcasts held (ymm12-14), each block's filter vector loaded once
// (ymm15) and multiplied into the three positions: per channel 3 broadcasts, 4 loads, 12 FMAs.
// acc[p][j] in ymm(4 p + j).
#define PRISM_NCHWC_3X4_BLOCK(w_offset, j)                  \
  "vmovups " w_offset "(%[w]), %%ymm15\n\t"                  \
  "vfmadd231ps %%ymm15, %%ymm12, %%ymm" #j "\n\t"            \
  "vfmadd231ps %%ymm15, %%ymm13, %%ymm" PRISM_NCHWC_PLUS4_##j "\n\t" \
  "vfmadd231ps %%ymm15, %%ymm14, %%ymm" PRISM_NCHWC_PLUS8_##j "\n\t"
#define PRISM_NCHWC_PLUS4_0 "4"
#define PRISM_NCHWC_PLUS4_1 "5"
#define PRISM_NCHWC_PLUS4_2 "6"
#define PRISM_NCHWC_PLUS4_3 "7"
#define PRISM_NCHWC_PLUS8_0 "8"
#define PRISM_NCHWC_PLUS8_1 "9"
#define PRISM_NCHWC_PLUS8_2 "10"
#define PRISM_NCHWC_PLUS8_3 "11"
// Channel x_offset / 4 of a group: the positions' values at x_offset(p0), (p1), (p2).
#define PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, x_offset, w0, w1, w2, w3) \
  "vbroadcastss " x_offset "(" p0 "), %%ymm12\n\t"                    \
  "vbroadcastss " x_offset "(" p1 "), %%ymm13\n\t"                    \
  "vbroadcastss " x_offset "(" p2 "), %%ymm14\n\t"                    \
  PRISM_NCHWC_3X4_BLOCK(w0, 0)                                        \
  PRISM_NCHWC_3X4_BLOCK(w1, 1)                                        \
  PRISM_NCHWC_3X4_BLOCK(w2, 2)                                        \
  PRISM_NCHWC_3X4_BLOCK(w3, 3)
// A group of 8 channels (1 KiB of filter vectors) at the positions' pointers p0-p2.
#define PRISM_NCHWC_3X4_GROUP(p0, p1, p2)                                         \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "0", "0", "32", "64", "96")                 \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "4", "128", "160", "192", "224")            \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "8", "256", "288", "320", "352")            \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "12", "384", "416", "448", "480")           \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "16", "512", "544", "576", "608")           \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "20", "640", "672", "704", "736")           \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "24", "768", "800", "832", "864")           \
  PRISM_NCHWC_3X4_CHANNEL(p0, p1, p2, "28", "896", "928", "960", "992")
inline void Nchwc1x1Tile3x4(const float* x0, const float* x1, const float* x2, const float* w,
                            int64_t groups, int64_t group_stride, const NchwcAsmEnds& ends) {
  const int64_t stride_bytes = group_stride * int64_t{sizeof(float)};
  asm volatile(
      PRISM_NCHWC_BEGIN(PRISM_NCHWC_SUMS_3X4)
      PRISM_NCHWC_3X4_GROUP("%[x0]", "%[x1]", "%[x2]")
      "add %[stride], %[x0]\n\t"
      "add %[stride], %[x1]\n\t"
      "add %[stride], %[x2]\n\t"
      "add $1024, %[w]\n\t"
      "dec %[groups]\n\t"
      "jnz 4b\n\t"
      PRISM_NCHWC_END(PRISM_NCHWC_SUMS_3X4)
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [w] "+r"(w), [groups] "+r"(groups)
      : [stride] "r"(stride_bytes), [e] "r"(&ends)
      : PRISM_NCHWC_CLOBBERS);
}

// 4 x 3: the blocks' filter vectors held (ymm13-15), each position's broadcast (ymm12)
// multiplied into them: per channel 3 loads, 4 broadcasts, 12 FMAs. acc[p][j] in ymm(3 p + j).
#define PRISM_NCHWC_4X3_POSITION(x_offset, x, r0, r1, r2)   \
  "vbroadcastss " x_offset "(" x "), %%ymm12\n\t"            \
  "vfmadd231ps %%ymm13, %%ymm12, %%ymm" #r0 "\n\t"           \
  "vfmadd231ps %%ymm14, %%ymm12, %%ymm" #r1 "\n\t"           \
  "vfmadd231ps %%ymm15, %%ymm12, %%ymm" #r2 "\n\t"
#define PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, x_offset, w0, w1, w2) \
  "vmovups " w0 "(%[w]), %%ymm13\n\t"                                 \
  "vmovups " w1 "(%[w]), %%ymm14\n\t"                                 \
  "vmovups " w2 "(%[w]), %%ymm15\n\t"                                 \
  PRISM_NCHWC_4X3_POSITION(x_offset, p0, 0, 1, 2)                     \
  PRISM_NCHWC_4X3_POSITION(x_offset, p1, 3, 4, 5)                     \
  PRISM_NCHWC_4X3_POSITION(x_offset, p2, 6, 7, 8)                     \
  PRISM_NCHWC_4X3_POSITION(x_offset, p3, 9, 10, 11)
// A group of 8 channels (768 bytes of filter vectors) at the positions' pointers p0-p3.
#define PRISM_NCHWC_4X3_GROUP(p0, p1, p2, p3)                                  \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "0", "0", "32", "64")                \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "4", "96", "128", "160")             \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "8", "192", "224", "256")            \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "12", "288", "320", "352")           \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "16", "384", "416", "448")           \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "20", "480", "512", "544")           \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "24", "576", "608", "640")           \
  PRISM_NCHWC_4X3_CHANNEL(p0, p1, p2, p3, "28", "672", "704", "736")
inline void Nchwc1x1Tile4x3(const float* x0, const float* x1, const float* x2, const float* x3,
                            const float* w, int64_t groups, int64_t group_stride,
                            const NchwcAsmEnds& ends) {
  const int64_t stride_bytes = group_stride * int64_t{sizeof(float)};
  asm volatile(
      PRISM_NCHWC_BEGIN(PRISM_NCHWC_SUMS_4X3)
      PRISM_NCHWC_4X3_GROUP("%[x0]", "%[x1]", "%[x2]", "%[x3]")
      "add %[stride], %[x0]\n\t"
      "add %[stride], %[x1]\n\t"
      "add %[stride], %[x2]\n\t"
      "add %[stride], %[x3]\n\t"
      "add $768, %[w]\n\t"
      "dec %[groups]\n\t"
      "jnz 4b\n\t"
      PRISM_NCHWC_END(PRISM_NCHWC_SUMS_4X3)
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [w] "+r"(w),
        [groups] "+r"(groups)
      : [stride] "r"(stride_bytes), [e] "r"(&ends)
      : PRISM_NCHWC_CLOBBERS);
}

// A table entry's start: the positions' pointers r8-r10 = x_p + the entry's offset (in r11).
#define PRISM_NCHWC_TABLE_ENTRY        \
  "mov (%[table]), %%r11\n\t"          \
  "lea (%[x0],%%r11), %%r8\n\t"        \
  "lea (%[x1],%%r11), %%r9\n\t"        \
  "lea (%[x2],%%r11), %%r10\n\t"
// The next entry, w_bytes of filter vectors on.
#define PRISM_NCHWC_NEXT_ENTRY(w_bytes) \
  "add $8, %[table]\n\t"               \
  "add $" w_bytes ", %[w]\n\t"          \
  "dec %[groups]\n\t"                  \
  "jnz 4b\n\t"

// The 3 x 4 and 4 x 3 tiles of windows larger than 1x1 (3x3 layers that Winograd does not take:
// strided, or on small planes): the same groups, one per entry of a table of byte offsets from
// the windows' starts x_p, a group and a tap each (plan.tap_bytes), the positions' pointers in
// r8-r10 (and r11 for the fourth).
inline void NchwcTapsTile3x4(const float* x0, const float* x1, const float* x2, const float* w,
                             const int64_t* table, int64_t entries, const NchwcAsmEnds& ends) {
  asm volatile(
      PRISM_NCHWC_BEGIN(PRISM_NCHWC_SUMS_3X4)
      PRISM_NCHWC_TABLE_ENTRY
      PRISM_NCHWC_3X4_GROUP("%%r8", "%%r9", "%%r10")
      PRISM_NCHWC_NEXT_ENTRY("1024")
      PRISM_NCHWC_END(PRISM_NCHWC_SUMS_3X4)
      : [w] "+r"(w), [groups] "+r"(entries), [table] "+r"(table)
      : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [e] "r"(&ends)
      : PRISM_NCHWC_CLOBBERS);
}
inline void NchwcTapsTile4x3(const float* x0, const float* x1, const float* x2, const float* x3,
                             const float* w, const int64_t* table, int64_t entries,
                             const NchwcAsmEnds& ends) {
  asm volatile(
      PRISM_NCHWC_BEGIN(PRISM_NCHWC_SUMS_4X3)
      PRISM_NCHWC_TABLE_ENTRY
      "add %[x3], %%r11\n\t"
      PRISM_NCHWC_4X3_GROUP("%%r8", "%%r9", "%%r10", "%%r11")
      PRISM_NCHWC_NEXT_ENTRY("768")
      PRISM_NCHWC_END(PRISM_NCHWC_SUMS_4X3)
      : [w] "+r"(w), [groups] "+r"(entries), [table] "+r"(table)
      : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [x3] "r"(x3), [e] "r"(&ends)
      : PRISM_NCHWC_CLOBBERS);
}

// 3 x 4 over an NCHW input of 3 channels (an RGB image: the first convolution of most vision
// models; 9 or 49 taps of 3 channels are too few for the template tile's loops and stores to
// hide): the table's entries are taps (one group), and each of the 3 channels is a group's
// channel step with its values a plane (lane_bytes) apart. w: 3 channels x 4 blocks of filter
// vectors a tap.
inline void NchwcRgbTile3x4(const float* x0, const float* x1, const float* x2, const float* w,
                            const int64_t* table, int64_t entries, int64_t lane_stride,
                            const NchwcAsmEnds& ends) {
  const int64_t lane_bytes = lane_stride * int64_t{sizeof(float)};
  asm volatile(
      PRISM_NCHWC_BEGIN(PRISM_NCHWC_SUMS_3X4)
      PRISM_NCHWC_TABLE_ENTRY
      PRISM_NCHWC_3X4_CHANNEL("%%r8", "%%r9", "%%r10", "", "0", "32", "64", "96")
      PRISM_NCHWC_3X4_CHANNEL("%%r8,%[lane],1", "%%r9,%[lane],1", "%%r10,%[lane],1", "",
                              "128", "160", "192", "224")
      PRISM_NCHWC_3X4_CHANNEL("%%r8,%[lane],2", "%%r9,%[lane],2", "%%r10,%[lane],2", "",
                              "256", "288", "320", "352")
      PRISM_NCHWC_NEXT_ENTRY("384")
      PRISM_NCHWC_END(PRISM_NCHWC_SUMS_3X4)
      : [w] "+r"(w), [groups] "+r"(entries), [table] "+r"(table)
      : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [lane] "r"(lane_bytes), [e] "r"(&ends)
      : PRISM_NCHWC_CLOBBERS);
}
#undef PRISM_NCHWC_NEXT_ENTRY
#undef PRISM_NCHWC_TABLE_ENTRY
#undef PRISM_NCHWC_CLOBBERS
#undef PRISM_NCHWC_4X3_GROUP
#undef PRISM_NCHWC_4X3_CHANNEL
#undef PRISM_NCHWC_4X3_POSITION
#undef PRISM_NCHWC_3X4_GROUP
#undef PRISM_NCHWC_3X4_CHANNEL
#undef PRISM_NCHWC_3X4_BLOCK
#undef PRISM_NCHWC_PLUS4_0
#undef PRISM_NCHWC_PLUS4_1
#undef PRISM_NCHWC_PLUS4_2
#undef PRISM_NCHWC_PLUS4_3
#undef PRISM_NCHWC_PLUS8_0
#undef PRISM_NCHWC_PLUS8_1
#undef PRISM_NCHWC_PLUS8_2
#undef PRISM_NCHWC_PLUS8_3
#undef PRISM_NCHWC_END
#undef PRISM_NCHWC_BEGIN
#undef PRISM_NCHWC_OUT_REGISTERS
#undef PRISM_NCHWC_LEAKY
#undef PRISM_NCHWC_CLIP
#undef PRISM_NCHWC_RELU
#undef PRISM_NCHWC_RESIDUAL
#undef PRISM_NCHWC_BIAS
#undef PRISM_NCHWC_STORE
#undef PRISM_NCHWC_LOAD
#undef PRISM_NCHWC_ZERO
#undef PRISM_NCHWC_SUMS_4X3
#undef PRISM_NCHWC_SUMS_3X4
#undef PRISM_NCHWC_AT_3
#undef PRISM_NCHWC_AT_2
#undef PRISM_NCHWC_AT_1
#undef PRISM_NCHWC_AT_0
#undef PRISM_NCHWC_AT
// clang-format on
#else
#define PRISM_NCHWC_ASM_TILES 0
#endif

// A tile's sums to the output: as partial sums (not the last chunk of input channels), else
// with bias, sum and activation.
template <int kPositions, int kBlocks>
[[gnu::always_inline]] inline void NchwcFinishTile(const NchwcConvPlan& plan, int64_t out_offset,
                                                   const NchwcV (&acc)[kPositions][kBlocks],
                                                   bool last) {
  constexpr int64_t b = kNchwcBlock;
  if (!last) {
#pragma GCC unroll 4
    for (int j = 0; j < kBlocks; ++j)
#pragma GCC unroll 16
      for (int p = 0; p < kPositions; ++p)
        NchwcLanes::Store(plan.output + j * plan.output_plane + out_offset + p * b, acc[p][j]);
    return;
  }
  // The epilogue's choices made once per tile, not per vector (a tile of few input channels
  // spends a fair share of its time here).
  switch (plan.store.activation) {
    case kActivationRelu:
      return NchwcStoreTile<kActivationRelu, kPositions, kBlocks>(plan, out_offset, acc);
    case kActivationLeakyRelu:
      return NchwcStoreTile<kActivationLeakyRelu, kPositions, kBlocks>(plan, out_offset, acc);
    case kActivationClip:
      return NchwcStoreTile<kActivationClip, kPositions, kBlocks>(plan, out_offset, acc);
    default:
      return NchwcStoreTile<kActivationNone, kPositions, kBlocks>(plan, out_offset, acc);
  }
}

#if PRISM_NCHWC_ASM_TILES
// The assembly tiles' view of a tile's ends (at most 4 blocks).
inline NchwcAsmEnds NchwcTileEnds(const NchwcConvPlan& plan, int64_t position, bool first,
                                  bool last) {
  alignas(32) static constexpr float kNoBias[4 * kNchwcBlock] = {};
  return NchwcAsmEnds{plan.bias != nullptr ? plan.bias : kNoBias,
                      plan.sum != nullptr ? plan.sum + position * kNchwcBlock : nullptr,
                      plan.output + position * kNchwcBlock,
                      plan.output_plane * int64_t{sizeof(float)},
                      first,
                      last,
                      plan.store.activation,
                      plan.store.alpha[0],
                      plan.store.beta[0]};
}

// A 1x1 tile of 3 x 4 or 4 x 3 on the assembly tiles (above), non-contiguous positions. A
// function of its own: in the template's tile, asm with sums in memory made gcc keep every
// tile's accumulators on the stack, the 3x3 ones too (resnet50's 3x3 layers without Winograd
// ran twice as long).
template <int kPositions, int kBlocks>
[[gnu::noinline]] void NchwcConv1x1TileAsm(const NchwcConvPlan& plan, int64_t position,
                                           const int64_t* offsets, int64_t group_begin,
                                           int64_t group_end, bool first, bool last) {
  static_assert((kPositions == 3 && kBlocks == 4) || (kPositions == 4 && kBlocks == 3));
  const NchwcSource& src = plan.source;
  const NchwcAsmEnds ends = NchwcTileEnds(plan, position, first, last);
  const float* first_group = src.base + group_begin * src.group_stride;
  const float* w = plan.filter + group_begin * plan.filter_group;
  if constexpr (kPositions == 3)
    Nchwc1x1Tile3x4(first_group + offsets[0], first_group + offsets[1], first_group + offsets[2], w,
                    group_end - group_begin, src.group_stride, ends);
  else
    Nchwc1x1Tile4x3(first_group + offsets[0], first_group + offsets[1], first_group + offsets[2],
                    first_group + offsets[3], w, group_end - group_begin, src.group_stride, ends);
}

// A tile of 3 x 4 or 4 x 3 over windows larger than 1x1, or of 3 x 4 over an NCHW input of 3
// channels, on the tabled assembly tiles (plan.tap_bytes set).
template <bool kNchwInput, int kPositions, int kBlocks>
[[gnu::noinline]] void NchwcConvTapsTileAsm(const NchwcConvPlan& plan, int64_t position,
                                            const int64_t* offsets, int64_t group_begin,
                                            int64_t group_end, bool first, bool last) {
  const NchwcConvShape& s = *plan.shape;
  const NchwcSource& src = plan.source;
  const int64_t taps = s.kernel_h * s.kernel_w;
  const int64_t* table = plan.tap_bytes + (group_begin - plan.tap_group_begin) * taps;
  const int64_t entries = (group_end - group_begin) * taps;
  const float* w = plan.filter + group_begin * plan.filter_group;
  const NchwcAsmEnds ends = NchwcTileEnds(plan, position, first, last);
  if constexpr (kNchwInput)
    NchwcRgbTile3x4(src.base + offsets[0], src.base + offsets[1], src.base + offsets[2], w, table,
                    entries, src.lane_stride, ends);
  else if constexpr (kPositions == 3)
    NchwcTapsTile3x4(src.base + offsets[0], src.base + offsets[1], src.base + offsets[2], w, table,
                     entries, ends);
  else
    NchwcTapsTile4x3(src.base + offsets[0], src.base + offsets[1], src.base + offsets[2],
                     src.base + offsets[3], w, table, entries, ends);
}
#endif

// The first tile of a call brings the next call's filter into L2 while it reads its own, one
// channel's filter vectors per channel (AVX-512: each item's filter of a layer with many channels
// on a small plane, 64 KiB per chunk, was otherwise read from L3 by the tile that first needed
// it, and resnet50's 7x7 1x1 layers ran at 0.79 of onnxruntime's rate; 0.9 with this).
template <int kBlocks>
[[gnu::always_inline]] inline void NchwcPrefetchNextFilter(const NchwcConvPlan& plan,
                                                           const float* w) {
#if defined(__AVX512F__)
  if (plan.next_filter_offset != 0) {
#pragma GCC unroll 4
    for (int j = 0; j < kBlocks; ++j)
      _mm_prefetch(reinterpret_cast<const char*>(w + plan.next_filter_offset + j * kNchwcBlock),
                   _MM_HINT_T1);
  }
#else
  (void)plan;
  (void)w;
#endif
}

// kPositions consecutive output positions (flattened over the plane, starting at `position`),
// whose windows start at source offsets `offsets`, times output blocks 0 .. kBlocks - 1 of the
// plan, over input channel groups [group_begin, group_end). first: the sums start at zero, else
// at the output; last: bias, sum and activation are applied. kContiguous: position p's window
// starts b floats after position p - 1's (only offsets[0] is read).
// Never inlined: in a caller's larger body gcc's register allocation spilled accumulators (the
// call is paid once per tile, over all its input channels and taps).
template <bool kNchwInput, int kPositions, int kBlocks, bool kContiguous>
[[gnu::noinline]] void NchwcConvTile(const NchwcConvPlan& plan, int64_t position,
                                     const int64_t* offsets, int64_t group_begin, int64_t group_end,
                                     bool first, bool last) {
  const NchwcConvShape& s = *plan.shape;
#if PRISM_NCHWC_ASM_TILES
  if constexpr (!kNchwInput && !kContiguous &&
                ((kPositions == 3 && kBlocks == 4) || (kPositions == 4 && kBlocks == 3))) {
    if (s.kernel_h == 1 && s.kernel_w == 1)
      return NchwcConv1x1TileAsm<kPositions, kBlocks>(plan, position, offsets, group_begin,
                                                      group_end, first, last);
  }
  if constexpr (!kContiguous && ((kPositions == 3 && kBlocks == 4) ||
                                 (!kNchwInput && kPositions == 4 && kBlocks == 3))) {
    if (plan.tap_bytes != nullptr)
      return NchwcConvTapsTileAsm<kNchwInput, kPositions, kBlocks>(
          plan, position, offsets, group_begin, group_end, first, last);
  }
#endif
  const NchwcSource& src = plan.source;
  constexpr int64_t b = kNchwcBlock;
  // Per input channel the tile holds either its blocks' filter vectors and one broadcast at a
  // time, or its positions' broadcasts and one filter vector at a time: whichever fits the
  // registers beside the accumulators. On AVX2 a 3 x 4 tile's filters do not (12 + 4 + 1 > 16
  // ymm): gcc spilled an accumulator, and the store and reload on every input channel made the
  // loop wait on them (34 GFLOP/s against oneDNN's 80 on resnet50's 3x3 64-channel layer).
  constexpr int kAccumulatorCount = kPositions * kBlocks;
  constexpr bool kFiltersFit = kAccumulatorCount + kBlocks + 1 <= NchwcLanes::kRegisters;
  constexpr bool kBroadcastsHeld =
      !kFiltersFit && kAccumulatorCount + kPositions + 1 <= NchwcLanes::kRegisters;
  NchwcV acc[kPositions][kBlocks];
  const int64_t out_offset = position * b;
#pragma GCC unroll 16
  for (int p = 0; p < kPositions; ++p)
#pragma GCC unroll 4
    for (int j = 0; j < kBlocks; ++j)
      acc[p][j] = first
                      ? NchwcLanes::Zero()
                      : NchwcLanes::Load(plan.output + j * plan.output_plane + out_offset + p * b);
  // One input channel: value(p) of each position times the blocks' filter vectors at w.
  auto channel = [&](auto value, const float* w) [[gnu::always_inline]] {
    if constexpr (kBroadcastsHeld) {
      NchwcV xv[kPositions];
#pragma GCC unroll 16
      for (int p = 0; p < kPositions; ++p) xv[p] = NchwcLanes::Splat(value(p));
#pragma GCC unroll 4
      for (int j = 0; j < kBlocks; ++j) {
        const NchwcV wv = NchwcLanes::Load(w + j * b);
#pragma GCC unroll 16
        for (int p = 0; p < kPositions; ++p) acc[p][j] = NchwcLanes::Fma(xv[p], wv, acc[p][j]);
      }
    } else {
      NchwcV wv[kBlocks];
#pragma GCC unroll 4
      for (int j = 0; j < kBlocks; ++j) wv[j] = NchwcLanes::Load(w + j * b);
#pragma GCC unroll 16
      for (int p = 0; p < kPositions; ++p) {
        const NchwcV xv = NchwcLanes::Splat(value(p));
#pragma GCC unroll 4
        for (int j = 0; j < kBlocks; ++j) acc[p][j] = NchwcLanes::Fma(xv, wv[j], acc[p][j]);
      }
    }
  };
  const float* w = plan.filter + group_begin * plan.filter_group;
  if (!kNchwInput && s.kernel_h == 1 && s.kernel_w == 1) {
    // 1x1: a group is b channels at one place per position; the taps' loops and their pointer
    // set-up per group cost as much as the group's multiply-adds (2.8 instructions per FMA).
    const float* first_group = src.base + group_begin * src.group_stride;
    const float* x[kPositions];
#pragma GCC unroll 16
    for (int p = 0; p < kPositions; ++p) x[p] = first_group + offsets[p];
    const float* x0 = first_group + offsets[0];  // contiguous: one pointer, as below
    for (int64_t g = group_begin; g < group_end; ++g) {
#pragma GCC unroll 8
      for (int64_t i = 0; i < b; ++i) {
        if constexpr (kContiguous)
          channel([&](int p) { return x0[p * b + i]; }, w);
        else
          channel([&](int p) { return x[p][i]; }, w);
        NchwcPrefetchNextFilter<kBlocks>(plan, w);
        w += kBlocks * b;
      }
      x0 += src.group_stride;
#pragma GCC unroll 16
      for (int p = 0; p < kPositions; ++p) x[p] += src.group_stride;
    }
  } else {
    const int64_t lanes = kNchwInput ? plan.lanes : b;
    const int64_t lane_stride = kNchwInput ? src.lane_stride : 1;
    const int64_t kh_step = s.dilation_h * src.row_stride;
    const int64_t kw_step = s.dilation_w * src.pixel_stride;
    for (int64_t g = group_begin; g < group_end; ++g) {
      const float* group = src.base + g * src.group_stride;
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
          const float* tap = group + kh * kh_step + kw * kw_step;
          const float* x[kPositions];
#pragma GCC unroll 16
          for (int p = 0; p < kPositions; ++p) x[p] = tap + offsets[p];
          // Contiguous: one pointer, position p at a constant displacement (separate pointers
          // would each take a register, or be spilled).
          const float* x0 = tap + offsets[0];
#pragma GCC unroll 4
          for (int64_t i = 0; i < lanes; ++i) {
            if constexpr (kContiguous)
              channel([&](int p) { return x0[p * b + i]; }, w);
            else
              channel([&](int p) { return x[p][i * lane_stride]; }, w);
            NchwcPrefetchNextFilter<kBlocks>(plan, w);
            w += kBlocks * b;
          }
        }
      }
    }
  }
  NchwcFinishTile<kPositions, kBlocks>(plan, out_offset, acc, last);
}

template <bool kNchwInput, int kBlocks, int kPositions, bool kContiguous>
void NchwcConvTileOfWidth(int64_t width, const NchwcConvPlan& plan, int64_t position,
                          const int64_t* offsets, int64_t group_begin, int64_t group_end,
                          bool first, bool last) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcConvTileOfWidth<kNchwInput, kBlocks, kPositions - 1, kContiguous>(
          width, plan, position, offsets, group_begin, group_end, first, last);
  }
  NchwcConvTile<kNchwInput, kPositions, kBlocks, kContiguous>(plan, position, offsets, group_begin,
                                                              group_end, first, last);
}

// Walks output positions in flattened order, giving each one's source offset (no divisions).
struct NchwcPositionWalk {
  int64_t oh, ow, output_w, row_step, col_step, first_row;
  int64_t Offset() const { return (oh - first_row) * row_step + ow * col_step; }
  void Next() {
    if (++ow == output_w) {
      ow = 0;
      ++oh;
    }
  }
};

// The tiles of output rows [row_begin, row_end) over input channel groups [g, g_end).
template <bool kNchwInput, int kBlocks, bool kContiguous>
void NchwcConvRunTiles(NchwcConvPlan plan, int64_t row_begin, int64_t row_end, int64_t g,
                       int64_t g_end, int64_t groups) {
  const NchwcConvShape& s = *plan.shape;
  constexpr int64_t kMax =
      kContiguous ? kNchwcContiguousTilePositions<kBlocks> : kNchwcTilePositions<kBlocks>;
  NchwcPositionWalk walk{row_begin,
                         0,
                         s.output_w,
                         plan.source.window_row_step,
                         plan.source.window_col_step,
                         plan.source.first_row};
  const int64_t end = row_end * s.output_w;
  for (int64_t position = row_begin * s.output_w; position < end;) {
    const int64_t left = end - position;
    // A remainder just over one tile is split in two rather than a full tile and a sliver.
    const int64_t width = left <= kMax ? left : (left < 2 * kMax ? (left + 1) / 2 : kMax);
    int64_t offsets[kMax];
    for (int64_t p = 0; p < width; ++p, walk.Next()) offsets[p] = walk.Offset();
    NchwcConvTileOfWidth<kNchwInput, kBlocks, kMax, kContiguous>(width, plan, position, offsets, g,
                                                                 g_end, g == 0, g_end == groups);
    plan.next_filter_offset = 0;  // prefetched by the first tile
    position += width;
  }
}

// Input channel groups per chunk: the chunk's filters for an item's blocks (at most
// kNchwcConvBlocksPerItem of them) stay near while the tiles of a strip go past. 64 KiB with
// AVX-512 (measured on a 1 MiB L2 machine); 16 KiB with AVX2, half of a 32 KiB L1: on the AVX2
// machine (Zen 3) 64 KiB chunks streamed the filters from L2 for every tile, and 1x1 layers of
// many input channels ran at 38-53 GFLOP/s instead of 68-73 (resnet50's 256 -> 64 at 56x56,
// mobilenetv2's 576 -> 96 at 14x14, 160 -> 960 at 7x7).
int64_t NchwcConvChunkGroups(const NchwcConvShape& s) {
  const int64_t lanes = s.input_is_nchw ? s.input_channels : kNchwcBlock;
  const int64_t blocks = std::min(kNchwcConvBlocksPerItem, s.output_channels / kNchwcBlock);
  const int64_t filter_group = lanes * s.kernel_h * s.kernel_w * blocks * kNchwcBlock;
  int64_t chunk = std::max<int64_t>(1, NchwcLanes::kFilterChunkFloats / filter_group);
  if (NchwcLanes::kChunkWithinL1Sets && !s.input_is_nchw) {
    // A tile reads each group of its chunk a plane apart. Where the plane's size is a multiple
    // of 2 KiB those reads fall on few of the L1's 64 sets (resnet50's 56x56 planes: 2 places),
    // and a chunk of 16 groups evicted its own input between tiles: 0.60 M L1 misses against
    // 0.36 M with 8 groups (cachegrind, 256 -> 128 1x1 at 56x56). At most 4 groups per place.
    constexpr int64_t kWay = 4096;  // bytes a set repeats after: 64 sets of 64-byte lines
    const int64_t plane_bytes = s.input_h * s.input_w * kNchwcBlock * int64_t{sizeof(float)};
    const int64_t places =
        kWay / std::gcd(plane_bytes % kWay == 0 ? kWay : plane_bytes % kWay, kWay);
    chunk = std::min(chunk, 4 * places);
  }
  return chunk;
}

// Where NchwcPackFilter put the filter of output blocks [block, block + count) (one item's)
// from input channel group g on.
inline const float* NchwcFilterAt(const NchwcConvShape& s, const float* packed, int64_t block,
                                  int64_t count, int64_t g) {
  const int64_t lanes = s.input_is_nchw ? s.input_channels : kNchwcBlock;
  const int64_t groups = s.input_is_nchw ? 1 : s.input_channels / kNchwcBlock;
  return packed + (block * groups + g * count) * lanes * s.kernel_h * s.kernel_w * kNchwcBlock;
}

// Rows [row_begin, row_end) of image n, output blocks [block, block + kBlocks), over input channel
// groups [group_begin, group_end): the first chunk stores its sums, later ones add to them, the
// last applies the epilogue.
template <bool kNchwInput, int kBlocks>
void NchwcConvRows(const NchwcConvShape& s, const NchwcSource& source, const float* packed,
                   const NchwcConvEpilogue& epilogue, float* output, int64_t n, int64_t block,
                   int64_t row_begin, int64_t row_end, int64_t group_begin, int64_t group_end,
                   const float* next_filter) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t output_blocks = s.output_channels / b;
  const int64_t groups = kNchwInput ? 1 : s.input_channels / b;
  NchwcConvPlan plan{};
  plan.shape = &s;
  plan.lanes = kNchwInput ? s.input_channels : b;
  plan.source = source;
  plan.filter_group = plan.lanes * s.kernel_h * s.kernel_w * kBlocks * b;
  plan.filter = NchwcFilterAt(s, packed, block, kBlocks, 0);
  plan.output_plane = s.output_h * s.output_w * b;
  const int64_t output_offset = (n * output_blocks + block) * plan.output_plane;
  plan.output = output + output_offset;
  plan.sum = epilogue.sum != nullptr ? epilogue.sum + output_offset : nullptr;
  plan.bias = epilogue.bias != nullptr ? epilogue.bias + block * b : nullptr;
  plan.store = NchwcStore{epilogue.activation, NchwcLanes::Splat(epilogue.alpha),
                          NchwcLanes::Splat(epilogue.beta)};
  if (next_filter != nullptr)
    plan.next_filter_offset = next_filter - (plan.filter + group_begin * plan.filter_group);
#if PRISM_NCHWC_ASM_TILES
  const bool one_by_one = s.kernel_h == 1 && s.kernel_w == 1;
  const bool tabled =
      kNchwInput ? kBlocks == 4 && plan.lanes == 3 : (kBlocks == 3 || kBlocks == 4) && !one_by_one;
  if (tabled) {
    thread_local std::vector<int64_t> tap_bytes;
    tap_bytes.clear();
    // This call's groups only: a call may cover a single chunk of few groups.
    for (int64_t g = group_begin; g < group_end; ++g)
      for (int64_t kh = 0; kh < s.kernel_h; ++kh)
        for (int64_t kw = 0; kw < s.kernel_w; ++kw)
          tap_bytes.push_back((g * source.group_stride + kh * s.dilation_h * source.row_stride +
                               kw * s.dilation_w * source.pixel_stride) *
                              int64_t{sizeof(float)});
    plan.tap_bytes = tap_bytes.data();
    plan.tap_group_begin = group_begin;
  }
#endif
  // Consecutive positions one pixel apart all along the run (stride 1 along the row, and a row's
  // last window followed by the next row's first: 1x1 and no padding)?
  // Tiles of 1 or 2 blocks take it: they gain positions (16 and 12 of them, from 8). With 3 or
  // 4 blocks the positions stay as many: on AVX2 the one-pointer form measured 4-6% slower than
  // the assembly tiles; on AVX-512 (no assembly tiles) the six pointers of a 6 x 4 tile did not
  // fit beside its other operands, gcc kept them on the stack and in vector registers (two
  // vmovq per channel on the multiply-add port), and the one pointer took 0.96-0.975 of the time
  // on resnet50's 1x1 layers.
  const bool contiguous = (kBlocks <= 2 || NchwcLanes::kRegisters == 32) && !kNchwInput &&
                          plan.source.window_col_step == b &&
                          plan.source.window_row_step == s.output_w * b;
  if (contiguous)
    NchwcConvRunTiles<kNchwInput, kBlocks, true>(plan, row_begin, row_end, group_begin, group_end,
                                                 groups);
  else
    NchwcConvRunTiles<kNchwInput, kBlocks, false>(plan, row_begin, row_end, group_begin, group_end,
                                                  groups);
}

// kPositions consecutive output vectors of one block plus bias and residual, activated, stored
// at out: the epilogue's choices made once, not per vector (a depthwise tile has only its taps'
// multiply-adds to spread them over).
template <int kActivation, int kPositions>
[[gnu::always_inline]] inline void NchwcStoreRunAs(const NchwcStore& store,
                                                   const NchwcV (&acc)[kPositions], float* out,
                                                   const float* sum, const float* bias) {
  constexpr int64_t b = kNchwcBlock;
  const NchwcV bias_v = bias != nullptr ? NchwcLanes::Load(bias) : NchwcLanes::Zero();
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) {
    NchwcV v = NchwcLanes::Add(acc[p], bias_v);
    if (sum != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(sum + p * b));
    NchwcLanes::Store(out + p * b, store.Activate<kActivation>(v));
  }
}
template <int kPositions>
[[gnu::always_inline]] inline void NchwcStoreRun(const NchwcStore& store,
                                                 const NchwcV (&acc)[kPositions], float* out,
                                                 const float* sum, const float* bias) {
  switch (store.activation) {
    case kActivationRelu:
      return NchwcStoreRunAs<kActivationRelu, kPositions>(store, acc, out, sum, bias);
    case kActivationLeakyRelu:
      return NchwcStoreRunAs<kActivationLeakyRelu, kPositions>(store, acc, out, sum, bias);
    case kActivationClip:
      return NchwcStoreRunAs<kActivationClip, kPositions>(store, acc, out, sum, bias);
    default:
      return NchwcStoreRunAs<kActivationNone, kPositions>(store, acc, out, sum, bias);
  }
}

// Depthwise: kPositions output positions of one row of one block, their windows starting at
// image + offset + p * step, taps clipped to kh_range x kw_range (the input itself is read: no
// copy, so positions whose window leaves the input run one at a time with their taps clipped).
template <int kPositions>
void NchwcDepthwiseTile(const NchwcConvShape& s, const float* image, int64_t offset, int64_t step,
                        const float* filter, float* out, const float* sum, const float* bias,
                        const NchwcStore& store, TapRange kh_range, TapRange kw_range) {
  constexpr int64_t b = kNchwcBlock;
  NchwcV acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = NchwcLanes::Zero();
  const int64_t kh_step = s.dilation_h * s.input_w * b;
  const int64_t kw_step = s.dilation_w * b;
  for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
    for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw) {
      const NchwcV w = NchwcLanes::Load(filter + (kh * s.kernel_w + kw) * b);
      // Summed as integers first: offset alone may point before the image.
      const float* tap = image + (offset + kh * kh_step + kw * kw_step);
#pragma GCC unroll 8
      for (int p = 0; p < kPositions; ++p)
        acc[p] = NchwcLanes::Fma(NchwcLanes::Load(tap + p * step), w, acc[p]);
    }
  }
  NchwcStoreRun<kPositions>(store, acc, out, sum, bias);
}

template <int kPositions>
void NchwcDepthwiseTileOfWidth(int64_t width, const NchwcConvShape& s, const float* image,
                               int64_t offset, int64_t step, const float* filter, float* out,
                               const float* sum, const float* bias, const NchwcStore& store,
                               TapRange kh_range, TapRange kw_range) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcDepthwiseTileOfWidth<kPositions - 1>(width, s, image, offset, step, filter, out,
                                                       sum, bias, store, kh_range, kw_range);
  }
  NchwcDepthwiseTile<kPositions>(s, image, offset, step, filter, out, sum, bias, store, kh_range,
                                 kw_range);
}

// What the depthwise rows functions below read and write for one (image n, channel block): the
// block's input plane, its packed filter (kernel_h * kernel_w vectors), the offset of its output
// plane (in Y and in the epilogue's sum) and its bias (nullptr: none). Its users copy the fields
// into named locals: clang 14 cannot capture a structured binding in a lambda.
struct NchwcDepthwiseBlock {
  const float* image;
  const float* filter;
  int64_t plane_offset;
  const float* bias;

  static NchwcDepthwiseBlock Of(const NchwcConvShape& s, const float* input, const float* packed,
                                const NchwcConvEpilogue& epilogue, int64_t n, int64_t block) {
    constexpr int64_t b = kNchwcBlock;
    const int64_t plane = n * (s.output_channels / b) + block;
    return {input + plane * s.input_h * s.input_w * b, packed + block * s.kernel_h * s.kernel_w * b,
            plane * s.output_h * s.output_w * b,
            epilogue.bias != nullptr ? epilogue.bias + block * b : nullptr};
  }
};

// Rows [row_begin, row_end) of block `block` of image n. The columns whose windows stay inside
// the input, and the clipped taps of the others, are the same for every row: worked out once.
void NchwcDepthwiseRows(const NchwcConvShape& s, const float* input, const float* packed,
                        const NchwcConvEpilogue& epilogue, const NchwcStore& store, float* output,
                        int64_t n, int64_t block, int64_t row_begin, int64_t row_end) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int64_t kWidth = 8;
  const NchwcDepthwiseBlock at = NchwcDepthwiseBlock::Of(s, input, packed, epilogue, n, block);
  const float *image = at.image, *filter = at.filter, *bias = at.bias;
  const int64_t plane_offset = at.plane_offset;
  const TapRange interior =
      InteriorPositions(s.output_w, s.stride_w, s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
  const int64_t step = s.stride_w * b;
  const int64_t window_h = (s.kernel_h - 1) * s.dilation_h;
  // The clipped taps of the first and last columns (those whose windows leave the input).
  constexpr int64_t kEdges = 8;
  TapRange edge_kw[2 * kEdges];
  auto edge_taps = [&](int64_t ow) {
    return ClipTaps(ow * s.stride_w - s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
  };
  for (int64_t e = 0; e < kEdges; ++e) {
    if (e < interior.lo) edge_kw[e] = edge_taps(e);
    if (interior.hi + e < s.output_w) edge_kw[kEdges + e] = edge_taps(interior.hi + e);
  }
  for (int64_t oh = row_begin; oh < row_end; ++oh) {
    const int64_t ih = oh * s.stride_h - s.pad_top;
    const TapRange kh_range = ih >= 0 && ih + window_h < s.input_h
                                  ? TapRange{0, s.kernel_h}
                                  : ClipTaps(ih, s.kernel_h, s.dilation_h, s.input_h);
    // The tap (kh_range.lo, *) of row oh is at input row ih + kh_range.lo * dilation_h; offsets
    // below are relative to row ih, column 0, which kh_range keeps inside the input.
    const int64_t row_offset = ih * s.input_w * b;
    float* out = output + plane_offset + oh * s.output_w * b;
    const float* sum =
        epilogue.sum != nullptr ? epilogue.sum + plane_offset + oh * s.output_w * b : nullptr;
    auto edge = [&](int64_t ow) {
      const int64_t iw = ow * s.stride_w - s.pad_left;
      const int64_t e = ow < interior.lo ? ow : kEdges + ow - interior.hi;
      const TapRange kw_range = ow < interior.lo ? (e < kEdges ? edge_kw[e] : edge_taps(ow))
                                                 : (e < 2 * kEdges ? edge_kw[e] : edge_taps(ow));
      NchwcDepthwiseTile<1>(s, image, row_offset + iw * b, 0, filter, out + ow * b,
                            sum != nullptr ? sum + ow * b : nullptr, bias, store, kh_range,
                            kw_range);
    };
    for (int64_t ow = 0; ow < interior.lo; ++ow) edge(ow);
    const TapRange all_kw{0, s.kernel_w};
    for (int64_t ow = interior.lo; ow < interior.hi;) {
      const int64_t width = std::min(kWidth, interior.hi - ow);
      NchwcDepthwiseTileOfWidth<kWidth>(
          width, s, image, row_offset + (ow * s.stride_w - s.pad_left) * b, step, filter,
          out + ow * b, sum != nullptr ? sum + ow * b : nullptr, bias, store, kh_range, all_kw);
      ow += width;
    }
    for (int64_t ow = interior.hi; ow < s.output_w; ++ow) edge(ow);
  }
}

// Depthwise 3x3, dilation 1, stride kStride (1 or 2): kPositions consecutive outputs of one
// row of one block. Each input column of the tile's window row is loaded once and feeds every
// output it belongs to (3 x kPositions multiply-adds from kStride x (kPositions - 1) + 3 loads
// per filter row, against one load per multiply-add in NchwcDepthwiseTile); with kChecked,
// columns outside [0, input_w) are zeros (the tiles at a row's ends), so no output runs alone
// with clipped taps. `first` is the tile's first input column (may be negative), `origin` the
// offset in image of input row ih's column 0 (may be negative: kh_range keeps the taps read
// inside the input).
template <int kStride, int kPositions, bool kChecked>
void NchwcDepthwise3x3Tile(const NchwcConvShape& s, const float* image, int64_t origin,
                           int64_t first, const float* filter, float* out, const float* sum,
                           const float* bias, const NchwcStore& store, TapRange kh_range,
                           bool prefetch_ahead) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int kColumns = kStride * (kPositions - 1) + 3;
  NchwcV acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = NchwcLanes::Zero();
  const int64_t row_step = s.input_w * b;
  // The tile's columns inside the input (all of them unless kChecked).
  const int64_t column_lo = kChecked ? std::max<int64_t>(0, -first) : 0;
  const int64_t column_hi = kChecked ? std::min<int64_t>(kColumns, s.input_w - first) : kColumns;
  for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
    const int64_t taps = origin + kh * row_step + first * b;
    const NchwcV w0 = NchwcLanes::Load(filter + (kh * 3 + 0) * b);
    const NchwcV w1 = NchwcLanes::Load(filter + (kh * 3 + 1) * b);
    const NchwcV w2 = NchwcLanes::Load(filter + (kh * 3 + 2) * b);
#pragma GCC unroll 32
    for (int c = 0; c < kColumns; ++c) {
      if (kChecked && (c < column_lo || c >= column_hi)) continue;
      const NchwcV x = NchwcLanes::Load(image + (taps + c * b));
      // Column c is tap kw of output p where c = kStride * p + kw.
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        const int p = (c - kw) / kStride;
        if (c - kw < 0 || (c - kw) % kStride != 0 || p >= kPositions) continue;
        acc[p] = NchwcLanes::Fma(x, kw == 0 ? w0 : (kw == 1 ? w1 : w2), acc[p]);
      }
    }
  }
  // The input rows the next output row reads first, on their way into the cache.
  if (prefetch_ahead) {
    const int64_t ahead = origin + (kStride + 2) * row_step + first * b;
#pragma GCC unroll 16
    for (int c = 0; c < kColumns; c += 2) {
      if (kChecked && (c < column_lo || c >= column_hi)) continue;
      __builtin_prefetch(image + (ahead + c * b));
      if constexpr (kStride == 2) __builtin_prefetch(image + (ahead - row_step + c * b));
    }
  }
  NchwcStoreRun<kPositions>(store, acc, out, sum, bias);
}

template <int kStride, int kPositions, bool kChecked>
void NchwcDepthwise3x3TileOfWidth(int64_t width, const NchwcConvShape& s, const float* image,
                                  int64_t origin, int64_t first, const float* filter, float* out,
                                  const float* sum, const float* bias, const NchwcStore& store,
                                  TapRange kh_range, bool prefetch_ahead) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcDepthwise3x3TileOfWidth<kStride, kPositions - 1, kChecked>(
          width, s, image, origin, first, filter, out, sum, bias, store, kh_range, prefetch_ahead);
  }
  NchwcDepthwise3x3Tile<kStride, kPositions, kChecked>(s, image, origin, first, filter, out, sum,
                                                       bias, store, kh_range, prefetch_ahead);
}

// Whether NchwcDepthwise3x3Rows computes this depthwise convolution.
inline bool NchwcDepthwise3x3Applies(const NchwcConvShape& s) {
  return s.kernel_h == 3 && s.kernel_w == 3 && s.dilation_h == 1 && s.dilation_w == 1 &&
         (s.stride_w == 1 || s.stride_w == 2);
}

// Rows [row_begin, row_end) of block `block` of image n, 3x3 filters (NchwcDepthwise3x3Applies):
// tiles of 8 outputs along each row, the row's ends zero-filled in the tiles that reach them.
template <int kStride>
void NchwcDepthwise3x3Rows(const NchwcConvShape& s, const float* input, const float* packed,
                           const NchwcConvEpilogue& epilogue, const NchwcStore& store,
                           float* output, int64_t n, int64_t block, int64_t row_begin,
                           int64_t row_end) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int64_t kWidth = 8;
  const NchwcDepthwiseBlock at = NchwcDepthwiseBlock::Of(s, input, packed, epilogue, n, block);
  const float *image = at.image, *filter = at.filter, *bias = at.bias;
  const int64_t plane_offset = at.plane_offset;
  for (int64_t oh = row_begin; oh < row_end; ++oh) {
    const int64_t ih = oh * s.stride_h - s.pad_top;
    const TapRange kh_range = ClipTaps(ih, 3, 1, s.input_h);
    const int64_t origin = ih * s.input_w * b;  // ih < 0 in the top padding: an offset
    // The rows the next output row adds (ih + 3, and ih + 4 at stride 2) are prefetched as the
    // tiles go when they are inside the input (rows strided as the columns: the usual case).
    const bool prefetch_ahead =
        s.stride_h == kStride && ih + 3 >= 0 && ih + kStride + 2 < s.input_h;
    float* out = output + plane_offset + oh * s.output_w * b;
    const float* sum =
        epilogue.sum != nullptr ? epilogue.sum + plane_offset + oh * s.output_w * b : nullptr;
    for (int64_t ow = 0; ow < s.output_w; ow += kWidth) {
      const int64_t width = std::min(kWidth, s.output_w - ow);
      const int64_t first = ow * kStride - s.pad_left;
      const int64_t last = first + kStride * (width - 1) + 2;
      float* tile_out = out + ow * b;
      const float* tile_sum = sum != nullptr ? sum + ow * b : nullptr;
      if (first >= 0 && last < s.input_w)
        NchwcDepthwise3x3TileOfWidth<kStride, kWidth, false>(width, s, image, origin, first, filter,
                                                             tile_out, tile_sum, bias, store,
                                                             kh_range, prefetch_ahead);
      else
        NchwcDepthwise3x3TileOfWidth<kStride, kWidth, true>(width, s, image, origin, first, filter,
                                                            tile_out, tile_sum, bias, store,
                                                            kh_range, prefetch_ahead);
    }
  }
}

// Depthwise on small planes: kPositions consecutive output positions (flattened over the
// plane) of one block, their windows at source offsets in a zero-padded copy of the rows.
template <int kPositions>
void NchwcDepthwisePaddedTile(const NchwcConvShape& s, const NchwcSource& src, const float* filter,
                              float* out, const float* sum, const float* bias,
                              const NchwcStore& store, const int64_t* offsets) {
  constexpr int64_t b = kNchwcBlock;
  NchwcV acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = NchwcLanes::Zero();
  const int64_t kh_step = s.dilation_h * src.row_stride;
  const int64_t kw_step = s.dilation_w * b;
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const NchwcV w = NchwcLanes::Load(filter + (kh * s.kernel_w + kw) * b);
      const float* tap = src.base + kh * kh_step + kw * kw_step;
#pragma GCC unroll 8
      for (int p = 0; p < kPositions; ++p)
        acc[p] = NchwcLanes::Fma(NchwcLanes::Load(tap + offsets[p]), w, acc[p]);
    }
  }
  NchwcStoreRun<kPositions>(store, acc, out, sum, bias);
}

template <int kPositions>
void NchwcDepthwisePaddedTileOfWidth(int64_t width, const NchwcConvShape& s, const NchwcSource& src,
                                     const float* filter, float* out, const float* sum,
                                     const float* bias, const NchwcStore& store,
                                     const int64_t* offsets) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcDepthwisePaddedTileOfWidth<kPositions - 1>(width, s, src, filter, out, sum, bias,
                                                             store, offsets);
  }
  NchwcDepthwisePaddedTile<kPositions>(s, src, filter, out, sum, bias, store, offsets);
}

// Rows [row_begin, row_end) of block `block` of image n, from a padded copy: no edge columns, and
// tiles run across row ends (a 7x7 plane is 49 positions in tiles of 8, not rows of 5 + 2 edges).
void NchwcDepthwiseRowsPadded(const NchwcConvShape& s, const float* input, const float* packed,
                              const NchwcConvEpilogue& epilogue, const NchwcStore& store,
                              float* output, int64_t n, int64_t block, int64_t row_begin,
                              int64_t row_end) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int64_t kWidth = 8;
  const NchwcDepthwiseBlock at = NchwcDepthwiseBlock::Of(s, input, packed, epilogue, n, block);
  const float *image = at.image, *filter = at.filter, *bias = at.bias;
  const int64_t plane_offset = at.plane_offset;
  const NchwcSource src = NchwcSourceOf<false>(s, image, 1, b, row_begin, row_end);
  float* out = output + plane_offset;
  const float* sum = epilogue.sum != nullptr ? epilogue.sum + plane_offset : nullptr;
  NchwcPositionWalk walk{row_begin,    0, s.output_w, src.window_row_step, src.window_col_step,
                         src.first_row};
  const int64_t end = row_end * s.output_w;
  for (int64_t position = row_begin * s.output_w; position < end;) {
    const int64_t width = std::min(kWidth, end - position);
    int64_t offsets[kWidth];
    for (int64_t p = 0; p < width; ++p, walk.Next()) offsets[p] = walk.Offset();
    NchwcDepthwisePaddedTileOfWidth<kWidth>(width, s, src, filter, out + position * b,
                                            sum != nullptr ? sum + position * b : nullptr, bias,
                                            store, offsets);
    position += width;
  }
}

template <bool kNchwInput>
void NchwcConvBlocks(int64_t blocks, const NchwcConvShape& s, const NchwcSource& source,
                     const float* packed, const NchwcConvEpilogue& epilogue, float* output,
                     int64_t n, int64_t block, int64_t row_begin, int64_t row_end,
                     int64_t group_begin, int64_t group_end, const float* next_filter) {
  switch (blocks) {
    case 1:
      return NchwcConvRows<kNchwInput, 1>(s, source, packed, epilogue, output, n, block, row_begin,
                                          row_end, group_begin, group_end, next_filter);
    case 2:
      return NchwcConvRows<kNchwInput, 2>(s, source, packed, epilogue, output, n, block, row_begin,
                                          row_end, group_begin, group_end, next_filter);
    case 3:
      return NchwcConvRows<kNchwInput, 3>(s, source, packed, epilogue, output, n, block, row_begin,
                                          row_end, group_begin, group_end, next_filter);
    default:
      return NchwcConvRows<kNchwInput, 4>(s, source, packed, epilogue, output, n, block, row_begin,
                                          row_end, group_begin, group_end, next_filter);
  }
}

// Output rows per strip of a direct (not depthwise) convolution over `rows` rows of `segments`
// block groups with `output_channels` channels in all. Strips keep the strip's output, for every
// block group of the range, and the input rows of one chunk of input channels in L2 while every
// group and chunk goes over them; going group by group over the whole plane read the whole input
// once per group of output blocks, from L3 wherever it passes L2 (resnet50's 256 -> 128 1x1 at
// 56x56 reads 3.2 MB four times). But each strip reads every filter of the range again: where
// that is more than the input read once per group (big filters on a small plane: resnet50's
// 1024 -> 2048 at 7x7, 8 MB of filters), the range is one strip.
int64_t NchwcConvStripRows(const NchwcConvShape& s, int64_t rows, int64_t segments,
                           int64_t output_channels) {
  const int64_t chunk_channels =
      s.input_is_nchw ? s.input_channels
                      : std::min(s.input_channels, NchwcConvChunkGroups(s) * kNchwcBlock);
  const int64_t output_row = s.output_w * output_channels;
  const int64_t input_row = s.input_w * chunk_channels;  // per input row the strip reaches
  // rows of output + (rows - 1) * stride + window rows of input <= the budget
  const int64_t window = (s.kernel_h - 1) * s.dilation_h + 1;
  const int64_t per_row = output_row + s.stride_h * input_row;
  const int64_t strip =
      std::max<int64_t>(1, (NchwcLanes::kStripFloats - (window - s.stride_h) * input_row) /
                               std::max<int64_t>(1, per_row));
  if (strip >= rows) return rows;
  const bool compact = NchwcReadsCompactCopy(s);
  const int64_t filter_floats = output_channels * s.input_channels * s.kernel_h * s.kernel_w;
  const int64_t input_floats =
      (compact ? s.output_h * s.output_w : s.input_h * s.input_w) * s.input_channels;
  if (CeilDiv(rows, strip) * filter_floats > segments * input_floats) return rows;
  return strip;
}

// One image's share of a work range: rows [row_begin, row_end) of output block group `group`.
struct NchwcConvSegment {
  int64_t group, row_begin, row_end;
};

// Work items [begin, end) (mlas/nchwc.h): runs of consecutive rows of one image and output
// block group (depthwise: block) go to the row kernels together. A direct convolution goes strip
// by strip of output rows (NchwcConvStripRows), and within a strip chunk by chunk of input
// channels, every block group of the range taking the chunk before the next one.
void NchwcConvF32(const NchwcConvShape& s, const float* input, const float* packed,
                  const NchwcConvEpilogue& epilogue, float* output, int64_t begin, int64_t end) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t blocks = s.output_channels / b;
  const bool depthwise = s.IsDepthwise();
  const int64_t block_groups = depthwise ? blocks : CeilDiv(blocks, kNchwcConvBlocksPerItem);
  const NchwcStore store{epilogue.activation, NchwcLanes::Splat(epilogue.alpha),
                         NchwcLanes::Splat(epilogue.beta)};
  ++NchwcCallNumber();  // the scratch of an earlier call is stale
  if (depthwise) {
    for (int64_t item = begin; item < end;) {
      const int64_t oh = item % s.output_h;
      const int64_t block = item / s.output_h % block_groups;
      const int64_t n = item / s.output_h / block_groups;
      const int64_t row_end = std::min(s.output_h, oh + (end - item));
      // Narrow stride-1 planes: the edge columns would be a large share, and rows short tiles
      // (measured: 7x7 and 14x14 faster from the copy, stride 2 and 28x28 slower).
      if (NchwcDepthwise3x3Applies(s) && s.stride_w == 1)
        NchwcDepthwise3x3Rows<1>(s, input, packed, epilogue, store, output, n, block, oh, row_end);
      else if (NchwcDepthwise3x3Applies(s))
        NchwcDepthwise3x3Rows<2>(s, input, packed, epilogue, store, output, n, block, oh, row_end);
      else if (s.stride_w == 1 && s.output_w < 16)
        NchwcDepthwiseRowsPadded(s, input, packed, epilogue, store, output, n, block, oh, row_end);
      else
        NchwcDepthwiseRows(s, input, packed, epilogue, store, output, n, block, oh, row_end);
      item += row_end - oh;
    }
    return;
  }
  const int64_t groups = s.input_is_nchw ? 1 : s.input_channels / b;
  const int64_t chunk = s.input_is_nchw ? 1 : NchwcConvChunkGroups(s);
  // Items in (image, row, group) order where the filters are smaller than the input: a thread's
  // range is then a band of rows of every group, and reads (or pads a copy of) only its band's
  // input. In (image, group, row) order two threads each read the whole input, and padded layers
  // copied it whole for every range (resnet50's 3x3 layers at 2 threads: 1.5x onnxruntime's
  // time). Where the filters are bigger (many channels on a small plane) ranges split the groups,
  // so that each thread reads its share of the filters only.
  const bool rows_first = !NchwcConvFiltersFirst(s);
  // A segment's output blocks: the groups share the blocks evenly (6 blocks: 3 + 3, not 4 + 2).
  struct BlockSpan {
    int64_t block, count;
  };
  const auto span_of = [&](const NchwcConvSegment& segment) {
    const int64_t block = segment.group * blocks / block_groups;
    return BlockSpan{block, (segment.group + 1) * blocks / block_groups - block};
  };
  const auto filter_at = [&](BlockSpan span, int64_t g) {
    return NchwcFilterAt(s, packed, span.block, span.count, g);
  };
  const int64_t image_items = block_groups * s.output_h;
  thread_local std::vector<NchwcConvSegment> segments;
  for (int64_t item = begin; item < end;) {
    const int64_t n = item / image_items;
    // This image's segments.
    segments.clear();
    int64_t rows_lo = s.output_h, rows_hi = 0, channels = 0;
    const int64_t image_end = std::min(end, (n + 1) * image_items);
    auto add = [&](int64_t group, int64_t row_begin, int64_t row_end) {
      if (row_begin >= row_end) return;
      segments.push_back({group, row_begin, row_end});
      rows_lo = std::min(rows_lo, row_begin);
      rows_hi = std::max(rows_hi, row_end);
      const int64_t block = group * blocks / block_groups;
      channels += ((group + 1) * blocks / block_groups - block) * b;
    };
    if (rows_first) {
      // Items a .. z - 1 of the image: row a / G from group a % G on, full rows, then row
      // (z - 1) / G up to group (z - 1) % G.
      const int64_t a = item - n * image_items, last = image_end - 1 - n * image_items;
      for (int64_t group = 0; group < block_groups; ++group)
        add(group, a / block_groups + (group < a % block_groups ? 1 : 0),
            last / block_groups + (group <= last % block_groups ? 1 : 0));
      item = image_end;
    }
    while (item < image_end) {
      const int64_t oh = item % s.output_h;
      const int64_t group = item / s.output_h % block_groups;
      const int64_t row_end = std::min(s.output_h, oh + (image_end - item));
      add(group, oh, row_end);
      item += row_end - oh;
    }
    const int64_t strip =
        NchwcConvStripRows(s, rows_hi - rows_lo, static_cast<int64_t>(segments.size()), channels);
    const float* image = input + n * s.input_channels * s.input_h * s.input_w;
    for (int64_t r = rows_lo; r < rows_hi; r += strip) {
      const int64_t r_end = std::min(rows_hi, r + strip);
      // One source for the strip, whichever rows of it each segment takes (a copy per segment's
      // rows was made again for every chunk where two threads' ranges cut a group).
      const NchwcSource source = s.input_is_nchw
                                     ? NchwcSourceOf<true>(s, image, 1, s.input_channels, r, r_end)
                                     : NchwcSourceOf<false>(s, image, groups, b, r, r_end);
      for (int64_t g = 0; g < groups; g += chunk) {
        const int64_t g_end = std::min(groups, g + chunk);
        for (size_t i = 0; i < segments.size(); ++i) {
          const NchwcConvSegment& segment = segments[i];
          const int64_t lo = std::max(r, segment.row_begin);
          const int64_t hi = std::min(r_end, segment.row_end);
          if (lo >= hi) continue;
          const BlockSpan span = span_of(segment);
          // The filter this range reads next, for the call to prefetch (NchwcPrefetchNextFilter).
          const float* next_filter = i + 1 < segments.size()
                                         ? filter_at(span_of(segments[i + 1]), g)
                                     : g_end < groups ? filter_at(span_of(segments[0]), g_end)
                                                      : nullptr;
          if (s.input_is_nchw)
            NchwcConvBlocks<true>(span.count, s, source, packed, epilogue, output, n, span.block,
                                  lo, hi, g, g_end, next_filter);
          else
            NchwcConvBlocks<false>(span.count, s, source, packed, epilogue, output, n, span.block,
                                   lo, hi, g, g_end, next_filter);
        }
      }
    }
  }
}

// ---- Pooling: work items image x block x output row ----
// A max pool takes its taps with maxps, which keeps the second operand (the running maximum) when
// the tap is NaN, and flags the lanes that saw a NaN: ONNX MaxPool propagates NaN. The windows
// of a row's interior columns (wholly inside the input) run unclipped, several outputs in
// flight, their NaN lanes flagged for the whole run; a run that saw one is redone window by
// window (the edge columns' way), which makes exactly the flagged outputs NaN.

// Output ow of a row: the window clipped to the input's columns, NaN where a tap is NaN.
inline NchwcV NchwcMaxPoolWindow(const NchwcPoolShape& s, const float* first_row, int64_t rows,
                                 int64_t row_step, int64_t ow) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t w_start = ow * s.stride_w - s.pad_left;
  const TapRange kw_range = ClipTaps(w_start, s.kernel_w, s.dilation_w, s.input_w);
  NchwcV acc = NchwcLanes::Splat(-std::numeric_limits<float>::infinity());
  NchwcLanes::Flags nan = NchwcLanes::NoFlags();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = first_row + r * row_step;
    for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw) {
      const NchwcV x = NchwcLanes::Load(row + (w_start + kw * s.dilation_w) * b);
      nan |= NchwcLanes::Unordered(x, x);
      acc = NchwcLanes::Max(x, acc);
    }
  }
  return NchwcLanes::NanWhere(nan, acc);
}

// The maximum down one column of `rows` rows (kRows of them when positive), NaN lanes flagged:
// one unordered compare covers two taps, and the running maximum keeps a NaN it starts with.
template <int kRows>
inline NchwcV NchwcColumnMax(const float* p, int64_t rows, int64_t row_step,
                             NchwcLanes::Flags& nan) {
  if constexpr (kRows > 0) rows = kRows;
  NchwcV m = NchwcLanes::Load(p);
  int64_t r = 1;
  for (; r + 1 < rows; r += 2) {
    const NchwcV x = NchwcLanes::Load(p + r * row_step);
    const NchwcV y = NchwcLanes::Load(p + (r + 1) * row_step);
    nan |= NchwcLanes::Unordered(x, y);
    m = NchwcLanes::Max(x, NchwcLanes::Max(y, m));
  }
  if (r < rows) {
    const NchwcV x = NchwcLanes::Load(p + r * row_step);
    nan |= NchwcLanes::Unordered(x, m);
    return NchwcLanes::Max(x, m);
  }
  nan |= NchwcLanes::Unordered(m, m);
  return m;
}

// Outputs [lo, hi) of a row whose windows lie inside the input's columns; returns the lanes that
// saw a NaN tap (their outputs are then not the NaN that ONNX wants).
template <int kRows>
NchwcLanes::Flags NchwcMaxPoolInterior(const NchwcPoolShape& s, const float* first_row,
                                       int64_t rows, int64_t row_step, float* out_row, int64_t lo,
                                       int64_t hi) {
  constexpr int64_t b = kNchwcBlock;
  NchwcLanes::Flags nan = NchwcLanes::NoFlags();
  if (s.kernel_w == 3 && s.stride_w == 2 && s.dilation_w == 1) {
    // Column maxima first: an output's last column is the next one's first, so a window takes
    // two new columns and three horizontal taps instead of nine.
    const float* column = first_row + (lo * 2 - s.pad_left) * b;
    NchwcV left = NchwcColumnMax<kRows>(column, rows, row_step, nan);
    for (int64_t ow = lo; ow < hi; ++ow, column += 2 * b) {
      const NchwcV middle = NchwcColumnMax<kRows>(column + b, rows, row_step, nan);
      const NchwcV right = NchwcColumnMax<kRows>(column + 2 * b, rows, row_step, nan);
      NchwcLanes::Store(out_row + ow * b, NchwcLanes::Max(left, NchwcLanes::Max(middle, right)));
      left = right;
    }
    return nan;
  }
  constexpr int64_t kInFlight = 4;  // independent maximum chains hide maxps' latency
  int64_t ow = lo;
  for (; ow + kInFlight <= hi; ow += kInFlight) {
    NchwcV acc[kInFlight];
    for (NchwcV& a : acc) a = NchwcLanes::Splat(-std::numeric_limits<float>::infinity());
    const float* window = first_row + (ow * s.stride_w - s.pad_left) * b;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
        const float* tap = window + r * row_step + kw * s.dilation_w * b;
        for (int64_t j = 0; j < kInFlight; j += 2) {
          const NchwcV x = NchwcLanes::Load(tap + j * s.stride_w * b);
          const NchwcV y = NchwcLanes::Load(tap + (j + 1) * s.stride_w * b);
          nan |= NchwcLanes::Unordered(x, y);
          acc[j] = NchwcLanes::Max(x, acc[j]);
          acc[j + 1] = NchwcLanes::Max(y, acc[j + 1]);
        }
      }
    for (int64_t j = 0; j < kInFlight; ++j) NchwcLanes::Store(out_row + (ow + j) * b, acc[j]);
  }
  for (; ow < hi; ++ow)
    NchwcLanes::Store(out_row + ow * b, NchwcMaxPoolWindow(s, first_row, rows, row_step, ow));
  return nan;
}

void NchwcMaxPoolRow(const NchwcPoolShape& s, const float* image, float* out_row, int64_t oh) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t h_start = oh * s.stride_h - s.pad_top;
  const TapRange kh_range = ClipTaps(h_start, s.kernel_h, s.dilation_h, s.input_h);
  const int64_t rows = kh_range.hi - kh_range.lo;
  const int64_t row_step = s.dilation_h * s.input_w * b;
  const float* first_row = image + (h_start + kh_range.lo * s.dilation_h) * s.input_w * b;
  if (rows == 0) {  // a window wholly in the padding (ceil_mode): -inf, as the NCHW pool gives
    for (int64_t ow = 0; ow < s.output_w; ++ow)
      NchwcLanes::Store(out_row + ow * b,
                        NchwcLanes::Splat(-std::numeric_limits<float>::infinity()));
    return;
  }
  const TapRange interior =
      InteriorPositions(s.output_w, s.stride_w, s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
  for (int64_t ow = 0; ow < interior.lo; ++ow)
    NchwcLanes::Store(out_row + ow * b, NchwcMaxPoolWindow(s, first_row, rows, row_step, ow));
  const NchwcLanes::Flags nan =
      rows == 3
          ? NchwcMaxPoolInterior<3>(s, first_row, rows, row_step, out_row, interior.lo, interior.hi)
          : NchwcMaxPoolInterior<0>(s, first_row, rows, row_step, out_row, interior.lo,
                                    interior.hi);
  const int64_t redo_from = NchwcLanes::Any(nan) ? interior.lo : interior.hi;
  for (int64_t ow = redo_from; ow < s.output_w; ++ow)
    NchwcLanes::Store(out_row + ow * b, NchwcMaxPoolWindow(s, first_row, rows, row_step, ow));
}

template <NchwcPoolKind kKind>
void NchwcAveragePoolRow(const NchwcPoolShape& s, const float* image, float* out_row, int64_t oh) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t h_start = oh * s.stride_h - s.pad_top;
  const TapRange kh_range = ClipTaps(h_start, s.kernel_h, s.dilation_h, s.input_h);
  // Taps inside the padded input (for the include-pad divisor).
  const TapRange kh_padded =
      ClipTaps(h_start + s.pad_top, s.kernel_h, s.dilation_h, s.input_h + s.pad_top + s.pad_bottom);
  for (int64_t ow = 0; ow < s.output_w; ++ow) {
    const int64_t w_start = ow * s.stride_w - s.pad_left;
    const TapRange kw_range = ClipTaps(w_start, s.kernel_w, s.dilation_w, s.input_w);
    NchwcV acc = NchwcLanes::Zero();
    for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
      const float* row = image + (h_start + kh * s.dilation_h) * s.input_w * b;
      for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw)
        acc = NchwcLanes::Add(acc, NchwcLanes::Load(row + (w_start + kw * s.dilation_w) * b));
    }
    int64_t count = (kh_range.hi - kh_range.lo) * (kw_range.hi - kw_range.lo);
    if constexpr (kKind == NchwcPoolKind::kAverageIncludePad) {
      const TapRange kw_padded = ClipTaps(w_start + s.pad_left, s.kernel_w, s.dilation_w,
                                          s.input_w + s.pad_left + s.pad_right);
      count = (kh_padded.hi - kh_padded.lo) * (kw_padded.hi - kw_padded.lo);
    }
    // A window without any counted tap has no average: NaN, as the NCHW pool gives.
    const float scale =
        count > 0 ? 1.0f / static_cast<float>(count) : std::numeric_limits<float>::quiet_NaN();
    NchwcLanes::Store(out_row + ow * b, NchwcLanes::Mul(acc, NchwcLanes::Splat(scale)));
  }
}

void NchwcPoolF32(const NchwcPoolShape& s, const float* input, float* output, int64_t begin,
                  int64_t end) {
  constexpr int64_t b = kNchwcBlock;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t oh = item % s.output_h;
    const int64_t plane = item / s.output_h;  // n * blocks + block
    const float* image = input + plane * s.input_h * s.input_w * b;
    float* out_row = output + (plane * s.output_h + oh) * s.output_w * b;
    switch (s.kind) {
      case NchwcPoolKind::kMax:
        NchwcMaxPoolRow(s, image, out_row, oh);
        break;
      case NchwcPoolKind::kAverageIncludePad:
        NchwcAveragePoolRow<NchwcPoolKind::kAverageIncludePad>(s, image, out_row, oh);
        break;
      case NchwcPoolKind::kAverageExcludePad:
        NchwcAveragePoolRow<NchwcPoolKind::kAverageExcludePad>(s, image, out_row, oh);
        break;
    }
  }
}

// ---- Reorders of one image over channel blocks [block_begin, block_end) ----
void NchwcReorderInputF32(const float* nchw, int64_t channels, int64_t spatial, float* nchwc,
                          int64_t block_begin, int64_t block_end) {
  constexpr int64_t b = kNchwcBlock;
  for (int64_t block = block_begin; block < block_end; ++block) {
    float* dst = nchwc + block * spatial * b;
    const int64_t c0 = block * b;
    const int64_t lanes = std::min(b, channels - c0);
    const float* src = nchw + c0 * spatial;
    int64_t s = 0;
    // b pixels at a time: b loads of each channel's run, written as b vectors.
    for (; s + b <= spatial; s += b) {
      alignas(64) float tile[b * b];
      for (int64_t i = 0; i < b; ++i)
        for (int64_t p = 0; p < b; ++p)
          tile[p * b + i] = i < lanes ? src[i * spatial + s + p] : 0.0f;
      std::memcpy(dst + s * b, tile, sizeof tile);
    }
    for (; s < spatial; ++s)
      for (int64_t i = 0; i < b; ++i) dst[s * b + i] = i < lanes ? src[i * spatial + s] : 0.0f;
  }
}

void NchwcReorderOutputF32(const float* nchwc, int64_t channels, int64_t spatial, float* nchw,
                           int64_t block_begin, int64_t block_end) {
  constexpr int64_t b = kNchwcBlock;
  for (int64_t block = block_begin; block < block_end; ++block) {
    const float* src = nchwc + block * spatial * b;
    const int64_t c0 = block * b;
    const int64_t lanes = std::min(b, channels - c0);
    float* dst = nchw + c0 * spatial;
    int64_t s = 0;
    for (; s + b <= spatial; s += b) {
      alignas(64) float tile[b * b];
      std::memcpy(tile, src + s * b, sizeof tile);
      for (int64_t i = 0; i < lanes; ++i)
        for (int64_t p = 0; p < b; ++p) dst[i * spatial + s + p] = tile[p * b + i];
    }
    for (; s < spatial; ++s)
      for (int64_t i = 0; i < lanes; ++i) dst[i * spatial + s] = src[s * b + i];
  }
}

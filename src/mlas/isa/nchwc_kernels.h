// The NCHWc kernels (formats in mlas/nchwc.h): part of isa_kernels_impl.h, which includes this
// inside its anonymous namespace in every unit (no include guard; the includer's Float8 helpers,
// and <immintrin.h> where the unit has AVX, are used). One template over a lane type: zmm (16
// floats) on the AVX-512 level, Float8 (one ymm on AVX2, two SSE registers on baseline) elsewhere.
//
// Direct convolution: a tile of kPositions output positions along a row times kBlocks output
// blocks is summed in registers; per input channel each position's value is broadcast and
// multiplied into the blocks' packed filter vectors. Positions whose window reaches into the
// horizontal padding run one at a time with their taps clipped; rows clip their vertical taps.
// Input channels are taken in chunks (filter chunk ~ the L2 cache): the first chunk stores its
// sums, the next ones add to them, the last applies bias, sum and activation.

#if defined(__AVX512F__)
struct NchwcLanes {
  using V = __m512;
  static constexpr int64_t kLanes = 16;
  static constexpr int kPositions = 6;  // 24 accumulators of the 32 zmm
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Splat(float x) { return _mm512_set1_ps(x); }
  static V Zero() { return _mm512_setzero_ps(); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Min(V a, V b) { return _mm512_min_ps(a, b); }
  static V Less(V a, V b, V if_less, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), otherwise, if_less);
  }
};
#else
struct NchwcLanes {
  using V = Float8;
  static constexpr int64_t kLanes = 8;
#if defined(__AVX2__)
  static constexpr int kPositions = 3;  // 12 accumulators of the 16 ymm
#else
  static constexpr int kPositions = 2;
#endif
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
};
#endif

constexpr int64_t kNchwcBlock = NchwcLanes::kLanes;
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

  NchwcV Apply(NchwcV v, const float* bias, const float* sum) const {
    if (bias != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(bias));
    if (sum != nullptr) v = NchwcLanes::Add(v, NchwcLanes::Load(sum));
    switch (activation) {
      case kActivationRelu:
        return NchwcLanes::Max(v, NchwcLanes::Zero());
      case kActivationLeakyRelu:
        return NchwcLanes::Less(v, NchwcLanes::Zero(), NchwcLanes::Mul(v, alpha), v);
      case kActivationClip:
        return NchwcLanes::Min(NchwcLanes::Max(v, alpha), beta);
      default:
        return v;
    }
  }
};

// What a convolution tile needs besides its position.
struct NchwcConvPlan {
  const NchwcConvShape* shape;
  const float* image;      // the input image (n)
  const float* filter;     // the packed filter at the item's first output block
  float* output;           // the output image (n) at the item's first output block
  const float* sum;        // the residual at the same place, or nullptr
  const float* bias;       // at the item's first output block, or nullptr
  int64_t group_channels;  // input channels per packed group: b, or C for NCHW input
  int64_t group_stride;    // floats between input channel groups
  int64_t row_stride;      // floats between input rows
  int64_t pixel_stride;    // floats between input pixels: b, or 1
  int64_t lane_stride;     // floats between a group's channels: 1, or H * W
  int64_t filter_block;    // floats between output blocks' filters
  int64_t filter_group;    // floats between input channel groups' filters
  int64_t output_plane;    // floats between output blocks: OH * OW * b
  NchwcStore store;
};

// Output positions ow0 .. ow0 + kPositions - 1 of row oh, output blocks 0 .. kBlocks - 1 of the
// plan, input channel groups [group_begin, group_end), taps kh in [kh_lo, kh_hi), kw in [kw_lo,
// kw_hi) (the same for every position of the tile). first: the sums start at zero, else at the
// output; last: bias, sum and activation are applied.
template <bool kNchwInput, int kPositions, int kBlocks>
void NchwcConvTile(const NchwcConvPlan& plan, int64_t oh, int64_t ow0, int64_t group_begin,
                   int64_t group_end, TapRange kh_range, TapRange kw_range, bool first, bool last) {
  const NchwcConvShape& s = *plan.shape;
  constexpr int64_t b = kNchwcBlock;
  NchwcV acc[kPositions][kBlocks];
  const int64_t out_offset = (oh * s.output_w + ow0) * b;
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p)
#pragma GCC unroll 4
    for (int j = 0; j < kBlocks; ++j)
      acc[p][j] = first
                      ? NchwcLanes::Zero()
                      : NchwcLanes::Load(plan.output + j * plan.output_plane + out_offset + p * b);
  const int64_t position_step = s.stride_w * plan.pixel_stride;
  const int64_t ih0 = oh * s.stride_h - s.pad_top;
  const int64_t iw0 = ow0 * s.stride_w - s.pad_left;
  const int64_t lanes = kNchwInput ? plan.group_channels : b;
  for (int64_t g = group_begin; g < group_end; ++g) {
    for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
      const float* row =
          plan.image + g * plan.group_stride + (ih0 + kh * s.dilation_h) * plan.row_stride;
      for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw) {
        const float* pixel = row + (iw0 + kw * s.dilation_w) * plan.pixel_stride;
        const float* w = plan.filter + g * plan.filter_group + (kh * s.kernel_w + kw) * lanes * b;
        for (int64_t i = 0; i < lanes; ++i) {
          const float* x = pixel + i * plan.lane_stride;
          NchwcV wv[kBlocks];
#pragma GCC unroll 4
          for (int j = 0; j < kBlocks; ++j) wv[j] = NchwcLanes::Load(w + j * plan.filter_block);
#pragma GCC unroll 8
          for (int p = 0; p < kPositions; ++p) {
            const NchwcV xv = NchwcLanes::Splat(x[p * position_step]);
#pragma GCC unroll 4
            for (int j = 0; j < kBlocks; ++j) acc[p][j] = NchwcLanes::Fma(xv, wv[j], acc[p][j]);
          }
          w += b;
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < kBlocks; ++j) {
    float* out = plan.output + j * plan.output_plane + out_offset;
    const float* bias = last && plan.bias != nullptr ? plan.bias + j * b : nullptr;
    const float* sum =
        last && plan.sum != nullptr ? plan.sum + j * plan.output_plane + out_offset : nullptr;
#pragma GCC unroll 8
    for (int p = 0; p < kPositions; ++p) {
      NchwcV v = acc[p][j];
      if (last) v = plan.store.Apply(v, bias, sum == nullptr ? nullptr : sum + p * b);
      NchwcLanes::Store(out + p * b, v);
    }
  }
}

template <bool kNchwInput, int kBlocks, int kPositions>
void NchwcConvTileOfWidth(int64_t width, const NchwcConvPlan& plan, int64_t oh, int64_t ow0,
                          int64_t group_begin, int64_t group_end, TapRange kh_range,
                          TapRange kw_range, bool first, bool last) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcConvTileOfWidth<kNchwInput, kBlocks, kPositions - 1>(
          width, plan, oh, ow0, group_begin, group_end, kh_range, kw_range, first, last);
  }
  NchwcConvTile<kNchwInput, kPositions, kBlocks>(plan, oh, ow0, group_begin, group_end, kh_range,
                                                 kw_range, first, last);
}

// One output row of the plan's blocks over input groups [group_begin, group_end).
template <bool kNchwInput, int kBlocks>
void NchwcConvRow(const NchwcConvPlan& plan, int64_t oh, int64_t group_begin, int64_t group_end,
                  bool first, bool last) {
  const NchwcConvShape& s = *plan.shape;
  const TapRange kh_range =
      ClipTaps(oh * s.stride_h - s.pad_top, s.kernel_h, s.dilation_h, s.input_h);
  const TapRange interior =
      InteriorPositions(s.output_w, s.stride_w, s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
  auto edge = [&](int64_t ow) {
    const TapRange kw_range =
        ClipTaps(ow * s.stride_w - s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
    NchwcConvTile<kNchwInput, 1, kBlocks>(plan, oh, ow, group_begin, group_end, kh_range, kw_range,
                                          first, last);
  };
  for (int64_t ow = 0; ow < interior.lo; ++ow) edge(ow);
  constexpr int64_t kMax = NchwcLanes::kPositions;
  const TapRange all_kw{0, s.kernel_w};
  for (int64_t ow = interior.lo; ow < interior.hi;) {
    const int64_t left = interior.hi - ow;
    // A remainder just over one tile is split in two halves rather than a full tile and a sliver.
    const int64_t width = left <= kMax ? left : (left < 2 * kMax ? (left + 1) / 2 : kMax);
    NchwcConvTileOfWidth<kNchwInput, kBlocks, NchwcLanes::kPositions>(
        width, plan, oh, ow, group_begin, group_end, kh_range, all_kw, first, last);
    ow += width;
  }
  for (int64_t ow = std::max(interior.hi, interior.lo); ow < s.output_w; ++ow) edge(ow);
}

// Rows [row_begin, row_end) of image n, output blocks [block, block + blocks).
template <bool kNchwInput, int kBlocks>
void NchwcConvRows(const NchwcConvShape& s, const float* input, const float* packed,
                   const NchwcConvEpilogue& epilogue, float* output, int64_t n, int64_t block,
                   int64_t row_begin, int64_t row_end) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t output_blocks = s.output_channels / b;
  const int64_t spatial = s.input_h * s.input_w;
  NchwcConvPlan plan{};
  plan.shape = &s;
  plan.image = input + n * s.input_channels * spatial;
  if constexpr (kNchwInput) {
    plan.group_channels = s.input_channels;
    plan.group_stride = 0;
    plan.row_stride = s.input_w;
    plan.pixel_stride = 1;
    plan.lane_stride = spatial;
  } else {
    plan.group_channels = b;
    plan.group_stride = spatial * b;
    plan.row_stride = s.input_w * b;
    plan.pixel_stride = b;
    plan.lane_stride = 1;
  }
  const int64_t groups = kNchwInput ? 1 : s.input_channels / b;
  plan.filter_group = plan.group_channels * s.kernel_h * s.kernel_w * b;
  plan.filter_block = groups * plan.filter_group;
  plan.filter = packed + block * plan.filter_block;
  plan.output_plane = s.output_h * s.output_w * b;
  const int64_t output_offset = (n * output_blocks + block) * plan.output_plane;
  plan.output = output + output_offset;
  plan.sum = epilogue.sum != nullptr ? epilogue.sum + output_offset : nullptr;
  plan.bias = epilogue.bias != nullptr ? epilogue.bias + block * b : nullptr;
  plan.store = NchwcStore{epilogue.activation, NchwcLanes::Splat(epilogue.alpha),
                          NchwcLanes::Splat(epilogue.beta)};
  // Input groups per chunk: the chunk's filters for the item's blocks about 128 KiB.
  const int64_t group_floats = plan.filter_group * kBlocks;
  const int64_t chunk = std::max<int64_t>(1, 32768 / group_floats);
  for (int64_t g = 0; g < groups; g += chunk) {
    const int64_t g_end = std::min(groups, g + chunk);
    for (int64_t oh = row_begin; oh < row_end; ++oh)
      NchwcConvRow<kNchwInput, kBlocks>(plan, oh, g, g_end, g == 0, g_end == groups);
  }
}

// Depthwise: output positions ow0 .. ow0 + kPositions - 1 of row oh of one block.
template <int kPositions>
void NchwcDepthwiseTile(const NchwcConvShape& s, const float* image, const float* filter,
                        float* out_row, const float* sum_row, const float* bias,
                        const NchwcStore& store, int64_t oh, int64_t ow0, TapRange kh_range,
                        TapRange kw_range) {
  constexpr int64_t b = kNchwcBlock;
  NchwcV acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = NchwcLanes::Zero();
  const int64_t ih0 = oh * s.stride_h - s.pad_top;
  const int64_t iw0 = ow0 * s.stride_w - s.pad_left;
  const int64_t step = s.stride_w * b;
  for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
    const float* row = image + (ih0 + kh * s.dilation_h) * s.input_w * b;
    for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw) {
      const NchwcV w = NchwcLanes::Load(filter + (kh * s.kernel_w + kw) * b);
      const float* x = row + (iw0 + kw * s.dilation_w) * b;
#pragma GCC unroll 8
      for (int p = 0; p < kPositions; ++p)
        acc[p] = NchwcLanes::Fma(NchwcLanes::Load(x + p * step), w, acc[p]);
    }
  }
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p)
    NchwcLanes::Store(
        out_row + (ow0 + p) * b,
        store.Apply(acc[p], bias, sum_row == nullptr ? nullptr : sum_row + (ow0 + p) * b));
}

template <int kPositions>
void NchwcDepthwiseTileOfWidth(int64_t width, const NchwcConvShape& s, const float* image,
                               const float* filter, float* out_row, const float* sum_row,
                               const float* bias, const NchwcStore& store, int64_t oh, int64_t ow0,
                               TapRange kh_range, TapRange kw_range) {
  if constexpr (kPositions > 1) {
    if (width < kPositions)
      return NchwcDepthwiseTileOfWidth<kPositions - 1>(width, s, image, filter, out_row, sum_row,
                                                       bias, store, oh, ow0, kh_range, kw_range);
  }
  NchwcDepthwiseTile<kPositions>(s, image, filter, out_row, sum_row, bias, store, oh, ow0, kh_range,
                                 kw_range);
}

void NchwcDepthwiseRow(const NchwcConvShape& s, const float* input, const float* packed,
                       const NchwcConvEpilogue& epilogue, const NchwcStore& store, float* output,
                       int64_t n, int64_t block, int64_t oh) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t blocks = s.output_channels / b;
  const float* image = input + (n * blocks + block) * s.input_h * s.input_w * b;
  const float* filter = packed + block * s.kernel_h * s.kernel_w * b;
  const int64_t row_offset = ((n * blocks + block) * s.output_h + oh) * s.output_w * b;
  float* out_row = output + row_offset;
  const float* sum_row = epilogue.sum != nullptr ? epilogue.sum + row_offset : nullptr;
  const float* bias = epilogue.bias != nullptr ? epilogue.bias + block * b : nullptr;
  const TapRange kh_range =
      ClipTaps(oh * s.stride_h - s.pad_top, s.kernel_h, s.dilation_h, s.input_h);
  const TapRange interior =
      InteriorPositions(s.output_w, s.stride_w, s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
  auto edge = [&](int64_t ow) {
    const TapRange kw_range =
        ClipTaps(ow * s.stride_w - s.pad_left, s.kernel_w, s.dilation_w, s.input_w);
    NchwcDepthwiseTile<1>(s, image, filter, out_row, sum_row, bias, store, oh, ow, kh_range,
                          kw_range);
  };
  for (int64_t ow = 0; ow < interior.lo; ++ow) edge(ow);
  const TapRange all_kw{0, s.kernel_w};
  int64_t ow = interior.lo;
  for (; ow < interior.hi;) {
    const int64_t width = std::min<int64_t>(8, interior.hi - ow);
    NchwcDepthwiseTileOfWidth<8>(width, s, image, filter, out_row, sum_row, bias, store, oh, ow,
                                 kh_range, all_kw);
    ow += width;
  }
  for (ow = std::max(interior.hi, interior.lo); ow < s.output_w; ++ow) edge(ow);
}

template <bool kNchwInput>
void NchwcConvBlocks(int64_t blocks, const NchwcConvShape& s, const float* input,
                     const float* packed, const NchwcConvEpilogue& epilogue, float* output,
                     int64_t n, int64_t block, int64_t row_begin, int64_t row_end) {
  switch (blocks) {
    case 1:
      return NchwcConvRows<kNchwInput, 1>(s, input, packed, epilogue, output, n, block, row_begin,
                                          row_end);
    case 2:
      return NchwcConvRows<kNchwInput, 2>(s, input, packed, epilogue, output, n, block, row_begin,
                                          row_end);
    case 3:
      return NchwcConvRows<kNchwInput, 3>(s, input, packed, epilogue, output, n, block, row_begin,
                                          row_end);
    default:
      return NchwcConvRows<kNchwInput, 4>(s, input, packed, epilogue, output, n, block, row_begin,
                                          row_end);
  }
}

// Work items [begin, end) (mlas/nchwc.h): runs of consecutive rows of one image and output
// block group go to NchwcConvRows together.
void NchwcConvF32(const NchwcConvShape& s, const float* input, const float* packed,
                  const NchwcConvEpilogue& epilogue, float* output, int64_t begin, int64_t end) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t blocks = s.output_channels / b;
  if (s.IsDepthwise()) {
    const NchwcStore store{epilogue.activation, NchwcLanes::Splat(epilogue.alpha),
                           NchwcLanes::Splat(epilogue.beta)};
    for (int64_t item = begin; item < end; ++item) {
      const int64_t oh = item % s.output_h;
      const int64_t block = item / s.output_h % blocks;
      const int64_t n = item / s.output_h / blocks;
      NchwcDepthwiseRow(s, input, packed, epilogue, store, output, n, block, oh);
    }
    return;
  }
  const int64_t block_groups = CeilDiv(blocks, kNchwcConvBlocksPerItem);
  for (int64_t item = begin; item < end;) {
    const int64_t oh = item % s.output_h;
    const int64_t group = item / s.output_h % block_groups;
    const int64_t n = item / s.output_h / block_groups;
    const int64_t row_end = std::min(s.output_h, oh + (end - item));
    const int64_t block = group * kNchwcConvBlocksPerItem;
    const int64_t count = std::min(kNchwcConvBlocksPerItem, blocks - block);
    if (s.input_is_nchw)
      NchwcConvBlocks<true>(count, s, input, packed, epilogue, output, n, block, oh, row_end);
    else
      NchwcConvBlocks<false>(count, s, input, packed, epilogue, output, n, block, oh, row_end);
    item += row_end - oh;
  }
}

// ---- Pooling: work items image x block x output row ----
template <NchwcPoolKind kKind>
void NchwcPoolRow(const NchwcPoolShape& s, const float* image, float* out_row, int64_t oh) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t h_start = oh * s.stride_h - s.pad_top;
  const TapRange kh_range = ClipTaps(h_start, s.kernel_h, s.dilation_h, s.input_h);
  // Taps inside the padded input (for the include-pad divisor).
  const TapRange kh_padded =
      ClipTaps(h_start + s.pad_top, s.kernel_h, s.dilation_h, s.input_h + s.pad_top + s.pad_bottom);
  for (int64_t ow = 0; ow < s.output_w; ++ow) {
    const int64_t w_start = ow * s.stride_w - s.pad_left;
    const TapRange kw_range = ClipTaps(w_start, s.kernel_w, s.dilation_w, s.input_w);
    NchwcV acc = kKind == NchwcPoolKind::kMax
                     ? NchwcLanes::Splat(-std::numeric_limits<float>::infinity())
                     : NchwcLanes::Zero();
    for (int64_t kh = kh_range.lo; kh < kh_range.hi; ++kh) {
      const float* row = image + (h_start + kh * s.dilation_h) * s.input_w * b;
      for (int64_t kw = kw_range.lo; kw < kw_range.hi; ++kw) {
        const NchwcV x = NchwcLanes::Load(row + (w_start + kw * s.dilation_w) * b);
        acc = kKind == NchwcPoolKind::kMax ? NchwcLanes::Max(x, acc) : NchwcLanes::Add(acc, x);
      }
    }
    if constexpr (kKind != NchwcPoolKind::kMax) {
      int64_t count = (kh_range.hi - kh_range.lo) * (kw_range.hi - kw_range.lo);
      if constexpr (kKind == NchwcPoolKind::kAverageIncludePad) {
        const TapRange kw_padded = ClipTaps(w_start + s.pad_left, s.kernel_w, s.dilation_w,
                                            s.input_w + s.pad_left + s.pad_right);
        count = (kh_padded.hi - kh_padded.lo) * (kw_padded.hi - kw_padded.lo);
      }
      // A window without any counted tap has no average: NaN, as the NCHW pool gives.
      const float scale =
          count > 0 ? 1.0f / static_cast<float>(count) : std::numeric_limits<float>::quiet_NaN();
      acc = NchwcLanes::Mul(acc, NchwcLanes::Splat(scale));
    }
    NchwcLanes::Store(out_row + ow * b, acc);
  }
}

void NchwcPoolF32(const NchwcPoolShape& s, const float* input, float* output, int64_t begin,
                  int64_t end) {
  constexpr int64_t b = kNchwcBlock;
  const int64_t blocks = s.channels / b;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t oh = item % s.output_h;
    const int64_t plane = item / s.output_h;  // n * blocks + block
    const float* image = input + plane * s.input_h * s.input_w * b;
    float* out_row = output + (plane * s.output_h + oh) * s.output_w * b;
    (void)blocks;
    switch (s.kind) {
      case NchwcPoolKind::kMax:
        NchwcPoolRow<NchwcPoolKind::kMax>(s, image, out_row, oh);
        break;
      case NchwcPoolKind::kAverageIncludePad:
        NchwcPoolRow<NchwcPoolKind::kAverageIncludePad>(s, image, out_row, oh);
        break;
      case NchwcPoolKind::kAverageExcludePad:
        NchwcPoolRow<NchwcPoolKind::kAverageExcludePad>(s, image, out_row, oh);
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

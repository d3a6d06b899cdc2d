// The transforms of the Winograd F(2x2, 3x3) and F(4x4, 3x3) convolutions on NCHWc tensors
// (mlas/nchwc_winograd.h has the algorithm and the layouts): part of isa_kernels_impl.h, included
// after nchwc_kernels.h (its NchwcLanes, NchwcV and NchwcStore) inside the unit's anonymous
// namespace; no include guard. A channel block's b lanes are one vector, so each tile is
// transformed b channels at a time.

// One column or row of the input transform, B^T d for d of kTile + 2 values.
// F(2x2, 3x3): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
// F(4x4, 3x3): B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0;
//                     0 2 -1 -2 1 0; 0 4 0 -5 0 1], with shared partial sums.
template <int kTile>
[[gnu::always_inline]] inline void WinogradInputLine(const NchwcV* d, NchwcV* t) {
  using L = NchwcLanes;
  if constexpr (kTile == 2) {
    t[0] = L::Sub(d[0], d[2]);
    t[1] = L::Add(d[1], d[2]);
    t[2] = L::Sub(d[2], d[1]);
    t[3] = L::Sub(d[1], d[3]);
  } else {
    const NchwcV four = L::Splat(4.0f), minus_four = L::Splat(-4.0f), minus_five = L::Splat(-5.0f);
    t[0] = L::Fma(four, d[0], L::Fma(minus_five, d[2], d[4]));
    const NchwcV a = L::Fma(minus_four, d[2], d[4]);  // d4 - 4 d2
    const NchwcV b = L::Fma(minus_four, d[1], d[3]);  // d3 - 4 d1
    t[1] = L::Add(a, b);
    t[2] = L::Sub(a, b);
    const NchwcV c = L::Sub(d[4], d[2]);
    const NchwcV e = L::Sub(d[3], d[1]);
    const NchwcV e2 = L::Add(e, e);  // 2 (d3 - d1)
    t[3] = L::Add(c, e2);
    t[4] = L::Sub(c, e2);
    t[5] = L::Fma(four, d[1], L::Fma(minus_five, d[3], d[5]));
  }
}

// One column or row of the output transform, A^T m for m of kTile + 2 values.
// F(2x2, 3x3): A^T = [1 1 1 0; 0 1 -1 -1].
// F(4x4, 3x3): A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1].
template <int kTile>
[[gnu::always_inline]] inline void WinogradOutputLine(const NchwcV* m, NchwcV* y) {
  using L = NchwcLanes;
  if constexpr (kTile == 2) {
    y[0] = L::Add(L::Add(m[0], m[1]), m[2]);
    y[1] = L::Sub(L::Sub(m[1], m[2]), m[3]);
  } else {
    const NchwcV s12 = L::Add(m[1], m[2]), d12 = L::Sub(m[1], m[2]);
    const NchwcV s34 = L::Add(m[3], m[4]), d34 = L::Sub(m[3], m[4]);
    y[0] = L::Add(L::Add(m[0], s12), s34);
    y[1] = L::Fma(L::Splat(2.0f), d34, d12);
    y[2] = L::Fma(L::Splat(4.0f), s34, s12);
    y[3] = L::Add(L::Fma(L::Splat(8.0f), d34, d12), m[5]);
  }
}

// V = B^T d B for the (kTile + 2)-square input patch d of each tile in [tile_begin, tile_end)
// (tile (ty, tx) reads rows kTile ty - pad_top .. and columns kTile tx - pad_left .., zero outside
// the input). Point (i, j) of tile t, channel c goes to
// v[(i * (kTile + 2) + j) * point_stride + (t - tile_begin) * Cp + c].
template <int kTile>
void NchwcWinogradInput(const NchwcConvShape& s, const float* image, int64_t tiles_w,
                        int64_t tile_begin, int64_t tile_end, float* v, int64_t point_stride) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int kSide = kTile + 2;
  using L = NchwcLanes;
  const int64_t blocks = s.input_channels / b;
  const int64_t row = s.input_w * b;
  const int64_t plane = s.input_h * row;
  for (int64_t t = tile_begin; t < tile_end; ++t) {
    const int64_t y0 = (t / tiles_w) * kTile - s.pad_top;
    const int64_t x0 = (t % tiles_w) * kTile - s.pad_left;
    const bool inside = y0 >= 0 && x0 >= 0 && y0 + kSide <= s.input_h && x0 + kSide <= s.input_w;
    float* out = v + (t - tile_begin) * s.input_channels;
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const float* block = image + cb * plane;
      // Columns first (B^T d), then rows (times B), each row stored as soon as it is done.
      NchwcV c[kSide][kSide];  // c[j][i]: column j transformed, point i
#pragma GCC unroll 6
      for (int j = 0; j < kSide; ++j) {
        NchwcV d[kSide];
        const int64_t x = x0 + j;
#pragma GCC unroll 6
        for (int i = 0; i < kSide; ++i) {
          const int64_t y = y0 + i;
          d[i] = inside || (y >= 0 && y < s.input_h && x >= 0 && x < s.input_w)
                     ? L::Load(block + y * row + x * b)
                     : L::Zero();
        }
        WinogradInputLine<kTile>(d, c[j]);
      }
      float* at = out + cb * b;
#pragma GCC unroll 6
      for (int i = 0; i < kSide; ++i) {
        NchwcV d[kSide], r[kSide];
#pragma GCC unroll 6
        for (int j = 0; j < kSide; ++j) d[j] = c[j][i];
        WinogradInputLine<kTile>(d, r);
#pragma GCC unroll 6
        for (int j = 0; j < kSide; ++j) L::Store(at + (i * kSide + j) * point_stride, r[j]);
      }
    }
  }
}

void NchwcWinogradInputF32(const NchwcConvShape& s, int output_tile, const float* image,
                           int64_t tiles_w, int64_t tile_begin, int64_t tile_end, float* v,
                           int64_t point_stride) {
  if (output_tile == 4)
    return NchwcWinogradInput<4>(s, image, tiles_w, tile_begin, tile_end, v, point_stride);
  NchwcWinogradInput<2>(s, image, tiles_w, tile_begin, tile_end, v, point_stride);
}

// Y = A^T q A for each tile's products q (laid out as NchwcWinogradInput's v, Mp channels per
// tile): the tile's kTile x kTile outputs at rows kTile ty .. and columns kTile tx .., those
// inside the output, with the epilogue's bias, residual sum (sum_image: this image's, or nullptr)
// and activation.
template <int kTile>
void NchwcWinogradOutput(const NchwcConvShape& s, const float* q, int64_t point_stride,
                         int64_t tiles_w, int64_t tile_begin, int64_t tile_end,
                         const NchwcConvEpilogue& epilogue, float* output_image,
                         const float* sum_image) {
  constexpr int64_t b = kNchwcBlock;
  constexpr int kSide = kTile + 2;
  using L = NchwcLanes;
  const int64_t blocks = s.output_channels / b;
  const int64_t row = s.output_w * b;
  const int64_t plane = s.output_h * row;
  const NchwcStore store{epilogue.activation, L::Splat(epilogue.alpha), L::Splat(epilogue.beta)};
  for (int64_t t = tile_begin; t < tile_end; ++t) {
    const int64_t y0 = (t / tiles_w) * kTile;
    const int64_t x0 = (t % tiles_w) * kTile;
    const int64_t rows = std::min<int64_t>(kTile, s.output_h - y0);
    const int64_t cols = std::min<int64_t>(kTile, s.output_w - x0);
    const float* in = q + (t - tile_begin) * s.output_channels;
    for (int64_t ob = 0; ob < blocks; ++ob) {
      const float* at = in + ob * b;
      NchwcV r[kTile][kSide];  // rows of A^T q
#pragma GCC unroll 6
      for (int j = 0; j < kSide; ++j) {
        NchwcV m[kSide], y[kTile];
#pragma GCC unroll 6
        for (int i = 0; i < kSide; ++i) m[i] = L::Load(at + (i * kSide + j) * point_stride);
        WinogradOutputLine<kTile>(m, y);
#pragma GCC unroll 4
        for (int i = 0; i < kTile; ++i) r[i][j] = y[i];
      }
      const float* bias = epilogue.bias != nullptr ? epilogue.bias + ob * b : nullptr;
      for (int64_t i = 0; i < rows; ++i) {
        NchwcV y[kTile];
        WinogradOutputLine<kTile>(r[i], y);
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t offset = ob * plane + (y0 + i) * row + (x0 + j) * b;
          L::Store(output_image + offset,
                   store.Apply(y[j], bias, sum_image != nullptr ? sum_image + offset : nullptr));
        }
      }
    }
  }
}

void NchwcWinogradOutputF32(const NchwcConvShape& s, int output_tile, const float* q,
                            int64_t point_stride, int64_t tiles_w, int64_t tile_begin,
                            int64_t tile_end, const NchwcConvEpilogue& epilogue,
                            float* output_image, const float* sum_image) {
  if (output_tile == 4)
    return NchwcWinogradOutput<4>(s, q, point_stride, tiles_w, tile_begin, tile_end, epilogue,
                                  output_image, sum_image);
  NchwcWinogradOutput<2>(s, q, point_stride, tiles_w, tile_begin, tile_end, epilogue, output_image,
                         sum_image);
}

// The transforms of the Winograd F(2x2, 3x3) convolution on NCHWc tensors (mlas/nchwc_winograd.h
// has the algorithm and the layouts): part of isa_kernels_impl.h, included after nchwc_kernels.h
// (its NchwcLanes, NchwcV and NchwcStore) inside the unit's anonymous namespace; no include guard.
// A channel block's b lanes are one vector, so each tile is transformed b channels at a time.

// V = B^T d B for the 4 x 4 input patch d of each tile in [tile_begin, tile_end) (tile (ty, tx)
// reads rows 2 ty - pad_top .. + 3 and columns 2 tx - pad_left .. + 3, zero outside the input),
// B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]. Point (i, j) of tile t, channel c goes to
// v[(4 i + j) * point_stride + (t - tile_begin) * Cp + c].
void NchwcWinogradInputF32(const NchwcConvShape& s, const float* image, int64_t tiles_w,
                           int64_t tile_begin, int64_t tile_end, float* v, int64_t point_stride) {
  constexpr int64_t b = kNchwcBlock;
  using L = NchwcLanes;
  const int64_t blocks = s.input_channels / b;
  const int64_t row = s.input_w * b;
  const int64_t plane = s.input_h * row;
  for (int64_t t = tile_begin; t < tile_end; ++t) {
    const int64_t y0 = (t / tiles_w) * 2 - s.pad_top;
    const int64_t x0 = (t % tiles_w) * 2 - s.pad_left;
    const bool inside = y0 >= 0 && x0 >= 0 && y0 + 4 <= s.input_h && x0 + 4 <= s.input_w;
    float* out = v + (t - tile_begin) * s.input_channels;
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const float* block = image + cb * plane;
      NchwcV d[4][4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          const int64_t y = y0 + i, x = x0 + j;
          d[i][j] = inside || (y >= 0 && y < s.input_h && x >= 0 && x < s.input_w)
                        ? L::Load(block + y * row + x * b)
                        : L::Zero();
        }
      // Columns first (B^T d), then rows (times B), each row stored as soon as it is done.
      NchwcV c[4][4];
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        c[0][j] = L::Sub(d[0][j], d[2][j]);
        c[1][j] = L::Add(d[1][j], d[2][j]);
        c[2][j] = L::Sub(d[2][j], d[1][j]);
        c[3][j] = L::Sub(d[1][j], d[3][j]);
      }
      float* at = out + cb * b;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        L::Store(at + (4 * i + 0) * point_stride, L::Sub(c[i][0], c[i][2]));
        L::Store(at + (4 * i + 1) * point_stride, L::Add(c[i][1], c[i][2]));
        L::Store(at + (4 * i + 2) * point_stride, L::Sub(c[i][2], c[i][1]));
        L::Store(at + (4 * i + 3) * point_stride, L::Sub(c[i][1], c[i][3]));
      }
    }
  }
}

// Y = A^T q A for each tile's 4 x 4 products q (laid out as NchwcWinogradInputF32's v, Mp
// channels per tile), A^T = [1 1 1 0; 0 1 -1 -1]: the tile's 2 x 2 outputs at rows 2 ty .. and
// columns 2 tx .., those inside the output, with the epilogue's bias, residual sum (sum_image:
// this image's, or nullptr) and activation.
void NchwcWinogradOutputF32(const NchwcConvShape& s, const float* q, int64_t point_stride,
                            int64_t tiles_w, int64_t tile_begin, int64_t tile_end,
                            const NchwcConvEpilogue& epilogue, float* output_image,
                            const float* sum_image) {
  constexpr int64_t b = kNchwcBlock;
  using L = NchwcLanes;
  const int64_t blocks = s.output_channels / b;
  const int64_t row = s.output_w * b;
  const int64_t plane = s.output_h * row;
  const NchwcStore store{epilogue.activation, L::Splat(epilogue.alpha), L::Splat(epilogue.beta)};
  for (int64_t t = tile_begin; t < tile_end; ++t) {
    const int64_t y0 = (t / tiles_w) * 2;
    const int64_t x0 = (t % tiles_w) * 2;
    const int64_t rows = std::min<int64_t>(2, s.output_h - y0);
    const int64_t cols = std::min<int64_t>(2, s.output_w - x0);
    const float* in = q + (t - tile_begin) * s.output_channels;
    for (int64_t ob = 0; ob < blocks; ++ob) {
      const float* at = in + ob * b;
      NchwcV r[2][4];
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const NchwcV q0 = L::Load(at + (0 + j) * point_stride);
        const NchwcV q1 = L::Load(at + (4 + j) * point_stride);
        const NchwcV q2 = L::Load(at + (8 + j) * point_stride);
        const NchwcV q3 = L::Load(at + (12 + j) * point_stride);
        r[0][j] = L::Add(L::Add(q0, q1), q2);
        r[1][j] = L::Sub(L::Sub(q1, q2), q3);
      }
      const float* bias = epilogue.bias != nullptr ? epilogue.bias + ob * b : nullptr;
      for (int64_t i = 0; i < rows; ++i) {
        const NchwcV y[2] = {L::Add(L::Add(r[i][0], r[i][1]), r[i][2]),
                             L::Sub(L::Sub(r[i][1], r[i][2]), r[i][3])};
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t offset = ob * plane + (y0 + i) * row + (x0 + j) * b;
          L::Store(output_image + offset,
                   store.Apply(y[j], bias, sum_image != nullptr ? sum_image + offset : nullptr));
        }
      }
    }
  }
}

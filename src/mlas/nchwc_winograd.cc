#include "mlas/nchwc_winograd.h"

#include <algorithm>

#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {

bool NchwcWinogradApplies(const IsaKernels& kernels, const NchwcConvShape& s) {
  const int64_t b = kernels.nchwc_block;
  return !s.input_is_nchw && s.groups == 1 && s.kernel_h == 3 && s.kernel_w == 3 &&
         s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1 &&
         s.input_channels > 0 && s.input_channels % b == 0 && s.output_channels > 0 &&
         s.output_channels % b == 0;
}

bool NchwcWinogradPays(const NchwcConvShape& s, int64_t threads) {
  (void)threads;
  // Measured (prism_conv_bench, resnet50's and squeezenet1_1's 3x3 layers, 1 and 2 threads):
  // faster from 16 input channels on planes of at least 13 x 13; on 7 x 7 (16 tiles) each point's
  // packed U is read for too few tiles, and resnet50's 512-channel layer ran as fast as directly.
  const int64_t tiles = ((s.output_h + 1) / 2) * ((s.output_w + 1) / 2);
  return s.input_channels >= 16 && s.output_channels >= 16 && tiles >= 32;
}

namespace {

// G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

NchwcWinogradFilter NchwcWinogradFilter::Pack(const NchwcConvShape& s, const float* oihw) {
  const int64_t cp = s.input_channels, mp = s.output_channels;
  NchwcWinogradFilter filter;
  std::vector<float> u(static_cast<size_t>(cp * mp));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      // U[i][j] = sum over a, c of G[i][a] g[a][c] G[j][c], in double, rounded once.
      for (int64_t co = 0; co < mp; ++co) {
        for (int64_t ci = 0; ci < cp; ++ci) {
          const float* g = oihw + (co * cp + ci) * 9;
          double sum = 0;
          for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c)
              sum += kG[i][a] * static_cast<double>(g[a * 3 + c]) * kG[j][c];
          u[static_cast<size_t>(ci * mp + co)] = static_cast<float>(sum);
        }
      }
      filter.points_.push_back(PackedMatrixB::Pack(false, cp, mp, u.data(), mp));
    }
  }
  return filter;
}

size_t NchwcWinogradFilter::Bytes() const {
  size_t bytes = 0;
  for (const PackedMatrixB& point : points_) bytes += point.Bytes();
  return bytes;
}

NchwcWinogradPlan NchwcWinogradPlanFor(const NchwcConvShape& s, int64_t threads, int64_t batch) {
  NchwcWinogradPlan plan;
  plan.tiles_h = CeilDiv(s.output_h, 2);
  plan.tiles_w = CeilDiv(s.output_w, 2);
  const int64_t tiles = plan.tiles_h * plan.tiles_w;
  if (batch <= 0) {
    // About 36 tiles per item: measured on resnet50's layers (batches of 12 to 196 tiles), 30 to
    // 60 were fastest; fewer re-read the point's packed U more often, more leave the cache.
    constexpr int64_t kTilesPerItem = 36;
    int64_t batches = CeilDiv(tiles, kTilesPerItem);
    // Items in a multiple of the threads where an image has few of them (as even as can be).
    const int64_t per_image = CeilDiv(std::max<int64_t>(threads, 1), s.batch);
    if (batches < 4 * per_image) batches = CeilDiv(batches, per_image) * per_image;
    batch = CeilDiv(tiles, batches);
  }
  plan.batch = std::max<int64_t>(1, std::min(batch, tiles));
  plan.batches_per_image = CeilDiv(tiles, plan.batch);
  return plan;
}

void NchwcWinogradConv(const IsaKernels& kernels, const NchwcConvShape& s,
                       const NchwcWinogradPlan& plan, const float* input,
                       const NchwcWinogradFilter& filter, const NchwcConvEpilogue& epilogue,
                       float* output, int64_t begin, int64_t end) {
  const int64_t cp = s.input_channels, mp = s.output_channels;
  const int64_t tiles = plan.tiles_h * plan.tiles_w;
  const int64_t input_image = cp * s.input_h * s.input_w;
  const int64_t output_image = mp * s.output_h * s.output_w;
  const int64_t v_point = plan.batch * cp, m_point = plan.batch * mp;
  thread_local std::vector<float> scratch;
  const size_t floats = static_cast<size_t>(kWinogradPoints * (v_point + m_point));
  if (scratch.size() < floats) scratch.resize(floats);
  float* v = scratch.data();
  float* m = v + kWinogradPoints * v_point;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / plan.batches_per_image;
    const int64_t tile_begin = (item % plan.batches_per_image) * plan.batch;
    const int64_t tile_end = std::min(tiles, tile_begin + plan.batch);
    kernels.nchwc_winograd_input_f32(s, input + n * input_image, plan.tiles_w, tile_begin, tile_end,
                                     v, v_point);
    for (int p = 0; p < kWinogradPoints; ++p)
      SgemmPackedB(kernels, false, tile_end - tile_begin, v + p * v_point, cp, 1.0f,
                   filter.Point(p), 0.0f, m + p * m_point, mp, nullptr);
    kernels.nchwc_winograd_output_f32(
        s, m, m_point, plan.tiles_w, tile_begin, tile_end, epilogue, output + n * output_image,
        epilogue.sum != nullptr ? epilogue.sum + n * output_image : nullptr);
  }
}

void NchwcWinogradConv(const NchwcConvShape& shape, const NchwcWinogradPlan& plan,
                       const float* input, const NchwcWinogradFilter& filter,
                       const NchwcConvEpilogue& epilogue, float* output, int64_t begin,
                       int64_t end) {
  NchwcWinogradConv(ActiveKernels(), shape, plan, input, filter, epilogue, output, begin, end);
}

}  // namespace prism::mlas

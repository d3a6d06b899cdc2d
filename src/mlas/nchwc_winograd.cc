#include "mlas/nchwc_winograd.h"

#include <algorithm>

#include "common/aligned_vector.h"
#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t Tiles(const NchwcConvShape& s, int output_tile) {
  return CeilDiv(s.output_h, output_tile) * CeilDiv(s.output_w, output_tile);
}

// Value i of G t for one column t of a filter (3 taps), in double (the sums of three floats are
// exact there): F(2x2): G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]; F(4x4):
// G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1].
template <int kTile>
double FilterValue(double t0, double t1, double t2, int i) {
  if constexpr (kTile == 2) {
    switch (i) {
      case 0:
        return t0;
      case 1:
        return (t0 + t1 + t2) * 0.5;
      case 2:
        return (t0 - t1 + t2) * 0.5;
      default:
        return t2;
    }
  } else {
    switch (i) {
      case 0:
        return t0 * 0.25;
      case 1:
        return -(t0 + t1 + t2) / 6;
      case 2:
        return -(t0 - t1 + t2) / 6;
      case 3:
        return t0 / 24 + t1 / 12 + t2 / 6;
      case 4:
        return t0 / 24 - t1 / 12 + t2 / 6;
      default:
        return t2;
    }
  }
}

// Row i of U = G g G^T for every (input, output) channel pair: the points (i, 0 .. side - 1)
// into u[j][ci][co], each value rounded to float once. Output channels innermost: each point's U
// is written in order. A row of points at a time, not all of them: the buffer of all
// (squeezenet1_1's 64 -> 256 layer: 1 MiB) was fresh memory whose page faults, under the
// hypervisor, cost more than the transform (3.5 ms of a 35 ms session creation for its two such
// layers).
template <int kTile>
void TransformFilterRow(const float* oihw, int64_t cp, int64_t mp, int i, float* u) {
  constexpr int kSide = kTile + 2;
  const size_t point_floats = static_cast<size_t>(cp * mp);
  for (int64_t ci = 0; ci < cp; ++ci) {
    for (int64_t co = 0; co < mp; ++co) {
      const float* g = oihw + (co * cp + ci) * 9;
      // (G g)'s row i, column by column, then G applied along it.
      double column_values[3];
      for (int c = 0; c < 3; ++c)
        column_values[c] = FilterValue<kTile>(g[c], g[3 + c], g[6 + c], i);
      const size_t at = static_cast<size_t>(ci * mp + co);
      for (int j = 0; j < kSide; ++j)
        u[static_cast<size_t>(j) * point_floats + at] = static_cast<float>(
            FilterValue<kTile>(column_values[0], column_values[1], column_values[2], j));
    }
  }
}

}  // namespace

bool NchwcWinogradApplies(const IsaKernels& kernels, const NchwcConvShape& s) {
  const int64_t b = kernels.nchwc_block;
  return !s.input_is_nchw && s.groups == 1 && s.kernel_h == 3 && s.kernel_w == 3 &&
         s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1 &&
         s.input_channels > 0 && s.input_channels % b == 0 && s.output_channels > 0 &&
         s.output_channels % b == 0;
}

bool NchwcWinogradPays(const NchwcConvShape& s, int output_tile) {
  // Measured (prism_conv_bench, resnet50's and squeezenet1_1's 3x3 layers, 1 and 2 threads):
  // faster from 16 input channels when the plane has enough tiles to amortize reading each
  // point's packed U once per batch of tiles. F(2x2): from 13 x 13 planes (on 7 x 7, 16 tiles,
  // resnet50's 512-channel layer ran as fast as directly). F(4x4): from 24 x 24 planes (resnet50's
  // 28 x 28 and 56 x 56 layers, squeezenet1_1's 27 x 27 and 55 x 55: 1.7 to 2 times faster than
  // F(2x2)); on 14 x 14 (16 tiles) it ran as fast as F(2x2) and on 7 x 7 slower than directly.
  if (s.input_channels < 16 || s.output_channels < 16) return false;
  const int64_t tiles = Tiles(s, output_tile);
  return output_tile == 4 ? tiles >= 36 : tiles >= 32;
}

int NchwcWinogradBestTile(const IsaKernels& kernels, const NchwcConvShape& s) {
  if (!NchwcWinogradApplies(kernels, s)) return 0;
  if (NchwcWinogradPays(s, 4)) return 4;
  return NchwcWinogradPays(s, 2) ? 2 : 0;
}

NchwcWinogradFilter NchwcWinogradFilter::Pack(const NchwcConvShape& s, const float* oihw,
                                              int output_tile) {
  const int64_t cp = s.input_channels, mp = s.output_channels;
  NchwcWinogradFilter filter;
  filter.output_tile_ = output_tile;
  const int side = output_tile + 2;
  const size_t point_floats = static_cast<size_t>(cp * mp);
  std::vector<float> u(static_cast<size_t>(side) * point_floats);  // one row of points
  for (int i = 0; i < side; ++i) {
    if (output_tile == 4)
      TransformFilterRow<4>(oihw, cp, mp, i, u.data());
    else
      TransformFilterRow<2>(oihw, cp, mp, i, u.data());
    for (int j = 0; j < side; ++j)  // point i * side + j
      filter.points_.push_back(
          PackedMatrixB::Pack(false, cp, mp, u.data() + static_cast<size_t>(j) * point_floats, mp));
  }
  return filter;
}

size_t NchwcWinogradFilter::Bytes() const {
  size_t bytes = 0;
  for (const PackedMatrixB& point : points_) bytes += point.Bytes();
  return bytes;
}

NchwcWinogradPlan NchwcWinogradPlanFor(const NchwcConvShape& s, int output_tile, int64_t threads,
                                       int64_t batch) {
  NchwcWinogradPlan plan;
  plan.output_tile = output_tile;
  plan.tiles_h = CeilDiv(s.output_h, output_tile);
  plan.tiles_w = CeilDiv(s.output_w, output_tile);
  const int64_t tiles = plan.tiles_h * plan.tiles_w;
  if (batch <= 0) {
    // F(2x2): about 36 tiles per item, measured on resnet50's layers (batches of 12 to 196
    // tiles): 30 to 60 were fastest; fewer re-read the points' packed U more often, more leave
    // the cache. F(4x4): 32 and 64 tiles about alike, 8 and 16 slower.
    const int64_t tiles_per_item = output_tile == 4 ? 32 : 36;
    int64_t batches = CeilDiv(tiles, tiles_per_item);
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
  const int points = WinogradPoints(plan.output_tile);
  thread_local AlignedVector<float> scratch;
  const size_t floats = static_cast<size_t>(points * (v_point + m_point));
  if (scratch.size() < floats) scratch.resize(floats);
  float* v = scratch.data();
  float* m = v + points * v_point;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / plan.batches_per_image;
    const int64_t tile_begin = (item % plan.batches_per_image) * plan.batch;
    const int64_t tile_end = std::min(tiles, tile_begin + plan.batch);
    kernels.nchwc_winograd_input_f32(s, plan.output_tile, input + n * input_image, plan.tiles_w,
                                     tile_begin, tile_end, v, v_point);
    for (int p = 0; p < points; ++p)
      SgemmPackedB(kernels, false, tile_end - tile_begin, v + p * v_point, cp, 1.0f,
                   filter.Point(p), 0.0f, m + p * m_point, mp, nullptr);
    kernels.nchwc_winograd_output_f32(
        s, plan.output_tile, m, m_point, plan.tiles_w, tile_begin, tile_end, epilogue,
        output + n * output_image,
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

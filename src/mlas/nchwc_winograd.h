// The Winograd convolutions F(2x2, 3x3) and F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016) on NCHWc tensors (mlas/nchwc.h): the 3x3, stride 1
// convolutions of a blocked input, which the direct kernel runs at about two thirds of the FMA
// peak, done with 2.25 (F(2x2)) or 4 (F(4x4)) times fewer multiplies.
//
// The output is cut into tiles of m x m pixels, m = 2 or 4 (the last row and column of tiles may
// hang over the output's edge). For each tile, its (m + 2)-square input patch d (zero outside the
// input, which is also what the padding is) becomes V = B^T d B, each filter g (per input and
// output channel) U = G g G^T, and the tile's outputs are Y = A^T (sum over input channels of
// U . V) A: the sum over input channels of the (m + 2)^2 element-wise products is, per point p,
// one matrix product M_p = V_p U_p of [tiles x Cp] by [Cp x Mp]. U is computed once (prepack) and
// packed for the SGEMM (packed_gemm.h), which reads V_p in place. B's and A's coefficients are
// small integers, G's are fractions applied to the weights once in double precision; F(4x4)'s
// larger coefficients round a little more (the tests bound both against a double-precision
// reference with the direct kernel's tolerance). F(4x4) needs planes with enough 4 x 4 tiles to
// amortize its 36 packed U matrices (each read once per batch of tiles); F(2x2) takes the smaller.
//
// Work goes batch by batch of tiles: a batch's V and M stay in the L2 cache between the input
// transform, the products and the output transform. Batches are independent work items (image x
// batch); each thread needs its own V and M.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlas/nchwc.h"
#include "mlas/packed_gemm.h"

namespace prism::mlas {

struct IsaKernels;

// The transformed tile's points: (m + 2)^2 for m x m output tiles.
constexpr int WinogradPoints(int output_tile) {
  return (output_tile + 2) * (output_tile + 2);
}

// Whether the convolution is one this algorithm computes: blocked input (channels multiples of
// the block), group 1, a 3x3 filter, stride 1, dilation 1 (any padding).
bool NchwcWinogradApplies(const IsaKernels& kernels, const NchwcConvShape& shape);

// The output tile (2 or 4) the NCHWc convolution runs this shape with: one expected to beat the
// direct kernel where NchwcWinogradApplies, from the channel counts and plane sizes measured
// (benchmarks/RESULTS.md, "Winograd"); 0 (the direct kernel) otherwise. The op and
// prism_conv_bench's `blocked` variant both ask here.
int NchwcWinogradBestTile(const IsaKernels& kernels, const NchwcConvShape& shape);
// Whether the algorithm with this output tile is expected to beat the direct kernel.
bool NchwcWinogradPays(const NchwcConvShape& shape, int output_tile);

// U = G g G^T of every (output, input) channel pair, as WinogradPoints packed [Cp x Mp] matrices.
class NchwcWinogradFilter {
 public:
  // From the OIHW filter [Mp][Cp][3][3] of a shape NchwcWinogradApplies takes; output_tile 2 or 4.
  static NchwcWinogradFilter Pack(const NchwcConvShape& shape, const float* oihw, int output_tile);
  int OutputTile() const { return output_tile_; }
  const PackedMatrixB& Point(int p) const { return points_[static_cast<size_t>(p)]; }
  size_t Bytes() const;

 private:
  int output_tile_ = 2;
  std::vector<PackedMatrixB> points_;
};

// How one convolution's tiles are cut into work items.
struct NchwcWinogradPlan {
  int output_tile = 2;
  int64_t tiles_h = 0, tiles_w = 0;  // the grid of output tiles of one image
  int64_t batch = 0;                 // tiles per work item
  int64_t batches_per_image = 0;
  int64_t WorkItems(int64_t images) const { return images * batches_per_image; }
};

// The plan for a filter's output tile and `threads` threads; batch > 0 sets the tiles per item
// (tests, benchmarks), else it is chosen so that a batch's V and M fit the L2 cache and every
// thread gets an item.
NchwcWinogradPlan NchwcWinogradPlanFor(const NchwcConvShape& shape, int output_tile,
                                       int64_t threads, int64_t batch = 0);

// Work items [begin, end) of the plan (image-major), on the given level's kernels or the active
// level's: Y = activation(conv(X, W) + bias + sum) as NchwcConv computes it.
void NchwcWinogradConv(const IsaKernels& kernels, const NchwcConvShape& shape,
                       const NchwcWinogradPlan& plan, const float* input,
                       const NchwcWinogradFilter& filter, const NchwcConvEpilogue& epilogue,
                       float* output, int64_t begin, int64_t end);
void NchwcWinogradConv(const NchwcConvShape& shape, const NchwcWinogradPlan& plan,
                       const float* input, const NchwcWinogradFilter& filter,
                       const NchwcConvEpilogue& epilogue, float* output, int64_t begin,
                       int64_t end);

}  // namespace prism::mlas

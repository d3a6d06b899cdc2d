// The Winograd F(2x2, 3x3) convolution (Lavin and Gray, "Fast Algorithms for Convolutional
// Neural Networks", 2016) on NCHWc tensors (mlas/nchwc.h): the 3x3, stride 1 convolutions of a
// blocked input, which the direct kernel runs at about two thirds of the FMA peak, done with 2.25
// times fewer multiplies.
//
// The output is cut into tiles of 2 x 2 pixels (the last row and column of tiles may hang over
// the output's edge). For each tile, its 4 x 4 input patch d (zero outside the input, which is
// also what the padding is) becomes V = B^T d B, each filter g (per input and output channel)
// U = G g G^T, and the tile's outputs are Y = A^T (sum over input channels of U . V) A: the sum
// over input channels of the 16 element-wise products is, per point p of the 4 x 4, one matrix
// product M_p = V_p U_p of [tiles x Cp] by [Cp x Mp]. U is computed once (prepack) and packed
// for the SGEMM (packed_gemm.h), which reads V_p in place. The transforms' coefficients are 0,
// +-1 (B, A) and +-1/2 (G, applied once to the weights in double precision), so the rounding
// stays close to the direct sum's: the tests bound it against a double-precision reference.
//
// Work goes batch by batch of tiles: a batch's V and M (16 x batch x channels floats each) stay
// in the L2 cache between the input transform, the 16 products and the output transform. Batches
// are independent work items (image x batch); each thread needs its own V and M.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlas/nchwc.h"
#include "mlas/packed_gemm.h"

namespace prism::mlas {

struct IsaKernels;

// The 4 x 4 transformed tile's points.
constexpr int kWinogradPoints = 16;

// Whether the convolution is one this algorithm computes: blocked input (channels multiples of
// the block), group 1, a 3x3 filter, stride 1, dilation 1 (any padding).
bool NchwcWinogradApplies(const IsaKernels& kernels, const NchwcConvShape& shape);

// Whether it is expected to beat the direct kernel on this shape (at `threads` threads):
// the channel counts and plane sizes where it measured faster (benchmarks/RESULTS.md, "Winograd").
bool NchwcWinogradPays(const NchwcConvShape& shape, int64_t threads);

// U = G g G^T of every (output, input) channel pair, as kWinogradPoints packed [Cp x Mp] matrices.
class NchwcWinogradFilter {
 public:
  // From the OIHW filter [Mp][Cp][3][3] of a shape NchwcWinogradApplies takes.
  static NchwcWinogradFilter Pack(const NchwcConvShape& shape, const float* oihw);
  const PackedMatrixB& Point(int p) const { return points_[static_cast<size_t>(p)]; }
  size_t Bytes() const;

 private:
  std::vector<PackedMatrixB> points_;
};

// How one convolution's tiles are cut into work items.
struct NchwcWinogradPlan {
  int64_t tiles_h = 0, tiles_w = 0;  // the grid of 2 x 2 output tiles of one image
  int64_t batch = 0;                 // tiles per work item
  int64_t batches_per_image = 0;
  int64_t WorkItems(int64_t images) const { return images * batches_per_image; }
};

// The plan for `threads` threads; batch > 0 sets the tiles per item (tests, benchmarks), else it
// is chosen so that a batch's V and M fit the L2 cache and every thread gets an item.
NchwcWinogradPlan NchwcWinogradPlanFor(const NchwcConvShape& shape, int64_t threads,
                                       int64_t batch = 0);

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

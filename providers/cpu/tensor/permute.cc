// Axes of size 1 are dropped and runs of axes that stay adjacent are merged first, so that
// common cases (BERT's [1,128,12,64] with perm [0,2,1,3]) become copies of contiguous blocks.
#include "providers/cpu/tensor/permute.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mlas/transpose_bytes.h"
#include "providers/cpu/tensor/element_copy.h"

namespace prism::cpu {
namespace {

// A transpose reduced to its essential axes: output axis i reads input axis perm[i].
struct TransposePlan {
  std::vector<int64_t> out_dims;     // dims of the output's merged axes
  std::vector<int64_t> src_strides;  // input stride (in elements) of each output axis
};

TransposePlan PlanTranspose(const std::vector<int64_t>& dims, const std::vector<size_t>& perm) {
  // Drop size-1 axes: they do not change the memory order.
  std::vector<int64_t> kept_index(dims.size(), -1);
  std::vector<int64_t> in_dims;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;
    kept_index[k] = static_cast<int64_t>(in_dims.size());
    in_dims.push_back(dims[k]);
  }
  std::vector<size_t> p;
  for (size_t a : perm)
    if (kept_index[a] >= 0) p.push_back(static_cast<size_t>(kept_index[a]));

  // Merge output axes i, i+1 that read input axes k, k+1: together they are one axis.
  std::vector<std::vector<size_t>> groups;  // each group: consecutive input axes
  for (size_t i = 0; i < p.size(); ++i) {
    if (!groups.empty() && groups.back().back() + 1 == p[i])
      groups.back().push_back(p[i]);
    else
      groups.push_back({p[i]});
  }
  std::vector<int64_t> in_strides(in_dims.size(), 1);
  for (size_t k = in_dims.size(); k-- > 1;) in_strides[k - 1] = in_strides[k] * in_dims[k];
  TransposePlan plan;
  for (const auto& group : groups) {
    int64_t size = 1;
    for (size_t k : group) size *= in_dims[k];
    plan.out_dims.push_back(size);
    plan.src_strides.push_back(in_strides[group.back()]);
  }
  return plan;
}

// Advances the multi-index over out_dims[0..axes) and returns the change of the source
// offset; wraps like an odometer.
inline int64_t Advance(std::vector<int64_t>& index, const TransposePlan& plan, size_t axes) {
  int64_t delta = 0;
  for (size_t a = axes; a-- > 0;) {
    if (++index[a] < plan.out_dims[a]) return delta + plan.src_strides[a];
    delta -= plan.src_strides[a] * (plan.out_dims[a] - 1);
    index[a] = 0;
  }
  return delta;
}

// dst[i * cols + j] = src[j * rows + i] for a rows x cols output (a matrix transpose), in
// square tiles so that both sides stay in cache lines: NCHW <-> NHWC of one image (the int8
// layout's reorders) spent 4 ns an element in the general loop with 3 channels.
template <typename T, int64_t kCols>
void TransposeToFewColumns(const T* src, T* dst, int64_t rows) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < kCols; ++j) dst[i * kCols + j] = src[j * rows + i];
}

template <typename T>
void TransposeMatrix(const T* src, T* dst, int64_t rows, int64_t cols) {
  // Three or four columns (an RGB or RGBA image made channels-last) with the count known.
  if constexpr (sizeof(T) == 1)
    if (cols == 3)
      return mlas::InterleaveThreeRows(reinterpret_cast<const uint8_t*>(src), rows, rows,
                                       reinterpret_cast<uint8_t*>(dst));
  if (cols == 3) return TransposeToFewColumns<T, 3>(src, dst, rows);
  if (cols == 4) return TransposeToFewColumns<T, 4>(src, dst, rows);
  // Bytes in 16 x 16 register blocks (8-bit models' layout changes: about 5x the tiled loop's
  // rate on a 96 x 12544 plane).
  if constexpr (sizeof(T) == 1)
    return mlas::TransposeBytes(reinterpret_cast<const uint8_t*>(src), rows, cols, rows,
                                reinterpret_cast<uint8_t*>(dst), cols);
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) dst[i * cols + j] = src[j * rows + i];
    }
  }
}

// Element-wise gather for a permutation whose innermost output axis is strided in the input.
template <typename T>
void StridedTranspose(const T* src, T* dst, const TransposePlan& plan) {
  const size_t rank = plan.out_dims.size();
  // [outer,] rows, cols read as a transposed matrix (per outer block, when the outer axis is
  // the input's outermost): the tiled loop.
  const auto is_matrix_at = [&](size_t a) {
    return plan.src_strides[a] == 1 && plan.src_strides[a + 1] == plan.out_dims[a];
  };
  if (rank == 2 && is_matrix_at(0)) {
    TransposeMatrix(src, dst, plan.out_dims[0], plan.out_dims[1]);
    return;
  }
  if (rank == 3 && is_matrix_at(1) && plan.src_strides[0] == plan.out_dims[1] * plan.out_dims[2]) {
    const int64_t block = plan.out_dims[1] * plan.out_dims[2];
    for (int64_t o = 0; o < plan.out_dims[0]; ++o)
      TransposeMatrix(src + o * block, dst + o * block, plan.out_dims[1], plan.out_dims[2]);
    return;
  }
  const int64_t inner = plan.out_dims[rank - 1];
  const int64_t inner_stride = plan.src_strides[rank - 1];
  int64_t outer = 1;
  for (size_t a = 0; a + 1 < rank; ++a) outer *= plan.out_dims[a];
  std::vector<int64_t> index(rank - 1, 0);
  int64_t src_offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const T* from = src + src_offset;
    for (int64_t j = 0; j < inner; ++j) dst[j] = from[j * inner_stride];
    dst += inner;
    src_offset += Advance(index, plan, rank - 1);
  }
}

void PackedStridedTranspose(const Tensor& input, Tensor& output, const TransposePlan& plan) {
  const int bits = ElementBits(input.Type());
  const auto* src = static_cast<const uint8_t*>(input.RawData());
  auto* dst = static_cast<uint8_t*>(output.MutableRawData());
  const size_t rank = plan.out_dims.size();
  const int64_t inner = plan.out_dims[rank - 1];
  const int64_t inner_stride = plan.src_strides[rank - 1];
  const int64_t outer = output.NumElements() / inner;
  std::vector<int64_t> index(rank - 1, 0);
  int64_t src_offset = 0;
  int64_t out = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j)
      SetPackedElement(dst, out++, bits,
                       GetPackedElement(src, src_offset + j * inner_stride, bits));
    src_offset += Advance(index, plan, rank - 1);
  }
}

// 16-byte elements (complex128), moved as a unit.
struct Bytes16 {
  uint64_t low;
  uint64_t high;
};

void RunStrided(const Tensor& input, Tensor& output, const TransposePlan& plan) {
  const void* src = input.RawData();
  void* dst = output.MutableRawData();
  switch (input.Type() == ElementType::kString ? -1 : ElementBits(input.Type())) {
    case -1:
      StridedTranspose(input.Data<std::string>(), output.MutableData<std::string>(), plan);
      return;
    case 8:
      StridedTranspose(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), plan);
      return;
    case 16:
      StridedTranspose(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), plan);
      return;
    case 32:
      StridedTranspose(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), plan);
      return;
    case 64:
      StridedTranspose(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), plan);
      return;
    case 128:
      StridedTranspose(static_cast<const Bytes16*>(src), static_cast<Bytes16*>(dst), plan);
      return;
    case 4:
    case 2:
      PackedStridedTranspose(input, output, plan);
      return;
    default:
      PRISM_THROW(kNotImplemented, "cannot permute elements of type ",
                  ElementTypeName(input.Type()));
  }
}

}  // namespace

void PermuteElements(const Tensor& input, const std::vector<int64_t>& dims,
                     const std::vector<size_t>& perm, Tensor& output) {
  if (input.NumElements() == 0) return;
  ClearPackedStorage(output);
  const TransposePlan plan = PlanTranspose(dims, perm);
  const size_t merged = plan.out_dims.size();
  if (merged <= 1) {  // the permutation keeps memory order
    CopyElements(input, 0, output, 0, input.NumElements());
    return;
  }
  if (plan.src_strides[merged - 1] == 1) {
    // The innermost output axis is contiguous in the input: copy whole blocks.
    const int64_t block = plan.out_dims[merged - 1];
    const int64_t blocks = input.NumElements() / block;
    std::vector<int64_t> index(merged - 1, 0);
    int64_t src_offset = 0;
    for (int64_t b = 0; b < blocks; ++b) {
      CopyElements(input, src_offset, output, b * block, block);
      src_offset += Advance(index, plan, merged - 1);
    }
    return;
  }
  RunStrided(input, output, plan);
}

}  // namespace prism::cpu

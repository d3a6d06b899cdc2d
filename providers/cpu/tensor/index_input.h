// Reads an int32/int64 index tensor for the gather/scatter kernels: every index is checked
// against the size of the axis it addresses, negative ones count from the end, and the error
// names the node, the position and the valid range.
#pragma once

#include <string>
#include <vector>

#include "framework/tensor.h"
#include "graph/node.h"

namespace prism::cpu {

// The index at flat position i as int64 (int32 or int64 tensors only).
inline int64_t IndexAt(const Tensor& indices, int64_t i) {
  return indices.Type() == ElementType::kInt64 ? indices.Data<int64_t>()[i]
                                               : indices.Data<int32_t>()[i];
}

inline void RequireIndexType(const Tensor& indices, const Node& node, const char* what) {
  PRISM_ENFORCE(indices.Type() == ElementType::kInt64 || indices.Type() == ElementType::kInt32,
                kInvalidArgument, node.Describe(), ": input '", what,
                "' must be int32 or int64, got ", ElementTypeName(indices.Type()));
}

// `index` checked against a dim of size `dim` and made non-negative.
inline int64_t NormalizeIndex(int64_t index, int64_t dim, const Node& node, const char* what,
                              int64_t position) {
  PRISM_ENFORCE(index >= -dim && index < dim, kInvalidArgument, node.Describe(), ": index ", index,
                " (at position ", position, " of input '", what,
                "') is out of range for a dim of size ", dim, " (valid: [", -dim, ", ", dim - 1,
                "])");
  return index < 0 ? index + dim : index;
}

// Every index of the tensor, all addressing one dim of size `dim`.
inline std::vector<int64_t> NormalizedIndices(const Tensor& indices, int64_t dim, const Node& node,
                                              const char* what) {
  RequireIndexType(indices, node, what);
  const int64_t count = indices.NumElements();
  std::vector<int64_t> result(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    result[static_cast<size_t>(i)] = NormalizeIndex(IndexAt(indices, i), dim, node, what, i);
  return result;
}

// GatherElements/ScatterElements addressing: for each position p of an index tensor of shape
// `index_shape` (row-major order), the offset in a tensor of shape `data` of p with its `axis`
// coordinate replaced by picks[p].
inline std::vector<int64_t> ElementOffsets(const TensorShape& data, const TensorShape& index_shape,
                                           const std::vector<int64_t>& picks, size_t axis) {
  const size_t rank = data.Rank();
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * data[d];
  std::vector<int64_t> offsets(picks.size());
  std::vector<int64_t> index(rank, 0);
  int64_t base = 0;  // the offset of index with its axis coordinate left out
  for (size_t i = 0; i < picks.size(); ++i) {
    offsets[i] = base + picks[i] * strides[axis];
    for (size_t d = rank; d-- > 0;) {
      if (d != axis) base += strides[d];
      if (++index[d] < index_shape[d]) break;
      if (d != axis) base -= strides[d] * index_shape[d];
      index[d] = 0;
    }
  }
  return offsets;
}

}  // namespace prism::cpu

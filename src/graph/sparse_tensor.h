// Sparse initializers and sparse Constant values are densified at load: Prism's kernels take
// dense tensors, and a weight stored sparse in the file is small enough to expand once.
#pragma once

#include <string>

#include "framework/tensor.h"
#include "graph/tensor_proto.h"

namespace onnx {
class SparseTensorProto;
}

namespace prism {

// The dense tensor of shape `dims` holding `values` at `indices` (linear [NNZ] or
// coordinates [NNZ, rank]) and zero (false, "") elsewhere. Throws kInvalidGraph naming `what`
// for mismatched counts, bad index shapes and indices out of range.
Tensor DensifySparseTensor(const onnx::SparseTensorProto& sparse, const ExternalDataPolicy& policy,
                           const std::string& what);

}  // namespace prism

// Reshape's output shape: shared by the CPU EP's Reshape and device EPs' (a view either way).
#pragma once

#include <vector>

#include "common/status.h"
#include "framework/tensor_shape.h"
#include "graph/node.h"

namespace prism::cpu {

// Resolves the requested shape against the input: 0 copies the input's dim (unless
// allow_zero), a single -1 is inferred from the element count.
inline TensorShape ResolveReshape(const TensorShape& input, const std::vector<int64_t>& requested,
                                  bool allow_zero, const Node& node) {
  std::vector<int64_t> dims(requested.size());
  int inferred = -1;
  bool has_zero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t d = requested[i];
    if (d == -1) {
      PRISM_ENFORCE(inferred < 0, kInvalidArgument, node.Describe(),
                    ": the shape has more than one -1 (dims ", inferred, " and ", i, ")");
      inferred = static_cast<int>(i);
      dims[i] = 1;
    } else if (d == 0 && !allow_zero) {
      PRISM_ENFORCE(i < input.Rank(), kInvalidArgument, node.Describe(), ": shape dim ", i,
                    " is 0 (copy the input dim) but the input ", input.ToString(), " has only ",
                    input.Rank(), " dims");
      dims[i] = input[i];
    } else {
      PRISM_ENFORCE(d >= 0, kInvalidArgument, node.Describe(), ": shape dim ", i, " is ", d,
                    "; only -1 (infer) and non-negative dims are allowed");
      has_zero = has_zero || d == 0;
      dims[i] = d;
    }
  }
  PRISM_ENFORCE(!(allow_zero && has_zero && inferred >= 0), kInvalidArgument, node.Describe(),
                ": with allowzero=1 the shape may not contain both 0 and -1");
  if (inferred >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) == inferred) continue;
      PRISM_ENFORCE(!__builtin_mul_overflow(known, dims[i], &known), kInvalidArgument,
                    node.Describe(), ": the requested shape's element count overflows int64");
    }
    PRISM_ENFORCE(known != 0, kInvalidArgument, node.Describe(), ": cannot infer the -1 dim of ",
                  "the requested shape for input ", input.ToString(),
                  " because the other dims multiply to 0");
    PRISM_ENFORCE(input.Size() % known == 0, kInvalidArgument, node.Describe(), ": cannot reshape ",
                  input.ToString(), " (", input.Size(), " elements) into a shape whose known dims ",
                  "multiply to ", known);
    dims[static_cast<size_t>(inferred)] = input.Size() / known;
  }
  TensorShape shape(dims);  // validates overflow of the product
  PRISM_ENFORCE(shape.Size() == input.Size(), kInvalidArgument, node.Describe(),
                ": cannot reshape ", input.ToString(), " (", input.Size(), " elements) to ",
                shape.ToString(), " (", shape.Size(), " elements)");
  return shape;
}

}  // namespace prism::cpu

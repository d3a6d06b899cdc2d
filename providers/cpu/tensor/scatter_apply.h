// The write step shared by ScatterElements (and Scatter) and ScatterND: the output starts as a
// copy of data, then each move writes `count` consecutive update elements at an output offset,
// replacing them (reduction "none", every type) or combining them with add, mul (opset 16+),
// max or min (opset 18+). Reductions run on the numeric types, bool (add and max are "or", mul
// and min are "and", as numpy's ufuncs on bool) and complex (add and mul only); strings have no
// arithmetic and are refused with a clear error.
#pragma once

#include <string>
#include <vector>

#include "framework/op_kernel.h"
#include "framework/tensor.h"

namespace prism::cpu {

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

struct ScatterMove {
  int64_t output_offset;
  int64_t update_offset;
};

// Reads the 'reduction' attribute, refusing values the node's opset does not define.
ScatterReduction ReadScatterReduction(const OpKernelInfo& info);

// Applies every move of `count` elements, in order (later moves see earlier ones).
void ApplyScatter(Tensor& output, const Tensor& updates, const std::vector<ScatterMove>& moves,
                  int64_t count, ScatterReduction reduction, const Node& node);

}  // namespace prism::cpu

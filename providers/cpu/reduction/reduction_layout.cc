#include "providers/cpu/reduction/reduction_layout.h"

#include "common/status.h"

namespace prism::cpu {

std::vector<int64_t> ReductionLayout::DimsOf(bool kind) const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d] == kind) out.push_back(dims[d]);
  return out;
}

std::vector<int64_t> ReductionLayout::StridesOf(bool kind) const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d] == kind) out.push_back(strides[d]);
  return out;
}

ReductionLayout MakeReductionLayout(const TensorShape& shape, const std::vector<bool>& reduce) {
  ReductionLayout layout;
  for (size_t d = 0; d < shape.Rank(); ++d) {
    if (shape[d] == 1) continue;
    if (!layout.dims.empty() && layout.reduced.back() == reduce[d]) {
      layout.dims.back() *= shape[d];
    } else {
      layout.dims.push_back(shape[d]);
      layout.reduced.push_back(reduce[d]);
    }
  }
  if (layout.dims.empty()) {
    layout.dims.push_back(1);
    layout.reduced.push_back(false);
  }
  layout.strides.assign(layout.dims.size(), 1);
  for (size_t d = layout.dims.size() - 1; d-- > 0;)
    layout.strides[d] = layout.strides[d + 1] * layout.dims[d + 1];
  return layout;
}

ReductionAxes ResolveReductionAxes(const std::string& node, const TensorShape& shape,
                                   const std::vector<int64_t>& axes, bool keep_dims) {
  const int64_t rank = static_cast<int64_t>(shape.Rank());
  ReductionAxes result;
  result.reduce.assign(shape.Rank(), axes.empty());
  for (int64_t axis : axes) {
    PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node, ": axis ", axis,
                  " is out of range [", -rank, ", ", rank - 1, "] for input ", shape.ToString());
    const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    PRISM_ENFORCE(!result.reduce[a], kInvalidArgument, node, ": axis ", axis,
                  " is given more than once");
    result.reduce[a] = true;
  }
  for (size_t d = 0; d < shape.Rank(); ++d) {
    if (!result.reduce[d]) {
      result.out_dims.push_back(shape[d]);
    } else {
      result.count *= shape[d];
      if (keep_dims) result.out_dims.push_back(1);
    }
  }
  return result;
}

}  // namespace prism::cpu

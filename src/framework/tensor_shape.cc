#include "framework/tensor_shape.h"

#include <limits>

#include "common/status.h"

namespace prism {

TensorShape::TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {
  Validate();
}

void TensorShape::Validate() {
  PRISM_ENFORCE(dims_.size() <= kMaxTensorRank, kInvalidArgument, "a shape of rank ", dims_.size(),
                " exceeds the maximum rank ", kMaxTensorRank);
  int64_t size = 1;
  bool has_zero = false;
  for (int64_t d : dims_) {
    PRISM_ENFORCE(d >= 0, kInvalidArgument, "shape ", ToString(), " has a negative dimension");
    if (d == 0) has_zero = true;
  }
  if (has_zero) {
    size_ = 0;
    return;
  }
  for (int64_t d : dims_) {
    PRISM_ENFORCE(size <= std::numeric_limits<int64_t>::max() / d, kInvalidArgument, "shape ",
                  ToString(), " has more elements than fit in int64");
    size *= d;
  }
  size_ = size;
}

int64_t TensorShape::SizeBetween(size_t begin, size_t end) const {
  int64_t size = 1;
  for (size_t i = begin; i < end && i < dims_.size(); ++i) size *= dims_[i];
  return size;
}

std::string TensorShape::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(dims_[i]);
  }
  return text + "]";
}

int64_t HandleNegativeAxis(int64_t axis, int64_t rank, const char* what) {
  PRISM_ENFORCE(axis >= -rank && axis < (rank == 0 ? 1 : rank), kInvalidArgument, what, " ", axis,
                " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace prism

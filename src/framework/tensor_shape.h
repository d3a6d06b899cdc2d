// A concrete run-time shape. Symbolic dims exist only at graph level (graph/value_info.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace prism {

// The highest rank a tensor may have (numpy 2's limit). Shapes of higher rank, declared by a
// model or computed by a kernel, are refused: nothing legitimate needs them, and every
// per-dimension loop is then bounded.
constexpr size_t kMaxTensorRank = 64;

class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::vector<int64_t> dims);  // NOLINT: implicit on purpose, shapes are values
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) { Validate(); }

  size_t Rank() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  const std::vector<int64_t>& Dims() const { return dims_; }
  // Product of all dims (1 for a scalar). Validated at construction: never overflows.
  int64_t Size() const { return size_; }
  // Product of dims [begin, end).
  int64_t SizeFromDimension(size_t begin) const { return SizeBetween(begin, dims_.size()); }
  int64_t SizeToDimension(size_t end) const { return SizeBetween(0, end); }
  int64_t SizeBetween(size_t begin, size_t end) const;
  std::string ToString() const;  // "[2,3,4]"

  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return dims_ != other.dims_; }

 private:
  // throws on a rank over kMaxTensorRank, negative dims or an element count that overflows int64
  void Validate();
  std::vector<int64_t> dims_;
  int64_t size_ = 1;
};

// Normalizes a possibly negative axis against rank; throws naming what when out of range.
int64_t HandleNegativeAxis(int64_t axis, int64_t rank, const char* what = "axis");

}  // namespace prism

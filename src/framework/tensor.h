// A typed n-dimensional array in one memory space. Copying a Tensor shares its buffer.
#pragma once

#include <complex>
#include <memory>
#include <string>
#include <type_traits>

#include "common/status.h"
#include "framework/allocator.h"
#include "framework/element_type.h"
#include "framework/float16.h"
#include "framework/tensor_shape.h"

namespace prism {

template <typename T>
constexpr ElementType ElementTypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return ElementType::kFloat;
  else if constexpr (std::is_same_v<T, double>)
    return ElementType::kDouble;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ElementType::kInt8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ElementType::kInt16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ElementType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ElementType::kInt64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ElementType::kUint8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ElementType::kUint16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ElementType::kUint32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return ElementType::kUint64;
  else if constexpr (std::is_same_v<T, bool>)
    return ElementType::kBool;
  else if constexpr (std::is_same_v<T, Float16>)
    return ElementType::kFloat16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return ElementType::kBFloat16;
  else if constexpr (std::is_same_v<T, std::string>)
    return ElementType::kString;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return ElementType::kComplex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return ElementType::kComplex128;
  else
    return ElementType::kUndefined;
}

class Tensor {
 public:
  Tensor() = default;
  // Allocates storage from allocator; string elements are default-constructed, others are
  // left uninitialized.
  Tensor(ElementType type, TensorShape shape, const AllocatorPtr& allocator);
  // Wraps memory the caller owns and keeps alive for the tensor's lifetime.
  Tensor(ElementType type, TensorShape shape, void* data, MemoryInfo location);
  // Shares a buffer kept alive by owner (memory-mapped initializers, views).
  Tensor(ElementType type, TensorShape shape, std::shared_ptr<void> owner, void* data,
         MemoryInfo location);

  bool IsValid() const { return type_ != ElementType::kUndefined; }
  ElementType Type() const { return type_; }
  const TensorShape& Shape() const { return shape_; }
  int64_t NumElements() const { return shape_.Size(); }
  size_t SizeInBytes() const { return StorageBytes(type_, shape_.Size()); }
  const MemoryInfo& Location() const { return location_; }

  // What keeps the data alive (null for memory the caller owns); shared by views of it.
  const std::shared_ptr<void>& Buffer() const { return owner_; }
  const void* RawData() const { return data_; }
  void* MutableRawData() { return data_; }

  template <typename T>
  const T* Data() const {
    CheckType<T>();
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* MutableData() {
    CheckType<T>();
    return static_cast<T*>(data_);
  }

  // A tensor with another shape of the same element count over the same buffer.
  Tensor Reshaped(const TensorShape& shape) const;
  // Deep copy into CPU memory (only valid for CPU-accessible tensors).
  Tensor CloneToCpu() const;
  std::string Describe() const;  // "tensor(float)[2,3]"

 private:
  template <typename T>
  void CheckType() const {
    PRISM_ENFORCE(ElementTypeOf<T>() == type_, kInvalidArgument, "tensor holds ",
                  ElementTypeName(type_), ", accessed as ", ElementTypeName(ElementTypeOf<T>()));
  }

  ElementType type_ = ElementType::kUndefined;
  TensorShape shape_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  MemoryInfo location_;
};

}  // namespace prism

#include "framework/tensor.h"

#include <cstring>

namespace prism {

Tensor::Tensor(ElementType type, TensorShape shape, const AllocatorPtr& allocator)
    : type_(type), shape_(std::move(shape)), location_(allocator->Info()) {
  const size_t bytes = StorageBytes(type_, shape_.Size());
  void* data = allocator->Alloc(bytes);
  data_ = data;
  if (type_ == ElementType::kString) {
    PRISM_ENFORCE(location_.IsCpuAccessible(), kInvalidArgument,
                  "string tensors can only live in CPU memory");
    auto* strings = static_cast<std::string*>(data);
    const int64_t count = shape_.Size();
    for (int64_t i = 0; i < count; ++i) new (strings + i) std::string();
    owner_ = std::shared_ptr<void>(data, [allocator, count](void* p) {
      auto* s = static_cast<std::string*>(p);
      for (int64_t i = 0; i < count; ++i) s[i].~basic_string();
      allocator->Free(p);
    });
  } else {
    owner_ = std::shared_ptr<void>(data, [allocator](void* p) { allocator->Free(p); });
  }
}

Tensor::Tensor(ElementType type, TensorShape shape, void* data, MemoryInfo location)
    : type_(type), shape_(std::move(shape)), data_(data), location_(std::move(location)) {}

Tensor::Tensor(ElementType type, TensorShape shape, std::shared_ptr<void> owner, void* data,
               MemoryInfo location)
    : type_(type),
      shape_(std::move(shape)),
      owner_(std::move(owner)),
      data_(data),
      location_(std::move(location)) {}

Tensor Tensor::Reshaped(const TensorShape& shape) const {
  PRISM_ENFORCE(shape.Size() == shape_.Size(), kInvalidArgument, "cannot view ", Describe(),
                " as shape ", shape.ToString());
  Tensor view = *this;
  view.shape_ = shape;
  return view;
}

Tensor Tensor::CloneToCpu() const {
  PRISM_ENFORCE(location_.IsCpuAccessible(), kInvalidArgument, "CloneToCpu on ",
                location_.ToString(), " memory needs a data transfer");
  Tensor copy(type_, shape_, GetCpuAllocator());
  if (type_ == ElementType::kString) {
    const auto* src = static_cast<const std::string*>(data_);
    auto* dst = static_cast<std::string*>(copy.data_);
    for (int64_t i = 0; i < shape_.Size(); ++i) dst[i] = src[i];
  } else if (SizeInBytes() > 0) {
    std::memcpy(copy.data_, data_, SizeInBytes());
  }
  return copy;
}

std::string Tensor::Describe() const {
  return MakeString("tensor(", ElementTypeName(type_), ")", shape_.ToString());
}

}  // namespace prism

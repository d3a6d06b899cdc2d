// A kernel's scratch array from its context's scratch allocator (OpKernelContext::TempAllocator),
// so that scratch counts at the allocator interface and the memory pattern can plan it. For
// trivially copyable element types: the memory is left uninitialized.
#pragma once

#include <cstddef>
#include <type_traits>

#include "framework/allocator.h"

namespace prism {

template <typename T>
class ScratchBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "scratch holds plain values only");

 public:
  ScratchBuffer(AllocatorPtr allocator, size_t count)
      : allocator_(std::move(allocator)),
        data_(count == 0 ? nullptr : static_cast<T*>(allocator_->Alloc(count * sizeof(T)))),
        count_(count) {}
  ~ScratchBuffer() {
    if (data_ != nullptr) allocator_->Free(data_);
  }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  T* data() { return data_; }
  size_t size() const { return count_; }

 private:
  AllocatorPtr allocator_;
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace prism

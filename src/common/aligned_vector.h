// A std::vector whose storage starts on a 64-byte boundary (a cache line, and the width of an
// AVX-512 register), for packed weights and scratch copies that kernels read with whole-vector
// loads. From a plain std::vector (glibc's malloc: 16 bytes past a page for large blocks) every
// 64-byte load straddles two cache lines, and every other 32-byte one does. (On this session's
// Golden Cove cores that cost was within noise for resnet50's 7x7 layers, whose loads are not
// bound by the load ports; the alignment is kept so that no kernel's speed depends on where
// malloc happened to place its operands.)
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace prism {

// Tag: a type of the user's, where the vector's members must not be shared with other units
// (an instruction-set unit's scratch: its instantiations would use that unit's instructions, and
// the linker may pick any unit's copy of an inline function; a tag in an anonymous namespace
// keeps them the unit's own).
template <typename T, typename Tag = void>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 64;

  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U, Tag>&) {}  // NOLINT: rebinding, as allocators must

  T* allocate(std::size_t count) {
    if (count > (static_cast<std::size_t>(-1) - kAlignment) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    void* memory = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
    if (memory == nullptr) throw std::bad_alloc();
    return static_cast<T*>(memory);
  }
  void deallocate(T* pointer, std::size_t) { std::free(pointer); }

  template <typename U>
  bool operator==(const CacheLineAllocator<U, Tag>&) const {
    return true;
  }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace prism

// Elements moved without arithmetic (Where, Expand): any type whose storage is a whole number of
// bytes moves as an opaque unit of that width, strings as std::string. Saves one instantiation
// per element type where only the width matters.
#pragma once

#include <cstddef>
#include <string>

#include "framework/tensor.h"

namespace prism::cpu {

template <size_t N>
struct StorageUnit {
  unsigned char bytes[N];
};

// Calls fn(static_cast<U*>(nullptr)) with U the unit type for elements of type (std::string for
// strings). Throws kNotImplemented naming `what` for packed sub-byte types.
template <typename Fn>
void DispatchByStorageUnit(ElementType type, const std::string& what, Fn&& fn) {
  if (type == ElementType::kString) return fn(static_cast<std::string*>(nullptr));
  const int bits = ElementBits(type);
  switch (bits) {
    case 8:
      return fn(static_cast<StorageUnit<1>*>(nullptr));
    case 16:
      return fn(static_cast<StorageUnit<2>*>(nullptr));
    case 32:
      return fn(static_cast<StorageUnit<4>*>(nullptr));
    case 64:
      return fn(static_cast<StorageUnit<8>*>(nullptr));
    case 128:
      return fn(static_cast<StorageUnit<16>*>(nullptr));
    default:
      PRISM_THROW(kNotImplemented, what, ": elements of ", ElementTypeName(type),
                  " (packed or of an unusual width) are not supported here");
  }
}

}  // namespace prism::cpu

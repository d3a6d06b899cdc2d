// Calls Fn<T>{}(args...) for the C++ type T that stores an ElementType.
//   DispatchByType<AddImpl>(tensor.Type(), "Add", a, b, out);
// Types not in the Supported list throw a clear NOT_IMPLEMENTED error naming the op.
#pragma once

#include <string>

#include "framework/tensor.h"

namespace prism::cpu {

template <typename... T>
struct TypeList {};

using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                              uint8_t, uint16_t, uint32_t, uint64_t>;

namespace detail {
template <template <typename> class Fn, typename... Args>
bool DispatchOne(ElementType, TypeList<>, Args&&...) {
  return false;
}
template <template <typename> class Fn, typename Head, typename... Tail, typename... Args>
bool DispatchOne(ElementType type, TypeList<Head, Tail...>, Args&&... args) {
  if (type == ElementTypeOf<Head>()) {
    Fn<Head>{}(std::forward<Args>(args)...);
    return true;
  }
  return DispatchOne<Fn>(type, TypeList<Tail...>{}, std::forward<Args>(args)...);
}
}  // namespace detail

template <template <typename> class Fn, typename Supported = NumericTypes, typename... Args>
void DispatchByType(ElementType type, const std::string& op, Args&&... args) {
  if (!detail::DispatchOne<Fn>(type, Supported{}, std::forward<Args>(args)...))
    PRISM_THROW(kNotImplemented, op, " has no CPU implementation for element type ",
                ElementTypeName(type));
}

}  // namespace prism::cpu

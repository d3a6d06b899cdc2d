// How a two-input elementwise node broadcasts: numpy-style from opset 7; before that by the
// legacy `broadcast`/`axis` attributes (B stretched over A, or the same shapes without
// broadcast=1). Shared by the arithmetic, comparison and logic kernels.
#pragma once

#include <optional>
#include <string>

#include "framework/op_kernel.h"
#include "providers/cpu/common/broadcast.h"

namespace prism::cpu {

// Two-input elementwise ops take one element type: a clear error naming the node otherwise.
inline void RequireOneType(const Tensor& a, const Tensor& b, const std::string& what,
                           const char* first = "A", const char* second = "B") {
  PRISM_ENFORCE(a.Type() == b.Type(), kInvalidArgument, what, ": inputs ", first, " and ", second,
                " must have one element type, got ", ElementTypeName(a.Type()), " and ",
                ElementTypeName(b.Type()));
}

class BinaryBroadcastRule {
 public:
  explicit BinaryBroadcastRule(const OpKernelInfo& info) {
    legacy_ = info.GetNode().OpsetVersion() < 7;
    if (legacy_) {
      legacy_broadcast_ = info.IntOr("broadcast", 0) != 0;
      if (info.HasAttr("axis")) legacy_axis_ = info.Int("axis");
    }
  }

  // what names the node in errors, first and second its inputs ("A", "B").
  Broadcaster Plan(const TensorShape& a, const TensorShape& b, const std::string& what,
                   const char* first = "A", const char* second = "B") const {
    if (!legacy_) return Broadcaster({a, b}, what);
    if (!legacy_broadcast_) {
      PRISM_ENFORCE(a == b, kInvalidArgument, what, ": without broadcast=1 (opset < 7) ", first,
                    " and ", second, " must have the same shape, got ", a.ToString(), " and ",
                    b.ToString());
      return Broadcaster({a, b}, what);
    }
    return Broadcaster({a, LegacyBroadcastShape(a, b, legacy_axis_, what)}, what);
  }

 private:
  bool legacy_ = false;
  bool legacy_broadcast_ = false;
  std::optional<int64_t> legacy_axis_;
};

}  // namespace prism::cpu

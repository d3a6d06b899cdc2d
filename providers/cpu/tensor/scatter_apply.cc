#include "providers/cpu/tensor/scatter_apply.h"

#include <algorithm>
#include <complex>
#include <type_traits>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct ReduceApply {
  void operator()(Tensor& output, const Tensor& updates, const std::vector<ScatterMove>& moves,
                  int64_t count, ScatterReduction reduction, const Node& node) const {
    constexpr bool kComplex =
        std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
    if constexpr (kComplex) {
      PRISM_ENFORCE(reduction == ScatterReduction::kAdd || reduction == ScatterReduction::kMul,
                    kInvalidArgument, node.Describe(),
                    ": reduction 'max'/'min' is not defined for complex elements");
    }
    T* out = output.MutableData<T>();
    const T* upd = updates.Data<T>();
    for (const ScatterMove& move : moves) {
      T* dst = out + move.output_offset;
      const T* src = upd + move.update_offset;
      for (int64_t i = 0; i < count; ++i) dst[i] = Combine(dst[i], src[i], reduction);
    }
  }

  static T Combine(T a, T b, ScatterReduction reduction) {
    if constexpr (std::is_same_v<T, bool>) {
      const bool either =
          reduction == ScatterReduction::kAdd || reduction == ScatterReduction::kMax;
      return either ? (a || b) : (a && b);
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      return reduction == ScatterReduction::kAdd ? a + b : a * b;
    } else {
      using C = ComputeTypeOf<T>;
      const C x = ToCompute(a), y = ToCompute(b);
      switch (reduction) {
        case ScatterReduction::kAdd:
          return FromCompute<T>(static_cast<C>(x + y));
        case ScatterReduction::kMul:
          return FromCompute<T>(static_cast<C>(x * y));
        case ScatterReduction::kMax:
          return FromCompute<T>(std::max(x, y));
        case ScatterReduction::kMin:
          return FromCompute<T>(std::min(x, y));
        case ScatterReduction::kNone:
          break;
      }
      return b;
    }
  }
};

}  // namespace

ScatterReduction ReadScatterReduction(const OpKernelInfo& info) {
  const std::string name = info.StringOr("reduction", "none");
  const int opset = info.GetNode().OpsetVersion();
  if (name == "none") return ScatterReduction::kNone;
  if (name == "add" && opset >= 16) return ScatterReduction::kAdd;
  if (name == "mul" && opset >= 16) return ScatterReduction::kMul;
  if (name == "max" && opset >= 18) return ScatterReduction::kMax;
  if (name == "min" && opset >= 18) return ScatterReduction::kMin;
  PRISM_THROW(kInvalidArgument, info.GetNode().Describe(), ": reduction '", name,
              "' is not defined at opset ", opset,
              opset >= 18   ? " (expected none, add, mul, max or min)"
              : opset >= 16 ? " (expected none, add or mul)"
                            : " (only 'none' before opset 16)");
}

void ApplyScatter(Tensor& output, const Tensor& updates, const std::vector<ScatterMove>& moves,
                  int64_t count, ScatterReduction reduction, const Node& node) {
  if (reduction == ScatterReduction::kNone) {
    for (const ScatterMove& move : moves)
      CopyElements(updates, move.update_offset, output, move.output_offset, count);
    return;
  }
  PRISM_ENFORCE(output.Type() != ElementType::kString, kInvalidArgument, node.Describe(),
                ": reductions are not defined for string elements");
  DispatchByType<ReduceApply, TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                       int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool,
                                       std::complex<float>, std::complex<double>>>(
      output.Type(), node.OpType(), output, updates, moves, count, reduction, node);
}

}  // namespace prism::cpu

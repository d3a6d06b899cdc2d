// IsNaN and IsInf (detect_positive / detect_negative): bool outputs of X's shape. float16 and
// bfloat16 decode to float; the float8 formats of opset 20 are decoded from their bits (the FN
// and FNUZ formats have no infinity, so IsInf is false for every one of their values).
#include <cmath>
#include <functional>
#include <vector>

#include "framework/float8.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using WideFloats = TypeList<float, double, Float16, BFloat16>;
using Classifier = std::function<bool(double)>;

template <typename T>
struct ClassifyDispatch {
  void operator()(const Tensor& x, bool* out, const Classifier& test) const {
    const T* in = x.Data<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i)
      out[i] = test(static_cast<double>(ToCompute(in[i])));
  }
};

void Classify(const Tensor& x, Tensor& y, const char* op, const Classifier& test) {
  bool* out = y.MutableData<bool>();
  if (IsNarrowFloat(x.Type())) {
    const auto* bits = static_cast<const uint8_t*>(x.RawData());
    for (int64_t i = 0; i < x.NumElements(); ++i)
      out[i] = test(static_cast<double>(NarrowFloatToFloat(x.Type(), bits[i])));
    return;
  }
  DispatchByType<ClassifyDispatch, WideFloats>(x.Type(), op, x, out, test);
}

class IsNaN final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), ElementType::kBool);
    Classify(x, y, "IsNaN", [](double v) { return std::isnan(v); });
  }
};

class IsInf final : public OpKernel {
 public:
  explicit IsInf(const OpKernelInfo& info)
      : OpKernel(info),
        positive_(info.IntOr("detect_positive", 1) != 0),
        negative_(info.IntOr("detect_negative", 1) != 0) {}
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), ElementType::kBool);
    const bool positive = positive_, negative = negative_;
    Classify(x, y, "IsInf", [positive, negative](double v) {
      return std::isinf(v) && (v > 0 ? positive : negative);
    });
  }

 private:
  bool positive_;
  bool negative_;
};

void RegisterIsNanInfKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> float8 = {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2,
                                 E::kFloat8E5M2FNUZ};
  const auto add = [&](const char* op, KernelFactory factory, int since, int end,
                       std::vector<E> types) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(since, end)
                          .Constraint("T1", std::move(types), {0})
                          .Constraint("T2", {E::kBool}, {}, {0})
                          .Build(),
                      factory);
  };
  std::vector<E> all20 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  all20.insert(all20.end(), float8.begin(), float8.end());
  const auto is_nan = MakeKernelFactory<IsNaN>();
  add("IsNaN", is_nan, 9, 12, {E::kFloat16, E::kFloat, E::kDouble});
  add("IsNaN", is_nan, 13, 19, {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16});
  add("IsNaN", is_nan, 20, INT_MAX, all20);
  const auto is_inf = MakeKernelFactory<IsInf>();
  add("IsInf", is_inf, 10, 19, {E::kFloat, E::kDouble});
  add("IsInf", is_inf, 20, INT_MAX, all20);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_is_nan_inf, RegisterIsNanInfKernels);

}  // namespace prism::cpu

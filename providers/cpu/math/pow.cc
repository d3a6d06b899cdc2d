// Pow: X ^ Y elementwise, the result having X's type. From opset 12 the exponent may have
// another type (T1) than the base (T):
// - floating base: computed in double (float for float16/bfloat16 bases) with std::pow;
// - integer base, integer exponent: exact repeated squaring that wraps on overflow; negative
//   exponents give the truncated quotient 1 / X^-Y (0 unless |X| = 1), and 0 to a negative
//   power is rejected like an integer division by zero;
// - integer base, floating exponent: std::pow in double, truncated toward zero and saturated
//   at the base type's limits (NaN gives 0).
// Opset 1-6 use the legacy `broadcast`/`axis` attributes, opset 7+ numpy broadcasting.
#include <cmath>
#include <optional>

#include "common/thread_pool.h"
#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/element_compute.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using PowBaseTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t>;

// |base| ^ exponent for an exponent >= 0, wrapping like repeated multiplication.
template <typename T>
T IntegerPower(T base, uint64_t exponent) {
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1u) result = math::WrapMul(result, base);
    exponent >>= 1;
    if (exponent != 0) base = math::WrapMul(base, base);
  }
  return result;
}

template <typename T, typename E>
struct ApplyPow {
  const Node* node;

  T operator()(T x, E y) const {
    if constexpr (!std::is_integral_v<T>) {
      // float16/bfloat16 bases compute in float (std::pow(float, float)), wider ones in double.
      using C = std::conditional_t<kIsHalfType<T>, float, double>;
      return FromCompute<T>(std::pow(static_cast<C>(ToCompute(x)), static_cast<C>(ToCompute(y))));
    } else if constexpr (std::is_integral_v<E>) {
      if constexpr (std::is_signed_v<E>) {
        if (y < 0) {
          if (x == 0)
            PRISM_THROW(kInvalidArgument, node->Describe(), ": 0 raised to the negative integer ",
                        "power ", static_cast<int64_t>(y));
          if (x == 1) return 1;
          if (x == -1) return (y % 2 == 0) ? T{1} : T{-1};
          return 0;  // 1 / x^n truncated toward zero
        }
      }
      return IntegerPower<T>(x, static_cast<uint64_t>(y));
    } else {
      return math::SaturatingFloatToInt<T>(
          std::pow(static_cast<double>(x), static_cast<double>(ToCompute(y))));
    }
  }
};

template <typename T>
struct PowByBase {
  template <typename E>
  struct Fn {
    void operator()(const Broadcaster& plan, const Tensor& x, const Tensor& y, Tensor& out,
                    const Node& node, ThreadPool* pool) const {
      BroadcastBinary(plan, x.Data<T>(), y.Data<E>(), out.MutableData<T>(), ApplyPow<T, E>{&node},
                      pool);
    }
  };
};

template <typename T>
struct PowDispatch {
  void operator()(const Broadcaster& plan, const Tensor& x, const Tensor& y, Tensor& out,
                  const Node& node, ThreadPool* pool) const {
    DispatchByType<PowByBase<T>::template Fn>(y.Type(), "Pow (exponent)", plan, x, y, out, node,
                                              pool);
  }
};

class Pow final : public OpKernel {
 public:
  explicit Pow(const OpKernelInfo& info) : OpKernel(info), rule_(info) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& y = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    if (GetNode().OpsetVersion() < 12) {
      PRISM_ENFORCE(x.Type() == y.Type(), kInvalidArgument, what, ": before opset 12 X and Y ",
                    "must have one element type, got ", ElementTypeName(x.Type()), " and ",
                    ElementTypeName(y.Type()));
    }
    const Broadcaster plan = rule_.Plan(x.Shape(), y.Shape(), what, "X", "Y");
    Tensor& out = context.Output(0, plan.OutputShape(), x.Type());
    DispatchByType<PowDispatch, PowBaseTypes>(x.Type(), "Pow", plan, x, y, out, GetNode(),
                                              context.IntraOpThreadPool());
  }

 private:
  BinaryBroadcastRule rule_;
};

void RegisterPowKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<Pow>();
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  registry.Register(
      KernelDefBuilder("Pow").Versions(1, 6).Constraint("T", floats, {0, 1}, {0}).Build(), factory);
  registry.Register(
      KernelDefBuilder("Pow").Versions(7, 11).Constraint("T", floats, {0, 1}, {0}).Build(),
      factory);
  const std::vector<E> base12 = {E::kFloat16, E::kFloat, E::kDouble, E::kInt32, E::kInt64};
  std::vector<E> base13 = base12;
  base13.push_back(E::kBFloat16);
  const std::vector<E> exponent12 = {E::kFloat16, E::kFloat,  E::kDouble, E::kInt8,
                                     E::kInt16,   E::kInt32,  E::kInt64,  E::kUint8,
                                     E::kUint16,  E::kUint32, E::kUint64};
  std::vector<E> exponent15 = exponent12;
  exponent15.push_back(E::kBFloat16);
  const auto add = [&](int since, int end, const std::vector<E>& base,
                       const std::vector<E>& exponent) {
    registry.Register(KernelDefBuilder("Pow")
                          .Versions(since, end)
                          .Constraint("T", base, {0}, {0})
                          .Constraint("T1", exponent, {1})
                          .Build(),
                      factory);
  };
  add(12, 12, base12, exponent12);
  add(13, 14, base13, exponent12);
  add(15, INT_MAX, base13, exponent15);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_pow, RegisterPowKernels);

}  // namespace prism::cpu

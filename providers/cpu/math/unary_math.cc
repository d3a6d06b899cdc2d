// Elementwise unary math: Sqrt, Exp, Erf, Sigmoid, Tanh, Relu. Output has the input's shape
// and type; float16/bfloat16 compute in float. Relu keeps NaN (max(NaN, 0) is NaN in ONNX).
// Erf opset 9-12 also accepts integers: erf is computed in double and truncated toward zero.
#include <cmath>
#include <tuple>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/element_compute.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

struct SqrtFn {
  static constexpr const char* kName = "Sqrt";
  using Types = FloatTypes;
  template <typename C>
  C operator()(C x) const {
    return std::sqrt(x);
  }
};

struct ExpFn {
  static constexpr const char* kName = "Exp";
  using Types = FloatTypes;
  template <typename C>
  C operator()(C x) const {
    return std::exp(x);
  }
};

struct ErfFn {
  static constexpr const char* kName = "Erf";
  using Types = NumericTypes;
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      return math::SaturatingFloatToInt<C>(std::erf(static_cast<double>(x)));
    } else {
      return std::erf(x);
    }
  }
};

struct SigmoidFn {
  static constexpr const char* kName = "Sigmoid";
  using Types = FloatTypes;
  template <typename C>
  C operator()(C x) const {
    // Split by sign so exp never overflows: both halves stay within [0, 1].
    if (x >= C{0}) return C{1} / (C{1} + std::exp(-x));
    const C e = std::exp(x);
    return e / (C{1} + e);
  }
};

struct TanhFn {
  static constexpr const char* kName = "Tanh";
  using Types = FloatTypes;
  template <typename C>
  C operator()(C x) const {
    return std::tanh(x);
  }
};

struct ReluFn {
  static constexpr const char* kName = "Relu";
  using Types = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;
  template <typename C>
  C operator()(C x) const {
    return x < C{0} ? C{0} : x;
  }  // NaN compares false: kept
};

template <typename Op>
struct UnaryDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Tensor& x, Tensor& y, ThreadPool* pool) const {
      const T* in = x.Data<T>();
      T* out = y.MutableData<T>();
      const Op op;
      // Transcendentals cost tens of operations per element, Relu one: kUnitCost is a middle.
      constexpr double kUnitCost = 8.0;
      ThreadPool::TryParallelFor(pool, x.NumElements(), kUnitCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = FromCompute<T>(op(ToCompute(in[i])));
      });
    }
  };
};

template <typename Op>
class UnaryMath final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<UnaryDispatch<Op>::template Fn, typename Op::Types>(x.Type(), Op::kName, x, y,
                                                                       context.IntraOpThreadPool());
  }
};

template <typename Op>
void RegisterUnary(KernelRegistry& registry,
                   const std::vector<std::tuple<int, int, std::vector<ElementType>>>& ranges) {
  const auto factory = MakeKernelFactory<UnaryMath<Op>>();
  for (const auto& [since, end, types] : ranges) {
    registry.Register(KernelDefBuilder(Op::kName)
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .MayInplace(0, 0)
                          .Build(),
                      factory);
  }
}

void RegisterUnaryMathKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  // Versions 1-5 (consumed_inputs attribute), 6-12, 13+ (bfloat16 added).
  const std::vector<std::tuple<int, int, std::vector<E>>> classic = {
      {1, 5, floats}, {6, 12, floats}, {13, INT_MAX, floats_bf16}};
  RegisterUnary<SqrtFn>(registry, classic);
  RegisterUnary<ExpFn>(registry, classic);
  RegisterUnary<SigmoidFn>(registry, classic);
  RegisterUnary<TanhFn>(registry, classic);

  std::vector<E> relu14 = floats_bf16;
  for (E e : {E::kInt8, E::kInt16, E::kInt32, E::kInt64}) relu14.push_back(e);
  RegisterUnary<ReluFn>(
      registry, {{1, 5, floats}, {6, 12, floats}, {13, 13, floats_bf16}, {14, INT_MAX, relu14}});

  std::vector<E> erf9 = floats;
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    erf9.push_back(e);
  RegisterUnary<ErfFn>(registry, {{9, 12, erf9}, {13, INT_MAX, floats_bf16}});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_unary, RegisterUnaryMathKernels);

}  // namespace prism::cpu

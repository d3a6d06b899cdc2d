// Elementwise unary math: Sqrt, Exp, Erf, Sigmoid, Tanh, Relu, Abs, Neg, Sign, Ceil, Floor,
// Round, Reciprocal, Log, the trigonometric and hyperbolic functions and their inverses,
// Softsign, Softplus. Output has the input's shape and type; float16/bfloat16 compute in float.
// Relu keeps NaN (max(NaN, 0) is NaN in ONNX). Erf opset 9-12 also accepts integers: erf is
// computed in double and truncated toward zero. Integer Abs and Neg wrap as two's complement
// (Abs(-128) is -128 in int8, as numpy gives).
#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/element_compute.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

// float: the dispatched kernel (one instruction a vector on the AVX levels, equal results).
template <int kKind>
void RoundingF32(const float* in, float* out, int64_t count) {
  mlas::ActiveKernels().activation_f32(in, out, count, kKind, 0.0f, 0.0f);
}

struct SqrtFn {
  static constexpr const char* kName = "Sqrt";
  using Types = FloatTypes;
  static void ComputeF32(const float* in, float* out, int64_t count) {
    RoundingF32<mlas::kUnarySqrt>(in, out, count);
  }
  template <typename C>
  C operator()(C x) const {
    return std::sqrt(x);
  }
};

struct ExpFn {
  static constexpr const char* kName = "Exp";
  using Types = FloatTypes;
  // float: the dispatched vector kernel (within 2 ulp; std::exp per element costs ~10x more).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().exp_f32(in, out, count);
  }
  template <typename C>
  C operator()(C x) const {
    return std::exp(x);
  }
};

struct ErfFn {
  static constexpr const char* kName = "Erf";
  using Types = NumericTypes;
  // float: the dispatched vector kernel (within 3e-7 of erf; std::erf costs ~30x more).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().erf_f32(in, out, count);
  }
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
  // float: the dispatched vector kernel (within 4 ulp, no overflow on either side).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().sigmoid_f32(in, out, count);
  }
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
  // float: the dispatched vector kernel (within 3e-7 relative).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().tanh_f32(in, out, count);
  }
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

// An integer's negation modulo 2^bits (no undefined behaviour for the minimum value).
template <typename C>
C WrappingNegate(C x) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(U{0} - static_cast<U>(x));
}

using SignedTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;

struct AbsFn {
  static constexpr const char* kName = "Abs";
  using Types = NumericTypes;
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C{0} ? WrappingNegate(x) : x;
  }
};

struct NegFn {
  static constexpr const char* kName = "Neg";
  using Types = SignedTypes;
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return -x;
    else
      return WrappingNegate(x);
  }
};

struct SignFn {
  static constexpr const char* kName = "Sign";
  using Types = NumericTypes;
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;  // numpy's sign(NaN) is NaN
    }
    if (x > C{0}) return C{1};
    if (x < C{0}) return static_cast<C>(-1);
    return C{0};
  }
};

struct LogFn {
  static constexpr const char* kName = "Log";
  using Types = FloatTypes;
  // float: the dispatched vector kernel (within 2 ulp, denormals included).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().log_f32(in, out, count);
  }
  template <typename C>
  C operator()(C x) const {
    return std::log(x);
  }
};

// Float-only functions: one struct per op, named after it.
#define PRISM_FLOAT_UNARY(Name, expression)     \
  struct Name##Fn {                             \
    static constexpr const char* kName = #Name; \
    using Types = FloatTypes;                   \
    template <typename C>                       \
    C operator()(C x) const {                   \
      return expression;                        \
    }                                           \
  };

// Ceil, Floor and Round (halves to even, as ONNX (numpy.round) specifies: nearbyint in the
// default rounding mode) with their float kernels.
#define PRISM_ROUNDING_UNARY(Name, kind, expression)                     \
  struct Name##Fn {                                                      \
    static constexpr const char* kName = #Name;                          \
    using Types = FloatTypes;                                            \
    static void ComputeF32(const float* in, float* out, int64_t count) { \
      RoundingF32<kind>(in, out, count);                                 \
    }                                                                    \
    template <typename C>                                                \
    C operator()(C x) const {                                            \
      return expression;                                                 \
    }                                                                    \
  };

PRISM_ROUNDING_UNARY(Ceil, mlas::kUnaryCeil, std::ceil(x))
PRISM_ROUNDING_UNARY(Floor, mlas::kUnaryFloor, std::floor(x))
PRISM_ROUNDING_UNARY(Round, mlas::kUnaryRound, std::nearbyint(x))
#undef PRISM_ROUNDING_UNARY
PRISM_FLOAT_UNARY(Reciprocal, C{1} / x)
PRISM_FLOAT_UNARY(Sin, std::sin(x))
PRISM_FLOAT_UNARY(Cos, std::cos(x))
PRISM_FLOAT_UNARY(Tan, std::tan(x))
PRISM_FLOAT_UNARY(Asin, std::asin(x))
PRISM_FLOAT_UNARY(Acos, std::acos(x))
PRISM_FLOAT_UNARY(Atan, std::atan(x))
PRISM_FLOAT_UNARY(Sinh, std::sinh(x))
PRISM_FLOAT_UNARY(Cosh, std::cosh(x))
PRISM_FLOAT_UNARY(Asinh, std::asinh(x))
PRISM_FLOAT_UNARY(Acosh, std::acosh(x))
PRISM_FLOAT_UNARY(Atanh, std::atanh(x))
PRISM_FLOAT_UNARY(Softsign, x / (C{1} + std::fabs(x)))
#undef PRISM_FLOAT_UNARY

struct SoftplusFn {
  static constexpr const char* kName = "Softplus";
  using Types = FloatTypes;
  // float: the dispatched vector kernel (within 5e-7 relative; std::log1p and std::exp per
  // element cost about 10x more).
  static void ComputeF32(const float* in, float* out, int64_t count) {
    mlas::ActiveKernels().activation_f32(in, out, count, mlas::kUnarySoftplus, 0.0f, 0.0f);
  }
  // log(1 + e^x) without overflow: for x > 0 it is x + log(1 + e^-x).
  template <typename C>
  C operator()(C x) const {
    return x > C{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};

// Ops with a vectorized float kernel (ComputeF32) use it for float tensors.
template <typename Op>
concept HasComputeF32 = requires(const float* in, float* out, int64_t count) {
  Op::ComputeF32(in, out, count);
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
      if constexpr (std::is_same_v<T, float> && HasComputeF32<Op>) {
        ThreadPool::TryParallelFor(pool, x.NumElements(), 2.0, [&](int64_t begin, int64_t end) {
          Op::ComputeF32(in + begin, out + begin, end - begin);
        });
        return;
      }
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

  // Abs and Sign: every numeric type from 6 (Sign: 9); bfloat16 from 13.
  std::vector<E> numeric6 = floats;
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    numeric6.push_back(e);
  std::vector<E> numeric13 = numeric6;
  numeric13.push_back(E::kBFloat16);
  RegisterUnary<AbsFn>(registry, {{1, 5, floats}, {6, 12, numeric6}, {13, INT_MAX, numeric13}});
  RegisterUnary<SignFn>(registry, {{9, 12, numeric6}, {13, INT_MAX, numeric13}});
  std::vector<E> signed6 = floats;
  for (E e : {E::kInt8, E::kInt16, E::kInt32, E::kInt64}) signed6.push_back(e);
  std::vector<E> signed13 = signed6;
  signed13.push_back(E::kBFloat16);
  RegisterUnary<NegFn>(registry, {{1, 5, floats}, {6, 12, signed6}, {13, INT_MAX, signed13}});

  RegisterUnary<CeilFn>(registry, classic);
  RegisterUnary<FloorFn>(registry, classic);
  RegisterUnary<ReciprocalFn>(registry, classic);
  RegisterUnary<LogFn>(registry, classic);
  RegisterUnary<RoundFn>(registry, {{11, 21, floats}, {22, INT_MAX, floats_bf16}});
  // Introduced at 7 (trigonometric), 9 (hyperbolic) or 1 (Softsign, Softplus); bfloat16 at 22.
  const auto from = [&](int since) {
    return std::vector<std::tuple<int, int, std::vector<E>>>{{since, 21, floats},
                                                             {22, INT_MAX, floats_bf16}};
  };
  RegisterUnary<SinFn>(registry, from(7));
  RegisterUnary<CosFn>(registry, from(7));
  RegisterUnary<TanFn>(registry, from(7));
  RegisterUnary<AsinFn>(registry, from(7));
  RegisterUnary<AcosFn>(registry, from(7));
  RegisterUnary<AtanFn>(registry, from(7));
  RegisterUnary<SinhFn>(registry, from(9));
  RegisterUnary<CoshFn>(registry, from(9));
  RegisterUnary<AsinhFn>(registry, from(9));
  RegisterUnary<AcoshFn>(registry, from(9));
  RegisterUnary<AtanhFn>(registry, from(9));
  RegisterUnary<SoftsignFn>(registry, from(1));
  RegisterUnary<SoftplusFn>(registry, from(1));
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_unary, RegisterUnaryMathKernels);

}  // namespace prism::cpu

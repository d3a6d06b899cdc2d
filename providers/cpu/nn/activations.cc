// Activations with attributes: Celu, Elu, Gelu (exact and tanh approximation), HardSigmoid,
// HardSwish, LeakyRelu, Mish, Selu, Shrink, ThresholdedRelu, Swish, and PRelu (a slope tensor
// broadcast to X). Output has X's shape and type; float16/bfloat16 compute in float, double in
// double; float tensors of the float activations run the dispatched vector kernels
// (mlas::IsaKernels::activation_f32, gelu_erf_f32, gelu_tanh_f32, quick_gelu_f32). Shrink also
// takes integers: computed in double, truncated back toward zero.
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/common/broadcast.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

struct CeluFn {
  static constexpr const char* kName = "Celu";
  using Types = FloatTypes;
  explicit CeluFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha);
    if (x != x) return x;  // NaN stays NaN (std::max/min would drop it)
    return std::max(C{0}, x) + std::min(C{0}, a * (std::exp(x / a) - C{1}));
  }
  float alpha;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryCelu, alpha, 0.0f);
  }
};

struct EluFn {
  static constexpr const char* kName = "Elu";
  using Types = FloatTypes;
  explicit EluFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    return x < C{0} ? static_cast<C>(alpha) * (std::exp(x) - C{1}) : x;
  }
  float alpha;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryElu, alpha, 0.0f);
  }
};

struct GeluFn {
  static constexpr const char* kName = "Gelu";
  using Types = FloatTypes;
  explicit GeluFn(const OpKernelInfo& info) {
    const std::string approximate = info.StringOr("approximate", "none");
    PRISM_ENFORCE(approximate == "none" || approximate == "tanh", kInvalidArgument,
                  info.GetNode().Describe(), ": Gelu approximate must be 'none' or 'tanh', got '",
                  approximate, "'");
    use_tanh = approximate == "tanh";
  }
  template <typename C>
  C operator()(C x) const {
    if (use_tanh) {
      const C k = static_cast<C>(0.7978845608028654);  // sqrt(2 / pi)
      return C{0.5} * x * (C{1} + std::tanh(k * (x + static_cast<C>(0.044715) * x * x * x)));
    }
    return C{0.5} * x * (C{1} + std::erf(x * static_cast<C>(0.7071067811865476)));  // 1/sqrt(2)
  }
  bool use_tanh = false;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    if (use_tanh)
      mlas::ActiveKernels().gelu_tanh_f32(src, dst, count);
    else
      mlas::ActiveKernels().gelu_erf_f32(src, nullptr, dst, count);
  }
};

struct HardSigmoidFn {
  static constexpr const char* kName = "HardSigmoid";
  using Types = FloatTypes;
  explicit HardSigmoidFn(const OpKernelInfo& info)
      : alpha(info.FloatOr("alpha", 0.2f)), beta(info.FloatOr("beta", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    const C y = static_cast<C>(alpha) * x + static_cast<C>(beta);
    if (y != y) return y;  // NaN stays NaN (std::max/min would clamp it)
    return std::max(C{0}, std::min(C{1}, y));
  }
  float alpha, beta;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryHardSigmoid, alpha, beta);
  }
};

struct HardSwishFn {
  static constexpr const char* kName = "HardSwish";
  using Types = FloatTypes;
  explicit HardSwishFn(const OpKernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return x * std::max(C{0}, std::min(C{1}, x / C{6} + C{0.5}));
  }
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryHardSwish, 0.0f, 0.0f);
  }
};

struct LeakyReluFn {
  static constexpr const char* kName = "LeakyRelu";
  using Types = FloatTypes;
  explicit LeakyReluFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 0.01f)) {}
  template <typename C>
  C operator()(C x) const {
    return x < C{0} ? static_cast<C>(alpha) * x : x;
  }
  float alpha;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryLeakyRelu, alpha, 0.0f);
  }
};

struct MishFn {
  static constexpr const char* kName = "Mish";
  using Types = FloatTypes;
  explicit MishFn(const OpKernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    const C softplus = x > C{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    return x * std::tanh(softplus);
  }
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryMish, 0.0f, 0.0f);
  }
};

struct SeluFn {
  static constexpr const char* kName = "Selu";
  using Types = FloatTypes;
  // Opset 1 had rounder defaults than opset 6 and later.
  explicit SeluFn(const OpKernelInfo& info)
      : alpha(info.FloatOr(
            "alpha", info.GetNode().OpsetVersion() < 6 ? 1.6732f : 1.67326319217681884765625f)),
        gamma(info.FloatOr(
            "gamma", info.GetNode().OpsetVersion() < 6 ? 1.0507f : 1.05070102214813232421875f)) {}
  template <typename C>
  C operator()(C x) const {
    const C g = static_cast<C>(gamma);
    return x > C{0} ? g * x : g * (static_cast<C>(alpha) * std::exp(x) - static_cast<C>(alpha));
  }
  float alpha, gamma;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnarySelu, alpha, gamma);
  }
};

struct ShrinkFn {
  static constexpr const char* kName = "Shrink";
  using Types = NumericTypes;
  explicit ShrinkFn(const OpKernelInfo& info)
      : bias(info.FloatOr("bias", 0.0f)), lambd(info.FloatOr("lambd", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    const double v = static_cast<double>(x);
    double y = 0;
    if (v < -static_cast<double>(lambd))
      y = v + static_cast<double>(bias);
    else if (v > static_cast<double>(lambd))
      y = v - static_cast<double>(bias);
    if constexpr (std::is_integral_v<C>) {
      // A bias beyond the integer type's range would make the conversion undefined behaviour
      // (found by the model fuzzer: bias 1e31 on int16): the result saturates instead.
      if (std::isnan(y)) return C{0};
      if (y <= static_cast<double>(std::numeric_limits<C>::lowest()))
        return std::numeric_limits<C>::lowest();
      if (y >= static_cast<double>(std::numeric_limits<C>::max()))
        return std::numeric_limits<C>::max();
    }
    return static_cast<C>(y);
  }
  float bias, lambd;
};

struct ThresholdedReluFn {
  static constexpr const char* kName = "ThresholdedRelu";
  using Types = FloatTypes;
  explicit ThresholdedReluFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    return x > static_cast<C>(alpha) ? x : C{0};
  }
  float alpha;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().activation_f32(src, dst, count, mlas::kUnaryThresholdedRelu, alpha, 0.0f);
  }
};

struct SwishFn {
  static constexpr const char* kName = "Swish";
  using Types = FloatTypes;
  explicit SwishFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    const C z = static_cast<C>(alpha) * x;
    // Sigmoid split by sign so exp never overflows.
    const C sigmoid = z >= C{0} ? C{1} / (C{1} + std::exp(-z)) : std::exp(z) / (C{1} + std::exp(z));
    return x * sigmoid;
  }
  float alpha;
  void VectorF32(const float* src, float* dst, int64_t count) const {
    mlas::ActiveKernels().quick_gelu_f32(src, dst, count, alpha);
  }
};

// An op with a float vector kernel (VectorF32: the dispatched mlas kernels) runs it on float
// tensors, in chunks over the intra-op pool; the other types compute element by element.
template <typename Op>
concept HasVectorF32 = requires(const Op& op, const float* src, float* dst) {
  op.VectorF32(src, dst, int64_t{0});
};

template <typename Op>
struct ActivationDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Op& op, const Tensor& x, Tensor& y, ThreadPool* pool) const {
      const T* in = x.Data<T>();
      T* out = y.MutableData<T>();
      if constexpr (std::is_same_v<T, float> && HasVectorF32<Op>) {
        constexpr double kVectorUnitCost = 4.0;
        ThreadPool::TryParallelFor(pool, x.NumElements(), kVectorUnitCost,
                                   [&](int64_t begin, int64_t end) {
                                     op.VectorF32(in + begin, out + begin, end - begin);
                                   });
        return;
      }
      constexpr double kUnitCost = 8.0;
      ThreadPool::TryParallelFor(pool, x.NumElements(), kUnitCost, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = FromCompute<T>(op(ToCompute(in[i])));
      });
    }
  };
};

template <typename Op>
class Activation final : public OpKernel {
 public:
  explicit Activation(const OpKernelInfo& info) : OpKernel(info), op_(info) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<ActivationDispatch<Op>::template Fn, typename Op::Types>(
        x.Type(), Op::kName, op_, x, y, context.IntraOpThreadPool());
  }

 private:
  Op op_;
};

// PRelu: y = x < 0 ? slope * x : x, the slope broadcast to X's shape (it may not grow X).
template <typename T>
struct PReluDispatch {
  void operator()(const Broadcaster& plan, const Tensor& x, const Tensor& slope, Tensor& y,
                  ThreadPool* pool) const {
    BroadcastBinary(
        plan, x.Data<T>(), slope.Data<T>(), y.MutableData<T>(),
        [](T a, T s) {
          const auto v = ToCompute(a);
          return v < decltype(v){0} ? FromCompute<T>(ToCompute(s) * v) : a;
        },
        pool);
  }
};

class PRelu final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& slope = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    PRISM_ENFORCE(x.Type() == slope.Type(), kInvalidArgument, what,
                  ": X and slope must have one element type, got ", ElementTypeName(x.Type()),
                  " and ", ElementTypeName(slope.Type()));
    const Broadcaster plan({x.Shape(), slope.Shape()}, what);
    PRISM_ENFORCE(plan.OutputShape() == x.Shape(), kInvalidArgument, what, ": slope ",
                  slope.Shape().ToString(), " must broadcast to X ", x.Shape().ToString(),
                  " without growing it");
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<PReluDispatch>(x.Type(), "PRelu", plan, x, slope, y,
                                  context.IntraOpThreadPool());
  }
};

template <typename Op>
void Register(KernelRegistry& registry,
              const std::vector<std::tuple<int, int, std::vector<ElementType>>>& ranges) {
  const auto factory = MakeKernelFactory<Activation<Op>>();
  for (const auto& [since, end, types] : ranges)
    registry.Register(KernelDefBuilder(Op::kName)
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .MayInplace(0, 0)
                          .Build(),
                      factory);
}

void RegisterActivationKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  Register<CeluFn>(registry, {{12, 27, {E::kFloat}}, {28, INT_MAX, floats_bf16}});
  Register<EluFn>(registry, {{1, 5, floats}, {6, 21, floats}, {22, INT_MAX, floats_bf16}});
  Register<GeluFn>(registry, {{20, INT_MAX, floats_bf16}});
  Register<HardSigmoidFn>(registry, {{1, 5, floats}, {6, 21, floats}, {22, INT_MAX, floats_bf16}});
  Register<HardSwishFn>(registry, {{14, 21, floats}, {22, INT_MAX, floats_bf16}});
  Register<LeakyReluFn>(registry, {{1, 5, floats}, {6, 15, floats}, {16, INT_MAX, floats_bf16}});
  Register<MishFn>(registry, {{18, 21, floats}, {22, INT_MAX, floats_bf16}});
  Register<SeluFn>(registry, {{1, 5, floats}, {6, 21, floats}, {22, INT_MAX, floats_bf16}});
  std::vector<E> numeric = floats;
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    numeric.push_back(e);
  Register<ShrinkFn>(registry, {{9, INT_MAX, numeric}});
  Register<ThresholdedReluFn>(registry, {{10, 21, floats}, {22, INT_MAX, floats_bf16}});
  Register<SwishFn>(registry, {{24, INT_MAX, floats_bf16}});

  std::vector<E> prelu9 = floats;
  for (E e : {E::kInt32, E::kInt64, E::kUint32, E::kUint64}) prelu9.push_back(e);
  std::vector<E> prelu16 = prelu9;
  prelu16.push_back(E::kBFloat16);
  const auto prelu = MakeKernelFactory<PRelu>();
  for (const auto& [since, end, types] : std::vector<std::tuple<int, int, std::vector<E>>>{
           {1, 5, floats}, {6, 6, floats}, {7, 8, floats}, {9, 15, prelu9}, {16, INT_MAX, prelu16}})
    registry.Register(
        KernelDefBuilder("PRelu").Versions(since, end).Constraint("T", types, {0, 1}, {0}).Build(),
        prelu);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_activations, RegisterActivationKernels);

}  // namespace prism::cpu

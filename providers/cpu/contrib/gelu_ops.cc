// com.microsoft activations (version 1), elementwise over X with an optional per-channel bias
// (1-D, X's last dim) added first:
//   Gelu       y = 0.5 x (1 + erf(x / sqrt(2)))
//   BiasGelu   Gelu(X + bias), bias required
//   FastGelu   y = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), bias optional
//   QuickGelu  y = x * sigmoid(alpha x), alpha defaults to 1.702
//   BiasAdd    Y = X + bias + skip, X and skip [N, S, C], bias [C]
// float, float16 and bfloat16 compute in float with the dispatched vector kernels of erf/erfc and
// the logistic sigmoid (mlas/isa_kernels.h; FastGelu as x sigmoid(2u), within about 1e-6
// relative plus 1.8e-7 |2u|), double with the exact library functions; rows of X are split over
// the intra-op pool.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {
namespace {

using GeluTypes = TypeList<float, double, Float16, BFloat16>;

enum class Bias { kNone, kOptional, kRequired };

// in + bias into out, which is then the kernel's input; in itself without a bias.
const float* AddBias(const float* in, const float* bias, float* out, int64_t count) {
  if (bias == nullptr) return in;
  for (int64_t i = 0; i < count; ++i) out[i] = in[i] + bias[i];
  return out;
}

struct GeluErf {
  static constexpr Bias kBias = Bias::kNone;
  explicit GeluErf(const OpKernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return C{0.5} * x * (C{1} + std::erf(x * static_cast<C>(0.7071067811865476)));  // 1/sqrt(2)
  }
  // float blocks: the dispatched kernel, which adds the bias itself (mlas/isa_kernels.h).
  static void ComputeF32(const float* in, const float* bias, float* out, int64_t count) {
    mlas::ActiveKernels().gelu_erf_f32(in, bias, out, count);
  }
};

struct BiasGeluErf : GeluErf {
  static constexpr Bias kBias = Bias::kRequired;
  using GeluErf::GeluErf;
};

struct GeluTanh {
  static constexpr Bias kBias = Bias::kOptional;
  explicit GeluTanh(const OpKernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    const C inner = static_cast<C>(0.7978845608028654) * x +           // sqrt(2 / pi)
                    static_cast<C>(0.035677408136300125) * x * x * x;  // 0.044715 sqrt(2 / pi)
    return C{0.5} * x * (C{1} + std::tanh(inner));
  }
  // float blocks: the dispatched kernel, x sigmoid(2u) (mlas/isa_kernels.h).
  static void ComputeF32(const float* in, const float* bias, float* out, int64_t count) {
    mlas::ActiveKernels().gelu_tanh_f32(AddBias(in, bias, out, count), out, count);
  }
};

struct QuickGeluFn {
  static constexpr Bias kBias = Bias::kNone;
  explicit QuickGeluFn(const OpKernelInfo& info) : alpha(info.FloatOr("alpha", 1.702f)) {}
  template <typename C>
  C operator()(C x) const {
    return x / (C{1} + std::exp(-static_cast<C>(alpha) * x));
  }
  void ComputeF32(const float* in, const float* bias, float* out, int64_t count) const {
    mlas::ActiveKernels().quick_gelu_f32(AddBias(in, bias, out, count), out, count, alpha);
  }
  float alpha;
};

template <typename Fn>
struct ActivationJob {
  const Fn* fn;
  const Tensor* x;
  const Tensor* bias;  // nullptr: none
  Tensor* y;
  int64_t channels;
  ThreadPool* pool;
};

// float and the half types use Fn::ComputeF32 (vectorized, float); double uses the exact library
// functions.
template <typename T>
struct ActivationImpl {
  template <typename Fn>
  void operator()(const ActivationJob<Fn>& job) const {
    using C = FloatComputeTypeOf<T>;
    const Tensor& x = *job.x;
    Tensor& y = *job.y;
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    const std::vector<C> bias = job.bias != nullptr ? Widen<T>(*job.bias) : std::vector<C>();
    const int64_t channels = job.channels;
    const int64_t rows = x.NumElements() / channels;
    const Fn& fn = *job.fn;
    // in (+ bias) -> out over count floats (in may be out): Fn's dispatched vector kernel.
    const auto fast = [&fn](const float* from, const float* add, float* to, int64_t count) {
      fn.ComputeF32(from, add, to, count);
    };
    ThreadPool::TryParallelFor(
        job.pool, rows, 8.0 * static_cast<double>(channels), [&](int64_t first, int64_t last) {
          if constexpr (std::is_same_v<T, float>) {
            if (bias.empty()) {  // the rows are one flat run
              fast(in + first * channels, nullptr, out + first * channels,
                   (last - first) * channels);
              return;
            }
            for (int64_t r = first; r < last; ++r)
              fast(in + r * channels, bias.data(), out + r * channels, channels);
          } else if constexpr (std::is_same_v<C, float>) {  // half types, through a float block
            constexpr int64_t kBlock = 256;
            float block[kBlock];
            for (int64_t r = first; r < last; ++r) {
              const T* row = in + r * channels;
              T* row_out = out + r * channels;
              for (int64_t begin = 0; begin < channels; begin += kBlock) {
                const int64_t count = std::min(kBlock, channels - begin);
                for (int64_t j = 0; j < count; ++j)
                  block[j] = row[begin + j].ToFloat() + (bias.empty() ? 0.0f : bias[begin + j]);
                fast(block, nullptr, block, count);
                for (int64_t j = 0; j < count; ++j) row_out[begin + j] = T(block[j]);
              }
            }
          } else {
            for (int64_t i = first * channels; i < last * channels; ++i)
              out[i] = fn(in[i] + (bias.empty() ? C{0} : bias[i % channels]));
          }
        });
  }
};

// Applies Fn after adding the optional per-channel bias (input 1).
template <typename Fn>
class Activation final : public OpKernel {
 public:
  explicit Activation(const OpKernelInfo& info) : OpKernel(info), fn_(info) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor* bias = Fn::kBias == Bias::kNone ? nullptr : context.Input(1);
    PRISM_ENFORCE(Fn::kBias != Bias::kRequired || bias != nullptr, kInvalidArgument,
                  node.Describe(), ": input 1 (bias) is required");
    const TensorShape& shape = x.Shape();
    if (Fn::kBias != Bias::kNone)
      PRISM_ENFORCE(shape.Rank() >= 1, kInvalidArgument, node.Describe(),
                    ": input 0 (X) must have rank >= 1, got a scalar");
    const int64_t channels = shape.Rank() >= 1 ? shape[shape.Rank() - 1] : 1;
    if (bias != nullptr) {
      PRISM_ENFORCE(bias->Type() == x.Type(), kInvalidArgument, node.Describe(),
                    ": input 1 (bias) must have X's type ", ElementTypeName(x.Type()), ", got ",
                    ElementTypeName(bias->Type()));
      EnforceChannelVector(node, *bias, "input 1 (bias)", channels, shape);
    }
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    const ActivationJob<Fn> job{&fn_, &x, bias, &y, channels, context.IntraOpThreadPool()};
    DispatchByType<ActivationImpl, GeluTypes>(x.Type(), node.OpType(), job);
  }

 private:
  Fn fn_;
};

template <typename T>
struct BiasAddImpl {
  void operator()(const Tensor& x, const Tensor& bias, const Tensor& skip, Tensor& y,
                  ThreadPool* pool) const {
    using C = FloatComputeTypeOf<T>;
    const int64_t channels = x.Shape()[2];
    const std::vector<C> bias_values = Widen<T>(bias);
    const T* in = x.Data<T>();
    const T* skip_in = skip.Data<T>();
    T* out = y.MutableData<T>();
    ThreadPool::TryParallelFor(
        pool, x.NumElements() / channels, 3.0 * static_cast<double>(channels),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r)
            for (int64_t c = 0; c < channels; ++c) {
              const int64_t i = r * channels + c;
              out[i] = FromCompute<T>(static_cast<C>(ToCompute(in[i])) + bias_values[c] +
                                      static_cast<C>(ToCompute(skip_in[i])));
            }
        });
  }
};

class BiasAdd final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& bias = context.RequiredInput(1);
    const Tensor& skip = context.RequiredInput(2);
    PRISM_ENFORCE(x.Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input 0 (X) must be 3-D [N, S, C], got ", x.Shape().ToString());
    EnforceChannelVector(node, bias, "input 1 (bias)", x.Shape()[2], x.Shape());
    PRISM_ENFORCE(skip.Shape() == x.Shape(), kInvalidArgument, node.Describe(),
                  ": input 2 (skip) must have X's shape ", x.Shape().ToString(), ", got ",
                  skip.Shape().ToString());
    PRISM_ENFORCE(bias.Type() == x.Type() && skip.Type() == x.Type(), kInvalidArgument,
                  node.Describe(), ": X, bias and skip must share one type, got ", x.Describe(),
                  ", ", bias.Describe(), ", ", skip.Describe());
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<BiasAddImpl, TypeList<float, Float16>>(x.Type(), node.OpType(), x, bias, skip, y,
                                                          context.IntraOpThreadPool());
  }
};

void RegisterGeluKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat, E::kDouble, E::kFloat16, E::kBFloat16};
  const auto add = [&](const char* op, KernelFactory factory, std::vector<int> inputs) {
    registry.Register(KernelDefBuilder(op)
                          .Domain(kMsDomain)
                          .Versions(1)
                          .Constraint("T", floats, std::move(inputs), {0})
                          .Build(),
                      std::move(factory));
  };
  add("Gelu", MakeKernelFactory<Activation<GeluErf>>(), {0});
  add("BiasGelu", MakeKernelFactory<Activation<BiasGeluErf>>(), {0, 1});
  add("FastGelu", MakeKernelFactory<Activation<GeluTanh>>(), {0, 1});
  add("QuickGelu", MakeKernelFactory<Activation<QuickGeluFn>>(), {0});
  registry.Register(KernelDefBuilder("BiasAdd")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", {E::kFloat, E::kFloat16}, {0, 1, 2}, {0})
                        .Build(),
                    MakeKernelFactory<BiasAdd>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_gelu, RegisterGeluKernels);

}  // namespace prism::cpu::contrib

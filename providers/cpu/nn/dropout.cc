// Dropout. At inference (the default, and training_mode false) the output is the input and the
// optional mask is all true (all ones of the input type for opsets 7 to 9, whose mask has type
// T). Opset 12+ takes ratio and training_mode as optional inputs. With training_mode true,
// each element is kept when a uniform draw in [0, 1) is >= ratio and then scaled by
// 1 / (1 - ratio), as the ONNX reference does; the draws follow numpy's legacy generator
// (MT19937 seeded with the 'seed' attribute, two 32-bit words per double), so a seeded node
// gives the reference's exact mask; without a seed the generator is seeded at random, or, after
// SetRandomSeed (onnxruntime's set_seed), from the process seed and the run's number. The
// is_test attribute of opsets 1 and 6 is ignored (inference is always the test behaviour).
#include <atomic>
#include <climits>
#include <cstring>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "framework/random_seed.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/cast.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct FillOnes {
  void operator()(Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) data[i] = T(1.0f);
  }
};

// numpy.random.RandomState(seed).random_sample(): 53 random bits from two 32-bit words.
double NextUniform(std::mt19937& generator) {
  const uint32_t high = generator() >> 5;
  const uint32_t low = generator() >> 6;
  return (high * 67108864.0 + low) / 9007199254740992.0;
}

class Dropout final : public OpKernel {
 public:
  explicit Dropout(const OpKernelInfo& info)
      : OpKernel(info), opset_(info.GetNode().OpsetVersion()) {
    if (info.HasAttr("seed"))
      seed_ = info.Int("seed");
    else
      process_seed_ = RandomSeed();
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    bool training = false;
    double ratio = 0.5;
    if (opset_ >= 12) {
      if (const Tensor* ratio_tensor = context.Input(1)) {
        PRISM_ENFORCE(ratio_tensor->NumElements() == 1, kInvalidArgument, node.Describe(),
                      ": input 'ratio' must be a scalar, got shape ",
                      ratio_tensor->Shape().ToString());
        Tensor as_double(ElementType::kDouble, TensorShape({1}), GetCpuAllocator());
        CastElements(*ratio_tensor, as_double, CastOptions{});
        ratio = as_double.Data<double>()[0];
      }
      if (const Tensor* training_tensor = context.Input(2)) {
        PRISM_ENFORCE(training_tensor->NumElements() == 1, kInvalidArgument, node.Describe(),
                      ": input 'training_mode' must be a scalar, got shape ",
                      training_tensor->Shape().ToString());
        training = training_tensor->Data<bool>()[0];
      }
    }
    if (training && ratio != 0) {
      PRISM_ENFORCE(ratio > 0 && ratio < 1, kInvalidArgument, node.Describe(), ": ratio ", ratio,
                    " must be in [0, 1) in training mode");
      RunTraining(context, data, ratio);
      return;
    }
    context.SetOutput(0, Value(data));
    if (context.OutputCount() < 2 || !GetNode().HasOutput(1)) return;
    const bool typed_mask = opset_ >= 7 && opset_ < 10;
    Tensor& mask = context.Output(1, data.Shape(), typed_mask ? data.Type() : ElementType::kBool);
    if (mask.NumElements() == 0) return;
    if (typed_mask)
      DispatchByType<FillOnes, TypeList<float, double, Float16>>(mask.Type(), node.OpType(), mask);
    else
      std::memset(mask.MutableRawData(), 1, static_cast<size_t>(mask.NumElements()));
  }

 private:
  void RunTraining(OpKernelContext& context, const Tensor& data, double ratio) const {
    uint32_t generator_seed = 0;
    if (seed_.has_value())
      generator_seed = static_cast<uint32_t>(*seed_);
    else if (process_seed_.has_value())
      generator_seed = static_cast<uint32_t>(*process_seed_ + runs_.fetch_add(1));
    else
      generator_seed = std::random_device{}();
    std::mt19937 generator(generator_seed);
    const int64_t count = data.NumElements();
    // Computed in float (double for double inputs) and converted back.
    const ElementType compute =
        data.Type() == ElementType::kDouble ? ElementType::kDouble : ElementType::kFloat;
    Tensor values(compute, data.Shape(), GetCpuAllocator());
    CastElements(data, values, CastOptions{});
    std::vector<bool> keep(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      keep[static_cast<size_t>(i)] = NextUniform(generator) >= ratio;
    if (compute == ElementType::kDouble) {
      double* v = values.MutableData<double>();
      const double scale = 1.0 / (1.0 - ratio);
      for (int64_t i = 0; i < count; ++i) v[i] = keep[static_cast<size_t>(i)] ? v[i] * scale : 0.0;
    } else {
      float* v = values.MutableData<float>();
      const float scale = static_cast<float>(1.0 / (1.0 - ratio));
      for (int64_t i = 0; i < count; ++i) v[i] = keep[static_cast<size_t>(i)] ? v[i] * scale : 0.0f;
    }
    Tensor& output = context.Output(0, data.Shape(), data.Type());
    CastElements(values, output, CastOptions{});
    if (context.OutputCount() < 2 || !GetNode().HasOutput(1)) return;
    Tensor& mask = context.Output(1, data.Shape(), ElementType::kBool);
    bool* m = mask.MutableData<bool>();
    for (int64_t i = 0; i < count; ++i) m[i] = keep[static_cast<size_t>(i)];
  }

  int opset_;
  std::optional<int64_t> seed_;
  std::optional<int64_t> process_seed_;  // RandomSeed() at creation, without a seed attribute
  mutable std::atomic<int64_t> runs_{0};
};

void RegisterDropoutKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const auto factory = MakeKernelFactory<Dropout>();
  for (const auto& [since, end] : {std::pair{1, 5}, std::pair{6, 6}, std::pair{7, 9}})
    registry.Register(KernelDefBuilder("Dropout")
                          .Versions(since, end)
                          .Constraint("T", floats, {0}, {0, 1})
                          .Build(),
                      factory);
  registry.Register(KernelDefBuilder("Dropout")
                        .Versions(10, 11)
                        .Constraint("T", floats, {0}, {0})
                        .Constraint("T1", {E::kBool}, {}, {1})
                        .Build(),
                    factory);
  std::vector<E> with_bf16 = floats;
  with_bf16.push_back(E::kBFloat16);
  std::vector<E> with_float8 = with_bf16;
  with_float8.insert(with_float8.end(),
                     {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ});
  for (const auto& [since, end, types, ratio_types] :
       {std::tuple{12, 12, floats, floats}, std::tuple{13, 21, with_bf16, floats},
        std::tuple{22, INT_MAX, with_float8, with_float8}}) {
    registry.Register(KernelDefBuilder("Dropout")
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .Constraint("T1", ratio_types, {1})
                          .Constraint("T2", {E::kBool}, {2}, {1})
                          .CpuInput(1)
                          .CpuInput(2)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_dropout, RegisterDropoutKernels);

}  // namespace prism::cpu

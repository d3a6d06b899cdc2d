// RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike (opsets 1, 22), Bernoulli
// (15, 22) and Multinomial (7, 22), on the counter-based generator of counter_rng.h.
//
// Seeds: with the `seed` attribute every run of the model (in any session, on any platform) draws
// the same numbers; without it each Compute takes a fresh key, so runs differ. After
// SetRandomSeed (onnxruntime's set_seed) a kernel created without a seed attribute takes the
// process seed as its own and draws run n from (seed, n): two sessions created after set_seed(s)
// give the same values run by run, as onnxruntime's do. Element i of the
// output always uses word i of the run's stream (words 2i and 2i + 1 for a normal draw), which
// keeps the values independent of how the work is split.
//
//   RandomUniform*: low + (high - low) * u in double, rounded to the output type; a value that
//     rounds up to high is moved to the largest value of the type below it, so the output is in
//     [low, high) (low == high gives low). low > high is refused.
//   RandomNormal*: mean + scale * z (Box-Muller).
//   Bernoulli: 1 where u < p (so p = 0 never and p = 1 always gives 1); p outside [0, 1] is
//     refused naming the element.
//   Multinomial: per batch row, sample_size draws of a class index with probabilities
//     softmax(input row): the first class whose cumulative weight exp(x - max) exceeds u * total.
//     A NaN or +inf logit, or a row with no finite logit, is refused.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "framework/random_seed.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/random/counter_rng.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using E = ElementType;
using FloatTypes = TypeList<float, double, Float16, BFloat16>;

// A fresh key for an unseeded run: entropy drawn once per process, then a counter, so concurrent
// runs never share a stream.
uint64_t FreshKey() {
  static const uint64_t process_entropy = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  static std::atomic<uint64_t> counter{0};
  return Mix64(process_entropy + counter.fetch_add(1, std::memory_order_relaxed) * kGoldenGamma);
}

// The next value of T below value (toward -infinity).
template <typename T>
T NextBelow(T value) {
  if constexpr (kIsHalfType<T>) {
    uint16_t bits = value.bits;
    if ((bits & 0x7fff) == 0) {
      bits = 0x8001;  // below +-0: the smallest negative subnormal
    } else if (bits & 0x8000) {
      ++bits;
    } else {
      --bits;
    }
    return T::FromBits(bits);
  } else {
    return std::nextafter(value, -std::numeric_limits<T>::infinity());
  }
}

struct UniformParams {
  double low, high;
};

template <typename T>
struct UniformImpl {
  void operator()(Tensor& output, uint64_t key, UniformParams p) const {
    T* out = output.MutableData<T>();
    const double range = p.high - p.low;
    for (int64_t i = 0; i < output.NumElements(); ++i) {
      T value = FromCompute<T>(p.low + range * Uniform01(key, static_cast<uint64_t>(i)));
      if (range > 0)
        while (ToDouble(value) >= p.high) value = NextBelow(value);
      out[i] = value;
    }
  }
};

struct NormalParams {
  double mean, scale;
};

template <typename T>
struct NormalImpl {
  void operator()(Tensor& output, uint64_t key, NormalParams p) const {
    T* out = output.MutableData<T>();
    for (int64_t i = 0; i < output.NumElements(); ++i)
      out[i] = FromCompute<T>(p.mean + p.scale * StandardNormal(key, static_cast<uint64_t>(i)));
  }
};

// Shared by the six ops: the optional seed and the output element type.
class RandomKernel : public OpKernel {
 public:
  explicit RandomKernel(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("seed"))
      seed_ = info.Float("seed");
    else if (std::optional<int64_t> process_seed = RandomSeed())
      process_key_ = Mix64(static_cast<uint64_t>(*process_seed));
  }

 protected:
  uint64_t StreamKey() const {
    if (seed_) return KeyFromSeed(*seed_);
    if (process_key_)
      return Mix64(*process_key_ +
                   (runs_.fetch_add(1, std::memory_order_relaxed) + 1) * kGoldenGamma);
    return FreshKey();
  }

  // dtype when given (checked against allowed), else fallback.
  static ElementType DtypeOr(const OpKernelInfo& info, ElementType fallback) {
    if (!info.HasAttr("dtype")) return fallback;
    const int64_t code = info.Int("dtype");
    PRISM_ENFORCE(IsKnownElementType(static_cast<int32_t>(code)), kInvalidArgument,
                  info.GetNode().Describe(), ": dtype ", code, " is not an ONNX element type");
    return static_cast<ElementType>(code);
  }

 private:
  std::optional<float> seed_;
  std::optional<uint64_t> process_key_;  // from the process seed, when one was set
  mutable std::atomic<uint64_t> runs_{0};
};

bool IsFloatType(ElementType type) {
  return type == E::kFloat || type == E::kDouble || type == E::kFloat16 || type == E::kBFloat16;
}

// RandomUniform, RandomNormal (shape attribute) and their *Like forms (the input's shape).
class RandomDraw final : public RandomKernel {
 public:
  RandomDraw(const OpKernelInfo& info, bool normal, bool like)
      : RandomKernel(info), normal_(normal), like_(like) {
    const Node& node = info.GetNode();
    if (normal) {
      normal_params_ = {info.FloatOr("mean", 0.0f), info.FloatOr("scale", 1.0f)};
    } else {
      uniform_params_ = {info.FloatOr("low", 0.0f), info.FloatOr("high", 1.0f)};
      PRISM_ENFORCE(std::isfinite(uniform_params_.low) && std::isfinite(uniform_params_.high),
                    kInvalidArgument, node.Describe(), ": low ", uniform_params_.low, " and high ",
                    uniform_params_.high, " must be finite");
      PRISM_ENFORCE(uniform_params_.low <= uniform_params_.high, kInvalidArgument, node.Describe(),
                    ": low ", uniform_params_.low, " must be <= high ", uniform_params_.high);
    }
    if (!like) {
      output_type_ = DtypeOr(info, E::kFloat);
      shape_ = TensorShape(info.Ints("shape"));
      for (int64_t dim : shape_.Dims())
        PRISM_ENFORCE(dim >= 0, kInvalidArgument, node.Describe(), ": shape ", shape_.ToString(),
                      " has a negative dim");
    } else {
      output_type_ = DtypeOr(info, info.InputType(0));
    }
    PRISM_ENFORCE(output_type_ == E::kUndefined || IsFloatType(output_type_), kInvalidArgument,
                  node.Describe(), ": the output type must be float16, float, double or ",
                  "bfloat16 (set dtype), got ", ElementTypeName(output_type_));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    TensorShape shape = shape_;
    ElementType type = output_type_;
    if (like_) {
      const Tensor& input = context.RequiredInput(0);
      shape = input.Shape();
      if (type == E::kUndefined) type = input.Type();
      PRISM_ENFORCE(IsFloatType(type), kInvalidArgument, node.Describe(), ": input ",
                    input.Describe(), " is not of a floating type and dtype is not set");
    }
    Tensor& output = context.Output(0, shape, type);
    const uint64_t key = StreamKey();
    if (normal_) {
      DispatchByType<NormalImpl, FloatTypes>(type, node.OpType(), output, key, normal_params_);
    } else {
      DispatchByType<UniformImpl, FloatTypes>(type, node.OpType(), output, key, uniform_params_);
    }
  }

 private:
  bool normal_, like_;
  NormalParams normal_params_{};
  UniformParams uniform_params_{};
  TensorShape shape_;
  ElementType output_type_ = E::kUndefined;
};

template <typename T>
struct ReadProbabilities {
  void operator()(const Tensor& input, std::vector<double>& values) const {
    const T* in = input.Data<T>();
    for (int64_t i = 0; i < input.NumElements(); ++i) values[i] = ToDouble(in[i]);
  }
};

template <typename T>
struct WriteBernoulli {
  void operator()(const std::vector<double>& probabilities, Tensor& output, uint64_t key) const {
    T* out = output.MutableData<T>();
    for (size_t i = 0; i < probabilities.size(); ++i)
      out[i] = FromCompute<T>(Uniform01(key, i) < probabilities[i] ? 1.0 : 0.0);
  }
};

class Bernoulli final : public RandomKernel {
 public:
  explicit Bernoulli(const OpKernelInfo& info)
      : RandomKernel(info), output_type_(DtypeOr(info, info.InputType(0))) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    std::vector<double> probabilities(static_cast<size_t>(input.NumElements()));
    DispatchByType<ReadProbabilities, FloatTypes>(input.Type(), node.OpType(), input,
                                                  probabilities);
    for (size_t i = 0; i < probabilities.size(); ++i)
      PRISM_ENFORCE(probabilities[i] >= 0.0 && probabilities[i] <= 1.0, kInvalidArgument,
                    node.Describe(), ": input probability ", i, " is ", probabilities[i],
                    ", outside [0, 1]");
    const ElementType type = output_type_ == E::kUndefined ? input.Type() : output_type_;
    Tensor& output = context.Output(0, input.Shape(), type);
    DispatchByType<WriteBernoulli,
                   TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t, bool>>(
        type, node.OpType(), probabilities, output, StreamKey());
  }

 private:
  ElementType output_type_;
};

template <typename T>
struct WriteClasses {
  void operator()(const std::vector<int64_t>& classes, Tensor& output) const {
    T* out = output.MutableData<T>();
    for (size_t i = 0; i < classes.size(); ++i) out[i] = static_cast<T>(classes[i]);
  }
};

class Multinomial final : public RandomKernel {
 public:
  explicit Multinomial(const OpKernelInfo& info)
      : RandomKernel(info),
        sample_size_(info.IntOr("sample_size", 1)),
        output_type_(DtypeOr(info, E::kInt32)) {
    PRISM_ENFORCE(sample_size_ >= 0, kInvalidArgument, info.GetNode().Describe(),
                  ": sample_size must be >= 0, got ", sample_size_);
    PRISM_ENFORCE(output_type_ == E::kInt32 || output_type_ == E::kInt64, kInvalidArgument,
                  info.GetNode().Describe(), ": dtype must be int32 or int64, got ",
                  ElementTypeName(output_type_));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    PRISM_ENFORCE(input.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                  ": input must be [batch_size, class_size], got ", input.Shape().ToString());
    const int64_t batch = input.Shape()[0], classes = input.Shape()[1];
    PRISM_ENFORCE(classes > 0 || batch == 0 || sample_size_ == 0, kInvalidArgument, node.Describe(),
                  ": input has no classes to sample from (", input.Shape().ToString(), ")");
    std::vector<double> logits(static_cast<size_t>(input.NumElements()));
    DispatchByType<ReadProbabilities, FloatTypes>(input.Type(), node.OpType(), input, logits);
    const uint64_t key = StreamKey();
    // The output first: its shape check and the session's tensor limits bound sample_size (an
    // attribute, any int64) before anything of its size is allocated here.
    Tensor& output = context.Output(0, TensorShape({batch, sample_size_}), output_type_);
    std::vector<int64_t> drawn(static_cast<size_t>(output.NumElements()));
    std::vector<double> cumulative(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch && sample_size_ > 0; ++b) {
      const double* row = logits.data() + b * classes;
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) {
        PRISM_ENFORCE(!std::isnan(row[c]) && row[c] != std::numeric_limits<double>::infinity(),
                      kInvalidArgument, node.Describe(), ": input[", b, ", ", c, "] is ", row[c],
                      "; logits must be finite or -inf");
        max = std::max(max, row[c]);
      }
      PRISM_ENFORCE(std::isfinite(max), kInvalidArgument, node.Describe(), ": input row ", b,
                    " has no finite logit (every class has probability 0)");
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) cumulative[c] = total += std::exp(row[c] - max);
      int64_t last_possible = 0;  // the last class of positive weight
      for (int64_t c = 0; c < classes; ++c)
        if (std::exp(row[c] - max) > 0) last_possible = c;
      for (int64_t s = 0; s < sample_size_; ++s) {
        const int64_t index = b * sample_size_ + s;
        const double target = Uniform01(key, static_cast<uint64_t>(index)) * total;
        int64_t chosen = last_possible;  // target rounded up to total
        for (int64_t c = 0; c < classes; ++c)
          if (cumulative[c] > target) {
            chosen = c;
            break;
          }
        drawn[index] = chosen;
      }
    }
    DispatchByType<WriteClasses, TypeList<int32_t, int64_t>>(output_type_, node.OpType(), drawn,
                                                             output);
  }

 private:
  int64_t sample_size_;
  ElementType output_type_;
};

void RegisterRandomKernels(KernelRegistry& registry) {
  const std::vector<E> floats_1 = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_22 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  struct Range {
    int since, end;
    const std::vector<E>& floats;
    TensorTypeGeneration generation;
  };
  const Range ranges[] = {{1, 21, floats_1, TensorTypeGeneration::kNoBfloat16},
                          {22, INT_MAX, floats_22, TensorTypeGeneration::kBfloat16}};
  for (const Range& r : ranges) {
    for (bool normal : {false, true}) {
      const char* op = normal ? "RandomNormal" : "RandomUniform";
      registry.Register(
          KernelDefBuilder(op).Versions(r.since, r.end).Constraint("T", r.floats, {}, {0}).Build(),
          [normal](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
            return std::make_unique<RandomDraw>(info, normal, false);
          });
      const std::string like = std::string(op) + "Like";
      // The input gives only its shape: any tensor type, complex included.
      std::vector<E> any = AllTensorTypesWithComplexOf(r.generation);
      registry.Register(KernelDefBuilder(like)
                            .Versions(r.since, r.end)
                            .Constraint("T1", any, {0})
                            .Constraint("T2", r.floats, {}, {0})
                            .Build(),
                        [normal](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
                          return std::make_unique<RandomDraw>(info, normal, true);
                        });
    }
  }
  const std::vector<E> bernoulli_outputs_15 = {
      E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16, E::kUint8, E::kUint16, E::kUint32,
      E::kUint64,  E::kInt8,  E::kInt16,  E::kInt32,    E::kInt64, E::kBool};
  registry.Register(KernelDefBuilder("Bernoulli")
                        .Versions(15, 21)
                        .Constraint("T1", floats_1, {0})
                        .Constraint("T2", bernoulli_outputs_15, {}, {0})
                        .Build(),
                    MakeKernelFactory<Bernoulli>());
  registry.Register(KernelDefBuilder("Bernoulli")
                        .Versions(22)
                        .Constraint("T1", floats_22, {0})
                        .Constraint("T2", bernoulli_outputs_15, {}, {0})
                        .Build(),
                    MakeKernelFactory<Bernoulli>());
  registry.Register(KernelDefBuilder("Multinomial")
                        .Versions(7, 21)
                        .Constraint("T1", floats_1, {0})
                        .Constraint("T2", {E::kInt32, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<Multinomial>());
  registry.Register(KernelDefBuilder("Multinomial")
                        .Versions(22)
                        .Constraint("T1", floats_22, {0})
                        .Constraint("T2", {E::kInt32, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<Multinomial>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(random_ops, RegisterRandomKernels);

}  // namespace prism::cpu

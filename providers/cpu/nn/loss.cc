// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (which is log-softmax over axis 1, then
// the same loss). For input [N, C, d1, ...] and target [N, d1, ...]: loss = -input[n, t, d] *
// w[t] with t = target[n, d] and w the optional per-class weight (1 without it); a target equal
// to ignore_index contributes 0 with weight 0. reduction none keeps target's shape; sum adds
// the losses; mean divides that sum by the sum of the applied weights (the spec's definition;
// with no weight, the count of targets not ignored). A target outside [0, C) that is not
// ignored is refused, naming it. Arithmetic in double.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

template <typename T>
struct ReadDoubles {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(data[i]);
  }
};

template <typename T>
struct WriteDoubles {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = FromCompute<T>(values[i]);
  }
};

std::vector<int64_t> ReadTargets(const Tensor& target) {
  std::vector<int64_t> out(static_cast<size_t>(target.NumElements()));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = target.Type() == ElementType::kInt32 ? target.Data<int32_t>()[i]
                                                  : target.Data<int64_t>()[i];
  return out;
}

class LossKernel final : public OpKernel {
 public:
  explicit LossKernel(const OpKernelInfo& info)
      : OpKernel(info),
        softmax_(info.GetNode().OpType() == "SoftmaxCrossEntropyLoss"),
        reduction_(info.StringOr("reduction", "mean")) {
    PRISM_ENFORCE(reduction_ == "none" || reduction_ == "sum" || reduction_ == "mean",
                  kInvalidArgument, info.GetNode().Describe(), ": reduction '", reduction_,
                  "' is not none, sum or mean");
    if (info.HasAttr("ignore_index")) ignore_index_ = info.IntOr("ignore_index", 0);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& target = context.RequiredInput(1);
    const Tensor* weight = context.Input(2);
    const TensorShape& shape = input.Shape();
    const char* input_name = softmax_ ? "scores" : "input";
    const char* target_name = softmax_ ? "labels" : "target";
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, node.Describe(), ": input '", input_name,
                  "' must be [N, C, d1, ...], got shape ", shape.ToString());
    const int64_t batch = shape[0], classes = shape[1], inner = shape.SizeFromDimension(2);
    std::vector<int64_t> expected_target = {batch};
    for (size_t a = 2; a < shape.Rank(); ++a) expected_target.push_back(shape[a]);
    PRISM_ENFORCE(target.Shape().Dims() == expected_target, kInvalidArgument, node.Describe(),
                  ": input '", target_name, "' must have shape ",
                  TensorShape(expected_target).ToString(), " for ", input_name, " ",
                  shape.ToString(), ", got ", target.Shape().ToString());
    if (weight != nullptr)
      PRISM_ENFORCE(weight->Shape().Rank() == 1 && weight->Shape()[0] == classes, kInvalidArgument,
                    node.Describe(), ": input 'weight' must have shape [", classes, "], got ",
                    weight->Shape().ToString());

    std::vector<double> values, weights;
    DispatchByType<ReadDoubles, FloatTypes>(input.Type(), node.OpType(), input, values);
    if (weight != nullptr)
      DispatchByType<ReadDoubles, FloatTypes>(weight->Type(), node.OpType(), *weight, weights);
    if (softmax_) LogSoftmaxOverClasses(values, batch, classes, inner);
    const std::vector<int64_t> targets = ReadTargets(target);

    std::vector<double> losses(targets.size(), 0.0);
    double applied_weights = 0;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t d = 0; d < inner; ++d) {
        const size_t at = static_cast<size_t>(n * inner + d);
        const int64_t t = targets[at];
        if (ignore_index_ && t == *ignore_index_) continue;
        PRISM_ENFORCE(t >= 0 && t < classes, kInvalidArgument, node.Describe(), ": ", target_name,
                      " value ", t, " at position ", at, " is outside [0, ", classes, ")",
                      ignore_index_ ? " and is not ignore_index" : "");
        const double w = weight != nullptr ? weights[static_cast<size_t>(t)] : 1.0;
        losses[at] = -values[static_cast<size_t>((n * classes + t) * inner + d)] * w;
        applied_weights += w;
      }
    }
    if (reduction_ == "none") {
      Tensor& loss = context.Output(0, target.Shape(), input.Type());
      DispatchByType<WriteDoubles, FloatTypes>(input.Type(), node.OpType(), losses, loss);
    } else {
      double total = 0;
      for (double l : losses) total += l;
      // mean over no applied weight (everything ignored) is 0 / 0: NaN, as the reference.
      if (reduction_ == "mean") total /= applied_weights;
      Tensor& loss = context.Output(0, TensorShape(std::vector<int64_t>{}), input.Type());
      DispatchByType<WriteDoubles, FloatTypes>(input.Type(), node.OpType(),
                                               std::vector<double>{total}, loss);
    }
    if (softmax_ && context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      Tensor& log_prob = context.Output(1, shape, input.Type());
      DispatchByType<WriteDoubles, FloatTypes>(input.Type(), node.OpType(), values, log_prob);
    }
  }

 private:
  // values [N, C, inner] becomes its log-softmax over C.
  static void LogSoftmaxOverClasses(std::vector<double>& values, int64_t batch, int64_t classes,
                                    int64_t inner) {
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t d = 0; d < inner; ++d) {
        double* base = values.data() + n * classes * inner + d;
        double largest = -INFINITY;
        for (int64_t c = 0; c < classes; ++c) largest = std::max(largest, base[c * inner]);
        double sum = 0;
        for (int64_t c = 0; c < classes; ++c) sum += std::exp(base[c * inner] - largest);
        const double log_sum = largest + std::log(sum);
        for (int64_t c = 0; c < classes; ++c) base[c * inner] -= log_sum;
      }
    }
  }

  bool softmax_;
  std::string reduction_;
  std::optional<int64_t> ignore_index_;
};

void RegisterLossKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> with_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  const auto factory = MakeKernelFactory<LossKernel>();
  const auto add = [&](const char* op, int since, int end, const std::vector<E>& types,
                       std::vector<int> outputs) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(since, end)
                          .Constraint("T", types, {0, 2}, outputs)
                          .Constraint("Tind", {E::kInt32, E::kInt64}, {1})
                          .Build(),
                      factory);
  };
  add("NegativeLogLikelihoodLoss", 12, 12, classic, {0});
  add("NegativeLogLikelihoodLoss", 13, 21, classic, {0});
  add("NegativeLogLikelihoodLoss", 22, INT_MAX, with_bf16, {0});
  add("SoftmaxCrossEntropyLoss", 12, 12, classic, {0, 1});
  add("SoftmaxCrossEntropyLoss", 13, INT_MAX, with_bf16, {0, 1});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_loss, RegisterLossKernels);

}  // namespace prism::cpu

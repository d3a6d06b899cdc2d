// BatchNormalization, inference and training mode, every opset version:
//   inference: Y = scale * (X - mean) / sqrt(var + epsilon) + B
//   training:  the same with the batch's mean and population variance; running statistics
//              are updated as input * momentum + batch * (1 - momentum).
// Opsets 1-8 also have spatial=0: statistics per (channel, D1, ..., Dn) cell, over N only.
// Opsets 1-13 are in training mode when an output beyond Y is requested (opsets 1 and 6 only
// when is_test is 0); opsets 14+ use the training_mode attribute. Opsets 1-13 also output
// saved_mean (batch mean) and saved_var (batch inverse standard deviation, as onnxruntime).
#include <cmath>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

template <typename T>
struct ReadDoublesImpl {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(data[i]);
  }
};

template <typename T>
struct WriteDoublesImpl {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = FromCompute<T>(values[i]);
  }
};

// X viewed as [batch, groups, inner]: groups are channels (or channel cells when spatial=0).
struct Layout {
  int64_t batch = 1;
  int64_t groups = 1;
  int64_t inner = 1;
};

template <typename T>
struct BatchStatsImpl {
  void operator()(const Tensor& x, const Layout& layout, std::vector<double>& mean,
                  std::vector<double>& var) const {
    const T* data = x.Data<T>();
    const double count = static_cast<double>(layout.batch * layout.inner);
    mean.assign(static_cast<size_t>(layout.groups), 0.0);
    var.assign(static_cast<size_t>(layout.groups), 0.0);
    for (int64_t n = 0; n < layout.batch; ++n)
      for (int64_t g = 0; g < layout.groups; ++g) {
        const T* row = data + (n * layout.groups + g) * layout.inner;
        for (int64_t i = 0; i < layout.inner; ++i) mean[g] += ToDouble(row[i]);
      }
    for (double& m : mean) m /= count;
    // Two passes keep the population variance accurate for large means.
    for (int64_t n = 0; n < layout.batch; ++n)
      for (int64_t g = 0; g < layout.groups; ++g) {
        const T* row = data + (n * layout.groups + g) * layout.inner;
        for (int64_t i = 0; i < layout.inner; ++i) {
          const double d = ToDouble(row[i]) - mean[g];
          var[g] += d * d;
        }
      }
    for (double& v : var) v /= count;
  }
};

template <typename T>
struct NormalizeImpl {
  // y = (x - mean[g]) * multiplier[g] + bias[g]. Subtracting the mean first keeps a double
  // result exact when x is close to the mean; folding it into one offset (x * m + (bias - mean *
  // m)) cancels two rounded products and loses up to all the digits of x - mean.
  void operator()(const Tensor& x, Tensor& y, const Layout& layout, const std::vector<double>& mean,
                  const std::vector<double>& multiplier, const std::vector<double>& bias,
                  ThreadPool* pool) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    // (n, channel) rows are independent.
    ThreadPool::TryParallelFor(
        pool, layout.batch * layout.groups, 4.0 * static_cast<double>(layout.inner),
        [&](int64_t first, int64_t last) {
          for (int64_t row = first; row < last; ++row) {
            const int64_t g = row % layout.groups;
            const int64_t base = row * layout.inner;
            const double m = mean[g];
            const double a = multiplier[g];
            const double b = bias[g];
            if constexpr (std::is_same_v<T, float>) {
              mlas::ActiveKernels().normalize_f32(out + base, in + base, layout.inner, m, a, b);
            } else {
              for (int64_t i = 0; i < layout.inner; ++i)
                out[base + i] = FromCompute<T>((ToDouble(in[base + i]) - m) * a + b);
            }
          }
        });
  }
};

class BatchNormalization final : public OpKernel {
 public:
  explicit BatchNormalization(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    const int opset = node.OpsetVersion();
    epsilon_ = info.FloatOr("epsilon", 1e-5f);
    momentum_ = info.FloatOr("momentum", 0.9f);
    spatial_ = opset < 9 ? info.IntOr("spatial", 1) != 0 : true;
    bool has_extra_outputs = false;
    for (size_t i = 1; i < node.OutputCount(); ++i) has_extra_outputs |= node.HasOutput(i);
    if (opset >= 14) {
      training_ = info.IntOr("training_mode", 0) != 0;
      PRISM_ENFORCE(training_ || !has_extra_outputs, kInvalidArgument, node.Describe(),
                    ": outputs running_mean and running_var are only valid with training_mode=1");
      legacy_outputs_ = false;
    } else {
      const bool is_test = opset < 7 && info.IntOr("is_test", 0) != 0;
      PRISM_ENFORCE(!(is_test && has_extra_outputs), kInvalidArgument, node.Describe(),
                    ": is_test=1 allows only output Y, but training outputs are requested");
      training_ = has_extra_outputs;
      legacy_outputs_ = true;
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 1, kInvalidArgument, node.Describe(),
                  ": input X must have rank >= 1 (N x C x D1 x ...), got a scalar");
    Layout layout;
    layout.batch = shape[0];
    // Rank 1 means C = 1.
    const int64_t channels = shape.Rank() >= 2 ? shape[1] : 1;
    const int64_t spatial_size = shape.Rank() >= 2 ? shape.SizeFromDimension(2) : 1;
    layout.groups = spatial_ ? channels : channels * spatial_size;
    layout.inner = spatial_ ? spatial_size : 1;

    static const char* kInputNames[] = {"X", "scale", "B", "mean", "var"};
    std::vector<double> params[5];
    for (int i = 1; i < 5; ++i) {
      const Tensor& p = context.RequiredInput(i);
      PRISM_ENFORCE(p.NumElements() == layout.groups, kInvalidArgument, node.Describe(), ": input ",
                    kInputNames[i], " has shape ", p.Shape().ToString(), " but X of shape ",
                    shape.ToString(), " needs ", layout.groups,
                    spatial_ ? " values (one per channel C)" : " values (C x D1 x ... x Dn)");
      DispatchByType<ReadDoublesImpl, FloatTypes>(p.Type(), node.OpType(), p, params[i]);
    }
    const std::vector<double>& scale = params[1];
    const std::vector<double>& bias = params[2];

    std::vector<double> mean = params[3];
    std::vector<double> var = params[4];
    if (training_) {
      DispatchByType<BatchStatsImpl, FloatTypes>(x.Type(), node.OpType(), x, layout, mean, var);
    }
    std::vector<double> multiplier(static_cast<size_t>(layout.groups));
    const double epsilon = static_cast<double>(epsilon_);
    for (size_t g = 0; g < multiplier.size(); ++g)
      multiplier[g] = scale[g] / std::sqrt(var[g] + epsilon);
    Tensor& y = context.Output(0, shape, x.Type());
    DispatchByType<NormalizeImpl, FloatTypes>(x.Type(), node.OpType(), x, y, layout, mean,
                                              multiplier, bias, context.IntraOpThreadPool());
    if (!training_) return;

    const double momentum = static_cast<double>(momentum_);
    std::vector<double> running_mean(mean.size());
    std::vector<double> running_var(var.size());
    for (size_t g = 0; g < mean.size(); ++g) {
      running_mean[g] = params[3][g] * momentum + mean[g] * (1.0 - momentum);
      running_var[g] = params[4][g] * momentum + var[g] * (1.0 - momentum);
    }
    const Tensor& mean_input = context.RequiredInput(3);
    auto write = [&](size_t index, const std::vector<double>& values) {
      if (index >= context.OutputCount() || !context.IsOutputRequested(index)) return;
      Tensor& out = context.Output(index, mean_input.Shape(), mean_input.Type());
      DispatchByType<WriteDoublesImpl, FloatTypes>(out.Type(), node.OpType(), values, out);
    };
    write(1, running_mean);
    write(2, running_var);
    if (legacy_outputs_) {
      // saved_mean is the batch mean; saved_var follows the cuDNN/onnxruntime convention of the
      // batch's inverse standard deviation 1 / sqrt(var + epsilon), which gradients reuse.
      std::vector<double> saved_inv_std(var.size());
      for (size_t g = 0; g < var.size(); ++g) saved_inv_std[g] = 1.0 / std::sqrt(var[g] + epsilon);
      write(3, mean);
      write(4, saved_inv_std);
    }
  }

 private:
  float epsilon_ = 1e-5f;
  float momentum_ = 0.9f;
  bool spatial_ = true;
  bool training_ = false;
  bool legacy_outputs_ = false;
};

void RegisterBatchNormalizationKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  const auto factory = MakeKernelFactory<BatchNormalization>();
  const auto single_type = [&](int since, int end) {
    registry.Register(KernelDefBuilder("BatchNormalization")
                          .Versions(since, end)
                          .Constraint("T", floats, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4})
                          .Build(),
                      factory);
  };
  single_type(1, 5);
  single_type(6, 6);
  single_type(7, 8);
  single_type(9, 13);
  registry.Register(KernelDefBuilder("BatchNormalization")
                        .Versions(14, 14)
                        .Constraint("T", floats_bf16, {0, 1, 2}, {0})
                        .Constraint("U", floats_bf16, {3, 4}, {1, 2})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("BatchNormalization")
                        .Versions(15)
                        .Constraint("T", floats_bf16, {0}, {0})
                        .Constraint("T1", floats_bf16, {1, 2})
                        .Constraint("T2", floats_bf16, {3, 4}, {1, 2})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_batch_norm, RegisterBatchNormalizationKernels);

}  // namespace prism::cpu

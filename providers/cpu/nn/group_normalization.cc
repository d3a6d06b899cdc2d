// InstanceNormalization and GroupNormalization: X [N, C, D1, ...] standardized over groups of
// channels and all spatial positions (one channel per group for InstanceNormalization), with the
// population variance and epsilon, then scaled and shifted: per channel, or per group for
// GroupNormalization opset 18 (whose scale and bias have num_groups entries; opset 21 has C).
// Statistics are accumulated in double (at least the stash_type precision).
#include <cmath>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

struct GroupNormJob {
  const Tensor* x;
  const Tensor* scale;
  const Tensor* bias;
  Tensor* y;
  int64_t batch, channels, groups, spatial;
  bool per_group_parameters;  // scale and bias indexed by group, not channel
  double epsilon;
  ThreadPool* pool;
};

template <typename T>
struct GroupNormImpl {
  void operator()(const GroupNormJob& job) const {
    const T* in = job.x->Data<T>();
    const T* scale = job.scale->Data<T>();
    const T* bias = job.bias->Data<T>();
    T* out = job.y->MutableData<T>();
    const int64_t channels_per_group = job.channels / job.groups;
    const int64_t span = channels_per_group * job.spatial;  // elements of one (n, group)
    ThreadPool::TryParallelFor(
        job.pool, job.batch * job.groups, 4.0 * static_cast<double>(span),
        [&](int64_t first, int64_t last) {
          for (int64_t unit = first; unit < last; ++unit) {
            const T* block = in + unit * span;
            double sum = 0;
            for (int64_t i = 0; i < span; ++i) sum += ToDouble(block[i]);
            const double mean = sum / static_cast<double>(span);
            double squares = 0;
            for (int64_t i = 0; i < span; ++i) {
              const double d = ToDouble(block[i]) - mean;
              squares += d * d;
            }
            const double inverse_std =
                1.0 / std::sqrt(squares / static_cast<double>(span) + job.epsilon);
            const int64_t group = unit % job.groups;
            for (int64_t k = 0; k < channels_per_group; ++k) {
              const int64_t channel = group * channels_per_group + k;
              const int64_t parameter = job.per_group_parameters ? group : channel;
              const double gain = ToDouble(scale[parameter]) * inverse_std;
              const double shift = ToDouble(bias[parameter]);
              const int64_t offset = unit * span + k * job.spatial;
              for (int64_t s = 0; s < job.spatial; ++s)
                out[offset + s] = FromCompute<T>((ToDouble(in[offset + s]) - mean) * gain + shift);
            }
          }
        });
  }
};

class GroupNormalization final : public OpKernel {
 public:
  explicit GroupNormalization(const OpKernelInfo& info)
      : OpKernel(info),
        instance_(info.GetNode().OpType() == "InstanceNormalization"),
        epsilon_(info.FloatOr("epsilon", 1e-5f)) {
    const Node& node = info.GetNode();
    if (!instance_) {
      PRISM_ENFORCE(info.HasAttr("num_groups"), kInvalidArgument, node.Describe(),
                    ": attribute 'num_groups' is required");
      num_groups_ = info.IntOr("num_groups", 1);
      PRISM_ENFORCE(num_groups_ > 0, kInvalidArgument, node.Describe(), ": num_groups ",
                    num_groups_, " must be positive");
      per_group_parameters_ = node.OpsetVersion() < 21;
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor& bias = context.RequiredInput(2);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, node.Describe(),
                  ": input X must have rank >= 2 (N x C x D1 x ...), got shape ", shape.ToString());
    PRISM_ENFORCE(scale.Type() == x.Type() && bias.Type() == x.Type(), kInvalidArgument,
                  node.Describe(), ": scale and bias must have X's type ",
                  ElementTypeName(x.Type()), ", got ", ElementTypeName(scale.Type()), " and ",
                  ElementTypeName(bias.Type()));
    const int64_t channels = shape[1];
    const int64_t groups = instance_ ? channels : num_groups_;
    PRISM_ENFORCE(instance_ || channels % groups == 0, kInvalidArgument, node.Describe(), ": ",
                  channels, " channels do not split into num_groups = ", groups, " groups");
    const int64_t parameters = per_group_parameters_ ? groups : channels;
    for (const auto& [tensor, name] : {std::pair{&scale, "scale"}, std::pair{&bias, "bias"}})
      PRISM_ENFORCE(tensor->Shape().Rank() == 1 && tensor->Shape()[0] == parameters,
                    kInvalidArgument, node.Describe(), ": input '", name, "' must have shape [",
                    parameters, "] (", per_group_parameters_ ? "num_groups" : "channels", "), got ",
                    tensor->Shape().ToString());
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    const GroupNormJob job{&x,
                           &scale,
                           &bias,
                           &y,
                           shape[0],
                           channels,
                           groups,
                           shape.SizeFromDimension(2),
                           per_group_parameters_,
                           static_cast<double>(epsilon_),
                           context.IntraOpThreadPool()};
    DispatchByType<GroupNormImpl, FloatTypes>(x.Type(), node.OpType(), job);
  }

 private:
  bool instance_;
  float epsilon_;
  int64_t num_groups_ = 1;
  bool per_group_parameters_ = false;
};

void RegisterGroupNormalizationKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> with_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  const auto factory = MakeKernelFactory<GroupNormalization>();
  const auto add = [&](const char* op, int since, int end, const std::vector<E>& types) {
    registry.Register(
        KernelDefBuilder(op).Versions(since, end).Constraint("T", types, {0, 1, 2}, {0}).Build(),
        factory);
  };
  add("InstanceNormalization", 1, 5, classic);
  add("InstanceNormalization", 6, 21, classic);
  add("InstanceNormalization", 22, INT_MAX, with_bf16);
  add("GroupNormalization", 18, 20, with_bf16);
  add("GroupNormalization", 21, INT_MAX, with_bf16);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_group_normalization, RegisterGroupNormalizationKernels);

}  // namespace prism::cpu

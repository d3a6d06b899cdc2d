// LRN: local response normalization across channels. For X [N, C, D1, ...], square_sum over the
// channels max(0, c - floor((size - 1) / 2)) .. min(C - 1, c + ceil((size - 1) / 2)) and
// Y = X / (bias + alpha / size * square_sum) ^ beta. In double.
#include <algorithm>
#include <cmath>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

struct LrnParameters {
  int64_t size;
  double alpha, beta, bias;
};

template <typename T>
struct LrnImpl {
  void operator()(const Tensor& x, Tensor& y, int64_t batch, int64_t channels, int64_t spatial,
                  const LrnParameters& lrn) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    const int64_t before = (lrn.size - 1) / 2;
    const int64_t after = lrn.size - 1 - before;  // ceil((size - 1) / 2)
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t first = std::max<int64_t>(0, c - before);
        const int64_t last = std::min<int64_t>(channels - 1, c + after);
        for (int64_t s = 0; s < spatial; ++s) {
          double square_sum = 0;
          for (int64_t i = first; i <= last; ++i) {
            const double v = ToDouble(in[(n * channels + i) * spatial + s]);
            square_sum += v * v;
          }
          const int64_t at = (n * channels + c) * spatial + s;
          out[at] = FromCompute<T>(
              ToDouble(in[at]) /
              std::pow(lrn.bias + lrn.alpha / static_cast<double>(lrn.size) * square_sum,
                       lrn.beta));
        }
      }
    }
  }
};

class Lrn final : public OpKernel {
 public:
  explicit Lrn(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(info.HasAttr("size"), kInvalidArgument, node.Describe(),
                  ": attribute 'size' is required");
    lrn_.size = info.IntOr("size", 1);
    PRISM_ENFORCE(lrn_.size > 0, kInvalidArgument, node.Describe(), ": size ", lrn_.size,
                  " must be positive");
    lrn_.alpha = info.FloatOr("alpha", 1e-4f);
    lrn_.beta = info.FloatOr("beta", 0.75f);
    lrn_.bias = info.FloatOr("bias", 1.0f);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, node.Describe(),
                  ": input X must have rank >= 2 (N x C x D1 x ...), got shape ", shape.ToString());
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<LrnImpl, FloatTypes>(x.Type(), node.OpType(), x, y, shape[0], shape[1],
                                        shape.SizeFromDimension(2), lrn_);
  }

 private:
  LrnParameters lrn_{};
};

void RegisterLrnKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<Lrn>();
  registry.Register(KernelDefBuilder("LRN")
                        .Versions(1, 12)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("LRN")
          .Versions(13)
          .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_lrn, RegisterLrnKernels);

}  // namespace prism::cpu

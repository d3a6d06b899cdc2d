// com.microsoft.nchwc ReorderInput and ReorderOutput (version 1, float): NCHW [N, C, H, W] to
// NCHWc [N, Cp, H, W] (Cp = C rounded up to the block b, padded lanes zero; mlas/nchwc.h) and
// back, keeping `channels` channels. channels_last = 1 (NHWC) is not supported.
#include <string>

#include "common/thread_pool.h"
#include "mlas/nchwc.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

class NchwcReorder final : public OpKernel {
 public:
  explicit NchwcReorder(const OpKernelInfo& info)
      : OpKernel(info), to_blocked_(info.GetNode().OpType() == "ReorderInput") {
    const std::string node = GetNode().Describe();
    const int64_t channels_last = info.IntOr("channels_last", 0);
    PRISM_ENFORCE(channels_last == 0, kInvalidArgument, node, ": NCHWc ", GetNode().OpType(),
                  " supports channels_last 0 (NCHW) only, got ", channels_last);
    if (!to_blocked_) {
      PRISM_ENFORCE(info.HasAttr("channels"), kInvalidArgument, node,
                    ": NCHWc ReorderOutput needs the attribute channels");
      channels_ = info.Int("channels");
      PRISM_ENFORCE(channels_ >= 1, kInvalidArgument, node,
                    ": NCHWc ReorderOutput channels must be >= 1, got ", channels_);
    }
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const int64_t b = mlas::NchwcBlockSize();
    PRISM_ENFORCE(x.Type() == ElementType::kFloat && x.Shape().Rank() == 4, kInvalidArgument, node,
                  ": NCHWc ", GetNode().OpType(), " input X must be a 4-D float tensor, got ",
                  x.Describe());
    const TensorShape& xs = x.Shape();
    const int64_t spatial = xs[2] * xs[3];
    int64_t channels = xs[1];
    int64_t padded = (channels + b - 1) / b * b;
    if (!to_blocked_) {
      PRISM_ENFORCE(xs[1] % b == 0 && channels_ <= xs[1] && xs[1] - channels_ < b, kInvalidArgument,
                    node, ": NCHWc ReorderOutput input X ", xs.ToString(),
                    " must have channels a multiple of the block ", b, " and at most ", b - 1,
                    " more than the attribute channels = ", channels_);
      channels = channels_;
      padded = xs[1];
    }
    Tensor& y =
        context.Output(0, TensorShape({xs[0], to_blocked_ ? padded : channels, xs[2], xs[3]}),
                       ElementType::kFloat);
    if (y.NumElements() == 0) return;
    const int64_t blocks = padded / b;
    const float* in = x.Data<float>();
    float* out = y.MutableData<float>();
    const int64_t in_image = xs[1] * spatial;
    const int64_t out_image = (to_blocked_ ? padded : channels) * spatial;
    ThreadPool::TryParallelFor(context.IntraOpThreadPool(), xs[0] * blocks,
                               static_cast<double>(spatial * b), [&](int64_t begin, int64_t end) {
                                 for (int64_t item = begin; item < end;) {
                                   const int64_t n = item / blocks, block = item % blocks;
                                   const int64_t last = std::min(blocks, block + (end - item));
                                   if (to_blocked_)
                                     mlas::NchwcReorderInput(in + n * in_image, channels, spatial,
                                                             out + n * out_image, block, last);
                                   else
                                     mlas::NchwcReorderOutput(in + n * in_image, channels, spatial,
                                                              out + n * out_image, block, last);
                                   item += last - block;
                                 }
                               });
  }

 private:
  bool to_blocked_;
  int64_t channels_ = 0;
};

void RegisterNchwcReorderKernels(KernelRegistry& registry) {
  for (const char* op : {"ReorderInput", "ReorderOutput"})
    registry.Register(KernelDefBuilder(op)
                          .Domain("com.microsoft.nchwc")
                          .Versions(1)
                          .Constraint("T", {ElementType::kFloat}, {0}, {0})
                          .Build(),
                      MakeKernelFactory<NchwcReorder>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nchwc_reorder, RegisterNchwcReorderKernels);

}  // namespace prism::cpu

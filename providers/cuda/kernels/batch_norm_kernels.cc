// BatchNormalization in inference form (opsets 9, 14, 15; training_mode 0, output Y only),
// float32: y = (x - mean) / sqrt(var + epsilon) * scale + B per channel (batch_norm.cu).
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cnn_device_kernels.h"
#include "providers/cuda/kernels/cuda_kernels.h"

namespace prism::cuda {
namespace {

class BatchNormKernel final : public OpKernel {
 public:
  explicit BatchNormKernel(const OpKernelInfo& info)
      : OpKernel(info), provider_(ProviderOf(info)), epsilon_(info.FloatOr("epsilon", 1e-5f)) {
    const std::string reason = BatchNormDeclineReason(info.GetNode());
    PRISM_ENFORCE(reason.empty(), kNotImplemented, info.GetNode().Describe(), ": ", reason);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kNotImplemented, node.Describe(),
                  ": CUDAExecutionProvider's BatchNormalization needs X of rank >= 2 "
                  "(N x C x D1 x ...), got ",
                  shape.ToString());
    const int64_t channels = shape[1];
    const float* params[4];
    for (size_t i = 0; i < 4; ++i) {
      const Tensor& p = context.RequiredInput(i + 1);
      PRISM_ENFORCE(p.Shape().Rank() == 1 && p.Shape()[0] == channels, kInvalidArgument,
                    node.Describe(), ": input ", i + 1, " must have shape [", channels,
                    "] (one value per channel), got ", p.Shape().ToString());
      params[i] = p.Data<float>();
    }
    Tensor& y = context.Output(0, shape, ElementType::kFloat);
    PRISM_CUDA_CALL(LaunchBatchNormInference(
        x.Data<float>(), y.MutableData<float>(), shape.Size(), shape.SizeFromDimension(2), channels,
        params[0], params[1], params[2], params[3], epsilon_, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  float epsilon_;
};

}  // namespace

void RegisterBatchNormKernels(KernelRegistry& registry) {
  const std::vector<ElementType> f = {ElementType::kFloat};
  const auto factory = [](const OpKernelInfo& info) {
    return std::make_unique<BatchNormKernel>(info);
  };
  registry.Register(KernelDefBuilder("BatchNormalization")
                        .Versions(9, 13)
                        .Constraint("T", f, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("BatchNormalization")
                        .Versions(14, 14)
                        .Constraint("T", f, {0, 1, 2}, {0})
                        .Constraint("U", f, {3, 4}, {1, 2})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("BatchNormalization")
                        .Versions(15)
                        .Constraint("T", f, {0}, {0})
                        .Constraint("T1", f, {1, 2})
                        .Constraint("T2", f, {3, 4}, {1, 2})
                        .Build(),
                    factory);
}

std::string BatchNormDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "BatchNormalization") return "";
  const Attribute* training = node.FindAttribute("training_mode");
  if (training != nullptr && training->i != 0)
    return "CUDAExecutionProvider's BatchNormalization is inference only (training_mode=" +
           std::to_string(training->i) + ")";
  for (size_t i = 1; i < node.OutputCount(); ++i)
    if (node.HasOutput(i))
      return "CUDAExecutionProvider's BatchNormalization has output Y only (output " +
             std::to_string(i) + ", a training statistic, is used)";
  const NodeArg* x = node.InputCount() > 0 ? node.Inputs()[0] : nullptr;
  if (x != nullptr && x->shape && x->shape->dims.size() < 2)
    return "CUDAExecutionProvider's BatchNormalization needs X of rank >= 2, X has rank " +
           std::to_string(x->shape->dims.size());
  return "";
}

}  // namespace prism::cuda

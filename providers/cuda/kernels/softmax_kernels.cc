// Softmax and LogSoftmax over the last axis, float32. Other axes stay on the CPU EP (declined
// with the reason); before opset 13 the op normalizes the flattened dims from axis on, which is
// the same computation when axis is the last.
#include <string>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_kernels.h"
#include "providers/cuda/kernels/device_kernels.h"

namespace prism::cuda {
namespace {

class SoftmaxKernel final : public OpKernel {
 public:
  SoftmaxKernel(const OpKernelInfo& info, bool log)
      : OpKernel(info), provider_(ProviderOf(info)), log_(log) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    Tensor& y = context.Output(0, shape, ElementType::kFloat);
    if (shape.Size() == 0) return;
    const int64_t cols = shape.Rank() == 0 ? 1 : shape[shape.Rank() - 1];
    const int64_t rows = shape.Size() / cols;
    PRISM_ENFORCE(rows <= INT32_MAX, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider's Softmax takes up to 2^31-1 rows, got ", rows);
    PRISM_CUDA_CALL(LaunchSoftmaxFloat(x.Data<float>(), y.MutableData<float>(), rows, cols, log_,
                                       provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  bool log_;
};

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  for (const bool log : {false, true})
    registry.Register(
        KernelDefBuilder(log ? "LogSoftmax" : "Softmax")
            .Versions(1)
            .Constraint("T", {ElementType::kFloat}, {0}, {0})
            .Build(),
        [log](const OpKernelInfo& info) { return std::make_unique<SoftmaxKernel>(info, log); });
}

std::string SoftmaxDeclineReason(const Node& node) {
  if (!node.Domain().empty() || (node.OpType() != "Softmax" && node.OpType() != "LogSoftmax"))
    return "";
  const NodeArg* x = node.InputCount() > 0 ? node.Inputs()[0] : nullptr;
  if (x == nullptr || !x->shape || x->shape->dims.empty())
    return "CUDAExecutionProvider's " + node.OpType() + " needs an input of known rank >= 1";
  const int64_t rank = static_cast<int64_t>(x->shape->dims.size());
  const Attribute* attribute = node.FindAttribute("axis");
  int64_t axis = attribute != nullptr ? attribute->i : (node.OpsetVersion() >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1)
    return "CUDAExecutionProvider's " + node.OpType() +
           " normalizes the last axis only, this "
           "node's axis is " +
           std::to_string(axis) + " of rank " + std::to_string(rank);
  return "";
}

}  // namespace prism::cuda

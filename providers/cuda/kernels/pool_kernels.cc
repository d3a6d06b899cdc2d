// MaxPool (no Indices output), AveragePool, GlobalMaxPool and GlobalAveragePool in float32 over
// 1 to 3 spatial axes. The window geometry (auto_pad, ceil_mode, pads, dilations) is the CPU
// EP's (PoolAttributes), so both EPs give the same output shape; the device kernels read each
// window's taps directly (pool.cu) rather than through cuDNN, whose pooling takes symmetric pads
// and floor-mode output sizes only.
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cpu/nn/pool_attributes.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cnn_device_kernels.h"
#include "providers/cuda/kernels/cuda_kernels.h"

namespace prism::cuda {
namespace {

class PoolKernel final : public OpKernel {
 public:
  PoolKernel(const OpKernelInfo& info, bool max)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        attributes_(cpu::PoolAttributes::Parse(info)),
        max_(max) {
    const std::string reason = PoolDeclineReason(info.GetNode());
    PRISM_ENFORCE(reason.empty(), kNotImplemented, info.GetNode().Describe(), ": ", reason);
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const cpu::PoolGeometry geometry = attributes_.Geometry(x.Shape(), GetNode());
    const size_t rank = geometry.output.size();
    PRISM_ENFORCE(rank >= 1 && rank <= static_cast<size_t>(kMaxCnnSpatialRank), kNotImplemented,
                  GetNode().Describe(), ": CUDAExecutionProvider pools 1 to 3 spatial axes");
    std::vector<int64_t> out_dims = {x.Shape()[0], x.Shape()[1]};
    out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
    Tensor& y = context.Output(0, TensorShape(out_dims), ElementType::kFloat);
    if (y.NumElements() == 0) return;
    PoolWindowGeometry window;
    window.planes = x.Shape()[0] * x.Shape()[1];
    // Spatial axes sit at the end of the 3 the device kernel walks.
    const size_t offset = kMaxCnnSpatialRank - rank;
    for (size_t d = 0; d < rank; ++d) {
      window.in_dims[offset + d] = geometry.input[d];
      window.out_dims[offset + d] = geometry.output[d];
      window.kernel[offset + d] = attributes_.kernel_shape[d];
      window.strides[offset + d] = attributes_.strides[d];
      window.dilations[offset + d] = attributes_.dilations[d];
      window.pad_begin[offset + d] = geometry.pad_begin[d];
      window.pad_end[offset + d] = geometry.pad_end[d];
    }
    if (max_)
      PRISM_CUDA_CALL(
          LaunchMaxPool(x.Data<float>(), y.MutableData<float>(), window, provider_.Stream()));
    else
      PRISM_CUDA_CALL(LaunchAveragePool(x.Data<float>(), y.MutableData<float>(), window,
                                        attributes_.count_include_pad, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  cpu::PoolAttributes attributes_;
  bool max_;
};

class GlobalPoolKernel final : public OpKernel {
 public:
  GlobalPoolKernel(const OpKernelInfo& info, bool max)
      : OpKernel(info), provider_(ProviderOf(info)), max_(max) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, GetNode().Describe(),
                  ": input X must have rank >= 2 (N x C x D1 x ...), got shape ", shape.ToString());
    std::vector<int64_t> out_dims(shape.Rank(), 1);
    out_dims[0] = shape[0];
    out_dims[1] = shape[1];
    const int64_t planes = shape.SizeToDimension(2);
    const int64_t plane_size = shape.SizeFromDimension(2);
    PRISM_ENFORCE(!max_ || planes == 0 || plane_size > 0, kInvalidArgument, GetNode().Describe(),
                  ": input X of shape ", shape.ToString(),
                  " has empty planes, which have no maximum");
    Tensor& y = context.Output(0, TensorShape(out_dims), ElementType::kFloat);
    if (y.NumElements() == 0) return;
    PRISM_CUDA_CALL(LaunchGlobalPool(x.Data<float>(), y.MutableData<float>(), planes, plane_size,
                                     max_, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  bool max_;
};

}  // namespace

void RegisterPoolKernels(KernelRegistry& registry) {
  const std::vector<ElementType> float_only = {ElementType::kFloat};
  const auto max_pool = [](const OpKernelInfo& info) {
    return std::make_unique<PoolKernel>(info, true);
  };
  registry.Register(
      KernelDefBuilder("MaxPool").Versions(1, 7).Constraint("T", float_only, {0}, {0}).Build(),
      max_pool);
  // Opset 8 added the optional Indices output (declined when used: PoolDeclineReason).
  registry.Register(KernelDefBuilder("MaxPool")
                        .Versions(8)
                        .Constraint("T", float_only, {0}, {0})
                        .Constraint("I", {ElementType::kInt64}, {}, {1})
                        .Build(),
                    max_pool);
  registry.Register(
      KernelDefBuilder("AveragePool").Versions(1).Constraint("T", float_only, {0}, {0}).Build(),
      [](const OpKernelInfo& info) { return std::make_unique<PoolKernel>(info, false); });
  registry.Register(
      KernelDefBuilder("GlobalMaxPool").Versions(1).Constraint("T", float_only, {0}, {0}).Build(),
      [](const OpKernelInfo& info) { return std::make_unique<GlobalPoolKernel>(info, true); });
  registry.Register(
      KernelDefBuilder("GlobalAveragePool")
          .Versions(1)
          .Constraint("T", float_only, {0}, {0})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<GlobalPoolKernel>(info, false); });
}

std::string PoolDeclineReason(const Node& node) {
  const std::string& op = node.OpType();
  if (!node.Domain().empty() || (op != "MaxPool" && op != "AveragePool")) return "";
  if (op == "MaxPool" && node.HasOutput(1))
    return "CUDAExecutionProvider's MaxPool has no Indices output (the node's second output is "
           "used)";
  const Attribute* kernel = node.FindAttribute("kernel_shape");
  if (kernel == nullptr || kernel->ints.empty() ||
      kernel->ints.size() > static_cast<size_t>(kMaxCnnSpatialRank))
    return "CUDAExecutionProvider's " + op + " takes a kernel_shape of 1 to 3 spatial axes";
  return "";
}

}  // namespace prism::cuda

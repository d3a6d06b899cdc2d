// Conv (float32, 1-D to 3-D) and com.microsoft FusedConv through cuDNN's forward convolution:
// group, dilations, strides, pads (asymmetric ones through a zero-padded copy of X), auto_pad
// resolved from the input shape at run time. The bias, FusedConv's Z and its activation follow
// in one elementwise pass. The algorithm comes from cudnn_conv_algo_search (EXHAUSTIVE: timed
// once per input shape and cached; HEURISTIC: cuDNN's ranking; DEFAULT: implicit precomputed
// GEMM), its workspace from the EP's device allocator.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cnn_device_kernels.h"
#include "providers/cuda/kernels/conv_geometry.h"
#include "providers/cuda/kernels/cuda_kernels.h"
#include "providers/cuda/kernels/cudnn_conv_common.h"

namespace prism::cuda {
namespace {

struct FusedActivationSpec {
  ConvActivationKind kind = ConvActivationKind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// FusedConv's activation and activation_params; "" with the spec, or why not.
std::string ParseFusedActivation(const Node& node, FusedActivationSpec* spec) {
  const Attribute* activation = node.FindAttribute("activation");
  const Attribute* params_attr = node.FindAttribute("activation_params");
  const std::string name = activation != nullptr ? activation->s : "";
  const std::vector<float> params =
      params_attr != nullptr ? params_attr->floats : std::vector<float>{};
  size_t needed = 0;
  if (name.empty()) {
    spec->kind = ConvActivationKind::kNone;
  } else if (name == "Relu") {
    spec->kind = ConvActivationKind::kRelu;
  } else if (name == "Tanh") {
    spec->kind = ConvActivationKind::kTanh;
  } else if (name == "Sigmoid") {
    spec->kind = ConvActivationKind::kSigmoid;
  } else if (name == "LeakyRelu") {
    spec->kind = ConvActivationKind::kLeakyRelu;
    needed = 1;
  } else if (name == "Clip") {
    spec->kind = ConvActivationKind::kClip;
    needed = 2;
  } else if (name == "HardSigmoid") {
    spec->kind = ConvActivationKind::kHardSigmoid;
    needed = 2;
  } else {
    return "FusedConv activation '" + name +
           "' is not one of Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid";
  }
  if (params.size() != needed && !(needed == 0 && params.empty()))
    return "FusedConv activation " + name + " takes " + std::to_string(needed) +
           " activation_params, got " + std::to_string(params.size());
  if (needed >= 1) spec->alpha = params[0];
  if (needed >= 2) spec->beta = params[1];
  return "";
}

struct ForwardAlgorithm {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  size_t workspace = 0;
};

class ConvKernel final : public OpKernel {
 public:
  ConvKernel(const OpKernelInfo& info, bool fused)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        attributes_(ConvAttributes::FromNode(info.GetNode())),
        fused_(fused) {
    const std::string reason = ConvAttributeDeclineReason(info.GetNode());
    PRISM_ENFORCE(reason.empty(), kNotImplemented, info.GetNode().Describe(),
                  ": CUDAExecutionProvider: ", reason);
    if (fused_) {
      const std::string why = ParseFusedActivation(info.GetNode(), &activation_);
      PRISM_ENFORCE(why.empty(), kInvalidArgument, info.GetNode().Describe(), ": ", why);
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor* b = context.Input(2);
    const Tensor* z = fused_ ? context.Input(3) : nullptr;
    const ConvGeometry g = ComputeConvGeometry(attributes_, x.Shape(), w.Shape(), node);
    PRISM_ENFORCE(g.input.size() >= 1 && g.input.size() <= 3, kNotImplemented, node.Describe(),
                  ": CUDAExecutionProvider's cuDNN convolution takes 1 to 3 spatial axes, got X ",
                  x.Shape().ToString());
    if (b != nullptr)
      PRISM_ENFORCE(b->Shape().Rank() == 1 && b->Shape()[0] == g.out_channels, kInvalidArgument,
                    node.Describe(), ": bias B must have shape [", g.out_channels, "], got ",
                    b->Shape().ToString());
    const TensorShape y_shape = g.OutputShape();
    if (z != nullptr)
      PRISM_ENFORCE(z->Type() == ElementType::kFloat && z->Shape() == y_shape, kInvalidArgument,
                    node.Describe(), ": FusedConv input Z must be float with Y's shape ",
                    y_shape.ToString(), ", got ", z->Describe());
    Tensor& y = context.Output(0, y_shape, ElementType::kFloat);
    if (y.NumElements() == 0) return;
    const int64_t plane = y_shape.SizeFromDimension(2);
    float* y_data = y.MutableData<float>();
    cudaStream_t stream = provider_.Stream();

    if (x.NumElements() == 0 || w.NumElements() == 0) {
      // Nothing to sum over (no input channels per group, or an empty spatial input that the
      // pads make room for): Y is the bias (and Z, activation) alone.
      PRISM_CUDA_CALL(cudaMemsetAsync(y_data, 0, y.SizeInBytes(), stream));
    } else {
      Convolve(g, x, w, y_data);
    }
    if (b != nullptr || z != nullptr || activation_.kind != ConvActivationKind::kNone)
      PRISM_CUDA_CALL(LaunchConvEpilogue(
          y_data, y.NumElements(), plane, g.out_channels, b != nullptr ? b->Data<float>() : nullptr,
          z != nullptr ? z->Data<float>() : nullptr, activation_.kind, activation_.alpha,
          activation_.beta, stream));
  }

 private:
  // What one input shape needs, built once (descriptors and the chosen algorithm): the
  // per-call work is then the launches alone.
  struct ForwardPlan {
    TensorDescriptor x_desc, y_desc;
    FilterDescriptor w_desc;
    ConvolutionDescriptor conv_desc;
    ForwardAlgorithm algorithm;
  };

  void Convolve(const ConvGeometry& g, const Tensor& x, const Tensor& w, float* y_data) const {
    cudaStream_t stream = provider_.Stream();
    AllocatorPtr allocator = provider_.GetAllocator(MemType::kDefault);
    // Asymmetric pads: the difference goes into a zero-padded copy of X.
    const PadSplit split = SplitPads(g.pad_begin, g.pad_end);
    std::vector<int64_t> input = g.input;
    const float* x_data = x.Data<float>();
    std::unique_ptr<DeviceBuffer> padded;
    if (split.NeedsCopy()) {
      input = split.PaddedInput(g.input);
      ShiftCopyGeometry copy;
      copy.planes = g.batch * g.in_channels;
      const size_t offset = kMaxCnnSpatialRank - input.size();
      for (size_t d = 0; d < input.size(); ++d) {
        copy.in_dims[offset + d] = g.input[d];
        copy.out_dims[offset + d] = input[d];
        copy.offset[offset + d] = split.explicit_begin[d];
      }
      const int64_t elements = TensorShape(Concat(g.batch, g.in_channels, input)).Size();
      padded = std::make_unique<DeviceBuffer>(allocator, static_cast<size_t>(elements) * 4);
      PRISM_CUDA_CALL(LaunchShiftCopy(x_data, static_cast<float*>(padded->Get()), copy, stream));
      x_data = static_cast<const float*>(padded->Get());
    }
    std::vector<int64_t> key = x.Shape().Dims();
    key.insert(key.end(), w.Shape().Dims().begin(), w.Shape().Dims().end());

    provider_.WithCudnn([&](cudnnHandle_t handle) {
      const ForwardPlan& plan = PlanFor(handle, key, g, split, input, x, w, x_data, y_data);
      DeviceBuffer workspace(allocator, plan.algorithm.workspace);
      const float one = 1.0f, zero = 0.0f;
      PRISM_CUDNN_CALL(cudnnConvolutionForward(
          handle, &one, plan.x_desc.Get(), x_data, plan.w_desc.Get(), w.Data<float>(),
          plan.conv_desc.Get(), plan.algorithm.algo, workspace.Get(), workspace.Bytes(), &zero,
          plan.y_desc.Get(), y_data));
    });
    // The padded copy and the workspace go back to the arena after enqueueing: stream-ordered.
  }

  // The cached plan for this X and W shape, built on first use (the caller holds the cuDNN
  // handle's lock; the EXHAUSTIVE search runs on x_data, w and y_data).
  const ForwardPlan& PlanFor(cudnnHandle_t handle, const std::vector<int64_t>& key,
                             const ConvGeometry& g, const PadSplit& split,
                             const std::vector<int64_t>& input, const Tensor& x, const Tensor& w,
                             const float* x_data, float* y_data) const {
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      auto found = plans_.find(key);
      if (found != plans_.end()) return *found->second;
    }
    const Node& node = GetNode();
    const std::vector<int> x_dims =
        ToCudnnInts(Concat(g.batch, g.in_channels, WithUnitAxis(input, 1)), node, "X dims");
    const std::vector<int> w_dims = ToCudnnInts(
        Concat(g.out_channels, g.in_channels / g.group, WithUnitAxis(g.kernel, 1)), node, "W dims");
    const std::vector<int> y_dims =
        ToCudnnInts(Concat(g.batch, g.out_channels, WithUnitAxis(g.output, 1)), node, "Y dims");
    auto plan = std::make_unique<ForwardPlan>();
    plan->x_desc.Set(x_dims);
    plan->y_desc.Set(y_dims);
    plan->w_desc.Set(w_dims);
    plan->conv_desc.Set(ToCudnnInts(WithUnitAxis(split.symmetric, 0), node, "pads"),
                        ToCudnnInts(WithUnitAxis(g.strides, 1), node, "strides"),
                        ToCudnnInts(WithUnitAxis(g.dilations, 1), node, "dilations"), g.group,
                        ConvMathType(provider_.Options()));
    // cuDNN must agree with the ONNX output shape (it always should: a guard, not a path).
    std::vector<int> cudnn_y(y_dims.size());
    PRISM_CUDNN_CALL(cudnnGetConvolutionNdForwardOutputDim(
        plan->conv_desc.Get(), plan->x_desc.Get(), plan->w_desc.Get(),
        static_cast<int>(cudnn_y.size()), cudnn_y.data()));
    PRISM_ENFORCE(cudnn_y == y_dims, kEpFail, node.Describe(),
                  ": CUDAExecutionProvider: cuDNN's convolution output shape differs from "
                  "ONNX's for X ",
                  x.Shape().ToString(), " and W ", w.Shape().ToString());
    plan->algorithm = ChooseAlgorithm(handle, *plan, x_data, w.Data<float>(), y_data);
    // What the chosen algorithm needs for these descriptors (at least what the search reported).
    size_t needed = 0;
    PRISM_CUDNN_CALL(cudnnGetConvolutionForwardWorkspaceSize(
        handle, plan->x_desc.Get(), plan->w_desc.Get(), plan->conv_desc.Get(), plan->y_desc.Get(),
        plan->algorithm.algo, &needed));
    plan->algorithm.workspace = std::max(needed, plan->algorithm.workspace);
    std::lock_guard<std::mutex> lock(cache_mutex_);
    // Map nodes stay put: the reference outlives later insertions.
    return *plans_.emplace(key, std::move(plan)).first->second;
  }

  ForwardAlgorithm ChooseAlgorithm(cudnnHandle_t handle, const ForwardPlan& plan,
                                   const float* x_data, const float* w_data, float* y_data) const {
    const CudaProviderOptions& options = provider_.Options();
    ForwardAlgorithm chosen;
    if (options.cudnn_conv_algo_search == "DEFAULT") {
      // onnxruntime's default; implicit GEMM (no workspace) where cuDNN does not support it.
      size_t bytes = 0;
      chosen.algo =
          cudnnGetConvolutionForwardWorkspaceSize(
              handle, plan.x_desc.Get(), plan.w_desc.Get(), plan.conv_desc.Get(), plan.y_desc.Get(),
              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &bytes) == CUDNN_STATUS_SUCCESS
              ? CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM
              : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
      return chosen;
    }
    // The largest workspace any algorithm asks for, under the cap.
    size_t largest = 0;
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
      size_t bytes = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(
              handle, plan.x_desc.Get(), plan.w_desc.Get(), plan.conv_desc.Get(), plan.y_desc.Get(),
              static_cast<cudnnConvolutionFwdAlgo_t>(a), &bytes) == CUDNN_STATUS_SUCCESS)
        largest = std::max(largest, bytes);
    }
    const size_t limit = ConvWorkspaceLimit(options, largest);
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    if (options.cudnn_conv_algo_search == "EXHAUSTIVE") {
      DeviceBuffer workspace(provider_.GetAllocator(MemType::kDefault), limit);
      PRISM_CUDNN_CALL(cudnnFindConvolutionForwardAlgorithmEx(
          handle, plan.x_desc.Get(), x_data, plan.w_desc.Get(), w_data, plan.conv_desc.Get(),
          plan.y_desc.Get(), y_data, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, results,
          workspace.Get(), workspace.Bytes()));
      PRISM_CUDA_CALL(cudaStreamSynchronize(provider_.Stream()));
    } else {
      PRISM_CUDNN_CALL(cudnnGetConvolutionForwardAlgorithm_v7(
          handle, plan.x_desc.Get(), plan.w_desc.Get(), plan.conv_desc.Get(), plan.y_desc.Get(),
          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, results));
    }
    for (int i = 0; i < returned; ++i) {
      if (results[i].status != CUDNN_STATUS_SUCCESS || results[i].memory > limit) continue;
      chosen.algo = results[i].algo;
      chosen.workspace = results[i].memory;
      return chosen;
    }
    // None fits: implicit GEMM, which needs no workspace.
    chosen.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    return chosen;
  }

  const CudaExecutionProvider& provider_;
  ConvAttributes attributes_;
  bool fused_;
  FusedActivationSpec activation_;
  mutable std::mutex cache_mutex_;
  mutable std::map<std::vector<int64_t>, std::unique_ptr<ForwardPlan>> plans_;
};

}  // namespace

void RegisterConvKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("Conv")
          .Versions(1)
          .Constraint("T", {ElementType::kFloat}, {0, 1, 2}, {0})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<ConvKernel>(info, false); });
  registry.Register(
      KernelDefBuilder("FusedConv")
          .Domain("com.microsoft")
          .Versions(1)
          .Constraint("T", {ElementType::kFloat}, {0, 1, 2, 3}, {0})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<ConvKernel>(info, true); });
}

std::string ConvDeclineReason(const Node& node) {
  const std::string& op = node.OpType();
  const bool fused = op == "FusedConv" && node.Domain() == "com.microsoft";
  if (!fused && !(node.Domain().empty() && (op == "Conv" || op == "ConvTranspose"))) return "";
  std::string reason = ConvAttributeDeclineReason(node);
  if (reason.empty() && fused) {
    FusedActivationSpec spec;
    reason = ParseFusedActivation(node, &spec);
  }
  return reason.empty() ? "" : "CUDAExecutionProvider's " + op + ": " + reason;
}

}  // namespace prism::cuda

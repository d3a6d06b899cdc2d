// ConvTranspose (float32, 1-D to 3-D) through cuDNN's backward-data convolution: Y is the
// gradient of a convolution of Y's shape whose output is X, with W [C, M / group, k...] as that
// convolution's filter. Symmetric non-negative pads go to cuDNN directly (output_padding cells
// are then part of Y's dims); otherwise cuDNN writes the full, unpadded result and Y is cropped
// out of it (zeros where output_shape reaches past it). The bias follows in one pass.
#include <algorithm>
#include <map>
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

struct BackwardDataAlgorithm {
  cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  size_t workspace = 0;
};

class ConvTransposeKernel final : public OpKernel {
 public:
  explicit ConvTransposeKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        attributes_(ConvAttributes::FromNode(info.GetNode())) {
    const std::string reason = ConvAttributeDeclineReason(info.GetNode());
    PRISM_ENFORCE(reason.empty(), kNotImplemented, info.GetNode().Describe(),
                  ": CUDAExecutionProvider: ", reason);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor* b = context.Input(2);
    const ConvGeometry g = ComputeConvTransposeGeometry(attributes_, x.Shape(), w.Shape(), node);
    PRISM_ENFORCE(g.input.size() >= 1 && g.input.size() <= 3, kNotImplemented, node.Describe(),
                  ": CUDAExecutionProvider's cuDNN ConvTranspose takes 1 to 3 spatial axes, got X ",
                  x.Shape().ToString());
    if (b != nullptr)
      PRISM_ENFORCE(b->Shape().Rank() == 1 && b->Shape()[0] == g.out_channels, kInvalidArgument,
                    node.Describe(), ": bias B must have shape [", g.out_channels, "], got ",
                    b->Shape().ToString());
    const TensorShape y_shape = g.OutputShape();
    Tensor& y = context.Output(0, y_shape, ElementType::kFloat);
    if (y.NumElements() == 0) return;
    float* y_data = y.MutableData<float>();
    cudaStream_t stream = provider_.Stream();
    if (x.NumElements() == 0) {
      // No input cells (C == 0, or a zero spatial input with output_shape): Y is the bias.
      PRISM_CUDA_CALL(cudaMemsetAsync(y_data, 0, y.SizeInBytes(), stream));
    } else {
      bool direct = g.SymmetricPads();
      for (int64_t pad : g.pad_begin) direct = direct && pad >= 0;
      // cuDNN refuses Y's dims when they do not convolve back to X's (output_padding >= stride):
      // then the crop path, whose full dims always do.
      if (!direct || !Transpose(g, x, w, y_data, true)) Transpose(g, x, w, y_data, false);
    }
    if (b != nullptr)
      PRISM_CUDA_CALL(LaunchConvEpilogue(y_data, y.NumElements(), y_shape.SizeFromDimension(2),
                                         g.out_channels, b->Data<float>(), nullptr,
                                         ConvActivationKind::kNone, 0.0f, 0.0f, stream));
  }

 private:
  // Enqueues Y; false (nothing enqueued) when cuDNN does not take Y's dims directly.
  bool Transpose(const ConvGeometry& g, const Tensor& x, const Tensor& w, float* y_data,
                 bool direct) const {
    const Node& node = GetNode();
    cudaStream_t stream = provider_.Stream();
    AllocatorPtr allocator = provider_.GetAllocator(MemType::kDefault);
    const size_t rank = g.input.size();
    // Direct: cuDNN writes Y with pads pad_begin; else the full result, cropped afterwards.
    const std::vector<int64_t> target = direct ? g.output : ConvTransposeFullOutput(g);
    const std::vector<int64_t> pads = direct ? g.pad_begin : std::vector<int64_t>(rank, 0);
    std::unique_ptr<DeviceBuffer> full;
    float* target_data = y_data;
    if (!direct) {
      const int64_t elements = TensorShape(Concat(g.batch, g.out_channels, target)).Size();
      full = std::make_unique<DeviceBuffer>(allocator, static_cast<size_t>(elements) * 4);
      target_data = static_cast<float*>(full->Get());
    }

    const std::vector<int> x_dims =
        ToCudnnInts(Concat(g.batch, g.in_channels, WithUnitAxis(g.input, 1)), node, "X dims");
    const std::vector<int> w_dims = ToCudnnInts(
        Concat(g.in_channels, g.out_channels / g.group, WithUnitAxis(g.kernel, 1)), node, "W dims");
    const std::vector<int> y_dims =
        ToCudnnInts(Concat(g.batch, g.out_channels, WithUnitAxis(target, 1)), node, "Y dims");
    const std::vector<int> pad_ints = ToCudnnInts(WithUnitAxis(pads, 0), node, "pads");
    const std::vector<int> strides = ToCudnnInts(WithUnitAxis(g.strides, 1), node, "strides");
    const std::vector<int> dilations = ToCudnnInts(WithUnitAxis(g.dilations, 1), node, "dilations");
    bool cudnn_agrees = true;
    provider_.WithCudnn([&](cudnnHandle_t handle) {
      // The forward convolution whose gradient this is: Y's dims in, X's dims out.
      TensorDescriptor dy_desc, dx_desc;
      FilterDescriptor w_desc;
      ConvolutionDescriptor conv_desc;
      dy_desc.Set(x_dims);
      dx_desc.Set(y_dims);
      w_desc.Set(w_dims);
      conv_desc.Set(pad_ints, strides, dilations, g.group, ConvMathType(provider_.Options()));
      std::vector<int> forward(x_dims.size());
      PRISM_CUDNN_CALL(
          cudnnGetConvolutionNdForwardOutputDim(conv_desc.Get(), dx_desc.Get(), w_desc.Get(),
                                                static_cast<int>(forward.size()), forward.data()));
      if (forward != x_dims) {
        cudnn_agrees = false;
        return;
      }
      const BackwardDataAlgorithm chosen =
          Algorithm(handle, x_dims, y_dims, w_desc, dy_desc, conv_desc, dx_desc, w.Data<float>(),
                    x.Data<float>(), target_data, allocator);
      size_t needed = 0;
      PRISM_CUDNN_CALL(cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, w_desc.Get(), dy_desc.Get(), conv_desc.Get(), dx_desc.Get(), chosen.algo,
          &needed));
      DeviceBuffer workspace(allocator, std::max(needed, chosen.workspace));
      const float one = 1.0f, zero = 0.0f;
      PRISM_CUDNN_CALL(cudnnConvolutionBackwardData(handle, &one, w_desc.Get(), w.Data<float>(),
                                                    dy_desc.Get(), x.Data<float>(), conv_desc.Get(),
                                                    chosen.algo, workspace.Get(), workspace.Bytes(),
                                                    &zero, dx_desc.Get(), target_data));
    });
    if (!cudnn_agrees && direct) return false;
    // Never expected (the full dims always convolve back to X's): a guard, not a path.
    PRISM_ENFORCE(cudnn_agrees, kEpFail, node.Describe(),
                  ": CUDAExecutionProvider: cuDNN's convolution of the ConvTranspose output "
                  "shape does not give X's shape ",
                  x.Shape().ToString());
    if (!direct) {
      ShiftCopyGeometry crop;
      crop.planes = g.batch * g.out_channels;
      const size_t offset = 3 - rank;
      for (size_t d = 0; d < rank; ++d) {
        crop.in_dims[offset + d] = target[d];
        crop.out_dims[offset + d] = g.output[d];
        crop.offset[offset + d] = -g.pad_begin[d];
      }
      PRISM_CUDA_CALL(LaunchShiftCopy(target_data, y_data, crop, stream));
    }
    return true;
  }

  BackwardDataAlgorithm Algorithm(cudnnHandle_t handle, const std::vector<int>& x_dims,
                                  const std::vector<int>& y_dims, const FilterDescriptor& w_desc,
                                  const TensorDescriptor& dy_desc,
                                  const ConvolutionDescriptor& conv_desc,
                                  const TensorDescriptor& dx_desc, const float* w_data,
                                  const float* dy_data, float* dx_data,
                                  const AllocatorPtr& allocator) const {
    std::vector<int> key = x_dims;
    key.insert(key.end(), y_dims.begin(), y_dims.end());
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      auto found = cache_.find(key);
      if (found != cache_.end()) return found->second;
    }
    const CudaProviderOptions& options = provider_.Options();
    BackwardDataAlgorithm chosen;
    // ALGO_1 is onnxruntime's default; ALGO_0 (no workspace) where cuDNN does not support it.
    size_t algo1_bytes = 0;
    const cudnnConvolutionBwdDataAlgo_t fallback =
        cudnnGetConvolutionBackwardDataWorkspaceSize(
            handle, w_desc.Get(), dy_desc.Get(), conv_desc.Get(), dx_desc.Get(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &algo1_bytes) == CUDNN_STATUS_SUCCESS
            ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_1
            : CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
    chosen.algo = fallback;
    if (options.cudnn_conv_algo_search != "DEFAULT") {
      size_t largest = 0;
      for (int a = 0; a < CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT; ++a) {
        size_t bytes = 0;
        if (cudnnGetConvolutionBackwardDataWorkspaceSize(
                handle, w_desc.Get(), dy_desc.Get(), conv_desc.Get(), dx_desc.Get(),
                static_cast<cudnnConvolutionBwdDataAlgo_t>(a), &bytes) == CUDNN_STATUS_SUCCESS)
          largest = std::max(largest, bytes);
      }
      const size_t limit = ConvWorkspaceLimit(options, largest);
      cudnnConvolutionBwdDataAlgoPerf_t results[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      int returned = 0;
      if (options.cudnn_conv_algo_search == "EXHAUSTIVE") {
        DeviceBuffer workspace(allocator, limit);
        PRISM_CUDNN_CALL(cudnnFindConvolutionBackwardDataAlgorithmEx(
            handle, w_desc.Get(), w_data, dy_desc.Get(), dy_data, conv_desc.Get(), dx_desc.Get(),
            dx_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, results, workspace.Get(),
            workspace.Bytes()));
        PRISM_CUDA_CALL(cudaStreamSynchronize(provider_.Stream()));
      } else {
        PRISM_CUDNN_CALL(cudnnGetConvolutionBackwardDataAlgorithm_v7(
            handle, w_desc.Get(), dy_desc.Get(), conv_desc.Get(), dx_desc.Get(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, results));
      }
      bool found = false;
      for (int i = 0; i < returned && !found; ++i) {
        if (results[i].status != CUDNN_STATUS_SUCCESS || results[i].memory > limit) continue;
        chosen.algo = results[i].algo;
        chosen.workspace = results[i].memory;
        found = true;
      }
      if (!found) chosen.algo = fallback;
    }
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cache_.emplace(key, chosen);
    return chosen;
  }

  const CudaExecutionProvider& provider_;
  ConvAttributes attributes_;
  mutable std::mutex cache_mutex_;
  mutable std::map<std::vector<int>, BackwardDataAlgorithm> cache_;
};

}  // namespace

void RegisterConvTransposeKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("ConvTranspose")
          .Versions(1)
          .Constraint("T", {ElementType::kFloat}, {0, 1, 2}, {0})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<ConvTransposeKernel>(info); });
}

}  // namespace prism::cuda

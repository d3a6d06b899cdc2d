#include "providers/cuda/cuda_execution_provider.h"

#include "common/logging.h"
#include "framework/arena_allocator.h"
#include "graph/graph.h"
#include "providers/cuda/cuda_allocator.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_data_transfer.h"
#include "providers/cuda/kernels/cuda_kernels.h"

namespace prism::cuda {

bool CudaDeviceUsable(int device_id, std::string* why) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Without a driver (no libcuda.so.1) this is cudaErrorInsufficientDriver, not NoDevice.
    cudaGetLastError();
    if (why != nullptr)
      *why = MakeString("no usable CUDA device (cudaGetDeviceCount: ", cudaGetErrorName(error),
                        ": ", cudaGetErrorString(error), ")");
    return false;
  }
  if (device_id >= count) {
    if (why != nullptr)
      *why =
          MakeString("device_id ", device_id, " asked for, but ", count, " CUDA device(s) present");
    return false;
  }
  return true;
}

CudaExecutionProvider::CudaExecutionProvider(const ProviderOptions& options)
    : IExecutionProvider(kProviderName), options_(ParseCudaProviderOptions(options)) {
  std::string why;
  PRISM_ENFORCE(CudaDeviceUsable(options_.device_id, &why), kEpFail, kProviderName, ": ", why);
  PRISM_CUDA_CALL(cudaSetDevice(options_.device_id));
  PRISM_CUDA_CALL(cudaStreamCreate(&stream_));
  PRISM_CUBLAS_CALL(cublasCreate(&cublas_));
  PRISM_CUBLAS_CALL(cublasSetStream(cublas_, stream_));
  PRISM_CUDNN_CALL(cudnnCreate(&cudnn_));
  PRISM_CUDNN_CALL(cudnnSetStream(cudnn_, stream_));
  // FP32 GEMMs stay FP32 unless TF32 is asked for (onnxruntime's use_tf32 is on by default; Prism
  // keeps exact float results by default and documents the difference).
  PRISM_CUBLAS_CALL(cublasSetMathMode(
      cublas_, options_.use_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
  ArenaOptions arena;
  arena.extend_strategy = options_.arena_extend_strategy;
  arena.max_bytes = options_.gpu_mem_limit;
  device_allocator_ = std::make_shared<ArenaAllocator>(
      std::make_shared<CudaDeviceAllocator>(options_.device_id), arena);
  pinned_allocator_ = std::make_shared<CudaPinnedAllocator>();
  transfer_ = std::make_shared<CudaDataTransfer>(
      options_.device_id, options_.do_copy_in_default_stream ? nullptr : stream_);
  registry_ = std::make_shared<KernelRegistry>();
  RegisterElementwiseKernels(*registry_);
  RegisterMatMulKernels(*registry_);
  RegisterSoftmaxKernels(*registry_);
  RegisterConvKernels(*registry_);
  RegisterConvTransposeKernels(*registry_);
  RegisterPoolKernels(*registry_);
  RegisterBatchNormKernels(*registry_);
}

CudaExecutionProvider::~CudaExecutionProvider() {
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::vector<ComputeCapability> CudaExecutionProvider::GetCapability(
    const GraphViewer& graph, const KernelLookup& lookup,
    std::vector<DeclinedNode>* declined) const {
  std::vector<ComputeCapability> claims;
  for (NodeIndex index : graph.Nodes()) {
    const Node& node = graph.GetNode(index);
    std::string reason;
    if (lookup.Find(node, &reason) != nullptr) {
      reason = ElementwiseDeclineReason(node);
      if (reason.empty()) reason = MatMulDeclineReason(node);
      if (reason.empty()) reason = SoftmaxDeclineReason(node);
      if (reason.empty()) reason = ConvDeclineReason(node);
      if (reason.empty()) reason = PoolDeclineReason(node);
      if (reason.empty()) reason = BatchNormDeclineReason(node);
    }
    if (reason.empty()) {
      ComputeCapability claim;
      claim.nodes.push_back(index);
      claims.push_back(std::move(claim));
    } else if (declined != nullptr) {
      declined->push_back(DeclinedNode{index, reason});
    }
  }
  return claims;
}

AllocatorPtr CudaExecutionProvider::GetAllocator(MemType mem_type) const {
  return mem_type == MemType::kDefault ? device_allocator_ : pinned_allocator_;
}

const CudaExecutionProvider& ProviderOf(const OpKernelInfo& info) {
  return static_cast<const CudaExecutionProvider&>(info.Provider());
}

namespace {

class CudaExecutionProviderFactory final : public IExecutionProviderFactory {
 public:
  std::string Name() const override { return kProviderName; }
  bool IsAvailable(std::string* why) const override { return CudaDeviceUsable(0, why); }
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override {
    return std::make_unique<CudaExecutionProvider>(options);
  }
};

}  // namespace
}  // namespace prism::cuda

extern "C" __attribute__((visibility("default"))) const PrismProviderDescriptor*
PrismGetProviderDescriptor() {
  static const PrismProviderDescriptor descriptor{
      prism::kProviderInterfaceVersion, prism::cuda::kProviderName,
      []() -> prism::IExecutionProviderFactory* {
        return new prism::cuda::CudaExecutionProviderFactory();
      }};
  return &descriptor;
}

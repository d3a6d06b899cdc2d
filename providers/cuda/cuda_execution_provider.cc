#include "providers/cuda/cuda_execution_provider.h"

#include <map>
#include <set>

#include "common/logging.h"
#include "framework/arena_allocator.h"
#include "framework/shape_computation.h"
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
  // keeps full float results by default and documents the difference). CUBLAS_DEFAULT_MATH
  // never converts float operands to TF32 (only CUBLAS_TF32_TENSOR_OP_MATH does), as PyTorch
  // with allow_tf32 off. PEDANTIC math may narrow cuBLAS's kernel choice further (with it,
  // bert_base at batch 32 took 1.3x PyTorch's time on an H100).
  PRISM_CUBLAS_CALL(cublasSetMathMode(
      cublas_, options_.use_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  ArenaOptions arena;
  arena.extend_strategy = options_.arena_extend_strategy;
  arena.max_bytes = options_.gpu_mem_limit;
  device_arena_ = std::make_shared<ArenaAllocator>(
      std::make_shared<CudaDeviceAllocator>(options_.device_id), arena);
  device_allocator_ = device_arena_;
  if (options_.enable_cuda_graph) {
    // cuBLAS allocates its workspace on first use unless given one; during a capture it must
    // allocate nothing.
    constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;
    PRISM_CUDA_CALL(cudaMalloc(&cublas_workspace_, kCublasWorkspaceBytes));
    PRISM_CUBLAS_CALL(cublasSetWorkspace(cublas_, cublas_workspace_, kCublasWorkspaceBytes));
  }
  pinned_allocator_ = std::make_shared<CudaPinnedAllocator>();
  transfer_ = std::make_shared<CudaDataTransfer>(
      options_.device_id, options_.do_copy_in_default_stream ? nullptr : stream_);
  registry_ = std::make_shared<KernelRegistry>();
  RegisterElementwiseKernels(*registry_);
  RegisterMatMulKernels(*registry_);
  RegisterSoftmaxKernels(*registry_);
  RegisterMovementKernels(*registry_);
  RegisterConvKernels(*registry_);
  RegisterConvTransposeKernels(*registry_);
  RegisterPoolKernels(*registry_);
  RegisterBatchNormKernels(*registry_);
}

CudaExecutionProvider::~CudaExecutionProvider() {
  if (graph_exec_ != nullptr) cudaGraphExecDestroy(graph_exec_);
  for (const auto& check : deferred_checks_) device_arena_->Free(check.first);
  for (void* reserved : graph_memory_) device_arena_->Free(reserved);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (cublas_workspace_ != nullptr) cudaFree(cublas_workspace_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::vector<ComputeCapability> CudaExecutionProvider::GetCapability(
    const GraphViewer& graph, const KernelLookup& lookup,
    std::vector<DeclinedNode>* declined) const {
  // What this EP could run, with the kernel definition it would use.
  std::map<NodeIndex, const KernelDef*> runnable;
  std::map<NodeIndex, std::string> reasons;
  for (NodeIndex index : graph.Nodes()) {
    const Node& node = graph.GetNode(index);
    std::string reason;
    const KernelCreateInfo* info = lookup.Find(node, &reason);
    if (info != nullptr) {
      reason = ElementwiseDeclineReason(node);
      if (reason.empty()) reason = MatMulDeclineReason(node);
      if (reason.empty()) reason = SoftmaxDeclineReason(node);
      if (reason.empty()) reason = MovementDeclineReason(node);
      if (reason.empty()) reason = ConvDeclineReason(node);
      if (reason.empty()) reason = PoolDeclineReason(node);
      if (reason.empty()) reason = BatchNormDeclineReason(node);
    }
    if (reason.empty())
      runnable[index] = &info->def;
    else
      reasons[index] = std::move(reason);
  }
  // Shape computations stay on the CPU EP: their inputs and readers are there already.
  const std::set<NodeIndex> shape_nodes = ShapeComputationNodes(graph, [&](const Node& node) {
    auto it = runnable.find(node.Index());
    return it != runnable.end() ? it->second : nullptr;
  });
  std::vector<ComputeCapability> claims;
  for (NodeIndex index : graph.Nodes()) {
    if (shape_nodes.count(index)) {
      reasons[index] =
          "shape computation: kept on the CPU so no device round trip happens (it reads only "
          "shapes and constants, and only CPU-memory inputs read its outputs)";
    } else if (runnable.count(index)) {
      ComputeCapability claim;
      claim.nodes.push_back(index);
      claims.push_back(std::move(claim));
      continue;
    }
    if (declined != nullptr) declined->push_back(DeclinedNode{index, reasons[index]});
  }
  return claims;
}

void CudaExecutionProvider::BeginGraphCapture() const {
  PRISM_CUDA_CALL(cudaSetDevice(options_.device_id));
  // Everything enqueued before the capture has finished, so the graph depends on nothing.
  PRISM_CUDA_CALL(cudaStreamSynchronize(stream_));
  // Relaxed: the host-side work between kernels (shape checks, arena bookkeeping) is not a
  // CUDA call that capture has to forbid.
  ClearDeferredChecks();
  PRISM_CUDA_CALL(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
}

bool CudaExecutionProvider::Capturing() const {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  PRISM_CUDA_CALL(cudaStreamIsCapturing(stream_, &status));
  return status != cudaStreamCaptureStatusNone;
}

int* CudaExecutionProvider::DeferredCheckFlag(std::string message) const {
  int* flag = static_cast<int*>(device_arena_->Alloc(sizeof(int)));
  deferred_checks_.emplace_back(flag, std::move(message));
  PRISM_CUDA_CALL(cudaMemsetAsync(flag, 0, sizeof(int), stream_));
  return flag;
}

void CudaExecutionProvider::ClearDeferredChecks() const {
  for (const auto& check : deferred_checks_) device_arena_->Free(check.first);
  deferred_checks_.clear();
}

void CudaExecutionProvider::EndGraphCapture(bool keep) const {
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  if (!keep || ended != cudaSuccess) {
    ClearDeferredChecks();
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();  // a failed capture leaves a non-sticky error behind
    if (keep) ThrowOnCudaError(ended, "cudaStreamEndCapture");
    return;
  }
  if (graph_exec_ != nullptr) {
    cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
  }
  const cudaError_t instantiated = cudaGraphInstantiate(&graph_exec_, graph, 0);
  cudaGraphDestroy(graph);
  ThrowOnCudaError(instantiated, "cudaGraphInstantiate");
}

void CudaExecutionProvider::ReplayGraph() const {
  PRISM_ENFORCE(graph_exec_ != nullptr, kRuntimeException, kProviderName,
                ": no captured graph to replay");
  PRISM_CUDA_CALL(cudaGraphLaunch(graph_exec_, stream_));
  for (const auto& [flag, message] : deferred_checks_) {
    int raised = 0;
    PRISM_CUDA_CALL(cudaMemcpyAsync(&raised, flag, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CALL(cudaStreamSynchronize(stream_));
    PRISM_ENFORCE(raised == 0, kInvalidArgument, message);
  }
}

void CudaExecutionProvider::ReserveCapturedMemory() const {
  std::vector<void*> reserved = device_arena_->ReserveFree();
  graph_memory_.insert(graph_memory_.end(), reserved.begin(), reserved.end());
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

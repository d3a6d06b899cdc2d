// The CUDA execution provider, a plugin (libprism_provider_cuda.so) like any other EP: device
// memory behind Prism's arena, copies on its stream, and kernels for float32 MatMul and Gemm
// (cuBLAS), elementwise math and activations with broadcasting, and Softmax/LogSoftmax
// (kernels/). Nodes it cannot run are declined with the reason, and the CPU EP runs them. On a
// machine without a usable GPU the plugin loads, reports itself unavailable with CUDA's error,
// and a session asking for it falls back (or fails when told to).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "framework/arena_allocator.h"
#include "framework/execution_provider.h"
#include "providers/cuda/cuda_provider_options.h"

namespace prism::cuda {

constexpr const char* kProviderName = "CUDAExecutionProvider";

// Whether a GPU can be used here; *why says what is missing (driver, device, the id asked for).
bool CudaDeviceUsable(int device_id, std::string* why);

class CudaExecutionProvider final : public IExecutionProvider {
 public:
  explicit CudaExecutionProvider(const ProviderOptions& options);
  ~CudaExecutionProvider() override;

  std::vector<ComputeCapability> GetCapability(const GraphViewer& graph, const KernelLookup& lookup,
                                               std::vector<DeclinedNode>* declined) const override;
  std::shared_ptr<KernelRegistry> GetKernelRegistry() const override { return registry_; }
  AllocatorPtr GetAllocator(MemType mem_type) const override;
  std::shared_ptr<IDataTransfer> GetDataTransfer() const override { return transfer_; }
  ProviderOptions GetProviderOptions() const override { return options_.ToMap(); }

  // enable_cuda_graph: the EP's stream is captured into a CUDA graph once and the graph replayed
  // (session/graph_capture.h decides when).
  bool GraphCaptureEnabled() const override { return options_.enable_cuda_graph; }
  void BeginGraphCapture() const override;
  void EndGraphCapture(bool keep) const override;
  void ReplayGraph() const override;
  void ReserveCapturedMemory() const override;
  // Whether the EP's stream is being captured: kernels must not synchronize then.
  bool Capturing() const;
  // For a kernel that checks its data on the device and reads a flag back (Gather's indices):
  // while capturing it cannot, so it takes a flag from here instead (zeroed on the stream, so
  // in every replay), and every replay reads the flags afterwards and fails with the message of
  // the first one raised. The flag lives as long as the graph.
  int* DeferredCheckFlag(std::string message) const;

 private:
  void ClearDeferredChecks() const;

 public:

  // For the kernels: the stream they enqueue on, and cuBLAS (one handle, calls serialized).
  int DeviceId() const { return options_.device_id; }
  cudaStream_t Stream() const { return stream_; }
  template <typename Fn>
  void WithCublas(Fn&& fn) const {
    std::lock_guard<std::mutex> lock(cublas_mutex_);
    fn(cublas_);
  }
  // cuDNN (one handle on the EP's stream, calls serialized).
  template <typename Fn>
  void WithCudnn(Fn&& fn) const {
    std::lock_guard<std::mutex> lock(cudnn_mutex_);
    fn(cudnn_);
  }
  const CudaProviderOptions& Options() const { return options_; }

 private:
  CudaProviderOptions options_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  mutable std::mutex cublas_mutex_;
  cudnnHandle_t cudnn_ = nullptr;
  mutable std::mutex cudnn_mutex_;
  AllocatorPtr device_allocator_;
  AllocatorPtr pinned_allocator_;
  std::shared_ptr<IDataTransfer> transfer_;
  std::shared_ptr<KernelRegistry> registry_;
  std::shared_ptr<ArenaAllocator> device_arena_;  // device_allocator_ itself
  // Graph capture: the instantiated graph, cuBLAS's own workspace (so that cuBLAS allocates
  // nothing while a capture is under way) and the arena memory the graph replays into.
  mutable cudaGraphExec_t graph_exec_ = nullptr;
  void* cublas_workspace_ = nullptr;
  mutable std::vector<void*> graph_memory_;
  mutable std::vector<std::pair<int*, std::string>> deferred_checks_;
};

// The EP a CUDA kernel was created for (the kernels are registered only with this EP).
const CudaExecutionProvider& ProviderOf(const OpKernelInfo& info);

}  // namespace prism::cuda

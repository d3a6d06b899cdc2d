// The CUDA EP's provider options, by onnxruntime's names, checked when the EP is created: an
// unknown key or a malformed value is an error naming it, and an option this EP does not honour
// yet is refused with the reason (never accepted and dropped).
#pragma once

#include <cstdint>
#include <string>

#include "framework/arena_allocator.h"
#include "framework/execution_provider.h"

namespace prism::cuda {

struct CudaProviderOptions {
  int device_id = 0;
  size_t gpu_mem_limit = 0;  // 0: no limit (onnxruntime's SIZE_MAX)
  ArenaExtendStrategy arena_extend_strategy = ArenaExtendStrategy::kNextPowerOfTwo;
  // true: copies run on the CUDA default stream; false: on the EP's stream.
  bool do_copy_in_default_stream = true;
  bool use_tf32 = false;  // TF32 tensor-core math in cuBLAS (off: full fp32)
  std::string cudnn_conv_algo_search = "EXHAUSTIVE";
  bool cudnn_conv_use_max_workspace = true;
  // Capture the whole run once as a CUDA graph and replay it (every node on this EP, inputs
  // bound in device memory; session/graph_capture.h).
  bool enable_cuda_graph = false;

  // Every option with its value, as get_provider_options() shows them.
  ProviderOptions ToMap() const;
};

CudaProviderOptions ParseCudaProviderOptions(const ProviderOptions& options);

}  // namespace prism::cuda

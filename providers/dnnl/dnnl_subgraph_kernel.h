// The compiled form of one oneDNN subgraph: a kernel that, per set of input shapes, builds a
// chain of oneDNN primitives (a "plan") on the EP's CPU engine and runs it.
//
// - Plans are cached by the input shapes (and the values the EP reads on the host: Reshape's
//   shape, Clip's bounds, ...) and by the thread count, so dynamic shapes work and a repeated
//   shape costs nothing; the least recently used plan goes when max_cached_shapes is exceeded.
// - Values cross the subgraph's border in plain (row-major) layout: inputs are read and outputs
//   written in place in Prism's tensors. Inside, Conv and pooling let oneDNN choose blocked
//   layouts (format_tag::any) and values are reordered only where a consumer needs another one.
// - Constant weights (initializers) are reordered into the layout a primitive wants once, and the
//   reordered copy is shared by every plan that wants the same layout. When the subgraph's input
//   shapes are static, the first plan is built at Compile, so the reorders happen then.
// - Post-ops: eltwise nodes (Relu, Clip, Gelu, ...) and Add fuse into the Conv, MatMul or Gemm
//   they follow (Conv + Add as oneDNN's sum post-op, MatMul/Gemm + Add as bias or binary
//   post-op); a fusion that would leave oneDNN with only its reference implementation is undone.
// - Threads: oneDNN's OpenMP runs with the session's intra-op thread count (or the provider
//   option intra_op_num_threads) on the calling thread, set while building and running a plan.
#pragma once

#include <cstdint>
#include <memory>

#include <oneapi/dnnl/dnnl.hpp>

#include "framework/op_kernel.h"

namespace prism::dnnl_ep {

struct DnnlSettings {
  int threads = 0;        // 0: the session's intra-op thread count
  bool use_arena = true;  // keep intermediate buffers between runs (per plan)
  bool enable_fusion = true;
  bool blocked_layouts = true;
  int max_cached_shapes = 32;
};

std::unique_ptr<OpKernel> CompileSubgraph(const Graph& body, const OpKernelInfo& info,
                                          const DnnlSettings& settings,
                                          const dnnl::engine& engine);

// Plans built by every subgraph kernel of this process (a test hook for the shape cache).
int64_t PlansBuilt();

}  // namespace prism::dnnl_ep

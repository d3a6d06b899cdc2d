// The oneDNN execution provider (docs/dnnl.md), built as the plugin libprism_provider_dnnl.so.
// GetCapability claims connected groups of the nodes oneDNN can run (float32 Conv, MatMul, Gemm,
// pooling, BatchNormalization, eltwise, binary, Softmax, LayerNormalization and the layout ops)
// as fused subgraphs and declines every other node with a reason the partition report shows;
// Compile turns each group into a chain of oneDNN primitives on a CPU engine (the subgraph
// kernel, dnnl_subgraph_kernel.h). Its memory is ordinary CPU memory, so no copies are needed
// between it and the CPU EP.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "framework/execution_provider.h"
#include "providers/dnnl/dnnl_subgraph_kernel.h"

namespace prism::dnnl_ep {

constexpr const char* kProviderName = "DnnlExecutionProvider";
constexpr const char* kFusedDomain = "com.prism.dnnl";

// Parses the provider options (onnxruntime's DNNL EP keys where they mean something here, plus
// our own); throws kInvalidArgument naming an unknown key or a bad value.
DnnlSettings ParseOptions(const ProviderOptions& options);

class DnnlExecutionProvider final : public IExecutionProvider {
 public:
  explicit DnnlExecutionProvider(const ProviderOptions& options);

  std::vector<ComputeCapability> GetCapability(const GraphViewer& graph, const KernelLookup& lookup,
                                               std::vector<DeclinedNode>* declined) const override;
  std::shared_ptr<KernelRegistry> GetKernelRegistry() const override { return registry_; }
  ProviderOptions GetProviderOptions() const override;
  std::unique_ptr<OpKernel> Compile(const MetaDef& meta_def, const Graph& body,
                                    const OpKernelInfo& info) const override;

 private:
  DnnlSettings settings_;
  dnnl::engine engine_;
  std::shared_ptr<KernelRegistry> registry_;       // empty: the EP only compiles fused groups
  mutable std::atomic<int> fused_groups_made_{0};  // names fused nodes uniquely per EP instance
};

}  // namespace prism::dnnl_ep

// A kernel context over values the caller holds, writing outputs to CPU memory: for running a
// kernel outside a session's plan (constant folding, an EP's compiled group, a host fallback of
// a device kernel). An enclosing context, when given, answers which outputs are requested and
// supplies subgraph runs and the intra-op pool; without one, every output the node names is
// requested, subgraphs are refused and the kernel runs on the calling thread.
#pragma once

#include <vector>

#include "framework/op_kernel.h"

namespace prism {

class HostKernelContext final : public OpKernelContext {
 public:
  // inputs: one per node input (nullptr: omitted); they must outlive the context.
  HostKernelContext(const Node& node, std::vector<const Value*> inputs,
                    OpKernelContext* enclosing = nullptr);

  size_t InputCount() const override { return inputs_.size(); }
  const Value* InputValue(size_t i) const override;
  size_t OutputCount() const override { return outputs_.size(); }
  Tensor& Output(size_t i, const TensorShape& shape, ElementType type) override;
  void SetOutput(size_t i, Value value) override;
  bool IsOutputRequested(size_t i) const override;
  const AllocatorPtr& TempAllocator() const override { return cpu_; }
  ThreadPool* IntraOpThreadPool() const override;
  std::vector<Value> RunSubgraph(const Graph& subgraph, const std::vector<Value>& inputs) override;

  // What the kernel wrote, per node output (empty where it wrote nothing).
  std::vector<Value>& Outputs() { return outputs_; }
  // Refuses (kRuntimeException) any output or scratch buffer over bytes, before allocating it:
  // constant folding computes nodes of untrusted models at session creation.
  void LimitBytes(size_t bytes);

 private:
  std::vector<const Value*> inputs_;
  std::vector<Value> outputs_;
  OpKernelContext* enclosing_;
  AllocatorPtr cpu_ = GetCpuAllocator();
  size_t max_bytes_ = 0;  // 0: no limit
};

}  // namespace prism

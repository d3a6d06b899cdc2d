#include "framework/host_kernel_context.h"

#include "framework/counting_allocator.h"

#include "graph/graph.h"

namespace prism {

HostKernelContext::HostKernelContext(const Node& node, std::vector<const Value*> inputs,
                                     OpKernelContext* enclosing)
    : OpKernelContext(node),
      inputs_(std::move(inputs)),
      outputs_(node.OutputCount()),
      enclosing_(enclosing) {}

const Value* HostKernelContext::InputValue(size_t i) const {
  return i < inputs_.size() ? inputs_[i] : nullptr;
}

Tensor& HostKernelContext::Output(size_t i, const TensorShape& shape, ElementType type) {
  PRISM_ENFORCE(i < outputs_.size(), kRuntimeException, GetNode().Describe(), ": output index ", i,
                " is out of range");
  PRISM_ENFORCE(max_bytes_ == 0 || StorageBytes(type, shape.Size()) <= max_bytes_,
                kRuntimeException, GetNode().Describe(), ": output ", i, " of shape ",
                shape.ToString(), " is larger than the ", max_bytes_, " bytes allowed here");
  outputs_[i] = Value(Tensor(type, shape, cpu_));
  return outputs_[i].MutableTensor();
}

void HostKernelContext::LimitBytes(size_t bytes) {
  max_bytes_ = bytes;
  cpu_ = std::make_shared<CountingAllocator>(GetCpuAllocator(), AllocationLimits{bytes, 0});
}

void HostKernelContext::SetOutput(size_t i, Value value) {
  PRISM_ENFORCE(i < outputs_.size(), kRuntimeException, GetNode().Describe(), ": output index ", i,
                " is out of range");
  outputs_[i] = std::move(value);
}

bool HostKernelContext::IsOutputRequested(size_t i) const {
  return enclosing_ != nullptr ? enclosing_->IsOutputRequested(i) : GetNode().HasOutput(i);
}

ThreadPool* HostKernelContext::IntraOpThreadPool() const {
  return enclosing_ != nullptr ? enclosing_->IntraOpThreadPool() : nullptr;
}

std::vector<Value> HostKernelContext::RunSubgraph(const Graph& subgraph,
                                                  const std::vector<Value>& inputs) {
  PRISM_ENFORCE(enclosing_ != nullptr, kNotImplemented, GetNode().Describe(),
                ": subgraphs cannot run outside a session's plan");
  return enclosing_->RunSubgraph(subgraph, inputs);
}

}  // namespace prism

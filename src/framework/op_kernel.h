// Kernels: created once per node at session initialization (with access to the node's
// attributes and constant inputs), then run with an OpKernelContext on every Run. Compute is
// const and must be safe to call from several threads at once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/allocator.h"
#include "framework/value.h"
#include "graph/node.h"

namespace prism {

class IExecutionProvider;
class Graph;
class ThreadPool;

class OpKernelInfo {
 public:
  using ConstantLookup = std::function<const Tensor*(const std::string& name)>;
  OpKernelInfo(const Node& node, const IExecutionProvider& provider, ConstantLookup constants)
      : node_(node), provider_(provider), constants_(std::move(constants)) {}

  const Node& GetNode() const { return node_; }
  const IExecutionProvider& Provider() const { return provider_; }

  bool HasAttr(const std::string& name) const { return node_.FindAttribute(name) != nullptr; }
  // Typed getters throw naming the node when the attribute is missing or has another type.
  int64_t Int(const std::string& name) const;
  int64_t IntOr(const std::string& name, int64_t fallback) const;
  float Float(const std::string& name) const;
  float FloatOr(const std::string& name, float fallback) const;
  std::string String(const std::string& name) const;
  std::string StringOr(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> Ints(const std::string& name) const;
  std::vector<int64_t> IntsOr(const std::string& name, std::vector<int64_t> fallback) const;
  std::vector<float> Floats(const std::string& name) const;
  std::vector<std::string> Strings(const std::string& name) const;
  const Tensor& TensorAttr(const std::string& name) const;
  const Graph& Subgraph(const std::string& name) const;

  // The node's input i when it is a constant initializer (weights), else nullptr.
  const Tensor* ConstantInput(size_t i) const;
  // Static types from the graph (kUndefined when unknown).
  ElementType InputType(size_t i) const;
  ElementType OutputType(size_t i) const;

 private:
  const Attribute& Get(const std::string& name, AttributeType type) const;
  const Node& node_;
  const IExecutionProvider& provider_;
  ConstantLookup constants_;
};

class OpKernelContext {
 public:
  virtual ~OpKernelContext() = default;

  const Node& GetNode() const { return node_; }

  virtual size_t InputCount() const = 0;
  // nullptr for an omitted optional input; an empty Value for an empty optional.
  virtual const Value* InputValue(size_t i) const = 0;
  // A tensor input, or nullptr when the input is omitted. Throws when it is not a tensor.
  const Tensor* Input(size_t i) const;
  // A tensor input that must be present; throws naming the node and input otherwise.
  const Tensor& RequiredInput(size_t i) const;

  virtual size_t OutputCount() const = 0;
  // Allocates output i with the owning EP's allocator for that output's memory.
  virtual Tensor& Output(size_t i, const TensorShape& shape, ElementType type) = 0;
  // Sets output i to an existing value (views, sequences, optionals, pass-through).
  virtual void SetOutput(size_t i, Value value) = 0;
  virtual bool IsOutputRequested(size_t i) const = 0;

  // Scratch memory in the EP's default memory space.
  virtual const AllocatorPtr& TempAllocator() const = 0;
  // The session's intra-op pool for ThreadPool::TryParallelFor; nullptr: run on this thread.
  virtual ThreadPool* IntraOpThreadPool() const { return nullptr; }
  // Runs a subgraph of this node (If/Loop/Scan): inputs bind to its graph inputs in order,
  // outer-scope values resolve through this node's scope. Returns the subgraph's outputs.
  virtual std::vector<Value> RunSubgraph(const Graph& subgraph,
                                         const std::vector<Value>& inputs) = 0;

 protected:
  explicit OpKernelContext(const Node& node) : node_(node) {}

 private:
  const Node& node_;
};

// The prepacked form of a constant input: data in a kernel's own layout, shared by every kernel
// (and, through a PrepackedWeightsContainer, every session) that packed the same bytes in the
// same format. It describes the original it came from, which the session may have released.
struct PrePackedWeight {
  std::shared_ptr<const void> data;
  size_t bytes = 0;
  ElementType type = ElementType::kUndefined;
  TensorShape shape;
  // Rebuilds the original, bit for bit (a session rebuilt for other providers needs it).
  std::function<Tensor()> unpack;
};

class OpKernel {
 public:
  explicit OpKernel(const OpKernelInfo& info) : node_(info.GetNode()) {}
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext& context) const = 0;
  const Node& GetNode() const { return node_; }

  // Prepacking, at session creation, of inputs that are constant initializers in CPU memory. A
  // kernel that keeps a packed form of input `input_index` returns the name of that form (its
  // layout, and whatever of its attributes shapes it: two kernels with one name must accept
  // each other's packing of the same bytes); "" reads the input at run time as usual.
  virtual std::string PrePackFormat(int input_index, const Tensor& weight) const;
  // Packs `weight` for input `input_index` in the format named above.
  virtual PrePackedWeight PrePack(int input_index, const Tensor& weight) const;
  // From now on the kernel computes with `packed`; the session passes no tensor for that input
  // (Input(input_index) is nullptr) and may release the original.
  virtual void UsePrePacked(int input_index, PrePackedWeight packed);

 private:
  const Node& node_;
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>(const OpKernelInfo&)>;

template <typename KernelType>
KernelFactory MakeKernelFactory() {
  return [](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
    return std::make_unique<KernelType>(info);
  };
}

}  // namespace prism

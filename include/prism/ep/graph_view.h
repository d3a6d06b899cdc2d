// The graph as an execution provider sees it: nodes in topological order, their attributes, the
// type and shape of every value, and the constant initializers. GetCapability gets a view of the
// nodes no earlier EP took; Compile gets a view of one claimed group. Views live as long as the
// call they are passed to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prism/ep/element_type.h"
#include "prism/ep/tensor_view.h"

namespace prism::ep {

// A value of the graph: a graph input, an initializer, or a node output.
struct ValueInfo {
  std::string name;
  bool is_tensor = true;                       // false for sequences, maps and optionals
  ElementType type = ElementType::kUndefined;  // a tensor's element type, when known
  bool has_shape = false;                      // whether the rank is known
  std::vector<int64_t> shape;                  // -1 for a dim that is unknown or symbolic
};

enum class AttributeKind {
  kMissing,
  kFloat,
  kInt,
  kString,
  kTensor,
  kFloats,
  kInts,
  kStrings,
  kOther,  // graphs, sparse tensors, type protos, lists of those
};

class NodeView {
 public:
  virtual ~NodeView() = default;

  // Identifies the node within the graph of this GetCapability or Compile call.
  virtual size_t Id() const = 0;
  virtual const std::string& Name() const = 0;
  virtual const std::string& OpType() const = 0;
  virtual const std::string& Domain() const = 0;  // "" for the default ONNX domain
  // The opset version of the node's domain that the model imports.
  virtual int OpsetVersion() const = 0;

  virtual size_t InputCount() const = 0;
  // nullptr for an omitted optional input.
  virtual const ValueInfo* Input(size_t index) const = 0;
  virtual size_t OutputCount() const = 0;
  virtual const ValueInfo* Output(size_t index) const = 0;
  // Whether the node has subgraphs (If, Loop, Scan): their bodies are not visible here.
  virtual bool HasSubgraphs() const = 0;

  virtual std::vector<std::string> AttributeNames() const = 0;
  virtual AttributeKind GetAttributeKind(const std::string& name) const = 0;
  // The typed getters throw std::invalid_argument, naming the node and the attribute, when the
  // attribute is missing or of another kind.
  virtual int64_t GetInt(const std::string& name) const = 0;
  virtual float GetFloat(const std::string& name) const = 0;
  virtual std::string GetString(const std::string& name) const = 0;
  virtual std::vector<int64_t> GetInts(const std::string& name) const = 0;
  virtual std::vector<float> GetFloats(const std::string& name) const = 0;
  virtual std::vector<std::string> GetStrings(const std::string& name) const = 0;
  // A tensor attribute (host memory, valid for the call).
  virtual TensorView GetTensor(const std::string& name) const = 0;

  bool HasAttribute(const std::string& name) const {
    return GetAttributeKind(name) != AttributeKind::kMissing;
  }
  int64_t GetIntOr(const std::string& name, int64_t fallback) const {
    return HasAttribute(name) ? GetInt(name) : fallback;
  }
  float GetFloatOr(const std::string& name, float fallback) const {
    return HasAttribute(name) ? GetFloat(name) : fallback;
  }
  std::string GetStringOr(const std::string& name, const std::string& fallback) const {
    return HasAttribute(name) ? GetString(name) : fallback;
  }
  std::vector<int64_t> GetIntsOr(const std::string& name, std::vector<int64_t> fallback) const {
    return HasAttribute(name) ? GetInts(name) : fallback;
  }
  // "Add node 'add_0'", for messages.
  std::string Describe() const { return OpType() + " node '" + Name() + "'"; }
};

class GraphView {
 public:
  virtual ~GraphView() = default;

  // The nodes of the view, producers before consumers.
  virtual size_t NodeCount() const = 0;
  virtual const NodeView& Node(size_t position) const = 0;

  // GetCapability: the graph's inputs and outputs. Compile: the compiled kernel's inputs and
  // outputs, in the order KernelContext numbers them.
  virtual std::vector<const ValueInfo*> Inputs() const = 0;
  virtual std::vector<const ValueInfo*> Outputs() const = 0;

  // The node of this view that produces value, or nullptr (a graph input, an initializer, or a
  // node outside the view).
  virtual const NodeView* Producer(const std::string& value) const = 0;
  // The nodes of this view that read value.
  virtual std::vector<const NodeView*> Consumers(const std::string& value) const = 0;
  // Whether something outside the view reads value (a graph output, or a node outside it).
  virtual bool IsReadOutside(const std::string& value) const = 0;

  // A constant initializer (weights no feed can override), or nullptr, in host memory: Compile
  // may read it (to reorder weights once, say). Prism also places it in the EP's memory once, at
  // session creation, and passes it as the kernel's input on every Run like any other input.
  virtual const TensorView* ConstantInitializer(const std::string& name) const = 0;
};

}  // namespace prism::ep

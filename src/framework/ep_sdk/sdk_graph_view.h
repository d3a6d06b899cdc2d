// The EP SDK's read-only graph (prism/ep/graph_view.h) over Prism's graph IR: what an SDK plugin
// sees in GetCapability (the nodes left to it) and in Compile (a claimed group's body).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/tensor.h"
#include "graph/graph.h"
#include "prism/ep/graph_view.h"

namespace prism::ep_sdk {

// The SDK's view of a tensor Prism holds (no copy: it points at the tensor's data).
ep::TensorView ToTensorView(const Tensor& tensor);

class SdkNodeView;

class SdkGraphView final : public ep::GraphView {
 public:
  using ConstantLookup = std::function<const Tensor*(const std::string& name)>;
  // nodes: the view's nodes in topological order (node ids are their NodeIndex); inputs and
  // outputs: what Inputs() and Outputs() list; constants: the constant initializers visible.
  SdkGraphView(const Graph& graph, const std::vector<NodeIndex>& nodes,
               const std::vector<NodeArg*>& inputs, const std::vector<NodeArg*>& outputs,
               ConstantLookup constants);
  ~SdkGraphView() override;

  size_t NodeCount() const override { return nodes_.size(); }
  const ep::NodeView& Node(size_t position) const override;
  std::vector<const ep::ValueInfo*> Inputs() const override { return inputs_; }
  std::vector<const ep::ValueInfo*> Outputs() const override { return outputs_; }
  const ep::NodeView* Producer(const std::string& value) const override;
  std::vector<const ep::NodeView*> Consumers(const std::string& value) const override;
  bool IsReadOutside(const std::string& value) const override;
  const ep::TensorView* ConstantInitializer(const std::string& name) const override;

  // The view's node with that id (a NodeIndex), or nullptr.
  const ep::NodeView* FindNode(size_t id) const;

 private:
  const ep::ValueInfo* InfoOf(const NodeArg* arg);

  const Graph& graph_;
  std::vector<std::unique_ptr<SdkNodeView>> nodes_;
  std::unordered_map<NodeIndex, size_t> position_of_;
  std::unordered_map<std::string, std::unique_ptr<ep::ValueInfo>> values_;
  std::vector<const ep::ValueInfo*> inputs_;
  std::vector<const ep::ValueInfo*> outputs_;
  std::unordered_map<std::string, ep::TensorView> constants_;
};

}  // namespace prism::ep_sdk

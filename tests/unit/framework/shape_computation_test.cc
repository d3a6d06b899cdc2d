// ShapeComputationNodes: which nodes a device EP leaves to the CPU EP because they only compute
// shapes (Shape -> Gather -> Unsqueeze -> Concat -> Reshape's shape input), and which it keeps
// because a value would otherwise have to cross to the device anyway.
#include "framework/shape_computation.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "framework/kernel_def.h"
#include "graph/model.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

void AddInt64Initializer(onnx::GraphProto* graph, const std::string& name,
                         const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::INT64);
  for (int64_t d : dims) init->add_dims(d);
  for (int64_t v : values) init->add_int64_data(v);
}

// x [2, 8, 64] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1, 16])) -> Relu -> y,
// plus whatever `extend` adds.
onnx::ModelProto BertLikeReshape(const std::function<void(onnx::GraphProto*)>& extend = {}) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", TensorProto::FLOAT, {2, 8, 64});
  AddInt64Initializer(graph, "zero", {}, {0});
  AddInt64Initializer(graph, "axes0", {1}, {0});
  AddInt64Initializer(graph, "rest", {2}, {-1, 16});
  AddNode(graph, "Shape", {"x"}, {"shape_x"}, "shape");
  AddNode(graph, "Gather", {"shape_x", "zero"}, {"batch"}, "gather");
  AddNode(graph, "Unsqueeze", {"batch", "axes0"}, {"batch1"}, "unsqueeze");
  AddNode(graph, "Concat", {"batch1", "rest"}, {"new_shape"}, "concat")
      ->add_attribute()
      ->CopyFrom([] {
        onnx::AttributeProto axis;
        axis.set_name("axis");
        axis.set_type(onnx::AttributeProto::INT);
        axis.set_i(0);
        return axis;
      }());
  AddNode(graph, "Reshape", {"x", "new_shape"}, {"r"}, "reshape");
  AddNode(graph, "Relu", {"r"}, {"y"}, "relu");
  AddOutput(graph, "y", TensorProto::FLOAT);
  if (extend) extend(graph);
  return model;
}

std::shared_ptr<const Model> Load(const onnx::ModelProto& proto) {
  const std::string bytes = Serialize(proto);
  return Model::LoadFromBytes(bytes.data(), bytes.size());
}

// A device EP like the CUDA EP: Shape writes its output in CPU memory, Reshape reads its shape
// there; ops in `declined` run on the CPU EP.
struct FakeDevice {
  KernelDef plain, shape, reshape;
  std::set<std::string> declined;
  FakeDevice() {
    shape.cpu_outputs = {0};
    reshape.cpu_inputs = {1};
  }
  const KernelDef* operator()(const Node& node) const {
    if (declined.count(node.OpType())) return nullptr;
    if (node.OpType() == "Shape") return &shape;
    if (node.OpType() == "Reshape") return &reshape;
    return &plain;
  }
};

std::set<std::string> Names(const Graph& graph, const std::set<NodeIndex>& nodes) {
  std::set<std::string> names;
  for (NodeIndex index : nodes) names.insert(graph.GetNode(index).Name());
  return names;
}

std::set<std::string> KeptOnCpu(const onnx::ModelProto& proto, const FakeDevice& device = {}) {
  auto model = Load(proto);
  const Graph& graph = model->MainGraph();
  return Names(graph, ShapeComputationNodes(GraphViewer(graph), std::cref(device)));
}

TEST(ShapeComputation, ShapeChainFeedingReshapeStaysOnTheCpu) {
  EXPECT_EQ(KeptOnCpu(BertLikeReshape()), (std::set<std::string>{"gather", "unsqueeze", "concat"}));
}

TEST(ShapeComputation, ChainWhoseValueTheDeviceReadsStaysOnTheDevice) {
  // The batch size also feeds a device input (Cast -> Mul with x): it must reach the device,
  // so neither it nor what reads it is kept on the CPU.
  const auto proto = BertLikeReshape([](onnx::GraphProto* graph) {
    auto* cast = AddNode(graph, "Cast", {"batch"}, {"batch_f"}, "cast");
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(TensorProto::FLOAT);
    AddNode(graph, "Mul", {"x", "batch_f"}, {"scaled"}, "mul");
    AddOutput(graph, "scaled", TensorProto::FLOAT);
  });
  EXPECT_EQ(KeptOnCpu(proto), std::set<std::string>{});
}

TEST(ShapeComputation, ReadersOnTheCpuEpCountAsCpu) {
  // The Cast is declined by the device EP: it runs on the CPU EP, so the chain stays there too.
  const auto proto = BertLikeReshape([](onnx::GraphProto* graph) {
    auto* cast = AddNode(graph, "Cast", {"batch"}, {"batch_f"}, "cast");
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(TensorProto::FLOAT);
    AddOutput(graph, "batch_f", TensorProto::FLOAT);
  });
  FakeDevice device;
  device.declined = {"Cast"};
  EXPECT_EQ(KeptOnCpu(proto, device), (std::set<std::string>{"gather", "unsqueeze", "concat"}));
}

TEST(ShapeComputation, GraphInputsAreNotAssumedOnTheCpu) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", TensorProto::FLOAT, {2, 8});
  AddInput(graph, "dims", TensorProto::INT64, {2});
  AddNode(graph, "Neg", {"dims"}, {"negated"}, "neg");
  AddNode(graph, "Reshape", {"x", "negated"}, {"y"}, "reshape");
  AddOutput(graph, "y", TensorProto::FLOAT);
  EXPECT_EQ(KeptOnCpu(model), std::set<std::string>{});
}

TEST(ShapeComputation, DataAfterACpuNodeIsNoShapeComputation) {
  // Relu -> (declined) Softmax -> Relu -> graph output: the second Relu reads a CPU-run node's
  // output and nothing on the device reads its result, but it computes no shape: it stays on
  // the device (seen on an H100: it had moved to the CPU EP, one copy fewer but a slower run).
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", TensorProto::FLOAT, {4, 6});
  AddNode(graph, "Relu", {"x"}, {"r"}, "relu_in");
  AddNode(graph, "Softmax", {"r"}, {"s"}, "softmax");
  AddNode(graph, "Relu", {"s"}, {"y"}, "relu_out");
  AddOutput(graph, "y", TensorProto::FLOAT);
  FakeDevice device;
  device.declined = {"Softmax"};
  EXPECT_EQ(KeptOnCpu(model, device), std::set<std::string>{});
}

TEST(ShapeComputation, ActivationBetweenCpuRunNodesIsNoShapeComputation) {
  // Relu reads a CPU-run Softmax and feeds a CPU-run Max, but no shape-like input: it stays.
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", TensorProto::FLOAT, {4, 5});
  AddNode(graph, "Softmax", {"x"}, {"s"}, "softmax");
  AddNode(graph, "Relu", {"s"}, {"r"}, "relu");
  AddNode(graph, "Max", {"r", "x", "x"}, {"y"}, "max3");
  AddOutput(graph, "y", TensorProto::FLOAT);
  FakeDevice device;
  device.declined = {"Softmax", "Max"};
  EXPECT_EQ(KeptOnCpu(model, device), std::set<std::string>{});
}

TEST(ShapeComputation, ShapeItselfAndTheReshapeStayOnTheDevice) {
  const std::set<std::string> kept = KeptOnCpu(BertLikeReshape());
  EXPECT_EQ(kept.count("shape"), 0u);
  EXPECT_EQ(kept.count("reshape"), 0u);
  EXPECT_EQ(kept.count("relu"), 0u);
}

}  // namespace
}  // namespace prism::testing

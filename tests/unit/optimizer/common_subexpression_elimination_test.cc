// CommonSubexpressionElimination (basic level): which duplicated nodes it merges (duplicated
// Shape/Gather/Unsqueeze/Concat/Reshape/Transpose chains of an exported transformer, Constants
// with the same value, inputs that are equal constant initializers) and which it must leave
// (different attributes or inputs, nondeterministic ops, subgraphs, custom domains, an output the
// kept node lacks), graph outputs kept through an Identity, and the optimized session against
// the unoptimized one.
#include <gtest/gtest.h>

#include <random>

#include "../graph/model_builder_util.h"
#include "../session/session_test_util.h"
#include "optimizer/transformer_manager.h"
#include "session/cpu_node_evaluator.h"
#include "session/provider_library.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::vector<std::string> Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) ops.push_back(graph.GetNode(index).OpType());
  return ops;
}

size_t Count(const Graph& graph, const std::string& op) {
  const std::vector<std::string> ops = Ops(graph);
  return static_cast<size_t>(std::count(ops.begin(), ops.end(), op));
}

SessionOptions AtLevel(GraphOptimizationLevel level, std::vector<std::string> disabled = {}) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return options;
}

// Loads proto, clones its graph and runs the default basic passes on the clone (for graphs a
// session cannot run: custom-domain ops).
struct Optimized {
  explicit Optimized(const onnx::ModelProto& proto, std::vector<std::string> disabled = {}) {
    const std::string bytes = Serialize(proto);
    model = Model::LoadFromBytes(bytes.data(), bytes.size());
    graph = model->MainGraph().Clone();
    std::string why;
    auto factory = FindProviderFactory("CPUExecutionProvider", "", &why);
    EXPECT_NE(factory, nullptr) << why;
    cpu = factory->Create({});
    TransformContext context;
    context.evaluate_on_cpu = [this](const Node& node, const std::vector<const Tensor*>& inputs) {
      return EvaluateOnCpu(*cpu, node, inputs);
    };
    changes = MakeDefaultTransformers(1, disabled)->Run(*graph, TransformerLevel::kBasic, context);
  }
  std::shared_ptr<const Model> model;
  std::unique_ptr<Graph> graph;
  std::unique_ptr<IExecutionProvider> cpu;
  int changes = 0;
};

onnx::TensorProto* AddInt64Initializer(onnx::GraphProto* graph, const std::string& name,
                                       const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::INT64);
  for (int64_t d : dims) init->add_dims(d);
  for (int64_t v : values) init->add_int64_data(v);
  return init;
}

void SetFloatAttr(onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}

void SetIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

// The optimized session (basic level unless told) computes every output of the unoptimized one
// bit for bit (CSE only removes recomputations).
void ExpectSameResults(const onnx::ModelProto& model, const std::vector<int64_t>& x_shape,
                       const SessionOptions& options = AtLevel(GraphOptimizationLevel::kBasic)) {
  auto optimized = MakeSession(model, {}, options);
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  int64_t count = 1;
  for (int64_t d : x_shape) count *= d;
  const std::vector<Tensor> feeds = {
      MakeTensor<float>(x_shape, Random(static_cast<size_t>(count), 11))};
  const auto a = RunFloat(*optimized, {"X"}, feeds);
  const auto b = RunFloat(*plain, {"X"}, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(CompareValues(b[i], a[i], {0, 0}), "") << i;
}

// What an exporter writes per attention layer, twice: X [batch, 4, 6] reshaped to
// [batch, -1, 3] through Shape, Gather(0), Unsqueeze, Concat, then Transposed; each copy has its
// own (equal) constant initializers. Y = T_a + T_b.
onnx::ModelProto DuplicatedReshapeChains() {
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 4, 6});
  for (const std::string p : {"a", "b"}) {
    AddInt64Initializer(graph, "index_" + p, {}, {0});
    AddInt64Initializer(graph, "axes_" + p, {1}, {0});
    AddInt64Initializer(graph, "tail_" + p, {2}, {-1, 3});
    AddNode(graph, "Shape", {"X"}, {"S_" + p}, "shape_" + p);
    SetIntAttr(AddNode(graph, "Gather", {"S_" + p, "index_" + p}, {"B_" + p}, "gather_" + p),
               "axis", 0);
    AddNode(graph, "Unsqueeze", {"B_" + p, "axes_" + p}, {"U_" + p}, "unsqueeze_" + p);
    SetIntAttr(AddNode(graph, "Concat", {"U_" + p, "tail_" + p}, {"N_" + p}, "concat_" + p), "axis",
               0);
    AddNode(graph, "Reshape", {"X", "N_" + p}, {"R_" + p}, "reshape_" + p);
    AddIntsAttr(AddNode(graph, "Transpose", {"R_" + p}, {"T_" + p}, "transpose_" + p), "perm",
                {0, 2, 1});
  }
  AddNode(graph, "Add", {"T_a", "T_b"}, {"Y"}, "add");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(CommonSubexpressionElimination, DuplicatedShapeAndReshapeChainsCollapse) {
  const onnx::ModelProto model = DuplicatedReshapeChains();
  auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
  const Graph& graph = *session->SessionGraph();
  EXPECT_EQ(Ops(graph), (std::vector<std::string>{"Shape", "Gather", "Unsqueeze", "Concat",
                                                  "Reshape", "Transpose", "Add"}));
  const Node& add = graph.GetNode(graph.TopologicalOrder().back());
  EXPECT_EQ(add.Inputs()[0], add.Inputs()[1]) << "the Add reads the one kept Transpose twice";
  EXPECT_EQ(add.Inputs()[0]->name, "T_a");
  for (int64_t batch : {2, 5}) ExpectSameResults(model, {batch, 4, 6});

  auto disabled = MakeSession(
      model, {}, AtLevel(GraphOptimizationLevel::kBasic, {"CommonSubexpressionElimination"}));
  EXPECT_EQ(disabled->SessionGraph()->NumberOfNodes(), 13u);
}

TEST(CommonSubexpressionElimination, DifferentAttributesOrInputsStay) {
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddInput(graph, "Z", TensorProto::FLOAT, {2, 3});
  AddIntsAttr(AddNode(graph, "Transpose", {"X"}, {"T1"}, "t1"), "perm", {1, 0});
  AddNode(graph, "Transpose", {"X"}, {"T2"}, "t2");  // default perm: the same values, no attribute
  SetFloatAttr(AddNode(graph, "LeakyRelu", {"X"}, {"L1"}, "l1"), "alpha", 0.1f);
  SetFloatAttr(AddNode(graph, "LeakyRelu", {"X"}, {"L2"}, "l2"), "alpha", 0.2f);
  AddNode(graph, "Relu", {"X"}, {"R1"}, "r1");
  AddNode(graph, "Relu", {"Z"}, {"R2"}, "r2");
  // Equal shapes as different values: [3, 2] and [6].
  AddInt64Initializer(graph, "shape_a", {2}, {3, 2});
  AddInt64Initializer(graph, "shape_b", {1}, {6});
  AddNode(graph, "Reshape", {"X", "shape_a"}, {"P1"}, "p1");
  AddNode(graph, "Reshape", {"X", "shape_b"}, {"P2"}, "p2");
  for (const char* output : {"T1", "T2", "L1", "L2", "R1", "R2", "P1", "P2"}) {
    AddOutput(graph, output, TensorProto::FLOAT);
  }
  Optimized optimized(model);
  EXPECT_EQ(optimized.changes, 0);
  EXPECT_EQ(optimized.graph->NumberOfNodes(), 8u);
}

TEST(CommonSubexpressionElimination, ConstantsWithTheSameValueMerge) {
  // Two Constant nodes of the same value feed two Muls of X: one Constant and one Mul remain.
  // A third Constant with another value stays, and so does its Mul.
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n"});
  for (const auto& [name, value] :
       {std::pair{"c1", 2.0f}, std::pair{"c2", 2.0f}, std::pair{"c3", 3.0f}}) {
    auto* node = AddNode(graph, "Constant", {}, {name}, name);
    auto* attr = node->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    attr->mutable_t()->set_data_type(TensorProto::FLOAT);
    attr->mutable_t()->add_float_data(value);
  }
  AddNode(graph, "Mul", {"X", "c1"}, {"M1"}, "m1");
  AddNode(graph, "Mul", {"X", "c2"}, {"M2"}, "m2");
  AddNode(graph, "Mul", {"X", "c3"}, {"M3"}, "m3");
  AddNode(graph, "Sum", {"M1", "M2", "M3"}, {"Y"}, "sum");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  Optimized optimized(model, {"ConstantFolding"});
  EXPECT_EQ(Count(*optimized.graph, "Constant"), 2u);
  EXPECT_EQ(Count(*optimized.graph, "Mul"), 2u);
  ExpectSameResults(model, {7}, AtLevel(GraphOptimizationLevel::kBasic, {"ConstantFolding"}));
  ExpectSameResults(model, {7});
}

TEST(CommonSubexpressionElimination, NondeterministicOpsStay) {
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddNode(graph, "RandomUniformLike", {"X"}, {"U1"}, "u1");
  AddNode(graph, "RandomUniformLike", {"X"}, {"U2"}, "u2");
  AddNode(graph, "RandomNormalLike", {"X"}, {"N1"}, "n1");
  AddNode(graph, "RandomNormalLike", {"X"}, {"N2"}, "n2");
  for (const char* name : {"r1", "r2"}) {
    auto* node = AddNode(graph, "RandomNormal", {}, {std::string("RN_") + name}, name);
    AddIntsAttr(node, "shape", {2, 3});
  }
  AddNode(graph, "Bernoulli", {"U1"}, {"B1"}, "b1");
  AddNode(graph, "Bernoulli", {"U1"}, {"B2"}, "b2");
  // Dropout with a training_mode input draws a mask (when the flag is true at run time).
  AddInput(graph, "training", TensorProto::BOOL, {});
  AddNode(graph, "Dropout", {"X", "", "training"}, {"D1"}, "d1");
  AddNode(graph, "Dropout", {"X", "", "training"}, {"D2"}, "d2");
  // onnxruntime's training BitmaskDropout (com.microsoft).
  model.add_opset_import()->set_domain("com.microsoft");
  model.mutable_opset_import(1)->set_version(1);
  AddNode(graph, "BitmaskDropout", {"X"}, {"M1"}, "m1", "com.microsoft");
  AddNode(graph, "BitmaskDropout", {"X"}, {"M2"}, "m2", "com.microsoft");
  for (const char* output :
       {"U1", "U2", "N1", "N2", "RN_r1", "RN_r2", "B1", "B2", "D1", "D2", "M1", "M2"}) {
    AddOutput(graph, output, TensorProto::FLOAT);
  }
  Optimized optimized(model);
  EXPECT_EQ(optimized.changes, 0);
  EXPECT_EQ(optimized.graph->NumberOfNodes(), 12u);
}

TEST(CommonSubexpressionElimination, SubgraphsAndCustomOpsStay) {
  onnx::ModelProto model = MakeModel(13);
  model.add_opset_import()->set_domain("com.example");
  model.mutable_opset_import(1)->set_version(1);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddInput(graph, "C", TensorProto::BOOL, {});
  for (const char* name : {"if1", "if2"}) {
    auto* node = AddNode(graph, "If", {"C"}, {std::string("I_") + name}, name);
    for (const char* branch : {"then_branch", "else_branch"}) {
      auto* body = AddGraphAttr(node, branch);
      body->set_name(std::string(name) + branch);
      AddNode(body, "Neg", {"X"}, {"out"}, "neg");
      AddOutput(body, "out", TensorProto::FLOAT);
    }
  }
  AddNode(graph, "Effect", {"X"}, {"E1"}, "e1", "com.example");
  AddNode(graph, "Effect", {"X"}, {"E2"}, "e2", "com.example");
  for (const char* output : {"I_if1", "I_if2", "E1", "E2"}) {
    AddOutput(graph, output, TensorProto::FLOAT);
  }
  Optimized optimized(model);
  EXPECT_EQ(optimized.changes, 0);
  EXPECT_EQ(Count(*optimized.graph, "If"), 2u);
  EXPECT_EQ(Count(*optimized.graph, "Effect"), 2u);
}

TEST(CommonSubexpressionElimination, MergesInsideASubgraph) {
  // The then branch computes Neg(X) twice and adds them: one Neg remains there.
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddInput(graph, "C", TensorProto::BOOL, {});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_body = AddGraphAttr(node, "then_branch");
  then_body->set_name("then");
  AddNode(then_body, "Neg", {"X"}, {"n1"}, "neg1");
  AddNode(then_body, "Neg", {"X"}, {"n2"}, "neg2");
  AddNode(then_body, "Add", {"n1", "n2"}, {"out"}, "add");
  AddOutput(then_body, "out", TensorProto::FLOAT);
  auto* else_body = AddGraphAttr(node, "else_branch");
  else_body->set_name("else");
  AddNode(else_body, "Abs", {"X"}, {"out2"}, "abs");
  AddOutput(else_body, "out2", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  Optimized optimized(model);
  const Node& if_node = optimized.graph->GetNode(optimized.graph->TopologicalOrder()[0]);
  const Graph* then_graph = if_node.Subgraphs()[1];  // attribute-name order: else, then
  ASSERT_EQ(then_graph->Name(), "then");
  EXPECT_EQ(Ops(*then_graph), (std::vector<std::string>{"Neg", "Add"}));
}

TEST(CommonSubexpressionElimination, GraphOutputsKeepTheirNamesThroughIdentity) {
  // Y1, Y2 and Y3 are Relu(X) three times, all graph outputs: one Relu, and Identities write
  // Y2 and Y3. Identity(X) twice as graph outputs stays as it is (nothing to gain).
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddNode(graph, "Relu", {"X"}, {"Y1"}, "relu1");
  AddNode(graph, "Relu", {"X"}, {"Y2"}, "relu2");
  AddNode(graph, "Relu", {"X"}, {"Y3"}, "relu3");
  AddNode(graph, "Identity", {"X"}, {"I1"}, "id1");
  AddNode(graph, "Identity", {"X"}, {"I2"}, "id2");
  for (const char* output : {"Y1", "Y2", "Y3", "I1", "I2"}) {
    AddOutput(graph, output, TensorProto::FLOAT);
  }
  Optimized optimized(model);
  EXPECT_EQ(Count(*optimized.graph, "Relu"), 1u);
  EXPECT_EQ(Count(*optimized.graph, "Identity"), 4u);
  std::vector<std::string> outputs;
  for (const NodeArg* output : optimized.graph->Outputs()) outputs.push_back(output->name);
  EXPECT_EQ(outputs, (std::vector<std::string>{"Y1", "Y2", "Y3", "I1", "I2"}));
  for (const char* name : {"Y2", "Y3"}) {
    const Node* writer = optimized.graph->Producer(name);
    ASSERT_NE(writer, nullptr) << name;
    EXPECT_EQ(writer->OpType(), "Identity");
    EXPECT_EQ(writer->Inputs()[0]->name, "Y1");
  }
  ExpectSameResults(model, {2, 3});
}

TEST(CommonSubexpressionElimination, AnOutputTheKeptNodeLacksKeepsTheNode) {
  // MaxPool twice: the first writes only the values, the second also the indices, which have
  // nowhere to come from: both stay. In the other order the second (values only) goes.
  for (bool indices_first : {false, true}) {
    onnx::ModelProto model = MakeModel(13);
    auto* graph = model.mutable_graph();
    AddInput(graph, "X", TensorProto::FLOAT, {1, 1, 2, 6});
    const std::vector<std::vector<std::string>> outputs = {{"V1"}, {"V2", "I2"}};
    for (size_t i : {indices_first ? 1u : 0u, indices_first ? 0u : 1u}) {
      auto* pool = AddNode(graph, "MaxPool", {"X"}, outputs[i], "pool" + std::to_string(i));
      AddIntsAttr(pool, "kernel_shape", {1, 2});
      AddIntsAttr(pool, "strides", {1, 2});
    }
    AddNode(graph, "Add", {"V1", "V2"}, {"Y"}, "add");
    AddOutput(graph, "Y", TensorProto::FLOAT);
    AddOutput(graph, "I2", TensorProto::INT64);
    Optimized optimized(model);
    EXPECT_EQ(Count(*optimized.graph, "MaxPool"), indices_first ? 1u : 2u) << indices_first;
    ExpectSameResults(model, {1, 1, 2, 6});
  }
}

}  // namespace
}  // namespace prism::testing

// The graph transformers on hand-made graphs, before and after: Identity and inference-Dropout
// elimination, constant folding of shape computations, and the manager's levels, disabled set and
// fixpoint bound. Sessions check that the optimized graph computes what the unoptimized one does.
#include <gtest/gtest.h>

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

std::unique_ptr<IExecutionProvider> CpuProvider() {
  std::string why;
  auto factory = FindProviderFactory("CPUExecutionProvider", "", &why);
  EXPECT_NE(factory, nullptr) << why;
  return factory->Create({});
}

// Loads proto, clones its graph and runs the default basic passes on the clone.
struct Optimized {
  explicit Optimized(const onnx::ModelProto& proto, std::vector<std::string> disabled = {}) {
    const std::string bytes = Serialize(proto);
    model = Model::LoadFromBytes(bytes.data(), bytes.size());
    graph = model->MainGraph().Clone();
    cpu = CpuProvider();
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

// X -> Identity -> Identity -> Relu -> Y.
onnx::ModelProto IdentityChain() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Identity", {"X"}, {"I1"}, "id1");
  AddNode(graph, "Identity", {"I1"}, {"I2"}, "id2");
  AddNode(graph, "Relu", {"I2"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(EliminateIdentity, ChainCollapsesOntoTheInput) {
  Optimized optimized(IdentityChain());
  EXPECT_EQ(Ops(*optimized.graph), std::vector<std::string>{"Relu"});
  const Node& relu = optimized.graph->GetNode(optimized.graph->TopologicalOrder()[0]);
  EXPECT_EQ(relu.Inputs()[0]->name, "X");
  EXPECT_EQ(Ops(optimized.model->MainGraph()),
            (std::vector<std::string>{"Identity", "Identity", "Relu"}));
}

TEST(EliminateIdentity, GraphOutputNameIsKept) {
  // X -> Relu -> R -> Identity -> Y (graph output): Relu now writes Y itself.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Relu", {"X"}, {"R"}, "relu");
  AddNode(graph, "Identity", {"R"}, {"Y"}, "id");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  Optimized optimized(proto);
  ASSERT_EQ(Ops(*optimized.graph), std::vector<std::string>{"Relu"});
  const Node& relu = optimized.graph->GetNode(optimized.graph->TopologicalOrder()[0]);
  EXPECT_EQ(relu.Outputs()[0]->name, "Y");
  EXPECT_EQ(optimized.graph->Outputs()[0]->name, "Y");
}

TEST(EliminateIdentity, IdentityFromInputToOutputStays) {
  // Y = Identity(X) with both graph values: nothing can take its place.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Identity", {"X"}, {"Y"}, "id");
  AddNode(graph, "Relu", {"X"}, {"Z"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  AddOutput(graph, "Z", TensorProto::FLOAT);
  Optimized optimized(proto);
  EXPECT_EQ(Ops(*optimized.graph), (std::vector<std::string>{"Identity", "Relu"}));
  EXPECT_EQ(optimized.changes, 0);
}

TEST(EliminateIdentity, DisabledByName) {
  Optimized optimized(IdentityChain(), {"EliminateIdentity"});
  EXPECT_EQ(Ops(*optimized.graph), (std::vector<std::string>{"Identity", "Identity", "Relu"}));
}

// X -> Dropout(mask M) -> D -> Relu -> Y; the mask is a graph output when mask_is_output.
onnx::ModelProto DropoutModel(bool mask_is_output, int training_mode = -1) {
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  std::vector<std::string> inputs = {"X"};
  if (training_mode >= 0) {
    auto* flag = graph->add_initializer();
    flag->set_name("training");
    flag->set_data_type(TensorProto::BOOL);
    flag->set_raw_data(std::string(1, static_cast<char>(training_mode)));
    inputs = {"X", "", "training"};
  }
  AddNode(graph, "Dropout", inputs, {"D", "M"}, "dropout");
  AddNode(graph, "Relu", {"D"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (mask_is_output) AddOutput(graph, "M", TensorProto::BOOL);
  return model;
}

TEST(EliminateDropout, InferenceDropoutGoesWhenItsMaskIsUnused) {
  EXPECT_EQ(Ops(*Optimized(DropoutModel(false)).graph), std::vector<std::string>{"Relu"});
  EXPECT_EQ(Ops(*Optimized(DropoutModel(false, 0)).graph), std::vector<std::string>{"Relu"});
}

TEST(EliminateDropout, KeptWhenTheMaskIsReadOrTrainingIsOn) {
  EXPECT_EQ(Ops(*Optimized(DropoutModel(true)).graph),
            (std::vector<std::string>{"Dropout", "Relu"}));
  EXPECT_EQ(Ops(*Optimized(DropoutModel(false, 1)).graph),
            (std::vector<std::string>{"Dropout", "Relu"}));
}

// Y = Reshape(X, Concat(Unsqueeze(Gather(Shape(X), 0)), [-1])): the target is [2, -1].
onnx::ModelProto ShapeChain() {
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 4});
  auto add_int64 = [&](const std::string& name, std::vector<int64_t> dims,
                       std::vector<int64_t> values) {
    auto* init = graph->add_initializer();
    init->set_name(name);
    init->set_data_type(TensorProto::INT64);
    for (int64_t d : dims) init->add_dims(d);
    for (int64_t v : values) init->add_int64_data(v);
  };
  add_int64("zero", {}, {0});
  add_int64("axes", {1}, {0});
  add_int64("minus_one", {1}, {-1});
  AddNode(graph, "Shape", {"X"}, {"S"}, "shape");
  AddNode(graph, "Gather", {"S", "zero"}, {"G"}, "gather");
  AddNode(graph, "Unsqueeze", {"G", "axes"}, {"U"}, "unsqueeze");
  auto* concat = AddNode(graph, "Concat", {"U", "minus_one"}, {"T"}, "concat");
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  AddNode(graph, "Reshape", {"X", "T"}, {"Y"}, "reshape");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(ConstantFolding, ShapeChainBecomesAConstantReshapeTarget) {
  Optimized optimized(ShapeChain());
  ASSERT_EQ(Ops(*optimized.graph), std::vector<std::string>{"Reshape"});
  const Node& reshape = optimized.graph->GetNode(optimized.graph->TopologicalOrder()[0]);
  const Tensor* target = optimized.graph->FindInitializer(reshape.Inputs()[1]->name);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(CompareValues(Value(MakeTensor<int64_t>({2}, {2, -1})), Value(*target), {0, 0}), "");
  EXPECT_TRUE(optimized.graph->IsConstantInitializer("T"));
  EXPECT_EQ(optimized.graph->FindInitializer("S"), nullptr) << "intermediates do not linger";
}

TEST(ConstantFolding, DisabledOrLevelZeroLeavesTheChain) {
  const std::vector<std::string> all = {"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"};
  EXPECT_EQ(Ops(*Optimized(ShapeChain(), {"ConstantFolding"}).graph), all);
  auto session = MakeSession(ShapeChain(), {}, [] {
    SessionOptions options;
    options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
    return options;
  }());
  EXPECT_EQ(Ops(*session->SessionGraph()), all);
}

TEST(ConstantFolding, OptimizedSessionComputesTheSameAsUnoptimized) {
  SessionOptions plain;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto optimized = MakeSession(ShapeChain(), {});
  auto unoptimized = MakeSession(ShapeChain(), {}, plain);
  EXPECT_EQ(Ops(*optimized->SessionGraph()), std::vector<std::string>{"Reshape"});
  std::vector<float> data(24);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i) - 7.5f;
  const auto a = RunFloat(*optimized, {"X"}, {MakeTensor<float>({2, 3, 4}, data)});
  const auto b = RunFloat(*unoptimized, {"X"}, {MakeTensor<float>({2, 3, 4}, data)});
  EXPECT_EQ(a[0].GetTensor().Shape(), TensorShape({2, 12}));
  EXPECT_EQ(CompareValues(b[0], a[0], {0, 0}), "");
}

TEST(ConstantFolding, TransposeSqueezeUnsqueezeOfInitializersBecomeInitializers) {
  // W [2, 3] -> Transpose -> Unsqueeze(axes 0) -> Squeeze(axes 0) -> MatMul(X, .): only the
  // MatMul remains, reading W^T as a new initializer (the issue's "folded into initializers").
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {4, 2});
  AddFloatInitializer(graph, "W", {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* axes = graph->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  AddNode(graph, "Transpose", {"W"}, {"WT"}, "transpose");
  AddNode(graph, "Unsqueeze", {"WT", "axes"}, {"WU"}, "unsqueeze");
  AddNode(graph, "Squeeze", {"WU", "axes"}, {"WS"}, "squeeze");
  AddNode(graph, "Transpose", {"WS"}, {"W2"}, "transpose_back");
  AddNode(graph, "MatMul", {"X", "W2"}, {"Y"}, "matmul");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  Optimized optimized(model);
  ASSERT_EQ(Ops(*optimized.graph), std::vector<std::string>{"MatMul"});
  const Node& matmul = optimized.graph->GetNode(optimized.graph->TopologicalOrder()[0]);
  const Tensor* folded = optimized.graph->FindInitializer(matmul.Inputs()[1]->name);
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(
      CompareValues(Value(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})), Value(*folded), {0, 0}),
      "");
}

// A pass that always reports a change, counting its calls.
class AlwaysChanges final : public GraphTransformer {
 public:
  explicit AlwaysChanges(int* calls)
      : GraphTransformer("AlwaysChanges", TransformerLevel::kBasic), calls_(calls) {}
  bool Apply(Graph&, const TransformContext&) const override {
    ++*calls_;
    return true;
  }

 private:
  int* calls_;
};

TEST(TransformerManager, FixpointIsBoundedAndDisabledPassesNeverRun) {
  Optimized base(IdentityChain());
  int calls = 0;
  TransformerManager manager;
  manager.Register(std::make_unique<AlwaysChanges>(&calls));
  EXPECT_EQ(manager.Run(*base.graph, TransformerLevel::kBasic, {}), TransformerManager::kMaxRounds);
  EXPECT_EQ(calls, TransformerManager::kMaxRounds);
  EXPECT_EQ(manager.Run(*base.graph, TransformerLevel::kExtended, {}), 0) << "other level";

  int disabled_calls = 0;
  TransformerManager disabled({"AlwaysChanges"});
  disabled.Register(std::make_unique<AlwaysChanges>(&disabled_calls));
  EXPECT_EQ(disabled.Run(*base.graph, TransformerLevel::kBasic, {}), 0);
  EXPECT_EQ(disabled_calls, 0);
}

// An extended pass for one EP: it removes the Relu nodes it may touch.
class ReluRemoverFor final : public GraphTransformer {
 public:
  explicit ReluRemoverFor(std::string provider)
      : GraphTransformer("ReluRemover", TransformerLevel::kExtended, {std::move(provider)}) {}
  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node& node = graph.GetNode(index);
      if (node.OpType() != "Relu" || !MayTouch(graph, index, context)) continue;
      graph.ReplaceAllUses(node.Outputs()[0], node.Inputs()[0]);
      graph.RemoveNode(index);
      changed = true;
    }
    return changed;
  }
};

TEST(TransformerManager, EpSpecificPassesTouchOnlyNodesOfTheirEps) {
  // X -> Relu -> R -> Identity -> Y: the Relu runs on the CPU EP.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Relu", {"X"}, {"R"}, "relu");
  AddNode(graph, "Identity", {"R"}, {"Y"}, "id");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  for (const std::string target : {"CPUExecutionProvider", "SomeDeviceExecutionProvider"}) {
    Optimized base(proto, {"EliminateIdentity"});
    auto cpu = CpuProvider();
    TransformContext context;
    context.provider_of = [&cpu](const Graph&, NodeIndex) { return cpu.get(); };
    TransformerManager manager;
    manager.Register(std::make_unique<ReluRemoverFor>(target));
    manager.Run(*base.graph, TransformerLevel::kExtended, context);
    EXPECT_EQ(Ops(*base.graph), target == "CPUExecutionProvider"
                                    ? std::vector<std::string>{"Identity"}
                                    : (std::vector<std::string>{"Relu", "Identity"}))
        << target;
    // Before partitioning (no EP lookup) it touches nothing.
    Optimized unpartitioned(proto, {"EliminateIdentity"});
    manager.Run(*unpartitioned.graph, TransformerLevel::kExtended, {});
    EXPECT_EQ(Ops(*unpartitioned.graph), (std::vector<std::string>{"Relu", "Identity"}));
  }
}

TEST(TransformerManager, LevelsSelectPasses) {
  EXPECT_TRUE(MakeDefaultTransformers(0, {})->Names(TransformerLevel::kBasic).empty());
  EXPECT_EQ(MakeDefaultTransformers(1, {})->Names(TransformerLevel::kBasic),
            (std::vector<std::string>{"EliminateIdentity", "EliminateDropout",
                                      "CommonSubexpressionElimination", "ConstantFolding",
                                      "ReshapeChainElimination", "ConvBNFusion"}));
  EXPECT_TRUE(MakeDefaultTransformers(1, {})->Names(TransformerLevel::kExtended).empty());
  EXPECT_EQ(MakeDefaultTransformers(2, {})->Names(TransformerLevel::kExtended),
            (std::vector<std::string>{
                "QDQConvFusion", "QDQAddFusion", "QDQMatMulFusion", "QDQGemmFusion",
                "QDQGlobalAveragePoolFusion", "QDQDropFusion", "LayerNormFusion",
                "SkipLayerNormFusion", "AttentionFusion", "ConvActivationFusion", "GeluFusion",
                "FastGeluFusion", "BiasGeluFusion", "MatMulAddFusion", "GemmActivationFusion",
                "MatMulTransposeFusion", "MatMulScaleFusion"}));
}

TEST(CpuNodeEvaluator, ComputesAnAddAndRefusesUnknownOps) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {2});
  AddInput(graph, "B", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"A", "B"}, {"C"}, "add");
  AddNode(graph, "NoSuchOp", {"C"}, {"D"}, "odd", "com.example");
  AddOutput(graph, "D", TensorProto::FLOAT);
  proto.add_opset_import()->set_domain("com.example");
  proto.mutable_opset_import(1)->set_version(1);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto cpu = CpuProvider();
  const Tensor a = MakeTensor<float>({2}, {1.5f, -2.0f});
  const Tensor b = MakeTensor<float>({2}, {0.25f, 4.0f});
  const Graph& main = model->MainGraph();
  const auto sum = EvaluateOnCpu(*cpu, main.GetNode(0), {&a, &b});
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {1.75f, 2.0f})), Value(sum[0]), {0, 0}), "");
  PRISM_EXPECT_ERROR(CaptureError([&] { EvaluateOnCpu(*cpu, main.GetNode(1), {&sum[0]}); }),
                     kNotImplemented, "no CPU kernel for NoSuchOp node 'odd'");
}

TEST(CpuNodeEvaluator, RefusesOutputsOverItsLimitBeforeAllocating) {
  // Constant folding computes nodes of untrusted models at session creation: a foldable
  // ConstantOfShape of 2^30 floats must be refused before its 4 GiB are taken (the node then
  // stays and runs under the session's limits).
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "S", TensorProto::INT64, {1});
  AddNode(graph, "ConstantOfShape", {"S"}, {"Y"}, "fill");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto cpu = CpuProvider();
  const Tensor shape = MakeTensor<int64_t>({1}, {int64_t{1} << 30});
  PRISM_EXPECT_ERROR(
      CaptureError([&] { EvaluateOnCpu(*cpu, model->MainGraph().GetNode(0), {&shape}, 1024); }),
      kRuntimeException,
      "ConstantOfShape node 'fill': output 0 of shape [1073741824] is larger than the 1024 bytes "
      "allowed here");
  const Tensor small = MakeTensor<int64_t>({1}, {256});
  EXPECT_EQ(EvaluateOnCpu(*cpu, model->MainGraph().GetNode(0), {&small}, 1024)[0].NumElements(),
            256);
}

}  // namespace
}  // namespace prism::testing

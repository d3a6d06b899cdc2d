// The fusion passes on hand-made graphs: which nodes they replace (and which they must leave),
// and that the optimized session computes what the unoptimized one does on random inputs.
// ConvBNFusion (basic): Conv + BatchNormalization -> Conv. ConvActivationFusion (extended, CPU
// EP): Conv [+ Add(Z)] + activation -> com.microsoft FusedConv. GeluFusion (extended, CPU EP):
// the exact GELU's Div/Mul, Erf, Add, Mul, Mul -> com.microsoft Gelu. Sessions built with the
// default level (all) unless a test says otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "../graph/model_builder_util.h"
#include "../session/session_test_util.h"
#include "session/model_file_weights.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::vector<std::string> Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) ops.push_back(graph.GetNode(index).OpType());
  return ops;
}

std::vector<float> Random(size_t count, unsigned seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

SessionOptions AtLevel(GraphOptimizationLevel level, std::vector<std::string> disabled = {}) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return options;
}

// The extended level: the Conv fusions' own graphs, before the layout level's NchwcTransformer
// turns their FusedConvs into com.microsoft.nchwc ones (the results are still compared at the
// default level, all).
SessionOptions Extended() {
  return AtLevel(GraphOptimizationLevel::kExtended);
}

// X [1, 3, 5, 5] -> Conv (W [4, 3, 3, 3], B [4], pads 1) -> C -> BatchNormalization -> N.
onnx::ModelProto ConvBn(bool with_bias = true) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 3, 5, 5});
  AddFloatInitializer(graph, "W", {4, 3, 3, 3}, Random(108, 1));
  if (with_bias) AddFloatInitializer(graph, "B", {4}, Random(4, 2));
  AddFloatInitializer(graph, "scale", {4}, Random(4, 3, 0.5f, 2.0f));
  AddFloatInitializer(graph, "shift", {4}, Random(4, 4));
  AddFloatInitializer(graph, "mean", {4}, Random(4, 5));
  AddFloatInitializer(graph, "var", {4}, Random(4, 6, 0.1f, 3.0f));
  auto* conv = AddNode(
      graph, "Conv",
      with_bias ? std::vector<std::string>{"X", "W", "B"} : std::vector<std::string>{"X", "W"},
      {"C"}, "conv");
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  auto* bn =
      AddNode(graph, "BatchNormalization", {"C", "scale", "shift", "mean", "var"}, {"N"}, "bn");
  auto* epsilon = bn->add_attribute();
  epsilon->set_name("epsilon");
  epsilon->set_type(onnx::AttributeProto::FLOAT);
  epsilon->set_f(1e-3f);
  return model;
}

void ExpectSameResults(const onnx::ModelProto& model, const std::vector<std::string>& names,
                       const std::vector<std::vector<int64_t>>& shapes,
                       const SessionOptions& optimized_options = {}) {
  auto optimized = MakeSession(model, {}, optimized_options);
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t count = 1;
    for (int64_t d : shapes[i]) count *= d;
    feeds.push_back(MakeTensor<float>(shapes[i], Random(static_cast<size_t>(count), 40 + i)));
  }
  const auto a = RunFloat(*optimized, names, feeds);
  const auto b = RunFloat(*plain, names, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(CompareValues(b[i], a[i], {1e-5, 1e-5}), "");
}

TEST(ConvBNFusion, FoldsIntoTheConvAndComputesTheSame) {
  for (bool with_bias : {true, false}) {
    onnx::ModelProto model = ConvBn(with_bias);
    AddOutput(model.mutable_graph(), "N", TensorProto::FLOAT);
    auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
    EXPECT_EQ(Ops(*session->SessionGraph()), std::vector<std::string>{"Conv"}) << with_bias;
    const Graph& graph = *session->SessionGraph();
    EXPECT_EQ(graph.FindInitializer("scale"), nullptr) << "the folded parameters are released";
    EXPECT_EQ(graph.FindInitializer("W"), nullptr);
    ExpectSameResults(model, {"X"}, {{1, 3, 5, 5}}, AtLevel(GraphOptimizationLevel::kBasic));
  }
}

TEST(ConvBNFusion, LeavesWhatItMustNot) {
  // The Conv's output is also a graph output.
  onnx::ModelProto exposed = ConvBn();
  AddOutput(exposed.mutable_graph(), "N", TensorProto::FLOAT);
  AddOutput(exposed.mutable_graph(), "C", TensorProto::FLOAT);
  // A BatchNormalization parameter is a graph input (not a constant).
  onnx::ModelProto fed = ConvBn();
  fed.mutable_graph()->mutable_initializer()->erase(fed.mutable_graph()->initializer().begin() + 3);
  AddInput(fed.mutable_graph(), "shift", TensorProto::FLOAT, {4});
  AddOutput(fed.mutable_graph(), "N", TensorProto::FLOAT);
  // Training mode: the running statistics are outputs.
  onnx::ModelProto training = ConvBn();
  auto* bn = training.mutable_graph()->mutable_node(1);
  bn->add_output("running_mean");
  bn->add_output("running_var");
  auto* mode = bn->add_attribute();
  mode->set_name("training_mode");
  mode->set_type(onnx::AttributeProto::INT);
  mode->set_i(1);
  AddOutput(training.mutable_graph(), "N", TensorProto::FLOAT);
  AddOutput(training.mutable_graph(), "running_mean", TensorProto::FLOAT);
  for (const auto& [name, model] :
       {std::pair{"exposed", exposed}, std::pair{"fed", fed}, std::pair{"training", training}}) {
    auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
    EXPECT_EQ(Ops(*session->SessionGraph()),
              (std::vector<std::string>{"Conv", "BatchNormalization"}))
        << name;
  }
  onnx::ModelProto plain = ConvBn();
  AddOutput(plain.mutable_graph(), "N", TensorProto::FLOAT);
  auto disabled =
      MakeSession(plain, {}, AtLevel(GraphOptimizationLevel::kExtended, {"ConvBNFusion"}));
  EXPECT_EQ(Ops(*disabled->SessionGraph()),
            (std::vector<std::string>{"Conv", "BatchNormalization"}));
}

TEST(ConvBNFusion, ASharedWeightStaysForItsOtherReader) {
  onnx::ModelProto model = ConvBn();
  auto* graph = model.mutable_graph();
  AddNode(graph, "Conv", {"X", "W"}, {"C2"}, "conv2");
  AddOutput(graph, "N", TensorProto::FLOAT);
  AddOutput(graph, "C2", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
  EXPECT_EQ(Ops(*session->SessionGraph()).size(), 2u);
  EXPECT_NE(session->SessionGraph()->FindInitializer("W"), nullptr);
  ExpectSameResults(model, {"X"}, {{1, 3, 5, 5}}, AtLevel(GraphOptimizationLevel::kBasic));
}

// X -> Conv -> C -> [Add(C, Z) -> S ->] act -> Y, act given by op and its attributes/inputs.
onnx::ModelProto ConvThen(const std::string& activation, bool with_add, int opset = 17,
                          std::vector<DimSpec> z_shape = {1, 4, 5, 5}) {
  onnx::ModelProto model = MakeModel(opset);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 3, 5, 5});
  AddFloatInitializer(graph, "W", {4, 3, 3, 3}, Random(108, 7));
  AddFloatInitializer(graph, "B", {4}, Random(4, 8));
  auto* conv = AddNode(graph, "Conv", {"X", "W", "B"}, {"C"}, "conv");
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  std::string last = "C";
  if (with_add) {
    AddInput(graph, "Z", TensorProto::FLOAT, z_shape);
    AddNode(graph, "Add", {"Z", "C"}, {"S"}, "add");
    last = "S";
  }
  std::vector<std::string> inputs = {last};
  if (activation == "Clip" && opset >= 11) {
    AddFloatInitializer(graph, "low", {}, {-0.25f});
    AddFloatInitializer(graph, "high", {}, {0.5f});
    inputs = {last, "low", "high"};
  }
  auto* act = AddNode(graph, activation, inputs, {"Y"}, "act");
  if (activation == "LeakyRelu" || (activation == "Clip" && opset < 11)) {
    for (const auto& [name, value] :
         activation == "LeakyRelu"
             ? std::vector<std::pair<std::string, float>>{{"alpha", 0.3f}}
             : std::vector<std::pair<std::string, float>>{{"min", -0.25f}, {"max", 0.5f}}) {
      auto* attr = act->add_attribute();
      attr->set_name(name);
      attr->set_type(onnx::AttributeProto::FLOAT);
      attr->set_f(value);
    }
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

// A session that loaded the model from a file frees the model's copy of a folded W (it keeps
// only the folded one) and reads W back from the file when it builds its state again; a file
// changed in between fails that build with a message naming the file, not with other weights.
TEST(ConvBNFusion, FoldedWeightIsFreedAndReadBackFromTheModelFile) {
  onnx::ModelProto model = ConvBn();
  AddOutput(model.mutable_graph(), "N", TensorProto::FLOAT);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("prism_convbn_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
       std::to_string(reinterpret_cast<uintptr_t>(&model)) + ".onnx");
  {
    std::ofstream file(path, std::ios::binary);
    file << Serialize(model);
  }
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  const std::vector<Tensor> feeds = {MakeTensor<float>({1, 3, 5, 5}, Random(75, 50))};
  const auto expected = RunFloat(*plain, {"X"}, feeds);
  InferenceSession session(SessionOptions{}, {});
  session.Load(path.string());
  EXPECT_EQ(CompareValues(expected[0], RunFloat(session, {"X"}, feeds)[0], {1e-5, 1e-4}), "");
  EXPECT_EQ(session.GetModel().MainGraph().FindInitializer("W"), nullptr);
  EXPECT_NE(session.GetModel().MainGraph().FindInitializer("scale"), nullptr);

  // The file gives W back bit for bit.
  const Tensor* original = plain->GetModel().MainGraph().FindInitializer("W");
  const Tensor reloaded = ModelFileWeights::Remember(path.string(), {})->Reload("W");
  ASSERT_EQ(reloaded.Shape(), original->Shape());
  for (int64_t i = 0; i < original->NumElements(); ++i)
    ASSERT_EQ(reloaded.Data<float>()[i], original->Data<float>()[i]) << i;
  // A new state (Conv on the test EP) starts from the model's W, read back from the file (the
  // fold is computed again from it).
  session.SetProviders({TestEp("Conv")});
  EXPECT_EQ(CompareValues(expected[0], RunFloat(session, {"X"}, feeds)[0], {1e-5, 1e-4}), "");
  // Released again by that build; the file changes; the next build cannot get W back.
  EXPECT_EQ(session.GetModel().MainGraph().FindInitializer("W"), nullptr);
  {
    std::ofstream file(path, std::ios::binary | std::ios::app);
    file << "more bytes";
  }
  try {
    session.SetProviders({});
    ADD_FAILURE() << "expected the changed model file to be refused";
  } catch (const Exception& error) {
    EXPECT_NE(std::string(error.what()).find("changed"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
  std::filesystem::remove(path);
}

// From bytes there is no file to read W back from: the model keeps it.
TEST(ConvBNFusion, ModelFromBytesKeepsTheFoldedWeightsSource) {
  onnx::ModelProto model = ConvBn();
  AddOutput(model.mutable_graph(), "N", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  EXPECT_NE(session->GetModel().MainGraph().FindInitializer("W"), nullptr);
}

TEST(ConvActivationFusion, EveryActivationBecomesFusedConv) {
  for (const std::string activation :
       {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "Clip"}) {
    for (int opset : {6, 17}) {
      if (opset == 6 && activation != "Clip") continue;
      onnx::ModelProto model = ConvThen(activation, false, opset);
      auto session = MakeSession(model, {}, Extended());
      const Graph& graph = *session->SessionGraph();
      ASSERT_EQ(Ops(graph), std::vector<std::string>{"FusedConv"}) << activation << opset;
      const Node& fused = graph.GetNode(graph.TopologicalOrder()[0]);
      EXPECT_EQ(fused.Domain(), "com.microsoft");
      EXPECT_EQ(fused.FindAttribute("activation")->s, activation);
      ExpectSameResults(model, {"X"}, {{1, 3, 5, 5}});
    }
  }
}

TEST(ConvActivationFusion, ResidualAddBeforeTheActivationBecomesZ) {
  onnx::ModelProto model = ConvThen("Relu", true);
  auto session = MakeSession(model, {}, Extended());
  const Graph& graph = *session->SessionGraph();
  ASSERT_EQ(Ops(graph), std::vector<std::string>{"FusedConv"});
  EXPECT_EQ(graph.GetNode(graph.TopologicalOrder()[0]).InputCount(), 4u);
  ExpectSameResults(model, {"X", "Z"}, {{1, 3, 5, 5}, {1, 4, 5, 5}});
  // The report says where the replaced nodes went.
  const PartitionReport report = session->Report();
  int fused_into = 0;
  for (const NodePlacement& placement : report.nodes)
    fused_into += placement.fused_into == "conv_fused";
  EXPECT_EQ(fused_into, 3);
}

TEST(ConvActivationFusion, LeavesWhatItMustNot) {
  // Z broadcast over the Conv's output: FusedConv does not broadcast.
  onnx::ModelProto broadcast = ConvThen("Relu", true, 17, {1, 4, 1, 1});
  EXPECT_EQ(Ops(*MakeSession(broadcast, {}, Extended())->SessionGraph()),
            (std::vector<std::string>{"Conv", "Add", "Relu"}));
  ExpectSameResults(broadcast, {"X", "Z"}, {{1, 3, 5, 5}, {1, 4, 1, 1}});
  // An activation FusedConv has no form for, basic level, disabled by name, another EP.
  onnx::ModelProto elu = ConvThen("Elu", false);
  EXPECT_EQ(Ops(*MakeSession(elu, {}, Extended())->SessionGraph()),
            (std::vector<std::string>{"Conv", "Elu"}));
  onnx::ModelProto relu = ConvThen("Relu", false);
  EXPECT_EQ(Ops(*MakeSession(relu, {}, AtLevel(GraphOptimizationLevel::kBasic))->SessionGraph()),
            (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(Ops(*MakeSession(relu, {},
                             AtLevel(GraphOptimizationLevel::kExtended, {"ConvActivationFusion"}))
                     ->SessionGraph()),
            (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(Ops(*MakeSession(relu, {TestEp("Conv"), {"CPUExecutionProvider", {}}})->SessionGraph()),
            (std::vector<std::string>{"Conv", "Relu"}));
  // Clip with a bound computed at run time.
  onnx::ModelProto clip = ConvThen("Clip", false);
  auto* graph = clip.mutable_graph();
  graph->mutable_initializer()->RemoveLast();
  AddInput(graph, "high", TensorProto::FLOAT, {});
  EXPECT_EQ(Ops(*MakeSession(clip, {}, Extended())->SessionGraph()),
            (std::vector<std::string>{"Conv", "Clip"}));
}

TEST(ConvFusions, ConvBnAddReluChainBecomesOneFusedConv) {
  onnx::ModelProto model = ConvBn();
  auto* graph = model.mutable_graph();
  AddInput(graph, "Z", TensorProto::FLOAT, {1, 4, 5, 5});
  AddNode(graph, "Add", {"N", "Z"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  EXPECT_EQ(Ops(*MakeSession(model, {}, Extended())->SessionGraph()),
            std::vector<std::string>{"FusedConv"});
  ExpectSameResults(model, {"X", "Z"}, {{1, 3, 5, 5}, {1, 4, 5, 5}});
}

enum class GeluForm { kDivThenHalfLast, kReciprocalThenHalfFirst };

// X [2, 3, 4] -> the decomposed exact GELU -> Y. erf_also_output exposes the Erf's result;
// root2 is the divisor (or the reciprocal's inverse).
onnx::ModelProto DecomposedGelu(GeluForm form, bool erf_also_output = false,
                                float root2 = 1.41421356f) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 4});
  AddFloatInitializer(graph, "one", {}, {1.0f});
  AddFloatInitializer(graph, "half", {}, {0.5f});
  if (form == GeluForm::kDivThenHalfLast) {
    AddFloatInitializer(graph, "root2", {}, {root2});
    AddNode(graph, "Div", {"X", "root2"}, {"d"}, "div");
  } else {
    AddFloatInitializer(graph, "inv_root2", {}, {1.0f / root2});
    AddNode(graph, "Mul", {"inv_root2", "X"}, {"d"}, "scale");
  }
  AddNode(graph, "Erf", {"d"}, {"e"}, "erf");
  AddNode(graph, "Add", {"one", "e"}, {"a"}, "add");
  if (form == GeluForm::kDivThenHalfLast) {
    AddNode(graph, "Mul", {"a", "X"}, {"p"}, "mul");
    AddNode(graph, "Mul", {"p", "half"}, {"Y"}, "mul_half");
  } else {
    AddNode(graph, "Mul", {"X", "half"}, {"h"}, "mul_half");
    AddNode(graph, "Mul", {"h", "a"}, {"Y"}, "mul");
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (erf_also_output) AddOutput(graph, "e", TensorProto::FLOAT);
  return model;
}

TEST(GeluFusion, BothExportedFormsBecomeOneGelu) {
  for (GeluForm form : {GeluForm::kDivThenHalfLast, GeluForm::kReciprocalThenHalfFirst}) {
    onnx::ModelProto model = DecomposedGelu(form);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    ASSERT_EQ(Ops(graph), std::vector<std::string>{"Gelu"}) << static_cast<int>(form);
    EXPECT_EQ(graph.GetNode(graph.TopologicalOrder()[0]).Domain(), "com.microsoft");
    ExpectSameResults(model, {"X"}, {{2, 3, 4}});
  }
}

TEST(GeluFusion, LeavesWhatItMustNot) {
  const std::vector<std::string> all = {"Div", "Erf", "Add", "Mul", "Mul"};
  // The Erf's result is read elsewhere (a graph output).
  EXPECT_EQ(Ops(*MakeSession(DecomposedGelu(GeluForm::kDivThenHalfLast, true), {})->SessionGraph()),
            all);
  // Not sqrt(2): another function.
  onnx::ModelProto other = DecomposedGelu(GeluForm::kDivThenHalfLast, false, 1.5f);
  EXPECT_EQ(Ops(*MakeSession(other, {})->SessionGraph()), all);
  ExpectSameResults(other, {"X"}, {{2, 3, 4}});
  // Basic level, disabled by name.
  onnx::ModelProto gelu = DecomposedGelu(GeluForm::kDivThenHalfLast);
  EXPECT_EQ(Ops(*MakeSession(gelu, {}, AtLevel(GraphOptimizationLevel::kBasic))->SessionGraph()),
            all);
  EXPECT_EQ(Ops(*MakeSession(gelu, {}, AtLevel(GraphOptimizationLevel::kAll, {"GeluFusion"}))
                     ->SessionGraph()),
            all);
}

}  // namespace
}  // namespace prism::testing

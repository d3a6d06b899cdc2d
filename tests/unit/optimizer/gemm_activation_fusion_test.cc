// GemmActivationFusion (extended, CPU EP): Gemm + activation -> com.microsoft FusedGemm. Which
// activations it takes (with their parameters written out, defaults included), the patterns it
// must leave, a MatMul + Add + Relu that MatMulAddFusion turns into a Gemm first, the gemm_chain
// bench model, and the optimized session against the unoptimized one on random inputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "../graph/model_builder_util.h"
#include "../session/session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::vector<std::string> Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) ops.push_back(graph.GetNode(index).OpType());
  return ops;
}

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
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

// X [3, 5] -> Gemm(W [4, 5] transB, B [4], alpha 0.75) -> G -> activation -> Y.
onnx::ModelProto GemmThen(const std::string& activation,
                          const std::vector<std::pair<std::string, float>>& attributes = {},
                          int opset = 17, bool with_bias = true) {
  onnx::ModelProto model = MakeModel(opset);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3, 5});
  AddFloatInitializer(graph, "W", {4, 5}, Random(20, 1));
  std::vector<std::string> inputs = {"X", "W"};
  if (with_bias) {
    AddFloatInitializer(graph, "B", {4}, Random(4, 2));
    inputs.push_back("B");
  }
  auto* gemm = AddNode(graph, "Gemm", inputs, {"G"}, "gemm");
  SetIntAttr(gemm, "transB", 1);
  SetFloatAttr(gemm, "alpha", 0.75f);
  auto* act = AddNode(graph, activation, {"G"}, {"Y"}, "act");
  for (const auto& [name, value] : attributes) SetFloatAttr(act, name, value);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

void ExpectSameResults(const onnx::ModelProto& model, const std::vector<int64_t>& x_shape,
                       const SessionOptions& optimized_options = {}) {
  auto optimized = MakeSession(model, {}, optimized_options);
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  int64_t count = 1;
  for (int64_t d : x_shape) count *= d;
  // Values around 0 and beyond the activations' kinks and thresholds.
  std::vector<float> x = Random(static_cast<size_t>(count), 41);
  for (float& v : x) v *= 3.0f;
  const std::vector<Tensor> feeds = {MakeTensor<float>(x_shape, x)};
  const auto a = RunFloat(*optimized, {"X"}, feeds);
  const auto b = RunFloat(*plain, {"X"}, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(CompareValues(b[i], a[i], {1e-5, 1e-5}), "");
}

TEST(GemmActivationFusion, EveryActivationBecomesFusedGemm) {
  // activation, its attributes in the model, the activation_* attributes expected on FusedGemm.
  struct Case {
    std::string op;
    std::vector<std::pair<std::string, float>> given;
    std::map<std::string, float> fused;
  };
  const float selu_alpha = 1.67326319217681884765625f, selu_gamma = 1.05070102214813232421875f;
  const std::vector<Case> cases = {
      {"Relu", {}, {}},
      {"Tanh", {}, {}},
      {"Sigmoid", {}, {}},
      {"Softplus", {}, {}},
      {"Softsign", {}, {}},
      {"LeakyRelu", {{"alpha", 0.3f}}, {{"activation_alpha", 0.3f}}},
      {"LeakyRelu", {}, {{"activation_alpha", 0.01f}}},
      {"Elu", {{"alpha", 0.5f}}, {{"activation_alpha", 0.5f}}},
      {"Elu", {}, {{"activation_alpha", 1.0f}}},
      {"HardSigmoid",
       {{"alpha", 0.3f}, {"beta", 0.4f}},
       {{"activation_alpha", 0.3f}, {"activation_beta", 0.4f}}},
      {"HardSigmoid", {}, {{"activation_alpha", 0.2f}, {"activation_beta", 0.5f}}},
      {"Selu",
       {{"alpha", 1.5f}, {"gamma", 2.0f}},
       {{"activation_alpha", 1.5f}, {"activation_gamma", 2.0f}}},
      {"Selu", {}, {{"activation_alpha", selu_alpha}, {"activation_gamma", selu_gamma}}},
      {"ThresholdedRelu", {{"alpha", 0.2f}}, {{"activation_alpha", 0.2f}}},
      {"ThresholdedRelu", {}, {{"activation_alpha", 1.0f}}},
  };
  for (const Case& c : cases) {
    const onnx::ModelProto model = GemmThen(c.op, c.given);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    ASSERT_EQ(Ops(graph), std::vector<std::string>{"FusedGemm"}) << c.op;
    const Node& fused = graph.GetNode(graph.TopologicalOrder()[0]);
    EXPECT_EQ(fused.Domain(), "com.microsoft");
    EXPECT_EQ(fused.Outputs()[0]->name, "Y");
    EXPECT_EQ(fused.FindAttribute("activation")->s, c.op);
    EXPECT_EQ(fused.FindAttribute("transB")->i, 1);
    EXPECT_EQ(fused.FindAttribute("alpha")->f, 0.75f);
    size_t params = 0;
    for (const auto& [name, attribute] : fused.Attributes()) {
      if (name.rfind("activation_", 0) != 0) continue;
      ++params;
      ASSERT_TRUE(c.fused.count(name)) << c.op << " " << name;
      EXPECT_EQ(attribute.f, c.fused.at(name)) << c.op << " " << name;
    }
    EXPECT_EQ(params, c.fused.size()) << c.op;
    ExpectSameResults(model, {3, 5});
  }
}

TEST(GemmActivationFusion, GemmWithoutBiasAndOlderOpsets) {
  for (int opset : {7, 11, 13}) {
    const onnx::ModelProto model = GemmThen("Relu", {}, opset, opset >= 11 ? false : true);
    auto session = MakeSession(model, {});
    EXPECT_EQ(Ops(*session->SessionGraph()), std::vector<std::string>{"FusedGemm"}) << opset;
    ExpectSameResults(model, {3, 5});
  }
}

TEST(GemmActivationFusion, LeavesWhatItMustNot) {
  std::vector<std::pair<std::string, onnx::ModelProto>> models;
  // The Gemm's output is also a graph output.
  models.emplace_back("exposed", GemmThen("Relu"));
  AddOutput(models.back().second.mutable_graph(), "G", TensorProto::FLOAT);
  // The Gemm's output has a second reader.
  models.emplace_back("shared", GemmThen("Relu"));
  AddNode(models.back().second.mutable_graph(), "Neg", {"G"}, {"N"}, "neg");
  AddOutput(models.back().second.mutable_graph(), "N", TensorProto::FLOAT);
  // Activations onnxruntime's fusion does not take.
  models.emplace_back("abs", GemmThen("Abs"));
  models.emplace_back("gelu", GemmThen("Gelu", {}, 20));
  // Gemm of opset 6 (C broadcast only with broadcast=1).
  models.emplace_back("opset6", GemmThen("Relu", {}, 6));
  SetIntAttr(models.back().second.mutable_graph()->mutable_node(0), "broadcast", 1);
  for (const auto& [name, model] : models) {
    auto session = MakeSession(model, {});
    const std::vector<std::string> ops = Ops(*session->SessionGraph());
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "FusedGemm"), 0) << name;
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Gemm"), 1) << name;
    ExpectSameResults(model, {3, 5});
  }
  // Double: FusedGemm's kernel is float only.
  onnx::ModelProto doubles = MakeModel(17);
  auto* graph = doubles.mutable_graph();
  AddInput(graph, "X", TensorProto::DOUBLE, {2, 2});
  AddInput(graph, "W", TensorProto::DOUBLE, {2, 2});
  AddNode(graph, "Gemm", {"X", "W"}, {"G"}, "gemm");
  AddNode(graph, "Relu", {"G"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::DOUBLE);
  EXPECT_EQ(Ops(*MakeSession(doubles, {})->SessionGraph()),
            (std::vector<std::string>{"Gemm", "Relu"}));
  // Disabled by name, or below the extended level.
  const onnx::ModelProto model = GemmThen("Relu");
  EXPECT_EQ(
      Ops(*MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll, {"GemmActivationFusion"}))
               ->SessionGraph()),
      (std::vector<std::string>{"Gemm", "Relu"}));
  EXPECT_EQ(Ops(*MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic))->SessionGraph()),
            (std::vector<std::string>{"Gemm", "Relu"}));
}

TEST(GemmActivationFusion, MatMulAddReluBecomesOneFusedGemm) {
  // X [3, 5] MatMul W [5, 4], Add B [4], Relu: MatMulAddFusion makes the Gemm, this pass takes
  // its Relu.
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3, 5});
  AddFloatInitializer(graph, "W", {5, 4}, Random(20, 5));
  AddFloatInitializer(graph, "B", {4}, Random(4, 6));
  AddNode(graph, "MatMul", {"X", "W"}, {"M"}, "matmul");
  AddNode(graph, "Add", {"M", "B"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  EXPECT_EQ(Ops(*session->SessionGraph()), std::vector<std::string>{"FusedGemm"});
  ExpectSameResults(model, {3, 5});
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(GemmActivationFusion, GemmChainFusesEveryLayerAndComputesTheSame) {
  const std::filesystem::path path =
      std::filesystem::path(PRISM_BINARY_DIR) / "bench-models" / "gemm_chain.onnx";
  if (!std::filesystem::exists(path)) {
    if (std::getenv("PRISM_REQUIRE_BENCH_MODELS") != nullptr)
      FAIL() << path << " is missing and PRISM_REQUIRE_BENCH_MODELS is set";
    GTEST_SKIP() << path << " is missing (../shared/bench/make_models.py makes it)";
  }
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(ReadFile(path)));
  auto fused = MakeSession(model, {});
  EXPECT_EQ(Ops(*fused->SessionGraph()), std::vector<std::string>(8, "FusedGemm"));
  auto reference = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  const std::vector<Tensor> feeds = {MakeTensor<float>({64, 1024}, Random(64 * 1024, 9))};
  EXPECT_EQ(CompareValues(RunFloat(*reference, {"input"}, feeds)[0],
                          RunFloat(*fused, {"input"}, feeds)[0], {1e-5, 1e-5}),
            "");
}

}  // namespace
}  // namespace prism::testing

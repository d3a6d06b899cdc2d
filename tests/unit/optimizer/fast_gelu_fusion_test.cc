// FastGeluFusion (extended, CPU EP) on hand-made graphs: the tanh GELU's forms as exporters
// write them become one com.microsoft FastGelu (with a preceding bias Add taken in as its bias
// input), the optimized session computes what the unoptimized one does, and graphs that differ
// anywhere from the pattern are left as they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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

std::vector<std::string> OptimizedOps(const onnx::ModelProto& model,
                                      std::vector<std::string> disabled = {},
                                      GraphOptimizationLevel level = GraphOptimizationLevel::kAll) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return Ops(*MakeSession(model, {}, options)->SessionGraph());
}

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

constexpr int64_t kChannels = 8;
const std::vector<int64_t> kShape = {2, 3, kChannels};

// The optimized session against the unoptimized one on random X.
void ExpectSameResults(const onnx::ModelProto& model) {
  auto optimized = MakeSession(model, {});
  SessionOptions plain_options;
  plain_options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto plain = MakeSession(model, {}, plain_options);
  const std::vector<Tensor> feeds = {MakeTensor<float>(kShape, Random(2 * 3 * kChannels, 7))};
  const auto a = RunFloat(*optimized, {"X"}, feeds);
  const auto b = RunFloat(*plain, {"X"}, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(CompareValues(b[i], a[i], {1e-5, 1e-5}), "");
}

enum class Form {
  kPowCube,         // x + 0.044715 * Pow(x, 3); (x * a) * 0.5
  kMulCube,         // Mul(Mul(x, x), x) with constants first; (x * 0.5) * a
  kFactoredSquare,  // x * (0.044715 * x * x + 1); (x * a) * 0.5
};

struct TanhGelu {
  Form form = Form::kPowCube;
  bool with_bias = false;
  float cube_factor = 0.044715f;
  bool tanh_also_output = false;
  bool sum_also_output = false;         // the bias Add's result is a graph output too
  bool sum_also_relu = false;           // the bias Add's result is read by a Relu too
  std::vector<int64_t> half_dims = {};  // the 0.5's shape ([kChannels]: not a scalar)
};

// X [2, 3, 8] (+ bias [8]) -> the tanh GELU, written out -> Y.
onnx::ModelProto DecomposedTanhGelu(const TanhGelu& g) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kShape.begin(), kShape.end()});
  std::string x = "X";
  if (g.with_bias) {
    AddFloatInitializer(graph, "bias", {kChannels}, Random(kChannels, 3));
    AddNode(graph, "Add", {"X", "bias"}, {"x"}, "bias_add");
    x = "x";
  }
  AddFloatInitializer(graph, "cube_factor", {}, {g.cube_factor});
  AddFloatInitializer(graph, "sqrt_2_over_pi", {}, {0.7978845608f});
  AddFloatInitializer(graph, "one", {}, {1.0f});
  const size_t half_count = g.half_dims.empty() ? 1 : static_cast<size_t>(g.half_dims[0]);
  AddFloatInitializer(graph, "half", g.half_dims, std::vector<float>(half_count, 0.5f));
  switch (g.form) {
    case Form::kPowCube:
      AddFloatInitializer(graph, "three", {}, {3.0f});
      AddNode(graph, "Pow", {x, "three"}, {"cube"}, "pow");
      AddNode(graph, "Mul", {"cube", "cube_factor"}, {"scaled_cube"}, "mul_cube");
      AddNode(graph, "Add", {x, "scaled_cube"}, {"inner"}, "add_inner");
      AddNode(graph, "Mul", {"inner", "sqrt_2_over_pi"}, {"scaled"}, "mul_scale");
      break;
    case Form::kMulCube:
      AddNode(graph, "Mul", {x, x}, {"square"}, "square");
      AddNode(graph, "Mul", {"square", x}, {"cube"}, "cube");
      AddNode(graph, "Mul", {"cube_factor", "cube"}, {"scaled_cube"}, "mul_cube");
      AddNode(graph, "Add", {"scaled_cube", x}, {"inner"}, "add_inner");
      AddNode(graph, "Mul", {"sqrt_2_over_pi", "inner"}, {"scaled"}, "mul_scale");
      break;
    case Form::kFactoredSquare:
      AddNode(graph, "Mul", {x, x}, {"square"}, "square");
      AddNode(graph, "Mul", {"square", "cube_factor"}, {"scaled_square"}, "mul_square");
      AddNode(graph, "Add", {"scaled_square", "one"}, {"plus_one"}, "add_square_one");
      AddNode(graph, "Mul", {x, "plus_one"}, {"inner"}, "mul_inner");
      AddNode(graph, "Mul", {"inner", "sqrt_2_over_pi"}, {"scaled"}, "mul_scale");
      break;
  }
  AddNode(graph, "Tanh", {"scaled"}, {"t"}, "tanh");
  AddNode(graph, "Add", {"one", "t"}, {"a"}, "add_one");
  if (g.form == Form::kMulCube) {
    AddNode(graph, "Mul", {x, "half"}, {"h"}, "mul_half");
    AddNode(graph, "Mul", {"h", "a"}, {"Y"}, "mul_x");
  } else {
    AddNode(graph, "Mul", {"a", x}, {"p"}, "mul_x");
    AddNode(graph, "Mul", {"p", "half"}, {"Y"}, "mul_half");
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (g.tanh_also_output) AddOutput(graph, "t", TensorProto::FLOAT);
  if (g.sum_also_output) AddOutput(graph, "x", TensorProto::FLOAT);
  if (g.sum_also_relu) {
    AddNode(graph, "Relu", {"x"}, {"R"}, "relu");
    AddOutput(graph, "R", TensorProto::FLOAT);
  }
  return model;
}

TEST(FastGeluFusion, EveryExportedFormBecomesOneFastGelu) {
  for (Form form : {Form::kPowCube, Form::kMulCube, Form::kFactoredSquare}) {
    SCOPED_TRACE(static_cast<int>(form));
    TanhGelu g;
    g.form = form;
    const onnx::ModelProto model = DecomposedTanhGelu(g);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    ASSERT_EQ(Ops(graph), std::vector<std::string>{"FastGelu"});
    const Node& fast_gelu = graph.GetNode(graph.TopologicalOrder()[0]);
    EXPECT_EQ(fast_gelu.Domain(), "com.microsoft");
    EXPECT_EQ(fast_gelu.InputCount(), 1u);
    EXPECT_EQ(fast_gelu.Inputs()[0]->name, "X");
    ExpectSameResults(model);
  }
}

TEST(FastGeluFusion, APrecedingBiasAddBecomesTheBiasInput) {
  for (Form form : {Form::kPowCube, Form::kMulCube, Form::kFactoredSquare}) {
    SCOPED_TRACE(static_cast<int>(form));
    TanhGelu g;
    g.form = form;
    g.with_bias = true;
    const onnx::ModelProto model = DecomposedTanhGelu(g);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    ASSERT_EQ(Ops(graph), std::vector<std::string>{"FastGelu"});
    const Node& fast_gelu = graph.GetNode(graph.TopologicalOrder()[0]);
    ASSERT_EQ(fast_gelu.InputCount(), 2u);
    EXPECT_EQ(fast_gelu.Inputs()[0]->name, "X");
    EXPECT_EQ(fast_gelu.Inputs()[1]->name, "bias");
    ExpectSameResults(model);
  }
}

TEST(FastGeluFusion, LeavesWhatItMustNot) {
  const auto fast_gelus = [](const std::vector<std::string>& ops) {
    return std::count(ops.begin(), ops.end(), "FastGelu");
  };
  TanhGelu other_factor;  // 0.05 x^3: another function
  other_factor.cube_factor = 0.05f;
  TanhGelu tanh_read;  // the Tanh's result is a graph output too
  tanh_read.tanh_also_output = true;
  TanhGelu vector_half;  // 0.5 as [8]: not a scalar constant
  vector_half.half_dims = {kChannels};
  for (const TanhGelu& g : {other_factor, tanh_read, vector_half}) {
    const onnx::ModelProto model = DecomposedTanhGelu(g);
    const std::vector<std::string> ops = OptimizedOps(model);
    EXPECT_EQ(fast_gelus(ops), 0);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Tanh"), 1);
    ExpectSameResults(model);
  }
  // The biased sum is read elsewhere (a graph output, another node): FastGelu takes the sum,
  // the Add stays.
  TanhGelu sum_output;
  sum_output.with_bias = true;
  sum_output.sum_also_output = true;
  TanhGelu sum_relu = sum_output;
  sum_relu.sum_also_output = false;
  sum_relu.sum_also_relu = true;
  for (const TanhGelu& g : {sum_output, sum_relu}) {
    const onnx::ModelProto shared_sum = DecomposedTanhGelu(g);
    std::vector<std::string> ops = OptimizedOps(shared_sum);
    std::sort(ops.begin(), ops.end());
    EXPECT_EQ(ops, g.sum_also_relu ? (std::vector<std::string>{"Add", "FastGelu", "Relu"})
                                   : (std::vector<std::string>{"Add", "FastGelu"}));
    ExpectSameResults(shared_sum);
  }
  // Basic level, and disabled by name.
  const onnx::ModelProto model = DecomposedTanhGelu({});
  EXPECT_EQ(fast_gelus(OptimizedOps(model, {}, GraphOptimizationLevel::kBasic)), 0);
  EXPECT_EQ(OptimizedOps(model, {"FastGeluFusion"}).size(), 8u);
}

}  // namespace
}  // namespace prism::testing

// ReshapeChainElimination (basic level): Reshape/Squeeze/Unsqueeze chains collapse onto their
// last node when it needs nothing of the intermediate but its element count (a constant
// Reshape target without 0) or when its output shape is known in full (a new Reshape to it);
// the shape computations of a dropped target go too. It leaves chains whose intermediate has
// another reader or is a graph output, and a target that copies a dim (0) of an unknown shape.
// The optimized session against the unoptimized one.
#include <gtest/gtest.h>

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

SessionOptions AtLevel(GraphOptimizationLevel level, std::vector<std::string> disabled = {}) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return options;
}

void AddInts(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& values,
             bool scalar = false) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::INT64);
  if (!scalar) init->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) init->add_int64_data(v);
}

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

// Basic-level session (the pass's graph) and its results against the unoptimized session's, bit
// for bit: the rewrite moves no element.
std::vector<std::string> OptimizedOpsComputingTheSame(const onnx::ModelProto& model,
                                                      const std::vector<int64_t>& x_shape) {
  auto optimized = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  int64_t count = 1;
  for (int64_t d : x_shape) count *= d;
  const std::vector<Tensor> feeds = {
      MakeTensor<float>(x_shape, Random(static_cast<size_t>(count), 5))};
  const auto a = RunFloat(*optimized, {"X"}, feeds);
  const auto b = RunFloat(*plain, {"X"}, feeds);
  EXPECT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    EXPECT_EQ(CompareValues(b[i], a[i], {0, 0}), "") << i;
    EXPECT_EQ(a[i].GetTensor().Shape(), b[i].GetTensor().Shape()) << i;
  }
  return Ops(*optimized->SessionGraph());
}

TEST(ReshapeChainElimination, ConstantTargetTakesTheFirstInput) {
  // X [n, 3, 4] -> Reshape [-1, 4] -> Reshape [4, -1] (n is symbolic: no shape is known).
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 3, 4});
  AddInts(graph, "first", {-1, 4});
  AddInts(graph, "second", {4, -1});
  AddNode(graph, "Reshape", {"X", "first"}, {"R1"}, "r1");
  AddNode(graph, "Reshape", {"R1", "second"}, {"Y"}, "r2");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
  const Graph& optimized = *session->SessionGraph();
  ASSERT_EQ(Ops(optimized), std::vector<std::string>{"Reshape"});
  const Node& reshape = optimized.GetNode(optimized.TopologicalOrder()[0]);
  EXPECT_EQ(reshape.Inputs()[0]->name, "X");
  EXPECT_EQ(reshape.Inputs()[1]->name, "second");
  EXPECT_EQ(reshape.Outputs()[0]->name, "Y");
  for (int64_t n : {2, 4})
    EXPECT_EQ(OptimizedOpsComputingTheSame(model, {n, 3, 4}), std::vector<std::string>{"Reshape"});

  auto disabled =
      MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic, {"ReshapeChainElimination"}));
  EXPECT_EQ(Ops(*disabled->SessionGraph()), (std::vector<std::string>{"Reshape", "Reshape"}));
}

TEST(ReshapeChainElimination, ALongChainAndItsShapeComputationGo) {
  // X [n, 4, 6]: Unsqueeze(axes 0) -> Reshape to [n, 8, 3] computed from Shape(X) ->
  // Reshape [-1, 24]: one Reshape of X remains, and the Shape/Gather/Unsqueeze/Concat that
  // computed the dropped target go with it.
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 4, 6});
  AddInts(graph, "axes", {0});
  AddInts(graph, "index", {0}, /*scalar=*/true);
  AddInts(graph, "tail", {8, 3});
  AddInts(graph, "last", {-1, 24});
  AddNode(graph, "Unsqueeze", {"X", "axes"}, {"U"}, "unsqueeze");
  AddNode(graph, "Shape", {"X"}, {"S"}, "shape");
  AddNode(graph, "Gather", {"S", "index"}, {"G"}, "gather");
  AddNode(graph, "Unsqueeze", {"G", "axes"}, {"GU"}, "gather_unsqueeze");
  auto* concat = AddNode(graph, "Concat", {"GU", "tail"}, {"T"}, "concat");
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  AddNode(graph, "Reshape", {"U", "T"}, {"R"}, "r1");
  AddNode(graph, "Reshape", {"R", "last"}, {"Y"}, "r2");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  EXPECT_EQ(OptimizedOpsComputingTheSame(model, {3, 4, 6}), std::vector<std::string>{"Reshape"});
}

TEST(ReshapeChainElimination, AKnownOutputShapeBecomesOneReshape) {
  // X [2, 1, 12] -> Squeeze(axes 1) -> Unsqueeze(axes 0) -> [1, 2, 12]: Reshape(X, [1, 2, 12]).
  onnx::ModelProto model = MakeModel(13);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 1, 12});
  AddInts(graph, "one", {1});
  AddInts(graph, "zero", {0});
  AddNode(graph, "Squeeze", {"X", "one"}, {"S"}, "squeeze");
  AddNode(graph, "Unsqueeze", {"S", "zero"}, {"Y"}, "unsqueeze");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kBasic));
  const Graph& optimized = *session->SessionGraph();
  ASSERT_EQ(Ops(optimized), std::vector<std::string>{"Reshape"});
  const Node& reshape = optimized.GetNode(optimized.TopologicalOrder()[0]);
  EXPECT_EQ(reshape.Inputs()[0]->name, "X");
  const Tensor* target = optimized.FindInitializer(reshape.Inputs()[1]->name);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(std::vector<int64_t>(target->Data<int64_t>(), target->Data<int64_t>() + 3),
            (std::vector<int64_t>{1, 2, 12}));
  EXPECT_EQ(OptimizedOpsComputingTheSame(model, {2, 1, 12}), std::vector<std::string>{"Reshape"});
}

TEST(ReshapeChainElimination, LeavesWhatItMustNot) {
  // X [n, 6] -> Reshape [-1, 3] -> R [2n, 3] -> Reshape(second) -> Y, with R also read
  // elsewhere, or a graph output, or a second target that copies a dim of R (0, which is 2n, not
  // X's n) whose shape is not known.
  const auto chain = [](const std::vector<int64_t>& second, bool shared, bool exposed) {
    onnx::ModelProto model = MakeModel(13);
    auto* graph = model.mutable_graph();
    AddInput(graph, "X", TensorProto::FLOAT, {"n", 6});
    AddInts(graph, "first", {-1, 3});
    AddInts(graph, "second", second);
    AddNode(graph, "Reshape", {"X", "first"}, {"R"}, "r1");
    AddNode(graph, "Reshape", {"R", "second"}, {"Y"}, "r2");
    AddOutput(graph, "Y", TensorProto::FLOAT);
    if (shared) {
      AddNode(graph, "Neg", {"R"}, {"N"}, "neg");
      AddOutput(graph, "N", TensorProto::FLOAT);
    }
    if (exposed) AddOutput(graph, "R", TensorProto::FLOAT);
    return model;
  };
  const std::vector<std::string> both = {"Reshape", "Reshape"};
  const std::vector<std::string> shared =
      OptimizedOpsComputingTheSame(chain({-1, 2}, true, false), {4, 6});
  EXPECT_EQ(std::count(shared.begin(), shared.end(), "Reshape"), 2);
  EXPECT_EQ(OptimizedOpsComputingTheSame(chain({-1, 2}, false, true), {4, 6}), both);
  EXPECT_EQ(OptimizedOpsComputingTheSame(chain({0, 3, -1}, false, false), {4, 6}), both);
  // The same chain without the 0 collapses.
  EXPECT_EQ(OptimizedOpsComputingTheSame(chain({-1, 3, 1}, false, false), {4, 6}),
            std::vector<std::string>{"Reshape"});
}

TEST(ReshapeChainElimination, AllowZeroTargetsTakeAnEmptyInput) {
  // Opset 14, allowzero = 1: a 0 in the target is an empty dim, whatever the input's dims.
  onnx::ModelProto model = MakeModel(14);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 6});
  AddInts(graph, "first", {-1, 3});
  AddInts(graph, "second", {0, 5});
  AddNode(graph, "Reshape", {"X", "first"}, {"R"}, "r1");
  auto* second = AddNode(graph, "Reshape", {"R", "second"}, {"Y"}, "r2");
  auto* allowzero = second->add_attribute();
  allowzero->set_name("allowzero");
  allowzero->set_type(onnx::AttributeProto::INT);
  allowzero->set_i(1);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  EXPECT_EQ(OptimizedOpsComputingTheSame(model, {0, 6}), std::vector<std::string>{"Reshape"});
}

}  // namespace
}  // namespace prism::testing

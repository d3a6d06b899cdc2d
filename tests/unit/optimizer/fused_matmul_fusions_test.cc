// MatMulTransposeFusion and MatMulScaleFusion (extended, CPU EP) on hand-made graphs: a
// Transpose of the last two axes on a MatMul input becomes FusedMatMul's transA/transB, a
// scalar Mul or Div of the product its alpha (both in one node when both apply), the optimized
// session computes what the unoptimized one does, and graphs that differ from the patterns are
// left as they are.
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
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// The optimized session against the unoptimized one on random A and B.
void ExpectSameResults(const onnx::ModelProto& model, const std::vector<int64_t>& a_dims,
                       const std::vector<int64_t>& b_dims) {
  auto optimized = MakeSession(model, {});
  SessionOptions plain_options;
  plain_options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto plain = MakeSession(model, {}, plain_options);
  const std::vector<Tensor> feeds = {
      MakeTensor<float>(a_dims, Random(static_cast<size_t>(Count(a_dims)), 11)),
      MakeTensor<float>(b_dims, Random(static_cast<size_t>(Count(b_dims)), 12))};
  const auto a = RunFloat(*optimized, {"A", "B"}, feeds);
  const auto b = RunFloat(*plain, {"A", "B"}, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(CompareValues(b[i], a[i], {1e-5, 1e-5}), "");
}

const Node& OnlyNode(const Graph& graph) {
  EXPECT_EQ(graph.TopologicalOrder().size(), 1u);
  return graph.GetNode(graph.TopologicalOrder()[0]);
}

int64_t IntAttr(const Node& node, const char* name) {
  const Attribute* attr = node.FindAttribute(name);
  return attr != nullptr ? attr->i : 0;
}

float Alpha(const Node& node) {
  const Attribute* attr = node.FindAttribute("alpha");
  return attr != nullptr ? attr->f : 1.0f;
}

struct MatMulGraph {
  std::vector<int64_t> a_dims = {2, 3, 4, 5};
  std::vector<int64_t> b_dims = {2, 3, 6, 5};
  // perms of the Transposes on A and B (empty: none; {-1}: a Transpose without perm).
  std::vector<int64_t> a_perm;
  std::vector<int64_t> b_perm = {0, 1, 3, 2};
  std::string scale_op;  // "", "Mul", "MulConstantFirst", "Div" or "DivConstantFirst"
  float scale = 4.0f;
  std::vector<int64_t> scale_dims = {};
  bool transpose_also_output = false;
};

// A, B -> [Transpose] -> MatMul -> [Mul/Div by a constant] -> Y.
onnx::ModelProto MatMulModel(const MatMulGraph& g) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {g.a_dims.begin(), g.a_dims.end()});
  AddInput(graph, "B", TensorProto::FLOAT, {g.b_dims.begin(), g.b_dims.end()});
  const auto maybe_transpose = [&](const std::string& input, const std::vector<int64_t>& perm) {
    if (perm.empty()) return input;
    auto* transpose = AddNode(graph, "Transpose", {input}, {input + "_t"}, input + "_transpose");
    if (perm != std::vector<int64_t>{-1}) AddIntsAttr(transpose, "perm", perm);
    return input + "_t";
  };
  const std::string a = maybe_transpose("A", g.a_perm);
  const std::string b = maybe_transpose("B", g.b_perm);
  const std::string product = g.scale_op.empty() ? "Y" : "P";
  AddNode(graph, "MatMul", {a, b}, {product}, "matmul");
  if (!g.scale_op.empty()) {
    const size_t count = static_cast<size_t>(Count(g.scale_dims));
    AddFloatInitializer(graph, "s", g.scale_dims, std::vector<float>(count, g.scale));
    const bool constant_first = g.scale_op.find("ConstantFirst") != std::string::npos;
    const std::string op = g.scale_op.substr(0, 3);
    AddNode(
        graph, op,
        constant_first ? std::vector<std::string>{"s", "P"} : std::vector<std::string>{"P", "s"},
        {"Y"}, "scale");
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (g.transpose_also_output) AddOutput(graph, "B_t", TensorProto::FLOAT);
  return model;
}

TEST(MatMulTransposeFusion, TransposedInputsBecomeTransFlags) {
  MatMulGraph on_b;  // [2, 3, 4, 5] x T([2, 3, 6, 5]) -> [2, 3, 4, 6]
  MatMulGraph on_a;  // T([5, 4]) (no perm: rank 2) x [5, 6]
  on_a.a_dims = {5, 4};
  on_a.b_dims = {5, 6};
  on_a.a_perm = {-1};
  on_a.b_perm = {};
  MatMulGraph on_both;  // T([2, 5, 4]) x T([2, 6, 5]) -> [2, 4, 6]
  on_both.a_dims = {2, 5, 4};
  on_both.b_dims = {2, 6, 5};
  on_both.a_perm = {0, 2, 1};
  on_both.b_perm = {0, 2, 1};
  for (const MatMulGraph& g : {on_b, on_a, on_both}) {
    const onnx::ModelProto model = MatMulModel(g);
    auto session = MakeSession(model, {});
    const Node& fused = OnlyNode(*session->SessionGraph());
    ASSERT_EQ(fused.OpType(), "FusedMatMul");
    EXPECT_EQ(fused.Domain(), "com.microsoft");
    EXPECT_EQ(fused.Inputs()[0]->name, "A");
    EXPECT_EQ(fused.Inputs()[1]->name, "B");
    EXPECT_EQ(IntAttr(fused, "transA"), g.a_perm.empty() ? 0 : 1);
    EXPECT_EQ(IntAttr(fused, "transB"), g.b_perm.empty() ? 0 : 1);
    EXPECT_FLOAT_EQ(Alpha(fused), 1.0f);
    ExpectSameResults(model, g.a_dims, g.b_dims);
  }
}

TEST(MatMulScaleFusion, AScalarFactorBecomesAlpha) {
  for (const char* op : {"Mul", "MulConstantFirst", "Div"}) {
    SCOPED_TRACE(op);
    MatMulGraph g;
    g.b_dims = {2, 3, 5, 6};
    g.b_perm = {};
    g.scale_op = op;
    const onnx::ModelProto model = MatMulModel(g);
    auto session = MakeSession(model, {});
    const Node& fused = OnlyNode(*session->SessionGraph());
    ASSERT_EQ(fused.OpType(), "FusedMatMul");
    EXPECT_FLOAT_EQ(Alpha(fused), std::string(op) == "Div" ? 0.25f : 4.0f);
    EXPECT_EQ(IntAttr(fused, "transB"), 0);
    ExpectSameResults(model, g.a_dims, g.b_dims);
  }
  // A [1] factor broadcasts to the product's shape: a scalar too.
  MatMulGraph one_element;
  one_element.b_dims = {2, 3, 5, 6};
  one_element.b_perm = {};
  one_element.scale_op = "Mul";
  one_element.scale_dims = {1};
  EXPECT_EQ(OptimizedOps(MatMulModel(one_element)), std::vector<std::string>{"FusedMatMul"});
}

TEST(MatMulScaleFusion, TransposeAndScaleMakeOneNode) {
  MatMulGraph g;  // Q K^T / 4, as attention writes it when AttentionFusion does not apply
  g.scale_op = "Div";
  const onnx::ModelProto model = MatMulModel(g);
  auto session = MakeSession(model, {});
  const Node& fused = OnlyNode(*session->SessionGraph());
  ASSERT_EQ(fused.OpType(), "FusedMatMul");
  EXPECT_EQ(IntAttr(fused, "transB"), 1);
  EXPECT_FLOAT_EQ(Alpha(fused), 0.25f);
  ExpectSameResults(model, g.a_dims, g.b_dims);
  // Either pass alone makes the same node in two steps or one.
  for (const char* disabled : {"MatMulTransposeFusion", "MatMulScaleFusion"}) {
    const std::vector<std::string> ops = OptimizedOps(model, {disabled});
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "FusedMatMul"), 1) << disabled;
    EXPECT_EQ(ops.size(), 2u) << disabled;  // the other half stays a node
  }
}

TEST(MatMulTransposeFusion, LeavesWhatItMustNot) {
  MatMulGraph shared;  // the transposed B is a graph output too
  shared.transpose_also_output = true;
  MatMulGraph other_axes;  // swaps axes 0 and 1, not the last two
  other_axes.b_dims = {3, 2, 5, 6};
  other_axes.b_perm = {1, 0, 2, 3};
  MatMulGraph full_reverse;  // rank 3 without perm reverses all axes
  full_reverse.a_dims = {2, 4, 5};
  full_reverse.b_dims = {6, 5, 2};
  full_reverse.b_perm = {-1};
  for (const MatMulGraph& g : {shared, other_axes, full_reverse}) {
    const onnx::ModelProto model = MatMulModel(g);
    EXPECT_EQ(OptimizedOps(model), (std::vector<std::string>{"Transpose", "MatMul"}));
    ExpectSameResults(model, g.a_dims, g.b_dims);
  }
  // Basic level, and disabled by name.
  const onnx::ModelProto model = MatMulModel({});
  EXPECT_EQ(OptimizedOps(model, {}, GraphOptimizationLevel::kBasic),
            (std::vector<std::string>{"Transpose", "MatMul"}));
  EXPECT_EQ(OptimizedOps(model, {"MatMulTransposeFusion"}),
            (std::vector<std::string>{"Transpose", "MatMul"}));
}

TEST(MatMulScaleFusion, LeavesWhatItMustNot) {
  MatMulGraph per_column;  // a [6] factor: not a scalar
  per_column.b_dims = {2, 3, 5, 6};
  per_column.b_perm = {};
  per_column.scale_op = "Mul";
  per_column.scale_dims = {6};
  MatMulGraph inverted = per_column;  // s / P: not a scaling of the product
  inverted.scale_op = "DivConstantFirst";
  inverted.scale_dims = {};
  MatMulGraph higher_rank = per_column;  // a [1, 1, 1, 1, 1] factor raises the rank
  higher_rank.scale_dims = {1, 1, 1, 1, 1};
  MatMulGraph by_zero = per_column;  // Div by 0
  by_zero.scale_op = "Div";
  by_zero.scale_dims = {};
  by_zero.scale = 0.0f;
  for (const MatMulGraph& g : {per_column, inverted, higher_rank}) {
    SCOPED_TRACE(g.scale_op + " " + std::to_string(g.scale_dims.size()));
    const onnx::ModelProto model = MatMulModel(g);
    const std::vector<std::string> ops = OptimizedOps(model);
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[0], "MatMul");
    ExpectSameResults(model, g.a_dims, g.b_dims);
  }
  EXPECT_EQ(OptimizedOps(MatMulModel(by_zero)), (std::vector<std::string>{"MatMul", "Div"}));
  MatMulGraph scaled;
  scaled.b_dims = {2, 3, 5, 6};
  scaled.b_perm = {};
  scaled.scale_op = "Mul";
  EXPECT_EQ(OptimizedOps(MatMulModel(scaled), {"MatMulScaleFusion"}),
            (std::vector<std::string>{"MatMul", "Mul"}));
}

}  // namespace
}  // namespace prism::testing

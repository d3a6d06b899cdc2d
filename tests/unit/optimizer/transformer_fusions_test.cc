// The transformer-block fusions on hand-made graphs and on the bert_tiny bench model: which nodes
// they replace (and which they must leave), and that the optimized session computes what the
// unoptimized one does. LayerNormFusion (decomposed form -> LayerNormalization),
// SkipLayerNormFusion (Add [+ bias Add] + LayerNormalization -> SkipLayerNormalization),
// BiasGeluFusion (Add + Gelu -> BiasGelu), MatMulAddFusion (MatMul + Add -> Gemm, through
// Reshapes for 3-D activations) and AttentionFusion (the BERT self-attention block ->
// Attention), all extended level on the CPU EP. Sessions use the default level (all) unless a
// test says otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::vector<std::string> OptimizedOps(const onnx::ModelProto& model,
                                      std::vector<std::string> disabled = {},
                                      GraphOptimizationLevel level = GraphOptimizationLevel::kAll) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return Ops(*MakeSession(model, {}, options)->SessionGraph());
}

const Node& OnlyNodeOf(const Graph& graph, const std::string& op) {
  const Node* found = nullptr;
  for (NodeIndex index : graph.TopologicalOrder())
    if (graph.GetNode(index).OpType() == op) {
      EXPECT_EQ(found, nullptr) << "more than one " << op;
      found = &graph.GetNode(index);
    }
  EXPECT_NE(found, nullptr) << "no " << op;
  return *found;
}

std::vector<float> Random(size_t count, unsigned seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

std::vector<int64_t> StaticDimsOf(const NodeArg* arg) {
  std::vector<int64_t> dims;
  if (arg != nullptr && arg->shape)
    for (const Dim& dim : arg->shape->dims) dims.push_back(dim.value);
  return dims;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// The optimized session (disabled: passes to leave out) against the unoptimized one on feeds.
void ExpectSameResults(const onnx::ModelProto& model, const std::vector<std::string>& names,
                       const std::vector<Tensor>& feeds, double tolerance = 1e-5) {
  auto optimized = MakeSession(model, {});
  SessionOptions plain_options;
  plain_options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto plain = MakeSession(model, {}, plain_options);
  const auto a = RunFloat(*optimized, names, feeds);
  const auto b = RunFloat(*plain, names, feeds);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(CompareValues(b[i], a[i], {tolerance, tolerance}), "") << "output " << i;
}

Tensor RandomTensor(const std::vector<int64_t>& dims, unsigned seed, float scale = 1.0f) {
  return MakeTensor<float>(dims, Random(static_cast<size_t>(Count(dims)), seed, -scale, scale));
}

void AddScalar(onnx::GraphProto* graph, const std::string& name, float value) {
  AddFloatInitializer(graph, name, {}, {value});
}

void AddInt64s(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& v) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::INT64);
  init->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) init->add_int64_data(x);
}

void AddFloatAttr(onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}

void AddIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

// ---- LayerNormFusion ----

struct DecomposedNorm {
  int opset = 17;
  bool with_beta = true;
  std::vector<int64_t> axes = {-1};
  float exponent = 2.0f;
  float epsilon = 1e-3f;
  bool d_also_output = false;
};

// X [2, 3, 8] -> the decomposed layer normalization over axes -> Y.
onnx::ModelProto DecomposedLayerNorm(const DecomposedNorm& form) {
  onnx::ModelProto model = MakeModel(form.opset);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 8});
  const std::vector<int64_t> param_dims =
      form.axes.size() == 1 ? std::vector<int64_t>{8} : std::vector<int64_t>{3, 8};
  AddFloatInitializer(graph, "gamma", param_dims, Random(Count(param_dims), 1, 0.5f, 1.5f));
  AddFloatInitializer(graph, "beta", param_dims, Random(Count(param_dims), 2));
  AddScalar(graph, "two", form.exponent);
  AddScalar(graph, "eps", form.epsilon);
  const auto reduce = [&](const std::string& in, const std::string& out) {
    if (form.opset >= 18) {
      AddInt64s(graph, out + "_axes", form.axes);
      AddNode(graph, "ReduceMean", {in, out + "_axes"}, {out}, out);
    } else {
      AddIntsAttr(AddNode(graph, "ReduceMean", {in}, {out}, out), "axes", form.axes);
    }
  };
  reduce("X", "mean");
  AddNode(graph, "Sub", {"X", "mean"}, {"d"}, "sub");
  AddNode(graph, "Pow", {"d", "two"}, {"sq"}, "pow");
  reduce("sq", "var");
  AddNode(graph, "Add", {"var", "eps"}, {"ve"}, "add_eps");
  AddNode(graph, "Sqrt", {"ve"}, {"std"}, "sqrt");
  AddNode(graph, "Div", {"d", "std"}, {"n"}, "div");
  AddNode(graph, "Mul", {"gamma", "n"}, {form.with_beta ? "scaled" : "Y"}, "mul");
  if (form.with_beta) AddNode(graph, "Add", {"scaled", "beta"}, {"Y"}, "add_beta");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (form.d_also_output) AddOutput(graph, "d", TensorProto::FLOAT);
  return model;
}

TEST(LayerNormFusion, DecomposedFormBecomesLayerNormalization) {
  for (int opset : {13, 17, 18}) {
    for (bool with_beta : {true, false}) {
      DecomposedNorm form;
      form.opset = opset;
      form.with_beta = with_beta;
      const onnx::ModelProto model = DecomposedLayerNorm(form);
      auto session = MakeSession(model, {});
      const Graph& graph = *session->SessionGraph();
      ASSERT_EQ(Ops(graph), std::vector<std::string>{"LayerNormalization"}) << opset;
      const Node& ln = graph.GetNode(graph.TopologicalOrder()[0]);
      EXPECT_EQ(ln.InputCount(), with_beta ? 3u : 2u);
      EXPECT_FLOAT_EQ(ln.FindAttribute("epsilon")->f, 1e-3f);
      EXPECT_EQ(ln.FindAttribute("axis")->i, 2);
      ExpectSameResults(model, {"X"}, {RandomTensor({2, 3, 8}, 5, 0.1f)});
    }
  }
  // Two trailing axes: normalized over [3, 8], gamma and beta [3, 8].
  DecomposedNorm two_axes;
  two_axes.axes = {-2, -1};
  const onnx::ModelProto model = DecomposedLayerNorm(two_axes);
  auto session = MakeSession(model, {});
  ASSERT_EQ(Ops(*session->SessionGraph()), std::vector<std::string>{"LayerNormalization"});
  EXPECT_EQ(OnlyNodeOf(*session->SessionGraph(), "LayerNormalization").FindAttribute("axis")->i, 1);
  ExpectSameResults(model, {"X"}, {RandomTensor({2, 3, 8}, 6, 0.1f)});
}

TEST(LayerNormFusion, LeavesWhatItMustNot) {
  const size_t decomposed = 9;
  DecomposedNorm cube;
  cube.exponent = 3.0f;
  DecomposedNorm middle_axis;  // axis 1 of 3: not the trailing axes (gamma [8] still fits X)
  middle_axis.axes = {1};
  DecomposedNorm exposed;
  exposed.d_also_output = true;
  for (const DecomposedNorm& form : {cube, middle_axis, exposed})
    EXPECT_EQ(OptimizedOps(DecomposedLayerNorm(form)).size(), decomposed);
  ExpectSameResults(DecomposedLayerNorm(cube), {"X"}, {RandomTensor({2, 3, 8}, 7)});
  const onnx::ModelProto plain = DecomposedLayerNorm({});
  EXPECT_EQ(OptimizedOps(plain, {"LayerNormFusion"}).size(), decomposed);
  EXPECT_EQ(OptimizedOps(plain, {}, GraphOptimizationLevel::kBasic).size(), decomposed);
}

// ---- SkipLayerNormFusion ----

struct ResidualNorm {
  bool with_bias = false;   // MatMul(A, W) + bias before the residual Add
  bool bias_first = false;  // Add(bias, product) instead of Add(product, bias)
  std::vector<int64_t> skip_dims = {2, 4, 8};
  bool skip_constant = false;
  int64_t axis = -1;
  bool sum_also_output = false;
  bool mean_used = false;
};

// A [2, 4, 8] (or A x W + bias) + skip -> LayerNormalization (epsilon 1e-3) -> Y.
onnx::ModelProto ResidualLayerNorm(const ResidualNorm& form) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {2, 4, 8});
  if (form.skip_constant)
    AddFloatInitializer(graph, "skip", form.skip_dims, Random(Count(form.skip_dims), 3));
  else
    AddInput(graph, "skip", TensorProto::FLOAT,
             std::vector<DimSpec>(form.skip_dims.begin(), form.skip_dims.end()));
  AddFloatInitializer(graph, "gamma", {8}, Random(8, 1, 0.5f, 1.5f));
  AddFloatInitializer(graph, "beta", {8}, Random(8, 2));
  std::string input = "A";
  if (form.with_bias) {
    AddFloatInitializer(graph, "W", {8, 8}, Random(64, 4));
    AddFloatInitializer(graph, "bias", {8}, Random(8, 5));
    AddNode(graph, "MatMul", {"A", "W"}, {"P"}, "matmul");
    AddNode(graph, "Add",
            form.bias_first ? std::vector<std::string>{"bias", "P"}
                            : std::vector<std::string>{"P", "bias"},
            {"PB"}, "add_bias");
    input = "PB";
  }
  AddNode(graph, "Add", {"skip", input}, {"S"}, "add_residual");
  auto* ln = AddNode(
      graph, "LayerNormalization", {"S", "gamma", "beta"},
      form.mean_used ? std::vector<std::string>{"Y", "mean"} : std::vector<std::string>{"Y"}, "ln");
  AddFloatAttr(ln, "epsilon", 1e-3f);
  AddIntAttr(ln, "axis", form.axis);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (form.sum_also_output) AddOutput(graph, "S", TensorProto::FLOAT);
  if (form.mean_used) AddOutput(graph, "mean", TensorProto::FLOAT);
  return model;
}

std::vector<Tensor> ResidualFeeds(const ResidualNorm& form) {
  std::vector<Tensor> feeds = {RandomTensor({2, 4, 8}, 10, 0.05f)};
  if (!form.skip_constant) feeds.push_back(RandomTensor(form.skip_dims, 11, 0.05f));
  return feeds;
}

TEST(SkipLayerNormFusion, ResidualSumBecomesSkipLayerNormalization) {
  ResidualNorm plain;
  ResidualNorm biased;
  biased.with_bias = true;
  ResidualNorm bias_first = biased;
  bias_first.bias_first = true;
  ResidualNorm shared_skip;  // one [1, S, H] block for the batch
  shared_skip.skip_dims = {1, 4, 8};
  shared_skip.skip_constant = true;
  ResidualNorm shared_2d = shared_skip;
  shared_2d.skip_dims = {4, 8};
  for (const ResidualNorm& form : {plain, biased, bias_first, shared_skip, shared_2d}) {
    const onnx::ModelProto model = ResidualLayerNorm(form);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    const std::vector<std::string> expected =
        form.with_bias ? std::vector<std::string>{"MatMul", "SkipLayerNormalization"}
                       : std::vector<std::string>{"SkipLayerNormalization"};
    ASSERT_EQ(Ops(graph), expected);
    const Node& skip = OnlyNodeOf(graph, "SkipLayerNormalization");
    EXPECT_EQ(skip.Domain(), "com.microsoft");
    EXPECT_FLOAT_EQ(skip.FindAttribute("epsilon")->f, 1e-3f);  // the LayerNormalization's
    EXPECT_EQ(skip.InputCount(), form.with_bias ? 5u : 4u);
    if (form.with_bias) {
      EXPECT_EQ(skip.Inputs()[4]->name, "bias");
    }
    ExpectSameResults(
        model,
        form.skip_constant ? std::vector<std::string>{"A"} : std::vector<std::string>{"A", "skip"},
        ResidualFeeds(form));
  }
}

TEST(SkipLayerNormFusion, LeavesWhatItMustNot) {
  ResidualNorm other_axis;  // normalized over [4, 8] is not SkipLayerNormalization's form
  other_axis.axis = 1;
  ResidualNorm broadcast;  // skip [2, 1, 8] broadcasts over the sequence: the kernel does not
  broadcast.skip_dims = {2, 1, 8};
  ResidualNorm exposed;
  exposed.sum_also_output = true;
  ResidualNorm with_mean;
  with_mean.mean_used = true;
  for (const ResidualNorm& form : {broadcast, exposed, with_mean})
    EXPECT_EQ(OptimizedOps(ResidualLayerNorm(form)),
              (std::vector<std::string>{"Add", "LayerNormalization"}));
  ExpectSameResults(ResidualLayerNorm(broadcast), {"A", "skip"}, ResidualFeeds(broadcast));
  // axis 1 needs gamma [4, 8]: the LayerNormalization is not even valid with gamma [8] there,
  // so only the graph is checked.
  EXPECT_EQ(OptimizedOps(ResidualLayerNorm(other_axis)),
            (std::vector<std::string>{"Add", "LayerNormalization"}));
  const onnx::ModelProto model = ResidualLayerNorm({});
  EXPECT_EQ(OptimizedOps(model, {"SkipLayerNormFusion"}),
            (std::vector<std::string>{"Add", "LayerNormalization"}));
}

// ---- BiasGeluFusion and MatMulAddFusion ----

// X [2, 3, 8] x W [8, 16] + bias -> the exact GELU as exported -> Y.
onnx::ModelProto ProjectionGelu(std::vector<int64_t> bias_dims = {16}, bool gelu = true) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 8});
  AddFloatInitializer(graph, "W", {8, 16}, Random(128, 1));
  AddFloatInitializer(graph, "bias", bias_dims, Random(Count(bias_dims), 2));
  AddNode(graph, "MatMul", {"X", "W"}, {"P"}, "matmul");
  AddNode(graph, "Add", {"bias", "P"}, {gelu ? "H" : "Y"}, "add_bias");
  if (gelu) {
    AddScalar(graph, "root2", 1.41421356f);
    AddScalar(graph, "one", 1.0f);
    AddScalar(graph, "half", 0.5f);
    AddNode(graph, "Div", {"H", "root2"}, {"d"}, "div");
    AddNode(graph, "Erf", {"d"}, {"e"}, "erf");
    AddNode(graph, "Add", {"e", "one"}, {"a"}, "add_one");
    AddNode(graph, "Mul", {"H", "a"}, {"p"}, "mul");
    AddNode(graph, "Mul", {"p", "half"}, {"Y"}, "mul_half");
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(BiasGeluFusion, BiasBeforeTheGeluBecomesBiasGelu) {
  const onnx::ModelProto model = ProjectionGelu();
  auto session = MakeSession(model, {});
  const Graph& graph = *session->SessionGraph();
  ASSERT_EQ(Ops(graph), (std::vector<std::string>{"MatMul", "BiasGelu"}));
  const Node& fused = OnlyNodeOf(graph, "BiasGelu");
  EXPECT_EQ(fused.Domain(), "com.microsoft");
  EXPECT_EQ(fused.Inputs()[1]->name, "bias");
  ExpectSameResults(model, {"X"}, {RandomTensor({2, 3, 8}, 3)});
}

TEST(BiasGeluFusion, LeavesWhatItMustNot) {
  // A [1, 16] bias is not BiasGelu's (nor Gemm's 1-D bias for a 3-D product).
  const onnx::ModelProto row_bias = ProjectionGelu({1, 16});
  EXPECT_EQ(OptimizedOps(row_bias), (std::vector<std::string>{"MatMul", "Add", "Gelu"}));
  ExpectSameResults(row_bias, {"X"}, {RandomTensor({2, 3, 8}, 4)});
  // Disabled: MatMulAddFusion takes the bias into a Gemm instead.
  EXPECT_EQ(OptimizedOps(ProjectionGelu(), {"BiasGeluFusion"}),
            (std::vector<std::string>{"Reshape", "Gemm", "Reshape", "Gelu"}));
  EXPECT_EQ(OptimizedOps(ProjectionGelu(), {"BiasGeluFusion", "MatMulAddFusion"}),
            (std::vector<std::string>{"MatMul", "Add", "Gelu"}));
}

// A [a_dims] x W [8, 6] + C [c_dims] -> Y.
onnx::ModelProto MatMulAdd(const std::vector<DimSpec>& a_dims, const std::vector<int64_t>& c_dims,
                           bool product_also_output = false) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, a_dims);
  AddFloatInitializer(graph, "W", {8, 6}, Random(48, 1));
  AddFloatInitializer(graph, "C", c_dims, Random(Count(c_dims), 2));
  AddNode(graph, "MatMul", {"A", "W"}, {"P"}, "matmul");
  AddNode(graph, "Add", {"P", "C"}, {"Y"}, "add");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (product_also_output) AddOutput(graph, "P", TensorProto::FLOAT);
  return model;
}

TEST(MatMulAddFusion, TwoDimensionalProductBecomesGemm) {
  for (const std::vector<int64_t>& c_dims :
       std::vector<std::vector<int64_t>>{{6}, {1, 6}, {4, 6}, {4, 1}}) {
    const onnx::ModelProto model = MatMulAdd({4, 8}, c_dims);
    auto session = MakeSession(model, {});
    ASSERT_EQ(Ops(*session->SessionGraph()), std::vector<std::string>{"Gemm"});
    EXPECT_EQ(OnlyNodeOf(*session->SessionGraph(), "Gemm").Inputs()[2]->name, "C");
    ExpectSameResults(model, {"A"}, {RandomTensor({4, 8}, 3)});
  }
}

TEST(MatMulAddFusion, ThreeDimensionalProductGoesThroughReshapes) {
  const onnx::ModelProto model = MatMulAdd({2, 3, 8}, {6});
  auto session = MakeSession(model, {});
  ASSERT_EQ(Ops(*session->SessionGraph()),
            (std::vector<std::string>{"Reshape", "Gemm", "Reshape"}));
  ExpectSameResults(model, {"A"}, {RandomTensor({2, 3, 8}, 4)});
  // The partition report lists the pair under the Gemm only (the Reshapes are helpers).
  const PartitionReport report = session->Report();
  ASSERT_EQ(report.fused_groups.size(), 1u);
  EXPECT_EQ(report.fused_groups[0].nodes, (std::vector<std::string>{"matmul", "add"}));
}

TEST(MatMulAddFusion, LeavesWhatItMustNot) {
  const std::vector<std::string> unfused = {"MatMul", "Add"};
  // A full-shape C for a 3-D product, a symbolic batch, a product read elsewhere.
  EXPECT_EQ(OptimizedOps(MatMulAdd({2, 3, 8}, {2, 3, 6})), unfused);
  EXPECT_EQ(OptimizedOps(MatMulAdd({"batch", 3, 8}, {6})), unfused);
  EXPECT_EQ(OptimizedOps(MatMulAdd({4, 8}, {6}, true)), unfused);
  // C [4, 6] where M is unknown; C broadcast beyond [M, N].
  EXPECT_EQ(OptimizedOps(MatMulAdd({"m", 8}, {4, 6})), unfused);
  EXPECT_EQ(OptimizedOps(MatMulAdd({4, 8}, {3, 4, 6})), unfused);
  ExpectSameResults(MatMulAdd({4, 8}, {3, 4, 6}), {"A"}, {RandomTensor({4, 8}, 5)});
  EXPECT_EQ(OptimizedOps(MatMulAdd({4, 8}, {6}), {"MatMulAddFusion"}), unfused);
  EXPECT_EQ(OptimizedOps(MatMulAdd({4, 8}, {6}), {}, GraphOptimizationLevel::kBasic), unfused);
}

// ---- AttentionFusion ----

struct AttentionBlock {
  int layers = 1;
  bool with_mask = true;
  bool scale_by_mul = false;  // Mul by 1 / sqrt(d) instead of Div by sqrt(d)
  float divisor = 0.0f;       // 0: sqrt(d)
  bool key_two_transposes = false;
  float mask_one = 1.0f;  // the 1 of Sub(1, mask)
  int64_t softmax_axis = -1;
  bool mask_first = false;  // Add(mask, scores)
};

constexpr int64_t kBatch = 2, kSeq = 5, kHidden = 16, kHeads = 2, kHeadSize = 8;

// X [2, 5, 16] and mask M [2, 5] (int64) -> `layers` self-attention blocks as the Hugging Face
// exporter writes them, each feeding the next -> Y [2, 5, 16].
onnx::ModelProto BertAttention(const AttentionBlock& form) {
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kBatch, kSeq, kHidden});
  if (form.with_mask) {
    AddInput(graph, "M", TensorProto::INT64, {kBatch, kSeq});
    AddInt64s(graph, "unsqueeze_axes", {1, 2});
    AddNode(graph, "Unsqueeze", {"M", "unsqueeze_axes"}, {"m4"}, "mask_unsqueeze");
    AddIntAttr(AddNode(graph, "Cast", {"m4"}, {"mf"}, "mask_cast"), "to", TensorProto::FLOAT);
    AddScalar(graph, "mask_one", form.mask_one);
    AddNode(graph, "Sub", {"mask_one", "mf"}, {"inverted"}, "mask_sub");
    AddScalar(graph, "filter", -10000.0f);
    AddNode(graph, "Mul", {"inverted", "filter"}, {"mask"}, "mask_mul");
  }
  AddInt64s(graph, "split_heads", {0, 0, kHeads, kHeadSize});
  AddInt64s(graph, "merge_heads", {0, 0, kHidden});
  const float divisor = form.divisor != 0.0f ? form.divisor : std::sqrt(float(kHeadSize));
  AddScalar(graph, "scale", form.scale_by_mul ? 1.0f / divisor : divisor);
  std::string x = "X";
  unsigned seed = 20;
  for (int l = 0; l < form.layers; ++l) {
    const std::string p = "l" + std::to_string(l) + "_";
    const auto project = [&](const std::string& name) {
      AddFloatInitializer(graph, p + name + "_w", {kHidden, kHidden},
                          Random(kHidden * kHidden, seed++, -0.5f, 0.5f));
      AddFloatInitializer(graph, p + name + "_b", {kHidden}, Random(kHidden, seed++));
      AddNode(graph, "MatMul", {x, p + name + "_w"}, {p + name + "_mm"}, p + name + "_matmul");
      AddNode(graph, "Add", {p + name + "_mm", p + name + "_b"}, {p + name}, p + name + "_add");
      AddNode(graph, "Reshape", {p + name, "split_heads"}, {p + name + "_4d"},
              p + name + "_reshape");
    };
    project("q");
    project("k");
    project("v");
    AddIntsAttr(AddNode(graph, "Transpose", {p + "q_4d"}, {p + "qt"}, p + "q_transpose"), "perm",
                {0, 2, 1, 3});
    if (form.key_two_transposes) {
      AddIntsAttr(AddNode(graph, "Transpose", {p + "k_4d"}, {p + "kh"}, p + "k_transpose"), "perm",
                  {0, 2, 1, 3});
      AddIntsAttr(AddNode(graph, "Transpose", {p + "kh"}, {p + "kt"}, p + "k_transpose2"), "perm",
                  {0, 1, 3, 2});
    } else {
      AddIntsAttr(AddNode(graph, "Transpose", {p + "k_4d"}, {p + "kt"}, p + "k_transpose"), "perm",
                  {0, 2, 3, 1});
    }
    AddIntsAttr(AddNode(graph, "Transpose", {p + "v_4d"}, {p + "vt"}, p + "v_transpose"), "perm",
                {0, 2, 1, 3});
    AddNode(graph, "MatMul", {p + "qt", p + "kt"}, {p + "qk"}, p + "qk");
    AddNode(graph, form.scale_by_mul ? "Mul" : "Div", {p + "qk", "scale"}, {p + "scaled"},
            p + "scale");
    std::string scores = p + "scaled";
    if (form.with_mask) {
      AddNode(graph, "Add",
              form.mask_first ? std::vector<std::string>{"mask", scores}
                              : std::vector<std::string>{scores, "mask"},
              {p + "masked"}, p + "add_mask");
      scores = p + "masked";
    }
    AddIntAttr(AddNode(graph, "Softmax", {scores}, {p + "probs"}, p + "softmax"), "axis",
               form.softmax_axis);
    AddNode(graph, "MatMul", {p + "probs", p + "vt"}, {p + "ctx"}, p + "pv");
    AddIntsAttr(AddNode(graph, "Transpose", {p + "ctx"}, {p + "ctx_t"}, p + "merge_transpose"),
                "perm", {0, 2, 1, 3});
    const std::string y = l + 1 == form.layers ? "Y" : p + "out";
    AddNode(graph, "Reshape", {p + "ctx_t", "merge_heads"}, {y}, p + "merge");
    x = y;
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

std::vector<Tensor> AttentionFeeds(const AttentionBlock& form) {
  std::vector<Tensor> feeds = {RandomTensor({kBatch, kSeq, kHidden}, 30)};
  if (form.with_mask)  // the second sequence is padded after 3 tokens
    feeds.push_back(MakeTensor<int64_t>({kBatch, kSeq}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
  return feeds;
}

std::vector<std::string> AttentionFeedNames(const AttentionBlock& form) {
  return form.with_mask ? std::vector<std::string>{"X", "M"} : std::vector<std::string>{"X"};
}

TEST(AttentionFusion, BertBlockBecomesAttention) {
  AttentionBlock plain;
  AttentionBlock by_mul;
  by_mul.scale_by_mul = true;
  AttentionBlock two_transposes;
  two_transposes.key_two_transposes = true;
  AttentionBlock mask_first;
  mask_first.mask_first = true;
  AttentionBlock no_mask;
  no_mask.with_mask = false;
  for (const AttentionBlock& form : {plain, by_mul, two_transposes, mask_first, no_mask}) {
    const onnx::ModelProto model = BertAttention(form);
    auto session = MakeSession(model, {});
    const Graph& graph = *session->SessionGraph();
    ASSERT_EQ(Ops(graph), form.with_mask ? (std::vector<std::string>{"Cast", "Attention"})
                                         : std::vector<std::string>{"Attention"});
    const Node& attention = OnlyNodeOf(graph, "Attention");
    EXPECT_EQ(attention.Domain(), "com.microsoft");
    EXPECT_EQ(attention.FindAttribute("num_heads")->i, kHeads);
    EXPECT_EQ(attention.FindAttribute("scale"), nullptr);  // the default 1 / sqrt(d)
    if (form.with_mask) {
      EXPECT_FLOAT_EQ(attention.FindAttribute("mask_filter_value")->f, -10000.0f);
      EXPECT_EQ(attention.Inputs()[3]->type.elem, ElementType::kInt32);
    }
    // The packed weight [H, 3H] and bias [3H] replaced the nine projection constants (the
    // weight itself left the session's graph once the kernel prepacked it).
    EXPECT_EQ(StaticDimsOf(attention.Inputs()[1]), (std::vector<int64_t>{kHidden, 3 * kHidden}));
    EXPECT_EQ(StaticDimsOf(attention.Inputs()[2]), (std::vector<int64_t>{3 * kHidden}));
    EXPECT_EQ(graph.FindInitializer("l0_q_w"), nullptr);
    ExpectSameResults(model, AttentionFeedNames(form), AttentionFeeds(form), 1e-5);
  }
}

TEST(AttentionFusion, LayersShareOneMaskIndexAndTheMaskChainGoes) {
  AttentionBlock two_layers;
  two_layers.layers = 2;
  const onnx::ModelProto model = BertAttention(two_layers);
  auto session = MakeSession(model, {});
  ASSERT_EQ(Ops(*session->SessionGraph()),
            (std::vector<std::string>{"Cast", "Attention", "Attention"}));
  ExpectSameResults(model, {"X", "M"}, AttentionFeeds(two_layers), 1e-5);
  // The report: the mask chain runs inside the Cast that makes mask_index.
  const PartitionReport report = session->Report();
  for (const NodePlacement& placement : report.nodes) {
    if (placement.node_name.rfind("mask_", 0) == 0)
      EXPECT_EQ(placement.fused_into, "M_mask_index") << placement.node_name;
    else
      EXPECT_NE(placement.fused_into.find("_attention"), std::string::npos) << placement.node_name;
  }
}

// The Q/K/V weights and biases the packed ones replace leave the session's model as well (they
// doubled bert_base's weights in memory), and come back bit for bit when the session is rebuilt
// without the fusion: from the prepacked weight, or (prepacking off) the packed initializer.
TEST(AttentionFusion, TheModelsProjectionConstantsAreReleasedAndComeBackOnARebuild) {
  AttentionBlock two_layers;
  two_layers.layers = 2;
  const onnx::ModelProto model = BertAttention(two_layers);
  SessionOptions keep_all;  // the originals, as loaded
  keep_all.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  keep_all.config_entries["session.disable_prepacking"] = "1";
  auto plain = MakeSession(model, {}, keep_all);
  std::vector<std::string> projections;
  for (const char* layer : {"l0_", "l1_"})
    for (const char* part : {"q", "k", "v"})
      for (const char* what : {"_w", "_b"}) projections.push_back(std::string(layer) + part + what);
  const auto expect_same_as_plain = [&](const InferenceSession& fused) {
    const auto a = RunFloat(fused, {"X", "M"}, AttentionFeeds(two_layers));
    const auto b = RunFloat(*plain, {"X", "M"}, AttentionFeeds(two_layers));
    EXPECT_EQ(CompareValues(b[0], a[0], {1e-5, 1e-5}), "");
  };

  for (const char* disable_prepacking : {"0", "1"}) {
    SCOPED_TRACE(std::string("session.disable_prepacking ") + disable_prepacking);
    SessionOptions options;
    options.config_entries["session.disable_prepacking"] = disable_prepacking;
    auto session = MakeSession(model, {}, options);
    ASSERT_EQ(Ops(*session->SessionGraph()),
              (std::vector<std::string>{"Cast", "Attention", "Attention"}));
    for (const std::string& name : projections)
      EXPECT_EQ(session->GetModel().MainGraph().FindInitializer(name), nullptr) << name;
    expect_same_as_plain(*session);

    // MatMul and Softmax on the test EP: no fusion and no prepacking, so every projection
    // constant is back in the model, as loaded.
    session->SetProviders({TestEp("MatMul,Softmax")});
    const std::vector<std::string> unfused = Ops(*session->SessionGraph());
    ASSERT_EQ(std::count(unfused.begin(), unfused.end(), "Attention"), 0);
    for (const std::string& name : projections) {
      const Tensor* restored = session->GetModel().MainGraph().FindInitializer(name);
      const Tensor* original = plain->GetModel().MainGraph().FindInitializer(name);
      ASSERT_NE(restored, nullptr) << name;
      ASSERT_EQ(restored->Shape(), original->Shape()) << name;
      for (int64_t i = 0; i < original->NumElements(); ++i)
        ASSERT_EQ(restored->Data<float>()[i], original->Data<float>()[i]) << name << " " << i;
    }
    expect_same_as_plain(*session);
    // Back on the CPU EP: fused and released again.
    session->SetProviders({});
    EXPECT_EQ(session->GetModel().MainGraph().FindInitializer("l1_v_w"), nullptr);
    expect_same_as_plain(*session);
  }
}

TEST(AttentionFusion, LeavesWhatItMustNot) {
  AttentionBlock wrong_scale;  // divided by 3, not sqrt(8)
  wrong_scale.divisor = 3.0f;
  AttentionBlock other_mask;  // Sub(2, mask): another mask than (1 - M) * filter
  other_mask.mask_one = 2.0f;
  AttentionBlock other_axis;  // Softmax over the queries, not the keys
  other_axis.softmax_axis = 2;
  for (const AttentionBlock& form : {wrong_scale, other_mask, other_axis}) {
    const std::vector<std::string> ops = OptimizedOps(BertAttention(form));
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Attention"), 0);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Softmax"), 1);
    ExpectSameResults(BertAttention(form), {"X", "M"}, AttentionFeeds(form), 1e-5);
  }
  const onnx::ModelProto model = BertAttention({});
  for (const std::vector<std::string>& disabled : {std::vector<std::string>{"AttentionFusion"}}) {
    const std::vector<std::string> ops = OptimizedOps(model, disabled);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Attention"), 0);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Softmax"), 1);
  }
  EXPECT_EQ(OptimizedOps(model, {}, GraphOptimizationLevel::kBasic).size(),
            OptimizedOps(model, {}, GraphOptimizationLevel::kDisableAll).size());
}

// ---- The bert_tiny bench model (generated into the build folder by the benchmarks) ----

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(TransformerFusions, BertTinyFusesEveryBlockAndComputesTheSame) {
  const std::filesystem::path path =
      std::filesystem::path(PRISM_BINARY_DIR) / "bench-models" / "bert_tiny.onnx";
  if (!std::filesystem::exists(path)) {
    if (std::getenv("PRISM_REQUIRE_BENCH_MODELS") != nullptr)
      FAIL() << path << " is missing and PRISM_REQUIRE_BENCH_MODELS is set";
    GTEST_SKIP() << path << " is missing (../shared/bench/make_models.py makes it)";
  }
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(ReadFile(path)));
  auto fused = MakeSession(model, {});
  std::map<std::string, int> ops;
  for (const std::string& op : Ops(*fused->SessionGraph())) ++ops[op];
  EXPECT_EQ(ops["Attention"], 2);
  EXPECT_EQ(ops["SkipLayerNormalization"], 5);  // the embeddings' sum too
  EXPECT_EQ(ops["BiasGelu"], 2);
  EXPECT_EQ(ops["Softmax"] + ops["LayerNormalization"] + ops["Erf"], 0);
  SessionOptions no_attention;
  no_attention.disabled_optimizers = {"AttentionFusion"};
  auto unfused_attention = MakeSession(model, {}, no_attention);
  SessionOptions plain;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto reference = MakeSession(model, {}, plain);
  std::mt19937 engine(7);
  std::vector<int64_t> ids(128);
  for (int64_t& id : ids) id = static_cast<int64_t>(engine() % 30522);
  for (int padded : {0, 40}) {  // all tokens, then the last 40 masked
    std::vector<int64_t> mask(128, 1);
    std::fill(mask.end() - padded, mask.end(), 0);
    const std::vector<Tensor> feeds = {MakeTensor<int64_t>({1, 128}, ids),
                                       MakeTensor<int64_t>({1, 128}, mask)};
    const std::vector<std::string> names = {"input_ids", "attention_mask"};
    const auto expected = RunFloat(*reference, names, feeds);
    EXPECT_EQ(CompareValues(expected[0], RunFloat(*fused, names, feeds)[0], {1e-3, 1e-4}), "");
    EXPECT_EQ(
        CompareValues(expected[0], RunFloat(*unfused_attention, names, feeds)[0], {1e-3, 1e-4}),
        "");
  }
}

}  // namespace
}  // namespace prism::testing

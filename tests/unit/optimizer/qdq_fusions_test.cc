// The QDQ fusions (extended level, CPU EP) on a hand-made QDQ graph as quantize_static writes
// one: which nodes they replace (and which they must leave), and that the fused session's
// output equals the unfused one's within what requantizing in int8 allows.
//   QDQConvFusion: DQ(x), DQ(w), DQ(bias) -> Conv [-> Relu] -> Q      -> QLinearConv
//   QDQAddFusion: DQ, DQ -> Add -> Q                                   -> com.microsoft QLinearAdd
//   QDQGlobalAveragePoolFusion: DQ -> GlobalAveragePool -> Q           -> QLinearGlobalAveragePool
//   QDQDropFusion: DQ -> MaxPool -> Q (one scale and zero point)       -> MaxPool on uint8
//   QDQMatMulFusion: DQ(a), DQ(b, per column) -> MatMul -> Q           -> QLinearMatMul
//   QDQGemmFusion: DQ(a), DQ(b), DQ(int32 c) -> Gemm [-> Q]             -> com.microsoft QGemm
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "../graph/model_builder_util.h"
#include "../session/session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::vector<std::string> SortedOps(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) ops.push_back(graph.GetNode(index).OpType());
  std::sort(ops.begin(), ops.end());
  return ops;
}

template <typename T>
void AddRaw(onnx::GraphProto* graph, const std::string& name, int32_t type,
            const std::vector<int64_t>& dims, const std::vector<T>& values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(type);
  for (int64_t d : dims) init->add_dims(d);
  init->set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

// Q and DQ of `value` with scale/zero point initializers `name`_s, `name`_z (uint8).
void AddQParams(onnx::GraphProto* graph, const std::string& name, float scale, uint8_t zero) {
  AddRaw<float>(graph, name + "_s", TensorProto::FLOAT, {}, {scale});
  AddRaw<uint8_t>(graph, name + "_z", TensorProto::UINT8, {}, {zero});
}
void AddQdq(onnx::GraphProto* graph, const std::string& value, const std::string& params) {
  AddNode(graph, "QuantizeLinear", {value, params + "_s", params + "_z"}, {value + "_q"},
          value + "_Q");
  AddNode(graph, "DequantizeLinear", {value + "_q", params + "_s", params + "_z"}, {value + "_d"},
          value + "_DQ");
}

std::vector<int8_t> RandomInt8(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<int8_t> values(count);
  for (auto& v : values) v = static_cast<int8_t>(dist(engine));
  return values;
}

// X [1, 4, 8, 8] -> Q/DQ -> Conv 3x3 (per-channel int8 W, int32 bias, pads 1) -> Relu -> Q/DQ
// -> MaxPool 2x2 -> Q/DQ -> (itself + Conv 1x1 of itself -> Q/DQ) Add -> Q/DQ
// -> GlobalAveragePool -> Q/DQ -> Y [1, 6, 1, 1].
onnx::ModelProto QdqNetwork() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 4, 8, 8});
  const float x_scale = 0.02f;
  AddQParams(graph, "x", x_scale, 128);
  AddQdq(graph, "X", "x");
  std::vector<float> w_scales = {0.010f, 0.012f, 0.014f, 0.016f, 0.018f, 0.020f};
  AddRaw<int8_t>(graph, "W", TensorProto::INT8, {6, 4, 3, 3}, RandomInt8(216, 1));
  AddRaw<float>(graph, "W_s", TensorProto::FLOAT, {6}, w_scales);
  AddRaw<int8_t>(graph, "W_z", TensorProto::INT8, {6}, std::vector<int8_t>(6, 0));
  auto* w_dq = AddNode(graph, "DequantizeLinear", {"W", "W_s", "W_z"}, {"W_d"}, "W_DQ");
  auto* axis = w_dq->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  std::vector<float> b_scales;
  for (float s : w_scales) b_scales.push_back(x_scale * s);
  AddRaw<int32_t>(graph, "B", TensorProto::INT32, {6}, {500, -300, 0, 1200, -50, 70});
  AddRaw<float>(graph, "B_s", TensorProto::FLOAT, {6}, b_scales);
  AddRaw<int32_t>(graph, "B_z", TensorProto::INT32, {6}, std::vector<int32_t>(6, 0));
  auto* b_dq = AddNode(graph, "DequantizeLinear", {"B", "B_s", "B_z"}, {"B_d"}, "B_DQ");
  b_dq->add_attribute()->CopyFrom(*axis);
  auto* conv = AddNode(graph, "Conv", {"X_d", "W_d", "B_d"}, {"C"}, "conv");
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  AddNode(graph, "Relu", {"C"}, {"R"}, "relu");
  AddQParams(graph, "r", 0.05f, 0);  // zero point 0: the Relu folds
  AddQdq(graph, "R", "r");
  auto* pool = AddNode(graph, "MaxPool", {"R_d"}, {"M"}, "pool");
  AddIntsAttr(pool, "kernel_shape", {2, 2});
  AddIntsAttr(pool, "strides", {2, 2});
  AddQdq(graph, "M", "r");
  AddRaw<int8_t>(graph, "W2", TensorProto::INT8, {6, 6, 1, 1}, RandomInt8(36, 2));
  AddQParams(graph, "w2", 0.01f, 0);
  graph->mutable_initializer()->RemoveLast();
  AddRaw<int8_t>(graph, "w2_z", TensorProto::INT8, {}, {0});
  AddNode(graph, "DequantizeLinear", {"W2", "w2_s", "w2_z"}, {"W2_d"}, "W2_DQ");
  AddNode(graph, "Conv", {"M_d", "W2_d"}, {"C2"}, "conv2");
  AddQParams(graph, "c2", 0.04f, 100);
  AddQdq(graph, "C2", "c2");
  AddNode(graph, "Add", {"M_d", "C2_d"}, {"A"}, "add");
  AddQParams(graph, "a", 0.06f, 90);
  AddQdq(graph, "A", "a");
  AddNode(graph, "GlobalAveragePool", {"A_d"}, {"G"}, "gap");
  AddQParams(graph, "g", 0.03f, 80);
  AddNode(graph, "QuantizeLinear", {"G", "g_s", "g_z"}, {"G_q"}, "G_Q");
  AddNode(graph, "DequantizeLinear", {"G_q", "g_s", "g_z"}, {"Y"}, "G_DQ");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

SessionOptions AtLevel(GraphOptimizationLevel level, std::vector<std::string> disabled = {}) {
  SessionOptions options;
  options.graph_optimization_level = level;
  options.disabled_optimizers = std::move(disabled);
  return options;
}

std::vector<float> RunY(const InferenceSession& session) {
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(256);
  for (float& v : x) v = dist(engine);
  const auto out = RunFloat(session, {"X"}, {MakeTensor<float>({1, 4, 8, 8}, x)});
  const Tensor& y = out[0].GetTensor();
  return std::vector<float>(y.Data<float>(), y.Data<float>() + y.NumElements());
}

TEST(QdqFusions, ResNetBlockBecomesInt8OpsAndComputesTheSame) {
  const onnx::ModelProto model = QdqNetwork();
  // The layout level's NhwcTransformer off: it would make the fused ops channels-last
  // (nhwc_transformer_test.cc).
  auto fused = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll, {"NhwcTransformer"}));
  EXPECT_EQ(
      SortedOps(*fused->SessionGraph()),
      (std::vector<std::string>{"DequantizeLinear", "MaxPool", "QLinearAdd", "QLinearConv",
                                "QLinearConv", "QLinearGlobalAveragePool", "QuantizeLinear"}));
  EXPECT_EQ(fused->SessionGraph()->FindInitializer("W_s") != nullptr, true)
      << "QLinearConv reads the weight's scale";
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  const std::vector<float> a = RunY(*fused), b = RunY(*plain);
  ASSERT_EQ(a.size(), 6u);
  // Each int8 op rounds where the float one rounds later: one output step (0.03) of slack per
  // rounding that can differ, and in practice the outputs mostly match exactly.
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 2 * 0.03f + 1e-6f) << i;
}

TEST(QdqFusions, EachPassCanBeDisabledByName) {
  const onnx::ModelProto model = QdqNetwork();
  const auto ops = [&](const std::string& disabled) {
    return SortedOps(
        *MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll, {disabled}))->SessionGraph());
  };
  const auto count = [](const std::vector<std::string>& list, const char* op) {
    return std::count(list.begin(), list.end(), op);
  };
  const auto no_conv = ops("QDQConvFusion");
  EXPECT_EQ(count(no_conv, "QLinearConv"), 0);
  EXPECT_EQ(count(no_conv, "QLinearAdd"), 1);
  const auto no_add = ops("QDQAddFusion");
  EXPECT_EQ(count(no_add, "Add"), 1);
  EXPECT_EQ(count(no_add, "QLinearConv"), 2);
  const auto no_pool = ops("QDQGlobalAveragePoolFusion");
  EXPECT_EQ(count(no_pool, "GlobalAveragePool"), 1);
  const auto no_drop = ops("QDQDropFusion");
  EXPECT_EQ(count(no_drop, "MaxPool"), 1);
  EXPECT_GE(count(no_drop, "DequantizeLinear"), 2) << "the MaxPool keeps its DQ and Q";
}

TEST(QdqFusions, LeavesWhatItMustNot) {
  // The Relu stays (and the Conv with it) when the output zero point is not the type's lowest.
  onnx::ModelProto relu = QdqNetwork();
  for (auto& init : *relu.mutable_graph()->mutable_initializer())
    if (init.name() == "r_z") init.set_raw_data(std::string(1, static_cast<char>(3)));
  auto with_relu = MakeSession(relu, {}, AtLevel(GraphOptimizationLevel::kAll));
  const auto relu_ops = SortedOps(*with_relu->SessionGraph());
  EXPECT_EQ(std::count(relu_ops.begin(), relu_ops.end(), "QLinearConv"), 1);
  EXPECT_EQ(std::count(relu_ops.begin(), relu_ops.end(), "Relu") +
                std::count(relu_ops.begin(), relu_ops.end(), "FusedConv"),
            1);
  // The MaxPool's Q has another scale than its DQ: the pool stays float between them.
  onnx::ModelProto rescaled = QdqNetwork();
  for (auto& node : *rescaled.mutable_graph()->mutable_node())
    if (node.name() == "M_Q") node.set_input(1, "a_s");
  auto session = MakeSession(rescaled, {}, AtLevel(GraphOptimizationLevel::kAll));
  const auto pool_ops = SortedOps(*session->SessionGraph());
  EXPECT_GE(std::count(pool_ops.begin(), pool_ops.end(), "DequantizeLinear"), 2);
  // A bias whose scale is not x_scale * w_scale keeps the Conv in float.
  onnx::ModelProto bias = QdqNetwork();
  for (auto& init : *bias.mutable_graph()->mutable_initializer())
    if (init.name() == "B_s") {
      std::vector<float> wrong(6, 1e-3f);
      init.set_raw_data(std::string(reinterpret_cast<const char*>(wrong.data()), 24));
    }
  auto float_conv = MakeSession(bias, {}, AtLevel(GraphOptimizationLevel::kAll));
  const auto bias_ops = SortedOps(*float_conv->SessionGraph());
  EXPECT_EQ(std::count(bias_ops.begin(), bias_ops.end(), "QLinearConv"), 1);
}

// X [3, 8] -> Q/DQ -> MatMul(DQ(W int8 [8, 5], per column, axis 1)) -> Q/DQ -> Y.
onnx::ModelProto QdqMatMul() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3, 8});
  AddQParams(graph, "x", 0.03f, 120);
  AddQdq(graph, "X", "x");
  AddRaw<int8_t>(graph, "W", TensorProto::INT8, {8, 5}, RandomInt8(40, 3));
  AddRaw<float>(graph, "W_s", TensorProto::FLOAT, {5}, {0.01f, 0.02f, 0.015f, 0.012f, 0.03f});
  AddRaw<int8_t>(graph, "W_z", TensorProto::INT8, {5}, std::vector<int8_t>(5, 0));
  auto* w_dq = AddNode(graph, "DequantizeLinear", {"W", "W_s", "W_z"}, {"W_d"}, "W_DQ");
  auto* axis = w_dq->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  AddNode(graph, "MatMul", {"X_d", "W_d"}, {"M"}, "matmul");
  AddQParams(graph, "m", 0.08f, 128);
  AddNode(graph, "QuantizeLinear", {"M", "m_s", "m_z"}, {"M_q"}, "M_Q");
  AddNode(graph, "DequantizeLinear", {"M_q", "m_s", "m_z"}, {"Y"}, "M_DQ");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(QdqFusions, MatMulBecomesQLinearMatMulAndComputesTheSame) {
  const onnx::ModelProto model = QdqMatMul();
  auto fused = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll));
  EXPECT_EQ(SortedOps(*fused->SessionGraph()),
            (std::vector<std::string>{"DequantizeLinear", "QLinearMatMul", "QuantizeLinear"}));
  auto unfused = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll, {"QDQMatMulFusion"}));
  const auto unfused_ops = SortedOps(*unfused->SessionGraph());
  EXPECT_EQ(std::count(unfused_ops.begin(), unfused_ops.end(), "MatMul"), 1);
  auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
  std::mt19937 engine(5);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(24);
  for (float& v : x) v = dist(engine);
  const auto a = RunFloat(*fused, {"X"}, {MakeTensor<float>({3, 8}, x)});
  const auto b = RunFloat(*plain, {"X"}, {MakeTensor<float>({3, 8}, x)});
  const Tensor& ya = a[0].GetTensor();
  const Tensor& yb = b[0].GetTensor();
  ASSERT_EQ(ya.NumElements(), 15);
  // One output step (0.08) where the int8 requantization and the float product round apart.
  for (int64_t i = 0; i < 15; ++i)
    EXPECT_NEAR(ya.Data<float>()[i], yb.Data<float>()[i], 0.08f + 1e-6f) << i;
}

// X [3, 8] -> Q/DQ -> Gemm(transB, alpha 1.5; DQ(W int8 [5, 8], per column, axis 0),
// DQ(C int32 [5], scale alpha * x_scale * w_scale)) [-> Q/DQ] -> Y [3, 5].
onnx::ModelProto QdqGemm(bool quantize_output) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3, 8});
  const float x_scale = 0.03f, alpha = 1.5f;
  AddQParams(graph, "x", x_scale, 120);
  AddQdq(graph, "X", "x");
  const std::vector<float> w_scales = {0.01f, 0.02f, 0.015f, 0.012f, 0.03f};
  AddRaw<int8_t>(graph, "W", TensorProto::INT8, {5, 8}, RandomInt8(40, 4));
  AddRaw<float>(graph, "W_s", TensorProto::FLOAT, {5}, w_scales);
  AddRaw<int8_t>(graph, "W_z", TensorProto::INT8, {5}, std::vector<int8_t>(5, 0));
  auto* w_dq = AddNode(graph, "DequantizeLinear", {"W", "W_s", "W_z"}, {"W_d"}, "W_DQ");
  auto* axis = w_dq->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  std::vector<float> c_scales;
  for (float s : w_scales) c_scales.push_back(alpha * x_scale * s);
  AddRaw<int32_t>(graph, "C", TensorProto::INT32, {5}, {300, -200, 0, 900, -40});
  AddRaw<float>(graph, "C_s", TensorProto::FLOAT, {5}, c_scales);
  AddRaw<int32_t>(graph, "C_z", TensorProto::INT32, {5}, std::vector<int32_t>(5, 0));
  auto* c_dq = AddNode(graph, "DequantizeLinear", {"C", "C_s", "C_z"}, {"C_d"}, "C_DQ");
  c_dq->add_attribute()->CopyFrom(*axis);
  auto* gemm = AddNode(graph, "Gemm", {"X_d", "W_d", "C_d"}, {quantize_output ? "G" : "Y"}, "gemm");
  auto* trans_b = gemm->add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  auto* alpha_attribute = gemm->add_attribute();
  alpha_attribute->set_name("alpha");
  alpha_attribute->set_type(onnx::AttributeProto::FLOAT);
  alpha_attribute->set_f(alpha);
  if (quantize_output) {
    AddQParams(graph, "g", 0.08f, 128);
    AddNode(graph, "QuantizeLinear", {"G", "g_s", "g_z"}, {"G_q"}, "G_Q");
    AddNode(graph, "DequantizeLinear", {"G_q", "g_s", "g_z"}, {"Y"}, "G_DQ");
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

std::vector<float> RunGemmY(const InferenceSession& session) {
  std::mt19937 engine(9);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(24);
  for (float& v : x) v = dist(engine);
  const auto out = RunFloat(session, {"X"}, {MakeTensor<float>({3, 8}, x)});
  const Tensor& y = out[0].GetTensor();
  return std::vector<float>(y.Data<float>(), y.Data<float>() + y.NumElements());
}

TEST(QdqFusions, GemmBecomesQGemmAndComputesTheSame) {
  for (bool quantize_output : {true, false}) {
    SCOPED_TRACE(quantize_output ? "quantized output" : "float output");
    const onnx::ModelProto model = QdqGemm(quantize_output);
    auto fused = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll));
    EXPECT_EQ(SortedOps(*fused->SessionGraph()),
              quantize_output
                  ? (std::vector<std::string>{"DequantizeLinear", "QGemm", "QuantizeLinear"})
                  : (std::vector<std::string>{"QGemm", "QuantizeLinear"}));
    auto unfused = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll, {"QDQGemmFusion"}));
    const auto unfused_ops = SortedOps(*unfused->SessionGraph());
    EXPECT_EQ(std::count(unfused_ops.begin(), unfused_ops.end(), "QGemm"), 0);
    auto plain = MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kDisableAll));
    const std::vector<float> a = RunGemmY(*fused), b = RunGemmY(*plain);
    ASSERT_EQ(a.size(), 15u);
    // Quantized: one output step (0.08) where the int8 requantization and the float product
    // round apart; float: QGemm's exact integer sum against the float Gemm's rounding.
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], quantize_output ? 0.08f + 1e-6f : 1e-4f * (1 + std::abs(b[i]))) << i;
  }
}

TEST(QdqFusions, GemmStaysWhereQGemmWouldComputeSomethingElse) {
  const auto qgemm_count = [](const onnx::ModelProto& model) {
    const auto ops =
        SortedOps(*MakeSession(model, {}, AtLevel(GraphOptimizationLevel::kAll))->SessionGraph());
    return std::count(ops.begin(), ops.end(), "QGemm");
  };
  ASSERT_EQ(qgemm_count(QdqGemm(true)), 1);
  const auto set_float = [](onnx::ModelProto& model, const std::string& node_name,
                            const std::string& attribute, float value) {
    for (auto& node : *model.mutable_graph()->mutable_node())
      if (node.name() == node_name) {
        auto* a = node.add_attribute();
        a->set_name(attribute);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(value);
      }
  };
  // beta 2 with a C: QGemm adds C once.
  onnx::ModelProto beta = QdqGemm(true);
  set_float(beta, "gemm", "beta", 2.0f);
  EXPECT_EQ(qgemm_count(beta), 0);
  // C's scale not alpha * x_scale * w_scale (here x_scale * w_scale, alpha left out).
  onnx::ModelProto bias = QdqGemm(true);
  for (auto& init : *bias.mutable_graph()->mutable_initializer())
    if (init.name() == "C_s") {
      std::vector<float> scales(5);
      std::memcpy(scales.data(), init.raw_data().data(), 20);
      for (float& s : scales) s /= 1.5f;
      init.set_raw_data(std::string(reinterpret_cast<const char*>(scales.data()), 20));
    }
  EXPECT_EQ(qgemm_count(bias), 0);
  // The Gemm's output read by its QuantizeLinear and by a graph output: neither form applies.
  onnx::ModelProto also_read = QdqGemm(true);
  also_read.mutable_graph()->add_output()->set_name("G");
  EXPECT_EQ(qgemm_count(also_read), 0);
  // The output QuantizeLinear of another type than x (int8): the Gemm stays.
  onnx::ModelProto int8_output = QdqGemm(true);
  for (auto& init : *int8_output.mutable_graph()->mutable_initializer())
    if (init.name() == "g_z") init.set_data_type(TensorProto::INT8);
  EXPECT_EQ(qgemm_count(int8_output), 0);
}

}  // namespace
}  // namespace prism::testing

// Prepacking at session creation: MatMul's and Gemm's constant float B is packed once, the
// kernel computes from the packed form, and the original is released when nothing else reads
// it (the model's copy too). Results are checked against a double-precision reference; the
// weight's release, its sharing between kernels and sessions through one container, its
// restoration when the session is rebuilt for other providers, and the opt-out are checked on
// the session's statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "session/prepacked_weights_container.h"
#include "session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::vector<float> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = value(generator);
  return values;
}

constexpr int64_t kRows = 7, kDepth = 37, kCols = 40;  // partial tiles and panels

// Y = MatMul(X [kRows, kDepth], W [kDepth, kCols]); with also_output, W is a graph output too.
onnx::ModelProto MatMulModel(const std::vector<float>& w, bool also_output = false) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kRows, kDepth});
  AddFloatInitializer(graph, "W", {kDepth, kCols}, w);
  AddNode(graph, "MatMul", {"X", "W"}, {"Y"}, "matmul");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  if (also_output) AddOutput(graph, "W", TensorProto::FLOAT);
  return model;
}

// out[i, j] = sum_p x[i, p] * w(p, j), w(p, j) = w[p * kCols + j] (or w[j * kDepth + p]).
std::vector<double> Product(const std::vector<float>& x, const std::vector<float>& w,
                            bool w_transposed) {
  std::vector<double> out(kRows * kCols, 0.0);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j)
      for (int64_t p = 0; p < kDepth; ++p)
        out[i * kCols + j] += static_cast<double>(x[i * kDepth + p]) *
                              (w_transposed ? w[j * kDepth + p] : w[p * kCols + j]);
  return out;
}

void ExpectNear(const Value& actual, const std::vector<double>& expected) {
  ASSERT_TRUE(actual.IsTensor());
  const Tensor& tensor = actual.GetTensor();
  ASSERT_EQ(tensor.NumElements(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(tensor.Data<float>()[i], expected[i], 1e-5) << "element " << i;
}

Tensor FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  Tensor tensor(ElementType::kFloat, TensorShape(dims), GetCpuAllocator());
  std::copy(values.begin(), values.end(), tensor.MutableData<float>());
  return tensor;
}

TEST(PrepackTest, MatMulComputesFromThePackedWeightAndReleasesTheOriginal) {
  const std::vector<float> w = RandomValues(kDepth * kCols, 1), x = RandomValues(kRows * kDepth, 2);
  auto session = MakeSession(MatMulModel(w), {});
  const PrepackStatistics stats = session->Prepacking();
  EXPECT_EQ(stats.packed_inputs, 1);
  EXPECT_EQ(stats.packed_weights, 1);
  EXPECT_EQ(stats.originals_released, 1);
  EXPECT_EQ(stats.released_bytes, kDepth * kCols * 4);
  // The session's model no longer holds W (the packed form does).
  EXPECT_EQ(session->GetModel().MainGraph().FindInitializer("W"), nullptr);
  ExpectNear(RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)})[0], Product(x, w, false));
}

TEST(PrepackTest, GemmPacksTransposedWeightsAndKeepsAlphaBetaAndC) {
  const std::vector<float> b = RandomValues(kCols * kDepth, 3), a = RandomValues(kRows * kDepth, 4);
  const std::vector<float> c = RandomValues(kCols, 5);
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {kRows, kDepth});
  AddFloatInitializer(graph, "B", {kCols, kDepth}, b);
  AddFloatInitializer(graph, "C", {kCols}, c);
  auto* gemm = AddNode(graph, "Gemm", {"A", "B", "C"}, {"Y"}, "gemm");
  auto* trans_b = gemm->add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  for (const auto& [name, value] : {std::pair{"alpha", 0.5f}, std::pair{"beta", 2.0f}}) {
    auto* attribute = gemm->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::FLOAT);
    attribute->set_f(value);
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  EXPECT_EQ(session->Prepacking().packed_inputs, 1);
  std::vector<double> expected = Product(a, b, true);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j)
      expected[i * kCols + j] = 0.5 * expected[i * kCols + j] + 2.0 * c[j];
  ExpectNear(RunFloat(*session, {"A"}, {FloatTensor({kRows, kDepth}, a)})[0], expected);
}

TEST(PrepackTest, AWeightAnythingElseReadsIsKept) {
  const std::vector<float> w = RandomValues(kDepth * kCols, 6), x = RandomValues(kRows * kDepth, 7);
  auto session = MakeSession(MatMulModel(w, /*also_output=*/true), {});
  const PrepackStatistics stats = session->Prepacking();
  EXPECT_EQ(stats.packed_inputs, 1);
  EXPECT_EQ(stats.originals_released, 0);
  const std::vector<Value> outputs = RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)});
  ExpectNear(outputs[0], Product(x, w, false));
  ASSERT_EQ(outputs[1].GetTensor().NumElements(), kDepth * kCols);
  for (int64_t i = 0; i < kDepth * kCols; ++i)
    ASSERT_EQ(outputs[1].GetTensor().Data<float>()[i], w[i]);
}

TEST(PrepackTest, KernelsAndSessionsShareOnePackedFormThroughAContainer) {
  const std::vector<float> w = RandomValues(kDepth * kCols, 8), x = RandomValues(kRows * kDepth, 9);
  // Two MatMuls read W: one packed form, both inputs packed, W released.
  onnx::ModelProto model = MatMulModel(w);
  auto* graph = model.mutable_graph();
  AddNode(graph, "MatMul", {"X", "W"}, {"Z"}, "matmul_again");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  SessionOptions options;
  options.prepacked_weights = std::make_shared<PrepackedWeightsContainer>();
  // The two MatMuls compute the same product: CSE would keep only one of them.
  options.disabled_optimizers = {"CommonSubexpressionElimination"};
  auto first = MakeSession(model, {}, options);
  EXPECT_EQ(first->Prepacking().packed_inputs, 2);
  EXPECT_EQ(first->Prepacking().originals_released, 1);
  EXPECT_EQ(options.prepacked_weights->Count(), 1u);
  EXPECT_EQ(options.prepacked_weights->Hits(), 1);
  // A second session over the same weights packs nothing new.
  auto second = MakeSession(model, {}, options);
  EXPECT_EQ(options.prepacked_weights->Count(), 1u);
  EXPECT_EQ(options.prepacked_weights->Hits(), 3);
  // Other bytes are packed apart.
  std::vector<float> other = w;
  other[5] += 1.0f;
  auto third = MakeSession(MatMulModel(other), {}, options);
  EXPECT_EQ(options.prepacked_weights->Count(), 2u);
  const std::vector<double> expected = Product(x, w, false);
  for (const auto* session : {first.get(), second.get()}) {
    const std::vector<Value> outputs = RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)});
    ExpectNear(outputs[0], expected);
    ExpectNear(outputs[1], expected);
  }
  ExpectNear(RunFloat(*third, {"X"}, {FloatTensor({kRows, kDepth}, x)})[0],
             Product(x, other, false));
}

TEST(PrepackTest, ARebuiltSessionGetsTheReleasedWeightBack) {
  const std::vector<float> w = RandomValues(kDepth * kCols, 10),
                           x = RandomValues(kRows * kDepth, 11);
  auto session = MakeSession(MatMulModel(w), {});
  ASSERT_EQ(session->Prepacking().originals_released, 1);
  // On the test EP the MatMul reads W in its device memory: W must be whole again.
  session->SetProviders({TestEp("MatMul")});
  EXPECT_EQ(session->Prepacking().packed_inputs, 0);
  EXPECT_EQ(session->Report().NodesPerProvider().at("TestExecutionProvider"), 1);
  const Tensor* restored = session->GetModel().MainGraph().FindInitializer("W");
  ASSERT_NE(restored, nullptr);
  for (int64_t i = 0; i < kDepth * kCols; ++i) ASSERT_EQ(restored->Data<float>()[i], w[i]);
  ExpectNear(RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)})[0], Product(x, w, false));
  // And back on the CPU EP, packed and released again.
  session->SetProviders({});
  EXPECT_EQ(session->Prepacking().originals_released, 1);
  ExpectNear(RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)})[0], Product(x, w, false));
}

TEST(PrepackTest, DisablePrepackingKeepsTheWeightAsStored) {
  const std::vector<float> w = RandomValues(kDepth * kCols, 12),
                           x = RandomValues(kRows * kDepth, 13);
  SessionOptions options;
  options.config_entries["session.disable_prepacking"] = "1";
  auto session = MakeSession(MatMulModel(w), {}, options);
  const PrepackStatistics stats = session->Prepacking();
  EXPECT_EQ(stats.packed_inputs, 0);
  EXPECT_EQ(stats.originals_released, 0);
  EXPECT_NE(session->GetModel().MainGraph().FindInitializer("W"), nullptr);
  ExpectNear(RunFloat(*session, {"X"}, {FloatTensor({kRows, kDepth}, x)})[0], Product(x, w, false));
}

}  // namespace
}  // namespace prism::testing

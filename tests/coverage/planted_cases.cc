// Planted cases for the type-coverage self-test (check_type_coverage_test.py): tests that pass but
// must NOT count as evidence for a combination (a session built and never run, outputs never
// compared, a run expected to fail, a mismatch the test expects, an If branch not taken, a Cast
// pair never computed), next to tests that must count. Each case uses combinations of its own
// so that the self-test can tell them apart. Not part of prism_unit_tests: these tests would be
// evidence for the real check.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "../unit/graph/model_builder_util.h"
#include "compute_evidence.h"
#include "op_tester.h"
#include "session/inference_session.h"

namespace prism::testing {
namespace {

std::vector<Value> RunModel(const onnx::ModelProto& model, const std::vector<std::string>& names,
                            const std::vector<Value>& feeds) {
  const std::string bytes = Serialize(model);
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  return session.Run(RunOptions{}, names, feeds, {});
}

// Sigmoid-13 double: the kernel is looked up and created, never computed.
TEST(PlantedCoverage, BuildsSessionButNeverRuns) {
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* graph = model.mutable_graph();
  AddInput(graph, "x", onnx::TensorProto::DOUBLE, {2});
  AddNode(graph, "Sigmoid", {"x"}, {"y"});
  AddOutput(graph, "y", onnx::TensorProto::DOUBLE);
  const std::string bytes = Serialize(model);
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  EXPECT_EQ(session.Outputs().size(), 1u);
}

// Tanh-13 double: computed, its outputs never compared with anything.
TEST(PlantedCoverage, ComputesButNeverCompares) {
  OpTester test("Tanh", 13);
  test.Input<double>("x", {2}, {0.0, 1.0});
  test.Output<double>("y", {2}, {0.0, 0.0});  // wrong, and never checked
  EXPECT_EQ(test.RunAndGet().size(), 1u);
}

// Reshape-21 int16: a run expected to fail.
TEST(PlantedCoverage, ExpectFailureOnly) {
  OpTester test("Reshape", 21);
  test.Input<int16_t>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {1}, {4});
  test.Output<int16_t>("reshaped", {4}, {1, 2, 3, 4});
  test.ExpectFailure("cannot reshape");
}

// Exp-13 double computes, then the run fails at Reshape; a later, unrelated oracle comparison
// (Relu-14 float, which counts) must not turn the failed run's Exp into evidence.
TEST(PlantedCoverage, RunFailsAfterAKernelComputed) {
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* graph = model.mutable_graph();
  AddInput(graph, "x", onnx::TensorProto::DOUBLE, {2, 3});
  AddInput(graph, "shape", onnx::TensorProto::INT64, {1});
  AddNode(graph, "Exp", {"x"}, {"e"});
  AddNode(graph, "Reshape", {"e", "shape"}, {"y"});
  AddOutput(graph, "y", onnx::TensorProto::DOUBLE);
  EXPECT_THROW(RunModel(model, {"x", "shape"},
                        {Value(MakeTensor<double>({2, 3}, {0, 0, 0, 0, 0, 0})),
                         Value(MakeTensor<int64_t>({1}, {4}))}),
               std::exception);

  OpTester relu("Relu", 14);
  relu.Input<float>("x", {3}, {-1.f, 0.f, 2.f});
  relu.Output<float>("y", {3}, {0.f, 0.f, 2.f});
  relu.Run();
}

// Erf-13 double: computed and compared, but the comparison (expected to) mismatch.
TEST(PlantedCoverage, MismatchDetectedButTestPasses) {
  OpTester test("Erf", 13);
  test.Input<double>("x", {1}, {0.0});
  test.Output<double>("y", {1}, {0.0});  // declares the output; RunAndGet does not check it
  std::vector<Value> results = test.RunAndGet();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(CompareWithOracle(Value(MakeTensor<double>({1}, {0.5})), results[0], {}).empty());
}

// If-13 (B=bool, V=float) takes then_branch, Exp-13 float; else_branch's Sqrt-13 float never
// computes.
TEST(PlantedCoverage, IfBranchNotTaken) {
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* graph = model.mutable_graph();
  AddInput(graph, "cond", onnx::TensorProto::BOOL, {});
  AddInput(graph, "a", onnx::TensorProto::FLOAT, {2});
  onnx::NodeProto* node = AddNode(graph, "If", {"cond"}, {"y"});
  AddOutput(graph, "y", onnx::TensorProto::FLOAT);
  onnx::GraphProto* then_branch = AddGraphAttr(node, "then_branch");
  then_branch->set_name("then");
  AddNode(then_branch, "Exp", {"a"}, {"then_y"});
  AddOutput(then_branch, "then_y", onnx::TensorProto::FLOAT);
  onnx::GraphProto* else_branch = AddGraphAttr(node, "else_branch");
  else_branch->set_name("else");
  AddNode(else_branch, "Sqrt", {"a"}, {"else_y"});
  AddOutput(else_branch, "else_y", onnx::TensorProto::FLOAT);

  std::vector<Value> results =
      RunModel(model, {"cond", "a"},
               {Value(MakeTensor<bool>({}, {true})), Value(MakeTensor<float>({2}, {0.f, 1.f}))});
  ASSERT_EQ(results.size(), 1u);
  // exp(0) = 1, exp(1) = 2.7182818
  EXPECT_EQ(CompareWithOracle(Value(MakeTensor<float>({2}, {1.f, 2.7182818f})), results[0], {}),
            "");
}

// Sigmoid-13 float: computed and compared; counts.
TEST(PlantedCoverage, ComputesAndCompares) {
  OpTester test("Sigmoid", 13);
  test.Input<float>("x", {1}, {0.f});
  test.Output<float>("y", {1}, {0.5f});
  test.Run();
}

// Cast-19 int32 -> float16 and int8 -> double: both T1 types and both T2 types are computed,
// but only these two pairs; int32 -> double and int8 -> float16 are not.
TEST(PlantedCoverage, CastTwoPairs) {
  OpTester to_half("Cast", 19);
  to_half.Input<int32_t>("x", {2}, {1, -2});
  to_half.Attr("to", static_cast<int64_t>(ElementType::kFloat16));
  to_half.Output<Float16>("y", {2}, {Float16(1.f), Float16(-2.f)});
  to_half.Run();

  OpTester to_double("Cast", 19);
  to_double.Input<int8_t>("x", {2}, {3, -4});
  to_double.Attr("to", static_cast<int64_t>(ElementType::kDouble));
  to_double.Output<double>("y", {2}, {3.0, -4.0});
  to_double.Run();
}

}  // namespace
}  // namespace prism::testing

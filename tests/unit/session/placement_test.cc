// Placement of constants: a constant initializer read by a device EP is copied into that EP's
// memory once, when the session is created, and no run copies it again; an initializer that is
// also a graph input (overridable) is still copied per run, since a feed may replace it.
#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr int64_t kN = 256;
constexpr int64_t kBytes = kN * static_cast<int64_t>(sizeof(float));

std::vector<float> Ramp(float start, float step) {
  std::vector<float> values(kN);
  for (int64_t i = 0; i < kN; ++i) values[i] = start + step * static_cast<float>(i);
  return values;
}

// Z = Mul(Relu(Add(X, B)), C), B and C constant; with `overridable` C is also a graph input.
onnx::ModelProto ConstantModel(bool overridable) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kN});
  if (overridable) AddInput(graph, "C", TensorProto::FLOAT, {kN});
  AddFloatInitializer(graph, "B", {kN}, Ramp(-3.f, 0.03f));
  AddFloatInitializer(graph, "C", {kN}, Ramp(0.5f, -0.01f));
  AddNode(graph, "Add", {"X", "B"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"R"}, "relu");
  AddNode(graph, "Mul", {"R", "C"}, {"Z"}, "mul");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

std::vector<Value> RunX(const InferenceSession& session) {
  return RunFloat(session, {"X"}, {MakeTensor<float>({kN}, Ramp(1.f, 0.002f))});
}

int64_t BytesCopiedByRuns(const InferenceSession& session, int runs) {
  const int64_t before = session.Statistics().bytes_copied;
  for (int i = 0; i < runs; ++i) RunX(session);
  return (session.Statistics().bytes_copied - before) / runs;
}

TEST(PlacementTest, ConstantsMoveToTheDeviceOnceAtSessionCreation) {
  auto live = TestEpSymbol<CounterFn>("PrismTestEpLiveAllocations");
  auto session = MakeSession(ConstantModel(false), {TestEp("Add,Mul")});
  if (live == nullptr) live = TestEpSymbol<CounterFn>("PrismTestEpLiveAllocations");
  ASSERT_NE(live, nullptr);
  const int64_t held = live();

  int placed = 0;
  for (const CopyRecord& copy : session->Report().copies) {
    SCOPED_TRACE(copy.value);
    const bool constant = copy.value == "B" || copy.value == "C";
    EXPECT_EQ(copy.per_run, !constant);
    if (constant) {
      ++placed;
      EXPECT_EQ(copy.to_memory, "TestDevice:0");
      EXPECT_NE(copy.reason.find("constant, placed once at session creation"), std::string::npos);
    }
  }
  EXPECT_EQ(placed, 2);
  EXPECT_NE(session->Report().ToText().find("placed once at session creation"), std::string::npos);

  // Per run: X in, S out to the CPU Relu, R back in, Z out to the caller; B and C never.
  EXPECT_EQ(BytesCopiedByRuns(*session, 3), 4 * kBytes);
  EXPECT_EQ(live(), held) << "runs leaked device buffers or re-placed constants";

  auto cpu = MakeSession(ConstantModel(false), {});
  EXPECT_EQ(CompareValues(RunX(*cpu)[0], RunX(*session)[0], {0, 0}), "");
  session.reset();
  EXPECT_EQ(live(), held - 2) << "the two placed constants were not freed with the session";
}

TEST(PlacementTest, OverridableInitializerIsCopiedPerRun) {
  auto session = MakeSession(ConstantModel(true), {TestEp("Add,Mul")});
  for (const CopyRecord& copy : session->Report().copies) {
    SCOPED_TRACE(copy.value);
    EXPECT_EQ(copy.per_run, copy.value != "B");
  }
  // As above plus C, which a feed may replace.
  EXPECT_EQ(BytesCopiedByRuns(*session, 2), 5 * kBytes);
  const Tensor x = MakeTensor<float>({kN}, Ramp(1.f, 0.002f));
  const Tensor c = MakeTensor<float>({kN}, std::vector<float>(kN, 2.f));
  auto cpu = MakeSession(ConstantModel(true), {});
  const std::vector<Value> expected = RunFloat(*cpu, {"X", "C"}, {x, c});
  const std::vector<Value> actual = RunFloat(*session, {"X", "C"}, {x, c});
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_EQ(CompareValues(expected[0], actual[0], {0, 0}), "");
}

}  // namespace
}  // namespace prism::testing

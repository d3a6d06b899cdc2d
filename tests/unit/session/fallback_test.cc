// The retry-on-CPU fallback lives in the core, so C and C++ callers get onnxruntime's Python
// behaviour: an EP failing at session creation or in a Run makes the session rebuild on the CPU
// EP alone and retry once, with a notice; model errors and disabled fallback are not retried.
#include <thread>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr const char* kTestEp = "TestExecutionProvider";
constexpr const char* kCpuEp = "CPUExecutionProvider";

// Add(X, Y) -> S; Relu(S) -> Z.
onnx::ModelProto AddRelu() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddInput(graph, "Y", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"X", "Y"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Z"}, "relu");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

std::vector<Value> RunXY(const InferenceSession& session) {
  return RunFloat(session, {"X", "Y"},
                  {MakeTensor<float>({2}, {1.0f, -3.0f}), MakeTensor<float>({2}, {0.5f, 1.0f})});
}

const Value kExpected{MakeTensor<float>({2}, {1.5f, 0.0f})};

ProviderSpec FailingAtRun() {
  return ProviderSpec{kTestEp, {{"ops", "Add"}, {"fail_compute", "1"}}};
}

TEST(FallbackTest, RunFailingInAnEpIsRetriedOnCpuOnce) {
  auto session = MakeSession(AddRelu(), {FailingAtRun()});
  ASSERT_EQ(session->Providers(), (std::vector<std::string>{kTestEp, kCpuEp}));
  ASSERT_TRUE(session->FallbackEnabled());
  const std::vector<Value> out = RunXY(*session);
  EXPECT_EQ(CompareValues(kExpected, out[0], {0, 0}), "");
  EXPECT_EQ(session->Providers(), std::vector<std::string>{kCpuEp});
  EXPECT_FALSE(session->FallbackEnabled()) << "fallback happens once, as in onnxruntime";
  const std::string notice = session->TakeFallbackNotice();
  EXPECT_NE(notice.find("EP Error"), std::string::npos) << notice;
  EXPECT_NE(notice.find("simulated device failure in Add node 'add'"), std::string::npos) << notice;
  EXPECT_NE(notice.find("Falling back to ['CPUExecutionProvider'] and retrying."),
            std::string::npos)
      << notice;
  EXPECT_EQ(session->TakeFallbackNotice(), "");
  EXPECT_EQ(CompareValues(kExpected, RunXY(*session)[0], {0, 0}), "");
}

TEST(FallbackTest, ConcurrentRunsFallBackOnceAndAllSucceed) {
  auto session = MakeSession(AddRelu(), {FailingAtRun()});
  std::vector<std::thread> threads;
  std::vector<std::string> results(6);
  for (size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      results[t] = CompareValues(kExpected, RunXY(*session)[0], {0, 0});
    });
  for (auto& thread : threads) thread.join();
  for (const std::string& result : results) EXPECT_EQ(result, "");
  EXPECT_EQ(session->Providers(), std::vector<std::string>{kCpuEp});
  EXPECT_NE(session->TakeFallbackNotice(), "");
  EXPECT_EQ(session->TakeFallbackNotice(), "") << "one notice: the fallback happened once";
}

TEST(FallbackTest, DisabledFallbackLetsTheEpErrorThrough) {
  auto session = MakeSession(AddRelu(), {FailingAtRun()});
  session->DisableFallback();
  PRISM_EXPECT_ERROR(CaptureError([&] { RunXY(*session); }), kEpFail, "simulated device failure");
  EXPECT_EQ(session->Providers(), (std::vector<std::string>{kTestEp, kCpuEp}));
  session->EnableFallback();
  EXPECT_EQ(CompareValues(kExpected, RunXY(*session)[0], {0, 0}), "");
}

TEST(FallbackTest, CpuFallbackDisabledByConfigIsNeverRetried) {
  SessionOptions options;
  options.config_entries["session.disable_cpu_ep_fallback"] = "1";
  // Relu has nowhere to go but the test EP here.
  auto session = MakeSession(
      AddRelu(), {ProviderSpec{kTestEp, {{"ops", "Add,Relu"}, {"fail_compute", "1"}}}}, options);
  PRISM_EXPECT_ERROR(CaptureError([&] { RunXY(*session); }), kEpFail, "simulated device failure");
}

TEST(FallbackTest, CreationFailingInAnEpFallsBackToCpu) {
  auto session = MakeSession(AddRelu(), {ProviderSpec{kTestEp, {{"device_id", "not-a-number"}}}});
  EXPECT_EQ(session->Providers(), std::vector<std::string>{kCpuEp});
  EXPECT_FALSE(session->FallbackEnabled());
  EXPECT_NE(session->TakeFallbackNotice().find("device_id 'not-a-number' is not a number"),
            std::string::npos);
  EXPECT_EQ(CompareValues(kExpected, RunXY(*session)[0], {0, 0}), "");
}

TEST(FallbackTest, CreationFallbackCanBeTurnedOffByConfig) {
  SessionOptions options;
  options.config_entries["session.disable_ep_failure_fallback"] = "1";
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        MakeSession(AddRelu(), {ProviderSpec{kTestEp, {{"device_id", "not-a-number"}}}}, options);
      }),
      kEpFail,
      "TestExecutionProvider could not be created: TestExecutionProvider: "
      "device_id 'not-a-number' is not a number");
}

TEST(FallbackTest, ModelErrorsAreNotRetried) {
  onnx::ModelProto broken = AddRelu();
  broken.mutable_graph()->mutable_node(1)->set_input(0, "missing");
  PRISM_EXPECT_ERROR(CaptureError([&] { MakeSession(broken, {FailingAtRun()}); }), kInvalidGraph,
                     "'missing'");
}

}  // namespace
}  // namespace prism::testing

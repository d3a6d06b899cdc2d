// The executor: intermediate values are freed (checked on the test EP's simulated device
// memory), dynamic shapes, subgraphs, feed validation, and RunOptions.terminate.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

// X -> Relu x n -> Y, X of the given dims.
onnx::ModelProto ReluChain(int n, const std::vector<DimSpec>& dims) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, dims);
  std::string previous = "X";
  for (int i = 0; i < n; ++i) {
    const std::string out = i + 1 == n ? "Y" : "r" + std::to_string(i);
    AddNode(graph, "Relu", {previous}, {out}, "relu" + std::to_string(i));
    previous = out;
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

// Relu(X + B), X [batch, 3], B a constant [3].
onnx::ModelProto DynamicBatchModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 3});
  AddFloatInitializer(graph, "B", {3}, {1.f, -1.f, 0.5f});
  AddNode(graph, "Add", {"X", "B"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT, {"batch", 3});
  return model;
}

// If(C): then X + X, else Identity(X); both branches read X from the main graph.
onnx::ModelProto IfModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "branch");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Add", {"X", "X"}, {"T"}, "then_add");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddNode(else_branch, "Identity", {"X"}, {"E"}, "else_id");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

std::vector<float> Iota(size_t n, float start, float step) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = start + step * static_cast<float>(i);
  return values;
}

CounterFn LiveAllocations() {
  auto fn = TestEpSymbol<CounterFn>("PrismTestEpLiveAllocations");
  EXPECT_NE(fn, nullptr) << "PrismTestEpLiveAllocations not found in " << TestEpPluginPath();
  return fn;
}

TEST(ExecutorTest, DeviceIntermediatesAreFreedAfterRun) {
  auto session = MakeSession(ReluChain(6, {4, 8}), {TestEp("Relu")});
  CounterFn live = LiveAllocations();
  ASSERT_NE(live, nullptr);
  const int64_t before = live();
  const Tensor x = MakeTensor<float>({4, 8}, Iota(32, -16.f, 1.f));
  {
    auto out = RunFloat(*session, {"X"}, {x});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].GetTensor().Location().IsCpuAccessible());
    EXPECT_EQ(live(), before) << "device buffers outlived the run";
  }
  {
    auto device = session->Run(RunOptions{}, {"X"}, {Value(x)}, {}, /*keep_device_outputs=*/true);
    EXPECT_EQ(device[0].GetTensor().Location().name, "TestDevice");
    EXPECT_EQ(live(), before + 1) << "only the returned device output stays alive";
  }
  EXPECT_EQ(live(), before);
}

TEST(ExecutorTest, DeviceChainKeepsFewBuffersAlive) {
  constexpr int kChain = 8;
  auto session = MakeSession(ReluChain(kChain, {16, 16}), {TestEp("Relu")});
  CounterFn live = LiveAllocations();
  auto peak = TestEpSymbol<CounterFn>("PrismTestEpPeakLiveAllocations");
  auto reset = TestEpSymbol<ResetFn>("PrismTestEpResetPeakLiveAllocations");
  ASSERT_NE(live, nullptr);
  ASSERT_NE(peak, nullptr);
  ASSERT_NE(reset, nullptr);
  const int64_t before = live();
  reset();
  auto out = RunFloat(*session, {"X"}, {MakeTensor<float>({16, 16}, Iota(256, -100.f, 1.f))});
  // One step reads its input while writing its output: 2 buffers; never one per node (9).
  const int64_t high_water = peak() - before;
  EXPECT_GE(high_water, 2);
  EXPECT_LE(high_water, 3) << "intermediates of a " << kChain << "-node chain are not released";
  EXPECT_EQ(live(), before);
  std::vector<float> expected = Iota(256, -100.f, 1.f);
  for (float& v : expected) v = v > 0.f ? v : 0.f;
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({16, 16}, expected)), out[0], {0, 0}), "");
}

TEST(ExecutorTest, DeviceBuffersAreFreedWhenAKernelFails) {
  // Add of [2] and [3] cannot broadcast: the run fails after the inputs were copied in.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInputNoShape(graph, "X", TensorProto::FLOAT);
  AddInputNoShape(graph, "Y", TensorProto::FLOAT);
  AddNode(graph, "Relu", {"X"}, {"R"}, "relu");
  AddNode(graph, "Add", {"R", "Y"}, {"Z"}, "add");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  auto session = MakeSession(model, {TestEp("Add,Relu")});
  CounterFn live = LiveAllocations();
  ASSERT_NE(live, nullptr);
  const int64_t before = live();
  const Status status = CaptureError([&] {
    RunFloat(*session, {"X", "Y"},
             {MakeTensor<float>({2}, {1.f, 2.f}), MakeTensor<float>({3}, {1.f, 2.f, 3.f})});
  });
  EXPECT_NE(status.Message().find("Add node 'add' (TestExecutionProvider) failed"),
            std::string::npos)
      << status.Message();
  EXPECT_EQ(live(), before);
}

TEST(ExecutorTest, DynamicBatchOnOneSession) {
  for (const auto& providers :
       {std::vector<ProviderSpec>{}, std::vector<ProviderSpec>{TestEp("Add,Relu")}}) {
    SCOPED_TRACE(providers.empty() ? "cpu" : "test ep");
    auto session = MakeSession(DynamicBatchModel(), providers);
    for (int64_t batch : {2, 5, 1}) {
      SCOPED_TRACE(batch);
      const std::vector<float> x = Iota(static_cast<size_t>(batch * 3), -4.f, 0.75f);
      std::vector<float> expected(x.size());
      const float bias[3] = {1.f, -1.f, 0.5f};
      for (size_t i = 0; i < x.size(); ++i) expected[i] = std::max(0.f, x[i] + bias[i % 3]);
      auto out = RunFloat(*session, {"X"}, {MakeTensor<float>({batch, 3}, x)});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(CompareValues(Value(MakeTensor<float>({batch, 3}, expected)), out[0], {0, 0}), "");
    }
  }
}

TEST(ExecutorTest, IfSubgraphReadsOuterScope) {
  for (const auto& providers :
       {std::vector<ProviderSpec>{}, std::vector<ProviderSpec>{TestEp("Add")}}) {
    SCOPED_TRACE(providers.empty() ? "cpu" : "test ep");
    std::unique_ptr<InferenceSession> session;
    try {
      session = MakeSession(IfModel(), providers);
    } catch (const Exception& e) {
      FAIL() << "If model cannot be prepared (is the If kernel registered?): " << e.what();
    }
    CounterFn live = providers.empty() ? nullptr : LiveAllocations();
    const int64_t before = live ? live() : 0;
    const Tensor x = MakeTensor<float>({2}, {1.5f, -2.f});
    for (bool condition : {true, false}) {
      SCOPED_TRACE(condition);
      std::vector<Value> feeds = {Value(MakeTensor<bool>({}, {condition})), Value(x)};
      auto out = session->Run(RunOptions{}, {"C", "X"}, feeds, {});
      ASSERT_EQ(out.size(), 1u);
      const Tensor expected = condition ? MakeTensor<float>({2}, {3.f, -4.f}) : x;
      EXPECT_EQ(CompareValues(Value(expected), out[0], {0, 0}), "");
    }
    if (live) {
      EXPECT_EQ(live(), before) << "subgraph device buffers outlived the run";
    }
  }
}

TEST(ExecutorTest, SubgraphOutputsThatAreOuterValuesOrInitializers) {
  // then: returns outer X itself; else: returns its own initializer K. No nodes at all.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "branch");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddOutput(then_branch, "X", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddFloatInitializer(else_branch, "K", {2}, {7.f, 8.f});
  AddOutput(else_branch, "K", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  const Tensor x = MakeTensor<float>({2}, {1.f, 2.f});
  auto then_out =
      session->Run(RunOptions{}, {"C", "X"}, {Value(MakeTensor<bool>({}, {true})), Value(x)}, {});
  EXPECT_EQ(CompareValues(Value(x), then_out[0], {0, 0}), "");
  auto else_out =
      session->Run(RunOptions{}, {"C", "X"}, {Value(MakeTensor<bool>({}, {false})), Value(x)}, {});
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {7.f, 8.f})), else_out[0], {0, 0}), "");
}

TEST(ExecutorTest, GraphOutputsThatAreInputsOrInitializers) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddFloatInitializer(graph, "K", {2}, {3.f, 4.f});
  AddNode(graph, "Relu", {"X"}, {"R"}, "relu");
  AddOutput(graph, "X", TensorProto::FLOAT);
  AddOutput(graph, "K", TensorProto::FLOAT);
  AddOutput(graph, "R", TensorProto::FLOAT);
  for (const auto& providers :
       {std::vector<ProviderSpec>{}, std::vector<ProviderSpec>{TestEp("Relu")}}) {
    SCOPED_TRACE(providers.empty() ? "cpu" : "test ep");
    auto session = MakeSession(model, providers);
    auto out = RunFloat(*session, {"X"}, {MakeTensor<float>({2}, {-1.f, 5.f})});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {-1.f, 5.f})), out[0], {0, 0}), "");
    EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {3.f, 4.f})), out[1], {0, 0}), "");
    EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {0.f, 5.f})), out[2], {0, 0}), "");
  }
}

TEST(ExecutorTest, DeviceOutputAlsoReadByACpuNode) {
  // S is a graph output and an input of a CPU node: the device value and its CPU copy coexist.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Relu", {"X"}, {"S"}, "relu");
  AddNode(graph, "Identity", {"S"}, {"T"}, "id");
  AddOutput(graph, "S", TensorProto::FLOAT);
  AddOutput(graph, "T", TensorProto::FLOAT);
  auto session = MakeSession(model, {TestEp("Relu")});
  auto out = RunFloat(*session, {"X"}, {MakeTensor<float>({3}, {-1.f, 0.5f, 2.f})});
  ASSERT_EQ(out.size(), 2u);
  const Value expected(MakeTensor<float>({3}, {0.f, 0.5f, 2.f}));
  EXPECT_EQ(CompareValues(expected, out[0], {0, 0}), "");
  EXPECT_EQ(CompareValues(expected, out[1], {0, 0}), "");
}

// X [batch, 4] -> Relu -> Y, plus an overridable initializer W added to it.
onnx::ModelProto ValidationModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 4});
  AddFloatInitializer(graph, "W", {4}, {1.f, 1.f, 1.f, 1.f});
  AddInput(graph, "W", TensorProto::FLOAT, {4});
  AddNode(graph, "Add", {"X", "W"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  AddOutput(graph, "S", TensorProto::FLOAT);
  return model;
}

TEST(ExecutorTest, FeedValidationErrors) {
  auto session = MakeSession(ValidationModel(), {});
  const Tensor good = MakeTensor<float>({1, 4}, {1.f, 2.f, 3.f, 4.f});
  auto run = [&](const std::vector<std::string>& names, const std::vector<Value>& feeds,
                 const std::vector<std::string>& outputs = {}) {
    return CaptureError([&] { session->Run(RunOptions{}, names, feeds, outputs); });
  };
  PRISM_EXPECT_ERROR(run({"nope"}, {Value(good)}), kInvalidArgument,
                     "invalid input name 'nope': the model's inputs are 'X', 'W'");
  PRISM_EXPECT_ERROR(run({"X"}, {Value(MakeTensor<int64_t>({1, 4}, {1, 2, 3, 4}))}),
                     kInvalidArgument, "input 'X' expects element type float, got int64");
  PRISM_EXPECT_ERROR(run({"X"}, {Value(MakeTensor<float>({4}, {1.f, 2.f, 3.f, 4.f}))}),
                     kInvalidArgument, "input 'X' expects rank 2 [batch,4], got shape [4]");
  PRISM_EXPECT_ERROR(run({"X"}, {Value(MakeTensor<float>({2, 2}, {1.f, 2.f, 3.f, 4.f}))}),
                     kInvalidArgument,
                     "input 'X' expects shape [batch,4], got [2,2] (dimension 1)");
  PRISM_EXPECT_ERROR(run({}, {}), kInvalidArgument, "missing input 'X' (tensor(float))");
  PRISM_EXPECT_ERROR(run({"W"}, {Value(MakeTensor<float>({4}, {0.f, 0.f, 0.f, 0.f}))}),
                     kInvalidArgument, "missing input 'X' (tensor(float))");
  PRISM_EXPECT_ERROR(run({"X", "X"}, {Value(good), Value(good)}), kInvalidArgument,
                     "input 'X' is fed twice");
  PRISM_EXPECT_ERROR(run({"X"}, {Value()}), kInvalidArgument,
                     "input 'X' was fed an empty value but expects tensor(float)");
  TensorSequence sequence;
  sequence.elem_type = ElementType::kFloat;
  sequence.tensors.push_back(good);
  PRISM_EXPECT_ERROR(run({"X"}, {Value(sequence)}), kInvalidArgument,
                     "input 'X' expects tensor(float), got seq(tensor(float))");
  PRISM_EXPECT_ERROR(run({"X"}, {}), kInvalidArgument, "1 feed names for 0 feeds");
  PRISM_EXPECT_ERROR(run({"X"}, {Value(good)}, {"nope"}), kInvalidArgument,
                     "invalid output name 'nope'");
}

TEST(ExecutorTest, OverridableInitializersAndOutputSelection) {
  auto session = MakeSession(ValidationModel(), {});
  ASSERT_EQ(session->Inputs().size(), 1u);
  ASSERT_EQ(session->OverridableInitializers().size(), 1u);
  EXPECT_EQ(session->OverridableInitializers()[0].name, "W");
  const Tensor x = MakeTensor<float>({1, 4}, {-3.f, -1.f, 0.f, 2.f});
  // Default W = 1, outputs in the order asked for.
  auto out = session->Run(RunOptions{}, {"X"}, {Value(x)}, {"S", "Y"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({1, 4}, {-2.f, 0.f, 1.f, 3.f})), out[0], {0, 0}),
            "");
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({1, 4}, {0.f, 0.f, 1.f, 3.f})), out[1], {0, 0}),
            "");
  // Fed W overrides the initializer for this run only.
  auto overridden =
      session->Run(RunOptions{}, {"W", "X"},
                   {Value(MakeTensor<float>({4}, {10.f, 10.f, 10.f, 10.f})), Value(x)}, {"Y"});
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({1, 4}, {7.f, 9.f, 10.f, 12.f})), overridden[0],
                          {0, 0}),
            "");
  auto again = session->Run(RunOptions{}, {"X"}, {Value(x)}, {"Y"});
  EXPECT_EQ(CompareValues(out[1], again[0], {0, 0}), "");
}

TEST(ExecutorTest, SessionStateErrors) {
  InferenceSession empty;
  PRISM_EXPECT_ERROR(CaptureError([&] { empty.Run(RunOptions{}, {}, {}, {}); }), kNoModel,
                     "the session has no model loaded");
  auto session = MakeSession(ReluChain(1, {1}), {});
  const std::string bytes = Serialize(ReluChain(1, {1}));
  PRISM_EXPECT_ERROR(CaptureError([&] { session->Load(bytes.data(), bytes.size()); }), kModelLoaded,
                     "a model is already loaded in this session");
}

TEST(ExecutorTest, TerminateBeforeRunStops) {
  auto session = MakeSession(ReluChain(3, {2}), {});
  std::atomic<bool> terminate{true};
  RunOptions options;
  options.terminate = &terminate;
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        session->Run(options, {"X"}, {Value(MakeTensor<float>({2}, {1.f, 2.f}))}, {});
      }),
      kFail, "the run was terminated (RunOptions.terminate)");
  terminate = false;  // the same options run normally once cleared
  auto out = session->Run(options, {"X"}, {Value(MakeTensor<float>({2}, {-1.f, 2.f}))}, {});
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {0.f, 2.f})), out[0], {0, 0}), "");
}

// X [n, n] multiplied by W (0.5 * identity) `count` times: slow enough to interrupt.
onnx::ModelProto MatMulChain(int count, int64_t n) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {n, n});
  std::vector<float> w(static_cast<size_t>(n * n), 0.f);
  for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i * n + i)] = 0.5f;
  AddFloatInitializer(graph, "W", {n, n}, w);
  std::string previous = "X";
  for (int i = 0; i < count; ++i) {
    const std::string out = i + 1 == count ? "Y" : "m" + std::to_string(i);
    AddNode(graph, "MatMul", {previous, "W"}, {out}, "matmul" + std::to_string(i));
    previous = out;
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(ExecutorTest, TerminateFromAnotherThreadStopsARunningRun) {
  constexpr int kCount = 60;
  constexpr int64_t kN = 256;
  auto session = MakeSession(MatMulChain(kCount, kN), {TestEp("MatMul")});
  CounterFn live = LiveAllocations();
  ASSERT_NE(live, nullptr);
  const int64_t before = live();
  const Tensor x = MakeTensor<float>({kN, kN}, std::vector<float>(kN * kN, 1.f));

  const auto start = std::chrono::steady_clock::now();
  RunFloat(*session, {"X"}, {x});
  const auto full = std::chrono::steady_clock::now() - start;

  std::atomic<bool> terminate{false};
  RunOptions options;
  options.terminate = &terminate;
  std::thread stopper([&] {
    std::this_thread::sleep_for(full / 5);
    terminate = true;
  });
  // The flag is set a fifth of the way through: only a check between nodes can see it.
  const Status status = CaptureError([&] { session->Run(options, {"X"}, {Value(x)}, {}); });
  stopper.join();
  PRISM_EXPECT_ERROR(status, kFail, "the run was terminated (RunOptions.terminate)");
  EXPECT_EQ(live(), before) << "a terminated run leaked device buffers";
}

}  // namespace
}  // namespace prism::testing

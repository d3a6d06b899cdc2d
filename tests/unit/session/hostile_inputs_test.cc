// Hostile models and feeds at the session level (docs/security.md). The limits a session puts
// on what a model may make it allocate:
// session.max_tensor_bytes (per tensor: declared at load, computed at run time) and
// session.max_memory_bytes (the session's allocations at once), the maximum rank, and the time
// a run may take (session.run_timeout_ms; RunOptions.terminate inside a Loop).
#include <atomic>
#include <chrono>
#include <climits>
#include <thread>

#include <gtest/gtest.h>

#include "op_tester.h"
#include "session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

SessionOptions Limited(const std::string& max_tensor_bytes, const std::string& max_memory_bytes,
                       bool arena = false) {
  SessionOptions options;
  options.enable_cpu_mem_arena = arena;
  options.enable_mem_pattern = false;
  if (!max_tensor_bytes.empty())
    options.config_entries["session.max_tensor_bytes"] = max_tensor_bytes;
  if (!max_memory_bytes.empty())
    options.config_entries["session.max_memory_bytes"] = max_memory_bytes;
  return options;
}

Status LoadError(const onnx::ModelProto& model, SessionOptions options) {
  const std::string bytes = Serialize(model);
  return CaptureError([&] {
    InferenceSession session(std::move(options));
    session.Load(bytes.data(), bytes.size());
  });
}

// Expand(X, S) -> Y: the output's size is the shape fed as S.
onnx::ModelProto ExpandModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  AddInput(graph, "S", TensorProto::INT64, {1});
  AddNode(graph, "Expand", {"X", "S"}, {"Y"}, "grow");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

// Two outputs of X's size: Relu(X) and Neg(X).
onnx::ModelProto TwoOutputsModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n"});
  AddNode(graph, "Relu", {"X"}, {"A"}, "first");
  AddNode(graph, "Neg", {"X"}, {"B"}, "second");
  AddOutput(graph, "A", TensorProto::FLOAT);
  AddOutput(graph, "B", TensorProto::FLOAT);
  return model;
}

std::vector<Value> RunExpand(const InferenceSession& session, int64_t size) {
  return session.Run(
      RunOptions{}, {"X", "S"},
      {Value(MakeTensor<float>({1}, {2.f})), Value(MakeTensor<int64_t>({1}, {size}))}, {});
}

TEST(ResourceLimitsTest, ComputedTensorOverTheLimitFailsNamingNodeAndOutput) {
  for (bool arena : {false, true}) {
    SCOPED_TRACE(arena ? "arena" : "no arena");
    auto session = MakeSession(ExpandModel(), {}, Limited("4096", "", arena));
    EXPECT_EQ(RunExpand(*session, 1024)[0].GetTensor().NumElements(), 1024);  // 4096 bytes: fits
    PRISM_EXPECT_ERROR(
        CaptureError([&] { RunExpand(*session, 1025); }), kRuntimeException,
        "Expand node 'grow' (CPUExecutionProvider) failed: output 0 'Y' of shape [1025] (float) "
        "needs 4100 bytes, more than the session's limit of 4096 bytes per tensor "
        "(session.max_tensor_bytes)");
    // A hostile size never reaches the allocator.
    PRISM_EXPECT_ERROR(CaptureError([&] { RunExpand(*session, int64_t{1} << 40); }),
                       kRuntimeException, "of shape [1099511627776] (float) needs 4398046511104");
  }
}

TEST(ResourceLimitsTest, KernelScratchIsNotAllocatedBeforeTheCheckedOutput) {
  // Found by the model fuzzer: HannWindow filled a std::vector<double> of `size` elements before
  // asking for its output, so size INT32_MAX took 16 GiB past every limit.
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "N", TensorProto::INT32, std::vector<DimSpec>{});
  AddNode(graph, "HannWindow", {"N"}, {"W"}, "window");
  AddOutput(graph, "W", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, Limited("16777216", ""));
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        session->Run(RunOptions{}, {"N"}, {Value(MakeTensor<int32_t>({}, {INT32_MAX}))}, {});
      }),
      kRuntimeException,
      "HannWindow node 'window' (CPUExecutionProvider) failed: output 0 'W' of shape "
      "[2147483647] (float) needs 8589934588 bytes, more than the session's limit of 16777216 "
      "bytes per tensor (session.max_tensor_bytes)");
}

TEST(ResourceLimitsTest, MelWeightMatrixScratchIsNotAllocatedBeforeTheCheckedOutput) {
  // Found by CI's fuzz smoke: MelWeightMatrix filled a vector of num_mel_bins + 2 bin edges (and
  // then the double matrix) before asking for its output: INT32_MAX bins took 16 GiB.
  onnx::ModelProto model = MakeModel(17);
  auto* graph = model.mutable_graph();
  AddInput(graph, "bins", TensorProto::INT64, std::vector<DimSpec>{});
  AddInput(graph, "dft", TensorProto::INT64, std::vector<DimSpec>{});
  AddInput(graph, "rate", TensorProto::INT64, std::vector<DimSpec>{});
  AddInput(graph, "low", TensorProto::FLOAT, std::vector<DimSpec>{});
  AddInput(graph, "high", TensorProto::FLOAT, std::vector<DimSpec>{});
  AddNode(graph, "MelWeightMatrix", {"bins", "dft", "rate", "low", "high"}, {"M"}, "mel");
  AddOutput(graph, "M", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, Limited("16777216", ""));
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        session->Run(RunOptions{}, {"bins", "dft", "rate", "low", "high"},
                     {Value(MakeTensor<int64_t>({}, {INT32_MAX})),
                      Value(MakeTensor<int64_t>({}, {16})), Value(MakeTensor<int64_t>({}, {1000})),
                      Value(MakeTensor<float>({}, {0.0f})), Value(MakeTensor<float>({}, {500.0f}))},
                     {});
      }),
      kRuntimeException,
      "MelWeightMatrix node 'mel' (CPUExecutionProvider) failed: output 0 'M' of shape "
      "[9,2147483647] (float) needs 77309411292 bytes, more than the session's limit of 16777216 "
      "bytes per tensor (session.max_tensor_bytes)");
}

TEST(ResourceLimitsTest, ConstantFoldingStaysWithinTheTensorLimit) {
  // ConstantOfShape(a constant [2^28]) is foldable at session creation: with the limit it is left
  // unfolded, and its run fails naming the node, instead of 1 GiB being filled while loading.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  auto* shape = graph->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(TensorProto::INT64);
  shape->add_dims(1);
  shape->add_int64_data(int64_t{1} << 28);
  AddNode(graph, "ConstantOfShape", {"shape"}, {"C"}, "fill");
  AddNode(graph, "Add", {"C", "X"}, {"Y"}, "add");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, Limited("16777216", ""));
  PRISM_EXPECT_ERROR(
      CaptureError(
          [&] { session->Run(RunOptions{}, {"X"}, {Value(MakeTensor<float>({1}, {1.f}))}, {}); }),
      kRuntimeException,
      "ConstantOfShape node 'fill' (CPUExecutionProvider) failed: output 0 'C' of shape "
      "[268435456] (float) needs 1073741824 bytes, more than the session's limit");
}

TEST(ResourceLimitsTest, SessionAllocationsOverTheMemoryLimitFail) {
  // Each output alone fits; both at once do not.
  auto session = MakeSession(TwoOutputsModel(), {}, Limited("", "6000"));
  std::vector<float> small(500, 1.f);
  auto out = session->Run(RunOptions{}, {"X"}, {Value(MakeTensor<float>({500}, small))}, {});
  EXPECT_EQ(out.size(), 2u);
  out.clear();
  std::vector<float> large(1000, 1.f);
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        session->Run(RunOptions{}, {"X"}, {Value(MakeTensor<float>({1000}, large))}, {});
      }),
      kRuntimeException,
      "Neg node 'second' (CPUExecutionProvider) failed: an allocation of 4000 bytes in Cpu:0 "
      "memory would bring the session's allocations there to 8000 bytes, over its limit of 6000 "
      "bytes (session.max_memory_bytes)");
  // Nothing was kept: the next run within the limit passes.
  EXPECT_EQ(session->Run(RunOptions{}, {"X"}, {Value(MakeTensor<float>({500}, small))}, {}).size(),
            2u);
}

TEST(ResourceLimitsTest, ArenaHonoursTheMemoryLimit) {
  auto session = MakeSession(TwoOutputsModel(), {}, Limited("", "6000", /*arena=*/true));
  std::vector<float> large(1000, 1.f);
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        session->Run(RunOptions{}, {"X"}, {Value(MakeTensor<float>({1000}, large))}, {});
      }),
      kRuntimeException,
      "arena is limited to 6000 bytes (session.arena_max_mem, session.max_memory_bytes)");
}

TEST(ResourceLimitsTest, InitializerOverTheLimitIsRefusedAtLoad) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddFloatInitializer(graph, "W", {2, 4}, std::vector<float>(8, 1.f));
  AddNode(graph, "Identity", {"W"}, {"Y"}, "id");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model, Limited("16", "")), kRuntimeException,
                     "initializer 'W' of graph main: shape [2,4] of float needs 32 bytes, more "
                     "than the limit of 16 bytes per tensor (session.max_tensor_bytes)");
  auto session = MakeSession(model, {}, Limited("32", ""));  // at the limit: loads
  EXPECT_EQ(session->Run(RunOptions{}, {}, {}, {})[0].GetTensor().NumElements(), 8);
}

TEST(ResourceLimitsTest, SparseInitializerIsCheckedBeforeItIsDensified) {
  // Two values declared as a 2^40-element dense tensor: the dense form would take 4 TiB.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  auto* sparse = graph->add_sparse_initializer();
  sparse->add_dims(int64_t{1} << 40);
  auto* values = sparse->mutable_values();
  values->set_name("S");
  values->set_data_type(TensorProto::FLOAT);
  values->add_dims(2);
  values->add_float_data(1.f);
  values->add_float_data(2.f);
  auto* indices = sparse->mutable_indices();
  indices->set_data_type(TensorProto::INT64);
  indices->add_dims(2);
  indices->add_int64_data(0);
  indices->add_int64_data(7);
  AddNode(graph, "Identity", {"S"}, {"Y"}, "id");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model, Limited("1048576", "")), kRuntimeException,
                     "sparse initializer 'S' of graph main: shape [1099511627776] of float needs "
                     "4398046511104 bytes, more than the limit of 1048576 bytes per tensor "
                     "(session.max_tensor_bytes)");
  // Without a limit, a dense size past the address space is still refused before allocating.
  sparse->set_dims(0, int64_t{1} << 62);
  PRISM_EXPECT_ERROR(LoadError(model, SessionOptions{}), kInvalidGraph,
                     "sparse initializer 'S' of graph main: tensor of 4611686018427387904 float "
                     "elements overflows the address space");
}

TEST(ResourceLimitsTest, ConstantValueOverTheLimitIsRefusedAtLoad) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  auto* node = AddNode(graph, "Constant", {}, {"Y"}, "const");
  auto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->set_data_type(TensorProto::INT64);
  attr->mutable_t()->add_dims(4);
  for (int i = 0; i < 4; ++i) attr->mutable_t()->add_int64_data(i);
  AddOutput(graph, "Y", TensorProto::INT64);
  PRISM_EXPECT_ERROR(LoadError(model, Limited("31", "")), kRuntimeException,
                     "Constant node 'const' attribute 'value': shape [4] of int64 needs 32 "
                     "bytes, more than the limit of 31 bytes per tensor");
}

TEST(ResourceLimitsTest, MalformedLimitEntriesAreRefusedAtCreation) {
  for (const char* key : {"session.max_tensor_bytes", "session.max_memory_bytes"}) {
    for (const char* value : {"lots", "-1", "", "1e9", " 12"}) {
      SessionOptions options;
      options.config_entries[key] = value;
      PRISM_EXPECT_ERROR(
          LoadError(ExpandModel(), options), kInvalidArgument,
          MakeString("session config entry ", key, " must be a byte count, got '", value, "'"));
    }
  }
}

TEST(ResourceLimitsTest, ComputedRankOverTheMaximumFailsNamingTheNode) {
  // Reshape to a shape of 65 ones: a rank no tensor may have.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  AddInput(graph, "S", TensorProto::INT64, {"rank"});
  AddNode(graph, "Reshape", {"X", "S"}, {"Y"}, "deep");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  auto run = [&](int64_t rank) {
    return session->Run(
        RunOptions{}, {"X", "S"},
        {Value(MakeTensor<float>({1}, {3.f})),
         Value(MakeTensor<int64_t>({rank}, std::vector<int64_t>(static_cast<size_t>(rank), 1)))},
        {});
  };
  EXPECT_EQ(run(64)[0].GetTensor().Shape().Rank(), 64u);
  PRISM_EXPECT_ERROR(CaptureError([&] { run(65); }), kInvalidArgument,
                     "a shape of rank 65 exceeds the maximum rank 64");
  PRISM_EXPECT_ERROR(CaptureError([&] { run(65); }), kInvalidArgument, "Reshape node 'deep'");
}

// Loop(M, C, X) whose body hands cond and X straight back: no step at all, so with M = -1 and
// C true it never ends by itself (a valid model: the spec leaves the trip count to the data).
onnx::ModelProto EndlessLoopModel() {
  onnx::ModelProto model = MakeModel(16);
  auto* graph = model.mutable_graph();
  AddInput(graph, "M", TensorProto::INT64, std::vector<DimSpec>{});
  AddInput(graph, "C", TensorProto::BOOL, std::vector<DimSpec>{});
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  auto* loop = AddNode(graph, "Loop", {"M", "C", "X"}, {"Y"}, "loop");
  auto* body = AddGraphAttr(loop, "body");
  AddInput(body, "i", TensorProto::INT64, std::vector<DimSpec>{});
  AddInput(body, "c", TensorProto::BOOL, std::vector<DimSpec>{});
  AddInput(body, "x", TensorProto::FLOAT, {1});
  AddOutput(body, "c", TensorProto::BOOL);
  AddOutput(body, "x", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

std::vector<Value> RunLoop(const InferenceSession& session, int64_t trips, bool cond,
                           const RunOptions& options = {}) {
  return session.Run(options, {"M", "C", "X"},
                     {Value(MakeTensor<int64_t>({}, {trips})), Value(MakeTensor<bool>({}, {cond})),
                      Value(MakeTensor<float>({1}, {5.f}))},
                     {});
}

TEST(ResourceLimitsTest, RunOverTheTimeLimitStopsInsideALoop) {
  SessionOptions options;
  options.config_entries["session.run_timeout_ms"] = "200";
  auto session = MakeSession(EndlessLoopModel(), {}, options);
  EXPECT_EQ(RunLoop(*session, 1000, true)[0].GetTensor().Data<float>()[0], 5.f);
  const auto start = std::chrono::steady_clock::now();
  PRISM_EXPECT_ERROR(CaptureError([&] { RunLoop(*session, -1, true); }), kFail,
                     "the run took longer than the session's limit of 200 ms "
                     "(session.run_timeout_ms); stopped at the start of graph main/loop:body");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // The limit is per run: the next one has its own 200 ms.
  EXPECT_EQ(RunLoop(*session, -1, false)[0].GetTensor().Data<float>()[0], 5.f);

  for (const char* value : {"soon", "-5", ""}) {
    SessionOptions bad;
    bad.config_entries["session.run_timeout_ms"] = value;
    PRISM_EXPECT_ERROR(LoadError(EndlessLoopModel(), bad), kInvalidArgument,
                       MakeString("session config entry session.run_timeout_ms must be a number "
                                  "of milliseconds, got '",
                                  value, "'"));
  }
}

TEST(ResourceLimitsTest, TerminateStopsALoopWhoseBodyHasNoStep) {
  // Found by the model fuzzer: terminate was checked only before steps, and this body has none.
  auto session = MakeSession(EndlessLoopModel(), {});
  std::atomic<bool> terminate{false};
  RunOptions options;
  options.terminate = &terminate;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    terminate = true;
  });
  const Status status = CaptureError([&] { RunLoop(*session, -1, true, options); });
  stopper.join();
  PRISM_EXPECT_ERROR(status, kFail, "the run was terminated (RunOptions.terminate)");
}

TEST(HostileFeedTest, BoolFeedBytesOtherThanZeroOrOneAreRefused) {
  // Found by the tensor_proto fuzzer for initializers; a feed wrapping caller memory is the
  // same bytes from another side.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "B", TensorProto::BOOL, {3});
  AddNode(graph, "Not", {"B"}, {"Y"}, "not");
  AddOutput(graph, "Y", TensorProto::BOOL);
  auto session = MakeSession(model, {});
  uint8_t bytes[3] = {1, 0, 2};
  Tensor wrapped(ElementType::kBool, TensorShape({3}), bytes, CpuMemoryInfo());
  PRISM_EXPECT_ERROR(CaptureError([&] { session->Run(RunOptions{}, {"B"}, {Value(wrapped)}, {}); }),
                     kInvalidArgument,
                     "input 'B' holds byte 2 at element 2; bool elements must be 0 or 1");
  bytes[2] = 1;
  const auto out = session->Run(RunOptions{}, {"B"}, {Value(wrapped)}, {});
  EXPECT_EQ(out[0].GetTensor().Data<bool>()[1], true);
}

}  // namespace
}  // namespace prism::testing

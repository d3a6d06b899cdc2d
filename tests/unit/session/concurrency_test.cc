// One session, several threads running different inputs at once. Checks that the runs really
// overlap in time and that every result equals a serial run of the same input. Meant to run
// under ThreadSanitizer too (see docs/testing.md).
#include <chrono>
#include <fstream>
#include <iterator>
#include <latch>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;
using Clock = std::chrono::steady_clock;

constexpr int64_t kN = 256;
constexpr int kThreads = 4;
constexpr int kRunsPerThread = 3;

std::vector<float> RandomValues(size_t count, uint32_t seed, float scale) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> values(count);
  for (float& v : values) v = dist(random);
  return values;
}

// Y = MatMul(Relu(MatMul(Relu(MatMul(X, W1) + B1), W2) + B2), W3), all [256, 256].
onnx::ModelProto MlpModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", kN});
  const size_t square = static_cast<size_t>(kN * kN);
  for (int layer = 1; layer <= 3; ++layer) {
    const std::string l = std::to_string(layer);
    AddFloatInitializer(graph, "W" + l, {kN, kN}, RandomValues(square, 100 + layer, 0.1f));
    AddFloatInitializer(graph, "B" + l, {kN}, RandomValues(kN, 200 + layer, 0.5f));
  }
  AddNode(graph, "MatMul", {"X", "W1"}, {"m1"}, "matmul1");
  AddNode(graph, "Add", {"m1", "B1"}, {"a1"}, "add1");
  AddNode(graph, "Relu", {"a1"}, {"r1"}, "relu1");
  AddNode(graph, "MatMul", {"r1", "W2"}, {"m2"}, "matmul2");
  AddNode(graph, "Add", {"m2", "B2"}, {"a2"}, "add2");
  AddNode(graph, "Relu", {"a2"}, {"r2"}, "relu2");
  AddNode(graph, "MatMul", {"r2", "W3"}, {"Y"}, "matmul3");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

Tensor InputFor(int thread, int run) {
  return MakeTensor<float>({kN, kN},
                           RandomValues(static_cast<size_t>(kN * kN),
                                        static_cast<uint32_t>(1000 + thread * 100 + run), 1.f));
}

struct RunRecord {
  int thread = 0;
  Clock::time_point start;
  Clock::time_point end;
  Value output;
  std::string error;
};

// Runs kThreads x kRunsPerThread inputs concurrently; `during` runs on the calling thread while
// the workers are busy.
std::vector<RunRecord> RunConcurrently(const InferenceSession& session,
                                       const std::function<void()>& during = {}) {
  std::vector<RunRecord> records(kThreads * kRunsPerThread);
  std::latch start_line(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> inputs;
      for (int r = 0; r < kRunsPerThread; ++r) inputs.push_back(InputFor(t, r));
      start_line.arrive_and_wait();
      for (int r = 0; r < kRunsPerThread; ++r) {
        RunRecord& record = records[t * kRunsPerThread + r];
        record.thread = t;
        record.start = Clock::now();
        try {
          record.output = session.Run(RunOptions{}, {"X"}, {Value(inputs[r])}, {}).at(0);
        } catch (const std::exception& e) {
          record.error = e.what();
        }
        record.end = Clock::now();
      }
    });
  }
  start_line.arrive_and_wait();
  if (during) during();
  for (auto& thread : threads) thread.join();
  return records;
}

std::vector<Value> SerialReference(const InferenceSession& session) {
  std::vector<Value> expected;
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRunsPerThread; ++r)
      expected.push_back(session.Run(RunOptions{}, {"X"}, {Value(InputFor(t, r))}, {}).at(0));
  return expected;
}

// Some pair of runs from different threads was in flight at the same time.
bool SomeRunsOverlap(const std::vector<RunRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i)
    for (size_t j = i + 1; j < records.size(); ++j)
      if (records[i].thread != records[j].thread && records[i].start < records[j].end &&
          records[j].start < records[i].end)
        return true;
  return false;
}

void CheckAgainstSerial(const std::vector<RunRecord>& records, const std::vector<Value>& expected) {
  ASSERT_EQ(records.size(), expected.size());
  for (size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(records[i].error, "");
    // Same kernels, same input: bit-identical to the serial run.
    EXPECT_EQ(CompareValues(expected[i], records[i].output, {0, 0}), "");
  }
  EXPECT_TRUE(SomeRunsOverlap(records)) << "no two runs overlapped in time";
}

TEST(ConcurrencyTest, CpuRunsOverlapAndMatchSerialRuns) {
  auto session = MakeSession(MlpModel(), {});
  const std::vector<Value> expected = SerialReference(*session);
  CheckAgainstSerial(RunConcurrently(*session), expected);
}

TEST(ConcurrencyTest, TestEpRunsOverlapAndMatchSerialRuns) {
  // MatMul on the CPU, Add/Relu on the test EP: every run copies both ways.
  auto session = MakeSession(MlpModel(), {TestEp("Add,Relu")});
  // m1, B1 in; r1 out; m2, B2 in; r2 out.
  EXPECT_EQ(session->Report().copies.size(), 6u);
  const std::vector<Value> expected = SerialReference(*session);
  auto live = TestEpSymbol<CounterFn>("PrismTestEpLiveAllocations");
  ASSERT_NE(live, nullptr);
  const int64_t before = live();
  CheckAgainstSerial(RunConcurrently(*session), expected);
  EXPECT_EQ(live(), before) << "concurrent runs leaked device buffers";

  auto cpu = MakeSession(MlpModel(), {});
  const std::vector<Value> cpu_expected = SerialReference(*cpu);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(CompareValues(cpu_expected[i], expected[i], {0, 0}), "") << i;
}

TEST(ConcurrencyTest, ProfiledRunsOverlapAndMatchSerialRuns) {
  // Profiling records events from every running thread into one profiler.
  SessionOptions options;
  options.enable_profiling = true;
  auto session = MakeSession(MlpModel(), {TestEp("Add,Relu")}, options);
  const std::vector<Value> expected = SerialReference(*session);
  CheckAgainstSerial(RunConcurrently(*session), expected);
  EXPECT_EQ(session->Statistics().runs, 2 * kThreads * kRunsPerThread);
  TempDir dir;
  const std::string path = session->EndProfiling(dir.File("trace.json"));
  std::ifstream file(path);
  const std::string trace((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  size_t runs = 0;
  for (size_t at = trace.find("\"model_run\""); at != std::string::npos;
       at = trace.find("\"model_run\"", at + 1))
    ++runs;
  EXPECT_EQ(runs, static_cast<size_t>(2 * kThreads * kRunsPerThread));
}

TEST(ConcurrencyTest, SetProvidersWhileRunning) {
  // Runs keep the state they started with; SetProviders swaps in a new one for later runs.
  auto session = MakeSession(MlpModel(), {});
  const std::vector<Value> expected = SerialReference(*session);
  auto records = RunConcurrently(*session, [&] {
    for (int i = 0; i < 3; ++i) {
      session->SetProviders({TestEp("Add,Relu")});
      session->SetProviders({});
    }
    session->SetProviders({TestEp("Relu")});
  });
  CheckAgainstSerial(records, expected);
  EXPECT_EQ(session->Providers(),
            (std::vector<std::string>{"TestExecutionProvider", "CPUExecutionProvider"}));
}

}  // namespace
}  // namespace prism::testing

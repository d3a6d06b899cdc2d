// One session, several threads running different inputs at once. Checks that the runs really
// execute kernels at the same time (a RunProbe kernel that every run of a round must be inside
// together, see run_probe.h), and that every result matches onnxruntime's output for that input
// and is bit-identical to a serial run of the same session. The model, the inputs and
// onnxruntime's outputs come from make_concurrency_data.py, run at build time. Meant to run
// under ThreadSanitizer too (see docs/testing.md).
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <latch>
#include <mutex>
#include <optional>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/tensor_proto.h"
#include "run_probe.h"
#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// make_concurrency_data.py writes kThreads * kRunsPerThread cases.
constexpr int kThreads = 4;
constexpr int kRunsPerThread = 3;
// Correct runs meet in the probe within milliseconds; this only bounds how long a broken
// session takes to fail (ThreadSanitizer and a busy machine make runs many times slower).
constexpr std::chrono::milliseconds kRendezvousTimeout = 10s;
// Prism's Eigen GEMM and onnxruntime's MLAS may sum in different orders (here they agree to the
// last bit, but a different build or CPU need not).
constexpr Tolerance kVsOnnxruntime{1e-5, 1e-4};

struct Case {
  Tensor input;     // X [batch, 256]; the batch differs per case
  Tensor expected;  // onnxruntime's Y
};

struct ConcurrencyData {
  onnx::ModelProto model;
  std::vector<Case> cases;  // case thread * kRunsPerThread + run
};

std::string DataDir() {
  return PRISM_CONCURRENCY_DATA_DIR;
}

std::ifstream OpenData(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  PRISM_ENFORCE(file.good(), kNoSuchFile, path,
                " is missing: build the prism_concurrency_test_data target (it runs "
                "tests/unit/session/make_concurrency_data.py with the .venv's onnxruntime)");
  return file;
}

Tensor LoadTensor(const std::string& path) {
  std::ifstream file = OpenData(path);
  onnx::TensorProto proto;
  PRISM_ENFORCE(proto.ParseFromIstream(&file), kInvalidProtobuf, "cannot parse ", path);
  return TensorFromProto(proto, ExternalDataPolicy{}, path);
}

const ConcurrencyData& Data() {
  static const ConcurrencyData data = [] {
    ConcurrencyData loaded;
    std::ifstream model = OpenData(DataDir() + "/model.onnx");
    PRISM_ENFORCE(loaded.model.ParseFromIstream(&model), kInvalidProtobuf, "cannot parse ",
                  DataDir(), "/model.onnx");
    for (int i = 0; i < kThreads * kRunsPerThread; ++i) {
      const std::string folder = DataDir() + "/test_data_set_" + std::to_string(i);
      loaded.cases.push_back(
          {LoadTensor(folder + "/input_0.pb"), LoadTensor(folder + "/output_0.pb")});
    }
    return loaded;
  }();
  return data;
}

// The MLP with the probe on its input, ahead of every real kernel. There the rendezvous orders
// only work of different rounds (for ThreadSanitizer, see RunsWithoutRendezvous...): all the
// kernels of one round run unsynchronized between the threads.
onnx::ModelProto ProbedMlp() {
  return WithRunProbe(Data().model, "X");
}

// How a worker thread calls the session.
using RunFn = std::function<Value(const InferenceSession&, const Tensor&)>;

Value DirectRun(const InferenceSession& session, const Tensor& input) {
  return session.Run(RunOptions{}, {"X"}, {Value(input)}, {}).at(0);
}

// A planted fault for the self-test: a session whose Run is serialized behind one global lock.
Value GloballyLockedRun(const InferenceSession& session, const Tensor& input) {
  static std::mutex global_lock;
  std::lock_guard<std::mutex> lock(global_lock);
  return DirectRun(session, input);
}

struct RunRecord {
  int thread = 0;
  Clock::time_point start;  // taken around the RunFn, outside the session
  Clock::time_point end;
  Value output;
  std::string error;
};

struct ConcurrentRuns {
  std::vector<RunRecord> records;  // by case
  std::string verdict;             // the rendezvous': "" when the runs overlapped in kernels
  int64_t rounds = 0;              // rounds in which every thread was inside the probe
  int most_inside = 0;
};

struct Workers {
  RunFn run = DirectRun;
  // How long the probe waits for a round to fill up; 0: no rendezvous, the probe passes through.
  std::chrono::milliseconds rendezvous = kRendezvousTimeout;
  std::function<void()> during;  // runs on the calling thread while the workers are busy
};

// Runs every case, kThreads threads with kRunsPerThread runs each.
ConcurrentRuns RunConcurrently(const InferenceSession& session, const Workers& workers = {}) {
  ConcurrentRuns runs;
  runs.records.resize(kThreads * kRunsPerThread);
  RunRendezvous rendezvous(kThreads, workers.rendezvous);
  std::optional<ScopedRunProbe> probe;
  if (workers.rendezvous > 0ms) probe.emplace(rendezvous);
  std::latch start_line(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start_line.arrive_and_wait();
      for (int r = 0; r < kRunsPerThread; ++r) {
        const int index = t * kRunsPerThread + r;
        RunRecord& record = runs.records[index];
        record.thread = t;
        record.start = Clock::now();
        try {
          record.output = workers.run(session, Data().cases[index].input);
        } catch (const std::exception& e) {
          record.error = e.what();
        }
        record.end = Clock::now();
      }
    });
  }
  start_line.arrive_and_wait();
  if (workers.during) workers.during();
  for (auto& thread : threads) thread.join();
  runs.verdict = rendezvous.Verdict();
  runs.rounds = rendezvous.CompletedRounds();
  runs.most_inside = rendezvous.MostInsideAtOnce();
  return runs;
}

// Every case, one after the other (no rendezvous installed: the probe passes through).
std::vector<Value> SerialRuns(const InferenceSession& session) {
  std::vector<Value> outputs;
  for (const Case& c : Data().cases) outputs.push_back(DirectRun(session, c.input));
  return outputs;
}

// The check this test used to make: some pair of runs from different threads was in flight at
// the same time by timestamps taken around Run. Blind to a serialized session, whose waiting
// callers count as in flight; kept to show that in the self-test.
bool OverlapByTimestampsAroundRun(const std::vector<RunRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i)
    for (size_t j = i + 1; j < records.size(); ++j)
      if (records[i].thread != records[j].thread && records[i].start < records[j].end &&
          records[j].start < records[i].end)
        return true;
  return false;
}

void CheckOutputs(const ConcurrentRuns& runs, const std::vector<Value>& serial) {
  ASSERT_EQ(runs.records.size(), Data().cases.size());
  ASSERT_EQ(serial.size(), Data().cases.size());
  for (size_t i = 0; i < runs.records.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    ASSERT_EQ(runs.records[i].error, "");
    EXPECT_EQ(
        CompareValues(Value(Data().cases[i].expected), runs.records[i].output, kVsOnnxruntime), "")
        << "differs from onnxruntime";
    // Same kernels, same input: concurrency must not change a bit.
    EXPECT_EQ(CompareValues(serial[i], runs.records[i].output, {0, 0}), "")
        << "differs from a serial run";
  }
}

void CheckRunsOverlapInKernels(const ConcurrentRuns& runs) {
  EXPECT_EQ(runs.verdict, "");
  EXPECT_EQ(runs.rounds, kRunsPerThread)
      << "rounds in which all threads' runs were inside the RunProbe kernel together";
  EXPECT_EQ(runs.most_inside, kThreads) << "most runs inside the RunProbe kernel at once";
}

TEST(ConcurrencyTest, CpuRunsOverlapInKernelsAndMatchOnnxruntime) {
  auto session = MakeSession(ProbedMlp(), {});
  const std::vector<Value> serial = SerialRuns(*session);
  const ConcurrentRuns runs = RunConcurrently(*session);
  CheckRunsOverlapInKernels(runs);
  CheckOutputs(runs, serial);
}

TEST(ConcurrencyTest, TestEpRunsOverlapInKernelsAndMatchOnnxruntime) {
  // MatMul and the probe on the CPU, Add/Relu on the test EP: every run copies both ways.
  auto session = MakeSession(ProbedMlp(), {TestEp("Add,Relu")});
  // m1, B1 in; r1 out; m2, B2 in; r2 out.
  EXPECT_EQ(session->Report().copies.size(), 6u);
  const std::vector<Value> serial = SerialRuns(*session);
  auto live = TestEpSymbol<CounterFn>("PrismTestEpLiveAllocations");
  ASSERT_NE(live, nullptr);
  const int64_t before = live();
  const ConcurrentRuns runs = RunConcurrently(*session);
  CheckRunsOverlapInKernels(runs);
  CheckOutputs(runs, serial);
  EXPECT_EQ(live(), before) << "concurrent runs leaked device buffers";
}

TEST(ConcurrencyTest, ProfiledRunsOverlapInKernelsAndMatchOnnxruntime) {
  // Profiling records events from every running thread into one profiler.
  SessionOptions options;
  options.enable_profiling = true;
  auto session = MakeSession(ProbedMlp(), {TestEp("Add,Relu")}, options);
  const std::vector<Value> serial = SerialRuns(*session);
  const ConcurrentRuns runs = RunConcurrently(*session);
  CheckRunsOverlapInKernels(runs);
  CheckOutputs(runs, serial);
  EXPECT_EQ(session->Statistics().runs, 2 * kThreads * kRunsPerThread);
  TempDir dir;
  const std::string path = session->EndProfiling(dir.File("trace.json"));
  std::ifstream file(path);
  const std::string trace((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  size_t model_runs = 0;
  for (size_t at = trace.find("\"model_run\""); at != std::string::npos;
       at = trace.find("\"model_run\"", at + 1))
    ++model_runs;
  EXPECT_EQ(model_runs, static_cast<size_t>(2 * kThreads * kRunsPerThread));
}

TEST(ConcurrencyTest, RunsWithoutRendezvousMatchOnnxruntime) {
  // For ThreadSanitizer, which reports only accesses that no synchronization orders: the
  // rendezvous orders each round's work before the next round's in every thread, which could
  // hide a race between runs of different rounds. Here nothing but the session orders them.
  auto session = MakeSession(ProbedMlp(), {TestEp("Add,Relu")});
  const std::vector<Value> serial = SerialRuns(*session);
  Workers unsynchronized;
  unsynchronized.rendezvous = 0ms;
  CheckOutputs(RunConcurrently(*session, unsynchronized), serial);
}

TEST(ConcurrencyTest, SetProvidersWhileRunning) {
  // Runs keep the state they started with; SetProviders swaps in a new one for later runs.
  auto session = MakeSession(ProbedMlp(), {});
  const std::vector<Value> serial = SerialRuns(*session);
  Workers swapping;
  swapping.during = [&] {
    for (int i = 0; i < 3; ++i) {
      session->SetProviders({TestEp("Add,Relu")});
      session->SetProviders({});
    }
    session->SetProviders({TestEp("Relu")});
  };
  const ConcurrentRuns runs = RunConcurrently(*session, swapping);
  CheckRunsOverlapInKernels(runs);
  CheckOutputs(runs, serial);
  EXPECT_EQ(session->Providers(),
            (std::vector<std::string>{"TestExecutionProvider", "CPUExecutionProvider"}));
}

// The detector itself, on a planted fault: Run serialized behind one global mutex. The probe
// reports it (quickly: one short timeout), while timestamps around Run still "overlap".
TEST(ConcurrencyTest, RunProbeReportsGloballyLockedRunsAsSerialized) {
  auto session = MakeSession(ProbedMlp(), {});
  const std::vector<Value> serial = SerialRuns(*session);
  Workers locked;
  locked.run = GloballyLockedRun;
  locked.rendezvous = 300ms;
  const ConcurrentRuns runs = RunConcurrently(*session, locked);
  EXPECT_EQ(runs.verdict,
            "only 1 of 4 concurrent runs were inside a kernel at the same time (round 1, waited "
            "300 ms in the RunProbe kernel): Run calls on one session are serialized");
  EXPECT_EQ(runs.rounds, 0);
  EXPECT_EQ(runs.most_inside, 1);
  EXPECT_TRUE(OverlapByTimestampsAroundRun(runs.records))
      << "the old check was expected to be fooled by the waiting callers";
  CheckOutputs(runs, serial);  // serialized, but still right
}

std::vector<std::string> NodeNames(const onnx::ModelProto& model) {
  std::vector<std::string> names;
  for (const onnx::NodeProto& node : model.graph().node()) names.push_back(node.name());
  return names;
}

TEST(ConcurrencyTest, RunProbeIsSplicedOnItsValue) {
  using ::testing::ElementsAre;
  const onnx::ModelProto on_input = WithRunProbe(Data().model, "X");
  EXPECT_THAT(NodeNames(on_input), ElementsAre("run_probe", "matmul1", "add1", "relu1", "matmul2",
                                               "add2", "relu2", "matmul3"));
  EXPECT_EQ(on_input.graph().node(1).input(0), "X_probed");
  const onnx::ModelProto on_relu = WithRunProbe(Data().model, "r1");
  EXPECT_THAT(NodeNames(on_relu), ElementsAre("matmul1", "add1", "relu1", "run_probe", "matmul2",
                                              "add2", "relu2", "matmul3"));
  EXPECT_EQ(on_relu.graph().node(4).input(0), "r1_probed");
  EXPECT_THROW(WithRunProbe(Data().model, "no_such_value"), Exception);
}

}  // namespace
}  // namespace prism::testing

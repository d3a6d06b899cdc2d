// A process holding sessions that do not run uses (almost) no CPU: the intra-op pools' workers
// sleep instead of spinning.
#include <time.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "common/thread_pool.h"
#include "session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST(IdleSessions, TwoSessionsNotRunningUseUnderOnePercentCpu) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {256, 256});
  AddInput(graph, "W", TensorProto::FLOAT, {256, 256});
  AddNode(graph, "MatMul", {"X", "W"}, {"Y"}, "matmul");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  SessionOptions options;
  options.intra_op_num_threads = 4;  // three workers each, whatever the machine
  auto first = MakeSession(model, {}, options);
  auto second = MakeSession(model, {}, options);
  std::vector<float> ones(256 * 256, 1.0f);
  for (const auto* session : {first.get(), second.get()}) {
    const auto out =
        RunFloat(*session, {"X", "W"},
                 {MakeTensor<float>({256, 256}, ones), MakeTensor<float>({256, 256}, ones)});
    EXPECT_EQ(out[0].GetTensor().Data<float>()[0], 256.0f);  // the pools did work
  }
  // Past the pools' polling time after a run (ThreadPool::kDefaultSpinMicroseconds) every
  // worker must be asleep.
  std::this_thread::sleep_for(std::chrono::microseconds(ThreadPool::kDefaultSpinMicroseconds) +
                              std::chrono::milliseconds(20));
  const double before = ProcessCpuSeconds();
  const auto wall_start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double used = ProcessCpuSeconds() - before;
  EXPECT_LT(used, 0.01 * wall) << "idle sessions used " << used << " s of CPU in " << wall << " s";
}

}  // namespace
}  // namespace prism::testing

// execution_mode parallel: independent branches run at once on the inter-op pool, results match
// the sequential run, every intermediate is released, and failures surface without hanging.
#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "session/profiler.h"
#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr int64_t kSide = 192;

// Y = MatMul(Relu(MatMul(X, A)), B) + MatMul(Sigmoid(MatMul(X, B)), A): two branches that only
// meet at the final Add.
onnx::ModelProto TwoBranchModel(int64_t side = kSide) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {side, side});
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(-0.1f, 0.1f);
  for (const char* name : {"A", "B"}) {
    std::vector<float> values(static_cast<size_t>(side * side));
    for (float& v : values) v = uniform(random);
    AddFloatInitializer(graph, name, {side, side}, values);
  }
  AddNode(graph, "MatMul", {"X", "A"}, {"l1"}, "left_matmul1");
  AddNode(graph, "Relu", {"l1"}, {"l2"}, "left_relu");
  AddNode(graph, "MatMul", {"l2", "B"}, {"l3"}, "left_matmul2");
  AddNode(graph, "MatMul", {"X", "B"}, {"r1"}, "right_matmul1");
  AddNode(graph, "Sigmoid", {"r1"}, {"r2"}, "right_sigmoid");
  AddNode(graph, "MatMul", {"r2", "A"}, {"r3"}, "right_matmul2");
  AddNode(graph, "Add", {"l3", "r3"}, {"Y"}, "join");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

Tensor Input(unsigned seed, int64_t side = kSide) {
  Tensor x(ElementType::kFloat, TensorShape({side, side}), GetCpuAllocator());
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.MutableData<float>()[i] = uniform(random);
  return x;
}

SessionOptions Parallel() {
  SessionOptions options;
  options.execution_mode = ExecutionMode::kParallel;
  options.inter_op_num_threads = 2;
  options.intra_op_num_threads = 1;
  return options;
}

TEST(ParallelExecution, MatchesSequentialAndReleasesEverything) {
  SessionOptions sequential_options;
  sequential_options.intra_op_num_threads = 1;
  auto sequential = MakeSession(TwoBranchModel(), {}, sequential_options);
  auto parallel = MakeSession(TwoBranchModel(), {}, Parallel());
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Tensor x = Input(seed);
    const std::vector<Value> expected = RunFloat(*sequential, {"X"}, {x});
    std::vector<Value> got = RunFloat(*parallel, {"X"}, {x});
    // The same kernels on the same data: bit-identical, whatever the order.
    EXPECT_EQ(CompareValues(expected[0], got[0], Tolerance(0, 0)), "") << "seed " << seed;
  }
  // Each value is released when its last reader finishes: at most two values per branch are
  // alive at once (a node's input and output), so four buffers at the peak; keeping them all
  // until the run ends would take seven (six intermediates and Y).
  const int64_t buffer = kSide * kSide * 4;
  for (const NamedAllocatorStats& named : parallel->AllocatorStatistics()) {
    if (named.memory.rfind("Cpu", 0) == 0) {
      EXPECT_EQ(named.stats.bytes_in_use, 0);
      EXPECT_LE(named.stats.max_bytes_in_use, 4 * buffer);
    }
  }
}

TEST(ParallelExecution, IndependentBranchesOverlapInTime) {
  SessionOptions options = Parallel();
  options.enable_profiling = true;
  // Branches of several milliseconds, so that the second worker gets a core while the first
  // works even when other processes load the machine.
  constexpr int64_t kLongSide = 384;
  auto session = MakeSession(TwoBranchModel(kLongSide), {}, options);
  const Tensor x = Input(1, kLongSide);
  bool overlapped = false;
  for (int attempt = 0; attempt < 20 && !overlapped; ++attempt) {
    RunFloat(*session, {"X"}, {x});
    std::vector<ProfileEvent> matmuls;
    for (const ProfileEvent& event : session->GetProfiler()->Events())
      if (event.category == "Node" && event.name.find("matmul1") != std::string::npos)
        matmuls.push_back(event);
    // The two first MatMuls of this run, one per branch, both ready at the start.
    ASSERT_GE(matmuls.size(), 2u);
    const ProfileEvent& a = matmuls[matmuls.size() - 2];
    const ProfileEvent& b = matmuls[matmuls.size() - 1];
    overlapped = a.thread_id != b.thread_id && a.start_ns < b.end_ns && b.start_ns < a.end_ns;
  }
  EXPECT_TRUE(overlapped) << "the two branches never ran at the same time in 20 runs";
}

TEST(ParallelExecution, SequentialModeNeverOverlaps) {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  options.inter_op_num_threads = 2;  // ignored (and warned about) when sequential
  options.enable_profiling = true;
  // MatMulAddFusion would make the right branch's last MatMul and the join one Gemm: keep the
  // seven nodes counted below.
  options.disabled_optimizers = {"MatMulAddFusion"};
  auto session = MakeSession(TwoBranchModel(), {}, options);
  RunFloat(*session, {"X"}, {Input(1)});
  std::vector<ProfileEvent> nodes;
  for (const ProfileEvent& event : session->GetProfiler()->Events())
    if (event.category == "Node") nodes.push_back(event);
  ASSERT_EQ(nodes.size(), 7u);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t j = i + 1; j < nodes.size(); ++j)
      EXPECT_FALSE(nodes[i].start_ns < nodes[j].end_ns && nodes[j].start_ns < nodes[i].end_ns)
          << nodes[i].name << " and " << nodes[j].name;
}

TEST(ParallelExecution, AFailingBranchFailsTheRunWithoutHanging) {
  // The right branch's MatMul gets a runtime shape it cannot multiply: X is [k, n] with k != n.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"rows", "cols"});
  AddNode(graph, "Relu", {"X"}, {"l"}, "left_relu");
  AddNode(graph, "MatMul", {"X", "X"}, {"r"}, "right_square");
  AddNode(graph, "Add", {"l", "r"}, {"Y"}, "join");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {}, Parallel());
  Tensor x(ElementType::kFloat, TensorShape({2, 3}), GetCpuAllocator());
  std::fill_n(x.MutableData<float>(), 6, 1.f);
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      RunFloat(*session, {"X"}, {x});
      FAIL() << "the MatMul of [2,3] by [2,3] must fail";
    } catch (const Exception& e) {
      EXPECT_NE(std::string(e.what()).find("right_square"), std::string::npos) << e.what();
    }
  }
  Tensor square(ElementType::kFloat, TensorShape({2, 2}), GetCpuAllocator());
  std::fill_n(square.MutableData<float>(), 4, 1.f);
  const std::vector<Value> y = RunFloat(*session, {"X"}, {square});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[0].GetTensor().Data<float>()[i], 3.f);
}

TEST(ParallelExecution, ConcurrentRunsShareThePools) {
  SessionOptions options = Parallel();
  options.intra_op_num_threads = 2;
  auto session = MakeSession(TwoBranchModel(), {}, options);
  SessionOptions sequential_options;
  sequential_options.intra_op_num_threads = 1;
  auto sequential = MakeSession(TwoBranchModel(), {}, sequential_options);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (unsigned t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (unsigned run = 0; run < 4; ++run) {
        const Tensor x = Input(10 * t + run);
        const std::vector<Value> expected = RunFloat(*sequential, {"X"}, {x});
        const std::vector<Value> got = RunFloat(*session, {"X"}, {x});
        if (!CompareValues(expected[0], got[0], Tolerance(1e-6, 1e-5)).empty()) ++mismatches;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace prism::testing

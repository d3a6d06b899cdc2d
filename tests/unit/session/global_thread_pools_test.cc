// Sessions without per-session threads share the process's global pools: no new threads, the
// global degree of parallelism, right answers; the pools are made once per process.
#include <dirent.h>

#include <gtest/gtest.h>

#include "session/global_thread_pools.h"
#include "session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

int ThreadsOfThisProcess() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  while (dirent* entry = readdir(tasks))
    if (entry->d_name[0] != '.') ++count;
  closedir(tasks);
  return count;
}

// Y = Relu(MatMul(X, X)), X [64, 64]: big enough that the MatMul splits over a pool.
onnx::ModelProto MatMulModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {64, 64});
  AddNode(graph, "MatMul", {"X", "X"}, {"P"}, "matmul");
  AddNode(graph, "Relu", {"P"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(GlobalThreadPools, SessionsShareThemInsteadOfStartingThreads) {
  SessionOptions shared;
  shared.use_per_session_threads = false;
  if (!GlobalThreadPoolsCreated()) {
    // Without the pools, such a session is refused with the way out named.
    try {
      MakeSession(MatMulModel(), {}, shared);
      FAIL() << "a session without per-session threads needs the global pools";
    } catch (const Exception& e) {
      EXPECT_NE(std::string(e.what()).find("create them first"), std::string::npos) << e.what();
    }
  }
  CreateGlobalThreadPools({3, 1});
  ASSERT_EQ(GlobalThreadPoolSizesInUse().intra_op_threads, 3);
  CreateGlobalThreadPools({3, 1});  // the same sizes again: reused
  try {
    CreateGlobalThreadPools({2, 1});
    FAIL() << "other sizes must be refused";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("exist already with 3 intra-op and 1 inter-op"),
              std::string::npos)
        << e.what();
  }

  Tensor x(ElementType::kFloat, TensorShape({64, 64}), GetCpuAllocator());
  for (int64_t i = 0; i < x.NumElements(); ++i)
    x.MutableData<float>()[i] = static_cast<float>((i * 7) % 13) - 6.f;
  SessionOptions single;
  single.intra_op_num_threads = 1;
  auto reference = MakeSession(MatMulModel(), {}, single);
  const std::vector<Value> expected = RunFloat(*reference, {"X"}, {x});

  const int before = ThreadsOfThisProcess();
  std::vector<std::unique_ptr<InferenceSession>> sessions;
  for (int i = 0; i < 3; ++i) sessions.push_back(MakeSession(MatMulModel(), {}, shared));
  EXPECT_EQ(ThreadsOfThisProcess(), before) << "sessions on the global pools started threads";
  for (const auto& session : sessions) {
    EXPECT_EQ(session->IntraOpThreads(), 3);
    const std::vector<Value> y = RunFloat(*session, {"X"}, {x});
    for (int64_t i = 0; i < x.NumElements(); ++i)
      ASSERT_EQ(y[0].GetTensor().Data<float>()[i], expected[0].GetTensor().Data<float>()[i]);
  }
  // A session with its own 3 threads starts 2 workers (the caller is the third).
  SessionOptions own;
  own.intra_op_num_threads = 3;
  auto separate = MakeSession(MatMulModel(), {}, own);
  EXPECT_EQ(ThreadsOfThisProcess(), before + 2);
}

}  // namespace
}  // namespace prism::testing

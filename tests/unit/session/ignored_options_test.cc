// Settings accepted for compatibility but without effect yet warn once per process, naming
// themselves; settings that take effect stay quiet.
#include <gtest/gtest.h>

#include "common/thread_pool.h"

#include "session_test_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

onnx::ModelProto ReluModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Relu", {"X"}, {"Y"}, "relu");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

TEST(IgnoredOptions, WarnOncePerProcessNamingThemselves) {
  SessionOptions options;
  options.inter_op_num_threads = 4;  // with execution_mode sequential
  ::testing::internal::CaptureStderr();
  auto first = MakeSession(ReluModel(), {}, options);
  auto second = MakeSession(ReluModel(), {}, options);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(logged,
                  "SessionOptions.inter_op_num_threads has no effect with execution_mode "
                  "sequential"),
            1u)
      << logged;
}

TEST(IgnoredOptions, SettingsThatTakeEffectAreQuiet) {
  SessionOptions options;
  options.intra_op_num_threads = 2;
  options.graph_optimization_level = GraphOptimizationLevel::kBasic;
  options.enable_mem_pattern = false;
  options.enable_cpu_mem_arena = false;
  options.execution_mode = ExecutionMode::kParallel;
  options.inter_op_num_threads = 2;
  options.config_entries["session.intra_op.allow_spinning"] = "0";
  ::testing::internal::CaptureStderr();
  auto session = MakeSession(ReluModel(), {}, options);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// session.intra_op.allow_spinning: the intra-op pool's idle threads poll briefly before sleeping
// ("1", the default) or sleep at once ("0"); anything else is refused naming the entry.
TEST(IgnoredOptions, AllowSpinningSetsThePoolsPolling) {
  SessionOptions options;
  options.intra_op_num_threads = 2;
  auto spinning = MakeSession(ReluModel(), {}, options);
  ASSERT_NE(spinning->IntraOpPool(), nullptr);
  EXPECT_EQ(spinning->IntraOpPool()->SpinMicroseconds(), ThreadPool::kDefaultSpinMicroseconds);
  options.config_entries["session.intra_op.allow_spinning"] = "0";
  auto sleeping = MakeSession(ReluModel(), {}, options);
  EXPECT_EQ(sleeping->IntraOpPool()->SpinMicroseconds(), 0);
  options.config_entries["session.intra_op.allow_spinning"] = "yes";
  PRISM_EXPECT_ERROR(CaptureError([&] { MakeSession(ReluModel(), {}, options); }), kInvalidArgument,
                     "session.intra_op.allow_spinning must be \"0\" or \"1\", got \"yes\"");
}

}  // namespace
}  // namespace prism::testing

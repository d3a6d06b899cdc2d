// Feeds in device memory: a feed already in the memory where it is consumed is used in place
// (no copy), it is copied only for consumers elsewhere, outputs kept on the device stay there,
// and concurrent runs mixing CPU and device feeds are each correct. The test EP stores its
// bytes scrambled, so a device buffer read as CPU memory (or the reverse) gives wrong numbers.
#include <thread>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr int64_t kN = 64;
constexpr int64_t kBytes = kN * static_cast<int64_t>(sizeof(float));

MemoryInfo TestDeviceMemory() {
  MemoryInfo memory;
  memory.name = "TestDevice";
  memory.device = DeviceType::kSimulated;
  return memory;
}

Tensor Ramp(float start, float step) {
  std::vector<float> values(kN);
  for (int64_t i = 0; i < kN; ++i) values[i] = start + step * static_cast<float>(i);
  return MakeTensor<float>({kN}, values);
}

// Z = Relu(X + Y); with `cpu_reader`, also T = X * X on the CPU EP (a computing reader: an
// Identity would pass device bytes through unread).
onnx::ModelProto AddReluModel(bool cpu_reader) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kN});
  AddInput(graph, "Y", TensorProto::FLOAT, {kN});
  AddNode(graph, "Add", {"X", "Y"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"Z"}, "relu");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  if (cpu_reader) {
    AddNode(graph, "Mul", {"X", "X"}, {"T"}, "square");
    AddOutput(graph, "T", TensorProto::FLOAT);
  }
  return model;
}

struct Delta {
  int64_t copies = 0;
  int64_t bytes = 0;
};

// The copies and bytes one call of `run` adds to the session's statistics.
template <typename Fn>
Delta Measure(const InferenceSession& session, Fn run) {
  const RunStatistics before = session.Statistics();
  run();
  const RunStatistics after = session.Statistics();
  return {after.copies - before.copies, after.bytes_copied - before.bytes_copied};
}

std::vector<Value> RunXY(const InferenceSession& session, const Value& x, const Value& y,
                         bool keep_device_outputs) {
  return session.Run(RunOptions{}, {"X", "Y"}, {x, y}, {}, keep_device_outputs);
}

TEST(DeviceIoTest, FeedInTheConsumersMemoryIsUsedInPlace) {
  auto session = MakeSession(AddReluModel(false), {TestEp("Add,Relu")});
  auto cpu = MakeSession(AddReluModel(false), {});
  const Value x(Ramp(-2.f, 0.07f));
  const Value y(Ramp(1.f, -0.03f));
  const Value expected = RunXY(*cpu, x, y, false)[0];

  const Value x_device = session->CopyToMemory(x, TestDeviceMemory());
  const Value y_device = session->CopyToMemory(y, TestDeviceMemory());
  ASSERT_EQ(x_device.GetTensor().Location().name, "TestDevice");

  // CPU feeds: X and Y copied in; the output stays on the device.
  std::vector<Value> out;
  Delta delta = Measure(*session, [&] { out = RunXY(*session, x, y, true); });
  EXPECT_EQ(delta.copies, 2);
  EXPECT_EQ(delta.bytes, 2 * kBytes);

  // Device feeds, device output: nothing moves.
  delta = Measure(*session, [&] { out = RunXY(*session, x_device, y_device, true); });
  EXPECT_EQ(delta.copies, 0) << "a feed already in TestDevice memory was copied";
  EXPECT_EQ(delta.bytes, 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].GetTensor().Location().name, "TestDevice");
  EXPECT_EQ(CompareValues(expected, session->CopyToMemory(out[0], CpuMemoryInfo()), {0, 0}), "");

  // Device feeds, CPU output: only the result moves.
  delta = Measure(*session, [&] { out = RunXY(*session, x_device, y_device, false); });
  EXPECT_EQ(delta.copies, 1);
  EXPECT_EQ(delta.bytes, kBytes);
  EXPECT_EQ(CompareValues(expected, out[0], {0, 0}), "");

  // One feed on each side.
  delta = Measure(*session, [&] { out = RunXY(*session, x, y_device, false); });
  EXPECT_EQ(delta.copies, 2);
  EXPECT_EQ(CompareValues(expected, out[0], {0, 0}), "");

  // The report says which copies a run fed in place skips.
  int input_copies = 0;
  for (const CopyRecord& copy : session->Report().copies) {
    SCOPED_TRACE(copy.value);
    EXPECT_EQ(copy.skipped_when_fed_there, copy.value == "X" || copy.value == "Y");
    input_copies += copy.skipped_when_fed_there ? 1 : 0;
  }
  EXPECT_EQ(input_copies, 2);
  EXPECT_NE(session->Report().ToText().find("graph input, not copied when fed in TestDevice:0"),
            std::string::npos)
      << session->Report().ToText();
}

std::vector<Value> RunTo(const InferenceSession& session, const Value& x, const Value& y,
                         OutputDestination destination) {
  return session.Run(RunOptions{}, {"X", "Y"}, {x, y}, {"Z"}, {destination});
}

TEST(DeviceIoTest, OutputsGoStraightToTheirDestination) {
  auto session = MakeSession(AddReluModel(false), {TestEp("Add,Relu")});
  auto cpu = MakeSession(AddReluModel(false), {});
  const Value x(Ramp(-2.f, 0.07f));
  const Value y(Ramp(1.f, -0.03f));
  const Value expected = RunXY(*cpu, x, y, false)[0];
  const Value x_device = session->CopyToMemory(x, TestDeviceMemory());
  const Value y_device = session->CopyToMemory(y, TestDeviceMemory());

  // Bound to the memory it is produced in: no copy.
  OutputDestination to_device;
  to_device.memory = TestDeviceMemory();
  std::vector<Value> out;
  Delta delta = Measure(*session, [&] { out = RunTo(*session, x_device, y_device, to_device); });
  EXPECT_EQ(delta.copies, 0);
  EXPECT_EQ(out[0].GetTensor().Location().name, "TestDevice");
  EXPECT_EQ(CompareValues(expected, session->CopyToMemory(out[0], CpuMemoryInfo()), {0, 0}), "");

  // A preallocated device tensor receives the result with one device-to-device copy.
  Value device_buffer = session->CopyToMemory(Value(Ramp(0.f, 0.f)), TestDeviceMemory());
  OutputDestination into_device;
  into_device.preallocated = &device_buffer;
  delta = Measure(*session, [&] { out = RunTo(*session, x_device, y_device, into_device); });
  EXPECT_EQ(delta.copies, 1);
  EXPECT_EQ(delta.bytes, kBytes);
  EXPECT_EQ(out[0].GetTensor().RawData(), device_buffer.GetTensor().RawData());
  EXPECT_EQ(CompareValues(expected, session->CopyToMemory(device_buffer, CpuMemoryInfo()), {0, 0}),
            "");

  // A preallocated CPU tensor: one device-to-CPU copy, straight into it.
  Value cpu_buffer(Ramp(0.f, 0.f));
  OutputDestination into_cpu;
  into_cpu.preallocated = &cpu_buffer;
  delta = Measure(*session, [&] { out = RunTo(*session, x_device, y_device, into_cpu); });
  EXPECT_EQ(delta.copies, 1);
  EXPECT_EQ(delta.bytes, kBytes);
  EXPECT_EQ(CompareValues(expected, cpu_buffer, {0, 0}), "");

  // A mismatch names the output, the bound tensor and the result.
  Value wrong_shape =
      session->CopyToMemory(Value(MakeTensor<float>({2}, {0.f, 0.f})), TestDeviceMemory());
  OutputDestination into_wrong;
  into_wrong.preallocated = &wrong_shape;
  try {
    RunTo(*session, x_device, y_device, into_wrong);
    ADD_FAILURE() << "a preallocated output of the wrong shape was accepted";
  } catch (const Exception& e) {
    EXPECT_EQ(e.Code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("output 'Z' is bound to a preallocated tensor(float)[2] "
                                         "but the model produced tensor(float)[64] (shapes "
                                         "differ)"),
              std::string::npos)
        << e.what();
  }
}

TEST(DeviceIoTest, DeviceFeedAlsoReadOnTheCpuIsCopiedOnlyForTheCpu) {
  auto session = MakeSession(AddReluModel(true), {TestEp("Add,Relu")});
  auto cpu = MakeSession(AddReluModel(true), {});
  const Value x(Ramp(-1.f, 0.05f));
  const Value y(Ramp(0.5f, -0.02f));
  const std::vector<Value> expected = RunXY(*cpu, x, y, false);
  const Value x_device = session->CopyToMemory(x, TestDeviceMemory());
  const Value y_device = session->CopyToMemory(y, TestDeviceMemory());

  std::vector<Value> out;
  const Delta delta = Measure(*session, [&] { out = RunXY(*session, x_device, y_device, true); });
  // X once to the CPU for the Mul; the Add reads both feeds where they are.
  EXPECT_EQ(delta.copies, 1);
  EXPECT_EQ(delta.bytes, kBytes);
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < out.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(CompareValues(expected[i], session->CopyToMemory(out[i], CpuMemoryInfo()), {0, 0}),
              "");
  }
}

TEST(DeviceIoTest, DeviceFeedReadBySubgraphs) {
  // If(C): then X + X on the test EP, else X * X on the CPU; X is fed on the device.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {kN});
  auto* node = AddNode(graph, "If", {"C"}, {"Z"}, "branch");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Add", {"X", "X"}, {"T"}, "then_add");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddNode(else_branch, "Mul", {"X", "X"}, {"E"}, "else_mul");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Z", TensorProto::FLOAT);
  auto session = MakeSession(model, {TestEp("Add")});
  auto cpu = MakeSession(model, {});
  const Value x(Ramp(-3.f, 0.1f));
  const Value x_device = session->CopyToMemory(x, TestDeviceMemory());
  for (bool condition : {true, false}) {
    SCOPED_TRACE(condition);
    const Value c(MakeTensor<bool>({}, {condition}));
    const Value expected = cpu->Run(RunOptions{}, {"C", "X"}, {c, x}, {})[0];
    const Value actual = session->Run(RunOptions{}, {"C", "X"}, {c, x_device}, {})[0];
    EXPECT_EQ(CompareValues(expected, actual, {0, 0}), "");
  }
}

TEST(DeviceIoTest, ConcurrentRunsMixingCpuAndDeviceFeeds) {
  auto session = MakeSession(AddReluModel(true), {TestEp("Add,Relu")});
  auto cpu = MakeSession(AddReluModel(true), {});
  constexpr int kThreads = 6;
  constexpr int kRunsPerThread = 300;
  struct Case {
    Value x, y, x_device, y_device;
    std::vector<Value> expected;
  };
  std::vector<Case> cases(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    Case& c = cases[t];
    c.x = Value(Ramp(-1.f - static_cast<float>(t), 0.05f));
    c.y = Value(Ramp(0.25f * static_cast<float>(t), -0.01f));
    c.x_device = session->CopyToMemory(c.x, TestDeviceMemory());
    c.y_device = session->CopyToMemory(c.y, TestDeviceMemory());
    c.expected = RunXY(*cpu, c.x, c.y, false);
  }
  const RunStatistics before = session->Statistics();
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Case& c = cases[t];
      for (int r = 0; r < kRunsPerThread && failures[t].empty(); ++r) {
        // Each run picks its own mix: both on the CPU, both on the device, or X alone there.
        const int mix = (r + t) % 3;
        const Value& x = mix == 0 ? c.x : c.x_device;
        const Value& y = mix == 1 ? c.y_device : c.y;
        const std::vector<Value> out = RunXY(*session, x, y, false);
        for (size_t i = 0; i < out.size() && failures[t].empty(); ++i) {
          const std::string diff = CompareValues(c.expected[i], out[i], {0, 0});
          if (!diff.empty())
            failures[t] = MakeString("thread ", t, " run ", r, " mix ", mix, ": ", diff);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");

  // Per run: Z to the caller, X once (to the device for the Add when fed on the CPU, to the
  // CPU for the Mul when fed on the device), Y to the device when fed on the CPU.
  int64_t copies = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRunsPerThread; ++r) copies += (r + t) % 3 == 1 ? 2 : 3;
  EXPECT_EQ(session->Statistics().copies - before.copies, copies);
}

}  // namespace
}  // namespace prism::testing

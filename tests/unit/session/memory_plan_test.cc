// The session's memory: the per-session arena, the memory pattern (one block per run for fixed
// shapes, replanned when they change, safe when a kernel keeps a buffer longer than recorded),
// in-place reuse of elementwise inputs, arena shrinkage, and the allocator statistics.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr int64_t kSide = 16;

std::vector<float> RandomValues(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(random);
  return values;
}

Tensor MakeTensor(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  Tensor tensor(ElementType::kFloat, TensorShape(dims), GetCpuAllocator());
  std::copy(values.begin(), values.end(), tensor.MutableData<float>());
  return tensor;
}

// Naive 3x3 convolution, stride 1, padding 1, no bias: x [n, c_in, s, s], w [c_out, c_in, 3, 3].
std::vector<float> NaiveConv(const std::vector<float>& x, const std::vector<float>& w, int64_t n,
                             int64_t c_in, int64_t c_out) {
  std::vector<float> y(static_cast<size_t>(n * c_out * kSide * kSide), 0.f);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < c_out; ++o)
      for (int64_t i = 0; i < kSide; ++i)
        for (int64_t j = 0; j < kSide; ++j) {
          double sum = 0;
          for (int64_t c = 0; c < c_in; ++c)
            for (int64_t ki = 0; ki < 3; ++ki)
              for (int64_t kj = 0; kj < 3; ++kj) {
                const int64_t si = i + ki - 1, sj = j + kj - 1;
                if (si < 0 || sj < 0 || si >= kSide || sj >= kSide) continue;
                sum += double(x[static_cast<size_t>(((b * c_in + c) * kSide + si) * kSide + sj)]) *
                       w[static_cast<size_t>(((o * c_in + c) * 3 + ki) * 3 + kj)];
              }
          y[static_cast<size_t>(((b * c_out + o) * kSide + i) * kSide + j)] = float(sum);
        }
  return y;
}

const std::vector<float>& W1() {
  static const std::vector<float> values = RandomValues(8 * 3 * 9, 11);
  return values;
}
const std::vector<float>& W2() {
  static const std::vector<float> values = RandomValues(4 * 8 * 9, 12);
  return values;
}

// c = Conv(X, W1); s = Sigmoid(c); m = Mul(s, c); p = Conv(m, W2); Y = Relu(p); Z = Exp(m).
// Two outputs, two convolutions with im2col scratch, and intermediates of several lifetimes.
onnx::ModelProto ConvModel(const DimSpec& batch) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {batch, 3, kSide, kSide});
  AddFloatInitializer(graph, "W1", {8, 3, 3, 3}, W1());
  AddFloatInitializer(graph, "W2", {4, 8, 3, 3}, W2());
  AddIntsAttr(AddNode(graph, "Conv", {"X", "W1"}, {"c"}, "conv1"), "pads", {1, 1, 1, 1});
  AddNode(graph, "Sigmoid", {"c"}, {"s"}, "sigmoid");
  AddNode(graph, "Mul", {"s", "c"}, {"m"}, "mul");
  AddIntsAttr(AddNode(graph, "Conv", {"m", "W2"}, {"p"}, "conv2"), "pads", {1, 1, 1, 1});
  AddNode(graph, "Relu", {"p"}, {"Y"}, "relu");
  AddNode(graph, "Exp", {"m"}, {"Z"}, "exp");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

// The model's outputs computed here, in double where it matters.
std::pair<Tensor, Tensor> ConvModelReference(const std::vector<float>& x, int64_t n) {
  std::vector<float> c = NaiveConv(x, W1(), n, 3, 8);
  std::vector<float> m(c.size()), z(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    m[i] = float(c[i] / (1.0 + std::exp(-double(c[i]))));
    z[i] = std::exp(m[i]);
  }
  std::vector<float> y = NaiveConv(m, W2(), n, 8, 4);
  for (float& v : y) v = std::max(v, 0.f);
  return {MakeTensor({n, 4, kSide, kSide}, y), MakeTensor({n, 8, kSide, kSide}, z)};
}

// A copy: the argument is usually a temporary.
NamedAllocatorStats CpuStats(const std::vector<NamedAllocatorStats>& all) {
  for (const NamedAllocatorStats& named : all)
    if (named.memory.rfind("Cpu", 0) == 0) return named;
  ADD_FAILURE() << "the session reports no CPU allocator";
  return {};
}

// Runs the conv model and checks both outputs against the reference.
void RunAndCheck(const InferenceSession& session, int64_t n, unsigned seed) {
  const std::vector<float> x = RandomValues(static_cast<size_t>(n * 3 * kSide * kSide), seed);
  std::vector<Value> outputs = RunFloat(session, {"X"}, {MakeTensor({n, 3, kSide, kSide}, x)});
  ASSERT_EQ(outputs.size(), 2u);
  const auto [y, z] = ConvModelReference(x, n);
  const Tolerance tolerance(1e-5, 1e-4);
  EXPECT_EQ(CompareTensors(y, outputs[0].GetTensor(), tolerance), "") << "Y, batch " << n;
  EXPECT_EQ(CompareTensors(z, outputs[1].GetTensor(), tolerance), "") << "Z, batch " << n;
}

int64_t RequestsOfOneRun(const InferenceSession& session, int64_t n, unsigned seed) {
  const int64_t before = CpuStats(session.AllocatorStatistics()).stats.num_allocs;
  RunAndCheck(session, n, seed);
  return CpuStats(session.AllocatorStatistics()).stats.num_allocs - before;
}

TEST(MemoryPlanTest, FixedShapesTakeAtMostOutputsPlusOneRequestsPerRun) {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  // Basic passes only: ConvActivationFusion would merge conv2 and relu and change the buffers
  // counted below.
  options.graph_optimization_level = GraphOptimizationLevel::kBasic;
  auto session = MakeSession(ConvModel(1), {}, options);
  EXPECT_TRUE(CpuStats(session->AllocatorStatistics()).arena);
  const int64_t first = RequestsOfOneRun(*session, 1, 1);  // records the pattern
  for (unsigned run = 2; run <= 4; ++run) {
    const int64_t requests = RequestsOfOneRun(*session, 1, run);
    EXPECT_LE(requests, 2 + 1) << "run " << run << " (the recording run took " << first << ")";
  }
  // Without the pattern the same runs ask for each intermediate and each scratch buffer.
  options.enable_mem_pattern = false;
  auto unplanned = MakeSession(ConvModel(1), {}, options);
  RequestsOfOneRun(*unplanned, 1, 1);
  // (c, s, p and two im2col buffers; m, Y and Z take over a released input's buffer).
  EXPECT_EQ(RequestsOfOneRun(*unplanned, 1, 2), 5);
}

TEST(MemoryPlanTest, NewShapesGetTheirOwnPattern) {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  auto session = MakeSession(ConvModel("batch"), {}, options);
  RequestsOfOneRun(*session, 1, 1);
  RequestsOfOneRun(*session, 3, 2);  // another shape: recorded, the first pattern stays
  EXPECT_LE(RequestsOfOneRun(*session, 1, 3), 3);
  EXPECT_LE(RequestsOfOneRun(*session, 3, 4), 3);
  EXPECT_LE(RequestsOfOneRun(*session, 2, 5), 20);  // a third shape records: correct values
  EXPECT_LE(RequestsOfOneRun(*session, 2, 6), 3);
}

TEST(MemoryPlanTest, ArenaServesRepeatedRunsWithoutSystemAllocations) {
  SessionOptions options;
  options.enable_mem_pattern = false;
  auto session = MakeSession(ConvModel(1), {}, options);
  RunAndCheck(*session, 1, 1);
  const AllocatorStats after_first = CpuStats(session->AllocatorStatistics()).stats;
  EXPECT_GT(after_first.num_reserves, 0);
  for (unsigned run = 2; run <= 6; ++run) RunAndCheck(*session, 1, run);
  const AllocatorStats after = CpuStats(session->AllocatorStatistics()).stats;
  EXPECT_EQ(after.num_reserves, after_first.num_reserves);
  EXPECT_EQ(after.total_reserved_bytes, after_first.total_reserved_bytes);
  EXPECT_GT(after.num_allocs, after_first.num_allocs);  // the runs did allocate, from the arena
}

TEST(MemoryPlanTest, WithoutArenaEveryRequestGoesToTheSystem) {
  SessionOptions options;
  options.enable_mem_pattern = false;
  options.enable_cpu_mem_arena = false;
  auto session = MakeSession(ConvModel(1), {}, options);
  RunAndCheck(*session, 1, 1);
  const NamedAllocatorStats named = CpuStats(session->AllocatorStatistics());
  EXPECT_FALSE(named.arena);
  EXPECT_EQ(named.stats.num_reserves, named.stats.num_allocs);
}

// X -> Relu x n -> Y.
onnx::ModelProto ReluChain(int n) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {256});
  std::string previous = "X";
  for (int i = 0; i < n; ++i) {
    const std::string out = i + 1 == n ? "Y" : "r" + std::to_string(i);
    AddNode(graph, "Relu", {previous}, {out}, "relu" + std::to_string(i));
    previous = out;
  }
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(MemoryPlanTest, ElementwiseChainsWriteInPlace) {
  SessionOptions options;
  options.enable_mem_pattern = false;  // count the kernels' own requests
  auto session = MakeSession(ReluChain(10), {}, options);
  const std::vector<float> x = RandomValues(256, 3);
  for (int run = 0; run < 2; ++run) {
    const int64_t before = CpuStats(session->AllocatorStatistics()).stats.num_allocs;
    std::vector<Value> y = RunFloat(*session, {"X"}, {MakeTensor({256}, x)});
    // The first Relu reads the feed (never written over); the nine others take its buffer.
    EXPECT_EQ(CpuStats(session->AllocatorStatistics()).stats.num_allocs - before, 1);
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(y[0].GetTensor().Data<float>()[i], std::max(x[i], 0.f)) << i;
  }
}

TEST(MemoryPlanTest, InPlaceWaitsForTheLastReader) {
  // a = Relu(X); b = Exp(a); Y = Add(a, b): Exp must not write over a, which Add reads later.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {64});
  AddNode(graph, "Relu", {"X"}, {"a"}, "relu");
  AddNode(graph, "Exp", {"a"}, {"b"}, "exp");
  AddNode(graph, "Add", {"a", "b"}, {"Y"}, "add");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto session = MakeSession(model, {});
  const std::vector<float> x = RandomValues(64, 4);
  for (int run = 0; run < 3; ++run) {
    std::vector<Value> y = RunFloat(*session, {"X"}, {MakeTensor({64}, x)});
    for (size_t i = 0; i < x.size(); ++i) {
      const float a = std::max(x[i], 0.f);
      ASSERT_FLOAT_EQ(y[0].GetTensor().Data<float>()[i], a + std::exp(a)) << "run " << run;
    }
  }
  // The feed itself is never written over.
  const Tensor feed = MakeTensor({64}, x);
  RunFloat(*session, {"X"}, {feed});
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(feed.Data<float>()[i], x[i]);
}

// t = Relu(X); y = If(C) {then: Identity(t), else: Sigmoid(X)}; w = MatMul(y, M);
// V = MatMul(w, M) (not elementwise: w's buffer stays w's until the run ends).
// With C false the run lets t go at the If; with C true y keeps t's buffer past that point.
onnx::ModelProto AliasingIfModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {8, 8});
  AddFloatInitializer(graph, "M", {8, 8}, RandomValues(64, 5));
  AddNode(graph, "Relu", {"X"}, {"t"}, "relu");
  auto* node = AddNode(graph, "If", {"C"}, {"y"}, "branch");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Identity", {"t"}, {"T"}, "then_id");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddNode(else_branch, "Sigmoid", {"X"}, {"E"}, "else_sigmoid");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddNode(graph, "MatMul", {"y", "M"}, {"w"}, "matmul");
  AddNode(graph, "MatMul", {"w", "M"}, {"V"}, "matmul2");
  AddOutput(graph, "V", TensorProto::FLOAT);
  return model;
}

TEST(MemoryPlanTest, ReplayFallsBackWhenABufferIsHeldLongerThanRecorded) {
  auto session = MakeSession(AliasingIfModel(), {});
  const std::vector<float> x = RandomValues(64, 6);
  const std::vector<float> m = RandomValues(64, 5);
  auto run = [&](bool condition) {
    Tensor c(ElementType::kBool, TensorShape({}), GetCpuAllocator());
    c.MutableData<bool>()[0] = condition;
    std::vector<Value> feeds = {Value(c), Value(MakeTensor({8, 8}, x))};
    std::vector<Value> v = session->Run(RunOptions{}, {"C", "X"}, feeds, {});
    auto y = [&](int64_t r, int64_t k) {
      const float value = x[static_cast<size_t>(r * 8 + k)];
      return condition ? std::max(value, 0.f) : 1.f / (1.f + std::exp(-value));
    };
    std::vector<double> w(64, 0.0);
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 8; ++j)
        for (int64_t k = 0; k < 8; ++k)
          w[static_cast<size_t>(i * 8 + j)] += double(y(i, k)) * m[static_cast<size_t>(k * 8 + j)];
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 8; ++j) {
        double expected = 0;
        for (int64_t k = 0; k < 8; ++k)
          expected += w[static_cast<size_t>(i * 8 + k)] * m[static_cast<size_t>(k * 8 + j)];
        EXPECT_NEAR(v[0].GetTensor().Data<float>()[i * 8 + j], expected, 1e-5)
            << "C " << condition << " at " << i << "," << j;
      }
  };
  run(false);  // records: t is let go at the If, so w may be planned over t's bytes
  run(true);   // y holds t's buffer: w must not be carved there
  run(false);
  run(true);
}

TEST(MemoryPlanTest, RunConfigShrinksTheArena) {
  SessionOptions options;
  options.enable_mem_pattern = false;
  // A region per request, so that the regions of released values are wholly free.
  options.config_entries["session.arena_extend_strategy"] = "kSameAsRequested";
  auto session = MakeSession(ConvModel(1), {}, options);
  RunAndCheck(*session, 1, 1);
  const AllocatorStats grown = CpuStats(session->AllocatorStatistics()).stats;
  RunOptions shrink;
  shrink.config_entries["memory.enable_memory_arena_shrinkage"] = "cpu:0";
  const std::vector<float> x = RandomValues(3 * kSide * kSide, 2);
  std::vector<Value> kept =
      session->Run(shrink, {"X"}, {Value(MakeTensor({1, 3, kSide, kSide}, x))}, {});
  const AllocatorStats shrunk = CpuStats(session->AllocatorStatistics()).stats;
  EXPECT_EQ(shrunk.num_arena_shrinkages, grown.num_arena_shrinkages + 1);
  EXPECT_LT(shrunk.total_reserved_bytes, grown.total_reserved_bytes);
  EXPECT_GE(shrunk.total_reserved_bytes, shrunk.bytes_in_use);  // the outputs' regions stay
  EXPECT_GT(shrunk.bytes_in_use, 0);
  RunAndCheck(*session, 1, 3);  // and it grows again as needed

  shrink.config_entries["memory.enable_memory_arena_shrinkage"] = "cpu";
  try {
    session->Run(shrink, {"X"}, {Value(MakeTensor({1, 3, kSide, kSide}, x))}, {});
    FAIL() << "a malformed entry must be an error";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("'cpu' is not of the form device:id"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace prism::testing

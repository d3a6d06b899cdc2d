// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli and Multinomial.
//
// Values: seeded draws are checked value by value against this file's own implementation of the
// documented generator (providers/cpu/random/counter_rng.h: a SplitMix64 stream keyed by the
// SplitMix64 finalizer of the float seed's bits, 53-bit uniforms, Box-Muller normals), written
// here as a stateful SplitMix64 generator rather than the kernel's random-access form. Outputs
// that do not depend on the generator are checked exactly: Bernoulli with p in {0, 1},
// Multinomial with a single class of positive probability. Together they are the type-coverage
// evidence for every registered (op, version range, type).
//
// Statistics: mean, variance, range and frequencies over 100 000 seeded draws (so CI is
// deterministic; tests/python/test_random_ops_oracle.py checks unseeded ones), each within about
// five standard errors of the exact value. Seeds: the same seed gives the same values in every run
// and session; other seeds, and unseeded runs, differ.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "../graph/model_builder_util.h"
#include "../tensor/coded_tensor.h"
#include "framework/kernel_registry.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"
#include "session/inference_session.h"
#include "typed_values.h"

namespace prism::testing {
namespace {

using E = ElementType;
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// The documented generator, reimplemented.

class ReferenceSplitMix64 {
 public:
  explicit ReferenceSplitMix64(uint64_t state) : state_(state) {}
  static uint64_t Finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return Finalize(state_);
  }
  double NextUniform() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }

 private:
  uint64_t state_;
};

ReferenceSplitMix64 SeededStream(float seed) {
  uint32_t bits;
  std::memcpy(&bits, &seed, sizeof(bits));
  return ReferenceSplitMix64(ReferenceSplitMix64::Finalize(bits));
}

std::vector<double> ReferenceUniforms(float seed, size_t count) {
  ReferenceSplitMix64 stream = SeededStream(seed);
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) values.push_back(stream.NextUniform());
  return values;
}

std::vector<double> ReferenceNormals(float seed, size_t count) {
  ReferenceSplitMix64 stream = SeededStream(seed);
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) {
    const double u1 = stream.NextUniform(), u2 = stream.NextUniform();
    values.push_back(std::sqrt(-2.0 * std::log(1.0 - u1)) *
                     std::cos(6.283185307179586476925286766559 * u2));
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Helpers.

std::vector<E> Registered(const std::string& op, int opset, const std::string& constraint) {
  const std::vector<E> types = CpuRegisteredTypes(op, opset, constraint);
  EXPECT_FALSE(types.empty()) << op << " registers no " << constraint << " at opset " << opset;
  return types;
}

// values as type, converted as a Cast would (tests/common/typed_values.h).
Tensor Values(E type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  return CastValues(type, dims, values);
}

// Any tensor type, for the *Like ops' input (only its shape matters).
Tensor AnyTensor(E type, const std::vector<int64_t>& dims) {
  const std::vector<int> codes(6, 1);
  if (type != E::kComplex64 && type != E::kComplex128) return MakeCodedTensor(type, dims, codes);
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  std::memset(tensor.MutableRawData(), 0, tensor.SizeInBytes());
  return tensor;
}

std::vector<double> AsDoubles(const Value& value) {
  const Tensor& t = value.GetTensor();
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.Type()) {
      case E::kFloat:
        out.push_back(t.Data<float>()[i]);
        break;
      case E::kDouble:
        out.push_back(t.Data<double>()[i]);
        break;
      case E::kFloat16:
        out.push_back(t.Data<Float16>()[i].ToFloat());
        break;
      case E::kInt32:
        out.push_back(t.Data<int32_t>()[i]);
        break;
      case E::kInt64:
        out.push_back(static_cast<double>(t.Data<int64_t>()[i]));
        break;
      case E::kBool:
        out.push_back(t.Data<bool>()[i] ? 1 : 0);
        break;
      default:
        ADD_FAILURE() << "AsDoubles: " << ElementTypeName(t.Type());
        return out;
    }
  }
  return out;
}

struct Moments {
  double mean = 0, variance = 0, min = kInf, max = -kInf;
};

Moments MomentsOf(const std::vector<double>& values) {
  Moments m;
  for (double v : values) {
    m.mean += v;
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
  }
  m.mean /= static_cast<double>(values.size());
  for (double v : values) m.variance += (v - m.mean) * (v - m.mean);
  m.variance /= static_cast<double>(values.size() - 1);
  return m;
}

constexpr int64_t kDraws = 100000;

// A one-node model built with the graph helpers, so that one session can run it several times.
std::string RandomModel(const std::string& op, int opset, E output_type, bool seeded, float seed) {
  onnx::ModelProto model = MakeModel(opset, 10);
  onnx::GraphProto* graph = model.mutable_graph();
  const bool like = op.size() > 4 && op.substr(op.size() - 4) == "Like";
  onnx::NodeProto* node =
      AddNode(graph, op, like ? std::vector<std::string>{"x"} : std::vector<std::string>{}, {"y"},
              op + "_node");
  if (like) AddInput(graph, "x", onnx::TensorProto::FLOAT, {4, 5});
  AddOutput(graph, "y", static_cast<int32_t>(output_type));
  if (!like) AddIntsAttr(node, "shape", {4, 5});
  auto* dtype = node->add_attribute();
  dtype->set_name("dtype");
  dtype->set_type(onnx::AttributeProto::INT);
  dtype->set_i(static_cast<int64_t>(output_type));
  if (seeded) {
    auto* attr = node->add_attribute();
    attr->set_name("seed");
    attr->set_type(onnx::AttributeProto::FLOAT);
    attr->set_f(seed);
  }
  return Serialize(model);
}

std::vector<double> RunModel(const InferenceSession& session, bool like) {
  std::vector<std::string> names;
  std::vector<Value> feeds;
  if (like) {
    names.push_back("x");
    feeds.emplace_back(MakeTensor<float>({4, 5}, std::vector<float>(20, 0.0f)));
  }
  return AsDoubles(session.Run(RunOptions{}, names, feeds, {})[0]);
}

// ---------------------------------------------------------------------------------------------
// Every registered type, values checked against the reference generator or exactly.

constexpr float kSeed = 3.5f;

TEST(RandomOpsTest, RandomUniformAndNormalEveryRangeAndTypeMatchTheDocumentedGenerator) {
  const std::vector<double> uniforms = ReferenceUniforms(kSeed, 6);
  const std::vector<double> normals = ReferenceNormals(kSeed, 6);
  for (int opset : {1, 22}) {
    for (bool normal : {false, true}) {
      const std::string op = normal ? "RandomNormal" : "RandomUniform";
      for (E type : Registered(op, opset, "T")) {
        SCOPED_TRACE(::testing::Message() << op << " " << opset << " " << ElementTypeName(type));
        std::vector<double> expected;
        for (size_t i = 0; i < 6; ++i)
          expected.push_back(normal ? 1.5 + 2.0 * normals[i] : -2.0 + 5.0 * uniforms[i]);
        OpTester test(op, opset);
        test.Attr("shape", std::vector<int64_t>{2, 3});
        test.Attr("dtype", static_cast<int64_t>(type));
        test.Attr("seed", kSeed);
        test.Attr(normal ? "mean" : "low", normal ? 1.5f : -2.0f);
        test.Attr(normal ? "scale" : "high", normal ? 2.0f : 3.0f);
        test.OutputTensor("output", Values(type, {2, 3}, expected));
        test.Run();
      }
    }
  }
}

TEST(RandomOpsTest, LikeOpsEveryInputTypeAndDtypeMatchTheDocumentedGenerator) {
  const std::vector<double> uniforms = ReferenceUniforms(kSeed, 6);
  const std::vector<double> normals = ReferenceNormals(kSeed, 6);
  for (int opset : {1, 22}) {
    for (bool normal : {false, true}) {
      const std::string op = normal ? "RandomNormalLike" : "RandomUniformLike";
      for (E input_type : Registered(op, opset, "T1")) {
        for (E output_type : Registered(op, opset, "T2")) {
          SCOPED_TRACE(::testing::Message()
                       << op << " " << opset << " " << ElementTypeName(input_type) << " -> "
                       << ElementTypeName(output_type));
          std::vector<double> expected;
          for (size_t i = 0; i < 6; ++i) expected.push_back(normal ? normals[i] : uniforms[i]);
          OpTester test(op, opset);
          test.InputTensor("input", AnyTensor(input_type, {3, 2}));
          test.Attr("dtype", static_cast<int64_t>(output_type));
          test.Attr("seed", kSeed);
          test.OutputTensor("output", Values(output_type, {3, 2}, expected));
          test.Run();
        }
      }
    }
  }
}

TEST(RandomOpsTest, LikeOpsWithoutDtypeTakeTheInputType) {
  const std::vector<double> uniforms = ReferenceUniforms(1.0f, 4);
  OpTester test("RandomUniformLike", 22);
  test.Input<double>("input", {2, 2}, {7, 7, 7, 7});
  test.Attr("seed", 1.0f);
  test.Attr("low", 10.0f);
  test.Attr("high", 12.0f);
  std::vector<double> expected;
  for (double u : uniforms) expected.push_back(10.0 + 2.0 * u);
  test.Output<double>("output", {2, 2}, expected);
  test.Run();
}

TEST(RandomOpsTest, BernoulliEveryRangeAndTypeWithCertainProbabilities) {
  const std::vector<double> p = {0, 1, 1, 0, 1, 0};
  for (int opset : {15, 22}) {
    for (E input_type : Registered("Bernoulli", opset, "T1")) {
      for (E output_type : Registered("Bernoulli", opset, "T2")) {
        SCOPED_TRACE(::testing::Message() << opset << " " << ElementTypeName(input_type) << " -> "
                                          << ElementTypeName(output_type));
        OpTester test("Bernoulli", opset);
        test.InputTensor("input", Values(input_type, {2, 3}, p));
        test.Attr("dtype", static_cast<int64_t>(output_type));
        test.OutputTensor("output", Values(output_type, {2, 3}, p));
        test.Run();
      }
    }
  }
}

TEST(RandomOpsTest, BernoulliSeededMatchesTheDocumentedGenerator) {
  const std::vector<double> uniforms = ReferenceUniforms(kSeed, 8);
  const std::vector<float> p = {0.5f, 0.25f, 0.75f, 0.5f, 0.1f, 0.9f, 0.5f, 0.5f};
  std::vector<float> expected;
  for (size_t i = 0; i < p.size(); ++i) expected.push_back(uniforms[i] < p[i] ? 1.0f : 0.0f);
  OpTester test("Bernoulli", 22);
  test.Input<float>("input", {8}, p);
  test.Attr("seed", kSeed);
  test.Output<float>("output", {8}, expected);  // no dtype: the input's type
  test.Run();
}

TEST(RandomOpsTest, MultinomialEveryRangeAndTypeWithOnePossibleClass) {
  for (int opset : {7, 22}) {
    for (E input_type : Registered("Multinomial", opset, "T1")) {
      for (E output_type : Registered("Multinomial", opset, "T2")) {
        SCOPED_TRACE(::testing::Message() << opset << " " << ElementTypeName(input_type) << " -> "
                                          << ElementTypeName(output_type));
        OpTester test("Multinomial", opset);
        test.InputTensor("input", Values(input_type, {2, 3}, {0, -kInf, -kInf, -kInf, -kInf, 5}));
        test.Attr("sample_size", int64_t{4});
        if (output_type != E::kInt32) test.Attr("dtype", static_cast<int64_t>(output_type));
        test.OutputTensor("output", Values(output_type, {2, 4}, {0, 0, 0, 0, 2, 2, 2, 2}));
        test.Run();
      }
    }
  }
}

TEST(RandomOpsTest, MultinomialSeededMatchesTheDocumentedGenerator) {
  // Probabilities softmax(log 1, log 3) = 1/4, 3/4 per row: class 0 where u * 4 < 1.
  const std::vector<double> uniforms = ReferenceUniforms(kSeed, 10);
  std::vector<int64_t> expected;
  for (double u : uniforms) expected.push_back(u * 4.0 < 1.0 ? 0 : 1);
  OpTester test("Multinomial", 22);
  test.Input<double>("input", {2, 2}, {0.0, std::log(3.0), 7.0, 7.0 + std::log(3.0)});
  test.Attr("sample_size", int64_t{5});
  test.Attr("dtype", static_cast<int64_t>(E::kInt64));
  test.Attr("seed", kSeed);
  test.Output<int64_t>("output", {2, 5}, expected);
  test.Run();
}

// sample_size is an attribute (any int64): the output's size is checked before anything of that
// size is allocated (it used to allocate its draws first: out of memory, not an error).
TEST(RandomOpsTest, MultinomialRefusesASampleSizeBeyondTheAddressSpace) {
  OpTester test("Multinomial", 22);
  test.Input<float>("input", {1, 3}, {0, 0, 0});
  test.Attr("sample_size", std::numeric_limits<int64_t>::max());
  test.Output<int32_t>("output", {1, 1}, {0});
  test.ExpectFailure("overflows the address space");
}

// ---------------------------------------------------------------------------------------------
// Statistics over many draws.

TEST(RandomOpsTest, UniformMeanVarianceAndRange) {
  for (E type : {E::kFloat, E::kDouble, E::kFloat16}) {
    SCOPED_TRACE(ElementTypeName(type));
    OpTester test("RandomUniform", 22);
    test.Attr("shape", std::vector<int64_t>{kDraws});
    test.Attr("dtype", static_cast<int64_t>(type));
    test.Attr("low", -1.0f);
    test.Attr("high", 3.0f);
    test.OutputTensor("output", Values(type, {kDraws}, std::vector<double>(kDraws)));
    test.Attr("seed", 11.0f);  // deterministic in CI (pytest covers unseeded draws)
    const Moments m = MomentsOf(AsDoubles(test.RunAndGet()[0]));
    // Uniform on [-1, 3): mean 1, variance 16 / 12; standard errors sqrt(var / n) and
    // sqrt((256 / 80 - var^2) / n).
    const double variance = 16.0 / 12.0;
    EXPECT_NEAR(m.mean, 1.0, 5 * std::sqrt(variance / kDraws));
    EXPECT_NEAR(m.variance, variance, 5 * std::sqrt((256.0 / 80 - variance * variance) / kDraws));
    EXPECT_GE(m.min, -1.0);
    EXPECT_LT(m.max, 3.0);
    EXPECT_LT(m.min, -0.99);  // the draws fill the range
    EXPECT_GT(m.max, 2.99);
  }
}

TEST(RandomOpsTest, UniformNeverReachesHighAfterRounding) {
  // float16 spacing at 1 is 2^-10: a quarter of draws from [1 - 2^-11, 1) round to 1.0 and
  // must be stepped back below high.
  OpTester test("RandomUniform", 22);
  test.Attr("shape", std::vector<int64_t>{20000});
  test.Attr("dtype", static_cast<int64_t>(E::kFloat16));
  test.Attr("low", 1.0f - 0x1p-11f);
  test.Attr("high", 1.0f);
  test.OutputTensor("output", Values(E::kFloat16, {20000}, std::vector<double>(20000)));
  for (double v : AsDoubles(test.RunAndGet()[0])) ASSERT_LT(v, 1.0);
}

TEST(RandomOpsTest, UniformWithEqualBoundsIsThatValue) {
  OpTester test("RandomUniform", 1);
  test.Attr("shape", std::vector<int64_t>{3});
  test.Attr("low", 2.5f);
  test.Attr("high", 2.5f);
  test.Output<float>("output", {3}, {2.5f, 2.5f, 2.5f});
  test.Run();
}

TEST(RandomOpsTest, NormalMeanVarianceAndOneSigmaMass) {
  for (E type : {E::kFloat, E::kDouble}) {
    SCOPED_TRACE(ElementTypeName(type));
    OpTester test("RandomNormalLike", 22);
    test.InputTensor("input", Values(E::kInt32, {kDraws}, std::vector<double>(kDraws)));
    test.Attr("dtype", static_cast<int64_t>(type));
    test.Attr("mean", 2.0f);
    test.Attr("scale", 3.0f);
    test.OutputTensor("output", Values(type, {kDraws}, std::vector<double>(kDraws)));
    test.Attr("seed", 11.0f);  // deterministic in CI (pytest covers unseeded draws)
    const std::vector<double> values = AsDoubles(test.RunAndGet()[0]);
    const Moments m = MomentsOf(values);
    EXPECT_NEAR(m.mean, 2.0, 5 * 3.0 / std::sqrt(kDraws));
    EXPECT_NEAR(m.variance, 9.0, 5 * std::sqrt(2 * 81.0 / kDraws));  // normal: var(s^2) = 2 s^4
    int64_t inside = 0;
    for (double v : values) inside += std::fabs(v - 2.0) < 3.0;
    const double p = std::erf(1 / std::sqrt(2.0));  // 0.6827
    EXPECT_NEAR(static_cast<double>(inside) / kDraws, p, 5 * std::sqrt(p * (1 - p) / kDraws));
  }
}

TEST(RandomOpsTest, BernoulliFrequenciesMatchEachProbability) {
  const std::vector<double> groups = {0.0, 0.1, 0.5, 0.9, 1.0};
  std::vector<double> p;
  for (int64_t i = 0; i < kDraws; ++i) p.push_back(groups[i % groups.size()]);
  OpTester test("Bernoulli", 22);
  test.InputTensor("input", Values(E::kDouble, {kDraws}, p));
  test.Attr("dtype", static_cast<int64_t>(E::kBool));
  test.OutputTensor("output", Values(E::kBool, {kDraws}, std::vector<double>(kDraws)));
  test.Attr("seed", 11.0f);  // deterministic in CI (pytest covers unseeded draws)
  const std::vector<double> drawn = AsDoubles(test.RunAndGet()[0]);
  const int64_t per_group = kDraws / static_cast<int64_t>(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    double ones = 0;
    for (size_t i = g; i < drawn.size(); i += groups.size()) ones += drawn[i];
    const double frequency = ones / static_cast<double>(per_group);
    if (groups[g] == 0.0 || groups[g] == 1.0) {
      EXPECT_EQ(frequency, groups[g]);  // exactly: u < 0 never holds, u < 1 always
    } else {
      EXPECT_NEAR(frequency, groups[g],
                  5 * std::sqrt(groups[g] * (1 - groups[g]) / static_cast<double>(per_group)));
    }
  }
}

TEST(RandomOpsTest, MultinomialFrequenciesMatchSoftmaxOfTheLogits) {
  // Unnormalized log-probabilities: log(1, 2, 0, 7) + 40 (softmax removes the offset), so
  // probabilities 0.1, 0.2, 0, 0.7; the -inf class is never drawn.
  const std::vector<double> probabilities = {0.1, 0.2, 0.0, 0.7};
  std::vector<float> logits;
  for (double w : {1.0, 2.0, 0.0, 7.0})
    logits.push_back(static_cast<float>(w > 0 ? std::log(w) + 40 : -kInf));
  OpTester test("Multinomial", 7);
  test.Input<float>("input", {1, 4}, logits);
  test.Attr("sample_size", kDraws);
  test.Attr("dtype", static_cast<int64_t>(E::kInt64));
  test.Output<int64_t>("output", {1, kDraws}, std::vector<int64_t>(kDraws));
  std::vector<double> counts(4, 0.0);
  test.Attr("seed", 11.0f);  // deterministic in CI (pytest covers unseeded draws)
  for (double c : AsDoubles(test.RunAndGet()[0])) counts.at(static_cast<size_t>(c)) += 1;
  for (size_t c = 0; c < 4; ++c) {
    const double p = probabilities[c];
    EXPECT_NEAR(counts[c] / kDraws, p, 5 * std::sqrt(p * (1 - p) / kDraws) + 1e-12) << c;
  }
}

// ---------------------------------------------------------------------------------------------
// Seeds.

TEST(RandomOpsTest, SeededModelsRepeatInEveryRunAndSession) {
  for (const char* op :
       {"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike"}) {
    SCOPED_TRACE(op);
    const bool like = std::string(op).find("Like") != std::string::npos;
    const std::string seeded = RandomModel(op, 22, E::kFloat, true, 7.0f);
    InferenceSession first, second;
    first.Load(seeded.data(), seeded.size());
    second.Load(seeded.data(), seeded.size());
    const std::vector<double> a = RunModel(first, like);
    EXPECT_EQ(a, RunModel(first, like));   // another run
    EXPECT_EQ(a, RunModel(second, like));  // another session
    const std::string other = RandomModel(op, 22, E::kFloat, true, 8.0f);
    InferenceSession other_seed;
    other_seed.Load(other.data(), other.size());
    EXPECT_NE(a, RunModel(other_seed, like));
    const std::string unseeded = RandomModel(op, 22, E::kFloat, false, 0);
    InferenceSession fresh;
    fresh.Load(unseeded.data(), unseeded.size());
    const std::vector<double> b = RunModel(fresh, like);
    EXPECT_NE(b, RunModel(fresh, like));  // unseeded runs differ
    EXPECT_NE(a, b);
  }
}

// ---------------------------------------------------------------------------------------------
// Shapes, types and refusals.

TEST(RandomOpsTest, EmptyShapesAndScalars) {
  OpTester empty("RandomNormal", 22);
  empty.Attr("shape", std::vector<int64_t>{0, 3});
  empty.Output<float>("output", {0, 3}, {});
  empty.Run();
  OpTester scalar("RandomUniform", 22);
  scalar.Attr("shape", std::vector<int64_t>{});
  scalar.Attr("low", 4.0f);
  scalar.Attr("high", 4.0f);
  scalar.Output<float>("output", {}, {4.0f});
  scalar.Run();
  OpTester multinomial("Multinomial", 22);
  multinomial.Input<float>("input", {0, 3}, {});
  multinomial.Attr("sample_size", int64_t{2});
  multinomial.Output<int32_t>("output", {0, 2}, {});
  multinomial.Run();
}

TEST(RandomOpsTest, Refusals) {
  {
    OpTester test("RandomUniform", 22);
    test.Attr("shape", std::vector<int64_t>{2});
    test.Attr("low", 3.0f);
    test.Attr("high", 1.0f);
    test.Output<float>("output", {2}, {0, 0});
    test.ExpectFailure("low 3 must be <= high 1");
  }
  {
    OpTester test("RandomNormal", 22);
    test.Attr("shape", std::vector<int64_t>{2, -1});
    test.Output<float>("output", {2}, {0, 0});
    test.ExpectFailure("negative dim");
  }
  {
    OpTester test("RandomUniformLike", 22);
    test.Input<int32_t>("input", {2}, {1, 2});
    test.Output<float>("output", {2}, {0, 0});
    test.ExpectFailure("has type tensor(int32), not in constraint T2");
  }
  {
    OpTester test("Bernoulli", 22);
    test.Input<float>("input", {3}, {0.5f, 1.5f, 0.2f});
    test.Output<float>("output", {3}, {0, 0, 0});
    test.ExpectFailure("input probability 1 is 1.5, outside [0, 1]");
  }
  {
    OpTester test("Multinomial", 22);
    test.Input<float>("input", {1, 2}, {0.0f, std::nanf("")});
    test.Output<int32_t>("output", {1, 1}, {0});
    test.ExpectFailure("input[0, 1] is nan");
  }
  {
    OpTester test("Multinomial", 22);
    test.Input<float>(
        "input", {1, 2},
        {-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()});
    test.Output<int32_t>("output", {1, 1}, {0});
    test.ExpectFailure("input row 0 has no finite logit");
  }
  {
    OpTester test("Multinomial", 22);
    test.Input<float>("input", {3}, {0, 0, 0});
    test.Output<int32_t>("output", {1, 1}, {0});
    test.ExpectFailure("input must be [batch_size, class_size], got [3]");
  }
}

}  // namespace
}  // namespace prism::testing

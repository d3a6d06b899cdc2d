// Self-tests of the comparison every kernel test relies on (tests/common/tensor_compare.h):
// planted precision faults must be reported by the per-type default tolerance (and were not by
// the old single atol 1e-5 / rtol 1e-3), ULP distances, and sequence element types.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

// The single tolerance every floating type had before the per-type defaults.
const Tolerance kOldDefault{1e-5, 1e-3};

template <typename To, typename From>
std::vector<To> RoundThrough(const std::vector<From>& values) {
  std::vector<To> out;
  for (From v : values) out.push_back(static_cast<To>(v));
  return out;
}

// Planted fault: a double kernel that computes in float. Its results are the correct ones
// rounded through float.
TEST(TensorCompareSelfTest, DoubleComputedInFloatIsReported) {
  const std::vector<double> correct = {std::exp(NearOne(1)), 1.0 / 3, -std::sqrt(2.0), 1e-3 / 7};
  const std::vector<double> in_float = RoundThrough<double>(RoundThrough<float>(correct));
  const Tensor expected = MakeTensor<double>({4}, correct);
  const Tensor actual = MakeTensor<double>({4}, in_float);
  EXPECT_EQ(CompareTensors(expected, actual, kOldDefault), "");
  EXPECT_EQ(CompareTensors(expected, actual, Tolerance{}),
            "4 of 4 elements differ (double tolerance atol 1e-15 rtol 1e-12): "
            "[0] expected 2.7182818309906427 got 2.7182817459106445 "
            "[1] expected 0.33333333333333331 got 0.3333333432674408 "
            "[2] expected -1.4142135623730951 got -1.4142135381698608 "
            "[3] expected 0.00014285714285714287 got 0.00014285714132711291");
}

// Planted fault: a float kernel that computes in float16.
TEST(TensorCompareSelfTest, FloatComputedInHalfIsReported) {
  const std::vector<float> correct = {std::exp(1.f), 1.f / 3, -0.1f, 1000.7f};
  std::vector<float> in_half;
  for (float v : correct) in_half.push_back(Float16(v).ToFloat());
  const Tensor expected = MakeTensor<float>({4}, correct);
  const Tensor actual = MakeTensor<float>({4}, in_half);
  EXPECT_EQ(CompareTensors(expected, actual, kOldDefault), "");
  EXPECT_EQ(CompareTensors(expected, actual, Tolerance{}),
            "4 of 4 elements differ (float tolerance atol 1e-07 rtol 1e-05): "
            "[0] expected 2.71828175 got 2.71875 [1] expected 0.333333343 got 0.333251953 "
            "[2] expected -0.100000001 got -0.0999755859 [3] expected 1000.70001 got 1000.5");
}

// Planted fault: a float16 Softmax over 256 values that accumulates in float16 (every exp and
// every partial sum rounded to half) instead of float: 3-4 ULP off. The old half Softmax tests
// allowed atol 1e-3, rtol 1e-2.
TEST(TensorCompareSelfTest, HalfSoftmaxAccumulatedInHalfIsReported) {
  const std::vector<Float16> x = SpreadValues<Float16>(256, -2.f, 2.f);
  const std::vector<float> wide = Widen(x);
  float max_value = wide[0];
  for (float v : wide) max_value = std::max(max_value, v);
  float sum = 0;
  Float16 half_sum(0.f);
  for (float v : wide) {
    sum += std::exp(v - max_value);
    half_sum = Float16(half_sum.ToFloat() + Float16(std::exp(v - max_value)).ToFloat());
  }
  std::vector<float> correct, in_half;
  for (float v : wide) {
    correct.push_back(std::exp(v - max_value) / sum);
    in_half.push_back(Float16(std::exp(v - max_value)).ToFloat() / half_sum.ToFloat());
  }
  const Tensor expected = MakeTensor<Float16>({256}, RoundTo<Float16>(correct));
  const Tensor actual = MakeTensor<Float16>({256}, RoundTo<Float16>(in_half));
  EXPECT_EQ(CompareTensors(expected, actual, Tolerance{1e-3, 1e-2}), "");
  EXPECT_EQ(CompareTensors(expected, actual, Tolerance{}),
            "195 of 256 elements differ (float16 tolerance 2 ulp): "
            "[0] expected 0.000468016 got 0.000467062 (4 ulp) "
            "[2] expected 0.00120354 got 0.00120068 (3 ulp) "
            "[3] expected 0.014267 got 0.0142365 (4 ulp) "
            "[4] expected 0.00309372 got 0.003088 (3 ulp) "
            "[5] expected 0.000671864 got 0.000670433 (3 ulp)");
}

// A double test whose inputs are exact in float cannot see a kernel computing in float:
// DoubleExpected refuses such inputs.
TEST(TensorCompareSelfTest, DoubleExpectedRejectsInputsExactInFloat) {
  EXPECT_NONFATAL_FAILURE(DoubleExpected([]<typename C>() { return std::vector<C>{C(1) / 4}; }),
                          "these inputs cannot tell a double kernel from one that computes in "
                          "float");
}

TEST(TensorCompareSelfTest, UlpDistance) {
  const auto distance = [](float a, float b) {
    return UlpDistance(MakeTensor<Float16>({1}, {Float16(a)}),
                       MakeTensor<Float16>({1}, {Float16(b)}), 0);
  };
  EXPECT_EQ(distance(1.f, 1.f), 0u);
  EXPECT_EQ(distance(1.f, 1.f + 0x1p-10f), 1u);
  EXPECT_EQ(distance(1.f, 1.f - 0x1p-11f), 1u);  // the step below 1 is half the step above
  EXPECT_EQ(distance(0.f, -0.f), 0u);
  EXPECT_EQ(distance(0x1p-24f, -0x1p-24f), 2u);  // smallest subnormals on either side of zero
  EXPECT_EQ(distance(65504.f, std::numeric_limits<float>::infinity()), 1u);
  EXPECT_EQ(distance(1.f, std::nanf("")), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(UlpDistance(MakeTensor<double>({1}, {-std::numeric_limits<double>::max()}),
                        MakeTensor<double>({1}, {std::numeric_limits<double>::max()}), 0),
            2 * ((uint64_t{0x7fe} << 52) | ((uint64_t{1} << 52) - 1)));
}

TEST(TensorCompareSelfTest, HalfTypesAllowTwoUlp) {
  const Tensor one = MakeTensor<BFloat16>({1}, {BFloat16(1.f)});
  const auto off = [](int ulp) {
    return MakeTensor<BFloat16>({1}, {BFloat16::FromBits(static_cast<uint16_t>(0x3f80 + ulp))});
  };
  EXPECT_EQ(CompareTensors(one, off(2), Tolerance{}), "");
  EXPECT_EQ(
      CompareTensors(one, off(3), Tolerance{}),
      "1 of 1 elements differ (bfloat16 tolerance 2 ulp): [0] expected 1 got 1.02344 (3 ulp)");
}

TEST(TensorCompareSelfTest, ToleranceTable) {
  EXPECT_EQ(Tolerance{}.Describe(ElementType::kDouble), "atol 1e-15 rtol 1e-12");
  EXPECT_EQ(Tolerance{}.Describe(ElementType::kFloat), "atol 1e-07 rtol 1e-05");
  EXPECT_EQ(Tolerance{}.Describe(ElementType::kFloat16), "2 ulp");
  EXPECT_EQ(Tolerance{}.Describe(ElementType::kBFloat16), "2 ulp");
  const Tolerance spec = Tolerance::OnnxSpecData();
  EXPECT_EQ(spec.Describe(ElementType::kFloat), "atol 1e-07 rtol 0.001");
  EXPECT_EQ(spec.Describe(ElementType::kFloat16), "atol 1e-07 rtol 0.001");
  EXPECT_EQ(spec.Describe(ElementType::kBFloat16), "atol 1e-07 rtol 0.015625");
  EXPECT_EQ(spec.Describe(ElementType::kDouble), "atol 1e-15 rtol 1e-12");
  EXPECT_THROW(Tolerance{}.Set(ElementType::kInt32, Bounds{1, 0, 0}), std::exception);
  // Integers stay exact whatever the tolerance says.
  EXPECT_NE(CompareTensors(MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {2}),
                           Tolerance{10, 10}),
            "");
}

// Spec data (numpy's rounding, e.g. 4-digit AveragePool outputs) keeps ONNX's float tolerance;
// double spec data stays tight.
TEST(TensorCompareSelfTest, OnnxSpecDataTolerance) {
  const Tolerance spec = Tolerance::OnnxSpecData();
  EXPECT_EQ(CompareTensors(MakeTensor<float>({1}, {0.1511f}), MakeTensor<float>({1}, {0.15105554f}),
                           spec),
            "");
  EXPECT_NE(
      CompareTensors(MakeTensor<double>({1}, {1.0}), MakeTensor<double>({1}, {NearOne(1)}), spec),
      "");
}

// Planted fault: sequences whose element types differ used to compare equal when empty (only
// the elements were compared).
TEST(TensorCompareSelfTest, SequenceElementTypeIsCompared) {
  const Value floats(TensorSequence{ElementType::kFloat, {}});
  const Value int64s(TensorSequence{ElementType::kInt64, {}});
  EXPECT_EQ(CompareValues(floats, floats, Tolerance{}), "");
  EXPECT_EQ(CompareValues(floats, int64s, Tolerance{}),
            "sequence element type: expected float, got int64");
  const Value one_float(TensorSequence{ElementType::kFloat, {MakeTensor<float>({1}, {1.f})}});
  const Value one_int(TensorSequence{ElementType::kInt64, {MakeTensor<int64_t>({1}, {1})}});
  EXPECT_EQ(CompareValues(one_float, one_int, Tolerance{}),
            "sequence element type: expected float, got int64");
}

}  // namespace
}  // namespace prism::testing

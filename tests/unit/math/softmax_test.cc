// Softmax on the CPU EP. Expected values come from onnxruntime 1.31 (checked against numpy for
// the opset 1/11 coerce-to-2-D semantics, which onnx.reference does not implement) on inputs
// that are exact in float16/bfloat16; one case is hand-checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

std::vector<Float16> H(std::initializer_list<float> values) {
  std::vector<Float16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

std::vector<BFloat16> B(std::initializer_list<float> values) {
  std::vector<BFloat16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

// Hand-checked: opset 13 normalizes along axis 0 only; opset 11 with axis 0 normalizes the
// whole tensor as one row.
TEST(SoftmaxTest, HandCheckedAxisSemanticsDifferBetweenOpsets) {
  const float a = 1.f / (1.f + std::exp(1.f));  // e^0 / (e^0 + e^1)
  OpTester v13("Softmax", 13);
  v13.Input<float>("x", {2, 2}, {0, 1, 1, 0});
  v13.Attr("axis", int64_t{0});
  v13.Output<float>("y", {2, 2}, {a, 1 - a, 1 - a, a});
  v13.Run();

  const float s = 2.f + 2.f * std::exp(1.f);
  OpTester v11("Softmax", 11);
  v11.Input<float>("x", {2, 2}, {0, 1, 1, 0});
  v11.Attr("axis", int64_t{0});
  v11.Output<float>("y", {2, 2}, {1 / s, std::exp(1.f) / s, std::exp(1.f) / s, 1 / s});
  v11.Run();
}

TEST(SoftmaxTest, Opset1FloatDefaultAxisCoercesTrailingBlock) {
  OpTester test("Softmax", 1);
  test.Input<float>(
      "x", {2, 3, 4},
      {1.0f,  1.75f,  -3.0f,  1.75f,  -0.25f, 0.0f,   0.75f,  -1.5f, 2.75f, -2.75f, -1.5f, -0.75f,
       0.25f, -0.75f, -2.25f, -2.75f, -3.0f,  -2.75f, -2.25f, 2.75f, -2.0f, 0.75f,  1.5f,  -1.75f});
  test.Output<float>(
      "y", {2, 3, 4},
      {0.0781154409f,  0.16537039f,    0.00143073418f, 0.16537039f,    0.0223804489f,
       0.0287370645f,  0.0608363673f,  0.0064121061f,  0.44952333f,    0.00183709909f,
       0.0064121061f,  0.0135744289f,  0.051994808f,   0.0191278215f,  0.00426799385f,
       0.00258866907f, 0.00201605749f, 0.00258866907f, 0.00426799385f, 0.633426428f,
       0.00548021263f, 0.0857249424f,  0.181479722f,   0.00703673251f});
  test.Run();
}

TEST(SoftmaxTest, Opset1DoubleAxis2) {
  OpTester test("Softmax", 1);
  test.Input<double>("x", {2, 3, 2},
                     {-1.5, -0.5, -1.5, 2.75, -2, 2.25, 1.75, 2, -2.5, -0.75, 0.75, -0.25});
  test.Attr("axis", int64_t{2});
  test.Output<double>(
      "y", {2, 3, 2},
      {0.2689414213699951, 0.7310585786300049, 0.014063627043245474, 0.9859363729567544,
       0.014063627043245474, 0.9859363729567544, 0.43782349911420188, 0.56217650088579807,
       0.1480471980316895, 0.85195280196831058, 0.7310585786300049, 0.2689414213699951});
  test.Run();
}

TEST(SoftmaxTest, Opset1Float16Axis0) {
  OpTester test("Softmax", 1);
  test.Input<Float16>("x", {2, 3}, H({0.75, 1.0, 0.75, -2.75, 2.75, 0.25}));
  test.Attr("axis", int64_t{0});
  test.Output<Float16>(
      "y", {2, 3},
      H({0.0884399414, 0.113525391, 0.0884399414, 0.00267028809, 0.653320312, 0.0536193848}));
  test.Run();
}

TEST(SoftmaxTest, Opset11FloatNegativeAxis) {
  OpTester test("Softmax", 11);
  test.Input<float>(
      "x", {2, 2, 3},
      {2.25f, -1.5f, -1.0f, 2.25f, -2.0f, -2.75f, -1.0f, 1.0f, -2.5f, 2.0f, -1.0f, -1.75f});
  test.Attr("axis", int64_t{-2});
  test.Output<float>(
      "y", {2, 2, 3},
      {0.48000896f, 0.0112887286f, 0.0186119676f, 0.48000896f, 0.00684696017f, 0.00323427492f,
       0.0331454091f, 0.244913295f, 0.00739574106f, 0.665743351f, 0.0331454091f, 0.0156567842f});
  test.Run();
}

TEST(SoftmaxTest, Opset11DoubleDefaultAxis) {
  OpTester test("Softmax", 11);
  test.Input<double>("x", {2, 2, 2}, {0.25, 2.25, 2.25, 2, -1.25, -3, 1.5, 1});
  test.Output<double>(
      "y", {2, 2, 2},
      {0.046440962315144024, 0.34315487583492343, 0.34315487583492343, 0.26724928601500908,
       0.038016826885049607, 0.0066063339252879728, 0.59468322836773901, 0.36069361082192342});
  test.Run();
}

TEST(SoftmaxTest, Opset11Float16Axis1) {
  OpTester test("Softmax", 11);
  test.Input<Float16>("x", {2, 4}, H({1.5, -3.0, -3.0, 0.0, -1.0, -0.5, 2.5, -2.0}));
  test.Attr("axis", int64_t{1});
  test.Output<Float16>("y", {2, 4},
                       H({0.803222656, 0.00891876221, 0.00891876221, 0.179199219, 0.0276794434,
                          0.0456237793, 0.916503906, 0.0101852417}));
  test.Run();
}

TEST(SoftmaxTest, Opset13FloatDefaultLastAxis) {
  OpTester test("Softmax", 13);
  test.Input<float>("x", {2, 3, 4}, {0.0f,   -1.25f, -1.25f, 1.75f, -2.25f, -1.25f, -2.5f, -2.25f,
                                     -1.5f,  1.0f,   0.25f,  -0.5f, -2.0f,  1.75f,  1.75f, -1.75f,
                                     -2.75f, -1.25f, -2.25f, 1.75f, 0.0f,   0.0f,   -1.5f, 0.0f});
  test.Output<float>(
      "y", {2, 3, 4},
      {0.136470094f,  0.0390993357f, 0.0390993357f, 0.78533119f,   0.181914687f,  0.494495392f,
       0.141675308f,  0.181914687f,  0.0461779051f, 0.562562048f,  0.265735477f,  0.125524566f,
       0.0114513179f, 0.486922413f,  0.486922413f,  0.0147037832f, 0.0102936216f, 0.0461328067f,
       0.0169713125f, 0.926602244f,  0.310257405f,  0.310257405f,  0.0692277849f, 0.310257405f});
  test.Run();
}

TEST(SoftmaxTest, Opset13FloatMiddleAxisOnly) {
  OpTester test("Softmax", 13);
  test.Input<float>(
      "x", {2, 3, 2},
      {2.75f, -1.75f, 1.5f, -3.0f, -1.25f, 2.5f, 2.0f, -2.5f, 2.0f, 2.0f, -0.5f, -1.0f});
  test.Attr("axis", int64_t{1});
  test.Output<float>(
      "y", {2, 3, 2},
      {0.766389012f, 0.0140071893f, 0.219574139f, 0.00401312672f, 0.014036905f, 0.981979728f,
       0.48028782f, 0.0104713347f, 0.48028782f, 0.942599416f, 0.0394244231f, 0.0469292589f});
  test.Run();
}

TEST(SoftmaxTest, Opset13DoubleAxis0) {
  OpTester test("Softmax", 13);
  test.Input<double>("x", {3, 2}, {2.75, 2.5, 1, -0.75, -1.75, 2.5});
  test.Attr("axis", int64_t{0});
  test.Output<double>("y", {3, 2},
                      {0.84396522749289271, 0.49049080381663285, 0.14665916571649201,
                       0.019018392366734509, 0.0093756067906154272, 0.49049080381663285});
  test.Run();
}

TEST(SoftmaxTest, Opset13Float16NegativeAxis) {
  OpTester test("Softmax", 13);
  test.Input<Float16>("x", {2, 3, 2},
                      H({-1.5, 0.25, 1.0, -1.75, -1.25, 1.25, -2.0, 1.0, 2.5, 1.0, 0.75, -0.25}));
  test.Attr("axis", int64_t{-3});
  test.Output<Float16>(
      "y", {2, 3, 2},
      H({0.622558594, 0.320800781, 0.182373047, 0.0600891113, 0.11920166, 0.817382812, 0.377441406,
         0.679199219, 0.817382812, 0.939941406, 0.880859375, 0.182373047}));
  test.Run();
}

TEST(SoftmaxTest, Opset13BFloat16) {
  OpTester test("Softmax", 13);
  test.Input<BFloat16>("x", {2, 4}, B({2.75, -1.75, -1.0, 0.75, 0.75, -2.5, -2.25, 1.0}));
  test.Output<BFloat16>("y", {2, 4},
                        B({0.85546875, 0.00952148438, 0.0201416016, 0.115722656, 0.421875,
                           0.0163574219, 0.0209960938, 0.54296875}));
  test.Run();
}

TEST(SoftmaxTest, Opset13FloatLargeNumbers) {
  OpTester test("Softmax", 13);
  test.Input<float>("x", {2, 4}, {0.0f, 1.0f, 2.0f, 3.0f, 10000.0f, 10001.0f, 10002.0f, 10003.0f});
  test.Output<float>("y", {2, 4},
                     {0.0320586041f, 0.0871443227f, 0.236882836f, 0.643914282f, 0.0320586041f,
                      0.0871443227f, 0.236882836f, 0.643914282f});
  test.Run();
}

TEST(SoftmaxTest, Opset11DoubleLargeNumbers) {
  OpTester test("Softmax", 11);
  test.Input<double>("x", {1, 3}, {-1000, 1000, 999});
  test.Output<double>("y", {1, 3}, {0, 0.7310585786300049, 0.2689414213699951});
  test.Run();
}

TEST(SoftmaxTest, Opset1Float1d) {
  OpTester test("Softmax", 1);
  test.Input<float>("x", {5}, {2.0f, 0.75f, 2.5f, -0.75f, -1.25f});
  test.Attr("axis", int64_t{0});
  test.Output<float>("y", {5},
                     {0.329171717f, 0.0943092704f, 0.54271239f, 0.0210432429f, 0.0127633726f});
  test.Run();
}

TEST(SoftmaxErrorTest, AxisOutOfRange) {
  OpTester test("Softmax", 13);
  test.Input<float>("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("axis", int64_t{2});
  test.Output<float>("y", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("axis 2 is out of range [-2, 2)");
}

TEST(SoftmaxErrorTest, NegativeAxisOutOfRangeOpset11) {
  OpTester test("Softmax", 11);
  test.Input<float>("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("axis", int64_t{-3});
  test.Output<float>("y", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("axis -3 is out of range [-2, 2)");
}

TEST(SoftmaxErrorTest, ScalarInput) {
  OpTester test("Softmax", 13);
  test.Input<float>("x", {}, {1});
  test.Output<float>("y", {}, {1});
  test.ExpectFailure("input must have rank >= 1");
}

// Softmax of x seen as [outer, extent, inner] along `extent`, computed in C.
template <typename C>
std::vector<C> SoftmaxReference(const std::vector<C>& x, int outer, int extent, int inner) {
  std::vector<C> y(x.size());
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      const auto at = [&](int e) { return static_cast<size_t>((o * extent + e) * inner + i); };
      C max_value = x[at(0)];
      for (int e = 1; e < extent; ++e) max_value = std::max(max_value, x[at(e)]);
      C sum = 0;
      for (int e = 0; e < extent; ++e) sum += std::exp(x[at(e)] - max_value);
      for (int e = 0; e < extent; ++e) y[at(e)] = std::exp(x[at(e)] - max_value) / sum;
    }
  return y;
}

// Double Softmax computes in double: rows of 1 + k * 2^-30 (all 1 in float, where every output
// would be exactly 1/extent) must match long double to 1e-12.
TEST(SoftmaxDoublePrecisionTest, ExactToDoublePrecision) {
  std::vector<double> x;
  for (int i = 0; i < 12; ++i) x.push_back(NearOne(5 * i - 23) + (i >= 6 ? 2 : 0));
  const std::vector<double> expected = DoubleExpected(
      [&]<typename C>() { return SoftmaxReference(std::vector<C>(x.begin(), x.end()), 2, 3, 2); });
  OpTester test("Softmax", 13);
  test.Input<double>("x", {2, 3, 2}, x);
  test.Attr("axis", int64_t{1});
  test.Output<double>("y", {2, 3, 2}, expected);
  test.Run();
}

// float16/bfloat16 Softmax computes in float and rounds once: within 2 ULP of the float
// reference on the same half inputs, along the last axis and along a strided middle axis.
template <typename T>
class SoftmaxHalfPrecisionTest : public ::testing::Test {};
using HalfTypes = ::testing::Types<Float16, BFloat16>;
TYPED_TEST_SUITE(SoftmaxHalfPrecisionTest, HalfTypes);

TYPED_TEST(SoftmaxHalfPrecisionTest, WithinTwoUlpOfFloatReference) {
  using T = TypeParam;
  const std::vector<T> x = SpreadValues<T>(48, -6.f, 5.f);
  {
    OpTester test("Softmax", 13);
    test.Input<T>("x", {3, 16}, x);
    test.Output<T>("y", {3, 16}, RoundTo<T>(SoftmaxReference(Widen(x), 3, 16, 1)));
    test.Run();
  }
  {
    OpTester test("Softmax", 13);
    test.Input<T>("x", {2, 8, 3}, x);
    test.Attr("axis", int64_t{1});
    test.Output<T>("y", {2, 8, 3}, RoundTo<T>(SoftmaxReference(Widen(x), 2, 8, 3)));
    test.Run();
  }
}

}  // namespace
}  // namespace prism::testing

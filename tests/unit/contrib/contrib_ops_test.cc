// com.microsoft ops (part 1) on the CPU EP: hand-checked values (small integers chosen so the
// statistics are exact: every normalized pair has mean m and variance 0.25, so inv_std_var is 2)
// and the refusals of bad shapes, ids and unsupported attributes. Random inputs against
// onnxruntime are in tests/python/test_contrib_ops_oracle.py.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

std::vector<Float16> H(std::initializer_list<float> values) {
  std::vector<Float16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

// gelu(x) = 0.5 x (1 + erf(x / sqrt(2))): 0.5 (1 + 0.682689) at 1, 1 + 0.9545 at 2.
TEST(ContribGeluTest, HandChecked) {
  OpTester test("Gelu", 1, kMs);
  test.Input<float>("X", {4}, {0, 1, -1, 2});
  test.Output<float>("Y", {4},
                     {0, 0.8413447460685429f, -0.15865525393145707f, 1.9544997361036416f});
  test.Run();
}

// double computes with the exact library functions (float and the half types use the
// vectorized approximations, checked against onnxruntime by the Python oracle test).
TEST(ContribGeluTest, DoubleAndBFloat16) {
  {
    OpTester test("Gelu", 1, kMs);
    test.Input<double>("X", {3}, {1, -1, 2});
    test.Output<double>("Y", {3}, {0.8413447460685429, -0.15865525393145707, 1.9544997361036416});
    test.Run();
  }
  OpTester test("QuickGelu", 1, kMs);
  test.Attr("alpha", 1.0f);
  std::vector<BFloat16> x, y;
  for (float v : {0.0f, 1.0f, -2.0f}) x.emplace_back(v);
  for (float v : {0.0f, 0.7310585786f, -0.2384058440f}) y.emplace_back(v);  // x / (1 + e^-x)
  test.Input<BFloat16>("X", {3}, x);
  test.Output<BFloat16>("Y", {3}, y);
  test.Run();
}

// The bias is added per channel before Gelu: (0.5 + 0.5, -2 + 1) = (1, -1).
TEST(ContribBiasGeluTest, HandChecked) {
  OpTester test("BiasGelu", 1, kMs);
  test.Input<float>("X", {2, 2}, {0.5f, -2, 1.5f, 0});
  test.Input<float>("bias", {2}, {0.5f, 1});
  test.Output<float>(
      "Y", {2, 2},
      {0.8413447460685429f, -0.15865525393145707f, 1.9544997361036416f, 0.8413447460685429f});
  test.Run();
}

TEST(ContribBiasGeluTest, MissingBiasIsRefused) {
  OpTester test("BiasGelu", 1, kMs);
  test.Input<float>("X", {2}, {1, 2});
  test.MissingInput();
  test.Output<float>("Y", {2}, {0, 0});
  test.ExpectFailure("input 1 (bias) is required");
}

// tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
TEST(ContribFastGeluTest, HandCheckedWithAndWithoutBias) {
  {
    OpTester test("FastGelu", 1, kMs);
    test.Input<float>("X", {3}, {1, -1, 2});
    test.Output<float>("Y", {3}, {0.8411919906082768f, -0.15880800939172324f, 1.954597694087775f});
    test.Run();
  }
  OpTester test("FastGelu", 1, kMs);
  test.Input<float>("X", {2, 2}, {0, -2, 1, 0});
  test.Input<float>("bias", {2}, {1, 1});
  test.Output<float>(
      "Y", {2, 2},
      {0.8411919906082768f, -0.15880800939172324f, 1.954597694087775f, 0.8411919906082768f});
  test.Run();
}

TEST(ContribFastGeluTest, Float16ComputesInFloat) {
  OpTester test("FastGelu", 1, kMs);
  test.Input<Float16>("X", {2}, H({0.5f, 2}));
  test.Input<Float16>("bias", {2}, H({0.5f, 0}));
  test.Output<Float16>("Y", {2}, H({0.8411919906082768f, 1.954597694087775f}));
  test.Run();
}

TEST(ContribFastGeluTest, BiasOfTheWrongLengthIsRefused) {
  OpTester test("FastGelu", 1, kMs);
  test.Input<float>("X", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("bias", {2}, {1, 1});
  test.Output<float>("Y", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure(
      "input 1 (bias) must be 1-D of length 3 (the last dim of input [2,3]), got [2]");
}

// x sigmoid(alpha x): sigmoid(ln 3) = 0.75.
TEST(ContribQuickGeluTest, HandCheckedAlpha) {
  const float ln3 = std::log(3.0f);
  {
    OpTester test("QuickGelu", 1, kMs);
    test.Input<float>("X", {2}, {0, ln3 / 1.702f});
    test.Output<float>("Y", {2}, {0, 0.75f * ln3 / 1.702f});
    test.Run();
  }
  OpTester test("QuickGelu", 1, kMs);
  test.Attr("alpha", 2.0f);
  test.Input<float>("X", {2}, {ln3 / 2, -ln3 / 2});
  test.Output<float>("Y", {2}, {0.75f * ln3 / 2, -0.25f * ln3 / 2});
  test.Run();
}

TEST(ContribBiasAddTest, HandChecked) {
  OpTester test("BiasAdd", 1, kMs);
  test.Input<float>("X", {1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("bias", {2}, {10, 20});
  test.Input<float>("skip", {1, 2, 2}, {100, 200, 300, 400});
  test.Output<float>("Y", {1, 2, 2}, {111, 222, 313, 424});
  test.Run();
}

TEST(ContribBiasAddTest, TwoDimensionalXIsRefused) {
  OpTester test("BiasAdd", 1, kMs);
  test.Input<float>("X", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("bias", {2}, {10, 20});
  test.Input<float>("skip", {2, 2}, {1, 2, 3, 4});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("input 0 (X) must be 3-D [N, S, C], got [2,2]");
}

// s = input + skip + bias = (2, 3): mean 2.5, variance 0.25, inv_std_var 2, normalized (-1, 1),
// then gamma (2, 3) and beta (1, -1).
TEST(ContribSkipLayerNormTest, HandCheckedEveryOutput) {
  OpTester test("SkipLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<float>("input", {1, 1, 2}, {1, 2});
  test.Input<float>("skip", {1, 1, 2}, {1, 0});
  test.Input<float>("gamma", {2}, {2, 3});
  test.Input<float>("beta", {2}, {1, -1});
  test.Input<float>("bias", {2}, {0, 1});
  test.Output<float>("output", {1, 1, 2}, {-1, 2});
  test.Output<float>("mean", {1, 1, 1}, {2.5f});
  test.Output<float>("inv_std_var", {1, 1, 1}, {2});
  test.Output<float>("input_skip_bias_sum", {1, 1, 2}, {2, 3});
  test.Run();
}

// A [S, H] skip is shared by the batch: sums (1, 2) and (4, 5), each normalized to (-1, 1).
TEST(ContribSkipLayerNormTest, SkipSharedByTheBatch) {
  OpTester test("SkipLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<float>("input", {2, 1, 2}, {0, 2, 3, 5});
  test.Input<float>("skip", {1, 2}, {1, 0});
  test.Input<float>("gamma", {2}, {1, 1});
  test.Output<float>("output", {2, 1, 2}, {-1, 1, -1, 1});
  test.Output<float>("mean", {2, 1, 1}, {1.5f, 4.5f});
  test.Run();
}

TEST(ContribSkipLayerNormTest, Float16StatisticsAreFloat) {
  OpTester test("SkipLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<Float16>("input", {1, 2}, H({1, 2}));
  test.Input<Float16>("skip", {1, 2}, H({1, 1}));
  test.Input<Float16>("gamma", {2}, H({1, 1}));
  test.Output<Float16>("output", {1, 2}, H({-1, 1}));
  test.Output<float>("mean", {1, 1}, {2.5f});
  test.Output<float>("inv_std_var", {1, 1}, {2});
  test.Run();
}

TEST(ContribSkipLayerNormTest, BadShapesAreRefused) {
  {
    OpTester test("SkipLayerNormalization", 1, kMs);
    test.Input<float>("input", {1, 2, 2}, {1, 2, 3, 4});
    test.Input<float>("skip", {1, 1, 2}, {1, 0});
    test.Input<float>("gamma", {2}, {1, 1});
    test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("input 1 (skip) must have input's shape [1,2,2]");
  }
  {
    OpTester test("SkipLayerNormalization", 1, kMs);
    test.Input<float>("input", {1, 2}, {1, 2});
    test.Input<float>("skip", {1, 2}, {1, 0});
    test.Input<float>("gamma", {3}, {1, 1, 1});
    test.Output<float>("output", {1, 2}, {0, 0});
    test.ExpectFailure("input 2 (gamma) must be 1-D of length 2");
  }
  OpTester test("SkipLayerNormalization", 1, kMs);
  test.Input<float>("input", {2}, {1, 2});
  test.Input<float>("skip", {2}, {1, 0});
  test.Input<float>("gamma", {2}, {1, 1});
  test.Output<float>("output", {2}, {0, 0});
  test.ExpectFailure("input 0 (input) must be 3-D");
}

// s = (1, 5) + (0, 1) + bias (0, 1) = (1, 7): mean square 25, inv_std_var 0.2; mean stays 0.
TEST(ContribSkipSimplifiedLayerNormTest, HandCheckedEveryOutput) {
  OpTester test("SkipSimplifiedLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<float>("input", {1, 2}, {1, 5});
  test.Input<float>("skip", {1, 2}, {0, 1});
  test.Input<float>("gamma", {2}, {1, 2});
  test.Input<float>("bias", {2}, {0, 1});
  test.Output<float>("output", {1, 2}, {0.2f, 2.8f});
  test.Output<float>("mean", {1, 1}, {0});
  test.Output<float>("inv_std_var", {1, 1}, {0.2f});
  test.Output<float>("input_skip_bias_sum", {1, 2}, {1, 7});
  test.Run();
}

// Rows (1, 7) and (5, 5) both have mean square 25.
TEST(ContribSimplifiedLayerNormTest, HandChecked) {
  for (const char* domain : {"", kMs}) {
    OpTester test("SimplifiedLayerNormalization", 1, domain);
    test.Attr("epsilon", 0.0f);
    test.Input<float>("X", {2, 2}, {1, 7, 5, 5});
    test.Input<float>("scale", {2}, {1, 0.5f});
    test.Output<float>("Y", {2, 2}, {0.2f, 0.7f, 1, 0.5f});
    test.Output<float>("inv_std_var", {2, 1}, {0.2f, 0.2f});
    test.Run();
  }
}

// axis 0 normalizes everything (mean square 25); Y takes the scale's type.
TEST(ContribSimplifiedLayerNormTest, AxisZeroAndHalfScale) {
  OpTester test("SimplifiedLayerNormalization", 1);
  test.Attr("epsilon", 0.0f);
  test.Attr("axis", int64_t{0});
  test.Input<float>("X", {2, 2}, {1, 7, 5, 5});
  test.Input<Float16>("scale", {2, 2}, H({1, 1, 2, 0.5f}));
  test.Output<Float16>("Y", {2, 2}, H({0.2f, 1.4f, 2, 0.5f}));
  test.Output<float>("inv_std_var", {1, 1}, {0.2f});
  test.Run();
}

TEST(ContribSimplifiedLayerNormTest, RefusalsNameTheCause) {
  {
    OpTester test("SimplifiedLayerNormalization", 1);
    test.Input<float>("X", {2, 2}, {1, 7, 5, 5});
    test.Input<float>("scale", {3}, {1, 1, 1});
    test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("input 1 (scale) of shape [3] cannot be broadcast to X of shape [2,2]");
  }
  {
    OpTester test("SimplifiedLayerNormalization", 1);
    test.Attr("axis", int64_t{2});
    test.Input<float>("X", {2, 2}, {1, 7, 5, 5});
    test.Input<float>("scale", {2}, {1, 1});
    test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("attribute axis 2 is out of range [-2, 2)");
  }
  OpTester test("SimplifiedLayerNormalization", 1);
  test.Attr("stash_type", int64_t{11});
  test.Input<float>("X", {2}, {1, 7});
  test.Input<float>("scale", {2}, {1, 1});
  test.Output<float>("Y", {2}, {0, 0});
  test.ExpectFailure("attribute stash_type 11 is not supported");
}

// A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]].
TEST(ContribFusedMatMulTest, HandCheckedTransposesAndAlpha) {
  struct Case {
    int64_t trans_a, trans_b;
    float alpha;
    std::vector<float> expected;
  };
  for (const Case& c :
       {Case{0, 0, 1, {19, 22, 43, 50}}, Case{0, 1, 1, {17, 23, 39, 53}},
        Case{1, 0, 1, {26, 30, 38, 44}}, Case{1, 1, 0.5f, {11.5f, 15.5f, 17, 23}}}) {
    OpTester test("FusedMatMul", 1, kMs);
    test.Attr("transA", c.trans_a).Attr("transB", c.trans_b).Attr("alpha", c.alpha);
    test.Input<float>("A", {2, 2}, {1, 2, 3, 4});
    test.Input<float>("B", {2, 2}, {5, 6, 7, 8});
    test.Output<float>("Y", {2, 2}, c.expected);
    test.Run();
  }
}

// A stored [M=2, batch=2, K=1] is read as [batch, M, K]: A[0] = [[1], [3]], A[1] = [[2], [4]].
TEST(ContribFusedMatMulTest, HandCheckedTransBatchA) {
  OpTester test("FusedMatMul", 1, kMs);
  test.Attr("transBatchA", int64_t{1});
  test.Input<double>("A", {2, 2, 1}, {1, 2, 3, 4});
  test.Input<double>("B", {2, 1, 2}, {1, 10, 100, 1000});
  test.Output<double>("Y", {2, 2, 2}, {1, 10, 3, 30, 200, 2000, 400, 4000});
  test.Run();
}

// B stored [N=2, batch=2, K=1] with transB: B[b] = [[b0n0, b0n1]] read from strided rows.
TEST(ContribFusedMatMulTest, HandCheckedTransBatchBWithTransB) {
  OpTester test("FusedMatMul", 1, kMs);
  test.Attr("transBatchB", int64_t{1}).Attr("transB", int64_t{1});
  test.Input<Float16>("A", {2, 1, 1}, H({1, 2}));
  test.Input<Float16>("B", {2, 2, 1}, H({1, 2, 3, 4}));
  // batch 0: B[0] = [[1], [3]]^T = [[1, 3]]; batch 1: [[2, 4]] (times 2).
  test.Output<Float16>("Y", {2, 1, 2}, H({1, 3, 4, 8}));
  test.Run();
}

TEST(ContribFusedMatMulTest, BadShapesAreRefused) {
  {
    OpTester test("FusedMatMul", 1, kMs);
    test.Attr("transB", int64_t{1});
    test.Input<float>("A", {2, 2}, {1, 2, 3, 4});
    test.Input<float>("B", {2, 3}, {1, 2, 3, 4, 5, 6});
    test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("inner dimensions differ");
  }
  OpTester test("FusedMatMul", 1, kMs);
  test.Attr("transBatchA", int64_t{1});
  test.Input<float>("A", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("B", {2, 2}, {1, 2, 3, 4});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("transBatchA/transBatchB need A and B of one rank >= 3");
}

// Token 0: word (1, 0) + position (10, 20) + segment (200, 300) = (211, 320); token 1:
// (0, 1) + (30, 40) + (100, 100) = (130, 141). Each pair normalizes to (-1, 1), then gamma
// (2, 3) and beta (1, 1). mask_index counts the ones of the mask.
TEST(ContribEmbedLayerNormTest, HandCheckedEveryOutput) {
  OpTester test("EmbedLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<int32_t>("input_ids", {1, 2}, {0, 1});
  test.Input<int32_t>("segment_ids", {1, 2}, {1, 0});
  test.Input<float>("word_embedding", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("position_embedding", {2, 2}, {10, 20, 30, 40});
  test.Input<float>("segment_embedding", {2, 2}, {100, 100, 200, 300});
  test.Input<float>("gamma", {2}, {2, 3});
  test.Input<float>("beta", {2}, {1, 1});
  test.Input<int32_t>("mask", {1, 2}, {1, 0});
  test.Output<float>("output", {1, 2, 2}, {-1, 4, -1, 4});
  test.Output<int32_t>("mask_index", {1}, {1});
  test.Output<float>("embedding_sum", {1, 2, 2}, {211, 320, 130, 141});
  test.Run();
}

// position_ids (1, 0) swap the position rows; no segment, no mask (mask_index 0).
TEST(ContribEmbedLayerNormTest, PositionIds) {
  OpTester test("EmbedLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<int32_t>("input_ids", {1, 2}, {0, 1});
  test.MissingInput();
  test.Input<float>("word_embedding", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("position_embedding", {2, 2}, {10, 20, 30, 40});
  test.MissingInput();
  test.Input<float>("gamma", {2}, {1, 1});
  test.Input<float>("beta", {2}, {0, 0});
  test.MissingInput();
  test.Input<int32_t>("position_ids", {1, 2}, {1, 0});
  test.Output<float>("output", {1, 2, 2}, {-1, 1, -1, 1});
  test.Output<int32_t>("mask_index", {1}, {0});
  test.Output<float>("embedding_sum", {1, 2, 2}, {31, 40, 10, 21});
  test.Run();
}

TEST(ContribEmbedLayerNormTest, IdOutsideItsTableIsRefused) {
  OpTester test("EmbedLayerNormalization", 1, kMs);
  test.Input<int32_t>("input_ids", {1, 2}, {0, 2});
  test.MissingInput();
  test.Input<float>("word_embedding", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("position_embedding", {2, 2}, {10, 20, 30, 40});
  test.MissingInput();
  test.Input<float>("gamma", {2}, {1, 1});
  test.Input<float>("beta", {2}, {0, 0});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.Output<int32_t>("mask_index", {1}, {0});
  test.ExpectFailure("input 0 (input_ids) value 2 is out of range [0, 2) of its embedding table");
}

TEST(ContribEmbedLayerNormTest, SegmentIdsWithoutTheirTableAreRefused) {
  OpTester test("EmbedLayerNormalization", 1, kMs);
  test.Input<int32_t>("input_ids", {1, 2}, {0, 1});
  test.Input<int32_t>("segment_ids", {1, 2}, {0, 0});
  test.Input<float>("word_embedding", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("position_embedding", {2, 2}, {10, 20, 30, 40});
  test.MissingInput();
  test.Input<float>("gamma", {2}, {1, 1});
  test.Input<float>("beta", {2}, {0, 0});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure(
      "input 1 (segment_ids) and input 4 (segment_embedding) must be given together");
}

// float16 and bfloat16 compute in float and round once: within 2 ULP of a double reference
// on the same half inputs (a kernel rounding its sums or activations to the half type fails).
template <typename T>
class ContribHalfPrecisionTest : public ::testing::Test {};
using HalfTypes = ::testing::Types<Float16, BFloat16>;
TYPED_TEST_SUITE(ContribHalfPrecisionTest, HalfTypes);

TYPED_TEST(ContribHalfPrecisionTest, SkipLayerNormalization) {
  using T = TypeParam;
  constexpr int kRows = 3, kHidden = 16;
  const std::vector<T> x = SpreadValues<T>(kRows * kHidden, -4.f, 6.f);
  const std::vector<T> skip = SpreadValues<T>(kRows * kHidden, -3.f, 2.5f);
  const std::vector<T> gamma = SpreadValues<T>(kHidden, -2.f, 3.f);
  const std::vector<T> beta = SpreadValues<T>(kHidden, -1.5f, 1.f);
  const std::vector<T> bias = SpreadValues<T>(kHidden, -0.7f, 0.9f);
  std::vector<float> expected(x.size()), sums(x.size());
  for (int r = 0; r < kRows; ++r) {
    double mean = 0, squares = 0;
    for (int c = 0; c < kHidden; ++c) {
      const int i = r * kHidden + c;
      sums[i] = static_cast<float>(static_cast<double>(x[i].ToFloat()) + skip[i].ToFloat() +
                                   bias[c].ToFloat());
      mean += sums[i];
    }
    mean /= kHidden;
    for (int c = 0; c < kHidden; ++c)
      squares += (sums[r * kHidden + c] - mean) * (sums[r * kHidden + c] - mean);
    const double inv_std = 1.0 / std::sqrt(squares / kHidden + 1e-5);
    for (int c = 0; c < kHidden; ++c)
      expected[r * kHidden + c] = static_cast<float>(
          (sums[r * kHidden + c] - mean) * inv_std * gamma[c].ToFloat() + beta[c].ToFloat());
  }
  OpTester test("SkipLayerNormalization", 1, kMs);
  test.Attr("epsilon", 1e-5f);
  test.Input<T>("input", {kRows, kHidden}, x);
  test.Input<T>("skip", {kRows, kHidden}, skip);
  test.Input<T>("gamma", {kHidden}, gamma);
  test.Input<T>("beta", {kHidden}, beta);
  test.Input<T>("bias", {kHidden}, bias);
  test.Output<T>("output", {kRows, kHidden}, RoundTo<T>(expected));
  test.MissingOutput().MissingOutput();
  test.Output<T>("input_skip_bias_sum", {kRows, kHidden}, RoundTo<T>(sums));
  test.Run();
}

TYPED_TEST(ContribHalfPrecisionTest, BiasGeluAndFastGelu) {
  using T = TypeParam;
  constexpr int kRows = 4, kChannels = 24;
  const std::vector<T> x = SpreadValues<T>(kRows * kChannels, -5.f, 4.f);
  const std::vector<T> bias = SpreadValues<T>(kChannels, -1.f, 1.f);
  for (const char* op : {"BiasGelu", "FastGelu"}) {
    std::vector<float> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = static_cast<double>(x[i].ToFloat()) + bias[i % kChannels].ToFloat();
      expected[i] = static_cast<float>(
          std::string(op) == "BiasGelu"
              ? 0.5 * v * std::erfc(-v / std::sqrt(2.0))
              : 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
    }
    OpTester test(op, 1, kMs);
    test.Input<T>("X", {kRows, kChannels}, x);
    test.Input<T>("bias", {kChannels}, bias);
    test.Output<T>("Y", {kRows, kChannels}, RoundTo<T>(expected));
    test.Run();
  }
}

TYPED_TEST(ContribHalfPrecisionTest, FusedMatMul) {
  using T = TypeParam;
  constexpr int kBatch = 2, kM = 3, kK = 32, kN = 5;
  const std::vector<T> a = SpreadValues<T>(kBatch * kM * kK, -2.f, 2.f);
  const std::vector<T> b = SpreadValues<T>(kN * kK, -1.5f, 1.f);  // stored [N, K]: transB
  std::vector<float> expected(kBatch * kM * kN);
  for (int e = 0; e < kBatch; ++e)
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        double sum = 0;
        for (int k = 0; k < kK; ++k)
          sum += static_cast<double>(a[(e * kM + m) * kK + k].ToFloat()) * b[n * kK + k].ToFloat();
        expected[(e * kM + m) * kN + n] = static_cast<float>(0.25 * sum);
      }
  OpTester test("FusedMatMul", 1, kMs);
  test.Attr("transB", int64_t{1}).Attr("alpha", 0.25f);
  test.Input<T>("A", {kBatch, kM, kK}, a);
  test.Input<T>("B", {kN, kK}, b);
  test.Output<T>("Y", {kBatch, kM, kN}, RoundTo<T>(expected));
  test.Run();
}

}  // namespace
}  // namespace prism::testing

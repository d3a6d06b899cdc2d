// com.microsoft Attention on the CPU EP with hand-checked values. Weights are identity blocks
// so Q = K = V = input rows; with input rows e0 = [1, 0] and e1 = [0, 1] and one head of size 2
// the scores are scale * [[1, 0], [0, 1]], scale = 1 / sqrt(2), so an unmasked row weights its
// own key by sigmoid(1 / sqrt(2)) = 0.66976155. Random inputs against onnxruntime are in
// tests/python/test_contrib_attention_oracle.py.
#include <gtest/gtest.h>

#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";
constexpr float kOwn = 0.66976155f;  // sigmoid(1 / sqrt(2))
constexpr float kOther = 1.0f - kOwn;
constexpr float kSigmoid1 = 0.7310586f;  // sigmoid(1)

// input [1, 2, 2] = I, weights [I | I | I], bias 0, one head.
OpTester IdentityAttention(int64_t heads = 1) {
  OpTester test("Attention", 1, kMs);
  test.Attr("num_heads", heads);
  test.Input<float>("input", {1, 2, 2}, {1, 0, 0, 1});
  test.Input<float>("weights", {2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});
  test.Input<float>("bias", {6}, {0, 0, 0, 0, 0, 0});
  return test;
}

TEST(ContribAttentionTest, NoMask) {
  OpTester test = IdentityAttention();
  test.Output<float>("output", {1, 2, 2}, {kOwn, kOther, kOther, kOwn});
  test.Run();
}

// Two heads of size 1 read their own dim: head 0 sees rows [1, 0], head 1 rows [0, 1], scale 1.
TEST(ContribAttentionTest, HeadsStayApart) {
  OpTester test = IdentityAttention(2);
  test.Output<float>("output", {1, 2, 2}, {kSigmoid1, 0.5f, 0.5f, kSigmoid1});
  test.Run();
}

// Right padding: length 1 masks key 1 for both rows (exp(-10000) is 0 in float).
TEST(ContribAttentionTest, RightPaddingLengths) {
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {1}, {1});
  test.Output<float>("output", {1, 2, 2}, {1, 0, 1, 0});
  test.Run();
}

// [2B]: end 2, start 1 masks key 0.
TEST(ContribAttentionTest, LeftPaddingEndsAndStarts) {
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {2}, {2, 1});
  test.Output<float>("output", {1, 2, 2}, {0, 1, 0, 1});
  test.Run();
}

// A 3-D mask per query row: row 0 sees key 1 only, row 1 both.
TEST(ContribAttentionTest, RawMask3D) {
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {1, 2, 2}, {0, 1, 1, 1});
  test.Output<float>("output", {1, 2, 2}, {0, 1, kOther, kOwn});
  test.Run();
}

// Every key masked by a 2-D mask: each score moves by mask_filter_value alike (onnxruntime adds
// the value; it is not a -inf), so the softmax is nearly the unmasked one: in float,
// 0.70710677 - 10000 rounds to a step of 2^-10, leaving a gap of 0.70703125, whose sigmoid is
// 0.66974484.
TEST(ContribAttentionTest, FullyMaskedRowKeepsScores) {
  constexpr float kOwnMasked = 0.66974484f;
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {1, 2}, {0, 0});
  test.Output<float>("output", {1, 2, 2}, {kOwnMasked, 1 - kOwnMasked, 1 - kOwnMasked, kOwnMasked});
  test.Run();
}

TEST(ContribAttentionTest, Unidirectional) {
  OpTester test = IdentityAttention();
  test.Attr("unidirectional", int64_t{1});
  test.Output<float>("output", {1, 2, 2}, {1, 0, kOther, kOwn});
  test.Run();
}

// attention_bias [1, 1, 2, 2] of -100 off the diagonal: each row keeps its own key.
TEST(ContribAttentionTest, AttentionBias) {
  OpTester test = IdentityAttention();
  test.MissingInput();
  test.MissingInput();
  test.Input<float>("attention_bias", {1, 1, 2, 2}, {0, -100, -100, 0});
  test.Output<float>("output", {1, 2, 2}, {1, 0, 0, 1});
  test.Run();
}

// past key [0, 0] and value [5, 5] ahead of the new row e0: weights 1 - kOwn and kOwn.
TEST(ContribAttentionTest, PastAndPresent) {
  OpTester test("Attention", 1, kMs);
  test.Attr("num_heads", int64_t{1});
  test.Attr("unidirectional", int64_t{1});
  test.Input<float>("input", {1, 1, 2}, {1, 0});
  test.Input<float>("weights", {2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});
  test.Input<float>("bias", {6}, {0, 0, 0, 0, 0, 0});
  test.MissingInput();
  test.Input<float>("past", {2, 1, 1, 1, 2}, {0, 0, 5, 5});
  test.Output<float>("output", {1, 1, 2}, {kOwn + 5 * kOther, 5 * kOther});
  test.Output<float>("present", {2, 1, 1, 2, 2}, {0, 0, 1, 0, 5, 5, 1, 0});
  test.Run();
}

// qkv_hidden_sizes (2, 2, 4): two heads of size 1 for Q and K, 2 for V; V rows [1, 2, 0, 0]
// and [0, 0, 3, 4]: each head mixes its own V columns.
TEST(ContribAttentionTest, WiderValues) {
  OpTester test("Attention", 1, kMs);
  test.Attr("num_heads", int64_t{2});
  test.Attr("qkv_hidden_sizes", std::vector<int64_t>{2, 2, 4});
  test.Input<float>("input", {1, 2, 2}, {1, 0, 0, 1});
  test.Input<float>("weights", {2, 8}, {1, 0, 1, 0, 1, 2, 0, 0, 0, 1, 0, 1, 0, 0, 3, 4});
  test.Input<float>("bias", {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  test.Output<float>(
      "output", {1, 2, 4},
      {kSigmoid1, 2 * kSigmoid1, 1.5f, 2.0f, 0.5f, 1.0f, 3 * kSigmoid1, 4 * kSigmoid1});
  test.Run();
}

TEST(ContribAttentionTest, FourDimensionalMaskIsRefused) {
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {1, 1, 2, 2}, {1, 1, 1, 1});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("4-D input 3 (mask_index)");
}

TEST(ContribAttentionTest, MaskOfWrongLengthIsRefused) {
  OpTester test = IdentityAttention();
  test.Input<int32_t>("mask_index", {3}, {1, 1, 1});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("input 3 (mask_index) must be [1], [2], [1, 2] or [1, 2, 2], got [3]");
}

TEST(ContribAttentionTest, HeadsMustDivideHidden) {
  OpTester test = IdentityAttention(3);
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("must be divisible by num_heads 3");
}

TEST(ContribAttentionTest, PastOfWrongShapeIsRefused) {
  OpTester test = IdentityAttention();
  test.MissingInput();
  test.Input<float>("past", {2, 1, 2, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("input 4 (past) must be [2, 1, 1, past_sequence_length, 2]");
}

}  // namespace
}  // namespace prism::testing

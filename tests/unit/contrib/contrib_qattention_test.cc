// com.microsoft QAttention and QEmbedLayerNormalization with hand-checked values. QAttention's
// 8-bit operands dequantize to contrib_attention_test.cc's identity case (input rows e0, e1;
// weights [I | I | I]; one head of size 2), so a row weights its own key by
// sigmoid(1 / sqrt(2)). Random cases against onnxruntime are in
// tests/python/test_qattention_oracle.py.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";
constexpr float kOwn = 0.66976155f;  // sigmoid(1 / sqrt(2))
constexpr float kOther = 1.0f - kOwn;

// (input - 10) * 0.5 = I rows, (weight - 3) * 1 = [I | I | I]: qkv = I.
TEST(ContribQAttentionTest, ScalarZeroPointsDequantizeToIdentity) {
  OpTester test("QAttention", 1, kMs);
  test.Attr("num_heads", int64_t{1});
  test.Input<uint8_t>("input", {1, 2, 2}, {12, 10, 10, 12});
  test.Input<int8_t>("weight", {2, 6}, {4, 3, 4, 3, 4, 3, 3, 4, 3, 4, 3, 4});
  test.Input<float>("bias", {6}, {0, 0, 0, 0, 0, 0});
  test.Input<float>("input_scale", {}, {0.5f});
  test.Input<float>("weight_scale", {}, {1.0f});
  test.MissingInput();
  test.Input<uint8_t>("input_zero_point", {}, {10});
  test.Input<int8_t>("weight_zero_point", {}, {3});
  test.Output<float>("output", {1, 2, 2}, {kOwn, kOther, kOther, kOwn});
  test.Run();
}

// Per-column weight scales and zero points: column c holds (I + zero_c) / scale_c; the bias
// moves V's columns by (5, -5), which the probabilities carry to the output unchanged.
TEST(ContribQAttentionTest, PerColumnScalesZeroPointsAndBias) {
  OpTester test("QAttention", 1, kMs);
  test.Attr("num_heads", int64_t{1});
  test.Input<uint8_t>("input", {1, 2, 2}, {1, 0, 0, 1});
  // zero points (0, 1, 2, 3, 4, 5), scales (1, 0.5, 0.25, 1, 0.5, 0.25): stored = I / s + z.
  test.Input<uint8_t>("weight", {2, 6}, {1, 1, 6, 3, 6, 5, 0, 3, 2, 4, 4, 9});
  test.Input<float>("bias", {6}, {0, 0, 0, 0, 5, -5});
  test.Input<float>("input_scale", {}, {1.0f});
  test.Input<float>("weight_scale", {6}, {1, 0.5f, 0.25f, 1, 0.5f, 0.25f});
  test.MissingInput();
  test.Input<uint8_t>("input_zero_point", {}, {0});
  test.Input<uint8_t>("weight_zero_point", {6}, {0, 1, 2, 3, 4, 5});
  test.Output<float>("output", {1, 2, 2}, {kOwn + 5, kOther - 5, kOther + 5, kOwn - 5});
  test.Run();
}

TEST(ContribQAttentionTest, InputScaleMustBeOneValue) {
  OpTester test("QAttention", 1, kMs);
  test.Attr("num_heads", int64_t{1});
  test.Input<uint8_t>("input", {1, 2, 2}, {1, 0, 0, 1});
  test.Input<int8_t>("weight", {2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});
  test.Input<float>("bias", {6}, {0, 0, 0, 0, 0, 0});
  test.Input<float>("input_scale", {2}, {1, 1});
  test.Input<float>("weight_scale", {}, {1.0f});
  test.Output<float>("output", {1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("input 3 (input_scale) must hold one value");
}

// ContribEmbedLayerNormTest.HandCheckedEveryOutput's tables, stored as (value / scale) + zero.
TEST(ContribQEmbedLayerNormTest, DequantizesEveryTable) {
  OpTester test("QEmbedLayerNormalization", 1, kMs);
  test.Attr("epsilon", 0.0f);
  test.Input<int32_t>("input_ids", {1, 2}, {0, 1});
  test.Input<int32_t>("segment_ids", {1, 2}, {1, 0});
  test.Input<uint8_t>("word_embedding_quant", {2, 2}, {8, 7, 7, 8});         // s 1, z 7
  test.Input<uint8_t>("position_embedding_quant", {2, 2}, {1, 2, 3, 4});     // s 10, z 0
  test.Input<uint8_t>("segment_embedding_quant", {2, 2}, {11, 11, 21, 31});  // s 10, z 1
  test.Input<uint8_t>("layer_norm_weight_quant", {2}, {4, 6});               // s 0.5, z 0
  test.Input<uint8_t>("layer_norm_bias_quant", {2}, {2, 2});                 // s 1, z 1
  test.Input<int32_t>("mask", {1, 2}, {1, 0});
  test.Input<float>("word_embedding_scale", {}, {1.0f});
  test.Input<float>("position_embedding_scale", {}, {10.0f});
  test.Input<float>("segment_embedding_scale", {}, {10.0f});
  test.Input<float>("layer_norm_weight_scale", {}, {0.5f});
  test.Input<float>("layer_norm_bias_scale", {}, {1.0f});
  test.Input<uint8_t>("word_embedding_zero_point", {}, {7});
  test.Input<uint8_t>("position_embedding_zero_point", {}, {0});
  test.Input<uint8_t>("segment_embedding_zero_point", {}, {1});
  test.Input<uint8_t>("layer_norm_weight_zero_point", {}, {0});
  test.Input<uint8_t>("layer_norm_bias_zero_point", {}, {1});
  test.Output<float>("layernorm_out", {1, 2, 2}, {-1, 4, -1, 4});
  test.Output<int32_t>("mask_index_out", {1}, {1});
  test.Run();
}

}  // namespace
}  // namespace prism::testing

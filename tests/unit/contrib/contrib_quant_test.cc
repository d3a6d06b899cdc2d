// com.microsoft quantized ops and FusedConv on the CPU EP: hand-checked values (ties that round
// half to even, saturation, omitted zero points, broadcasting, per-axis scales, packed 4-bit
// weights) and the refusals of bad inputs. Random inputs against onnxruntime are in
// tests/python/test_contrib_quant_oracle.py.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "../graph/strict_inference_util.h"
#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

// x / 1 + 128: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2 (half to even), 300 and
// -300 saturate.
TEST(ContribQuantizeLinearTest, RoundsHalfToEvenAndSaturates) {
  OpTester test("QuantizeLinear", 1, kMs);
  test.Input<float>("x", {8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.0f, -300.0f, 2.4f});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {128});
  test.Output<uint8_t>("y", {8}, {128, 130, 130, 128, 126, 255, 0, 130});
  test.Run();
}

// Row 0: x / 0.5 + 1; row 1: x / 2 - 1 (1.5 rounds to 2).
TEST(ContribQuantizeLinearTest, PerAxisInt8) {
  OpTester test("QuantizeLinear", 1, kMs);
  test.Attr("axis", int64_t{0});
  test.Input<float>("x", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("y_scale", {2}, {0.5f, 2.0f});
  test.Input<int8_t>("y_zero_point", {2}, {1, -1});
  test.Output<int8_t>("y", {2, 2}, {3, 5, 1, 1});
  test.Run();
}

TEST(ContribQuantizeLinearTest, NoZeroPointGivesUint8) {
  OpTester test("QuantizeLinear", 1, kMs);
  test.Input<float>("x", {3}, {-1.0f, 2.5f, 3.5f});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Output<uint8_t>("y", {3}, {0, 2, 4});
  test.Run();
}

TEST(ContribDequantizeLinearTest, PerAxisAndInt32) {
  {
    OpTester test("DequantizeLinear", 1, kMs);
    test.Input<uint8_t>("x", {2, 2}, {10, 20, 30, 40});
    test.Input<float>("x_scale", {2}, {0.5f, 0.25f});
    test.Input<uint8_t>("x_zero_point", {2}, {10, 0});
    test.Output<float>("y", {2, 2}, {0.0f, 5.0f, 10.0f, 10.0f});
    test.Run();
  }
  OpTester test("DequantizeLinear", 1, kMs);
  test.Input<int32_t>("x", {2}, {-3, 7});
  test.Input<float>("x_scale", {}, {0.5f});
  test.Output<float>("y", {2}, {-1.5f, 3.5f});
  test.Run();
}

TEST(ContribQuantizeLinearTest, PerAxisScaleOfWrongLengthIsRefused) {
  OpTester test("QuantizeLinear", 1, kMs);
  test.Input<float>("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("y_scale", {2}, {1.0f, 1.0f});
  test.Output<uint8_t>("y", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("per-axis y_scale must be a scalar or 1-D of length 3");
}

// A = (10, 20, 30) - 10 at 0.5 = (0, 5, 10); B = 4 broadcast; C = (4, 9, 14) / 2 = (2, 4.5, 7)
// plus the zero point, added before rounding as onnxruntime does: 4.5 + 1 = 5.5 rounds to 6
// (not round(4.5) + 1 = 5), 4.5 + 2 = 6.5 rounds half to even to 6.
TEST(ContribQLinearAddTest, BroadcastsAndRoundsHalfToEven) {
  for (uint8_t c_zero : {uint8_t{1}, uint8_t{2}}) {
    OpTester test("QLinearAdd", 1, kMs);
    test.Input<uint8_t>("A", {3}, {10, 20, 30});
    test.Input<float>("A_scale", {}, {0.5f});
    test.Input<uint8_t>("A_zero_point", {}, {10});
    test.Input<uint8_t>("B", {1}, {4});
    test.Input<float>("B_scale", {}, {1.0f});
    test.Input<uint8_t>("B_zero_point", {}, {0});
    test.Input<float>("C_scale", {}, {2.0f});
    test.Input<uint8_t>("C_zero_point", {}, {c_zero});
    test.Output<uint8_t>(
        "C", {3}, c_zero == 1 ? std::vector<uint8_t>{3, 6, 8} : std::vector<uint8_t>{4, 6, 9});
    test.Run();
  }
}

// Omitted zero points are 0: (-2, 3) + (1, 1) at scale 1; [2, 1] + [2] broadcasts to [2, 2].
TEST(ContribQLinearAddTest, OmittedZeroPointsAndTwoDimensionalBroadcast) {
  OpTester test("QLinearAdd", 1, kMs);
  test.Input<int8_t>("A", {2, 1}, {-4, 6});
  test.Input<float>("A_scale", {}, {0.5f});
  test.MissingInput();
  test.Input<int8_t>("B", {2}, {1, 2});
  test.Input<float>("B_scale", {}, {1.0f});
  test.MissingInput();
  test.Input<float>("C_scale", {}, {1.0f});
  test.Output<int8_t>("C", {2, 2}, {-1, 0, 4, 5});
  test.Run();
}

// (2 * 0.5) * 2 / 4 = 0.5 -> 0 and (-6 * 0.5) * 2 / 4 = -1.5 -> -2 (half to even).
TEST(ContribQLinearMulTest, RoundsHalfToEven) {
  OpTester test("QLinearMul", 1, kMs);
  test.Input<int8_t>("A", {2}, {3, -5});
  test.Input<float>("A_scale", {}, {0.5f});
  test.Input<int8_t>("A_zero_point", {}, {1});
  test.Input<int8_t>("B", {2}, {2, 2});
  test.Input<float>("B_scale", {}, {1.0f});
  test.Input<int8_t>("B_zero_point", {}, {0});
  test.Input<float>("C_scale", {}, {4.0f});
  test.Input<int8_t>("C_zero_point", {}, {0});
  test.Output<int8_t>("C", {2}, {0, -2});
  test.Run();
}

TEST(ContribQLinearMulTest, Saturates) {
  OpTester test("QLinearMul", 1, kMs);
  test.Input<uint8_t>("A", {2}, {255, 0});
  test.Input<float>("A_scale", {}, {1.0f});
  test.Input<uint8_t>("A_zero_point", {}, {1});
  test.Input<uint8_t>("B", {2}, {255, 255});
  test.Input<float>("B_scale", {}, {1.0f});
  test.Input<uint8_t>("B_zero_point", {}, {0});
  test.Input<float>("C_scale", {}, {1.0f});
  test.Input<uint8_t>("C_zero_point", {}, {0});
  test.Output<uint8_t>("C", {2}, {255, 0});
  test.Run();
}

TEST(ContribQLinearAddTest, NonScalarScaleIsRefused) {
  OpTester test("QLinearAdd", 1, kMs);
  test.Input<uint8_t>("A", {2}, {1, 2});
  test.Input<float>("A_scale", {2}, {1.0f, 1.0f});
  test.MissingInput();
  test.Input<uint8_t>("B", {2}, {1, 2});
  test.Input<float>("B_scale", {}, {1.0f});
  test.MissingInput();
  test.Input<float>("C_scale", {}, {1.0f});
  test.Output<uint8_t>("C", {2}, {0, 0});
  test.ExpectFailure("A_scale must be one float (per-tensor)");
}

// x = (-5, 0, 5); alpha 0.25 gives -1.25, which is -2.5 steps of 0.5: rounds to -2.
TEST(ContribQLinearLeakyReluTest, HandChecked) {
  OpTester test("QLinearLeakyRelu", 1, kMs);
  test.Attr("alpha", 0.25f);
  test.Input<uint8_t>("X", {3}, {0, 10, 20});
  test.Input<float>("X_scale", {}, {0.5f});
  test.Input<uint8_t>("X_zero_point", {}, {10});
  test.Input<float>("Y_scale", {}, {0.5f});
  test.Input<uint8_t>("Y_zero_point", {}, {10});
  test.Output<uint8_t>("Y", {3}, {8, 10, 20});
  test.Run();
}

// sigmoid(0) = 0.5 is 128 steps of 1/256; sigmoid(127) = 1 saturates to 255.
TEST(ContribQLinearSigmoidTest, HandChecked) {
  OpTester test("QLinearSigmoid", 1, kMs);
  test.Input<uint8_t>("X", {3}, {0, 128, 255});
  test.Input<float>("X_scale", {}, {1.0f});
  test.Input<uint8_t>("X_zero_point", {}, {128});
  test.Input<float>("Y_scale", {}, {1.0f / 256});
  test.Input<uint8_t>("Y_zero_point", {}, {0});
  test.Output<uint8_t>("Y", {3}, {0, 128, 255});
  test.Run();
}

// Channel 0 averages 2.5 (rounds to 2), channel 1 averages 10.25.
TEST(ContribQLinearGlobalAveragePoolTest, NchwAndChannelsLast) {
  for (int64_t channels_last : {0, 1}) {
    OpTester test("QLinearGlobalAveragePool", 1, kMs);
    test.Attr("channels_last", channels_last);
    if (channels_last == 0) {
      test.Input<uint8_t>("X", {1, 2, 2, 2}, {1, 2, 3, 4, 10, 10, 10, 11});
    } else {
      test.Input<uint8_t>("X", {1, 2, 2, 2}, {1, 10, 2, 10, 3, 10, 4, 11});
    }
    test.Input<float>("x_scale", {}, {1.0f});
    test.Input<uint8_t>("x_zero_point", {}, {0});
    test.Input<float>("y_scale", {}, {1.0f});
    test.Input<uint8_t>("y_zero_point", {}, {0});
    test.Output<uint8_t>(
        "Y", channels_last ? std::vector<int64_t>{1, 1, 1, 2} : std::vector<int64_t>{1, 2, 1, 1},
        {2, 10});
    test.Run();
  }
}

TEST(ContribQLinearAveragePoolTest, TwoByTwoWindows) {
  OpTester test("QLinearAveragePool", 1, kMs);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Input<uint8_t>("X", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<uint8_t>("x_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {0});
  test.Output<uint8_t>("Y", {1, 1, 2, 2}, {3, 4, 6, 7});
  test.Run();
}

// A stride at the int64 limit with ceil_mode: one row of windows (the shape function's sizes are
// formed in 128 bits). Rows 0-1 of 0..15, 2x2 windows at columns 0-2: 2.5, 3.5, 4.5 rounded
// half to even.
TEST(ContribQLinearAveragePoolTest, CeilModeWithAStrideAtTheInt64Limit) {
  OpTester test("QLinearAveragePool", 1, kMs);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 1});
  test.Attr("ceil_mode", int64_t{1});
  std::vector<uint8_t> plane(16);
  for (int i = 0; i < 16; ++i) plane[i] = static_cast<uint8_t>(i);
  test.Input<uint8_t>("X", {1, 1, 4, 4}, plane);
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<uint8_t>("x_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {0});
  test.Output<uint8_t>("Y", {1, 1, 1, 3}, {2, 4, 4});
  test.Run();
}

// The first window covers a pad and 4: 4 / 2 with count_include_pad, 4 / 1 without.
TEST(ContribQLinearAveragePoolTest, CountIncludePad) {
  for (int64_t include : {0, 1}) {
    OpTester test("QLinearAveragePool", 1, kMs);
    test.Attr("kernel_shape", std::vector<int64_t>{1, 2});
    test.Attr("pads", std::vector<int64_t>{0, 1, 0, 0});
    test.Attr("count_include_pad", include);
    test.Input<int8_t>("X", {1, 1, 1, 2}, {4, 8});
    test.Input<float>("x_scale", {}, {1.0f});
    test.Input<int8_t>("x_zero_point", {}, {0});
    test.Input<float>("y_scale", {}, {1.0f});
    test.Input<int8_t>("y_zero_point", {}, {0});
    test.Output<int8_t>("Y", {1, 1, 1, 2}, {static_cast<int8_t>(include ? 2 : 4), 6});
    test.Run();
  }
}

// X0 shares Y's scale and zero point (copied); X1 = 5 at 0.5 is 2.5 at 1: rounds to 2.
TEST(ContribQLinearConcatTest, CopiesAndRequantizes) {
  OpTester test("QLinearConcat", 1, kMs);
  test.Attr("axis", int64_t{0});
  test.Input<float>("Y_scale", {}, {1.0f});
  test.Input<int8_t>("Y_zero_point", {}, {0});
  test.Input<int8_t>("X0", {2}, {1, 2});
  test.Input<float>("X0_scale", {}, {1.0f});
  test.Input<int8_t>("X0_zero_point", {}, {0});
  test.Input<int8_t>("X1", {1}, {5});
  test.Input<float>("X1_scale", {}, {0.5f});
  test.Input<int8_t>("X1_zero_point", {}, {0});
  test.Output<int8_t>("Y", {3}, {1, 2, 2});
  test.Run();
}

TEST(ContribQLinearConcatTest, IncompleteTripleIsRefused) {
  OpTester test("QLinearConcat", 1, kMs);
  test.Attr("axis", int64_t{0});
  test.Input<float>("Y_scale", {}, {1.0f});
  test.Input<int8_t>("Y_zero_point", {}, {0});
  test.Input<int8_t>("X0", {2}, {1, 2});
  test.Input<float>("X0_scale", {}, {1.0f});
  test.Output<int8_t>("Y", {2}, {1, 2});
  test.ExpectFailure("triples");
}

// A = (-1, 254): range [-1, 254] gives scale 1 and zero point 1, so A - zp = (-1, 254);
// B - zp = (1, 1): -1 + 254 = 253, times 1 * 0.5, plus bias 1.
TEST(ContribDynamicQuantizeMatMulTest, HandChecked) {
  OpTester test("DynamicQuantizeMatMul", 1, kMs);
  test.Input<float>("A", {1, 2}, {-1.0f, 254.0f});
  test.Input<uint8_t>("B", {2, 1}, {2, 2}, true);
  test.Input<float>("b_scale", {}, {0.5f}, true);
  test.Input<uint8_t>("b_zero_point", {}, {1}, true);
  test.Input<float>("bias", {1}, {1.0f}, true);
  test.Output<float>("Y", {1, 1}, {127.5f});
  test.Run();
}

// B row 0 holds 4-bit values 0..15 (two a byte, the first in the low nibble), scale 0.5.
std::vector<uint8_t> Ramp4Bit() {
  std::vector<uint8_t> bytes;
  for (int j = 0; j < 8; ++j) bytes.push_back(static_cast<uint8_t>((2 * j) | ((2 * j + 1) << 4)));
  return bytes;
}

// Default zero point 8: w_i = (i - 8) / 2, so ones give -4 and e_15 gives 3.5.
TEST(ContribMatMulNBitsTest, DefaultZeroPointIsEight) {
  OpTester test("MatMulNBits", 1, kMs);
  test.Attr("K", int64_t{16}).Attr("N", int64_t{1}).Attr("bits", int64_t{4});
  test.Attr("block_size", int64_t{16});
  std::vector<float> a(32, 0.0f);
  for (int i = 0; i < 16; ++i) a[i] = 1.0f;
  a[31] = 1.0f;
  test.Input<float>("A", {2, 16}, a);
  test.Input<uint8_t>("B", {1, 1, 8}, Ramp4Bit(), true);
  test.Input<float>("scales", {1}, {0.5f}, true);
  test.Output<float>("Y", {2, 1}, {-4.0f, 3.5f});
  test.Run();
}

// A packed zero point of 0 (low nibble): w_i = i / 2, ones give 60; bias adds 1.
TEST(ContribMatMulNBitsTest, PackedZeroPointAndBias) {
  OpTester test("MatMulNBits", 1, kMs);
  test.Attr("K", int64_t{16}).Attr("N", int64_t{1}).Attr("bits", int64_t{4});
  test.Attr("block_size", int64_t{16});
  test.Input<float>("A", {1, 16}, std::vector<float>(16, 1.0f));
  test.Input<uint8_t>("B", {1, 1, 8}, Ramp4Bit(), true);
  test.Input<float>("scales", {1}, {0.5f}, true);
  test.Input<uint8_t>("zero_points", {1}, {0xF0}, true);
  test.MissingInput();
  test.Input<float>("bias", {1}, {1.0f}, true);
  test.Output<float>("Y", {1, 1}, {61.0f});
  test.Run();
}

TEST(ContribMatMulNBitsTest, UnsupportedBitsAndBlockSizeAreRefused) {
  for (auto [bits, block] : {std::pair<int64_t, int64_t>{3, 16}, {4, 8}}) {
    OpTester test("MatMulNBits", 1, kMs);
    test.Attr("K", int64_t{16}).Attr("N", int64_t{1}).Attr("bits", bits);
    test.Attr("block_size", block);
    test.Input<float>("A", {1, 16}, std::vector<float>(16, 1.0f));
    test.Input<uint8_t>("B", {1, 1, 8}, Ramp4Bit(), true);
    test.Input<float>("scales", {1}, {0.5f}, true);
    test.Output<float>("Y", {1, 1}, {0.0f});
    test.ExpectFailure(bits == 3 ? "bits 3 is not supported (2, 4 or 8)"
                                 : "block_size must be a power of two");
  }
}

// K or N so large that N * K (rounded up to whole blocks) is not an int64: refused when the
// kernel is made, before any size is formed from them.
TEST(ContribMatMulNBitsTest, SizesBeyondInt64AreRefused) {
  for (bool large_n : {true, false}) {
    OpTester test("MatMulNBits", 1, kMs);
    const int64_t huge = std::numeric_limits<int64_t>::max();
    test.Attr("K", large_n ? int64_t{16} : huge).Attr("N", large_n ? huge : int64_t{1});
    test.Attr("bits", int64_t{4}).Attr("block_size", int64_t{16});
    test.Input<float>("A", {1, 16}, std::vector<float>(16, 1.0f));
    test.Input<uint8_t>("B", {1, 1, 8}, Ramp4Bit(), true);
    test.Input<float>("scales", {1}, {0.5f}, true);
    test.Output<float>("Y", {1, 1}, {0.0f});
    test.ExpectFailure("are too large");
  }
}

// Conv gives 2x + 0.5 = (-1.5, 1.5, 4.5), then the activation.
void RunFusedConv(const std::string& activation, const std::vector<float>& params,
                  const std::vector<float>& expected, bool with_z = false) {
  OpTester test("FusedConv", 1, kMs);
  if (!activation.empty()) test.Attr("activation", activation);
  if (!params.empty()) test.Attr("activation_params", params);
  test.Input<float>("X", {1, 1, 1, 3}, {-1.0f, 0.5f, 2.0f});
  test.Input<float>("W", {1, 1, 1, 1}, {2.0f});
  test.Input<float>("B", {1}, {0.5f});
  if (with_z) test.Input<float>("Z", {1, 1, 1, 3}, {1.0f, 1.0f, 1.0f});
  test.Output<float>("Y", {1, 1, 1, 3}, expected);
  test.Run();
}

TEST(ContribFusedConvTest, Activations) {
  RunFusedConv("", {}, {-1.5f, 1.5f, 4.5f});
  RunFusedConv("Relu", {}, {0.0f, 1.5f, 4.5f});
  RunFusedConv("Clip", {-1.0f, 2.0f}, {-1.0f, 1.5f, 2.0f});
  RunFusedConv("LeakyRelu", {0.1f}, {-0.15f, 1.5f, 4.5f});
  RunFusedConv("HardSigmoid", {0.2f, 0.5f}, {0.2f, 0.8f, 1.0f});
}

// Z is added before the activation: Relu(-0.5, 2.5, 5.5).
TEST(ContribFusedConvTest, SumInputBeforeActivation) {
  RunFusedConv("Relu", {}, {0.0f, 2.5f, 5.5f}, true);
}

TEST(ContribFusedConvTest, WrongActivationParamsAreRefused) {
  OpTester test("FusedConv", 1, kMs);
  test.Attr("activation", std::string("Clip"));
  test.Attr("activation_params", std::vector<float>{1.0f});
  test.Input<float>("X", {1, 1, 1, 1}, {1.0f});
  test.Input<float>("W", {1, 1, 1, 1}, {1.0f});
  test.Output<float>("Y", {1, 1, 1, 1}, {1.0f});
  test.ExpectFailure("activation Clip takes 2 activation_params, got 1");
}

// Strict shape inference of every op on a symbolic batch, worked out by hand.
TEST(ContribQuantShapesTest, EveryOp) {
  using onnx::TensorProto;
  onnx::ModelProto proto = MakeModel(17);
  auto* ms = proto.add_opset_import();
  ms->set_domain(kMs);
  ms->set_version(1);
  auto* graph = proto.mutable_graph();
  const auto attr_int = [](onnx::NodeProto* node, const std::string& name, int64_t value) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  };
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 4, 11, 10});
  AddInput(graph, "Q", TensorProto::UINT8, {"n", 4, 11, 10});
  AddInput(graph, "Q2", TensorProto::UINT8, {"n", 3, 11, 10});
  AddInput(graph, "B1", TensorProto::UINT8, {10});
  AddInput(graph, "S", TensorProto::FLOAT, {});
  AddInput(graph, "Z8", TensorProto::INT8, {});
  AddInput(graph, "Zu", TensorProto::UINT8, {});
  AddInput(graph, "W", TensorProto::FLOAT, {8, 2, 3, 3});
  AddInput(graph, "Bq", TensorProto::INT8, {10, 6});
  AddInput(graph, "Bp", TensorProto::UINT8, {5, 1, 8});
  AddNode(graph, "QuantizeLinear", {"X", "S", "Z8"}, {"q"}, "", kMs);
  AddNode(graph, "QuantizeLinear", {"X", "S"}, {"q_u8"}, "", kMs);
  AddNode(graph, "DequantizeLinear", {"Q", "S", "Zu"}, {"dq"}, "", kMs);
  AddNode(graph, "QLinearAdd", {"Q", "S", "Zu", "B1", "S", "Zu", "S", "Zu"}, {"add"}, "", kMs);
  AddNode(graph, "QLinearMul", {"B1", "S", "Zu", "Q", "S", "Zu", "S", "Zu"}, {"mul"}, "", kMs);
  AddNode(graph, "QLinearSigmoid", {"Q", "S", "Zu", "S", "Zu"}, {"sig"}, "", kMs);
  AddNode(graph, "QLinearLeakyRelu", {"Q", "S", "Zu", "S", "Zu"}, {"leaky"}, "", kMs);
  auto* pool = AddNode(graph, "QLinearAveragePool", {"Q", "S", "Zu", "S", "Zu"}, {"pool"}, "", kMs);
  AddIntsAttr(pool, "kernel_shape", {3, 3});
  AddIntsAttr(pool, "strides", {2, 2});
  AddIntsAttr(pool, "pads", {1, 1, 1, 1});
  auto* pool_last =
      AddNode(graph, "QLinearAveragePool", {"Q", "S", "Zu", "S", "Zu"}, {"pool_nhwc"}, "", kMs);
  AddIntsAttr(pool_last, "kernel_shape", {2, 2});
  attr_int(pool_last, "channels_last", 1);
  AddNode(graph, "QLinearGlobalAveragePool", {"Q", "S", "Zu", "S", "Zu"}, {"gap"}, "", kMs);
  auto* concat = AddNode(graph, "QLinearConcat", {"S", "Zu", "Q", "S", "Zu", "Q2", "S", "Zu"},
                         {"cat"}, "", kMs);
  attr_int(concat, "axis", 1);
  AddNode(graph, "DynamicQuantizeMatMul", {"X", "Bq", "S"}, {"dqmm"}, "", kMs);
  auto* nbits = AddNode(graph, "MatMulNBits", {"X", "Bp", "S"}, {"nbits"}, "", kMs);
  attr_int(nbits, "K", 10);
  attr_int(nbits, "N", 5);
  attr_int(nbits, "block_size", 16);
  auto* conv = AddNode(graph, "FusedConv", {"X", "W"}, {"conv"}, "", kMs);
  attr_int(conv, "group", 2);
  AddIntsAttr(conv, "strides", {2, 3});
  AddIntsAttr(conv, "pads", {1, 0, 1, 2});
  for (const char* out : {"q", "q_u8", "dq", "add", "mul", "sig", "leaky", "pool", "pool_nhwc",
                          "gap", "cat", "dqmm", "nbits", "conv"})
    AddOutput(graph, out, TensorProto::UNDEFINED);
  const InferredGraph inferred = InferStrictly(proto);
  EXPECT_EQ(inferred.Shape("q"), "[n,4,11,10]");
  EXPECT_EQ(inferred.Type("q"), ElementType::kInt8);
  EXPECT_EQ(inferred.Type("q_u8"), ElementType::kUint8);
  EXPECT_EQ(inferred.Type("dq"), ElementType::kFloat);
  EXPECT_EQ(inferred.Shape("add"), "[n,4,11,10]");
  EXPECT_EQ(inferred.Shape("mul"), "[n,4,11,10]");
  EXPECT_EQ(inferred.Shape("sig"), "[n,4,11,10]");
  EXPECT_EQ(inferred.Shape("leaky"), "[n,4,11,10]");
  EXPECT_EQ(inferred.Shape("pool"), "[n,4,6,5]");  // (11 + 2 - 3) / 2 + 1, (10 + 2 - 3) / 2 + 1
  EXPECT_EQ(inferred.Shape("pool_nhwc"), "[n,3,10,10]");  // spatial (4, 11): 3, 10; C = 10
  EXPECT_EQ(inferred.Shape("gap"), "[n,4,1,1]");
  EXPECT_EQ(inferred.Shape("cat"), "[n,7,11,10]");
  EXPECT_EQ(inferred.Type("cat"), ElementType::kUint8);
  EXPECT_EQ(inferred.Shape("dqmm"), "[n,4,11,6]");
  EXPECT_EQ(inferred.Type("dqmm"), ElementType::kFloat);
  EXPECT_EQ(inferred.Shape("nbits"), "[n,4,11,5]");
  EXPECT_EQ(inferred.Shape("conv"), "[n,8,6,4]");  // (11 + 2 - 3) / 2 + 1, (10 + 2 - 3) / 3 + 1
}

}  // namespace
}  // namespace prism::testing

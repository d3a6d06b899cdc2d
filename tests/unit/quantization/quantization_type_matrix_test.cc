// Quantization ops: every registered (version range, constraint, type) of QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul and QLinearConv, on
// small values that every type represents exactly (expected values worked out by hand), and the
// corners: rounding half to even, saturation, zero points at the type's ends, int4 packing with
// an odd element count, blocked quantization with a partial last block, float8 saturate, per-row
// and per-column zero points, per-channel QLinearConv, and errors that name what is wrong.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "framework/packed_int.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"

namespace prism::testing {
namespace {

using E = ElementType;

// The since_version of every ai.onnx schema of the op (onnx 1.23.2).
std::vector<int> SpecVersions(const std::string& op) {
  if (op == "QuantizeLinear" || op == "DequantizeLinear") return {10, 13, 19, 21, 23, 24, 25, 28};
  if (op == "QLinearMatMul") return {10, 21};
  if (op == "DynamicQuantizeLinear") return {11};
  return {10};
}

std::vector<E> Registered(const std::string& op, int opset, const std::string& constraint) {
  return CpuRegisteredTypes(op, opset, constraint);
}

// Bits of 0, 1, 2 and 3 in the narrow float formats (s.e.m by hand from each format's bias).
uint8_t NarrowBits(E type, int value) {
  static const std::vector<std::pair<E, std::vector<uint8_t>>> tables = {
      {E::kFloat8E4M3FN, {0x00, 0x38, 0x40, 0x44}}, {E::kFloat8E4M3FNUZ, {0x00, 0x40, 0x48, 0x4c}},
      {E::kFloat8E5M2, {0x00, 0x3c, 0x40, 0x42}},   {E::kFloat8E5M2FNUZ, {0x00, 0x40, 0x44, 0x46}},
      {E::kFloat4E2M1, {0x0, 0x2, 0x4, 0x5}},       {E::kFloat6E2M3, {0x00, 0x08, 0x10, 0x14}},
      {E::kFloat6E3M2, {0x00, 0x0c, 0x10, 0x12}},   {E::kFloat8E8M0, {0xff, 0x7f, 0x80, 0xff}}};
  for (const auto& [t, bits] : tables)
    if (t == type) return bits.at(static_cast<size_t>(value));
  ADD_FAILURE() << "no table for " << ElementTypeName(type);
  return 0;
}

// A tensor of any quantization type holding small integer values (exact in every type; narrow
// floats take 0..3, float8e8m0 only 1 and 2).
Tensor Values(E type, const std::vector<int64_t>& dims, const std::vector<int>& values) {
  const int64_t count = static_cast<int64_t>(values.size());
  switch (type) {
    case E::kFloat:
      return MakeTensor<float>(dims, std::vector<float>(values.begin(), values.end()));
    case E::kFloat16: {
      std::vector<Float16> v;
      for (int x : values) v.emplace_back(static_cast<float>(x));
      return MakeTensor<Float16>(dims, v);
    }
    case E::kBFloat16: {
      std::vector<BFloat16> v;
      for (int x : values) v.emplace_back(static_cast<float>(x));
      return MakeTensor<BFloat16>(dims, v);
    }
    case E::kInt8:
      return MakeTensor<int8_t>(dims, std::vector<int8_t>(values.begin(), values.end()));
    case E::kUint8:
      return MakeTensor<uint8_t>(dims, std::vector<uint8_t>(values.begin(), values.end()));
    case E::kInt16:
      return MakeTensor<int16_t>(dims, std::vector<int16_t>(values.begin(), values.end()));
    case E::kUint16:
      return MakeTensor<uint16_t>(dims, std::vector<uint16_t>(values.begin(), values.end()));
    case E::kInt32:
      return MakeTensor<int32_t>(dims, std::vector<int32_t>(values.begin(), values.end()));
    default:
      break;
  }
  std::vector<uint8_t> bytes(StorageBytes(type, count), 0);
  const int bits = ElementBits(type);
  for (int64_t i = 0; i < count; ++i) {
    const int v = values[static_cast<size_t>(i)];
    const uint8_t code = IsSignedInteger(type) || IsUnsignedInteger(type) ? PackedIntBits(v, bits)
                                                                          : NarrowBits(type, v);
    if (bits == 8)
      bytes[static_cast<size_t>(i)] = code;
    else
      SetPackedBits(bytes.data(), i, bits, code);
  }
  return MakeRawTensor(type, dims, bytes);
}

const std::vector<int> kBits = {0, 1, 1, 0, 1};  // odd count: packed types end mid-byte

// ---------------------------------------------------------------------------------------------
// Type matrix.

// QuantizeLinear: x = kBits, scale 1, zero point 0 gives kBits in every output type; each
// constraint's types are run with the other constraints at float / uint8.
TEST(QuantizationTypeMatrixTest, QuantizeLinearEveryRangeAndType) {
  for (int opset : SpecVersions("QuantizeLinear")) {
    const std::string x_name = "T1";
    const std::string scale_name = opset >= 23 ? "T2" : "";
    const std::string out_name = opset >= 23 ? "T3" : "T2";
    auto run = [&](E x_type, E scale_type, E out_type) {
      SCOPED_TRACE(::testing::Message()
                   << "opset " << opset << " x " << ElementTypeName(x_type) << " scale "
                   << ElementTypeName(scale_type) << " y " << ElementTypeName(out_type));
      OpTester test("QuantizeLinear", opset);
      test.InputTensor("x", Values(x_type, {5}, kBits));
      test.InputTensor("y_scale", Values(scale_type, {}, {1}));
      test.InputTensor("y_zero_point", Values(out_type, {}, {0}));
      test.OutputTensor("y", Values(out_type, {5}, kBits));
      test.Run();
    };
    for (E x_type : Registered("QuantizeLinear", opset, x_name)) {
      // Before 23 x and y_scale share T1 (only float for the scale at 10 and 13).
      const E scale_type = opset >= 19 && opset < 23 ? x_type : E::kFloat;
      run(x_type, scale_type, E::kUint8);
    }
    if (!scale_name.empty())
      for (E scale_type : Registered("QuantizeLinear", opset, scale_name))
        run(E::kFloat, scale_type, E::kUint8);
    for (E out_type : Registered("QuantizeLinear", opset, out_name))
      run(E::kFloat, E::kFloat, out_type);
  }
}

// DequantizeLinear: x = kBits, zero point 0, scale 1 gives kBits in the output type.
TEST(QuantizationTypeMatrixTest, DequantizeLinearEveryRangeAndType) {
  for (int opset : SpecVersions("DequantizeLinear")) {
    auto run = [&](E x_type, E scale_type, E out_type) {
      SCOPED_TRACE(::testing::Message()
                   << "opset " << opset << " x " << ElementTypeName(x_type) << " scale "
                   << ElementTypeName(scale_type) << " y " << ElementTypeName(out_type));
      OpTester test("DequantizeLinear", opset);
      test.InputTensor("x", Values(x_type, {5}, kBits));
      test.InputTensor("x_scale", Values(scale_type, {}, {1}));
      test.InputTensor("x_zero_point", Values(x_type, {}, {0}));
      if (opset >= 23 && out_type != scale_type)
        test.Attr("output_dtype", static_cast<int64_t>(out_type));
      test.OutputTensor("y", Values(out_type, {5}, kBits));
      test.Run();
    };
    for (E x_type : Registered("DequantizeLinear", opset, opset >= 19 ? "T1" : "T"))
      run(x_type, E::kFloat, E::kFloat);
    if (opset >= 19)
      for (E scale_type : Registered("DequantizeLinear", opset, "T2"))
        run(E::kInt8, scale_type, scale_type == E::kFloat8E8M0 ? E::kFloat : scale_type);
    if (opset >= 23)
      for (E out_type : Registered("DequantizeLinear", opset, "T3"))
        run(E::kUint8, E::kFloat, out_type);
  }
}

// x = [-1, 0, 1, 2]: scale = 3 / 255, zero point = 255 / 3 = 85, y = x * 85 + 85.
TEST(QuantizationTypeMatrixTest, DynamicQuantizeLinear) {
  OpTester test("DynamicQuantizeLinear", 11);
  test.Input<float>("x", {4}, {-1.0f, 0.0f, 1.0f, 2.0f});
  test.Output<uint8_t>("y", {4}, {0, 85, 170, 255});
  test.Output<float>("y_scale", {}, {3.0f / 255.0f});
  test.Output<uint8_t>("y_zero_point", {}, {85});
  test.Run();
}

// MatMulInteger: [1, 2] x [[3], [1]] - zero points 1 and 0 = [0, 1] x [3, 1] = 1.
TEST(QuantizationTypeMatrixTest, MatMulIntegerEveryTypePair) {
  for (E a_type : Registered("MatMulInteger", 10, "T1")) {
    for (E b_type : Registered("MatMulInteger", 10, "T2")) {
      SCOPED_TRACE(::testing::Message()
                   << ElementTypeName(a_type) << " x " << ElementTypeName(b_type));
      OpTester test("MatMulInteger", 10);
      test.InputTensor("A", Values(a_type, {1, 2}, {1, 2}));
      test.InputTensor("B", Values(b_type, {2, 1}, {3, 1}));
      test.InputTensor("a_zero_point", Values(a_type, {}, {1}));
      test.InputTensor("b_zero_point", Values(b_type, {}, {0}));
      test.Output<int32_t>("Y", {1, 1}, {1});
      test.Run();
    }
  }
}

// QLinearMatMul: [1, 1] x [[1], [1]] = 2 with unit scales and zero points 0.
TEST(QuantizationTypeMatrixTest, QLinearMatMulEveryRangeAndType) {
  for (int opset : SpecVersions("QLinearMatMul")) {
    auto run = [&](E scale_type, E a_type, E b_type, E y_type) {
      SCOPED_TRACE(::testing::Message()
                   << "opset " << opset << " scales " << ElementTypeName(scale_type) << " a "
                   << ElementTypeName(a_type) << " b " << ElementTypeName(b_type) << " y "
                   << ElementTypeName(y_type));
      OpTester test("QLinearMatMul", opset);
      test.InputTensor("a", Values(a_type, {1, 2}, {1, 1}));
      test.InputTensor("a_scale", Values(scale_type, {}, {1}));
      test.InputTensor("a_zero_point", Values(a_type, {}, {0}));
      test.InputTensor("b", Values(b_type, {2, 1}, {1, 1}));
      test.InputTensor("b_scale", Values(scale_type, {}, {1}));
      test.InputTensor("b_zero_point", Values(b_type, {}, {0}));
      test.InputTensor("y_scale", Values(scale_type, {}, {1}));
      test.InputTensor("y_zero_point", Values(y_type, {}, {0}));
      test.OutputTensor("y", Values(y_type, {1, 1}, {2}));
      test.Run();
    };
    for (E t : Registered("QLinearMatMul", opset, "T1")) run(E::kFloat, t, E::kUint8, E::kUint8);
    for (E t : Registered("QLinearMatMul", opset, "T2")) run(E::kFloat, E::kUint8, t, E::kUint8);
    for (E t : Registered("QLinearMatMul", opset, "T3")) run(E::kFloat, E::kUint8, E::kUint8, t);
    if (opset >= 21)
      for (E t : Registered("QLinearMatMul", opset, "TS")) run(t, E::kInt8, E::kInt8, E::kInt8);
  }
}

// QLinearConv: x = [2, 3] convolved with a 1x1 kernel of 1, bias 1: y = [3, 4].
TEST(QuantizationTypeMatrixTest, QLinearConvEveryType) {
  auto run = [](E x_type, E w_type, E y_type) {
    SCOPED_TRACE(::testing::Message()
                 << "x " << ElementTypeName(x_type) << " w " << ElementTypeName(w_type) << " y "
                 << ElementTypeName(y_type));
    OpTester test("QLinearConv", 10);
    test.InputTensor("x", Values(x_type, {1, 1, 1, 2}, {2, 3}));
    test.Input<float>("x_scale", {}, {1.0f});
    test.InputTensor("x_zero_point", Values(x_type, {}, {0}));
    test.InputTensor("w", Values(w_type, {1, 1, 1, 1}, {1}));
    test.Input<float>("w_scale", {}, {1.0f});
    test.InputTensor("w_zero_point", Values(w_type, {}, {0}));
    test.Input<float>("y_scale", {}, {1.0f});
    test.InputTensor("y_zero_point", Values(y_type, {}, {0}));
    test.Input<int32_t>("B", {1}, {1});
    test.OutputTensor("y", Values(y_type, {1, 1, 1, 2}, {3, 4}));
    test.Run();
  };
  for (E t : Registered("QLinearConv", 10, "T1")) run(t, E::kUint8, E::kUint8);
  for (E t : Registered("QLinearConv", 10, "T2")) run(E::kUint8, t, E::kUint8);
  for (E t : Registered("QLinearConv", 10, "T3")) run(E::kUint8, E::kUint8, t);
}

// ---------------------------------------------------------------------------------------------
// Corners.

TEST(QuantizationCornerTest, QuantizeRoundsHalfToEven) {
  OpTester test("QuantizeLinear", 13);
  test.Input<float>("x", {8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<int8_t>("y_zero_point", {}, {0});
  test.Output<int8_t>("y", {8}, {0, 2, 2, 0, -2, -2, 2, 3});
  test.Run();
}

// The rounding is of x / scale, before the zero point is added: 2.5 -> 2, then + 1.
TEST(QuantizationCornerTest, QuantizeRoundsBeforeAddingTheZeroPoint) {
  OpTester test("QuantizeLinear", 10);
  test.Input<float>("x", {2}, {5.0f, 7.0f});
  test.Input<float>("y_scale", {}, {2.0f});
  test.Input<uint8_t>("y_zero_point", {}, {1});
  test.Output<uint8_t>("y", {2}, {3, 5});
  test.Run();
}

TEST(QuantizationCornerTest, QuantizeSaturatesWithZeroPointsAtTheTypesEnds) {
  {
    OpTester test("QuantizeLinear", 13);
    test.Input<float>("x", {4}, {0.0f, 255.0f, 256.0f, -1.0f});
    test.Input<float>("y_scale", {}, {1.0f});
    test.Input<int8_t>("y_zero_point", {}, {-128});
    test.Output<int8_t>("y", {4}, {-128, 127, 127, -128});
    test.Run();
  }
  {
    OpTester test("QuantizeLinear", 13);
    test.Input<float>("x", {3}, {0.0f, 1.0f, -300.0f});
    test.Input<float>("y_scale", {}, {1.0f});
    test.Input<uint8_t>("y_zero_point", {}, {255});
    test.Output<uint8_t>("y", {3}, {255, 255, 0});
    test.Run();
  }
  {
    OpTester test("QuantizeLinear", 21);
    test.Input<float>("x", {3}, {-1e9f, 1e9f, 3.0f});
    test.Input<float>("y_scale", {}, {1.0f});
    test.Input<int16_t>("y_zero_point", {}, {32767});
    test.Output<int16_t>("y", {3}, {-32768, 32767, 32767});
    test.Run();
  }
}

// int4: [1, -2, 3, 7, -9] -> [1, -2, 3, 7, -8] packed low nibble first, 3 bytes for 5 values.
TEST(QuantizationCornerTest, QuantizeInt4PacksAnOddCount) {
  OpTester test("QuantizeLinear", 21);
  test.Input<float>("x", {5}, {1.0f, -2.0f, 3.0f, 7.0f, -9.0f});
  test.Input<float>("y_scale", {}, {1.0f});
  test.InputTensor("y_zero_point", MakeRawTensor(E::kInt4, {}, {0x00}));
  test.OutputTensor("y", MakeRawTensor(E::kInt4, {5}, {0xE1, 0x73, 0x08}));
  test.Run();
}

// uint4 with zero point 15 (the top): x / 2 = [0, 0.5, -1, -8, 1] -> [15, 15, 14, 7, 15].
TEST(QuantizationCornerTest, QuantizeUint4WithOutputDtypeAndTopZeroPoint) {
  OpTester test("QuantizeLinear", 21);
  test.Input<float>("x", {5}, {0.0f, 1.0f, -2.0f, -16.0f, 2.0f});
  test.Input<float>("y_scale", {}, {2.0f});
  test.InputTensor("y_zero_point", MakeRawTensor(E::kUint4, {}, {0x0F}));
  test.OutputTensor("y", MakeRawTensor(E::kUint4, {5}, {0xFF, 0x7E, 0x0F}));
  test.Run();
}

TEST(QuantizationCornerTest, DequantizeInt4OddCount) {
  OpTester test("DequantizeLinear", 21);
  test.InputTensor("x", MakeRawTensor(E::kInt4, {5}, {0xE1, 0x73, 0x08}));
  test.Input<float>("x_scale", {}, {0.5f});
  test.InputTensor("x_zero_point", MakeRawTensor(E::kInt4, {}, {0x0F}));  // -1
  test.Output<float>("y", {5}, {1.0f, -0.5f, 2.0f, 4.0f, -3.5f});
  test.Run();
}

// x [2, 5], axis 1, block_size 2: 3 blocks per row, the last holds one element.
TEST(QuantizationCornerTest, QuantizeBlockedWithPartialLastBlock) {
  OpTester test("QuantizeLinear", 21);
  test.Input<float>("x", {2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  test.Input<float>("y_scale", {2, 3}, {1, 2, 4, 0.5f, 1, 10});
  test.Input<int8_t>("y_zero_point", {2, 3}, {0, 1, -1, 2, 0, 0});
  test.Attr("axis", int64_t{1});
  test.Attr("block_size", int64_t{2});
  // row 0: 1, 2, 1.5 -> 2 (+1), 2 (+1), 1.25 -> 1 (-1); row 1: 12 (+2), 14 (+2), 8, 9, 1.
  test.Output<int8_t>("y", {2, 5}, {1, 2, 3, 3, 0, 14, 16, 8, 9, 1});
  test.Run();
}

// block_size at the int64 limit: one block per row (the count is ceil(4 / block_size) = 1,
// formed without block_size + 3, which overflows).
TEST(QuantizationCornerTest, QuantizeBlockSizeAtTheInt64LimitIsOneBlock) {
  OpTester test("QuantizeLinear", 21);
  test.Input<float>("x", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  test.Input<float>("y_scale", {2, 1}, {1, 2});
  test.Attr("axis", int64_t{1});
  test.Attr("block_size", std::numeric_limits<int64_t>::max());
  // row 1 / 2: 2.5 -> 2 and 3.5 -> 4 (half to even).
  test.Output<uint8_t>("y", {2, 4}, {1, 2, 3, 4, 2, 3, 4, 4});
  test.Run();
}

TEST(QuantizationCornerTest, DequantizeBlockedWithPartialLastBlockOnAxis0) {
  OpTester test("DequantizeLinear", 21);
  test.Input<int8_t>("x", {3, 2}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("x_scale", {2, 2}, {1, 2, 4, 8});
  test.Input<int8_t>("x_zero_point", {2, 2}, {0, 1, -1, 0});
  test.Attr("axis", int64_t{0});
  test.Attr("block_size", int64_t{2});
  test.Output<float>("y", {3, 2}, {1, 2, 3, 6, 24, 48});
  test.Run();
}

TEST(QuantizationCornerTest, QuantizeFloat8SaturateAttribute) {
  for (int64_t saturate : {1, 0}) {
    SCOPED_TRACE(saturate);
    OpTester test("QuantizeLinear", 19);
    test.Input<float>("x", {3}, {1000.0f, -1000.0f, 1.0f});
    test.Input<float>("y_scale", {}, {1.0f});
    test.InputTensor("y_zero_point", MakeRawTensor(E::kFloat8E4M3FN, {}, {0x00}));
    test.Attr("saturate", saturate);
    // 448 = 0x7E; without saturation out-of-range values are NaN (0x7F / 0xFF).
    test.OutputTensor("y", MakeRawTensor(E::kFloat8E4M3FN, {3},
                                         saturate ? std::vector<uint8_t>{0x7E, 0xFE, 0x38}
                                                  : std::vector<uint8_t>{0x7F, 0xFF, 0x38}));
    test.Run();
  }
  OpTester test("QuantizeLinear", 19);
  test.Input<float>("x", {2}, {1e6f, 3.0f});
  test.Input<float>("y_scale", {}, {1.0f});
  test.InputTensor("y_zero_point", MakeRawTensor(E::kFloat8E5M2, {}, {0x00}));
  test.Attr("saturate", int64_t{0});
  test.OutputTensor("y", MakeRawTensor(E::kFloat8E5M2, {2}, {0x7C, 0x42}));  // +inf, 3
  test.Run();
}

// float16 x and scale (the division in float16): 1025 / 2 = 512.5 is exact and rounds to even
// 512, 1027 / 2 = 513.5 to 514.
TEST(QuantizationCornerTest, QuantizeFloat16ScaleRoundsHalfToEven) {
  OpTester test("QuantizeLinear", 21);
  test.Input<Float16>("x", {2}, {Float16(1025.0f), Float16(1027.0f)});
  test.Input<Float16>("y_scale", {}, {Float16(2.0f)});
  test.Input<uint16_t>("y_zero_point", {}, {0});
  test.Output<uint16_t>("y", {2}, {512, 514});
  test.Run();
}

// precision float16: x = 10.849991 is rounded to float16 first (10.8515625), and
// 10.8515625 / 0.7001953125 = 15.497... rounds in float16 to 15.5, then to even 16. In float (no
// precision) 15.4955 gives 15, and so does rounding only the quotient to float16 (15.4922).
TEST(QuantizationCornerTest, QuantizePrecisionRoundsTheOperands) {
  for (int64_t precision : {int64_t{0}, static_cast<int64_t>(E::kFloat16)}) {
    SCOPED_TRACE(precision);
    OpTester test("QuantizeLinear", 23);
    test.Input<float>("x", {1}, {10.849991f});
    test.Input<float>("y_scale", {}, {0.7001953125f});
    test.Input<int16_t>("y_zero_point", {}, {0});
    if (precision != 0) test.Attr("precision", precision);
    test.Output<int16_t>("y", {1}, {static_cast<int16_t>(precision != 0 ? 16 : 15)});
    test.Run();
  }
}

TEST(QuantizationCornerTest, QuantizePerAxisNegativeAxis) {
  OpTester test("QuantizeLinear", 13);
  test.Input<float>("x", {2, 2}, {2, 4, 6, 8});
  test.Input<float>("y_scale", {2}, {2, 4});
  test.Input<uint8_t>("y_zero_point", {2}, {0, 10});
  test.Attr("axis", int64_t{-1});
  test.Output<uint8_t>("y", {2, 2}, {1, 11, 3, 12});
  test.Run();
}

TEST(QuantizationCornerTest, QuantizeOutputDtypeWithoutZeroPoint) {
  OpTester test("QuantizeLinear", 21);
  test.Input<float>("x", {3}, {-3, 0, 200});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Attr("output_dtype", static_cast<int64_t>(E::kInt8));
  test.Output<int8_t>("y", {3}, {-3, 0, 127});
  test.Run();
}

TEST(QuantizationCornerTest, DequantizeE8M0ScaleWithOutputDtype) {
  OpTester test("DequantizeLinear", 24);
  test.Input<int8_t>("x", {3}, {1, -2, 3});
  test.InputTensor("x_scale", MakeRawTensor(E::kFloat8E8M0, {}, {0x81}));  // 4
  test.Attr("output_dtype", static_cast<int64_t>(E::kFloat16));
  test.Output<Float16>("y", {3}, {Float16(4.0f), Float16(-8.0f), Float16(12.0f)});
  test.Run();
}

TEST(QuantizationCornerTest, QuantizeErrorsNameTheProblem) {
  {
    OpTester test("QuantizeLinear", 21);
    test.Input<float>("x", {2, 5}, std::vector<float>(10, 1.0f));
    test.Input<float>("y_scale", {2, 2}, {1, 1, 1, 1});
    test.Attr("axis", int64_t{1});
    test.Attr("block_size", int64_t{2});
    test.ExpectFailure("blocked y_scale");
  }
  {
    OpTester test("QuantizeLinear", 13);
    test.Input<float>("x", {2, 3}, std::vector<float>(6, 1.0f));
    test.Input<float>("y_scale", {2}, {1, 1});
    test.Input<uint8_t>("y_zero_point", {2}, {0, 0});
    test.ExpectFailure("per-axis y_scale must be 1-D of length 3");
  }
  {
    OpTester test("QuantizeLinear", 10);
    test.Input<float>("x", {2}, {1, 1});
    test.Input<float>("y_scale", {2}, {1, 1});
    test.Input<uint8_t>("y_zero_point", {2}, {0, 0});
    test.ExpectFailure("must be a scalar");
  }
  {
    OpTester test("DequantizeLinear", 13);
    test.Input<int8_t>("x", {2}, {1, 1});
    test.Input<float>("x_scale", {}, {1});
    test.Input<int8_t>("x_zero_point", {2}, {0, 0});
    test.ExpectFailure("x_zero_point must have the shape of x_scale");
  }
}

// MatMulInteger: batch broadcast (A [2, 1, 2] with B [2, 2]), per-column b_zero_point.
TEST(QuantizationCornerTest, MatMulIntegerBatchBroadcastAndPerColumnZeroPoint) {
  OpTester test("MatMulInteger", 10);
  test.Input<uint8_t>("A", {2, 1, 2}, {1, 2, 3, 4});
  test.Input<int8_t>("B", {2, 2}, {1, 0, 0, 1});
  test.Input<uint8_t>("a_zero_point", {}, {1});
  test.Input<int8_t>("b_zero_point", {2}, {0, 1});
  // (A - 1) = [0, 1], [2, 3]; (B - [0, 1]) = [[1, -1], [0, 0]].
  test.Output<int32_t>("Y", {2, 1, 2}, {0, 0, 2, -2});
  test.Run();
}

TEST(QuantizationCornerTest, MatMulIntegerPerRowZeroPointNd) {
  OpTester test("MatMulInteger", 10);
  test.Input<int8_t>("A", {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  test.Input<int8_t>("B", {2, 1}, {2, 1});
  test.Input<int8_t>("a_zero_point", {2, 2, 1}, {1, 3, 5, -128});
  test.Input<int8_t>("b_zero_point", {}, {0});
  // rows minus their zero points: [0, 1], [0, 1], [0, 1], [135, 136]; times [2, 1].
  test.Output<int32_t>("Y", {2, 2, 1}, {1, 1, 1, 406});
  test.Run();
}

TEST(QuantizationCornerTest, MatMulIntegerVectorOperands) {
  OpTester test("MatMulInteger", 10);
  test.Input<uint8_t>("A", {3}, {255, 0, 1});
  test.Input<uint8_t>("B", {3}, {255, 7, 2});
  test.Output<int32_t>("Y", {}, {255 * 255 + 2});
  test.Run();
}

// acc * 0.5 = 2.5 -> 2 and 3.5 -> 4 (half to even), then saturation with y_zero_point 250.
TEST(QuantizationCornerTest, QLinearMatMulRoundsHalfToEvenAndSaturates) {
  OpTester test("QLinearMatMul", 10);
  test.Input<uint8_t>("a", {3, 1}, {5, 7, 200});
  test.Input<float>("a_scale", {}, {0.5f});
  test.Input<uint8_t>("a_zero_point", {}, {0});
  test.Input<int8_t>("b", {1, 1}, {1});
  test.Input<float>("b_scale", {}, {1.0f});
  test.Input<int8_t>("b_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {250});
  test.Output<uint8_t>("y", {3, 1}, {252, 254, 255});
  test.Run();
}

TEST(QuantizationCornerTest, QLinearMatMulPerRowAndPerColumnScales) {
  OpTester test("QLinearMatMul", 21);
  test.Input<int8_t>("a", {2, 1}, {4, 4});
  test.Input<float>("a_scale", {2}, {1.0f, 0.5f});
  test.Input<int8_t>("a_zero_point", {2}, {0, 2});
  test.Input<int8_t>("b", {1, 2}, {3, 3});
  test.Input<float>("b_scale", {2}, {1.0f, 2.0f});
  test.Input<int8_t>("b_zero_point", {2}, {0, 1});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<int8_t>("y_zero_point", {}, {-1});
  // (a - zp) = [4, 2]; (b - zp) = [3, 2]; y[m, n] = (a*b) * a_scale[m] * b_scale[n] - 1.
  test.Output<int8_t>("y", {2, 2}, {11, 15, 2, 3});
  test.Run();
}

TEST(QuantizationCornerTest, QLinearMatMulFloat8) {
  OpTester test("QLinearMatMul", 21);
  test.InputTensor("a", MakeRawTensor(E::kFloat8E4M3FN, {1, 2}, {0x40, 0x44}));  // 2, 3
  test.Input<float>("a_scale", {}, {1.0f});
  test.InputTensor("a_zero_point", MakeRawTensor(E::kFloat8E4M3FN, {}, {0x00}));
  test.InputTensor("b", MakeRawTensor(E::kFloat8E4M3FN, {2, 1}, {0x38, 0x7E}));  // 1, 448
  test.Input<float>("b_scale", {}, {1.0f});
  test.InputTensor("b_zero_point", MakeRawTensor(E::kFloat8E4M3FN, {}, {0x00}));
  test.Input<float>("y_scale", {}, {1.0f});
  test.InputTensor("y_zero_point", MakeRawTensor(E::kFloat8E5M2, {}, {0x00}));
  // 2 + 1344 = 1346 -> e5m2 rounds to 1280 (0x65: 2^10 * 1.25), 1536 the next code.
  test.OutputTensor("y", MakeRawTensor(E::kFloat8E5M2, {1, 1}, {0x65}));
  test.Run();
}

// Per-channel w scale and zero point, bias, rounding: channel 0 acc [5, 7] * 0.5 = 2.5 -> 2,
// 3.5 -> 4; channel 1 (w - 1 = 1) acc [105, 107] * 0.125 = 13.125 -> 13, 13.375 -> 13.
TEST(QuantizationCornerTest, QLinearConvPerChannelBiasAndRounding) {
  OpTester test("QLinearConv", 10);
  test.Input<uint8_t>("x", {1, 1, 1, 2}, {5, 7});
  test.Input<float>("x_scale", {}, {0.5f});
  test.Input<uint8_t>("x_zero_point", {}, {0});
  test.Input<int8_t>("w", {2, 1, 1, 1}, {1, 2});
  test.Input<float>("w_scale", {2}, {1.0f, 0.25f});
  test.Input<int8_t>("w_zero_point", {2}, {0, 1});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<int8_t>("y_zero_point", {}, {0});
  test.Input<int32_t>("B", {2}, {0, 100});
  test.Output<int8_t>("y", {1, 2, 1, 2}, {2, 4, 13, 13});
  test.Run();
}

// Padding holds x_zero_point (zero once shifted); groups, strides and SAME_UPPER.
TEST(QuantizationCornerTest, QLinearConvPaddingIsTheZeroPointWithGroups) {
  OpTester test("QLinearConv", 10);
  test.Input<uint8_t>("x", {1, 2, 1, 3}, {11, 12, 13, 20, 20, 20});
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<uint8_t>("x_zero_point", {}, {10});
  test.Input<uint8_t>("w", {2, 1, 1, 3}, {1, 1, 1, 2, 2, 2});
  test.Input<float>("w_scale", {}, {1.0f});
  test.Input<uint8_t>("w_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {0});
  test.Attr("group", int64_t{2});
  test.Attr("auto_pad", std::string("SAME_UPPER"));
  test.Attr("strides", std::vector<int64_t>{1, 2});
  // Group 0: shifted [1, 2, 3], windows at 0 and 2: [pad, 1, 2] = 3, [2, 3, pad] = 5.
  // Group 1: shifted [10, 10, 10] * 2: 40 and 40.
  test.Output<uint8_t>("y", {1, 2, 1, 2}, {3, 5, 40, 40});
  test.Run();
}

}  // namespace
}  // namespace prism::testing

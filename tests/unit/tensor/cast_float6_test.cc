// float6e2m3 / float6e3m2 (Cast opset 28): scalar encodings, the packed 6-bit layout and Cast
// round trips. Expected codes are hand-checked and cross-checked with ml_dtypes
// (float6_e2m3fn / float6_e3m2fn, the ONNX reference); packed bytes with
// onnx.numpy_helper._pack_6bit (element i in bits [6i, 6i + 6) of a little-endian bit stream).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/element_type.h"
#include "framework/float8.h"
#include "framework/packed_int.h"
#include "tests/common/op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint8_t Enc(E type, double value, bool saturate = true) {
  return FloatToNarrowFloat(type, value, saturate);
}

TEST(Float6Test, ElementTypeProperties) {
  EXPECT_EQ(static_cast<int>(E::kFloat6E2M3), 27);
  EXPECT_EQ(static_cast<int>(E::kFloat6E3M2), 28);
  EXPECT_STREQ(ElementTypeName(E::kFloat6E2M3), "float6e2m3");
  EXPECT_STREQ(ElementTypeName(E::kFloat6E3M2), "float6e3m2");
  EXPECT_EQ(ElementBits(E::kFloat6E2M3), 6);
  EXPECT_EQ(ElementBits(E::kFloat6E3M2), 6);
  EXPECT_TRUE(IsSubByte(E::kFloat6E2M3));
  EXPECT_TRUE(IsFloatingPoint(E::kFloat6E3M2));
  EXPECT_TRUE(IsNarrowFloat(E::kFloat6E2M3));
  EXPECT_EQ(StorageBytes(E::kFloat6E2M3, 4), 3u);  // four elements fill three bytes
  EXPECT_EQ(StorageBytes(E::kFloat6E3M2, 5), 4u);  // 30 bits
  EXPECT_EQ(StorageBytes(E::kFloat6E3M2, 1), 1u);
  EXPECT_EQ(NarrowFloatMax(E::kFloat6E2M3), 7.5);
  EXPECT_EQ(NarrowFloatMax(E::kFloat6E3M2), 28.0);
}

TEST(Float6Test, E2M3Encodings) {
  const E t = E::kFloat6E2M3;  // s.ee.mmm, bias 1
  EXPECT_EQ(Enc(t, 0.0), 0x00);
  EXPECT_EQ(Enc(t, -0.0), 0x20);
  EXPECT_EQ(Enc(t, 1.0), 0x08);
  EXPECT_EQ(Enc(t, 7.5), 0x1f);  // max finite
  EXPECT_EQ(Enc(t, -7.5), 0x3f);
  EXPECT_EQ(Enc(t, 0.125), 0x01);   // smallest subnormal
  EXPECT_EQ(Enc(t, 0.875), 0x07);   // largest subnormal
  EXPECT_EQ(Enc(t, 0.0625), 0x00);  // tie between 0 and 0.125 -> even (0)
  EXPECT_EQ(Enc(t, 0.1875), 0x02);  // tie between 0.125 and 0.25 -> even (0.25)
  EXPECT_EQ(Enc(t, 1.0625), 0x08);  // tie between 1 and 1.125 -> even mantissa
  EXPECT_EQ(Enc(t, 1.1875), 0x0a);  // tie between 1.125 and 1.25 -> even mantissa
  EXPECT_EQ(Enc(t, 6.5), 0x1d);
  EXPECT_EQ(Enc(t, 6.75), 0x1e);  // tie between 6.5 and 7 -> 7
}

TEST(Float6Test, E2M3SaturatesAndMapsNaNToZero) {
  const E t = E::kFloat6E2M3;
  for (bool saturate : {true, false}) {  // no inf/NaN encodings: always saturates
    SCOPED_TRACE(saturate);
    EXPECT_EQ(Enc(t, 7.75, saturate), 0x1f);  // rounds to 8, beyond max
    EXPECT_EQ(Enc(t, 1e9, saturate), 0x1f);
    EXPECT_EQ(Enc(t, -1e9, saturate), 0x3f);
    EXPECT_EQ(Enc(t, kInf, saturate), 0x1f);
    EXPECT_EQ(Enc(t, -kInf, saturate), 0x3f);
    // NaN -> zero with the NaN's sign inverted (ml_dtypes, the reference).
    EXPECT_EQ(Enc(t, kNaN, saturate), 0x20);
    EXPECT_EQ(Enc(t, -kNaN, saturate), 0x00);
  }
}

TEST(Float6Test, E3M2Encodings) {
  const E t = E::kFloat6E3M2;  // s.eee.mm, bias 3
  EXPECT_EQ(Enc(t, 0.0), 0x00);
  EXPECT_EQ(Enc(t, -0.0), 0x20);
  EXPECT_EQ(Enc(t, 1.0), 0x0c);
  EXPECT_EQ(Enc(t, 28.0), 0x1f);  // max finite
  EXPECT_EQ(Enc(t, -28.0), 0x3f);
  EXPECT_EQ(Enc(t, 0.0625), 0x01);   // smallest subnormal
  EXPECT_EQ(Enc(t, 0.1875), 0x03);   // largest subnormal
  EXPECT_EQ(Enc(t, 0.03125), 0x00);  // tie between 0 and 0.0625 -> even (0)
  EXPECT_EQ(Enc(t, 0.09375), 0x02);  // tie between 0.0625 and 0.125 -> even (0.125)
  EXPECT_EQ(Enc(t, 1.125), 0x0c);    // tie between 1 and 1.25 -> even mantissa
  EXPECT_EQ(Enc(t, 1.375), 0x0e);    // tie between 1.25 and 1.5 -> even mantissa
  EXPECT_EQ(Enc(t, 24.0), 0x1e);
  EXPECT_EQ(Enc(t, 26.0), 0x1e);  // tie between 24 and 28 -> even (24)
}

TEST(Float6Test, E3M2SaturatesAndMapsNaNToZero) {
  const E t = E::kFloat6E3M2;
  for (bool saturate : {true, false}) {
    SCOPED_TRACE(saturate);
    EXPECT_EQ(Enc(t, 30.0, saturate), 0x1f);  // tie between 28 and 32 -> 32, beyond max
    EXPECT_EQ(Enc(t, 1e9, saturate), 0x1f);
    EXPECT_EQ(Enc(t, -1e300, saturate), 0x3f);
    EXPECT_EQ(Enc(t, kInf, saturate), 0x1f);
    EXPECT_EQ(Enc(t, -kInf, saturate), 0x3f);
    EXPECT_EQ(Enc(t, kNaN, saturate), 0x20);
    EXPECT_EQ(Enc(t, -kNaN, saturate), 0x00);
  }
}

TEST(Float6Test, Decodings) {
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E2M3, 0x08), 1.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E2M3, 0x1f), 7.5f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E2M3, 0x3f), -7.5f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E2M3, 0x01), 0.125f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E2M3, 0x14), 3.0f);
  EXPECT_TRUE(std::signbit(NarrowFloatToFloat(E::kFloat6E2M3, 0x20)));
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E3M2, 0x0c), 1.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E3M2, 0x1f), 28.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E3M2, 0x3f), -28.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E3M2, 0x01), 0.0625f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat6E3M2, 0x12), 3.0f);
  // Every code decodes to a finite value that encodes back to the same code.
  for (E t : {E::kFloat6E2M3, E::kFloat6E3M2}) {
    for (int code = 0; code < 64; ++code) {
      const float value = NarrowFloatToFloat(t, static_cast<uint8_t>(code));
      EXPECT_TRUE(std::isfinite(value)) << code;
      EXPECT_EQ(Enc(t, value), code) << ElementTypeName(t) << " code " << code;
    }
  }
}

TEST(Float6Test, PackedLayoutCrossesByteBoundaries) {
  // Codes 0x3f, 0x01, 0x2a, 0x15 pack into 3 bytes (onnx.numpy_helper._pack_6bit).
  std::vector<uint8_t> bytes(3, 0);
  const uint8_t codes[] = {0x3f, 0x01, 0x2a, 0x15};
  for (int i = 0; i < 4; ++i) SetPackedBits(bytes.data(), i, 6, codes[i]);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x7f, 0xa0, 0x56}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(GetPackedBits(bytes.data(), i, 6), codes[i]) << i;
  // Overwriting one straddling element leaves its neighbours alone.
  SetPackedBits(bytes.data(), 1, 6, 0x3e);
  EXPECT_EQ(GetPackedBits(bytes.data(), 0, 6), 0x3f);
  EXPECT_EQ(GetPackedBits(bytes.data(), 1, 6), 0x3e);
  EXPECT_EQ(GetPackedBits(bytes.data(), 2, 6), 0x2a);
  EXPECT_EQ(GetPackedBits(bytes.data(), 3, 6), 0x15);
  SetPackedBits(bytes.data(), 2, 6, 0x00);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0xbf, 0x0f, 0x54}));
  // 4-bit and 2-bit layouts are unchanged.
  std::vector<uint8_t> nibbles(1, 0);
  SetPackedBits(nibbles.data(), 1, 4, 0xc);
  SetPackedBits(nibbles.data(), 0, 4, 0x3);
  EXPECT_EQ(nibbles[0], 0xc3);
  EXPECT_EQ(GetPackedBits(nibbles.data(), 1, 4), 0xc);
}

// Cast opset 28: float -> float6 (values from ml_dtypes): 0.3, -2.2, 5.1, 100, -0.05, 1.3, 0
// become 0.25, -2.25, 5, 7.5, -0, 1.25, 0 as e2m3 and 0.3125, -2, 5, 28, -0.0625, 1.25, 0 as
// e3m2. Seven elements: 42 bits in 6 bytes, the last one partly padding.
const std::vector<float> kCastInput = {0.3f, -2.2f, 5.1f, 100.0f, -0.05f, 1.3f, 0.0f};

TEST(CastFloat6Test, FloatToFloat6E2M3) {
  OpTester("Cast", 28)
      .Attr("to", int64_t{27})
      .Input<float>("X", {7}, kCastInput)
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E2M3, {7}, {66, 172, 125, 160, 2, 0}))
      .Run();
}

TEST(CastFloat6Test, FloatToFloat6E3M2) {
  OpTester("Cast", 28)
      .Attr("to", int64_t{28})
      .Input<float>("X", {7}, kCastInput)
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E3M2, {7}, {5, 92, 125, 97, 3, 0}))
      .Run();
}

TEST(CastFloat6Test, Float6E2M3ToFloat) {
  OpTester("Cast", 28)
      .Attr("to", int64_t{1})
      .InputTensor("X", MakeRawTensor(E::kFloat6E2M3, {7}, {66, 172, 125, 160, 2, 0}))
      .Output<float>("Y", {7}, {0.25f, -2.25f, 5.0f, 7.5f, -0.0f, 1.25f, 0.0f})
      .Run();
}

TEST(CastFloat6Test, Float6E3M2ToFloat) {
  OpTester("Cast", 28)
      .Attr("to", int64_t{1})
      .InputTensor("X", MakeRawTensor(E::kFloat6E3M2, {7}, {5, 92, 125, 97, 3, 0}))
      .Output<float>("Y", {7}, {0.3125f, -2.0f, 5.0f, 28.0f, -0.0625f, 1.25f, 0.0f})
      .Run();
}

TEST(CastFloat6Test, SpecialValuesSaturateEvenWithoutSaturate) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Codes 0x1f, 0x3f, 0x20 (NaN -> -0), 0x1f.
  OpTester("Cast", 28)
      .Attr("to", int64_t{27})
      .Attr("saturate", int64_t{0})
      .Input<float>("X", {4}, {inf, -inf, nan, 1e6f})
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E2M3, {4}, {0xdf, 0x0f, 0x7e}))
      .Run();
}

TEST(CastFloat6Test, Float6E2M3ToFloat6E3M2) {
  // 7.5, 0.125, -3.25, 1.125 (e2m3) -> 8, 0.125, -3, 1 (e3m2: ties to even).
  OpTester("Cast", 28)
      .Attr("to", int64_t{28})
      .InputTensor("X", MakeRawTensor(E::kFloat6E2M3, {4}, {95, 80, 39}))
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E3M2, {4}, {152, 32, 51}))
      .Run();
}

TEST(CastFloat6Test, Float6ToOtherTypes) {
  // e2m3 0.25, -2.25, 5, 7.5, -0, 1.25, 0.
  const Tensor input = MakeRawTensor(E::kFloat6E2M3, {7}, {66, 172, 125, 160, 2, 0});
  OpTester("Cast", 28)
      .Attr("to", int64_t{6})
      .InputTensor("X", input)
      .Output<int32_t>("Y", {7}, {0, -2, 5, 7, 0, 1, 0})
      .Run();
  OpTester("Cast", 28)
      .Attr("to", int64_t{11})
      .InputTensor("X", input)
      .Output<double>("Y", {7}, {0.25, -2.25, 5.0, 7.5, -0.0, 1.25, 0.0})
      .Run();
  OpTester("Cast", 28)
      .Attr("to", int64_t{8})
      .InputTensor("X", input)
      .Output<std::string>("Y", {7}, {"0.25", "-2.25", "5", "7.5", "-0", "1.25", "0"})
      .Run();
  OpTester("Cast", 28)
      .Attr("to", int64_t{9})
      .InputTensor("X", input)
      .Output<bool>("Y", {7}, {true, true, true, true, false, true, false})
      .Run();
}

TEST(CastFloat6Test, OtherTypesToFloat6) {
  // int32 -2, 3, 9, 0 -> e3m2 -2, 3, 8, 0 (9 is a tie between 8 and 10 -> even: 8).
  OpTester("Cast", 28)
      .Attr("to", int64_t{28})
      .Input<int32_t>("X", {4}, {-2, 3, 9, 0})
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E3M2, {4}, {0xb0, 0x84, 0x01}))
      .Run();
  OpTester("Cast", 28)
      .Attr("to", int64_t{27})
      .Input<std::string>("X", {2}, {"1.0", "-INF"})
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E2M3, {2}, {0xc8, 0x0f}))
      .Run();
}

TEST(CastFloat6Test, RoundTripThroughFloat) {
  // Every e3m2 code: float6 -> float -> float6 gives the same packed bytes. 64 codes, 48 bytes.
  std::vector<uint8_t> bytes(StorageBytes(E::kFloat6E3M2, 64), 0);
  std::vector<float> values;
  for (int code = 0; code < 64; ++code) {
    SetPackedBits(bytes.data(), code, 6, static_cast<uint8_t>(code));
    values.push_back(NarrowFloatToFloat(E::kFloat6E3M2, static_cast<uint8_t>(code)));
  }
  OpTester("Cast", 28)
      .Attr("to", int64_t{1})
      .InputTensor("X", MakeRawTensor(E::kFloat6E3M2, {64}, bytes))
      .Output<float>("Y", {64}, values)
      .Run();
  OpTester("Cast", 28)
      .Attr("to", int64_t{28})
      .Input<float>("X", {64}, values)
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E3M2, {64}, bytes))
      .Run();
}

TEST(CastFloat6Test, OlderOpsetsRejectFloat6) {
  OpTester("Cast", 25)
      .Attr("to", int64_t{27})
      .Input<float>("X", {1}, {1.0f})
      .OutputTensor("Y", MakeRawTensor(E::kFloat6E2M3, {1}, {0x08}))
      .ExpectFailure("float6e2m3");
}

}  // namespace
}  // namespace prism::testing

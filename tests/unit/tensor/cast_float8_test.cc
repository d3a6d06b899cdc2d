// Scalar conversion helpers behind Cast (framework/float8.h, framework/packed_int.h), checked
// against hand-computed encodings (also cross-checked with ml_dtypes, the ONNX reference).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/status.h"
#include "framework/float8.h"
#include "framework/packed_int.h"

namespace prism::testing {
namespace {

using E = ElementType;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint8_t Enc(E type, double value, bool saturate = true) {
  return FloatToNarrowFloat(type, value, saturate);
}

TEST(Float8Test, E4M3FNEncodesNormalsSubnormalsAndTies) {
  const E t = E::kFloat8E4M3FN;
  EXPECT_EQ(Enc(t, 0.0), 0x00);
  EXPECT_EQ(Enc(t, -0.0), 0x80);
  EXPECT_EQ(Enc(t, 1.0), 0x38);
  EXPECT_EQ(Enc(t, -2.0), 0xc0);
  EXPECT_EQ(Enc(t, 448.0), 0x7e);  // max finite
  EXPECT_EQ(Enc(t, -448.0), 0xfe);
  EXPECT_EQ(Enc(t, 0.015625), 0x08);          // 2^-6, smallest normal
  EXPECT_EQ(Enc(t, 7 * 0.001953125), 0x07);   // largest subnormal
  EXPECT_EQ(Enc(t, 0.001953125), 0x01);       // 2^-9, smallest subnormal
  EXPECT_EQ(Enc(t, 0.0009765625), 0x00);      // 2^-10: tie between 0 and 2^-9 -> even (0)
  EXPECT_EQ(Enc(t, 0.0009765626), 0x01);      // just above the tie
  EXPECT_EQ(Enc(t, 3 * 0.0009765625), 0x02);  // 1.5 quanta: tie -> even (2)
  EXPECT_EQ(Enc(t, 1.0625), 0x38);            // tie between 1 and 1.125 -> even mantissa
  EXPECT_EQ(Enc(t, 1.1875), 0x3a);            // tie between 1.125 and 1.25 -> even mantissa
  EXPECT_EQ(Enc(t, 1e-30), 0x00);
  EXPECT_EQ(Enc(t, -1e-30), 0x80);
}

TEST(Float8Test, E4M3FNSaturation) {
  const E t = E::kFloat8E4M3FN;
  // saturate = 1: overflow and infinities clamp to +-448, NaN stays NaN.
  EXPECT_EQ(Enc(t, 464.0), 0x7e);  // tie between 448 and 480 -> even: 448
  EXPECT_EQ(Enc(t, 465.0), 0x7e);
  EXPECT_EQ(Enc(t, 1e6), 0x7e);
  EXPECT_EQ(Enc(t, -1e300), 0xfe);
  EXPECT_EQ(Enc(t, kInf), 0x7e);
  EXPECT_EQ(Enc(t, -kInf), 0xfe);
  EXPECT_EQ(Enc(t, kNaN), 0x7f);
  EXPECT_EQ(Enc(t, -kNaN), 0xff);
  // saturate = 0: values that round past 448 and infinities become NaN (keeping the sign).
  EXPECT_EQ(Enc(t, 464.0, false), 0x7e);
  EXPECT_EQ(Enc(t, 465.0, false), 0x7f);
  EXPECT_EQ(Enc(t, -465.0, false), 0xff);
  EXPECT_EQ(Enc(t, kInf, false), 0x7f);
  EXPECT_EQ(Enc(t, -kInf, false), 0xff);
  EXPECT_EQ(Enc(t, kNaN, false), 0x7f);
}

TEST(Float8Test, E4M3FNUZEncodings) {
  const E t = E::kFloat8E4M3FNUZ;
  EXPECT_EQ(Enc(t, 1.0), 0x40);
  EXPECT_EQ(Enc(t, 240.0), 0x7f);  // max finite
  EXPECT_EQ(Enc(t, -240.0), 0xff);
  EXPECT_EQ(Enc(t, 0.0009765625), 0x01);   // 2^-10, smallest subnormal
  EXPECT_EQ(Enc(t, 0.00048828125), 0x00);  // 2^-11: tie -> 0
  EXPECT_EQ(Enc(t, 3 * 0.00048828125), 0x02);
  EXPECT_EQ(Enc(t, -0.0), 0x00);  // no negative zero
  EXPECT_EQ(Enc(t, -1e-30), 0x00);
  EXPECT_EQ(Enc(t, kNaN), 0x80);
  EXPECT_EQ(Enc(t, -kNaN), 0x80);
  EXPECT_EQ(Enc(t, kInf), 0x7f);
  EXPECT_EQ(Enc(t, -kInf), 0xff);
  EXPECT_EQ(Enc(t, 248.0), 0x7f);         // tie rounds to 256, clamped
  EXPECT_EQ(Enc(t, 248.0, false), 0x80);  // ... or NaN without saturation
  EXPECT_EQ(Enc(t, 247.0, false), 0x7f);
  EXPECT_EQ(Enc(t, kInf, false), 0x80);
  EXPECT_EQ(Enc(t, -kInf, false), 0x80);
}

TEST(Float8Test, E5M2Encodings) {
  const E t = E::kFloat8E5M2;
  EXPECT_EQ(Enc(t, 1.0), 0x3c);
  EXPECT_EQ(Enc(t, 57344.0), 0x7b);                // max finite
  EXPECT_EQ(Enc(t, 1.52587890625e-05), 0x01);      // 2^-16, smallest subnormal
  EXPECT_EQ(Enc(t, 7.62939453125e-06), 0x00);      // 2^-17: tie -> 0
  EXPECT_EQ(Enc(t, 3 * 7.62939453125e-06), 0x02);  // tie -> even
  EXPECT_EQ(Enc(t, -0.0), 0x80);
  EXPECT_EQ(Enc(t, 61439.0), 0x7b);
  EXPECT_EQ(Enc(t, 61440.0), 0x7b);         // tie toward inf, saturated
  EXPECT_EQ(Enc(t, 61440.0, false), 0x7c);  // ... or inf
  EXPECT_EQ(Enc(t, -1e6, false), 0xfc);
  EXPECT_EQ(Enc(t, kInf), 0x7b);
  EXPECT_EQ(Enc(t, -kInf), 0xfb);
  EXPECT_EQ(Enc(t, kInf, false), 0x7c);
  EXPECT_EQ(Enc(t, -kInf, false), 0xfc);
  EXPECT_EQ(Enc(t, kNaN), 0x7e);
  EXPECT_EQ(Enc(t, -kNaN, false), 0xfe);
}

TEST(Float8Test, E5M2FNUZEncodings) {
  const E t = E::kFloat8E5M2FNUZ;
  EXPECT_EQ(Enc(t, 1.0), 0x40);
  EXPECT_EQ(Enc(t, 57344.0), 0x7f);             // max finite
  EXPECT_EQ(Enc(t, 7.62939453125e-06), 0x01);   // 2^-17, smallest subnormal
  EXPECT_EQ(Enc(t, 3.814697265625e-06), 0x00);  // 2^-18: tie -> 0
  EXPECT_EQ(Enc(t, -0.0), 0x00);
  EXPECT_EQ(Enc(t, 61440.0), 0x7f);
  EXPECT_EQ(Enc(t, 61440.0, false), 0x80);
  EXPECT_EQ(Enc(t, -kInf), 0xff);
  EXPECT_EQ(Enc(t, -kInf, false), 0x80);
  EXPECT_EQ(Enc(t, kNaN), 0x80);
}

TEST(Float8Test, DecodesEveryFormat) {
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FN, 0x7e), 448.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FN, 0x01), 0.001953125f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FN, 0xb8), -1.0f);
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E4M3FN, 0xff)));
  EXPECT_TRUE(std::signbit(NarrowFloatToFloat(E::kFloat8E4M3FN, 0x80)));
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FNUZ, 0x7f), 240.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FNUZ, 0x01), 0.0009765625f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E4M3FNUZ, 0xff), -240.0f);
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E4M3FNUZ, 0x80)));
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2, 0x7b), 57344.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2, 0x01), 1.52587890625e-05f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2, 0x7c), std::numeric_limits<float>::infinity());
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2, 0xfc), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E5M2, 0x7d)));
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E5M2, 0xfe)));
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2FNUZ, 0x7f), 57344.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E5M2FNUZ, 0x01), 7.62939453125e-06f);
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E5M2FNUZ, 0x80)));
  EXPECT_EQ(NarrowFloatMax(E::kFloat8E4M3FN), 448.0);
  EXPECT_EQ(NarrowFloatMax(E::kFloat8E4M3FNUZ), 240.0);
  EXPECT_EQ(NarrowFloatMax(E::kFloat8E5M2), 57344.0);
  EXPECT_EQ(NarrowFloatMax(E::kFloat8E5M2FNUZ), 57344.0);
  EXPECT_EQ(NarrowFloatMax(E::kFloat4E2M1), 6.0);
}

TEST(Float8Test, EveryFloat8CodeRoundTrips) {
  for (E t : {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ}) {
    for (int code = 0; code < 256; ++code) {
      const float value = NarrowFloatToFloat(t, static_cast<uint8_t>(code));
      if (std::isnan(value)) continue;
      if (std::isinf(value)) {
        EXPECT_EQ(Enc(t, value, false), code) << ElementTypeName(t);
        continue;
      }
      const int expected =
          (t == E::kFloat8E4M3FNUZ || t == E::kFloat8E5M2FNUZ) && value == 0.0f ? 0 : code;
      EXPECT_EQ(Enc(t, value), expected) << ElementTypeName(t) << " code " << code;
    }
  }
}

TEST(Float4Test, E2M1EncodesWithTiesToEvenAndAlwaysSaturates) {
  const E t = E::kFloat4E2M1;
  const double values[] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(Enc(t, values[code]), code);
    EXPECT_EQ(Enc(t, -values[code]), code | 0x8);
    EXPECT_EQ(NarrowFloatToFloat(t, static_cast<uint8_t>(code)), values[code]);
    EXPECT_EQ(NarrowFloatToFloat(t, static_cast<uint8_t>(code | 0x8)), -values[code]);
  }
  EXPECT_EQ(Enc(t, 0.25), 0x0);  // tie 0 / 0.5 -> 0
  EXPECT_EQ(Enc(t, 0.26), 0x1);
  EXPECT_EQ(Enc(t, 0.75), 0x2);  // tie 0.5 / 1 -> 1
  EXPECT_EQ(Enc(t, 1.25), 0x2);  // tie 1 / 1.5 -> 1
  EXPECT_EQ(Enc(t, 1.75), 0x4);  // tie 1.5 / 2 -> 2
  EXPECT_EQ(Enc(t, 2.5), 0x4);   // tie 2 / 3 -> 2
  EXPECT_EQ(Enc(t, 3.5), 0x6);   // tie 3 / 4 -> 4
  EXPECT_EQ(Enc(t, -3.5), 0xe);
  EXPECT_EQ(Enc(t, 5.0), 0x6);  // tie 4 / 6 -> 4
  EXPECT_EQ(Enc(t, 5.01), 0x7);
  EXPECT_EQ(Enc(t, 7.0), 0x7);  // beyond 6: saturates, with or without saturate
  EXPECT_EQ(Enc(t, 1e6, false), 0x7);
  EXPECT_EQ(Enc(t, -9.0, false), 0xf);
  EXPECT_EQ(Enc(t, kInf, false), 0x7);
  EXPECT_EQ(Enc(t, -kInf), 0xf);
  EXPECT_EQ(Enc(t, -0.0), 0x8);
  // No NaN encoding: the ONNX reference (and its conformance data) gives a sign-flipped zero.
  EXPECT_EQ(Enc(t, kNaN), 0x8);
  EXPECT_EQ(Enc(t, -kNaN), 0x0);
}

TEST(Float8E8M0Test, RoundingModesAndSaturation) {
  const auto up = E8M0Rounding::kUp;
  const auto down = E8M0Rounding::kDown;
  const auto nearest = E8M0Rounding::kNearest;
  EXPECT_EQ(FloatToFloat8E8M0(1.0, true, up), 0x7f);
  EXPECT_EQ(FloatToFloat8E8M0(2.0, true, down), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(0.5, true, nearest), 0x7e);
  EXPECT_EQ(FloatToFloat8E8M0(3.0, true, up), 0x81);
  EXPECT_EQ(FloatToFloat8E8M0(3.0, true, down), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(3.0, true, nearest), 0x81);  // the midpoint of 2 and 4: ties up
  EXPECT_EQ(FloatToFloat8E8M0(2.9, true, nearest), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(2.0000001, true, up), 0x81);
  EXPECT_EQ(FloatToFloat8E8M0(0.124, true, up), 0x7c);  // conformance data: 0.124 -> 0.125
  EXPECT_EQ(FloatToFloat8E8M0(-2.0, true, up), 0x80);   // the sign is ignored
  EXPECT_EQ(FloatToFloat8E8M0(kNaN, true, up), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(kNaN, false, up), 0xff);
  // Range ends: 2^127 (0xFE) and 2^-127 (0x00).
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.0, 127), true, up), 0xfe);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.5, 127), true, up), 0xfe);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.5, 127), false, up), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.5, 127), false, down), 0xfe);
  EXPECT_EQ(FloatToFloat8E8M0(kInf, true, up), 0xfe);
  EXPECT_EQ(FloatToFloat8E8M0(kInf, false, nearest), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.0, -127), false, nearest), 0x00);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.0, -128), true, nearest), 0x00);
  EXPECT_EQ(FloatToFloat8E8M0(std::ldexp(1.0, -128), false, down), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(0.0, true, up), 0x00);
  EXPECT_EQ(FloatToFloat8E8M0(0.0, false, nearest), 0xff);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E8M0, 0x7f), 1.0f);
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E8M0, 0x00), std::ldexp(1.0f, -127));
  EXPECT_EQ(NarrowFloatToFloat(E::kFloat8E8M0, 0xfe), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(NarrowFloatToFloat(E::kFloat8E8M0, 0xff)));
  EXPECT_EQ(ParseE8M0Rounding("nearest"), nearest);
  EXPECT_THROW(ParseE8M0Rounding("sideways"), Exception);
}

TEST(PackedIntTest, PackingIsLowBitsFirst) {
  uint8_t bytes[2] = {0, 0};
  SetPackedBits(bytes, 0, 4, 0x3);
  SetPackedBits(bytes, 1, 4, 0xc);
  SetPackedBits(bytes, 2, 4, 0x1f);  // only the low 4 bits are kept
  EXPECT_EQ(bytes[0], 0xc3);
  EXPECT_EQ(bytes[1], 0x0f);
  EXPECT_EQ(GetPackedBits(bytes, 1, 4), 0xc);
  uint8_t crumbs = 0;
  for (int i = 0; i < 4; ++i) SetPackedBits(&crumbs, i, 2, static_cast<uint8_t>(i));
  EXPECT_EQ(crumbs, 0xe4);  // 3,2,1,0 from the high bits down
  EXPECT_EQ(GetPackedBits(&crumbs, 2, 2), 2);
}

TEST(PackedIntTest, ValuesAndWrapping) {
  EXPECT_EQ(PackedIntValue(0x8, 4, true), -8);
  EXPECT_EQ(PackedIntValue(0xf, 4, true), -1);
  EXPECT_EQ(PackedIntValue(0x7, 4, true), 7);
  EXPECT_EQ(PackedIntValue(0xf, 4, false), 15);
  EXPECT_EQ(PackedIntValue(0x2, 2, true), -2);
  EXPECT_EQ(PackedIntValue(0x3, 2, false), 3);
  EXPECT_EQ(PackedIntBits(8, 4), 0x8);   // int4: -8
  EXPECT_EQ(PackedIntBits(-9, 4), 0x7);  // int4: 7
  EXPECT_EQ(PackedIntBits(-1, 4), 0xf);  // uint4: 15
  EXPECT_EQ(PackedIntBits(16, 4), 0x0);
  EXPECT_EQ(PackedIntBits(-3, 2), 0x1);  // int2: 1
  EXPECT_EQ(PackedIntBits(4, 2), 0x0);
}

TEST(PackedIntTest, SaturatingQuantizationRule) {
  EXPECT_EQ(SaturatePackedInt(9.0, 4, true), 0x7);
  EXPECT_EQ(SaturatePackedInt(-9.0, 4, true), 0x8);
  EXPECT_EQ(SaturatePackedInt(2.5, 4, true), 0x2);  // ties to even
  EXPECT_EQ(SaturatePackedInt(3.5, 4, true), 0x4);
  EXPECT_EQ(SaturatePackedInt(-2.5, 4, true), 0xe);  // -2
  EXPECT_EQ(SaturatePackedInt(-1.0, 4, false), 0x0);
  EXPECT_EQ(SaturatePackedInt(15.5, 4, false), 0xf);
  EXPECT_EQ(SaturatePackedInt(kNaN, 4, false), 0x0);
  EXPECT_EQ(SaturatePackedInt(1.5, 2, true), 0x1);    // int2 max is 1
  EXPECT_EQ(SaturatePackedInt(-kInf, 2, true), 0x2);  // int2 min is -2
  EXPECT_EQ(SaturatePackedInt(2.5, 2, false), 0x2);
}

}  // namespace
}  // namespace prism::testing

// BitCast with bit patterns worked out by hand, and the refused attribute values.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

TEST(BitCastTest, FloatBitsReadAsIntegers) {
  // 1.0f is 0x3f800000, -0.0f is 0x80000000, -2.5f is 0xc0200000.
  OpTester test("BitCast", 26);
  test.Attr("to", int64_t{6});  // int32
  test.Input<float>("input", {3}, {1.0f, -0.0f, -2.5f});
  test.Output<int32_t>("output", {3}, {0x3f800000, INT32_MIN, static_cast<int32_t>(0xc0200000u)});
  test.Run();
}

TEST(BitCastTest, IntegersReadAsHalfFloats) {
  // 0x3c00 is float16 1.0, 0xc000 is -2.0; as bfloat16 0x3f80 is 1.0.
  OpTester half("BitCast", 26);
  half.Attr("to", int64_t{10});
  half.Input<uint16_t>("input", {2}, {0x3c00, 0xc000});
  half.Output<Float16>("output", {2}, {Float16(1.0f), Float16(-2.0f)});
  half.Run();
  OpTester brain("BitCast", 26);
  brain.Attr("to", int64_t{16});
  brain.Input<int16_t>("input", {1}, {0x3f80});
  brain.Output<BFloat16>("output", {1}, {BFloat16(1.0f)});
  brain.Run();
}

TEST(BitCastTest, BoolTargetsHoldZeroOrOne) {
  OpTester test("BitCast", 26);
  test.Attr("to", int64_t{9});
  test.Input<uint8_t>("input", {3}, {0, 1, 2});
  test.Output<bool>("output", {3}, {false, true, true});
  test.Run();
}

TEST(BitCastTest, RefusesOtherWidthsAndStrings) {
  OpTester wider("BitCast", 26);
  wider.Attr("to", int64_t{7});  // int64 from float
  wider.Input<float>("input", {1}, {1.0f});
  wider.Output<int64_t>("output", {1}, {0});
  wider.ExpectFailure("has 64 bits per element but input 'input' is float with 32");
  OpTester to_string("BitCast", 26);
  to_string.Attr("to", int64_t{8});
  to_string.Input<float>("input", {1}, {1.0f});
  to_string.Output<float>("output", {1}, {0});
  to_string.ExpectFailure("not in constraint T2");
}

}  // namespace
}  // namespace prism::testing

// BitShift: both directions on every type of its version ranges, broadcasting, sign extension,
// bits moved past the sign bit, and out-of-range amounts (negative or the width or more).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "math_test_util.h"

namespace prism::testing {
namespace {

template <typename T>
void Check(int opset, const char* direction, std::vector<T> x, std::vector<T> y, std::vector<T> z) {
  SCOPED_TRACE(::testing::Message() << "BitShift opset " << opset << " " << direction << " "
                                    << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("BitShift", opset);
  test.Attr("direction", std::string(direction));
  test.Input<T>("X", {static_cast<int64_t>(x.size())}, x);
  test.Input<T>("Y", {static_cast<int64_t>(y.size())}, y);
  test.Output<T>("Z", {static_cast<int64_t>(z.size())}, z);
  test.Run();
}

TEST(BitShiftTest, UnsignedFrom11AndEveryIntegerFrom28) {
  for (int opset : {11, 28})
    TypeSet<uint8_t, uint16_t, uint32_t, uint64_t>::ForEach([&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      constexpr T kBits = sizeof(T) * 8;
      Check<T>(opset, "LEFT", {1, 2, 3, 1}, {1, 2, kBits, T(kBits - 1)},
               {2, 8, 0, T(T(1) << (kBits - 1))});
      Check<T>(opset, "RIGHT", {1, 4, 255, 7}, {1, 1, 4, kBits}, {0, 2, 15, 0});
    });
  TypeSet<int8_t, int16_t, int32_t, int64_t>::ForEach([](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    constexpr T kBits = sizeof(T) * 8;
    const T lowest = std::numeric_limits<T>::lowest();
    // Sign extension, and the sign fill alone for negative or too large amounts.
    Check<T>(28, "RIGHT", {-8, 8, -1, -8, 8, -8}, {1, 1, 3, kBits, kBits, -1},
             {-4, 4, -1, -1, 0, -1});
    // Left: into and past the sign bit; out-of-range amounts give 0.
    Check<T>(28, "LEFT", {1, 3, -1, 5}, {T(kBits - 1), T(kBits - 1), kBits, -2},
             {lowest, lowest, 0, 0});
  });
}

TEST(BitShiftTest, BroadcastsAndRejectsBadSettings) {
  OpTester test("BitShift", 11);
  test.Attr("direction", std::string("LEFT"));
  test.Input<uint32_t>("X", {2, 2}, {1, 2, 3, 4});
  test.Input<uint32_t>("Y", {2}, {1, 3});
  test.Output<uint32_t>("Z", {2, 2}, {2, 16, 6, 32});
  test.Run();
  OpTester direction("BitShift", 11);
  direction.Attr("direction", std::string("UP"));
  direction.Input<uint8_t>("X", {1}, {1});
  direction.Input<uint8_t>("Y", {1}, {1});
  direction.Output<uint8_t>("Z", {1}, {2});
  direction.ExpectFailure("BitShift direction must be LEFT or RIGHT, got 'UP'");
  OpTester signed_old("BitShift", 27);
  signed_old.Attr("direction", std::string("LEFT"));
  signed_old.Input<int32_t>("X", {1}, {1});
  signed_old.Input<int32_t>("Y", {1}, {1});
  signed_old.Output<int32_t>("Z", {1}, {2});
  signed_old.ExpectFailure("BitShift");
}

}  // namespace
}  // namespace prism::testing

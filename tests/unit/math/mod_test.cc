// Mod: both rounding modes on every (version range, type), the sign rules (fmod=1: A's sign,
// fmod=0: B's sign), broadcasting, zero divisors, the lowest integer modulo -1, and fmod=0 on
// floating types (allowed from opset 28 only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math_test_util.h"

namespace prism::testing {
namespace {

// A = [7, -7, 7, -7, 6], B = [3, 3, -3, -3, 3].
template <typename T>
void CheckSigned(int opset, int64_t fmod, std::initializer_list<double> expected) {
  SCOPED_TRACE(::testing::Message() << "Mod opset " << opset << " fmod " << fmod << " "
                                    << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("Mod", opset);
  test.Attr("fmod", fmod);
  test.Input<T>("A", {5}, Vals<T>({7, -7, 7, -7, 6}));
  test.Input<T>("B", {5}, Vals<T>({3, 3, -3, -3, 3}));
  test.Output<T>("C", {5}, Vals<T>(expected));
  test.Run();
}

template <typename T>
void CheckUnsigned(int opset, int64_t fmod) {
  SCOPED_TRACE(::testing::Message() << "Mod opset " << opset << " fmod " << fmod << " "
                                    << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("Mod", opset);
  test.Attr("fmod", fmod);
  // Broadcast: [2, 2] by [2].
  test.Input<T>("A", {2, 2}, Vals<T>({7, 8, 200, 9}));
  test.Input<T>("B", {2}, Vals<T>({3, 5}));
  test.Output<T>("C", {2, 2}, Vals<T>({1, 3, 2, 4}));
  test.Run();
}

using SignedInts = TypeSet<int8_t, int16_t, int32_t, int64_t>;
using UnsignedInts = TypeSet<uint8_t, uint16_t, uint32_t, uint64_t>;

TEST(ModTest, EveryTypeAndVersionRange) {
  const auto truncated = {1.0, -1.0, 1.0, -1.0, 0.0};
  const auto floored = {1.0, 2.0, -2.0, -1.0, 0.0};
  for (int opset : {10, 13, 28}) {
    SignedInts::ForEach([&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      CheckSigned<T>(opset, 0, floored);
      CheckSigned<T>(opset, 1, truncated);
    });
    UnsignedInts::ForEach([&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      CheckUnsigned<T>(opset, 0);
      CheckUnsigned<T>(opset, 1);
    });
    TypeSet<Float16, float, double>::ForEach([&](auto* type) {
      CheckSigned<std::remove_pointer_t<decltype(type)>>(opset, 1, truncated);
    });
  }
  for (int opset : {13, 28}) CheckSigned<BFloat16>(opset, 1, truncated);
  TypeSet<Float16, float, double, BFloat16>::ForEach(
      [&](auto* type) { CheckSigned<std::remove_pointer_t<decltype(type)>>(28, 0, floored); });
}

TEST(ModTest, FloatingCorners) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  OpTester floor_mode("Mod", 28);  // fmod=0
  floor_mode.Input<double>("A", {5}, {0.0, 5.5, -5.5, 1.0, 2.0});
  floor_mode.Input<double>("B", {5}, {-2.0, 2.0, 2.0, 0.0, -inf});
  floor_mode.Output<double>("C", {5}, {-0.0, 1.5, 0.5, nan, -inf});
  floor_mode.Run();
  OpTester c_mode("Mod", 13);
  c_mode.Attr("fmod", int64_t{1});
  c_mode.Input<double>("A", {4}, {5.5, -5.5, inf, 3.0});
  c_mode.Input<double>("B", {4}, {2.0, 2.0, 1.0, inf});
  c_mode.Output<double>("C", {4}, {1.5, -1.5, nan, 3.0});
  c_mode.Run();
}

TEST(ModTest, ErrorsAndOverflow) {
  OpTester zero("Mod", 13);
  zero.Input<int32_t>("A", {2}, {1, 2});
  zero.Input<int32_t>("B", {2}, {1, 0});
  zero.Output<int32_t>("C", {2}, {0, 0});
  zero.ExpectFailure("integer modulo by zero");
  OpTester float_floor("Mod", 13);
  float_floor.Input<float>("A", {1}, {1});
  float_floor.Input<float>("B", {1}, {1});
  float_floor.Output<float>("C", {1}, {0});
  float_floor.ExpectFailure("Mod with fmod=0 takes integers before opset 28");
  for (int64_t fmod : {0, 1}) {
    OpTester lowest("Mod", 13);
    lowest.Attr("fmod", fmod);
    lowest.Input<int64_t>("A", {1}, {std::numeric_limits<int64_t>::min()});
    lowest.Input<int64_t>("B", {1}, {-1});
    lowest.Output<int64_t>("C", {1}, {0});
    lowest.Run();
  }
}

}  // namespace
}  // namespace prism::testing

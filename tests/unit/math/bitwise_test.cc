// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot on every integer type, with broadcasting and
// signed values (two's complement bits).
#include <gtest/gtest.h>

#include <cstdint>

#include "math_test_util.h"

namespace prism::testing {
namespace {

using Integers = TypeSet<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

template <typename T>
void CheckBinary(const char* op, std::vector<T> expected) {
  SCOPED_TRACE(::testing::Message() << op << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test(op, 18);
  // [2, 2] against [2]: broadcast along rows.
  test.Input<T>("A", {2, 2}, {T(12), T(5), T(0), T(7)});
  test.Input<T>("B", {2}, {T(10), T(3)});
  test.Output<T>("C", {2, 2}, expected);
  test.Run();
}

TEST(BitwiseTest, EveryIntegerType) {
  Integers::ForEach([](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    CheckBinary<T>("BitwiseAnd", {T(12 & 10), T(5 & 3), T(0 & 10), T(7 & 3)});
    CheckBinary<T>("BitwiseOr", {T(12 | 10), T(5 | 3), T(0 | 10), T(7 | 3)});
    CheckBinary<T>("BitwiseXor", {T(12 ^ 10), T(5 ^ 3), T(0 ^ 10), T(7 ^ 3)});
    OpTester test("BitwiseNot", 18);
    test.Input<T>("X", {3}, {T(0), T(5), T(-1)});
    test.Output<T>("Y", {3}, {T(~T(0)), T(~T(5)), T(~T(-1))});
    test.Run();
  });
}

TEST(BitwiseTest, SignedValuesUseTheirBits) {
  OpTester test("BitwiseAnd", 18);
  test.Input<int8_t>("A", {2}, {-1, -128});
  test.Input<int8_t>("B", {2}, {85, 127});
  test.Output<int8_t>("C", {2}, {85, 0});
  test.Run();
  OpTester mixed("BitwiseOr", 18);
  mixed.Input<int32_t>("A", {1}, {1});
  mixed.Input<int64_t>("B", {1}, {1});
  mixed.Output<int32_t>("C", {1}, {1});
  mixed.ExpectFailure("BitwiseOr");
}

}  // namespace
}  // namespace prism::testing

// Equal, Greater, GreaterOrEqual, Less, LessOrEqual, And, Or, Xor, Not: every (op, version range,
// type) against hand-written truth tables, numpy broadcasting and the legacy broadcast attribute,
// NaN (unordered, unequal to itself) and strings (Equal from opset 19).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "math_test_util.h"

namespace prism::testing {
namespace {

using Floats = TypeSet<Float16, float, double>;
using Numeric = TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                        uint16_t, uint32_t, uint64_t>;
using NumericBf16 = TypeSet<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t>;

// A = [1, 2, 3, 0] against B = 2 (one element): numpy broadcasting from opset 7, the legacy
// broadcast=1 attribute before.
template <typename T>
void CheckAgainstTwo(const char* op, int opset, std::vector<bool> expected) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test(op, opset);
  test.Input<T>("A", {4}, Vals<T>({1, 2, 3, 0}));
  test.Input<T>("B", {1}, Vals<T>({2}));
  if (opset < 7) test.Attr("broadcast", int64_t{1});
  test.Output<bool>("C", {4}, expected);
  test.Run();
}

template <typename List>
void CheckOrdering(const char* op, int opset, const std::vector<bool>& expected) {
  List::ForEach([&](auto* type) {
    CheckAgainstTwo<std::remove_pointer_t<decltype(type)>>(op, opset, expected);
  });
}

TEST(ComparisonTest, EveryTypeAndVersionRange) {
  const std::vector<bool> greater = {false, false, true, false};
  const std::vector<bool> less = {true, false, false, true};
  const std::vector<bool> equal = {false, true, false, false};
  const std::vector<bool> greater_or_equal = {false, true, true, false};
  const std::vector<bool> less_or_equal = {true, true, false, true};
  for (int opset : {1, 7}) {
    CheckOrdering<Floats>("Greater", opset, greater);
    CheckOrdering<Floats>("Less", opset, less);
  }
  CheckOrdering<Numeric>("Greater", 9, greater);
  CheckOrdering<Numeric>("Less", 9, less);
  CheckOrdering<NumericBf16>("Greater", 13, greater);
  CheckOrdering<NumericBf16>("Less", 13, less);
  CheckOrdering<Numeric>("GreaterOrEqual", 12, greater_or_equal);
  CheckOrdering<Numeric>("LessOrEqual", 12, less_or_equal);
  CheckOrdering<NumericBf16>("GreaterOrEqual", 16, greater_or_equal);
  CheckOrdering<NumericBf16>("LessOrEqual", 16, less_or_equal);
  for (int opset : {1, 7}) {
    CheckAgainstTwo<int32_t>("Equal", opset, equal);
    CheckAgainstTwo<int64_t>("Equal", opset, equal);
  }
  CheckOrdering<Numeric>("Equal", 11, equal);
  CheckOrdering<NumericBf16>("Equal", 13, equal);
  CheckOrdering<NumericBf16>("Equal", 19, equal);
}

void CheckBool(const char* op, int opset, std::vector<bool> expected) {
  SCOPED_TRACE(::testing::Message() << op << " opset " << opset);
  OpTester test(op, opset);
  test.Input<bool>("A", {4}, {true, true, false, false});
  test.Input<bool>("B", {4}, {true, false, true, false});
  test.Output<bool>("C", {4}, expected);
  test.Run();
}

TEST(ComparisonTest, BoolsAndLogic) {
  for (int opset : {1, 7, 11, 13, 19}) CheckBool("Equal", opset, {true, false, false, true});
  for (int opset : {1, 7}) {
    CheckBool("And", opset, {true, false, false, false});
    CheckBool("Or", opset, {true, true, true, false});
    CheckBool("Xor", opset, {false, true, true, false});
  }
  OpTester test("Not", 1);
  test.Input<bool>("X", {3}, {true, false, true});
  test.Output<bool>("Y", {3}, {false, true, false});
  test.Run();
  // Logic broadcasts from opset 7: [2, 2] against [2].
  OpTester broadcast("And", 7);
  broadcast.Input<bool>("A", {2, 2}, {true, true, false, true});
  broadcast.Input<bool>("B", {2}, {true, false});
  broadcast.Output<bool>("C", {2, 2}, {true, false, false, false});
  broadcast.Run();
}

TEST(ComparisonTest, StringsFromOpset19) {
  OpTester test("Equal", 19);
  test.Input<std::string>("A", {3}, {"a", "b", ""});
  test.Input<std::string>("B", {3}, {"a", "c", ""});
  test.Output<bool>("C", {3}, {true, false, true});
  test.Run();
  OpTester older("Equal", 13);
  older.Input<std::string>("A", {1}, {"a"});
  older.Input<std::string>("B", {1}, {"a"});
  older.Output<bool>("C", {1}, {true});
  older.ExpectFailure("Equal");
}

TEST(ComparisonTest, NanIsUnorderedAndUnequal) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const struct {
    const char* op;
    std::vector<bool> expected;
  } cases[] = {{"Equal", {false, false}},
               {"Greater", {false, false}},
               {"GreaterOrEqual", {false, false}},
               {"Less", {false, false}},
               {"LessOrEqual", {false, false}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    OpTester test(c.op, 16);
    test.Input<float>("A", {2}, Vals<float>({nan, 1}));
    test.Input<float>("B", {2}, Vals<float>({nan, nan}));
    test.Output<bool>("C", {2}, c.expected);
    test.Run();
  }
}

TEST(ComparisonTest, LegacyShapesWithoutBroadcastAreRejected) {
  OpTester test("Greater", 1);
  test.Input<float>("A", {2}, {1, 2});
  test.Input<float>("B", {1}, {1});
  test.Output<bool>("C", {2}, {false, true});
  test.ExpectFailure("without broadcast=1 (opset < 7) A and B must have the same shape");
  OpTester mixed("Less", 13);
  mixed.Input<float>("A", {1}, {1});
  mixed.Input<double>("B", {1}, {1});
  mixed.Output<bool>("C", {1}, {false});
  mixed.ExpectFailure("Less");
}

}  // namespace
}  // namespace prism::testing

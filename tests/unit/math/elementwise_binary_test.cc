// Add, Sub, Mul, Div: values for every registered (op, opset range, type), numpy broadcasting,
// the legacy opset 1-6 broadcast attributes, integer edge cases and error messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "math_test_util.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

// Whether type T is registered for Add/Sub/Mul/Div at opset.
template <typename T>
bool ArithmeticRegistered(int opset) {
  constexpr ElementType e = ElementTypeOf<T>();
  using E = ElementType;
  const bool f = e == E::kFloat16 || e == E::kFloat || e == E::kDouble;
  const bool v6 = f || e == E::kInt32 || e == E::kInt64 || e == E::kUint32 || e == E::kUint64;
  if (opset < 6) return f;
  if (opset < 13) return v6;
  if (opset < 14) return v6 || e == E::kBFloat16;
  return true;
}

template <typename T>
class ArithmeticTypedTest : public ::testing::Test {};

using ArithmeticTypes = ::testing::Types<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                         int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(ArithmeticTypedTest, ArithmeticTypes);

template <typename T>
void CheckArithmetic(const char* op, int opset, std::initializer_list<double> expected) {
  OpTester test(op, opset);
  test.Input<T>("A", {2, 2}, Vals<T>({7, 2, 6, 9}));
  test.Input<T>("B", {2, 2}, Vals<T>({4, 1, 3, 3}));
  test.Output<T>("C", {2, 2}, Vals<T>(expected));
  test.Run();
}

// Every opset range the type is registered in: 1-5, 6, 7-12, 13, 14+.
TYPED_TEST(ArithmeticTypedTest, ValuesInEveryRegisteredOpsetRange) {
  using T = TypeParam;
  int ranges_run = 0;
  for (int opset : {1, 6, 7, 13, 14, 21}) {
    if (!ArithmeticRegistered<T>(opset)) continue;
    SCOPED_TRACE(opset);
    ++ranges_run;
    CheckArithmetic<T>("Add", opset, {11, 3, 9, 12});
    CheckArithmetic<T>("Sub", opset, {3, 1, 3, 6});
    CheckArithmetic<T>("Mul", opset, {28, 2, 18, 27});
    if constexpr (kIsFloatLike<T>) {
      CheckArithmetic<T>("Div", opset, {1.75, 2, 2, 3});
    } else {
      CheckArithmetic<T>("Div", opset, {1, 2, 2, 3});  // 7 / 4 truncates
    }
  }
  EXPECT_GE(ranges_run, 2);
}

TYPED_TEST(ArithmeticTypedTest, RowBroadcastOpset14) {
  using T = TypeParam;
  OpTester test("Mul", 14);
  test.Input<T>("A", {2, 3}, Vals<T>({1, 2, 3, 4, 5, 6}));
  test.Input<T>("B", {3}, Vals<T>({2, 3, 4}));
  test.Output<T>("C", {2, 3}, Vals<T>({2, 6, 12, 8, 15, 24}));
  test.Run();
}

TYPED_TEST(ArithmeticTypedTest, RejectedInOpsetsThatLackTheType) {
  using T = TypeParam;
  for (int opset : {1, 6, 7, 13}) {
    if (ArithmeticRegistered<T>(opset)) continue;
    SCOPED_TRACE(opset);
    OpTester test("Add", opset);
    test.Input<T>("A", {1}, Vals<T>({1}));
    test.Input<T>("B", {1}, Vals<T>({2}));
    test.Output<T>("C", {1}, Vals<T>({3}));
    test.ExpectFailure("no kernel for");
  }
}

// --- numpy broadcasting (opset 7+) ---

TEST(ArithmeticBroadcastTest, ScalarB) {
  OpTester test("Add", 14);
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {}, {10});
  test.Output<float>("C", {2, 3}, {11, 12, 13, 14, 15, 16});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ScalarAMinusVector) {
  OpTester test("Sub", 14);
  test.Input<float>("A", {}, {10});
  test.Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("C", {3}, {9, 8, 7});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ScalarAndScalar) {
  OpTester test("Div", 7);
  test.Input<double>("A", {}, {3});
  test.Input<double>("B", {}, {4});
  test.Output<double>("C", {}, {0.75});
  test.Run();
}

TEST(ArithmeticBroadcastTest, RowVector) {
  OpTester test("Sub", 13);
  test.Input<int32_t>("A", {2, 3}, {10, 20, 30, 40, 50, 60});
  test.Input<int32_t>("B", {1, 3}, {1, 2, 3});
  test.Output<int32_t>("C", {2, 3}, {9, 18, 27, 39, 48, 57});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ColumnVector) {
  OpTester test("Div", 14);
  test.Input<float>("A", {2, 3}, {2, 4, 6, 9, 12, 15});
  test.Input<float>("B", {2, 1}, {2, 3});
  test.Output<float>("C", {2, 3}, {1, 2, 3, 3, 4, 5});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ColumnTimesRowOuterProduct) {
  OpTester test("Mul", 14);
  test.Input<int64_t>("A", {3, 1}, {1, 2, 3});
  test.Input<int64_t>("B", {1, 4}, {1, 10, 100, 1000});
  test.Output<int64_t>("C", {3, 4}, {1, 10, 100, 1000, 2, 20, 200, 2000, 3, 30, 300, 3000});
  test.Run();
}

TEST(ArithmeticBroadcastTest, RankMismatchBothSidesStretch) {
  // A [2,1,3] + B [4,1] -> [2,4,3]: C[i,j,k] = A[i,0,k] + B[j,0].
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};
  const std::vector<float> b = {10, 20, 30, 40};
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) expected.push_back(a[i * 3 + k] + b[j]);
  OpTester test("Add", 14);
  test.Input<float>("A", {2, 1, 3}, a);
  test.Input<float>("B", {4, 1}, b);
  test.Output<float>("C", {2, 4, 3}, expected);
  test.Run();
}

TEST(ArithmeticBroadcastTest, MiddleAxisBroadcastRank4) {
  // A [2,3,2,2] - B [3,1,1]: B varies along axis 1 only.
  std::vector<double> a(24);
  for (int i = 0; i < 24; ++i) a[i] = i;
  const std::vector<double> b = {100, 200, 300};
  std::vector<double> expected(24);
  for (int i = 0; i < 24; ++i) expected[i] = a[i] - b[(i / 4) % 3];
  OpTester test("Sub", 14);
  test.Input<double>("A", {2, 3, 2, 2}, a);
  test.Input<double>("B", {3, 1, 1}, b);
  test.Output<double>("C", {2, 3, 2, 2}, expected);
  test.Run();
}

TEST(ArithmeticBroadcastTest, OnesInsideShapeAreCoalesced) {
  // A [2,1,3] with B [2,1,3]: size-1 dims that both share need no stretching.
  OpTester test("Add", 14);
  test.Input<uint8_t>("A", {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<uint8_t>("B", {1, 1, 3}, {10, 20, 30});
  test.Output<uint8_t>("C", {2, 1, 3}, {11, 22, 33, 14, 25, 36});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ZeroSizeDimWithRow) {
  OpTester test("Add", 14);
  test.Input<float>("A", {0, 3}, {});
  test.Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("C", {0, 3}, {});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ZeroSizeDimStretchesOne) {
  OpTester test("Mul", 14);
  test.Input<int32_t>("A", {2, 0}, {});
  test.Input<int32_t>("B", {1, 1}, {5});
  test.Output<int32_t>("C", {2, 0}, {});
  test.Run();
}

TEST(ArithmeticBroadcastTest, ZeroSizeAgainstOneOnOtherSide) {
  OpTester test("Sub", 14);
  test.Input<float>("A", {3, 1}, {1, 2, 3});
  test.Input<float>("B", {0}, {});
  test.Output<float>("C", {3, 0}, {});
  test.Run();
}

TEST(ArithmeticBroadcastTest, IncompatibleShapesNameBothShapes) {
  OpTester test("Add", 14);
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {4}, {1, 2, 3, 4});
  test.Output<float>("C", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("[2,3] and [4]");
}

TEST(ArithmeticBroadcastTest, ZeroAgainstThreeIsIncompatible) {
  OpTester test("Mul", 14);
  test.Input<float>("A", {0}, {});
  test.Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("C", {0}, {});
  test.ExpectFailure("[0] and [3]");
}

// --- legacy broadcast attributes (opset 1-6) ---

TEST(ArithmeticLegacyBroadcastTest, AxisOneMatchesMiddleDim) {
  // A [2,3,2], B [3] with axis=1: C[i,j,k] = A[i,j,k] + B[j].
  std::vector<float> a(12);
  for (int i = 0; i < 12; ++i) a[i] = static_cast<float>(i);
  std::vector<float> expected(12);
  for (int i = 0; i < 12; ++i) expected[i] = a[i] + 10.f * static_cast<float>((i / 2) % 3 + 1);
  OpTester test("Add", 6);
  test.Attr("broadcast", int64_t{1}).Attr("axis", int64_t{1});
  test.Input<float>("A", {2, 3, 2}, a);
  test.Input<float>("B", {3}, {10, 20, 30});
  test.Output<float>("C", {2, 3, 2}, expected);
  test.Run();
}

TEST(ArithmeticLegacyBroadcastTest, AxisZero) {
  OpTester test("Mul", 6);
  test.Attr("broadcast", int64_t{1}).Attr("axis", int64_t{0});
  test.Input<int32_t>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int32_t>("B", {2}, {2, -1});
  test.Output<int32_t>("C", {2, 3}, {2, 4, 6, -4, -5, -6});
  test.Run();
}

TEST(ArithmeticLegacyBroadcastTest, SuffixMatchingWithoutAxis) {
  OpTester test("Sub", 1);
  test.Attr("broadcast", int64_t{1});
  test.Input<double>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<double>("B", {3}, {1, 1, 2});
  test.Output<double>("C", {2, 3}, {0, 1, 1, 3, 4, 4});
  test.Run();
}

TEST(ArithmeticLegacyBroadcastTest, OneElementB) {
  OpTester test("Div", 6);
  test.Attr("broadcast", int64_t{1});
  test.Input<float>("A", {2, 2}, {2, 4, 6, 8});
  test.Input<float>("B", {1, 1}, {2});
  test.Output<float>("C", {2, 2}, {1, 2, 3, 4});
  test.Run();
}

TEST(ArithmeticLegacyBroadcastTest, ScalarBWithFloat16) {
  OpTester test("Add", 1);
  test.Attr("broadcast", int64_t{1});
  test.Input<Float16>("A", {3}, Vals<Float16>({1, 2, 3}));
  test.Input<Float16>("B", {}, Vals<Float16>({0.5}));
  test.Output<Float16>("C", {3}, Vals<Float16>({1.5, 2.5, 3.5}));
  test.Run();
}

TEST(ArithmeticLegacyBroadcastTest, BroadcastZeroRequiresEqualShapes) {
  OpTester test("Add", 6);
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("C", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("same shape");
}

TEST(ArithmeticLegacyBroadcastTest, MismatchedBNamesBothShapes) {
  OpTester test("Add", 6);
  test.Attr("broadcast", int64_t{1}).Attr("axis", int64_t{0});
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("C", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("A [2,3]");
}

TEST(ArithmeticLegacyBroadcastTest, BLongerThanAFails) {
  OpTester test("Mul", 6);
  test.Attr("broadcast", int64_t{1});
  test.Input<float>("A", {3}, {1, 2, 3});
  test.Input<float>("B", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Output<float>("C", {3}, {0, 0, 0});
  test.ExpectFailure("cannot fit B [2,3] into A [3]");
}

// --- integer semantics ---

TEST(ArithmeticIntegerTest, DivTruncatesTowardZero) {
  OpTester test("Div", 14);
  test.Input<int32_t>("A", {6}, {-7, 7, -7, 7, -1, 0});
  test.Input<int32_t>("B", {6}, {2, -2, -2, 2, 3, -5});
  test.Output<int32_t>("C", {6}, {-3, -3, 3, 3, 0, 0});
  test.Run();
}

TEST(ArithmeticIntegerTest, DivLowestByMinusOneWraps) {
  OpTester test("Div", 14);
  test.Input<int8_t>("A", {2}, {-128, 127});
  test.Input<int8_t>("B", {2}, {-1, -1});
  test.Output<int8_t>("C", {2}, {-128, -127});
  test.Run();
}

TEST(ArithmeticIntegerTest, DivInt64LowestByMinusOneWraps) {
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::lowest();
  OpTester test("Div", 7);
  test.Input<int64_t>("A", {1}, {kLowest});
  test.Input<int64_t>("B", {1}, {-1});
  test.Output<int64_t>("C", {1}, {kLowest});
  test.Run();
}

TEST(ArithmeticIntegerTest, DivByZeroIsAnError) {
  OpTester test("Div", 14);
  test.Input<int32_t>("A", {2}, {1, 2});
  test.Input<int32_t>("B", {2}, {1, 0});
  test.Output<int32_t>("C", {2}, {1, 0});
  test.ExpectFailure("integer division by zero");
}

TEST(ArithmeticIntegerTest, UnsignedDivByZeroIsAnError) {
  OpTester test("Div", 14);
  test.Input<uint8_t>("A", {2}, {1, 2});
  test.Input<uint8_t>("B", {}, {0});
  test.Output<uint8_t>("C", {2}, {0, 0});
  test.ExpectFailure("integer division by zero");
}

TEST(ArithmeticIntegerTest, FloatDivByZeroGivesInfinity) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  OpTester test("Div", 14);
  test.Input<float>("A", {2}, {1, -2});
  test.Input<float>("B", {2}, {0, 0});
  test.Output<float>("C", {2}, {kInf, -kInf});
  test.Run();
}

TEST(ArithmeticIntegerTest, Int64KeepsFullPrecision) {
  OpTester add("Add", 14);
  add.Input<int64_t>("A", {2}, {9007199254740993, -9007199254740993});
  add.Input<int64_t>("B", {2}, {1, -2});
  add.Output<int64_t>("C", {2}, {9007199254740994, -9007199254740995});
  add.Run();

  OpTester mul("Mul", 14);
  mul.Input<int64_t>("A", {1}, {3037000499});
  mul.Input<int64_t>("B", {1}, {3037000499});
  mul.Output<int64_t>("C", {1}, {9223372030926249001});
  mul.Run();

  OpTester div("Div", 14);
  div.Input<int64_t>("A", {1}, {9007199254740993});
  div.Input<int64_t>("B", {1}, {3});
  div.Output<int64_t>("C", {1}, {3002399751580331});
  div.Run();
}

TEST(ArithmeticIntegerTest, Uint64KeepsFullPrecision) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  OpTester sub("Sub", 14);
  sub.Input<uint64_t>("A", {2}, {kMax, 0});
  sub.Input<uint64_t>("B", {2}, {1, 1});
  sub.Output<uint64_t>("C", {2}, {kMax - 1, kMax});  // 0 - 1 wraps
  sub.Run();

  OpTester div("Div", 14);
  div.Input<uint64_t>("A", {1}, {kMax});
  div.Input<uint64_t>("B", {1}, {3});
  div.Output<uint64_t>("C", {1}, {6148914691236517205u});
  div.Run();
}

TEST(ArithmeticIntegerTest, OverflowWraps) {
  OpTester add("Add", 14);
  add.Input<int32_t>("A", {1}, {2147483647});
  add.Input<int32_t>("B", {1}, {1});
  add.Output<int32_t>("C", {1}, {-2147483647 - 1});
  add.Run();

  OpTester mul("Mul", 14);
  mul.Input<uint16_t>("A", {2}, {65535, 300});
  mul.Input<uint16_t>("B", {2}, {65535, 300});
  mul.Output<uint16_t>("C", {2}, {1, 24464});  // 90000 mod 65536
  mul.Run();

  OpTester mul8("Mul", 14);
  mul8.Input<int8_t>("A", {2}, {100, -128});
  mul8.Input<int8_t>("B", {2}, {2, -1});
  mul8.Output<int8_t>("C", {2}, {-56, -128});
  mul8.Run();
}

TEST(ArithmeticHalfTest, Float16RoundsResultToNearest) {
  // 2049 is not a float16 value: 2048 + 1 rounds to even (2048); 2048 + 3 gives 2052.
  OpTester test("Add", 14);
  test.Input<Float16>("A", {2}, Vals<Float16>({2048, 2048}));
  test.Input<Float16>("B", {2}, Vals<Float16>({1, 3}));
  test.Output<Float16>("C", {2}, Vals<Float16>({2048, 2052}));
  test.SetTolerance(0, 0, "the rounding to nearest even is exact");
  test.Run();
}

TEST(ArithmeticHalfTest, BFloat16Division) {
  OpTester test("Div", 13);
  test.Input<BFloat16>("A", {3}, Vals<BFloat16>({1, -3, 10}));
  test.Input<BFloat16>("B", {3}, Vals<BFloat16>({4, 2, 0.5}));
  test.Output<BFloat16>("C", {3}, Vals<BFloat16>({0.25, -1.5, 20}));
  test.Run();
}

TEST(ArithmeticErrorTest, MixedElementTypesAreRejected) {
  OpTester test("Add", 14);
  test.Input<float>("A", {1}, {1});
  test.Input<double>("B", {1}, {2});
  test.Output<float>("C", {1}, {3});
  test.ExpectFailure("inputs A and B must have one element type, got float and double");
}

// Double arithmetic stays in double: A holds 1 + k * 2^-30 (all 1 in float), so Sub gives the
// small differences exactly and Add/Mul/Div keep them; a kernel computing in float would return
// 0 or the rounded sums instead, off by far more than the 1e-12 double tolerance.
TEST(ArithmeticDoublePrecisionTest, ExactToDoublePrecision) {
  const std::vector<double> a = {NearOne(1), NearOne(-3), NearOne(7), NearOne(12)};
  const std::vector<double> b = {1.0, NearOne(5), 3.0, NearOne(-9)};
  const auto check = [&](const char* op, auto fn) {
    SCOPED_TRACE(op);
    const std::vector<double> expected = DoubleExpected([&]<typename C>() {
      std::vector<C> out;
      for (size_t i = 0; i < a.size(); ++i)
        out.push_back(fn(static_cast<C>(a[i]), static_cast<C>(b[i])));
      return out;
    });
    OpTester test(op, 14);
    test.Input<double>("A", {4}, a);
    test.Input<double>("B", {4}, b);
    test.Output<double>("C", {4}, expected);
    test.Run();
  };
  check("Add", [](auto x, auto y) { return x + y; });
  check("Sub", [](auto x, auto y) { return x - y; });
  check("Mul", [](auto x, auto y) { return x * y; });
  check("Div", [](auto x, auto y) { return x / y; });
}

}  // namespace
}  // namespace prism::testing

// Abs, Neg, Sign, Ceil, Floor, Round, Reciprocal, Log, the trigonometric and hyperbolic
// functions, Softsign, Softplus: hand-checked values (numpy in double), integer wrap-around, the
// edges the conformance data leaves out (NaN, halves, huge inputs), and the opset ranges of
// bfloat16. The float cases of every op are also checked against the ONNX node tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math_test_util.h"

namespace prism::testing {
namespace {

template <typename T>
void Check(const char* op, int opset, std::initializer_list<double> x,
           std::initializer_list<double> y) {
  SCOPED_TRACE(::testing::Message() << op << " opset " << opset);
  const int64_t n = static_cast<int64_t>(x.size());
  OpTester test(op, opset);
  test.Input<T>("X", {n}, Vals<T>(x));
  test.Output<T>("Y", {n}, Vals<T>(y));
  test.Run();
}

TEST(UnaryFamilyTest, IntegerAbsAndNegWrapAsTwosComplement) {
  Check<int8_t>("Abs", 13, {-128, -5, 0, 7, 127}, {-128, 5, 0, 7, 127});
  Check<int64_t>("Neg", 13, {-9223372036854775807.0 - 1, 3, -4},
                 {-9223372036854775807.0 - 1, -3, 4});
  Check<uint16_t>("Abs", 6, {0, 65535}, {0, 65535});
  Check<int32_t>("Neg", 6, {2147483647, -2147483647, 0}, {-2147483647, 2147483647, 0});
}

TEST(UnaryFamilyTest, Sign) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Check<float>("Sign", 9, {-2.5, -0.0, 0, 3, nan}, {-1, 0, 0, 1, nan});
  Check<uint8_t>("Sign", 13, {0, 1, 255}, {0, 1, 1});
  Check<int16_t>("Sign", 13, {-300, 0, 2}, {-1, 0, 1});
  Check<BFloat16>("Sign", 13, {-2, 0.5}, {-1, 1});
}

TEST(UnaryFamilyTest, RoundHalvesToEven) {
  Check<float>("Round", 11, {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 7},
               {0, 2, 2, -0.0, -2, 2, -3, 7});
  Check<double>("Round", 22, {4.5, 5.5, -4.5}, {4, 6, -4});
  Check<BFloat16>("Round", 22, {2.5, -3.5}, {2, -4});
}

TEST(UnaryFamilyTest, CeilFloorReciprocalLog) {
  Check<float>("Ceil", 13, {-1.5, 1.2, 2}, {-1, 2, 2});
  Check<Float16>("Floor", 6, {-1.5, 1.7}, {-2, 1});
  Check<double>("Reciprocal", 13, {2, -0.25, 0},
                {0.5, -4, std::numeric_limits<double>::infinity()});
  Check<float>(
      "Log", 6, {1, 2.718281828459045, 0, -1},
      {0, 1, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()});
}

TEST(UnaryFamilyTest, TrigonometricAndHyperbolic) {
  Check<double>("Sin", 7, {0, 1}, {0, 0.8414709848078965});
  Check<double>("Cos", 7, {0, 1}, {1, 0.5403023058681398});
  Check<double>("Tan", 7, {0, 1}, {0, 1.5574077246549023});
  Check<double>("Asin", 7, {0.5, 2},
                {0.5235987755982989, std::numeric_limits<double>::quiet_NaN()});
  Check<double>("Acos", 7, {0.5}, {1.0471975511965979});
  Check<double>("Atan", 7, {1}, {0.7853981633974483});
  Check<double>("Sinh", 9, {1}, {1.1752011936438014});
  Check<double>("Cosh", 9, {1}, {1.5430806348152437});
  Check<double>("Asinh", 9, {1}, {0.881373587019543});
  Check<double>("Acosh", 9, {2}, {1.3169578969248166});
  Check<double>("Atanh", 9, {0.5}, {0.5493061443340549});
  Check<BFloat16>("Sin", 22, {0}, {0});
}

TEST(UnaryFamilyTest, SoftsignAndSoftplusStayFiniteForHugeInputs) {
  Check<double>("Softsign", 1, {1, -3, 0}, {0.5, -0.75, 0});
  Check<double>("Softplus", 1, {0, 1, -1, 1000, -1000},
                {0.6931471805599453, 1.3132616875182228, 0.31326168751822286, 1000, 0});
  Check<float>("Softplus", 22, {100}, {100});
}

TEST(UnaryFamilyTest, TypesOutsideTheOpsetAreRefused) {
  {
    OpTester test("Sin", 21);  // bfloat16 from opset 22
    test.Input<BFloat16>("X", {1}, Vals<BFloat16>({0}));
    test.Output<BFloat16>("Y", {1}, Vals<BFloat16>({0}));
    test.ExpectFailure("Sin");
  }
  {
    OpTester test("Neg", 13);  // signed types only
    test.Input<uint32_t>("X", {1}, Vals<uint32_t>({1}));
    test.Output<uint32_t>("Y", {1}, Vals<uint32_t>({1}));
    test.ExpectFailure("Neg");
  }
}

}  // namespace
}  // namespace prism::testing

// CastMap (ai.onnx.ml 1): every cast_to x map_form for both value types, max_map, onnxruntime's
// conversions and fillers, with expected rows worked out by hand, and its errors by name.
// onnxruntime agrees on the same cases (tests/python/test_ml_map_ops_oracle.py).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using Strings = std::vector<std::string>;
using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;

// {3: 1.5, 0: -2.25, 5: 7}: in key order -2.25, 1.5, 7.
Value FloatMap() {
  return MakeMap<int64_t, float>({3, 0, 5}, {1.5f, -2.25f, 7.0f});
}

// {3: "1.5", 0: "-7", 5: "abc"}.
Value StringMap() {
  return MakeMap<int64_t, std::string>({3, 0, 5}, {"1.5", "-7", "abc"});
}

OpTester CastMapTest(const std::string& cast_to, const std::string& map_form, int64_t max_map = 0) {
  OpTester test("CastMap", 1, "ai.onnx.ml");
  test.Attr("cast_to", cast_to);
  test.Attr("map_form", map_form);
  if (max_map > 0) test.Attr("max_map", max_map);
  return test;
}

TEST(CastMapTest, FloatValuesDense) {
  {
    OpTester test = CastMapTest("TO_FLOAT", "DENSE");
    test.InputValue("X", FloatMap()).Output<float>("Y", {1, 3}, {-2.25f, 1.5f, 7.0f});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_INT64", "DENSE");
    test.InputValue("X", FloatMap()).Output<int64_t>("Y", {1, 3}, {-2, 1, 7});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_STRING", "DENSE");
    test.InputValue("X", FloatMap())
        .Output<std::string>("Y", {1, 3}, {"-2.250000", "1.500000", "7.000000"});
    test.Run();
  }
}

// SPARSE with max_map 4: the value of key k at column k; key 5 is beyond and dropped.
TEST(CastMapTest, FloatValuesSparse) {
  {
    OpTester test = CastMapTest("TO_FLOAT", "SPARSE", 4);
    test.InputValue("X", FloatMap()).Output<float>("Y", {1, 4}, {-2.25f, 0.0f, 0.0f, 1.5f});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_INT64", "SPARSE", 4);
    test.InputValue("X", FloatMap()).Output<int64_t>("Y", {1, 4}, {-2, 0, 0, 1});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_STRING", "SPARSE", 4);
    test.InputValue("X", FloatMap())
        .Output<std::string>("Y", {1, 4}, {"-2.250000", "0.f", "0.f", "1.500000"});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_FLOAT", "SPARSE", 8);
    test.InputValue("X", FloatMap())
        .Output<float>("Y", {1, 8}, {-2.25f, 0.0f, 0.0f, 1.5f, 0.0f, 7.0f, 0.0f, 0.0f});
    test.Run();
  }
}

TEST(CastMapTest, SparseDefaultMaxMapIsOne) {
  OpTester test("CastMap", 1, "ai.onnx.ml");
  test.Attr("map_form", std::string("SPARSE"));  // cast_to defaults to TO_FLOAT
  test.InputValue("X", FloatMap()).Output<float>("Y", {1, 1}, {-2.25f});
  test.Run();
}

TEST(CastMapTest, StringValuesDense) {
  {
    OpTester test = CastMapTest("TO_STRING", "DENSE");
    test.InputValue("X", StringMap()).Output<std::string>("Y", {1, 3}, {"-7", "1.5", "abc"});
    test.Run();
  }
  {
    // std::stof / std::stoll: leading blanks, a sign, the longest number prefix; hex for floats.
    OpTester test = CastMapTest("TO_FLOAT", "DENSE");
    test.InputValue("X", MakeMap<int64_t, std::string>({0, 1, 2}, {" 2.5x", "1e3", "0x10"}))
        .Output<float>("Y", {1, 3}, {2.5f, 1000.0f, 16.0f});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_INT64", "DENSE");
    test.InputValue("X", MakeMap<int64_t, std::string>({0, 1, 2}, {"+5", " -3x", "2.7"}))
        .Output<int64_t>("Y", {1, 3}, {5, -3, 2});
    test.Run();
  }
}

// "abc" (key 5) lies beyond max_map 4, so it is never converted.
TEST(CastMapTest, StringValuesSparse) {
  {
    OpTester test = CastMapTest("TO_FLOAT", "SPARSE", 4);
    test.InputValue("X", StringMap()).Output<float>("Y", {1, 4}, {-7.0f, 0.0f, 0.0f, 1.5f});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_INT64", "SPARSE", 4);
    test.InputValue("X", StringMap()).Output<int64_t>("Y", {1, 4}, {-7, 0, 0, 1});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_STRING", "SPARSE", 4);
    test.InputValue("X", StringMap()).Output<std::string>("Y", {1, 4}, {"-7", "0.f", "0.f", "1.5"});
    test.Run();
  }
}

TEST(CastMapTest, SpecialFloats) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Value special = MakeMap<int64_t, float>({0, 1, 2, 3}, {nan, -inf, 1e10f, 1e-7f});
  {
    OpTester test = CastMapTest("TO_INT64", "DENSE");
    const int64_t low = std::numeric_limits<int64_t>::min();
    test.InputValue("X", special).Output<int64_t>("Y", {1, 4}, {low, low, 10000000000, 0});
    test.Run();
  }
  {
    OpTester test = CastMapTest("TO_STRING", "DENSE");
    test.InputValue("X", special)
        .Output<std::string>("Y", {1, 4}, {"nan", "-inf", "10000000000.000000", "0.000000"});
    test.Run();
  }
}

TEST(CastMapTest, EmptyMap) {
  OpTester test = CastMapTest("TO_FLOAT", "DENSE");
  test.InputValue("X", MakeMap<int64_t, float>({}, {})).Output<float>("Y", {1, 0}, {});
  test.Run();
}

TEST(CastMapTest, UnreadableStringIsRefusedNamingKeyAndValue) {
  OpTester test = CastMapTest("TO_FLOAT", "DENSE");
  test.InputValue("X", StringMap()).Output<float>("Y", {1, 3}, {0.0f, 0.0f, 0.0f});
  test.ExpectFailure(
      "input X maps key 5 to 'abc', which is not a float in range (cast_to TO_FLOAT)");
}

TEST(CastMapTest, OutOfRangeStringIsRefused) {
  OpTester test = CastMapTest("TO_INT64", "DENSE");
  test.InputValue("X", MakeMap<int64_t, std::string>({1}, {"99999999999999999999"}))
      .Output<int64_t>("Y", {1, 1}, {0});
  test.ExpectFailure("input X maps key 1 to '99999999999999999999', which is not an int64");
}

TEST(CastMapTest, NegativeKeyIsRefusedWhenSparse) {
  OpTester test = CastMapTest("TO_FLOAT", "SPARSE", 4);
  test.InputValue("X", MakeMap<int64_t, float>({-1, 2}, {1.0f, 2.0f}))
      .Output<float>("Y", {1, 4}, {0.0f, 0.0f, 2.0f, 0.0f});
  test.ExpectFailure("input X has the negative key -1");
}

TEST(CastMapTest, BadAttributesAreRefused) {
  {
    OpTester test = CastMapTest("TO_DOUBLE", "DENSE");
    test.InputValue("X", FloatMap()).Output<float>("Y", {1, 3}, {0.0f, 0.0f, 0.0f});
    test.ExpectFailure(
        "attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, got 'TO_DOUBLE'");
  }
  {
    OpTester test = CastMapTest("TO_FLOAT", "PACKED");
    test.InputValue("X", FloatMap()).Output<float>("Y", {1, 3}, {0.0f, 0.0f, 0.0f});
    test.ExpectFailure("attribute 'map_form' must be DENSE or SPARSE, got 'PACKED'");
  }
  {
    OpTester test = CastMapTest("TO_FLOAT", "SPARSE");
    test.Attr("max_map", int64_t{0});
    test.InputValue("X", FloatMap()).Output<float>("Y", {1, 1}, {0.0f});
    test.ExpectFailure("attribute 'max_map' must be > 0 with map_form SPARSE, got 0");
  }
}

TEST(CastMapTest, OutputDeclaredOtherThanCastToIsRefused) {
  OpTester test = CastMapTest("TO_INT64", "DENSE");
  test.InputValue("X", FloatMap()).Output<float>("Y", {1, 3}, {0.0f, 0.0f, 0.0f});
  test.ExpectFailure(
      "output Y is declared tensor(float) but cast_to 'TO_INT64' makes tensor(int64)");
}

}  // namespace
}  // namespace prism::testing

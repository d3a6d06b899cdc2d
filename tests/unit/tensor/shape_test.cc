#include <gtest/gtest.h>

#include <climits>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

TEST(ShapeTest, ReturnsDimsForEveryOpsetRange) {
  for (int opset : {1, 13, 15, 19, 21, 23, 24, 25}) {
    SCOPED_TRACE(opset);
    OpTester test("Shape", opset);
    test.Input<float>("x", {2, 3, 4}, std::vector<float>(24, 1.0f))
        .Output<int64_t>("y", {3}, {2, 3, 4});
    test.Run();
  }
}

TEST(ShapeTest, ScalarAndEmptyInputs) {
  OpTester scalar("Shape", 15);
  scalar.Input<int32_t>("x", {}, {7}).Output<int64_t>("y", {0}, {});
  scalar.Run();
  OpTester empty("Shape", 15);
  empty.Input<int8_t>("x", {3, 0, 2}, {}).Output<int64_t>("y", {3}, {3, 0, 2});
  empty.Run();
}

TEST(ShapeTest, StartAndEndSlice) {
  struct Case {
    int64_t start;
    int64_t end;  // INT64_MAX: attribute omitted
    std::vector<int64_t> expected;
  };
  // Input shape [2, 3, 4, 5].
  for (const Case& c : {Case{1, INT64_MAX, {3, 4, 5}}, Case{0, 2, {2, 3}}, Case{-1, INT64_MAX, {5}},
                        Case{1, -1, {3, 4}}, Case{-10, 10, {2, 3, 4, 5}}, Case{3, 1, {}},
                        Case{4, INT64_MAX, {}}, Case{0, -4, {}}, Case{-2, -1, {4}}}) {
    SCOPED_TRACE(MakeString("start ", c.start, " end ", c.end));
    OpTester test("Shape", 15);
    test.Input<float>("x", {2, 3, 4, 5}, std::vector<float>(120, 0.0f))
        .Output<int64_t>("y", {static_cast<int64_t>(c.expected.size())}, c.expected)
        .Attr("start", c.start);
    if (c.end != INT64_MAX) test.Attr("end", c.end);
    test.Run();
  }
}

TEST(ShapeTest, AcceptsEveryElementType) {
  OpTester strings("Shape", 13);
  strings.Input<std::string>("x", {1, 2}, {"a", "b"}).Output<int64_t>("y", {2}, {1, 2});
  strings.Run();
  OpTester bf16("Shape", 13);
  bf16.Input<BFloat16>("x", {3}, {BFloat16(1.0f), BFloat16(2.0f), BFloat16(3.0f)})
      .Output<int64_t>("y", {1}, {3});
  bf16.Run();
  struct Case {
    E type;
    int opset;
    std::vector<uint8_t> bytes;  // 3 elements
  };
  for (const Case& c :
       {Case{E::kFloat8E4M3FN, 19, {1, 2, 3}}, Case{E::kFloat8E5M2FNUZ, 19, {1, 2, 3}},
        Case{E::kInt4, 21, {0x21, 0x03}}, Case{E::kUint4, 21, {0x21, 0x03}},
        Case{E::kFloat4E2M1, 23, {0x21, 0x03}}, Case{E::kFloat8E8M0, 24, {1, 2, 3}},
        Case{E::kInt2, 25, {0x39}}, Case{E::kUint2, 25, {0x39}}}) {
    SCOPED_TRACE(ElementTypeName(c.type));
    OpTester test("Shape", c.opset);
    test.InputTensor("x", MakeRawTensor(c.type, {3, 1}, c.bytes)).Output<int64_t>("y", {2}, {3, 1});
    test.Run();
  }
}

}  // namespace
}  // namespace prism::testing

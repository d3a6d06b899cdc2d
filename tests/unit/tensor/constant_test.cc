#include <gtest/gtest.h>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

TEST(ConstantTest, TensorValueForEveryOpsetRange) {
  for (int opset : {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}) {
    SCOPED_TRACE(opset);
    OpTester test("Constant", opset);
    test.AttrTensor("value", MakeTensor<float>({2, 2}, {1.0f, -2.0f, 3.5f, 0.0f}))
        .Output<float>("y", {2, 2}, {1.0f, -2.0f, 3.5f, 0.0f});
    test.Run();
  }
}

TEST(ConstantTest, TensorValueOfOtherTypes) {
  OpTester ints("Constant", 13);
  ints.AttrTensor("value", MakeTensor<int64_t>({3}, {1, -2, 3}))
      .Output<int64_t>("y", {3}, {1, -2, 3});
  ints.Run();
  OpTester strings("Constant", 13);
  strings.AttrTensor("value", MakeTensor<std::string>({2}, {"a", "bc"}))
      .Output<std::string>("y", {2}, {"a", "bc"});
  strings.Run();
  OpTester bf16("Constant", 13);
  bf16.AttrTensor("value", MakeTensor<BFloat16>({1}, {BFloat16(1.5f)}))
      .Output<BFloat16>("y", {1}, {BFloat16(1.5f)});
  bf16.Run();
  OpTester half("Constant", 1);
  half.AttrTensor("value", MakeTensor<Float16>({}, {Float16(-0.5f)}))
      .Output<Float16>("y", {}, {Float16(-0.5f)});
  half.Run();
  struct Case {
    E type;
    int opset;
    std::vector<uint8_t> bytes;  // 3 elements
  };
  for (const Case& c : {Case{E::kFloat8E4M3FN, 19, {0x38, 0x7e, 0x80}},
                        Case{E::kInt4, 21, {0x87, 0x0f}}, Case{E::kFloat4E2M1, 23, {0x72, 0x0f}},
                        Case{E::kFloat8E8M0, 24, {0x7f, 0x00, 0xfe}}, Case{E::kInt2, 25, {0x39}}}) {
    SCOPED_TRACE(ElementTypeName(c.type));
    OpTester test("Constant", c.opset);
    test.AttrTensor("value", MakeRawTensor(c.type, {3}, c.bytes))
        .OutputTensor("y", MakeRawTensor(c.type, {3}, c.bytes));
    test.Run();
  }
}

TEST(ConstantTest, ScalarAndListAttributes) {
  OpTester value_float("Constant", 12);
  value_float.Attr("value_float", 2.5f).Output<float>("y", {}, {2.5f});
  value_float.Run();
  OpTester value_floats("Constant", 13);
  value_floats.Attr("value_floats", std::vector<float>{1.0f, -1.5f})
      .Output<float>("y", {2}, {1.0f, -1.5f});
  value_floats.Run();
  OpTester value_int("Constant", 13);
  value_int.Attr("value_int", int64_t{-7}).Output<int64_t>("y", {}, {-7});
  value_int.Run();
  OpTester value_ints("Constant", 25);
  value_ints.Attr("value_ints", std::vector<int64_t>{4, 5, 6}).Output<int64_t>("y", {3}, {4, 5, 6});
  value_ints.Run();
  OpTester value_string("Constant", 13);
  value_string.Attr("value_string", std::string("hello")).Output<std::string>("y", {}, {"hello"});
  value_string.Run();
  OpTester value_strings("Constant", 19);
  value_strings.Attr("value_strings", std::vector<std::string>{"x", ""})
      .Output<std::string>("y", {2}, {"x", ""});
  value_strings.Run();
  OpTester empty_ints("Constant", 13);
  empty_ints.Attr("value_ints", std::vector<int64_t>{}).Output<int64_t>("y", {0}, {});
  empty_ints.Run();
}

TEST(ConstantTest, RunsRepeatedlyWithTheSameValue) {
  OpTester test("Constant", 13);
  test.Attr("value_ints", std::vector<int64_t>{1, 2}).Output<int64_t>("y", {2}, {1, 2});
  test.Run();
  test.Run();
}

TEST(ConstantTest, RequiresExactlyOneValueAttribute) {
  OpTester none("Constant", 13);
  none.Output<float>("y", {}, {0.0f});
  none.ExpectFailure("exactly one");
  OpTester two("Constant", 13);
  two.Attr("value_int", int64_t{1}).Attr("value_float", 1.0f).Output<float>("y", {}, {1.0f});
  two.ExpectFailure("exactly one");
}

}  // namespace
}  // namespace prism::testing

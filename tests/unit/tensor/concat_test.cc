#include <gtest/gtest.h>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

TEST(ConcatTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {
      {1, {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}},
      {4, AllTensorTypesOf(G::kNoBfloat16)},
      {11, AllTensorTypesOf(G::kNoBfloat16)},
      {13, AllTensorTypesOf(G::kBfloat16)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Concat", range.opset);
      test.InputTensor("a", MakeCodedTensor(type, {2, 2}, {0, 1, 2, 3}));
      test.InputTensor("b", MakeCodedTensor(type, {2, 1}, {4, 5}));
      test.Attr("axis", int64_t{1});
      test.OutputTensor("concat", MakeCodedTensor(type, {2, 3}, {0, 1, 4, 2, 3, 5}));
      test.Run();

      OpTester axis0("Concat", range.opset);
      axis0.InputTensor("a", MakeCodedTensor(type, {1, 2}, {0, 1}));
      axis0.InputTensor("b", MakeCodedTensor(type, {2, 2}, {2, 3, 4, 5}));
      axis0.Attr("axis", int64_t{0});
      axis0.OutputTensor("concat", MakeCodedTensor(type, {3, 2}, Iota(6)));
      axis0.Run();
    }
  }
}

TEST(ConcatTest, Opset1DefaultsAxisToOne) {
  for (ElementType type : {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}) {
    SCOPED_TRACE(ElementTypeName(type));
    OpTester test("Concat", 1);
    test.InputTensor("a", MakeCodedTensor(type, {2, 1}, {0, 1}));
    test.InputTensor("b", MakeCodedTensor(type, {2, 2}, {2, 3, 4, 5}));
    test.OutputTensor("concat", MakeCodedTensor(type, {2, 3}, {0, 2, 3, 1, 4, 5}));
    test.Run();
  }
}

TEST(ConcatTest, NegativeAxisOpset11) {
  OpTester test("Concat", 11);
  test.Input<int32_t>("a", {2, 1, 2}, {1, 2, 3, 4});
  test.Input<int32_t>("b", {2, 1, 1}, {5, 6});
  test.Input<int32_t>("c", {2, 1, 2}, {7, 8, 9, 10});
  test.Attr("axis", int64_t{-1});
  test.Output<int32_t>("concat", {2, 1, 5}, {1, 2, 5, 7, 8, 3, 4, 6, 9, 10});
  test.Run();
}

TEST(ConcatTest, MiddleAxisOfRank3) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {2, 1, 2}, {1, 2, 3, 4});
  test.Input<float>("b", {2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12});
  test.Attr("axis", int64_t{1});
  test.Output<float>("concat", {2, 3, 2}, {1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12});
  test.Run();
}

TEST(ConcatTest, SingleInput) {
  OpTester test("Concat", 13);
  test.Input<std::string>("a", {2}, {"x", "y"}).Attr("axis", int64_t{0});
  test.Output<std::string>("concat", {2}, {"x", "y"});
  test.Run();
}

TEST(ConcatTest, ZeroSizeInputs) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {2, 0}, {});
  test.Input<float>("b", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("c", {2, 0}, {});
  test.Attr("axis", int64_t{1});
  test.Output<float>("concat", {2, 2}, {1, 2, 3, 4});
  test.Run();

  OpTester all_empty("Concat", 13);
  all_empty.Input<int64_t>("a", {0, 3}, {});
  all_empty.Input<int64_t>("b", {0, 2}, {});
  all_empty.Attr("axis", int64_t{1});
  all_empty.Output<int64_t>("concat", {0, 5}, {});
  all_empty.Run();
}

TEST(ConcatTest, RankMismatchFails) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("b", {4}, {1, 2, 3, 4});
  test.Attr("axis", int64_t{0});
  test.Output<float>("concat", {4, 2}, std::vector<float>(8, 0.f));
  test.ExpectFailure("input 1 [4] has rank 1 but input 0 [2,2] has rank 2");
}

TEST(ConcatTest, OtherDimMismatchFails) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("b", {3, 3}, std::vector<float>(9, 0.f));
  test.Attr("axis", int64_t{1});
  test.Output<float>("concat", {2, 5}, std::vector<float>(10, 0.f));
  test.ExpectFailure("differs from input 0 [2,2] in dim 0");
}

TEST(ConcatTest, AxisOutOfRangeFails) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {2}, {1, 2});
  test.Attr("axis", int64_t{1});
  test.Output<float>("concat", {2}, {1, 2});
  test.ExpectFailure("axis 1 is out of range [-1, 0]");
}

TEST(ConcatTest, ScalarsFail) {
  OpTester test("Concat", 13);
  test.Input<float>("a", {}, {1});
  test.Input<float>("b", {}, {2});
  test.Attr("axis", int64_t{0});
  test.Output<float>("concat", {2}, {1, 2});
  test.ExpectFailure("cannot concatenate scalars");
}

}  // namespace
}  // namespace prism::testing

#include <gtest/gtest.h>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

TEST(FlattenTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {
      {1, {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}},
      {9, AllTensorTypesOf(G::kNoBfloat16)},
      {11, AllTensorTypesOf(G::kNoBfloat16)},
      {13, AllTensorTypesOf(G::kBfloat16)},
      {21, AllTensorTypesOf(G::kInt4)},
      {23, AllTensorTypesOf(G::kFloat4)},
      {24, AllTensorTypesOf(G::kFloat8E8M0)},
      {25, AllTensorTypesOf(G::kInt2)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Flatten", range.opset);
      test.InputTensor("input", MakeCodedTensor(type, {2, 3, 2}, Iota(12)));
      test.Attr("axis", int64_t{2});
      test.OutputTensor("output", MakeCodedTensor(type, {6, 2}, Iota(12)));
      test.Run();
    }
  }
}

TEST(FlattenTest, DefaultAxisIsOne) {
  OpTester test("Flatten", 13);
  test.Input<float>("input", {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  test.Output<float>("output", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Run();
}

TEST(FlattenTest, AxisZeroAndRank) {
  OpTester zero("Flatten", 11);
  zero.Input<int64_t>("input", {2, 3}, {1, 2, 3, 4, 5, 6}).Attr("axis", int64_t{0});
  zero.Output<int64_t>("output", {1, 6}, {1, 2, 3, 4, 5, 6});
  zero.Run();

  OpTester end("Flatten", 11);
  end.Input<int64_t>("input", {2, 3}, {1, 2, 3, 4, 5, 6}).Attr("axis", int64_t{2});
  end.Output<int64_t>("output", {6, 1}, {1, 2, 3, 4, 5, 6});
  end.Run();
}

TEST(FlattenTest, NegativeAxis) {
  OpTester test("Flatten", 13);
  test.Input<uint16_t>("input", {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  test.Attr("axis", int64_t{-1});
  test.Output<uint16_t>("output", {6, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  test.Run();
}

TEST(FlattenTest, ScalarBecomesOneByOne) {
  OpTester test("Flatten", 13);
  test.Input<float>("input", {}, {3.5f}).Attr("axis", int64_t{0});
  test.Output<float>("output", {1, 1}, {3.5f});
  test.Run();
}

TEST(FlattenTest, AxisOutOfRangeFails) {
  OpTester test("Flatten", 13);
  test.Input<float>("input", {2, 3}, {1, 2, 3, 4, 5, 6}).Attr("axis", int64_t{3});
  test.Output<float>("output", {6, 1}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("axis 3 is out of range [-2, 2]");
}

}  // namespace
}  // namespace prism::testing

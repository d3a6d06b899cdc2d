#include <gtest/gtest.h>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

TEST(GatherTest, EveryVersionRangeTypeAndIndexType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {{1, AllTensorTypesOf(G::kNoBfloat16)},
                                          {11, AllTensorTypesOf(G::kNoBfloat16)},
                                          {13, AllTensorTypesOf(G::kBfloat16)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester rows("Gather", range.opset);
      rows.InputTensor("data", MakeCodedTensor(type, {3, 2}, Iota(6)));
      rows.Input<int64_t>("indices", {3}, {2, 0, 2});
      rows.OutputTensor("output", MakeCodedTensor(type, {3, 2}, {4, 5, 0, 1, 4, 5}));
      rows.Run();

      OpTester columns("Gather", range.opset);
      columns.InputTensor("data", MakeCodedTensor(type, {2, 3}, Iota(6)));
      columns.Input<int32_t>("indices", {2}, {1, 0});
      columns.Attr("axis", int64_t{1});
      columns.OutputTensor("output", MakeCodedTensor(type, {2, 2}, {1, 0, 4, 3}));
      columns.Run();
    }
  }
}

TEST(GatherTest, TwoDimensionalIndices) {
  // numpy.take(data, [[0, 1], [1, 2]], axis=0) for data = arange(6).reshape(3, 2).
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int64_t>("indices", {2, 2}, {0, 1, 1, 2});
  test.Output<float>("output", {2, 2, 2}, {0, 1, 2, 3, 2, 3, 4, 5});
  test.Run();
}

TEST(GatherTest, MiddleAxisWithMatrixIndices) {
  // data [2,3,2] = arange(12); take indices [[2],[0]] on axis 1 -> shape [2,2,1,2].
  OpTester test("Gather", 13);
  test.Input<int32_t>("data", {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  test.Input<int32_t>("indices", {2, 1}, {2, 0});
  test.Attr("axis", int64_t{1});
  test.Output<int32_t>("output", {2, 2, 1, 2}, {4, 5, 0, 1, 10, 11, 6, 7});
  test.Run();
}

TEST(GatherTest, NegativeIndicesAndAxis) {
  OpTester test("Gather", 13);
  test.Input<int64_t>("data", {2, 3}, {10, 11, 12, 13, 14, 15});
  test.Input<int64_t>("indices", {2}, {-1, -3});
  test.Attr("axis", int64_t{-1});
  test.Output<int64_t>("output", {2, 2}, {12, 10, 15, 13});
  test.Run();
}

TEST(GatherTest, ScalarIndexDropsAxis) {
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int64_t>("indices", {}, {1});
  test.Output<float>("output", {2}, {2, 3});
  test.Run();
}

TEST(GatherTest, EmptyIndices) {
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int64_t>("indices", {0}, {});
  test.Output<float>("output", {0, 2}, {});
  test.Run();
}

TEST(GatherTest, IndexOutOfRangeFails) {
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int64_t>("indices", {2}, {0, 3});
  test.Output<float>("output", {2, 2}, {0, 1, 0, 0});
  test.ExpectFailure(
      "index 3 (at position 1 of input 'indices') is out of range for a dim of size 3");
}

TEST(GatherTest, NegativeIndexOutOfRangeFails) {
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int32_t>("indices", {1}, {-4});
  test.Output<float>("output", {1, 2}, {0, 1});
  test.ExpectFailure(
      "index -4 (at position 0 of input 'indices') is out of range for a dim of size 3");
}

TEST(GatherTest, AxisOutOfRangeFails) {
  OpTester test("Gather", 13);
  test.Input<float>("data", {3, 2}, {0, 1, 2, 3, 4, 5});
  test.Input<int64_t>("indices", {1}, {0});
  test.Attr("axis", int64_t{2});
  test.Output<float>("output", {3, 1}, {0, 2, 4});
  test.ExpectFailure("axis 2 is out of range [-2, 1]");
}

}  // namespace
}  // namespace prism::testing

#include <gtest/gtest.h>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

TEST(SqueezeTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {
      {1, AllTensorTypesOf(G::kNoBfloat16)}, {11, AllTensorTypesOf(G::kNoBfloat16)},
      {13, AllTensorTypesOf(G::kBfloat16)},  {21, AllTensorTypesOf(G::kInt4)},
      {23, AllTensorTypesOf(G::kFloat4)},    {24, AllTensorTypesOf(G::kFloat8E8M0)},
      {25, AllTensorTypesOf(G::kInt2)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Squeeze", range.opset);
      test.InputTensor("data", MakeCodedTensor(type, {1, 3, 1, 2}, Iota(6)));
      if (range.opset < 13)
        test.Attr("axes", std::vector<int64_t>{2});
      else
        test.Input<int64_t>("axes", {1}, {2});
      test.OutputTensor("squeezed", MakeCodedTensor(type, {1, 3, 2}, Iota(6)));
      test.Run();
    }
  }
}

TEST(SqueezeTest, AttributeVersions) {
  for (int opset : {1, 11}) {
    SCOPED_TRACE(opset);
    OpTester test("Squeeze", opset);
    test.Input<std::string>("data", {1, 2, 1}, {"a", "b"}).Attr("axes", std::vector<int64_t>{0});
    test.Output<std::string>("squeezed", {2, 1}, {"a", "b"});
    test.Run();
  }
}

TEST(SqueezeTest, NegativeAxisOpset11) {
  OpTester test("Squeeze", 11);
  test.Input<int8_t>("data", {3, 1}, {-1, 0, 1}).Attr("axes", std::vector<int64_t>{-1});
  test.Output<int8_t>("squeezed", {3}, {-1, 0, 1});
  test.Run();
}

TEST(SqueezeTest, InputVersions) {
  const std::vector<std::pair<int, ElementType>> cases = {
      {13, ElementType::kBFloat16},   {21, ElementType::kFloat8E5M2FNUZ},
      {21, ElementType::kInt4},       {23, ElementType::kFloat4E2M1},
      {24, ElementType::kFloat8E8M0}, {25, ElementType::kUint2}};
  for (const auto& [opset, type] : cases) {
    SCOPED_TRACE(opset);
    OpTester test("Squeeze", opset);
    test.InputTensor("data", MakeCodedTensor(type, {3, 1}, {1, 2, 3}));
    test.Input<int64_t>("axes", {1}, {-1});
    test.OutputTensor("squeezed", MakeCodedTensor(type, {3}, {1, 2, 3}));
    test.Run();
  }
}

TEST(SqueezeTest, NoAxesRemovesEverySizeOneDim) {
  OpTester attr("Squeeze", 11);
  attr.Input<float>("data", {1, 2, 1, 2, 1}, {1, 2, 3, 4});
  attr.Output<float>("squeezed", {2, 2}, {1, 2, 3, 4});
  attr.Run();

  OpTester input("Squeeze", 13);
  input.Input<float>("data", {1, 2, 1, 2, 1}, {1, 2, 3, 4});
  input.Output<float>("squeezed", {2, 2}, {1, 2, 3, 4});
  input.Run();
}

TEST(SqueezeTest, AllOnesBecomesScalar) {
  OpTester test("Squeeze", 13);
  test.Input<uint64_t>("data", {1, 1}, {9});
  test.Output<uint64_t>("squeezed", {}, {9});
  test.Run();
}

TEST(SqueezeTest, SqueezingDimOtherThanOneFails) {
  OpTester test("Squeeze", 13);
  test.Input<float>("data", {1, 3}, {1, 2, 3});
  test.Input<int64_t>("axes", {1}, {1});
  test.Output<float>("squeezed", {1, 3}, {1, 2, 3});
  test.ExpectFailure("because its size is 3, not 1");
}

TEST(SqueezeTest, AxisOutOfRangeFails) {
  OpTester test("Squeeze", 13);
  test.Input<float>("data", {1, 3}, {1, 2, 3});
  test.Input<int64_t>("axes", {1}, {2});
  test.Output<float>("squeezed", {3}, {1, 2, 3});
  test.ExpectFailure("axis 2 is out of range [-2, 1]");
}

TEST(SqueezeTest, DuplicateAxisFails) {
  OpTester test("Squeeze", 13);
  test.Input<float>("data", {1, 3}, {1, 2, 3});
  test.Input<int64_t>("axes", {2}, {0, -2});
  test.Output<float>("squeezed", {3}, {1, 2, 3});
  test.ExpectFailure("more than once");
}

TEST(UnsqueezeTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {
      {1, AllTensorTypesOf(G::kNoBfloat16)}, {11, AllTensorTypesOf(G::kNoBfloat16)},
      {13, AllTensorTypesOf(G::kBfloat16)},  {21, AllTensorTypesOf(G::kInt4)},
      {23, AllTensorTypesOf(G::kFloat4)},    {24, AllTensorTypesOf(G::kFloat8E8M0)},
      {25, AllTensorTypesOf(G::kInt2)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Unsqueeze", range.opset);
      test.InputTensor("data", MakeCodedTensor(type, {3, 2}, Iota(6)));
      if (range.opset < 13)
        test.Attr("axes", std::vector<int64_t>{0, 3});
      else
        test.Input<int64_t>("axes", {2}, {0, 3});
      test.OutputTensor("expanded", MakeCodedTensor(type, {1, 3, 2, 1}, Iota(6)));
      test.Run();
    }
  }
}

TEST(UnsqueezeTest, AttributeVersions) {
  for (int opset : {1, 11}) {
    SCOPED_TRACE(opset);
    OpTester test("Unsqueeze", opset);
    test.Input<bool>("data", {2}, {true, false}).Attr("axes", std::vector<int64_t>{1});
    test.Output<bool>("expanded", {2, 1}, {true, false});
    test.Run();
  }
}

TEST(UnsqueezeTest, InputVersions) {
  const std::vector<std::pair<int, ElementType>> cases = {
      {13, ElementType::kBFloat16},   {21, ElementType::kFloat8E4M3FNUZ}, {21, ElementType::kUint4},
      {23, ElementType::kFloat4E2M1}, {24, ElementType::kFloat8E8M0},     {25, ElementType::kInt2}};
  for (const auto& [opset, type] : cases) {
    SCOPED_TRACE(opset);
    OpTester test("Unsqueeze", opset);
    test.InputTensor("data", MakeCodedTensor(type, {3}, {1, 2, 3}));
    test.Input<int64_t>("axes", {1}, {-1});
    test.OutputTensor("expanded", MakeCodedTensor(type, {3, 1}, {1, 2, 3}));
    test.Run();
  }
}

TEST(UnsqueezeTest, UnsortedAndNegativeAxes) {
  // Axes index the output [3,4,5] -> rank 5; {4, 0, -3} = {4, 0, 2}.
  OpTester test("Unsqueeze", 13);
  test.Input<float>("data", {3, 4}, std::vector<float>(12, 1.f));
  test.Input<int64_t>("axes", {3}, {4, 0, -3});
  test.Output<float>("expanded", {1, 3, 1, 4, 1}, std::vector<float>(12, 1.f));
  test.Run();
}

TEST(UnsqueezeTest, ScalarInput) {
  OpTester test("Unsqueeze", 13);
  test.Input<int32_t>("data", {}, {5});
  test.Input<int64_t>("axes", {}, {0});
  test.Output<int32_t>("expanded", {1}, {5});
  test.Run();
}

TEST(UnsqueezeTest, AxisOutOfRangeFails) {
  OpTester test("Unsqueeze", 13);
  test.Input<float>("data", {2}, {1, 2});
  test.Input<int64_t>("axes", {1}, {2});
  test.Output<float>("expanded", {2, 1}, {1, 2});
  test.ExpectFailure("axis 2 is out of range [-2, 1]");
}

TEST(UnsqueezeTest, DuplicateAxisFails) {
  OpTester test("Unsqueeze", 13);
  test.Input<float>("data", {2}, {1, 2});
  test.Input<int64_t>("axes", {2}, {0, -3});
  test.Output<float>("expanded", {1, 1, 2}, {1, 2});
  test.ExpectFailure("more than once");
}

}  // namespace
}  // namespace prism::testing

#include <gtest/gtest.h>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

const std::vector<ElementType> kClassicFloats = {ElementType::kFloat16, ElementType::kFloat,
                                                 ElementType::kDouble};

TEST(ReshapeTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {{1, kClassicFloats},
                                          {5, AllTensorTypesOf(G::kNoBfloat16)},
                                          {13, AllTensorTypesOf(G::kBfloat16)},
                                          {14, AllTensorTypesOf(G::kBfloat16)},
                                          {19, AllTensorTypesOf(G::kFloat8)},
                                          {21, AllTensorTypesOf(G::kInt4)},
                                          {23, AllTensorTypesOf(G::kFloat4)},
                                          {24, AllTensorTypesOf(G::kFloat8E8M0)},
                                          {25, AllTensorTypesOf(G::kInt2)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Reshape", range.opset);
      test.InputTensor("data", MakeCodedTensor(type, {2, 3}, Iota(6)));
      if (range.opset < 5)
        test.Attr("shape", std::vector<int64_t>{3, -1, 1});
      else
        test.Input<int64_t>("shape", {3}, {3, -1, 1});
      test.OutputTensor("reshaped", MakeCodedTensor(type, {3, 2, 1}, Iota(6)));
      test.Run();
    }
  }
}

TEST(ReshapeTest, Opset1ShapeAttribute) {
  OpTester test("Reshape", 1);
  test.Input<double>("data", {2, 2}, {1, 2, 3, 4}).Attr("shape", std::vector<int64_t>{4});
  test.Output<double>("reshaped", {4}, {1, 2, 3, 4});
  test.Run();

  OpTester half("Reshape", 1);
  half.Input<Float16>("data", {4}, {Float16(1.f), Float16(-2.f), Float16(3.f), Float16(0.5f)});
  half.Attr("shape", std::vector<int64_t>{2, 2});
  half.Output<Float16>("reshaped", {2, 2},
                       {Float16(1.f), Float16(-2.f), Float16(3.f), Float16(0.5f)});
  half.Run();
}

TEST(ReshapeTest, Opset1FloatWithZeroAndInferred) {
  OpTester test("Reshape", 1);
  test.Input<float>("data", {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  test.Attr("shape", std::vector<int64_t>{0, -1});
  test.Output<float>("reshaped", {2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  test.Run();
}

TEST(ReshapeTest, ZeroCopiesInputDim) {
  OpTester test("Reshape", 14);
  test.Input<int32_t>("data", {2, 3, 4}, std::vector<int32_t>(24, 7));
  test.Input<int64_t>("shape", {3}, {0, 4, 3});
  test.Output<int32_t>("reshaped", {2, 4, 3}, std::vector<int32_t>(24, 7));
  test.Run();
}

TEST(ReshapeTest, AllowZeroKeepsLiteralZero) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {0, 3}, {});
  test.Input<int64_t>("shape", {3}, {3, 0, 5});
  test.Attr("allowzero", int64_t{1});
  test.Output<float>("reshaped", {3, 0, 5}, {});
  test.Run();
}

TEST(ReshapeTest, AllowZeroWithMinusOneFails) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {0, 3}, {});
  test.Input<int64_t>("shape", {2}, {0, -1});
  test.Attr("allowzero", int64_t{1});
  test.Output<float>("reshaped", {0, 3}, {});
  test.ExpectFailure("both 0 and -1");
}

TEST(ReshapeTest, ToScalarAndBack) {
  OpTester test("Reshape", 13);
  test.Input<int64_t>("data", {1, 1}, {42});
  test.Input<int64_t>("shape", {0}, {});
  test.Output<int64_t>("reshaped", {}, {42});
  test.Run();
}

TEST(ReshapeTest, ConstantShapeInitializer) {
  OpTester test("Reshape", 21);
  test.Input<bool>("data", {4}, {true, false, false, true});
  test.Input<int64_t>("shape", {2}, {-1, 2}, /*constant=*/true);
  test.Output<bool>("reshaped", {2, 2}, {true, false, false, true});
  test.Run();
}

// RunAndGet does not check the declared Output, so the shape and the values are compared here
// as well as the buffer: a view with the input's shape, or over the wrong bytes, must fail.
TEST(ReshapeTest, OutputSharesInputBuffer) {
  OpTester test("Reshape", 14);
  const Tensor data = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor expected = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  test.InputTensor("data", data).Input<int64_t>("shape", {2}, {3, -1});
  test.OutputTensor("reshaped", expected);
  std::vector<Value> results = test.RunAndGet();
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].IsTensor());
  const Tensor& reshaped = results[0].GetTensor();
  EXPECT_EQ(reshaped.RawData(), data.RawData());
  EXPECT_EQ(reshaped.Shape(), TensorShape({3, 2}));
  EXPECT_EQ(CompareTensors(expected, reshaped, Tolerance{0, 0}), "");
}

TEST(ReshapeTest, TwoInferredDimsFail) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {2}, {-1, -1});
  test.Output<float>("reshaped", {6}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("more than one -1");
}

TEST(ReshapeTest, WrongElementCountFails) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {2}, {4, 2});
  test.Output<float>("reshaped", {4, 2}, std::vector<float>(8, 0.f));
  test.ExpectFailure("cannot reshape [2,3] (6 elements) to [4,2] (8 elements)");
}

TEST(ReshapeTest, InferredDimMustDivide) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {2}, {4, -1});
  test.Output<float>("reshaped", {6}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("known dims multiply to 4");
}

TEST(ReshapeTest, NegativeDimOtherThanMinusOneFails) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {2}, {-2, 3});
  test.Output<float>("reshaped", {6}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("shape dim 0 is -2");
}

TEST(ReshapeTest, ZeroBeyondInputRankFails) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {6}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {2}, {6, 0});
  test.Output<float>("reshaped", {6, 1}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("has only 1 dims");
}

TEST(ReshapeTest, ShapeInputMustBeOneDimensional) {
  OpTester test("Reshape", 14);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("shape", {1, 2}, {3, 2});
  test.Output<float>("reshaped", {3, 2}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("must be a scalar or 1-D tensor");
}

}  // namespace
}  // namespace prism::testing

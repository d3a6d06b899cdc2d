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

// Large enough (over 256 KiB of output) that the copies split over a 2-thread pool, by output
// byte ranges that cut inputs mid-slab: every element must land once, in order.
TEST(ConcatTest, LargeCopiesSplitOverThreads) {
  struct Case {
    int64_t axis;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {1, {{1, 48, 37, 41}, {1, 80, 37, 41}}},  // NCHWc-style: whole inputs one after another
      {2, {{3, 5, 1001, 7}, {3, 5, 999, 7}, {3, 5, 3, 7}}},  // many slabs per input
      {0, {{70000}, {3}, {1}}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "axis " << c.axis);
    OpTester test("Concat", 13);
    test.IntraOpThreads(2);
    std::vector<std::vector<float>> values;
    int32_t next = 0;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      int64_t size = 1;
      for (const int64_t d : c.shapes[i]) size *= d;
      std::vector<float> v(static_cast<size_t>(size));
      for (float& x : v) x = static_cast<float>(next++);
      test.Input<float>("in" + std::to_string(i), c.shapes[i], v);
      values.push_back(std::move(v));
    }
    // The expected output, built slab by slab.
    const std::vector<int64_t>& shape0 = c.shapes[0];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < c.axis; ++d) outer *= shape0[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(c.axis) + 1; d < shape0.size(); ++d) inner *= shape0[d];
    std::vector<int64_t> out_shape = shape0;
    out_shape[static_cast<size_t>(c.axis)] = 0;
    for (const auto& s : c.shapes)
      out_shape[static_cast<size_t>(c.axis)] += s[static_cast<size_t>(c.axis)];
    std::vector<float> expected;
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        const int64_t slab = c.shapes[i][static_cast<size_t>(c.axis)] * inner;
        expected.insert(expected.end(), values[i].begin() + o * slab,
                        values[i].begin() + (o + 1) * slab);
      }
    test.Attr("axis", c.axis);
    test.Output<float>("concat", out_shape, expected);
    test.Run();
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

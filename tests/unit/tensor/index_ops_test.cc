// GatherElements, GatherND, ScatterElements, ScatterND: the reductions on every kind of element
// (numbers, bool, complex; strings refused), negative indices, batch_dims, duplicates, empty
// inputs and the errors; values worked out by hand (onnx.reference semantics).
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "../math/math_test_util.h"

namespace prism::testing {
namespace {

TEST(GatherElementsTest, Axis0NegativeIndicesAndSmallerIndices) {
  OpTester test("GatherElements", 13);  // indices [2, 2] within data [3, 3], axis 0
  test.Input<float>("data", {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  test.Input<int64_t>("indices", {2, 2}, {-1, 0, 1, 2});
  test.Output<float>("output", {2, 2}, {7, 2, 4, 8});
  test.Run();
  OpTester strings("GatherElements", 13);
  strings.Input<std::string>("data", {2}, {"a", "b"}).Input<int32_t>("indices", {3}, {1, 1, 0});
  strings.Output<std::string>("output", {3}, {"b", "b", "a"});
  strings.Run();
}

TEST(GatherElementsTest, Errors) {
  OpTester range("GatherElements", 13);
  range.Input<float>("data", {2}, {1, 2}).Input<int64_t>("indices", {1}, {2});
  range.Output<float>("output", {1}, {0});
  range.ExpectFailure(
      "index 2 (at position 0 of input 'indices') is out of range for a dim of size 2");
  OpTester rank("GatherElements", 13);
  rank.Input<float>("data", {2}, {1, 2}).Input<int64_t>("indices", {1, 1}, {0});
  rank.Output<float>("output", {1, 1}, {0});
  rank.ExpectFailure("rank");
  OpTester larger("GatherElements", 13);
  larger.Input<float>("data", {1, 2}, {1, 2}).Input<int64_t>("indices", {2, 1}, {0, 0});
  larger.Attr("axis", int64_t{1});
  larger.Output<float>("output", {2, 1}, {0, 0});
  larger.ExpectFailure("is larger than 'data' of shape [1,2] in dim 0");
}

// [1, 5] data 1..5, updates at columns 1, 3, 1 (the duplicate combines under a reduction).
template <typename T>
void CheckReduction(const std::string& reduction, std::initializer_list<double> expected) {
  SCOPED_TRACE(::testing::Message() << reduction << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("ScatterElements", 18);
  test.Input<T>("data", {1, 5}, Vals<T>({1, 2, 3, 4, 5}));
  test.Input<int64_t>("indices", {1, 3}, {1, 3, -4});
  test.Input<T>("updates", {1, 3}, Vals<T>({3, 2, 1}));
  test.Attr("axis", int64_t{1}).Attr("reduction", reduction);
  test.Output<T>("output", {1, 5}, Vals<T>(expected));
  test.Run();
}

TEST(ScatterElementsTest, EveryReductionOnNumbers) {
  TypeSet<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
          uint32_t, uint64_t>::ForEach([](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    CheckReduction<T>("add", {1, 6, 3, 6, 5});
    CheckReduction<T>("mul", {1, 6, 3, 8, 5});
    CheckReduction<T>("max", {1, 3, 3, 4, 5});
    CheckReduction<T>("min", {1, 1, 3, 2, 5});
    CheckReduction<T>("none", {1, 1, 3, 2, 5});  // the duplicate keeps the last update
  });
}

TEST(ScatterElementsTest, BoolAndComplexReductions) {
  OpTester any("ScatterElements", 18);  // add on bool is "or"
  any.Input<bool>("data", {3}, {false, true, false}).Input<int64_t>("indices", {2}, {0, 1});
  any.Input<bool>("updates", {2}, {true, false}).Attr("reduction", std::string("add"));
  any.Output<bool>("output", {3}, {true, true, false});
  any.Run();
  OpTester all("ScatterElements", 18);  // min on bool is "and"
  all.Input<bool>("data", {2}, {true, true}).Input<int64_t>("indices", {1}, {1});
  all.Input<bool>("updates", {1}, {false}).Attr("reduction", std::string("min"));
  all.Output<bool>("output", {2}, {true, false});
  all.Run();
  using C = std::complex<float>;
  OpTester mul("ScatterElements", 16);
  mul.InputTensor("data", MakeTensor<C>({2}, {C(1, 1), C(2, 0)}));
  mul.Input<int64_t>("indices", {1}, {0});
  mul.InputTensor("updates", MakeTensor<C>({1}, {C(0, 1)}));
  mul.Attr("reduction", std::string("mul"));
  mul.OutputTensor("output", MakeTensor<C>({2}, {C(-1, 1), C(2, 0)}));
  mul.Run();
  OpTester max("ScatterElements", 18);
  max.InputTensor("data", MakeTensor<C>({1}, {C(1, 1)})).Input<int64_t>("indices", {1}, {0});
  max.InputTensor("updates", MakeTensor<C>({1}, {C(0, 1)}));
  max.Attr("reduction", std::string("max"));
  max.OutputTensor("output", MakeTensor<C>({1}, {C(1, 1)}));
  max.ExpectFailure("not defined for complex");
  OpTester strings("ScatterElements", 16);
  strings.Input<std::string>("data", {1}, {"a"}).Input<int64_t>("indices", {1}, {0});
  strings.Input<std::string>("updates", {1}, {"b"}).Attr("reduction", std::string("add"));
  strings.Output<std::string>("output", {1}, {"ab"});
  strings.ExpectFailure("reductions are not defined for string elements");
}

TEST(ScatterElementsTest, ReductionsNeedTheirOpset) {
  OpTester early("ScatterElements", 16);
  early.Input<float>("data", {1}, {1}).Input<int64_t>("indices", {1}, {0});
  early.Input<float>("updates", {1}, {2}).Attr("reduction", std::string("max"));
  early.Output<float>("output", {1}, {2});
  early.ExpectFailure("reduction 'max' is not defined at opset 16 (expected none, add or mul)");
  OpTester shape("ScatterElements", 13);
  shape.Input<float>("data", {2}, {1, 2}).Input<int64_t>("indices", {2}, {0, 1});
  shape.Input<float>("updates", {1}, {2});
  shape.Output<float>("output", {2}, {2, 2});
  shape.ExpectFailure("differ");
}

TEST(GatherNDTest, BatchDimsAndPartialIndices) {
  // data [2, 2, 2], batch_dims 1, indices [2, 1]: batch b takes data[b, indices[b]].
  OpTester batch("GatherND", 12);
  batch.Input<int32_t>("data", {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  batch.Input<int64_t>("indices", {2, 1}, {1, 0});
  batch.Attr("batch_dims", int64_t{1});
  batch.Output<int32_t>("output", {2, 2}, {2, 3, 4, 5});
  batch.Run();
  OpTester full("GatherND", 11);  // full index tuples pick elements, negative counts from the end
  full.Input<float>("data", {2, 2}, {0, 1, 2, 3}).Input<int64_t>("indices", {2, 2}, {0, -1, 1, 0});
  full.Output<float>("output", {2}, {1, 2});
  full.Run();
  OpTester empty("GatherND", 13);
  empty.Input<float>("data", {2, 2}, {0, 1, 2, 3}).Input<int64_t>("indices", {0, 1}, {});
  empty.Output<float>("output", {0, 2}, {});
  empty.Run();
}

TEST(GatherNDTest, Errors) {
  OpTester deep("GatherND", 13);
  deep.Input<float>("data", {2}, {0, 1}).Input<int64_t>("indices", {1, 2}, {0, 0});
  deep.Output<float>("output", {1}, {0});
  deep.ExpectFailure("must be in [1, 1]");
  OpTester batch("GatherND", 12);
  batch.Input<float>("data", {2, 2}, {0, 1, 2, 3}).Input<int64_t>("indices", {3, 1}, {0, 0, 0});
  batch.Attr("batch_dims", int64_t{1});
  batch.Output<float>("output", {3}, {0, 0, 0});
  batch.ExpectFailure("batch dim 0 differs");
  OpTester range("GatherND", 13);
  range.Input<float>("data", {2, 2}, {0, 1, 2, 3}).Input<int64_t>("indices", {1, 2}, {0, 2});
  range.Output<float>("output", {1}, {0});
  range.ExpectFailure(
      "index 2 (at position 1 of input 'indices') is out of range for a dim of size 2");
}

TEST(ScatterNDTest, SlicesReductionsAndErrors) {
  // data [3, 2]: rows 2 and 0 replaced, then row 2 added again under "add".
  OpTester rows("ScatterND", 11);
  rows.Input<float>("data", {3, 2}, {1, 2, 3, 4, 5, 6}).Input<int64_t>("indices", {2, 1}, {2, 0});
  rows.Input<float>("updates", {2, 2}, {10, 20, 30, 40});
  rows.Output<float>("output", {3, 2}, {30, 40, 3, 4, 10, 20});
  rows.Run();
  OpTester add("ScatterND", 16);
  add.Input<int64_t>("data", {3}, {1, 2, 3}).Input<int64_t>("indices", {3, 1}, {2, -1, 0});
  add.Input<int64_t>("updates", {3}, {10, 20, 30}).Attr("reduction", std::string("add"));
  add.Output<int64_t>("output", {3}, {31, 2, 33});
  add.Run();
  OpTester min("ScatterND", 18);
  min.Input<float>("data", {2}, {5, 5}).Input<int64_t>("indices", {2, 1}, {1, 1});
  min.Input<float>("updates", {2}, {7, 3}).Attr("reduction", std::string("min"));
  min.Output<float>("output", {2}, {5, 3});
  min.Run();
  OpTester shape("ScatterND", 11);
  shape.Input<float>("data", {3, 2}, {1, 2, 3, 4, 5, 6}).Input<int64_t>("indices", {1, 1}, {0});
  shape.Input<float>("updates", {1, 3}, {1, 2, 3});
  shape.Output<float>("output", {3, 2}, {1, 2, 3, 4, 5, 6});
  shape.ExpectFailure("input 'updates' has shape [1,3] but [1,2] is expected");
}

}  // namespace
}  // namespace prism::testing

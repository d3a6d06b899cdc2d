// Expand: every (version range, type), complex and strings included, broadcasting in both
// directions (the target may be smaller or of lower rank than the input), and clear errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

void Check(int opset, ElementType type) {
  SCOPED_TRACE(::testing::Message() << "Expand opset " << opset << " " << ElementTypeName(type));
  const size_t width = static_cast<size_t>(ElementBits(type) / 8);
  // Input [2, 1] with elements a, b; target [2, 3]: each row repeats its element.
  std::vector<uint8_t> in(2 * width);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = type == E::kBool ? static_cast<uint8_t>(i / width) : static_cast<uint8_t>(7 + i);
  std::vector<uint8_t> expected;
  for (size_t row = 0; row < 2; ++row)
    for (int col = 0; col < 3; ++col)
      expected.insert(expected.end(), in.begin() + static_cast<std::ptrdiff_t>(row * width),
                      in.begin() + static_cast<std::ptrdiff_t>((row + 1) * width));
  OpTester test("Expand", opset);
  test.InputTensor("input", MakeRawTensor(type, {2, 1}, in));
  test.Input<int64_t>("shape", {2}, {2, 3});
  test.OutputTensor("output", MakeRawTensor(type, {2, 3}, expected));
  test.Run();
}

TEST(ExpandTest, EveryTypeAndVersionRange) {
  std::vector<E> types = {E::kBool,    E::kComplex128, E::kComplex64, E::kDouble, E::kFloat,
                          E::kFloat16, E::kInt16,      E::kInt32,     E::kInt64,  E::kInt8,
                          E::kUint16,  E::kUint32,     E::kUint64,    E::kUint8};
  for (E type : types) Check(8, type);
  types.push_back(E::kBFloat16);
  for (E type : types) Check(13, type);
  for (int opset : {8, 13}) {
    OpTester strings("Expand", opset);
    strings.Input<std::string>("input", {1}, {"x"});
    strings.Input<int64_t>("shape", {1}, {3});
    strings.Output<std::string>("output", {3}, {"x", "x", "x"});
    strings.Run();
  }
}

TEST(ExpandTest, BroadcastsBothWays) {
  OpTester bigger("Expand", 13);
  bigger.Input<float>("input", {3, 1}, {1, 2, 3});
  bigger.Input<int64_t>("shape", {3}, {2, 1, 2});
  bigger.Output<float>("output", {2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  bigger.Run();
  OpTester smaller("Expand", 13);  // a target of lower rank keeps the input's shape
  smaller.Input<int32_t>("input", {2, 2}, {1, 2, 3, 4});
  smaller.Input<int64_t>("shape", {1}, {1});
  smaller.Output<int32_t>("output", {2, 2}, {1, 2, 3, 4});
  smaller.Run();
}

TEST(ExpandTest, BadShapesAreClearErrors) {
  OpTester negative("Expand", 13);
  negative.Input<float>("input", {1}, {1});
  negative.Input<int64_t>("shape", {1}, {-2});
  negative.Output<float>("output", {1}, {1});
  negative.ExpectFailure("Expand shape must be >= 0, got -2 at index 0");
  OpTester incompatible("Expand", 13);
  incompatible.Input<float>("input", {3}, {1, 2, 3});
  incompatible.Input<int64_t>("shape", {1}, {2});
  incompatible.Output<float>("output", {3}, {1, 2, 3});
  incompatible.ExpectFailure("Expand");
}

}  // namespace
}  // namespace prism::testing

// Where: every (version range, type), complex and string elements included, the condition, X and
// Y broadcast together, and mismatched types refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

// X's elements are the bytes 1.., Y's 101..; the result takes X's where the condition holds.
std::vector<uint8_t> Bytes(ElementType type, int64_t count, uint8_t first) {
  const size_t width = static_cast<size_t>(ElementBits(type) / 8);
  std::vector<uint8_t> bytes(width * static_cast<size_t>(count));
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = type == E::kBool ? static_cast<uint8_t>((i / width + first) % 2)
                                : static_cast<uint8_t>(first + i / width);
  return bytes;
}

void Check(int opset, ElementType type) {
  SCOPED_TRACE(::testing::Message() << "Where opset " << opset << " " << ElementTypeName(type));
  const size_t width = static_cast<size_t>(ElementBits(type) / 8);
  const std::vector<bool> condition = {true, false, false, true};
  const std::vector<uint8_t> x = Bytes(type, 4, 1);
  const std::vector<uint8_t> y = Bytes(type, 4, 102);
  std::vector<uint8_t> expected;
  for (size_t i = 0; i < 4; ++i) {
    const auto& from = condition[i] ? x : y;
    expected.insert(expected.end(), from.begin() + static_cast<std::ptrdiff_t>(i * width),
                    from.begin() + static_cast<std::ptrdiff_t>((i + 1) * width));
  }
  OpTester test("Where", opset);
  test.Input<bool>("condition", {4}, condition);
  test.InputTensor("X", MakeRawTensor(type, {4}, x));
  test.InputTensor("Y", MakeRawTensor(type, {4}, y));
  test.OutputTensor("output", MakeRawTensor(type, {4}, expected));
  test.Run();
}

TEST(WhereTest, EveryTypeAndVersionRange) {
  std::vector<E> types = {E::kBool,    E::kComplex128, E::kComplex64, E::kDouble, E::kFloat,
                          E::kFloat16, E::kInt16,      E::kInt32,     E::kInt64,  E::kInt8,
                          E::kUint16,  E::kUint32,     E::kUint64,    E::kUint8};
  for (E type : types) Check(9, type);
  types.push_back(E::kBFloat16);
  for (E type : types) Check(16, type);
  for (int opset : {9, 16}) {
    OpTester strings("Where", opset);
    strings.Input<bool>("condition", {2}, {false, true});
    strings.Input<std::string>("X", {2}, {"a", "b"});
    strings.Input<std::string>("Y", {2}, {"c", "d"});
    strings.Output<std::string>("output", {2}, {"c", "b"});
    strings.Run();
  }
}

TEST(WhereTest, ThreeWayBroadcast) {
  OpTester test("Where", 16);
  test.Input<bool>("condition", {2, 1}, {true, false});
  test.Input<float>("X", {3}, {1, 2, 3});
  test.Input<float>("Y", {1}, {-1});
  test.Output<float>("output", {2, 3}, {1, 2, 3, -1, -1, -1});
  test.Run();
}

TEST(WhereTest, MismatchedTypesAreRefused) {
  OpTester test("Where", 16);
  test.Input<bool>("condition", {1}, {true});
  test.Input<float>("X", {1}, {1});
  test.Input<double>("Y", {1}, {1});
  test.Output<float>("output", {1}, {1});
  test.ExpectFailure("X and Y must have one element type");
}

}  // namespace
}  // namespace prism::testing

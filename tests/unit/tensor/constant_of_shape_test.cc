// ConstantOfShape: every (version range, element type), the value repeated byte for byte (and bit
// for bit through packed sub-byte streams), the float 0 default, empty and rank-0 shapes, and
// clear errors for a bad shape input or value.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "framework/packed_int.h"
#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

// One element's storage: a byte pattern valid for every type (bool: true), a packed element's
// low bits otherwise.
std::vector<uint8_t> OneElement(ElementType type) {
  const int bits = ElementBits(type);
  if (type == E::kBool) return {0x01};
  if (bits < 8) return {static_cast<uint8_t>(0x05 & ((1u << bits) - 1u))};
  return std::vector<uint8_t>(static_cast<size_t>(bits / 8), 0x3C);
}

Tensor Repeated(ElementType type, const std::vector<int64_t>& dims) {
  const std::vector<uint8_t> element = OneElement(type);
  Tensor out(type, TensorShape(dims), GetCpuAllocator());
  const int bits = ElementBits(type);
  std::vector<uint8_t> bytes(out.SizeInBytes(), 0);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    if (bits < 8)
      SetPackedBits(bytes.data(), i, bits, element[0]);
    else
      std::copy(element.begin(), element.end(), bytes.begin() + i * (bits / 8));
  }
  return MakeRawTensor(type, dims, bytes);
}

void Check(int opset, ElementType type) {
  SCOPED_TRACE(::testing::Message()
               << "ConstantOfShape opset " << opset << " " << ElementTypeName(type));
  OpTester test("ConstantOfShape", opset);
  test.AttrTensor("value", MakeRawTensor(type, {1}, OneElement(type)));
  test.Input<int64_t>("input", {2}, {2, 3});
  test.OutputTensor("output", Repeated(type, {2, 3}));
  test.Run();
}

TEST(ConstantOfShapeTest, EveryTypeAndVersionRange) {
  std::vector<E> types = {E::kFloat16, E::kFloat, E::kDouble, E::kInt8,   E::kInt16,  E::kInt32,
                          E::kInt64,   E::kUint8, E::kUint16, E::kUint32, E::kUint64, E::kBool};
  for (E type : types) Check(9, type);
  for (E type :
       {E::kBFloat16, E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ})
    types.push_back(type);
  for (E type : types) Check(20, type);
  types.push_back(E::kInt4);
  types.push_back(E::kUint4);
  for (E type : types) Check(21, type);
  types.push_back(E::kFloat4E2M1);
  for (E type : types) Check(23, type);
  types.push_back(E::kFloat8E8M0);
  for (E type : types) Check(24, type);
  types.push_back(E::kInt2);
  types.push_back(E::kUint2);
  for (E type : types) Check(25, type);
}

TEST(ConstantOfShapeTest, DefaultsEmptyAndScalarShapes) {
  OpTester zeros("ConstantOfShape", 9);
  zeros.Input<int64_t>("input", {2}, {1, 2});
  zeros.Output<float>("output", {1, 2}, {0, 0});
  zeros.Run();
  OpTester empty("ConstantOfShape", 9);
  empty.AttrTensor("value", MakeTensor<int32_t>({1}, {7}));
  empty.Input<int64_t>("input", {2}, {3, 0});
  empty.Output<int32_t>("output", {3, 0}, {});
  empty.Run();
  OpTester scalar("ConstantOfShape", 9);
  scalar.AttrTensor("value", MakeTensor<int64_t>({1}, {-4}));
  scalar.Input<int64_t>("input", {0}, {});
  scalar.Output<int64_t>("output", {}, {-4});
  scalar.Run();
}

TEST(ConstantOfShapeTest, BadInputsAreClearErrors) {
  OpTester negative("ConstantOfShape", 9);
  negative.Input<int64_t>("input", {2}, {2, -1});
  negative.Output<float>("output", {2, 1}, {0, 0});
  negative.ExpectFailure("dims must be >= 0");
  OpTester two_values("ConstantOfShape", 9);
  two_values.AttrTensor("value", MakeTensor<float>({2}, {1, 2}));
  two_values.Input<int64_t>("input", {1}, {2});
  two_values.Output<float>("output", {2}, {1, 1});
  two_values.ExpectFailure("ConstantOfShape value must hold one element, got [2]");
}

}  // namespace
}  // namespace prism::testing

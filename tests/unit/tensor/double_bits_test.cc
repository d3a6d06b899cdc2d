// The data-movement kernels of the tensor family keep every bit of a double: the values are
// 1 + k * 2^-30, which a kernel that moved them through float would turn into 1.
#include <gtest/gtest.h>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

constexpr const char* kBitExact = "data movement copies every bit";

std::vector<double> Values(int count, int first_k) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(NearOne(first_k + 3 * i) * (i % 2 ? -1 : 1));
  return out;
}

TEST(TensorDoubleBitsTest, DataMovementKeepsEveryBit) {
  const std::vector<double> x = Values(6, -8);  // [2, 3]
  {
    OpTester test("Transpose", 21);
    test.Input<double>("data", {2, 3}, x);
    test.Output<double>("transposed", {3, 2}, {x[0], x[3], x[1], x[4], x[2], x[5]});
    test.SetTolerance(0, 0, kBitExact).Run();
  }
  {
    const std::vector<double> y = Values(3, 40);  // [1, 3]
    OpTester test("Concat", 13);
    test.Input<double>("a", {2, 3}, x).Input<double>("b", {1, 3}, y);
    test.Attr("axis", int64_t{0});
    test.Output<double>("concat", {3, 3}, {x[0], x[1], x[2], x[3], x[4], x[5], y[0], y[1], y[2]});
    test.SetTolerance(0, 0, kBitExact).Run();
  }
  {
    OpTester test("Gather", 13);
    test.Input<double>("data", {2, 3}, x).Input<int64_t>("indices", {2}, {2, 0});
    test.Attr("axis", int64_t{1});
    test.Output<double>("gathered", {2, 2}, {x[2], x[0], x[5], x[3]});
    test.SetTolerance(0, 0, kBitExact).Run();
  }
  {
    OpTester test("Reshape", 14);
    test.Input<double>("data", {2, 3}, x).Input<int64_t>("shape", {2}, {3, -1});
    test.Output<double>("reshaped", {3, 2}, x);
    test.SetTolerance(0, 0, kBitExact).Run();
  }
  {
    OpTester test("Unsqueeze", 13);
    test.Input<double>("data", {2, 3}, x).Input<int64_t>("axes", {1}, {0});
    test.Output<double>("expanded", {1, 2, 3}, x);
    test.SetTolerance(0, 0, kBitExact).Run();
  }
  {
    OpTester test("Cast", 13);
    test.Input<double>("input", {2, 3}, x);
    test.Attr("to", static_cast<int64_t>(ElementType::kDouble));
    test.Output<double>("output", {2, 3}, x);
    test.SetTolerance(0, 0, kBitExact).Run();
  }
}

}  // namespace
}  // namespace prism::testing

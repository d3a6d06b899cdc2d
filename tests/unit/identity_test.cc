#include <gtest/gtest.h>

#include "op_tester.h"

namespace prism::testing {

TEST(IdentityTest, FloatTensorPassesThrough) {
  OpTester test("Identity", 19);
  test.Input<float>("x", {2, 2}, {1.f, -2.f, 3.5f, 0.f});
  test.Output<float>("y", {2, 2}, {1.f, -2.f, 3.5f, 0.f});
  test.Run();
}

TEST(IdentityTest, StringTensorPassesThrough) {
  OpTester test("Identity", 13);
  test.Input<std::string>("x", {3}, {"a", "", "long string value"});
  test.Output<std::string>("y", {3}, {"a", "", "long string value"});
  test.Run();
}

TEST(IdentityTest, WrongExpectationIsDetected) {
  // Guards the harness itself: a wrong expected value must fail the comparison.
  OpTester test("Identity", 13);
  test.Input<int64_t>("x", {2}, {1, 2}).Output<int64_t>("y", {2}, {1, 2});
  auto results = test.RunAndGet();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(CompareValues(Value(MakeTensor<int64_t>({2}, {1, 3})), results[0], {}).empty());
}

}  // namespace prism::testing

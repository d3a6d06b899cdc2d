// ZipMap (ai.onnx.ml 1): rows of scores to seq(map(label, float)), with expected maps worked out
// by hand, and its errors by name. onnxruntime agrees on the same cases
// (tests/python/test_ml_map_ops_oracle.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using Strings = std::vector<std::string>;
using Floats = std::vector<float>;

TEST(ZipMapTest, StringLabelsEveryRowBecomesAMap) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_strings", Strings{"cat", "ant", "bee"});
  test.Input<float>("X", {2, 3}, {0.5f, 0.25f, 0.25f, 0.1f, 0.7f, 0.2f});
  // Keys come back in ascending order, each with the score of its column.
  test.OutputValue("Z", MakeMapSequence<std::string, float>({
                            {{"ant", "bee", "cat"}, {0.25f, 0.25f, 0.5f}},
                            {{"ant", "bee", "cat"}, {0.7f, 0.2f, 0.1f}},
                        }));
  test.Run();
}

TEST(ZipMapTest, Int64LabelsAndOneDimensionalInput) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_int64s", std::vector<int64_t>{7, -1, 3});
  test.Input<float>("X", {3}, {1.0f, 2.0f, 3.0f});  // [C]: one row
  test.OutputValue("Z", MakeMapSequence<int64_t, float>({{{-1, 3, 7}, {2.0f, 3.0f, 1.0f}}}));
  test.Run();
}

TEST(ZipMapTest, RepeatedLabelTakesTheLaterColumn) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_strings", Strings{"a", "b", "a"});
  test.Input<float>("X", {1, 3}, {1.0f, 2.0f, 3.0f});
  test.OutputValue("Z", MakeMapSequence<std::string, float>({{{"a", "b"}, {3.0f, 2.0f}}}));
  test.Run();
}

TEST(ZipMapTest, NoRowsGiveAnEmptySequence) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_int64s", std::vector<int64_t>{0, 1});
  test.Input<float>("X", {0, 2}, {});
  test.OutputValue("Z", MakeMapSequence<int64_t, float>({}));
  test.Run();
}

TEST(ZipMapTest, OutputTypeIsInferredFromTheLabels) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_int64s", std::vector<int64_t>{4, 2});
  test.Input<float>("X", {1, 2}, {0.5f, 0.5f});
  test.OutputValue("Z", MakeMapSequence<int64_t, float>({{{2, 4}, {0.5f, 0.5f}}}));
  const std::vector<Value> results = test.RunAndGet();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].Type().ToString(), "seq(map(int64,tensor(float)))");
}

TEST(ZipMapTest, ColumnCountOtherThanTheLabelsIsRefused) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_strings", Strings{"a", "b", "c"});
  test.Input<float>("X", {1, 2}, {1.0f, 2.0f});
  test.OutputValue("Z", MakeMapSequence<std::string, float>({}));
  test.ExpectFailure("input X [1,2] has 2 columns but the node has 3 class labels");
}

TEST(ZipMapTest, RankThreeIsRefused) {
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_strings", Strings{"a"});
  test.Input<float>("X", {1, 1, 1}, {1.0f});
  test.OutputValue("Z", MakeMapSequence<std::string, float>({}));
  test.ExpectFailure("input X must be [N, C] or [C], got shape [1,1,1]");
}

TEST(ZipMapTest, BothOrNeitherLabelListIsRefused) {
  {
    OpTester test("ZipMap", 1, "ai.onnx.ml");
    test.Attr("classlabels_strings", Strings{"a"});
    test.Attr("classlabels_int64s", std::vector<int64_t>{1});
    test.Input<float>("X", {1, 1}, {1.0f});
    test.OutputValue("Z", MakeMapSequence<std::string, float>({}));
    test.ExpectFailure("'classlabels_int64s' must list the class labels, got both");
  }
  {
    OpTester test("ZipMap", 1, "ai.onnx.ml");
    test.Input<float>("X", {1, 1}, {1.0f});
    test.OutputValue("Z", MakeMapSequence<std::string, float>({}));
    test.ExpectFailure("got neither");
  }
}

TEST(ZipMapTest, ModelDeclaringTheOtherKeyTypeIsRefused) {
  // The model says seq(map(string, float)) but the labels are int64 (onnxruntime refuses too).
  OpTester test("ZipMap", 1, "ai.onnx.ml");
  test.Attr("classlabels_int64s", std::vector<int64_t>{1});
  test.Input<float>("X", {1, 1}, {1.0f});
  test.OutputValue("Z", MakeMapSequence<std::string, float>({{{"1"}, {1.0f}}}));
  test.ExpectFailure(
      "output Z is declared seq(map(string,tensor(float))) but the labels make "
      "seq(map(int64,tensor(float)))");
}

}  // namespace
}  // namespace prism::testing

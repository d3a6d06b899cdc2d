// Tree-ensemble corners with values worked out by hand: missing-value tracks (NaN takes the
// tracked branch, else the comparison decides: false for <=, true for !=), every aggregate
// function (a target no leaf reached scores 0), every post transform, BRANCH_MEMBER sets,
// one-leaf trees, and the errors for malformed trees. Plus the ai.onnx.ml errors of the other
// kernels (types, lengths, unknown categories).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// TreeEnsemble (opset 5) with float splits and weights, SUM by default.
struct V5Tree {
  std::vector<int64_t> features;
  std::vector<float> splits;
  std::vector<uint8_t> modes;
  std::vector<int64_t> true_ids, false_ids, true_leafs, false_leafs;
  std::vector<int64_t> missing;
  std::vector<int64_t> leaf_targets;
  std::vector<float> leaf_weights;
  std::vector<int64_t> roots;
  std::vector<float> members;
  int64_t targets = 1;

  void AddTo(OpTester& test) const {
    const auto n = static_cast<int64_t>(features.size());
    test.Attr("nodes_featureids", features);
    test.AttrTensor("nodes_splits", MakeTensor<float>({n}, splits));
    test.AttrTensor("nodes_modes", MakeTensor<uint8_t>({n}, modes));
    test.Attr("nodes_truenodeids", true_ids);
    test.Attr("nodes_falsenodeids", false_ids);
    test.Attr("nodes_trueleafs", true_leafs);
    test.Attr("nodes_falseleafs", false_leafs);
    if (!missing.empty()) test.Attr("nodes_missing_value_tracks_true", missing);
    test.Attr("leaf_targetids", leaf_targets);
    test.AttrTensor("leaf_weights",
                    MakeTensor<float>({static_cast<int64_t>(leaf_weights.size())}, leaf_weights));
    test.Attr("tree_roots", roots);
    test.Attr("n_targets", targets);
    if (!members.empty())
      test.AttrTensor("membership_values",
                      MakeTensor<float>({static_cast<int64_t>(members.size())}, members));
  }
};

// One split x0 (mode) 1.0: true -> leaf 0 (weight 10), false -> leaf 1 (weight 20).
V5Tree Stump(uint8_t mode, int64_t missing_true) {
  V5Tree t;
  t.features = {0};
  t.splits = {1.0f};
  t.modes = {mode};
  t.true_ids = {0};
  t.false_ids = {1};
  t.true_leafs = {1};
  t.false_leafs = {1};
  t.missing = {missing_true};
  t.leaf_targets = {0, 0};
  t.leaf_weights = {10, 20};
  t.roots = {0};
  return t;
}

TEST(TreeEnsembleTest, MissingValueTracksSendNaNToTheTrueBranch) {
  // Modes: 0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ, 5 NEQ. Untracked NaN: every comparison is false
  // (the false leaf, 20) except NEQ (true, 10); tracked NaN: always the true leaf (10).
  const std::vector<float> untracked = {20, 20, 20, 20, 20, 10};
  for (uint8_t mode = 0; mode <= 5; ++mode) {
    for (int64_t tracked : {0, 1}) {
      SCOPED_TRACE("mode " + std::to_string(mode) + " tracked " + std::to_string(tracked));
      OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
      test.Input<float>("X", {1, 1}, {kNaN});
      Stump(mode, tracked).AddTo(test);
      test.Output<float>("Y", {1, 1}, {tracked ? 10.0f : untracked[mode]});
      test.Run();
    }
  }
}

TEST(TreeEnsembleTest, ModesCompareAtTheThreshold) {
  // x = 1 (the threshold) and x = 2: LEQ true/false, LT false/false, GTE true/true, GT
  // false/true, EQ true/false, NEQ false/true.
  const std::vector<std::vector<float>> expected = {{10, 20}, {20, 20}, {10, 10},
                                                    {20, 10}, {10, 20}, {20, 10}};
  for (uint8_t mode = 0; mode <= 5; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
    test.Input<float>("X", {2, 1}, {1, 2});
    Stump(mode, 0).AddTo(test);
    test.Output<float>("Y", {2, 1}, expected[mode]);
    test.Run();
  }
}

// Two one-leaf trees and a stump over two targets: the leaves give target 0 the weights 4 and
// -2 (and the stump's leaf 1 on x = 0... see each test), target 1 only what the stump gives.
V5Tree TwoTargetForest() {
  V5Tree t;
  // node 0: one-leaf tree (leaf 0: target 0, 4); node 1: one-leaf tree (leaf 1: target 0, -2);
  // node 2: x0 <= 0.5 ? leaf 2 (target 1, 6) : leaf 3 (target 0, 1).
  t.features = {0, 0, 0};
  t.splits = {0, 0, 0.5f};
  t.modes = {0, 0, 0};
  t.true_ids = {0, 1, 2};
  t.false_ids = {0, 1, 3};
  t.true_leafs = {1, 1, 1};
  t.false_leafs = {1, 1, 1};
  t.leaf_targets = {0, 0, 1, 0};
  t.leaf_weights = {4, -2, 6, 1};
  t.roots = {0, 1, 2};
  t.targets = 2;
  return t;
}

TEST(TreeEnsembleTest, EveryAggregateFunction) {
  // Row x = 0: target 0 gets {4, -2}, target 1 gets {6}. Row x = 1: target 0 gets {4, -2, 1},
  // target 1 nothing (0 whatever the aggregate).
  struct Case {
    int64_t aggregate;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      {0, {2.0f / 3, 2, 1, 0}},  // AVERAGE: sums / 3 trees
      {1, {2, 6, 3, 0}},         // SUM
      {2, {-2, 6, -2, 0}},       // MIN
      {3, {4, 6, 4, 0}},         // MAX
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("aggregate " + std::to_string(c.aggregate));
    OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
    test.Input<float>("X", {2, 1}, {0, 1});
    TwoTargetForest().AddTo(test);
    test.Attr("aggregate_function", c.aggregate);
    test.Output<float>("Y", {2, 2}, c.expected);
    test.Run();
  }
}

TEST(TreeEnsembleTest, EveryPostTransform) {
  // Row x = 0 sums to [2, 6], row x = 1 to [3, 0].
  const double e = std::exp(-4.0);  // softmax([2, 6]) = [e / (1 + e), 1 / (1 + e)]
  struct Case {
    int64_t transform;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      {0, {2, 6, 3, 0}},
      {1,
       {float(e / (1 + e)), float(1 / (1 + e)), float(1 / (1 + std::exp(-3.0))),
        float(std::exp(-3.0) / (1 + std::exp(-3.0)))}},
      {2,
       {float(1 / (1 + std::exp(-2.0))), float(1 / (1 + std::exp(-6.0))),
        float(1 / (1 + std::exp(-3.0))), 0.5f}},
      // SOFTMAX_ZERO: a zero score stays 0, the rest share 1.
      {3, {float(e / (1 + e)), float(1 / (1 + e)), 1, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("post_transform " + std::to_string(c.transform));
    OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
    test.Input<float>("X", {2, 1}, {0, 1});
    TwoTargetForest().AddTo(test);
    test.Attr("post_transform", c.transform);
    test.Output<float>("Y", {2, 2}, c.expected);
    test.SetTolerance(1e-6, 1e-6, "exp in double, rounded to float once");
    test.Run();
  }
}

TEST(TreeEnsembleTest, ProbitOfOneTarget) {
  // probit(0.8) = 0.841621 and probit(0.1) = -1.281552; onnxruntime's approximation of erf^-1
  // (Winitzki, a = 0.147) is within 2e-3 of them.
  V5Tree t = Stump(0, 0);
  t.leaf_weights = {0.8f, 0.1f};
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {2, 1}, {0, 2});
  t.AddTo(test);
  test.Attr("post_transform", int64_t{4});
  test.Output<float>("Y", {2, 1}, {0.841621f, -1.281552f});
  test.SetTolerance(2e-3, 0, "Winitzki's erf^-1 approximation, as onnxruntime");
  test.Run();
}

TEST(TreeEnsembleTest, OneTargetIgnoresTransformsOtherThanProbit) {
  V5Tree t = Stump(0, 0);
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {0});
  t.AddTo(test);
  test.Attr("post_transform", int64_t{2});  // LOGISTIC: one score stays as it is (onnxruntime)
  test.Output<float>("Y", {1, 1}, {10});
  test.Run();
}

TEST(TreeEnsembleTest, MembershipSetsInNodeOrder) {
  // node 0: x0 in {1, 4} ? leaf 0 (1) : node 1; node 1: x0 in {2.5} ? leaf 1 (2) : leaf 2 (3).
  V5Tree t;
  t.features = {0, 0};
  t.splits = {0, 0};
  t.modes = {6, 6};
  t.true_ids = {0, 1};
  t.false_ids = {1, 2};
  t.true_leafs = {1, 1};
  t.false_leafs = {0, 1};
  t.missing = {0, 1};
  t.leaf_targets = {0, 0, 0};
  t.leaf_weights = {1, 2, 3};
  t.roots = {0};
  t.members = {1, 4, kNaN, 2.5f, kNaN};
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {5, 1}, {4, 2.5f, 1, 3, kNaN});  // NaN: tracked at node 1
  t.AddTo(test);
  test.Output<float>("Y", {5, 1}, {1, 2, 1, 3, 2});
  test.Run();
}

TEST(TreeEnsembleTest, RefusesTooFewMembershipSets) {
  V5Tree t = Stump(6, 0);
  t.members = {};
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  t.AddTo(test);
  test.Output<float>("Y", {1, 1}, {0});
  test.ExpectFailure("one NaN-ended set per BRANCH_MEMBER node");
}

TEST(TreeEnsembleTest, RefusesAFeatureOutsideX) {
  V5Tree t = Stump(0, 0);
  t.features = {3};
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {1, 2}, {1, 2});
  t.AddTo(test);
  test.Output<float>("Y", {1, 1}, {0});
  test.ExpectFailure("the trees read feature 3, but input X [1,2] has 2 features");
}

TEST(TreeEnsembleTest, RefusesAFeatureIdThatIsNotAColumnIndex) {
  for (int64_t feature : {int64_t{-1}, std::numeric_limits<int64_t>::max()}) {
    V5Tree t = Stump(0, 0);
    t.features = {feature};
    OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
    test.Input<float>("X", {1, 2}, {1, 2});
    t.AddTo(test);
    test.Output<float>("Y", {1, 1}, {0});
    test.ExpectFailure("which is not a column index");
  }
}

TEST(TreeEnsembleTest, RefusesACycle) {
  // node 0 -> node 1 -> node 0.
  V5Tree t = Stump(0, 0);
  t.features = {0, 0};
  t.splits = {0, 0};
  t.modes = {0, 0};
  t.true_ids = {1, 0};
  t.false_ids = {1, 0};
  t.true_leafs = {0, 0};
  t.false_leafs = {0, 0};
  t.missing = {};
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  t.AddTo(test);
  test.Output<float>("Y", {1, 1}, {0});
  test.ExpectFailure("form a cycle");
}

TEST(TreeEnsembleTest, RefusesAnUnknownMode) {
  OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  Stump(7, 0).AddTo(test);
  test.Output<float>("Y", {1, 1}, {0});
  test.ExpectFailure("nodes_modes[0] must be 0 (BRANCH_LEQ) to 6 (BRANCH_MEMBER), got 7");
}

// ---- TreeEnsembleRegressor / TreeEnsembleClassifier (opsets 1 and 3) --------------------------

// Tree 0: x0 <= 0 ? node 1 (leaf: target 0 += 1) : node 2 (leaf: target 0 += 5, target 1 += 2);
// tree 1: one leaf (target 0 += 3). Missing values of node 0 go to the true branch.
void AddTwoTrees(OpTester& test, const std::vector<int64_t>& target_nodes = {1, 2, 2, 0}) {
  test.Attr("nodes_treeids", std::vector<int64_t>{0, 0, 0, 1});
  test.Attr("nodes_nodeids", std::vector<int64_t>{0, 1, 2, 0});
  test.Attr("nodes_featureids", std::vector<int64_t>{0, 0, 0, 0});
  test.Attr("nodes_modes", std::vector<std::string>{"BRANCH_LEQ", "LEAF", "LEAF", "LEAF"});
  test.Attr("nodes_values", std::vector<float>{0, 0, 0, 0});
  test.Attr("nodes_truenodeids", std::vector<int64_t>{1, 0, 0, 0});
  test.Attr("nodes_falsenodeids", std::vector<int64_t>{2, 0, 0, 0});
  test.Attr("nodes_missing_value_tracks_true", std::vector<int64_t>{1, 0, 0, 0});
  test.Attr("target_treeids", std::vector<int64_t>{0, 0, 0, 1});
  test.Attr("target_nodeids", target_nodes);
  test.Attr("target_ids", std::vector<int64_t>{0, 0, 1, 0});
  test.Attr("target_weights", std::vector<float>{1, 5, 2, 3});
  test.Attr("n_targets", int64_t{2});
}

TEST(TreeEnsembleRegressorTest, AggregatesWithBaseValues) {
  // x = NaN (tracked: true) and x = 1. SUM: [4, 0] and [8, 2]; base values [10, 20] are added to
  // the targets a leaf reached (target 1 of the first row stays 0, as onnxruntime).
  struct Case {
    std::string aggregate;
    std::vector<float> expected;
  };
  for (const Case& c : std::vector<Case>{{"SUM", {14, 0, 18, 22}},
                                         {"AVERAGE", {12, 0, 14, 21}},
                                         {"MIN", {11, 0, 13, 22}},
                                         {"MAX", {13, 0, 15, 22}}}) {
    SCOPED_TRACE(c.aggregate);
    OpTester test("TreeEnsembleRegressor", 3, "ai.onnx.ml");
    test.Input<float>("X", {2, 1}, {kNaN, 1});
    AddTwoTrees(test);
    test.Attr("aggregate_function", c.aggregate);
    test.Attr("base_values", std::vector<float>{10, 20});
    test.Output<float>("Y", {2, 2}, c.expected);
    test.Run();
  }
}

TEST(TreeEnsembleRegressorTest, RefusesATargetOnABranchNode) {
  OpTester test("TreeEnsembleRegressor", 1, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  AddTwoTrees(test, {0, 2, 2, 0});
  test.Output<float>("Y", {1, 2}, {0, 0});
  test.ExpectFailure("target_nodeids entry 0 (tree 0, node 0) is not a LEAF node");
}

TEST(TreeEnsembleRegressorTest, RefusesAnUnknownAggregate) {
  OpTester test("TreeEnsembleRegressor", 1, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  AddTwoTrees(test);
  test.Attr("aggregate_function", std::string("MEDIAN"));
  test.Output<float>("Y", {1, 2}, {0, 0});
  test.ExpectFailure("'aggregate_function' must be AVERAGE, SUM, MIN or MAX, got 'MEDIAN'");
}

TEST(TreeEnsembleRegressorTest, RefusesAsTensorAtOpset1) {
  OpTester test("TreeEnsembleRegressor", 1, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {1});
  AddTwoTrees(test);
  test.AttrTensor("base_values_as_tensor", MakeTensor<double>({2}, {1, 2}));
  test.Output<float>("Y", {1, 2}, {0, 0});
  test.ExpectFailure("'base_values_as_tensor' needs ai.onnx.ml opset 3");
}

// A binary classifier whose weights are probabilities: [1 - s, s]; LOGISTIC maps both.
TEST(TreeEnsembleClassifierTest, BinaryProbabilitiesAndLogistic) {
  for (const std::string transform : {"NONE", "LOGISTIC", "PROBIT"}) {
    SCOPED_TRACE(transform);
    OpTester test("TreeEnsembleClassifier", 3, "ai.onnx.ml");
    test.Input<float>("X", {2, 1}, {0, 1});
    test.Attr("nodes_treeids", std::vector<int64_t>{0, 0, 0});
    test.Attr("nodes_nodeids", std::vector<int64_t>{0, 1, 2});
    test.Attr("nodes_featureids", std::vector<int64_t>{0, 0, 0});
    test.Attr("nodes_modes", std::vector<std::string>{"BRANCH_LEQ", "LEAF", "LEAF"});
    test.Attr("nodes_values", std::vector<float>{0.5f, 0, 0});
    test.Attr("nodes_truenodeids", std::vector<int64_t>{1, 0, 0});
    test.Attr("nodes_falsenodeids", std::vector<int64_t>{2, 0, 0});
    test.Attr("class_treeids", std::vector<int64_t>{0, 0});
    test.Attr("class_nodeids", std::vector<int64_t>{1, 2});
    test.Attr("class_ids", std::vector<int64_t>{0, 0});
    test.Attr("class_weights", std::vector<float>{0.2f, 0.7f});
    test.Attr("base_values", std::vector<float>{0.1f});  // s = 0.3 and 0.8
    test.Attr("classlabels_int64s", std::vector<int64_t>{5, 6});
    test.Attr("post_transform", transform);
    test.Output<int64_t>("Y", {2}, {5, 6});  // s > 0.5 picks the second label
    auto logistic = [](double v) { return float(1 / (1 + std::exp(-v))); };
    if (transform == "NONE")
      test.Output<float>("Z", {2, 2}, {0.7f, 0.3f, 0.2f, 0.8f});
    else if (transform == "LOGISTIC")
      test.Output<float>("Z", {2, 2},
                         {logistic(-0.3), logistic(0.3), logistic(-0.8), logistic(0.8)});
    else  // probit(0.7) = 0.524401, probit(0.3) = -0.524401, probit(0.2) = -0.841621
      test.Output<float>("Z", {2, 2}, {0.524401f, -0.524401f, -0.841621f, 0.841621f});
    test.SetTolerance(2e-3, 1e-6, "probit's erf^-1 approximation (onnxruntime's)");
    test.Run();
  }
}

TEST(TreeEnsembleClassifierTest, RefusesFewerThanTwoLabels) {
  OpTester test("TreeEnsembleClassifier", 3, "ai.onnx.ml");
  test.Input<float>("X", {1, 1}, {0});
  test.Attr("nodes_treeids", std::vector<int64_t>{0});
  test.Attr("nodes_nodeids", std::vector<int64_t>{0});
  test.Attr("nodes_featureids", std::vector<int64_t>{0});
  test.Attr("nodes_modes", std::vector<std::string>{"LEAF"});
  test.Attr("nodes_truenodeids", std::vector<int64_t>{0});
  test.Attr("nodes_falsenodeids", std::vector<int64_t>{0});
  test.Attr("class_treeids", std::vector<int64_t>{0});
  test.Attr("class_nodeids", std::vector<int64_t>{0});
  test.Attr("class_ids", std::vector<int64_t>{0});
  test.Attr("class_weights", std::vector<float>{1});
  test.Attr("classlabels_int64s", std::vector<int64_t>{1});
  test.Output<int64_t>("Y", {1}, {1});
  test.Output<float>("Z", {1, 1}, {1});
  test.ExpectFailure("the class labels must name at least 2 classes, got 1");
}

// ---- Other ai.onnx.ml kernels: refusals --------------------------------------------------------

TEST(MlKernelErrorsTest, LabelEncoderRefusesInputOfAnotherTypeThanTheKeys) {
  OpTester test("LabelEncoder", 2, "ai.onnx.ml");
  test.Input<int64_t>("X", {1}, {1});
  test.Attr("keys_strings", std::vector<std::string>{"a"});
  test.Attr("values_int64s", std::vector<int64_t>{1});
  test.Output<int64_t>("Y", {1}, {0});
  test.ExpectFailure("input X must have the keys' type string, got int64");
}

TEST(MlKernelErrorsTest, LabelEncoderRefusesKeysAndValuesOfDifferentLengths) {
  OpTester test("LabelEncoder", 2, "ai.onnx.ml");
  test.Input<std::string>("X", {1}, {"a"});
  test.Attr("keys_strings", std::vector<std::string>{"a", "b"});
  test.Attr("values_int64s", std::vector<int64_t>{1});
  test.Output<int64_t>("Y", {1}, {0});
  test.ExpectFailure("keys and values must have the same length, got 2 and 1");
}

TEST(MlKernelErrorsTest, ArrayFeatureExtractorRefusesAnIndexOutOfRange) {
  OpTester test("ArrayFeatureExtractor", 1, "ai.onnx.ml");
  test.Input<float>("X", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<int64_t>("Y", {1}, {3});
  test.Output<float>("Z", {2, 1}, {0, 0});
  test.ExpectFailure("index 3 of input Y is outside [0, 3)");
}

TEST(MlKernelErrorsTest, OneHotEncoderRefusesAnUnknownCategoryWithoutZeros) {
  OpTester test("OneHotEncoder", 1, "ai.onnx.ml");
  test.Input<int64_t>("X", {2}, {1, 5});
  test.Attr("cats_int64s", std::vector<int64_t>{1, 2});
  test.Attr("zeros", int64_t{0});
  test.Output<float>("Y", {2, 2}, {1, 0, 0, 0});
  test.ExpectFailure("element 1 of input X has no category, and zeros = 0");
}

TEST(MlKernelErrorsTest, LinearClassifierRefusesLabelsThatDoNotMatchTheRows) {
  OpTester test("LinearClassifier", 1, "ai.onnx.ml");
  test.Input<float>("X", {1, 2}, {1, 2});
  test.Attr("coefficients", std::vector<float>{1, 2, 3, 4, 5, 6});
  test.Attr("intercepts", std::vector<float>{0, 0, 0});
  test.Attr("classlabels_ints", std::vector<int64_t>{1, 2});
  test.Output<int64_t>("Y", {1}, {0});
  test.Output<float>("Z", {1, 2}, {0, 0});
  test.ExpectFailure("3 coefficient rows need as many class labels (or 2 for one row), got 2");
}

}  // namespace
}  // namespace prism::testing

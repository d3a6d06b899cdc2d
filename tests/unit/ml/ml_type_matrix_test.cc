// Type matrix of the ai.onnx.ml kernels: every element type each schema version range allows
// (onnx.defs, ai.onnx.ml opsets 1 to 5), computed on small data whose outputs are worked out by
// hand (the values are small integers or halves, exact in every type). With the node tests this
// is what tests/coverage/check_type_coverage.py --strict counts for the ai.onnx.ml ops.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

// A tensor of `type` (numeric or string) from small numbers (strings: their decimal text).
Tensor Typed(E type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (type) {
      case E::kFloat:
        tensor.MutableData<float>()[i] = static_cast<float>(v);
        break;
      case E::kDouble:
        tensor.MutableData<double>()[i] = v;
        break;
      case E::kFloat16:
        tensor.MutableData<Float16>()[i] = Float16(static_cast<float>(v));
        break;
      case E::kInt64:
        tensor.MutableData<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      case E::kInt32:
        tensor.MutableData<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case E::kInt16:
        tensor.MutableData<int16_t>()[i] = static_cast<int16_t>(v);
        break;
      case E::kString:
        tensor.MutableData<std::string>()[i] = std::to_string(static_cast<int64_t>(v));
        break;
      default:
        ADD_FAILURE() << "no test values for " << ElementTypeName(type);
    }
  }
  return tensor;
}

const std::vector<E> kMlNumeric = {E::kFloat, E::kDouble, E::kInt64, E::kInt32};

std::string Name(E type) {
  return ElementTypeName(type);
}

// ---- LabelEncoder ------------------------------------------------------------------------------

// Keys 1, 2, 3 map to 10, 20, 30; 7 has no key and takes the default 99.
TEST(MlTypeMatrixTest, LabelEncoderOpset4EveryKeyAndValueType) {
  const std::vector<E> types = {E::kString, E::kInt64, E::kFloat, E::kInt32, E::kInt16, E::kDouble};
  for (E key : types) {
    for (E value : types) {
      SCOPED_TRACE(Name(key) + " -> " + Name(value));
      OpTester test("LabelEncoder", 4, "ai.onnx.ml");
      test.InputTensor("X", Typed(key, {2, 2}, {3, 1, 7, 2}));
      test.AttrTensor("keys_tensor", Typed(key, {3}, {1, 2, 3}));
      test.AttrTensor("values_tensor", Typed(value, {3}, {10, 20, 30}));
      test.AttrTensor("default_tensor", Typed(value, {1}, {99}));
      test.OutputTensor("Y", Typed(value, {2, 2}, {30, 10, 99, 20}));
      test.Run();
    }
  }
}

TEST(MlTypeMatrixTest, LabelEncoderOpset2Lists) {
  const std::vector<E> types = {E::kString, E::kInt64, E::kFloat};
  for (E key : types) {
    for (E value : types) {
      SCOPED_TRACE(Name(key) + " -> " + Name(value));
      OpTester test("LabelEncoder", 2, "ai.onnx.ml");
      test.InputTensor("X", Typed(key, {4}, {3, 1, 7, 2}));
      if (key == E::kString) test.Attr("keys_strings", std::vector<std::string>{"1", "2", "3"});
      if (key == E::kInt64) test.Attr("keys_int64s", std::vector<int64_t>{1, 2, 3});
      if (key == E::kFloat) test.Attr("keys_floats", std::vector<float>{1, 2, 3});
      if (value == E::kString) {
        test.Attr("values_strings", std::vector<std::string>{"10", "20", "30"});
        test.Attr("default_string", std::string("99"));
      }
      if (value == E::kInt64) {
        test.Attr("values_int64s", std::vector<int64_t>{10, 20, 30});
        test.Attr("default_int64", int64_t{99});
      }
      if (value == E::kFloat) {
        test.Attr("values_floats", std::vector<float>{10, 20, 30});
        test.Attr("default_float", 99.0f);
      }
      test.OutputTensor("Y", Typed(value, {4}, {30, 10, 99, 20}));
      test.Run();
    }
  }
}

TEST(MlTypeMatrixTest, LabelEncoderOpset1StringsAndIndices) {
  OpTester to_index("LabelEncoder", 1, "ai.onnx.ml");
  to_index.Input<std::string>("X", {3}, {"c", "z", "a"});
  to_index.Attr("classes_strings", std::vector<std::string>{"a", "b", "c"});
  to_index.Output<int64_t>("Y", {3}, {2, -1, 0});  // default_int64: -1
  to_index.Run();
  OpTester to_string("LabelEncoder", 1, "ai.onnx.ml");
  to_string.Input<int64_t>("X", {3}, {1, 5, 0});
  to_string.Attr("classes_strings", std::vector<std::string>{"a", "b", "c"});
  to_string.Output<std::string>("Y", {3}, {"b", "_Unused", "a"});  // default_string
  to_string.Run();
}

// ---- Tree ensembles ----------------------------------------------------------------------------

// One tree: x0 <= 0.5 ? leaf 0 (weight 2) : leaf 1 (weight -3); X = [[0], [1]].
TEST(MlTypeMatrixTest, TreeEnsembleEveryType) {
  for (E type : {E::kFloat, E::kDouble, E::kFloat16}) {
    SCOPED_TRACE(Name(type));
    OpTester test("TreeEnsemble", 5, "ai.onnx.ml");
    test.InputTensor("X", Typed(type, {2, 1}, {0, 1}));
    test.Attr("nodes_featureids", std::vector<int64_t>{0});
    test.AttrTensor("nodes_splits", Typed(type, {1}, {0.5}));
    test.AttrTensor("nodes_modes", MakeTensor<uint8_t>({1}, {0}));
    test.Attr("nodes_truenodeids", std::vector<int64_t>{0});
    test.Attr("nodes_falsenodeids", std::vector<int64_t>{1});
    test.Attr("nodes_trueleafs", std::vector<int64_t>{1});
    test.Attr("nodes_falseleafs", std::vector<int64_t>{1});
    test.Attr("leaf_targetids", std::vector<int64_t>{0, 0});
    test.AttrTensor("leaf_weights", Typed(type, {2}, {2, -3}));
    test.Attr("tree_roots", std::vector<int64_t>{0});
    test.Attr("n_targets", int64_t{1});
    test.OutputTensor("Y", Typed(type, {2, 1}, {2, -3}));
    test.Run();
  }
}

// The same tree in the opset 1/3 layout.
void AddLegacyTree(OpTester& test, const std::string& prefix, bool as_tensor) {
  test.Attr("nodes_treeids", std::vector<int64_t>{0, 0, 0});
  test.Attr("nodes_nodeids", std::vector<int64_t>{0, 1, 2});
  test.Attr("nodes_featureids", std::vector<int64_t>{0, 0, 0});
  test.Attr("nodes_modes", std::vector<std::string>{"BRANCH_LEQ", "LEAF", "LEAF"});
  test.Attr("nodes_truenodeids", std::vector<int64_t>{1, 0, 0});
  test.Attr("nodes_falsenodeids", std::vector<int64_t>{2, 0, 0});
  test.Attr(prefix + "treeids", std::vector<int64_t>{0, 0});
  test.Attr(prefix + "nodeids", std::vector<int64_t>{1, 2});
  test.Attr(prefix + "ids", std::vector<int64_t>{0, 0});
  if (as_tensor) {
    test.AttrTensor("nodes_values_as_tensor", MakeTensor<double>({3}, {0.5, 0, 0}));
    test.AttrTensor(prefix + "weights_as_tensor", MakeTensor<double>({2}, {2, -3}));
  } else {
    test.Attr("nodes_values", std::vector<float>{0.5f, 0, 0});
    test.Attr(prefix + "weights", std::vector<float>{2, -3});
  }
}

TEST(MlTypeMatrixTest, TreeEnsembleRegressorEveryTypeAndOpset) {
  for (int opset : {1, 3}) {
    for (E type : kMlNumeric) {
      SCOPED_TRACE(Name(type) + " opset " + std::to_string(opset));
      OpTester test("TreeEnsembleRegressor", opset, "ai.onnx.ml");
      test.InputTensor("X", Typed(type, {2, 1}, {0, 1}));
      AddLegacyTree(test, "target_", opset == 3);
      test.Attr("n_targets", int64_t{1});
      test.Output<float>("Y", {2, 1}, {2, -3});
      test.Run();
    }
  }
}

// Two labels with the weights on class id 0 and a negative weight: margins [-s, s], the second
// label where s > 0.
TEST(MlTypeMatrixTest, TreeEnsembleClassifierEveryTypeAndOpset) {
  for (int opset : {1, 3}) {
    for (E type : kMlNumeric) {
      for (bool strings : {false, true}) {
        SCOPED_TRACE(Name(type) + " opset " + std::to_string(opset) +
                     (strings ? " string labels" : " int64 labels"));
        OpTester test("TreeEnsembleClassifier", opset, "ai.onnx.ml");
        test.InputTensor("X", Typed(type, {2, 1}, {0, 1}));
        AddLegacyTree(test, "class_", opset == 3);
        if (strings) {
          test.Attr("classlabels_strings", std::vector<std::string>{"no", "yes"});
          test.Output<std::string>("Y", {2}, {"yes", "no"});
        } else {
          test.Attr("classlabels_int64s", std::vector<int64_t>{4, 9});
          test.Output<int64_t>("Y", {2}, {9, 4});
        }
        test.Output<float>("Z", {2, 2}, {-2, 2, 3, -3});
        test.Run();
      }
    }
  }
}

// ---- Feature ops -------------------------------------------------------------------------------

TEST(MlTypeMatrixTest, BinarizerEveryType) {
  for (E type : kMlNumeric) {
    SCOPED_TRACE(Name(type));
    OpTester test("Binarizer", 1, "ai.onnx.ml");
    test.InputTensor("X", Typed(type, {4}, {-1, 1, 2, 3}));
    test.Attr("threshold", 1.0f);
    test.OutputTensor("Y", Typed(type, {4}, {0, 0, 1, 1}));
    test.Run();
  }
}

TEST(MlTypeMatrixTest, ArrayFeatureExtractorEveryType) {
  for (E type : {E::kFloat, E::kDouble, E::kInt64, E::kInt32, E::kString}) {
    SCOPED_TRACE(Name(type));
    OpTester test("ArrayFeatureExtractor", 1, "ai.onnx.ml");
    test.InputTensor("X", Typed(type, {2, 3}, {1, 2, 3, 4, 5, 6}));
    test.Input<int64_t>("Y", {2}, {2, 0});
    test.OutputTensor("Z", Typed(type, {2, 2}, {3, 1, 6, 4}));
    test.Run();
  }
}

TEST(MlTypeMatrixTest, ScalerNormalizerImputerEveryType) {
  for (E type : kMlNumeric) {
    SCOPED_TRACE(Name(type));
    OpTester scaler("Scaler", 1, "ai.onnx.ml");
    scaler.InputTensor("X", Typed(type, {2, 2}, {1, 2, 3, 4}));
    scaler.Attr("offset", std::vector<float>{1, 2});
    scaler.Attr("scale", std::vector<float>{2, 0.5f});
    scaler.Output<float>("Y", {2, 2}, {0, 0, 4, 1});
    scaler.Run();

    OpTester normalizer("Normalizer", 1, "ai.onnx.ml");
    normalizer.InputTensor("X", Typed(type, {2, 2}, {1, 3, -4, 0}));
    normalizer.Attr("norm", std::string("L1"));
    normalizer.Output<float>("Y", {2, 2}, {0.25f, 0.75f, -1, 0});
    normalizer.Run();

    const bool floating = type == E::kFloat || type == E::kDouble;
    OpTester imputer("Imputer", 1, "ai.onnx.ml");
    imputer.InputTensor("X", Typed(type, {2, 2}, {1, 5, 5, 2}));
    if (floating) {
      imputer.Attr("imputed_value_floats", std::vector<float>{7, 8});
      imputer.Attr("replaced_value_float", 5.0f);
    } else {
      imputer.Attr("imputed_value_int64s", std::vector<int64_t>{7, 8});
      imputer.Attr("replaced_value_int64", int64_t{5});
    }
    imputer.OutputTensor("Y", Typed(type, {2, 2}, {1, 8, 7, 2}));
    imputer.Run();
  }
}

TEST(MlTypeMatrixTest, FeatureVectorizerEveryType) {
  for (E type : kMlNumeric) {
    SCOPED_TRACE(Name(type));
    OpTester test("FeatureVectorizer", 1, "ai.onnx.ml");
    test.InputTensor("A", Typed(type, {2, 2}, {1, 2, 3, 4}));
    test.InputTensor("B", Typed(type, {2, 1}, {5, 6}));
    test.Attr("inputdimensions", std::vector<int64_t>{1, 2});  // A cut to 1, B padded to 2
    test.Output<float>("Y", {2, 3}, {1, 5, 0, 3, 6, 0});
    test.Run();
  }
}

TEST(MlTypeMatrixTest, FeatureVectorizerRefusesNegativeAndOverflowingDimensions) {
  for (const auto& [dimensions, why] :
       {std::pair<std::vector<int64_t>, const char*>{{-1}, "must be >= 0"},
        {{std::numeric_limits<int64_t>::max(), 1}, "their sum must be an int64"},
        {{std::numeric_limits<int64_t>::max()}, "more elements than fit in int64"}}) {
    OpTester test("FeatureVectorizer", 1, "ai.onnx.ml");
    for (size_t i = 0; i < dimensions.size(); ++i)
      test.Input<float>(i == 0 ? "A" : "B", {2, 1}, {1, 2});
    test.Attr("inputdimensions", dimensions);
    test.Output<float>("Y", {2, 1}, {1, 2});
    test.ExpectFailure(why);
  }
}

TEST(MlTypeMatrixTest, OneHotEncoderEveryType) {
  for (E type : {E::kString, E::kInt64, E::kInt32, E::kFloat, E::kDouble}) {
    SCOPED_TRACE(Name(type));
    OpTester test("OneHotEncoder", 1, "ai.onnx.ml");
    test.InputTensor("X", Typed(type, {3}, {2, 9, 1}));
    if (type == E::kString)
      test.Attr("cats_strings", std::vector<std::string>{"1", "2"});
    else
      test.Attr("cats_int64s", std::vector<int64_t>{1, 2});
    test.Output<float>("Y", {3, 2}, {0, 1, 0, 0, 1, 0});
    test.Run();
  }
}

TEST(MlTypeMatrixTest, CategoryMapperBothDirections) {
  OpTester to_int("CategoryMapper", 1, "ai.onnx.ml");
  to_int.Input<std::string>("X", {3}, {"b", "q", "a"});
  to_int.Attr("cats_strings", std::vector<std::string>{"a", "b"});
  to_int.Attr("cats_int64s", std::vector<int64_t>{10, 20});
  to_int.Output<int64_t>("Y", {3}, {20, -1, 10});
  to_int.Run();
  OpTester to_string("CategoryMapper", 1, "ai.onnx.ml");
  to_string.Input<int64_t>("X", {3}, {20, 5, 10});
  to_string.Attr("cats_strings", std::vector<std::string>{"a", "b"});
  to_string.Attr("cats_int64s", std::vector<int64_t>{10, 20});
  to_string.Attr("default_string", std::string("?"));
  to_string.Output<std::string>("Y", {3}, {"b", "?", "a"});
  to_string.Run();
}

// ---- Linear models and SVMs --------------------------------------------------------------------

TEST(MlTypeMatrixTest, LinearModelsAndSvmRegressorEveryType) {
  for (E type : kMlNumeric) {
    SCOPED_TRACE(Name(type));
    OpTester regressor("LinearRegressor", 1, "ai.onnx.ml");
    regressor.InputTensor("X", Typed(type, {2, 2}, {1, 2, 3, -1}));
    regressor.Attr("coefficients", std::vector<float>{2, 1, -1, 0.5f});
    regressor.Attr("intercepts", std::vector<float>{1, 0});
    regressor.Attr("targets", int64_t{2});
    regressor.Output<float>("Y", {2, 2}, {5, 0, 6, -3.5f});
    regressor.Run();

    for (bool strings : {false, true}) {
      OpTester classifier("LinearClassifier", 1, "ai.onnx.ml");
      classifier.InputTensor("X", Typed(type, {2, 2}, {1, 2, 3, -1}));
      classifier.Attr("coefficients", std::vector<float>{2, 1, -1, 0.5f});
      classifier.Attr("intercepts", std::vector<float>{1, 0});
      if (strings) {
        classifier.Attr("classlabels_strings", std::vector<std::string>{"a", "b"});
        classifier.Output<std::string>("Y", {2}, {"a", "a"});
      } else {
        classifier.Attr("classlabels_ints", std::vector<int64_t>{3, 4});
        classifier.Output<int64_t>("Y", {2}, {3, 3});
      }
      classifier.Output<float>("Z", {2, 2}, {5, 0, 6, -3.5f});
      classifier.Run();
    }

    // Support vectors [1, 0] and [0, 1], coefficients 2 and -1, rho 0.5, linear kernel.
    OpTester svm("SVMRegressor", 1, "ai.onnx.ml");
    svm.InputTensor("X", Typed(type, {2, 2}, {1, 2, 3, -1}));
    svm.Attr("n_supports", int64_t{2});
    svm.Attr("support_vectors", std::vector<float>{1, 0, 0, 1});
    svm.Attr("coefficients", std::vector<float>{2, -1});
    svm.Attr("rho", std::vector<float>{0.5f});
    svm.Output<float>("Y", {2, 1}, {0.5f, 7.5f});
    svm.Run();
  }
}

// A linear SVM of 3 classes (no support vectors): scores rho + x . coefficients[c], the label of
// the highest.
TEST(MlTypeMatrixTest, SvmClassifierEveryType) {
  for (E type : kMlNumeric) {
    for (bool strings : {false, true}) {
      SCOPED_TRACE(Name(type) + (strings ? " string labels" : " int64 labels"));
      OpTester test("SVMClassifier", 1, "ai.onnx.ml");
      test.InputTensor("X", Typed(type, {2, 2}, {2, 1, 0, 3}));
      test.Attr("coefficients", std::vector<float>{1, 0, 0, 1, -1, -1});
      test.Attr("rho", std::vector<float>{0.5f});
      if (strings) {
        test.Attr("classlabels_strings", std::vector<std::string>{"a", "b", "c"});
        test.Output<std::string>("Y", {2}, {"a", "b"});
      } else {
        test.Attr("classlabels_ints", std::vector<int64_t>{7, 8, 9});
        test.Output<int64_t>("Y", {2}, {7, 8});
      }
      test.Output<float>("Z", {2, 3}, {2.5f, 1.5f, -2.5f, 0.5f, 3.5f, -2.5f});
      test.Run();
    }
  }
}

}  // namespace
}  // namespace prism::testing

// Shape and type inference of the ai.onnx.ml ops on hand-made graphs (their output types come
// from attributes or the input's type, which the generic type rule does not know): LabelEncoder
// and CategoryMapper map types, ArrayFeatureExtractor replaces the last axis ([C] becomes
// [1, k]), OneHotEncoder appends the category count, the models give [N, targets] or [N] labels
// and [N, score columns].
#include <gtest/gtest.h>

#include "../graph/strict_inference_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

using Inferred = InferredGraph;

onnx::ModelProto MlModel() {
  onnx::ModelProto proto = MakeModel(17);
  auto* ml = proto.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  return proto;
}

Inferred Infer(const onnx::ModelProto& proto) {
  return InferStrictly(proto);
}

onnx::NodeProto* AddMlNode(onnx::GraphProto* graph, const std::string& op,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs) {
  return AddNode(graph, op, inputs, outputs, "", "ai.onnx.ml");
}

void AddStrings(onnx::NodeProto* node, const std::string& name,
                const std::vector<std::string>& values) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) a->add_strings(v);
}

void AddFloats(onnx::NodeProto* node, const std::string& name, const std::vector<float>& values) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float v : values) a->add_floats(v);
}

void AddInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

TEST(MlShapes, ElementwiseMapsKeepTheShapeAndMapTheType) {
  onnx::ModelProto proto = MlModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "S", TensorProto::STRING, {"batch", 3});
  AddInput(graph, "F", TensorProto::FLOAT, {"batch", 3});
  auto* encoder = AddMlNode(graph, "LabelEncoder", {"S"}, {"Codes"});
  AddStrings(encoder, "keys_strings", {"a"});
  AddIntsAttr(encoder, "values_int64s", {1});
  auto* mapper = AddMlNode(graph, "CategoryMapper", {"Codes"}, {"Names"});
  AddStrings(mapper, "cats_strings", {"a"});
  AddIntsAttr(mapper, "cats_int64s", {1});
  AddMlNode(graph, "Scaler", {"F"}, {"Scaled"});
  AddMlNode(graph, "Binarizer", {"F"}, {"Bits"});
  for (const char* out : {"Codes", "Names", "Scaled", "Bits"})
    AddOutput(graph, out, TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Type("Codes"), ElementType::kInt64);
  EXPECT_EQ(inferred.Shape("Codes"), "[batch,3]");
  EXPECT_EQ(inferred.Type("Names"), ElementType::kString);
  EXPECT_EQ(inferred.Type("Scaled"), ElementType::kFloat);
  EXPECT_EQ(inferred.Shape("Bits"), "[batch,3]");
}

TEST(MlShapes, ArrayFeatureExtractorAndOneHotEncoder) {
  onnx::ModelProto proto = MlModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 5});
  AddInput(graph, "V", TensorProto::INT32, {5});
  AddInput(graph, "I", TensorProto::INT64, {2});
  AddMlNode(graph, "ArrayFeatureExtractor", {"X", "I"}, {"Picked"});
  AddMlNode(graph, "ArrayFeatureExtractor", {"V", "I"}, {"PickedRow"});
  AddIntsAttr(AddMlNode(graph, "OneHotEncoder", {"V"}, {"Hot"}), "cats_int64s", {1, 2, 3});
  for (const char* out : {"Picked", "PickedRow", "Hot"})
    AddOutput(graph, out, TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Picked"), "[n,2]");
  EXPECT_EQ(inferred.Shape("PickedRow"), "[1,2]");
  EXPECT_EQ(inferred.Type("PickedRow"), ElementType::kInt32);
  EXPECT_EQ(inferred.Shape("Hot"), "[5,3]");
  EXPECT_EQ(inferred.Type("Hot"), ElementType::kFloat);
}

TEST(MlShapes, ModelsGiveRowsOfScoresAndLabels) {
  onnx::ModelProto proto = MlModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::DOUBLE, {"n", 4});
  auto* regressor = AddMlNode(graph, "TreeEnsembleRegressor", {"X"}, {"Y"});
  AddInt(regressor, "n_targets", 2);
  auto* classifier = AddMlNode(graph, "TreeEnsembleClassifier", {"X"}, {"Label", "Scores"});
  AddStrings(classifier, "classlabels_strings", {"a", "b", "c"});
  auto* svm = AddMlNode(graph, "SVMClassifier", {"X"}, {"SvmLabel", "SvmScores"});
  AddIntsAttr(svm, "classlabels_ints", {1, 2, 3, 4});
  AddIntsAttr(svm, "vectors_per_class", {1, 1, 1, 1});
  auto* linear = AddMlNode(graph, "LinearClassifier", {"X"}, {"LinLabel", "LinScores"});
  AddIntsAttr(linear, "classlabels_ints", {0, 1});
  AddFloats(linear, "coefficients", {1, 2, 3, 4});
  for (const char* out : {"Y", "Label", "Scores", "SvmLabel", "SvmScores", "LinLabel", "LinScores"})
    AddOutput(graph, out, TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Y"), "[n,2]");
  EXPECT_EQ(inferred.Type("Y"), ElementType::kFloat);
  EXPECT_EQ(inferred.Shape("Label"), "[n]");
  EXPECT_EQ(inferred.Type("Label"), ElementType::kString);
  EXPECT_EQ(inferred.Shape("Scores"), "[n,3]");
  EXPECT_EQ(inferred.Shape("SvmScores"), "[n,6]") << "one score per class pair";
  EXPECT_EQ(inferred.Type("SvmLabel"), ElementType::kInt64);
  EXPECT_EQ(inferred.Shape("LinScores"), "[n,2]") << "one row, two labels: both scores";
}

TEST(MlShapes, TreeEnsembleOfARank3InputFails) {
  onnx::ModelProto proto = MlModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 4});
  AddInt(AddMlNode(graph, "TreeEnsembleRegressor", {"X"}, {"Y"}), "n_targets", 1);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  EXPECT_THROW(Infer(proto), Exception);
}

}  // namespace
}  // namespace prism::testing

// Shape and type inference of the string ops on hand-made graphs, each expected shape worked out
// by hand from the spec: broadcasting (StringConcat), same shape (RegexFullMatch), one more axis
// of unknown length (StringSplit, 0 when X has no element), the kept count (StringNormalizer:
// known without stopwords) and max(ngram_indexes) + 1 columns of float (TfIdfVectorizer, whose
// output type the generic type rule gets wrong).
#include <gtest/gtest.h>

#include "../graph/strict_inference_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

using Inferred = InferredGraph;

Inferred Infer(const onnx::ModelProto& proto) {
  return InferStrictly(proto);
}

void AddStrings(onnx::NodeProto* node, const std::string& name,
                const std::vector<std::string>& values) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) a->add_strings(v);
}

void AddInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void AddString(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

TEST(StringShapes, ConcatRegexAndSplit) {
  onnx::ModelProto proto = MakeModel(20);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "A", TensorProto::STRING, {"batch", 1});
  AddInput(graph, "B", TensorProto::STRING, {4});
  AddInput(graph, "E", TensorProto::STRING, {0, 2});
  AddNode(graph, "StringConcat", {"A", "B"}, {"AB"});
  AddString(AddNode(graph, "RegexFullMatch", {"AB"}, {"M"}), "pattern", "a.*");
  AddNode(graph, "StringSplit", {"AB"}, {"Parts", "Counts"});
  AddNode(graph, "StringSplit", {"E"}, {"NoParts", "NoCounts"});
  for (const char* out : {"M", "Parts", "Counts", "NoParts", "NoCounts"})
    AddOutput(graph, out, TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("AB"), "[batch,4]");
  EXPECT_EQ(inferred.Type("AB"), ElementType::kString);
  EXPECT_EQ(inferred.Shape("M"), "[batch,4]");
  EXPECT_EQ(inferred.Type("M"), ElementType::kBool);
  EXPECT_EQ(inferred.Shape("Parts"), "[batch,4,?]");
  EXPECT_EQ(inferred.Type("Parts"), ElementType::kString);
  EXPECT_EQ(inferred.Shape("Counts"), "[batch,4]");
  EXPECT_EQ(inferred.Type("Counts"), ElementType::kInt64);
  EXPECT_EQ(inferred.Shape("NoParts"), "[0,2,0]");
  EXPECT_EQ(inferred.Shape("NoCounts"), "[0,2]");
}

TEST(StringShapes, ConcatOfShapesThatDoNotBroadcastFails) {
  onnx::ModelProto proto = MakeModel(20);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "A", TensorProto::STRING, {3});
  AddInput(graph, "B", TensorProto::STRING, {4});
  AddNode(graph, "StringConcat", {"A", "B"}, {"AB"});
  AddOutput(graph, "AB", TensorProto::STRING);
  EXPECT_THROW(Infer(proto), Exception);
}

TEST(StringShapes, NormalizerKeepsTheCountOnlyWithoutStopwords) {
  onnx::ModelProto proto = MakeModel(20);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "Row", TensorProto::STRING, {1, 5});
  AddInput(graph, "Vector", TensorProto::STRING, {5});
  AddInput(graph, "Empty", TensorProto::STRING, {0});
  AddString(AddNode(graph, "StringNormalizer", {"Row"}, {"R"}), "case_change_action", "UPPER");
  AddStrings(AddNode(graph, "StringNormalizer", {"Vector"}, {"V"}), "stopwords", {"a"});
  AddNode(graph, "StringNormalizer", {"Empty"}, {"E"});
  for (const char* out : {"R", "V", "E"}) AddOutput(graph, out, TensorProto::STRING);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("R"), "[1,5]");
  EXPECT_EQ(inferred.Shape("V"), "[?]");
  EXPECT_EQ(inferred.Shape("E"), "[1]") << "everything dropped gives [\"\"]";
}

TEST(StringShapes, NormalizerOfAMatrixFails) {
  onnx::ModelProto proto = MakeModel(20);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::STRING, {2, 5});
  AddNode(graph, "StringNormalizer", {"X"}, {"Y"});
  AddOutput(graph, "Y", TensorProto::STRING);
  EXPECT_THROW(Infer(proto), Exception);
}

TEST(StringShapes, TfIdfVectorizerGivesFloatColumnsPerNgramIndex) {
  onnx::ModelProto proto = MakeModel(20);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "Rows", TensorProto::INT64, {"n", 7});
  AddInput(graph, "Row", TensorProto::INT32, {7});
  for (const auto& [in, out] : {std::pair{"Rows", "Y2"}, std::pair{"Row", "Y1"}}) {
    auto* node = AddNode(graph, "TfIdfVectorizer", {in}, {out});
    AddString(node, "mode", "TF");
    AddInt(node, "min_gram_length", 1);
    AddInt(node, "max_gram_length", 1);
    AddInt(node, "max_skip_count", 0);
    AddIntsAttr(node, "ngram_counts", {0});
    AddIntsAttr(node, "ngram_indexes", {0, 5, 2});
    AddIntsAttr(node, "pool_int64s", {1, 2, 3});
    AddOutput(graph, out, TensorProto::UNDEFINED);
  }
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Y2"), "[n,6]");
  EXPECT_EQ(inferred.Shape("Y1"), "[6]");
  EXPECT_EQ(inferred.Type("Y2"), ElementType::kFloat);
  EXPECT_EQ(inferred.Type("Y1"), ElementType::kFloat);
}

}  // namespace
}  // namespace prism::testing

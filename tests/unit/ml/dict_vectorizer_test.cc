// DictVectorizer (ai.onnx.ml 1): a map to a [1, vocabulary] row in vocabulary order, for every
// (key, value) type pair of the spec, with expected rows worked out by hand, and its errors by
// name. onnxruntime agrees on the same cases (tests/python/test_ml_map_ops_oracle.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using Strings = std::vector<std::string>;
using Ints = std::vector<int64_t>;

// Vocabulary "c", "a", "b": the row follows the vocabulary's order, not the keys'; "z" is not in
// the vocabulary and is ignored; "c" is missing and gets 0.
template <typename V>
void StringKeys(const std::vector<V>& values, const std::vector<V>& expected) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("string_vocabulary", Strings{"c", "a", "b"});
  test.InputValue("X", MakeMap<std::string, V>({"b", "z", "a"}, values));
  test.Output<V>("Y", {1, 3}, expected);
  test.Run();
}

TEST(DictVectorizerTest, StringKeysToFloat) {
  StringKeys<float>({2.5f, 9.0f, 1.5f}, {0.0f, 1.5f, 2.5f});
}

TEST(DictVectorizerTest, StringKeysToDouble) {
  StringKeys<double>({2.5, 9.0, 1.5}, {0.0, 1.5, 2.5});
}

TEST(DictVectorizerTest, StringKeysToInt64) {
  StringKeys<int64_t>({2, 9, 1}, {0, 1, 2});
}

// Vocabulary 30, 10, 20 with keys 20, 99, 10.
template <typename V>
void Int64Keys(const std::vector<V>& values, const std::vector<V>& expected) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("int64_vocabulary", Ints{30, 10, 20});
  test.InputValue("X", MakeMap<int64_t, V>({20, 99, 10}, values));
  test.Output<V>("Y", {1, 3}, expected);
  test.Run();
}

TEST(DictVectorizerTest, Int64KeysToFloat) {
  Int64Keys<float>({2.5f, 9.0f, -1.5f}, {0.0f, -1.5f, 2.5f});
}

TEST(DictVectorizerTest, Int64KeysToDouble) {
  Int64Keys<double>({2.5, 9.0, -1.5}, {0.0, -1.5, 2.5});
}

TEST(DictVectorizerTest, Int64KeysToStringMissingIsEmpty) {
  Int64Keys<std::string>({"twenty", "x", "ten"}, {"", "ten", "twenty"});
}

TEST(DictVectorizerTest, RepeatedVocabularyEntryGetsTheValueTwice) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("string_vocabulary", Strings{"a", "b", "a"});
  test.InputValue("X", MakeMap<std::string, float>({"a", "b"}, {1.0f, 2.0f}));
  test.Output<float>("Y", {1, 3}, {1.0f, 2.0f, 1.0f});
  test.Run();
}

TEST(DictVectorizerTest, EmptyMapGivesZeros) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("int64_vocabulary", Ints{1, 2});
  test.InputValue("X", MakeMap<int64_t, double>({}, {}));
  test.Output<double>("Y", {1, 2}, {0.0, 0.0});
  test.Run();
}

TEST(DictVectorizerTest, BothVocabulariesTheKeyTypeChooses) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("string_vocabulary", Strings{"x"});
  test.Attr("int64_vocabulary", Ints{5, 6});
  test.InputValue("X", MakeMap<int64_t, float>({6}, {4.0f}));
  test.Output<float>("Y", {1, 2}, {0.0f, 4.0f});
  test.Run();
}

TEST(DictVectorizerTest, VocabularyOfTheOtherKeyTypeIsRefused) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("int64_vocabulary", Ints{1});
  test.InputValue("X", MakeMap<std::string, float>({"a"}, {1.0f}));
  test.Output<float>("Y", {1, 1}, {0.0f});
  test.ExpectFailure("input X has string keys, so the attribute 'string_vocabulary' is required");
}

TEST(DictVectorizerTest, MapTypeOutsideTheSpecIsRefusedAtLoad) {
  // map(string, string) is not one of DictVectorizer's T1 types.
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("string_vocabulary", Strings{"a"});
  test.InputValue("X", MakeMap<std::string, std::string>({"a"}, {"x"}));
  test.Output<std::string>("Y", {1, 1}, {"x"});
  test.ExpectFailure("input 0 'X' has type map(string,tensor(string)), not in constraint T1");
}

TEST(DictVectorizerTest, TensorInputIsRefused) {
  OpTester test("DictVectorizer", 1, "ai.onnx.ml");
  test.Attr("string_vocabulary", Strings{"a"});
  test.Input<float>("X", {1}, {1.0f});
  test.Output<float>("Y", {1, 1}, {1.0f});
  test.ExpectFailure("input 0 'X' has type tensor(float), which constraint T1 does not accept");
}

}  // namespace
}  // namespace prism::testing

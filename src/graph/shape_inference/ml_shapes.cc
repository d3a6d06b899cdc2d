// ai.onnx.ml ops. Element-wise maps keep X's shape (LabelEncoder, CategoryMapper: the values'
// type; Binarizer, Imputer: X's type; Scaler, Normalizer: float); ArrayFeatureExtractor replaces
// X's last axis by the index count ([C] becomes [1, k]); OneHotEncoder appends the category
// count; the models give [N, targets] or [N, classes] scores from X [N, F] (or [F], one row)
// and classifiers [N] labels. The map ops: ZipMap gives seq(map(label type, float)),
// DictVectorizer [1, vocabulary size] of the map's value type, CastMap [1, n] of cast_to's type.
#include <algorithm>
#include <optional>
#include <string>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

using E = ElementType;

std::optional<SymbolicShape> ShapeOf(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.InputShape(i);
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

// The row count of a model's input X: [N, F] -> N, [F] -> 1.
Dim Rows(const InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return Dim{};
  if (x->dims.size() == 1) return KnownDim(1);
  if (x->dims.size() != 2)
    context.Fail(MakeString("input X ", x->ToString(), " must be [N, F] or [F]"));
  return x->dims[0];
}

size_t ListSize(const Attribute* attribute) {
  if (!attribute) return 0;
  if (attribute->tensor) return static_cast<size_t>(attribute->tensor->NumElements());
  return std::max({attribute->ints.size(), attribute->floats.size(), attribute->strings.size()});
}

bool IsSet(const InferenceContext& context, const std::string& name) {
  return context.Attr(name) != nullptr;
}

// LabelEncoder: the values' type (opset 1: string <-> int64), X's shape.
void LabelEncoder(InferenceContext& context) {
  E type = E::kUndefined;
  if (context.Opset() < 2) {
    const E x = context.InputElem(0);
    if (x == E::kString)
      type = E::kInt64;
    else if (x == E::kInt64)
      type = E::kString;
  } else if (IsSet(context, "values_strings")) {
    type = E::kString;
  } else if (IsSet(context, "values_int64s")) {
    type = E::kInt64;
  } else if (IsSet(context, "values_floats")) {
    type = E::kFloat;
  } else if (const Attribute* tensor = context.Attr("values_tensor"); tensor && tensor->tensor) {
    type = tensor->tensor->Type();
  }
  context.SetOutput(0, type, ShapeOf(context, 0));
}

void CategoryMapper(InferenceContext& context) {
  const E x = context.InputElem(0);
  const E type = x == E::kString ? E::kInt64 : x == E::kInt64 ? E::kString : E::kUndefined;
  context.SetOutput(0, type, ShapeOf(context, 0));
}

void SameTypeAndShape(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(0), ShapeOf(context, 0));
}

void FloatOfSameShape(InferenceContext& context) {
  context.SetOutput(0, E::kFloat, ShapeOf(context, 0));
}

void ArrayFeatureExtractor(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* indices = context.InputShape(1);
  std::optional<SymbolicShape> out;
  if (x) {
    if (x->dims.empty()) context.Fail("input X must have rank >= 1, got a scalar");
    out = *x;
    if (out->dims.size() == 1) out->dims.insert(out->dims.begin(), KnownDim(1));
    Dim count = KnownDim(1);
    if (indices) {
      for (const Dim& d : indices->dims)
        count = count.IsKnown() && d.IsKnown() ? KnownDim(count.value * d.value) : Dim{};
      if (indices->dims.size() == 1) count = indices->dims[0];
    } else {
      count = Dim{};
    }
    out->dims.back() = count;
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void OneHotEncoder(InferenceContext& context) {
  std::optional<SymbolicShape> out = ShapeOf(context, 0);
  const size_t categories =
      std::max(ListSize(context.Attr("cats_int64s")), ListSize(context.Attr("cats_strings")));
  if (out) out->dims.push_back(KnownDim(static_cast<int64_t>(categories)));
  context.SetOutput(0, E::kFloat, out);
}

void FeatureVectorizer(InferenceContext& context) {
  const std::optional<std::vector<int64_t>> dims = context.IntsAttr("inputdimensions");
  int64_t width = 0;
  if (dims)
    for (int64_t d : *dims) width += d;
  const SymbolicShape* x = context.InputShape(0);
  SymbolicShape out{{x && !x->dims.empty() ? x->dims[0] : Dim{}, KnownDim(width)}};
  context.SetOutput(0, E::kFloat, out);
}

void TreeEnsemble(InferenceContext& context) {
  const int64_t targets = context.IntAttr("n_targets", 1);
  context.SetOutput(0, context.InputElem(0), SymbolicShape{{Rows(context), KnownDim(targets)}});
}

void Regressor(InferenceContext& context) {
  const int64_t targets = context.IntAttr("n_targets", context.IntAttr("targets", 1));
  context.SetOutput(0, E::kFloat, SymbolicShape{{Rows(context), KnownDim(targets)}});
}

// Classifiers: labels [N] (int64 or string, from the labels attribute) and scores [N, columns].
void SetClassifierOutputs(InferenceContext& context, const std::string& ints_name,
                          const std::string& strings_name, int64_t columns) {
  const Dim rows = Rows(context);
  const E label = IsSet(context, strings_name) ? E::kString
                  : IsSet(context, ints_name)  ? E::kInt64
                                               : E::kUndefined;
  context.SetOutput(0, label, SymbolicShape{{rows}});
  context.SetOutput(1, E::kFloat, SymbolicShape{{rows, KnownDim(columns)}});
}

size_t ClassCount(const InferenceContext& context, const std::string& ints_name,
                  const std::string& strings_name) {
  return std::max(ListSize(context.Attr(ints_name)), ListSize(context.Attr(strings_name)));
}

void TreeEnsembleClassifier(InferenceContext& context) {
  const size_t classes = ClassCount(context, "classlabels_int64s", "classlabels_strings");
  SetClassifierOutputs(context, "classlabels_int64s", "classlabels_strings",
                       static_cast<int64_t>(classes));
}

// LinearClassifier: one score per class label (a one-row binary model scores both labels).
void LinearClassifier(InferenceContext& context) {
  const size_t classes = ClassCount(context, "classlabels_ints", "classlabels_strings");
  SetClassifierOutputs(context, "classlabels_ints", "classlabels_strings",
                       static_cast<int64_t>(classes));
}

// SVMClassifier: labels [N]; scores per class pair without probabilities (2 for two classes),
// else per class.
void SvmClassifier(InferenceContext& context) {
  const int64_t classes =
      static_cast<int64_t>(ClassCount(context, "classlabels_ints", "classlabels_strings"));
  int64_t vectors = 0;
  if (const std::optional<std::vector<int64_t>> counts = context.IntsAttr("vectors_per_class"))
    for (int64_t c : *counts) vectors += c;
  int64_t columns = classes;
  if (vectors > 0 && !IsSet(context, "prob_a"))
    columns = classes > 2 ? classes * (classes - 1) / 2 : 2;
  SetClassifierOutputs(context, "classlabels_ints", "classlabels_strings", columns);
}

// ZipMap: seq(map(string|int64, float)) by the labels attribute.
void ZipMap(InferenceContext& context) {
  const E key = IsSet(context, "classlabels_strings")  ? E::kString
                : IsSet(context, "classlabels_int64s") ? E::kInt64
                                                       : E::kUndefined;
  if (key == E::kUndefined) return;
  const ValueType made = ValueType::SequenceOfMaps(key, E::kFloat);
  const NodeArg* z = context.GetNode().HasOutput(0) ? context.GetNode().Outputs()[0] : nullptr;
  if (z && z->type.IsSequenceOfMaps() && z->type.key != E::kUndefined && z->type.key != key)
    context.Fail(MakeString("output Z is declared ", z->type.ToString(), " but the labels make ",
                            made.ToString()));
  context.SetOutputType(0, made);
}

// DictVectorizer: tensor(V) [1, vocabulary size] of a map(K, V), the vocabulary of K's type.
void DictVectorizer(InferenceContext& context) {
  const ValueType& x = context.InputType(0);
  if (!x.IsMap()) return;
  std::optional<SymbolicShape> out;
  if (x.key != E::kUndefined) {
    const char* vocabulary = x.key == E::kString ? "string_vocabulary" : "int64_vocabulary";
    if (!IsSet(context, vocabulary))
      context.Fail(MakeString("input X has ", ElementTypeName(x.key), " keys but attribute '",
                              vocabulary, "' is missing"));
    out = SymbolicShape{
        {KnownDim(1), KnownDim(static_cast<int64_t>(ListSize(context.Attr(vocabulary))))}};
  }
  context.SetOutput(0, x.elem, out);
}

// CastMap: [1, n] of cast_to's type; n is max_map for SPARSE, the map's size for DENSE.
void CastMap(InferenceContext& context) {
  const Attribute* cast = context.Attr("cast_to");
  const std::string cast_to = cast ? cast->s : "TO_FLOAT";
  const E type = cast_to == "TO_FLOAT"    ? E::kFloat
                 : cast_to == "TO_STRING" ? E::kString
                 : cast_to == "TO_INT64"  ? E::kInt64
                                          : E::kUndefined;
  if (type == E::kUndefined) context.Fail("attribute 'cast_to' '" + cast_to + "' is unknown");
  const NodeArg* y = context.GetNode().HasOutput(0) ? context.GetNode().Outputs()[0] : nullptr;
  if (y && y->type.IsTensor() && y->type.elem != E::kUndefined && y->type.elem != type)
    context.Fail(MakeString("output Y is declared tensor(", ElementTypeName(y->type.elem),
                            ") but cast_to ", cast_to, " makes tensor(", ElementTypeName(type),
                            ")"));
  const Attribute* form = context.Attr("map_form");
  const bool sparse = form && form->s == "SPARSE";
  context.SetOutput(
      0, type,
      SymbolicShape{{KnownDim(1), sparse ? KnownDim(context.IntAttr("max_map", 1)) : Dim{}}});
}

}  // namespace

void RegisterMlShapes() {
  const std::string ml = "ai.onnx.ml";
  RegisterShapeInference(ml, "LabelEncoder", LabelEncoder);
  RegisterShapeInference(ml, "CategoryMapper", CategoryMapper);
  RegisterShapeInference(ml, "Binarizer", SameTypeAndShape);
  RegisterShapeInference(ml, "Imputer", SameTypeAndShape);
  RegisterShapeInference(ml, "Scaler", FloatOfSameShape);
  RegisterShapeInference(ml, "Normalizer", FloatOfSameShape);
  RegisterShapeInference(ml, "ArrayFeatureExtractor", ArrayFeatureExtractor);
  RegisterShapeInference(ml, "OneHotEncoder", OneHotEncoder);
  RegisterShapeInference(ml, "FeatureVectorizer", FeatureVectorizer);
  RegisterShapeInference(ml, "TreeEnsemble", TreeEnsemble);
  RegisterShapeInference(ml, "TreeEnsembleRegressor", Regressor);
  RegisterShapeInference(ml, "LinearRegressor", Regressor);
  RegisterShapeInference(ml, "SVMRegressor", Regressor);
  RegisterShapeInference(ml, "TreeEnsembleClassifier", TreeEnsembleClassifier);
  RegisterShapeInference(ml, "LinearClassifier", LinearClassifier);
  RegisterShapeInference(ml, "SVMClassifier", SvmClassifier);
  RegisterShapeInference(ml, "ZipMap", ZipMap);
  RegisterShapeInference(ml, "DictVectorizer", DictVectorizer);
  RegisterShapeInference(ml, "CastMap", CastMap);
}

}  // namespace prism

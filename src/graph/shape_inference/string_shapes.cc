// String ops: StringConcat (broadcast), RegexFullMatch (X's shape, bool), StringSplit (X's shape
// plus a last axis whose length depends on the data; the counts have X's shape),
// StringNormalizer ([C] or [1, C]; the kept count depends on the data when there are stopwords)
// and TfIdfVectorizer ([C] -> [size], [N, C] -> [N, size], size = max(ngram_indexes) + 1).
#include <algorithm>
#include <optional>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

std::optional<SymbolicShape> ShapeOf(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.InputShape(i);
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

void StringConcat(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* y = context.InputShape(1);
  context.SetOutput(
      0, ElementType::kString,
      x && y ? std::optional<SymbolicShape>(Broadcast(context, *x, *y)) : std::nullopt);
}

void RegexFullMatch(InferenceContext& context) {
  context.SetOutput(0, ElementType::kBool, ShapeOf(context, 0));
}

void StringSplit(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(1, ElementType::kInt64, ShapeOf(context, 0));
  if (!x) return context.SetOutput(0, ElementType::kString, std::nullopt);
  SymbolicShape y = *x;
  // With no element there is no substring: the last axis is 0. Otherwise it is the longest split.
  const bool empty = std::any_of(x->dims.begin(), x->dims.end(),
                                 [](const Dim& d) { return d.IsKnown() && d.value == 0; });
  y.dims.push_back(empty ? KnownDim(0) : Dim{});
  context.SetOutput(0, ElementType::kString, y);
}

void StringNormalizer(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, ElementType::kString, std::nullopt);
  const size_t rank = x->dims.size();
  if (rank != 1 && rank != 2) context.Fail("input X must be [C] or [1, C]");
  if (rank == 2 && x->dims[0].IsKnown() && x->dims[0].value != 1)
    context.Fail(MakeString("input X must be [C] or [1, C], got ", x->ToString()));
  const Attribute* stopwords = context.Attr("stopwords");
  const Dim& columns = x->dims.back();
  Dim kept;  // unknown when stopwords may drop some
  if (stopwords == nullptr || stopwords->strings.empty())
    kept = columns.IsKnown() ? KnownDim(std::max<int64_t>(columns.value, 1)) : columns;
  SymbolicShape y{rank == 1 ? std::vector<Dim>{kept} : std::vector<Dim>{KnownDim(1), kept}};
  context.SetOutput(0, ElementType::kString, y);
}

void TfIdfVectorizer(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const std::optional<std::vector<int64_t>> indexes = context.IntsAttr("ngram_indexes");
  Dim size;
  if (indexes && !indexes->empty())
    size = KnownDim(*std::max_element(indexes->begin(), indexes->end()) + 1);
  // The type first: graph/type_inference.cc's rule says int64, and a failure below must not
  // leave it so (the kernel then reports the bad input).
  context.SetOutput(0, ElementType::kFloat, std::nullopt);
  if (!x) return;
  if (x->dims.size() != 1 && x->dims.size() != 2) context.Fail("input X must be [C] or [N, C]");
  SymbolicShape y{x->dims.size() == 1 ? std::vector<Dim>{size}
                                      : std::vector<Dim>{x->dims[0], size}};
  context.SetOutput(0, ElementType::kFloat, y);
}

}  // namespace

void RegisterStringShapes() {
  RegisterShapeInference("StringConcat", StringConcat);
  RegisterShapeInference("RegexFullMatch", RegexFullMatch);
  RegisterShapeInference("StringSplit", StringSplit);
  RegisterShapeInference("StringNormalizer", StringNormalizer);
  RegisterShapeInference("TfIdfVectorizer", TfIdfVectorizer);
}

}  // namespace prism

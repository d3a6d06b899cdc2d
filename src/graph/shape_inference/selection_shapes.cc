// Ops that rearrange or select elements: DepthToSpace, SpaceToDepth, ReverseSequence, Dropout
// (shapes follow from the input), OneHot and TopK (from depth and k when their values are
// known), and Compress, NonZero and Unique (ranks only: the counts depend on the data).
#include <algorithm>
#include <optional>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

Dim Times(const Dim& dim, int64_t factor) {
  return MulDim(dim, factor);
}

Dim DividedBy(const InferenceContext& context, const Dim& dim, int64_t divisor) {
  if (!dim.IsKnown()) return Dim{};
  if (dim.value % divisor != 0)
    context.Fail(MakeString("dim ", dim.value, " is not a multiple of ", divisor));
  return KnownDim(dim.value / divisor);
}

// DepthToSpace's and SpaceToDepth's blocksize: positive, and small enough that its square (the
// channel factor) is an int64.
int64_t BlockSize(InferenceContext& context) {
  const int64_t b = context.IntAttr("blocksize", 0);
  if (b <= 0) context.Fail("blocksize must be positive");
  if (!CheckedMul(b, b)) context.Fail(MakeString("blocksize ", b, " is too large"));
  return b;
}

void DepthToSpace(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() != 4) context.Fail("input must be 4-D");
  const int64_t b = BlockSize(context);
  SymbolicShape out{{x->dims[0], DividedBy(context, x->dims[1], b * b), Times(x->dims[2], b),
                     Times(x->dims[3], b)}};
  context.SetOutput(0, context.InputElem(0), out);
}

void SpaceToDepth(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() != 4) context.Fail("input must be 4-D");
  const int64_t b = BlockSize(context);
  SymbolicShape out{{x->dims[0], Times(x->dims[1], b * b), DividedBy(context, x->dims[2], b),
                     DividedBy(context, x->dims[3], b)}};
  context.SetOutput(0, context.InputElem(0), out);
}

void SameAsFirst(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const std::optional<SymbolicShape> shape = x ? std::optional<SymbolicShape>(*x) : std::nullopt;
  context.SetOutput(0, context.InputElem(0), shape);
  if (context.GetNode().HasOutput(1)) {  // Dropout's mask
    const ElementType mask = context.Opset() >= 10 ? ElementType::kBool : context.InputElem(0);
    context.SetOutput(1, mask, shape);
  }
}

void OneHot(InferenceContext& context) {
  const SymbolicShape* indices = context.InputShape(0);
  const ElementType elem = context.InputElem(2);
  if (!indices) return context.SetOutput(0, elem, std::nullopt);
  const int64_t rank = static_cast<int64_t>(indices->dims.size()) + 1;
  int64_t axis = context.IntAttr("axis", -1);
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for output rank ", rank));
  if (axis < 0) axis += rank;
  Dim depth;
  if (auto values = context.InputInts(1); values && values->size() == 1)
    depth = KnownDim((*values)[0]);
  SymbolicShape out = *indices;
  out.dims.insert(out.dims.begin() + axis, depth);
  context.SetOutput(0, elem, out);
}

void TopK(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) {
    context.SetOutput(0, context.InputElem(0), std::nullopt);
    return context.SetOutput(1, ElementType::kInt64, std::nullopt);
  }
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  int64_t axis = context.IntAttr("axis", -1);
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  if (axis < 0) axis += rank;
  Dim k;
  if (context.Opset() < 10) {
    k = KnownDim(context.IntAttr("k", 0));
  } else if (auto values = context.InputInts(1); values && values->size() == 1) {
    k = KnownDim((*values)[0]);
  }
  SymbolicShape out = *x;
  out.dims[axis] = k;
  context.SetOutput(0, context.InputElem(0), out);
  context.SetOutput(1, ElementType::kInt64, out);
}

void Compress(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  // The kept count depends on the condition's values: it stays unknown.
  const Attribute* axis = context.Attr("axis");
  if (!axis) return context.SetOutput(0, context.InputElem(0), SymbolicShape{{Dim{}}});
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  int64_t a = axis->i;
  if (a < -rank || a >= rank)
    context.Fail(MakeString("axis ", a, " is out of range for rank ", rank));
  if (a < 0) a += rank;
  SymbolicShape out = *x;
  out.dims[a] = Dim{};
  context.SetOutput(0, context.InputElem(0), out);
}

void NonZero(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  SymbolicShape out{
      {x ? KnownDim(std::max<int64_t>(1, static_cast<int64_t>(x->dims.size()))) : Dim{}, Dim{}}};
  context.SetOutput(0, ElementType::kInt64, out);
}

void Unique(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const Attribute* axis = context.Attr("axis");
  std::optional<SymbolicShape> y;
  if (!axis) {
    y = SymbolicShape{{Dim{}}};
  } else if (x) {
    const int64_t rank = static_cast<int64_t>(x->dims.size());
    int64_t a = axis->i;
    if (a < -rank || a >= rank)
      context.Fail(MakeString("axis ", a, " is out of range for rank ", rank));
    if (a < 0) a += rank;
    y = *x;
    y->dims[a] = Dim{};
  }
  context.SetOutput(0, context.InputElem(0), y);
  for (size_t o = 1; o < 4; ++o)
    if (context.GetNode().HasOutput(o))
      context.SetOutput(o, ElementType::kInt64, SymbolicShape{{Dim{}}});
}

}  // namespace

void RegisterSelectionShapes() {
  RegisterShapeInference("DepthToSpace", DepthToSpace);
  RegisterShapeInference("SpaceToDepth", SpaceToDepth);
  RegisterShapeInference("ReverseSequence", SameAsFirst);
  RegisterShapeInference("Dropout", SameAsFirst);
  RegisterShapeInference("OneHot", OneHot);
  RegisterShapeInference("TopK", TopK);
  RegisterShapeInference("Compress", Compress);
  RegisterShapeInference("NonZero", NonZero);
  RegisterShapeInference("Unique", Unique);
}

}  // namespace prism

// Ops that take, cut or grow regions of a tensor: Slice (propagating sliced shape values, as in
// Shape -> Slice -> Concat -> Reshape chains), Split, Pad, Tile, Trilu, EyeLike, Range,
// CenterCropPad.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

int64_t ResolveAxis(const InferenceContext& context, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// The spec's clamping (as in the CPU kernel): the first index and the count along one axis.
std::pair<int64_t, int64_t> SliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return {0, 0};
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    // 1 + (span - 1) / step: (span + step - 1) / step overflows for a step near INT64_MAX.
    return {start, end > start ? 1 + (end - start - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  // In 128 bits: -step overflows for INT64_MIN.
  return {start, start > end ? static_cast<int64_t>(1 + static_cast<__int128>(start - end - 1) /
                                                            -static_cast<__int128>(step))
                             : 0};
}

void Slice(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  if (context.Opset() >= 10) {
    starts = context.InputInts(1);
    ends = context.InputInts(2);
    if (context.HasInput(3)) axes = context.InputInts(3);
    if (context.HasInput(4)) steps = context.InputInts(4);
    const bool unknown =
        !starts || !ends || (context.HasInput(3) && !axes) || (context.HasInput(4) && !steps);
    if (unknown) {  // the rank survives, the sliced dims are unknown
      std::optional<SymbolicShape> shape;
      if (x) shape = SymbolicShape{std::vector<Dim>(x->dims.size())};
      return context.SetOutput(0, context.InputElem(0), shape);
    }
  } else {
    starts = context.IntsAttr("starts");
    ends = context.IntsAttr("ends");
    axes = context.IntsAttr("axes");
    if (!starts || !ends) context.Fail("attributes 'starts' and 'ends' are required");
  }
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  if (starts->size() != ends->size())
    context.Fail(
        MakeString("'starts' has ", starts->size(), " entries but 'ends' has ", ends->size()));
  if (!axes || axes->empty()) {
    axes = std::vector<int64_t>();
    for (size_t a = 0; a < starts->size(); ++a) axes->push_back(static_cast<int64_t>(a));
  }
  if (!steps || steps->empty()) steps = std::vector<int64_t>(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size())
    context.Fail("'starts', 'ends', 'axes' and 'steps' must have the same length");
  SymbolicShape out = *x;
  int64_t first_of_axis0 = 0, step_of_axis0 = 1;  // to slice propagated values of a 1-D input
  for (size_t i = 0; i < axes->size(); ++i) {
    const int64_t a = ResolveAxis(context, (*axes)[i], rank);
    if ((*steps)[i] == 0) context.Fail(MakeString("step for axis ", (*axes)[i], " is 0"));
    if (!x->dims[a].IsKnown()) {
      out.dims[a] = Dim{};
      continue;
    }
    const auto [first, count] = SliceAxis((*starts)[i], (*ends)[i], (*steps)[i], x->dims[a].value);
    out.dims[a] = KnownDim(count);
    if (a == 0) {
      first_of_axis0 = first;
      step_of_axis0 = (*steps)[i];
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
  const PropagatedValues* values = context.InputValues(0);
  if (values && !values->is_scalar && rank == 1 && out.dims[0].IsKnown() && x->dims[0].IsKnown() &&
      static_cast<int64_t>(values->values.size()) == x->dims[0].value) {
    PropagatedValues sliced;
    for (int64_t k = 0; k < out.dims[0].value; ++k)
      sliced.values.push_back(
          values->values[static_cast<size_t>(first_of_axis0 + k * step_of_axis0)]);
    context.SetOutputValues(0, std::move(sliced));
  }
}

void Split(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const size_t outputs = context.GetNode().Outputs().size();
  if (!x) {
    for (size_t o = 0; o < outputs; ++o) context.SetOutput(o, context.InputElem(0), std::nullopt);
    return;
  }
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  const int64_t axis = ResolveAxis(context, context.IntAttr("axis", 0), rank);
  std::optional<std::vector<int64_t>> sizes;
  bool sizes_unknown = false;
  if ((context.Opset() == 1 || context.Opset() >= 13) && context.HasInput(1)) {
    sizes = context.InputInts(1);
    sizes_unknown = !sizes;
  } else if (context.Opset() < 13) {
    sizes = context.IntsAttr("split");
  }
  const Dim dim = x->dims[axis];
  std::vector<Dim> parts(outputs);  // unknown unless worked out below
  if (sizes && !sizes->empty()) {
    if (sizes->size() != outputs)
      context.Fail(MakeString("'split' has ", sizes->size(), " entries but the node has ", outputs,
                              " outputs"));
    for (size_t o = 0; o < outputs; ++o) parts[o] = KnownDim((*sizes)[o]);
  } else if (!sizes_unknown && dim.IsKnown() && outputs > 0) {
    const int64_t n = static_cast<int64_t>(outputs);
    if (context.Opset() >= 18) {
      const int64_t part = dim.value / n + (dim.value % n != 0 ? 1 : 0);
      for (size_t o = 0; o < outputs; ++o)
        parts[o] = KnownDim(static_cast<int64_t>(std::max<WideInt>(
            0, std::min<WideInt>(part, dim.value - static_cast<WideInt>(o) * part))));
    } else {
      if (dim.value % n != 0)
        context.Fail(MakeString("axis ", axis, " of size ", dim.value,
                                " does not split evenly into ", n, " outputs"));
      for (size_t o = 0; o < outputs; ++o) parts[o] = KnownDim(dim.value / n);
    }
  }
  for (size_t o = 0; o < outputs; ++o) {
    SymbolicShape out = *x;
    out.dims[axis] = parts[o];
    context.SetOutput(o, context.InputElem(0), out);
  }
}

void Pad(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  std::optional<std::vector<int64_t>> pads;
  std::optional<std::vector<int64_t>> axes;
  if (context.Opset() >= 11) {
    pads = context.InputInts(1);
    if (context.Opset() >= 18 && context.HasInput(3)) {
      axes = context.InputInts(3);
      if (!axes) pads.reset();
    }
  } else {
    pads = context.IntsAttr(context.Opset() < 2 ? "paddings" : "pads");
  }
  SymbolicShape out{std::vector<Dim>(x->dims.size())};
  if (pads) {
    if (!axes || axes->empty()) {
      axes = std::vector<int64_t>();
      for (int64_t a = 0; a < rank; ++a) axes->push_back(a);
    }
    if (pads->size() != 2 * axes->size())
      context.Fail(MakeString("'pads' has ", pads->size(), " entries but ", 2 * axes->size(),
                              " are needed"));
    out = *x;
    for (size_t i = 0; i < axes->size(); ++i) {
      const int64_t a = ResolveAxis(context, (*axes)[i], rank);
      if (!x->dims[a].IsKnown()) continue;
      const WideInt size =
          static_cast<WideInt>(x->dims[a].value) + (*pads)[i] + (*pads)[i + axes->size()];
      if (size < 0)
        context.Fail(
            MakeString("pads crop more than axis ", a, " of size ", x->dims[a].value, " holds"));
      out.dims[a] = WideDim(size);
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void Tile(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  SymbolicShape out{std::vector<Dim>(x->dims.size())};
  if (context.Opset() >= 6) {
    if (auto repeats = context.InputInts(1)) {
      if (repeats->size() != x->dims.size())
        context.Fail(
            MakeString("'repeats' has ", repeats->size(), " entries for rank ", x->dims.size()));
      for (size_t d = 0; d < x->dims.size(); ++d)
        if (x->dims[d].IsKnown()) out.dims[d] = MulDim(x->dims[d], (*repeats)[d]);
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void SameShape(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, context.InputElem(0),
                    x ? std::optional<SymbolicShape>(*x) : std::optional<SymbolicShape>());
}

void EyeLike(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (x && x->dims.size() != 2) context.Fail("input must be 2-D");
  const int64_t dtype = context.IntAttr("dtype", 0);
  const ElementType elem = dtype != 0 && IsKnownElementType(static_cast<int32_t>(dtype))
                               ? static_cast<ElementType>(dtype)
                               : context.InputElem(0);
  context.SetOutput(0, elem, x ? std::optional<SymbolicShape>(*x) : std::nullopt);
}

// CenterCropPad: the named axes (default all) take the sizes of input 'shape'.
void CenterCropPad(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  std::vector<int64_t> axes = context.IntsAttr("axes").value_or(std::vector<int64_t>{});
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  SymbolicShape out = *x;
  const std::optional<std::vector<int64_t>> sizes = context.InputInts(1);
  if (sizes && sizes->size() != axes.size())
    context.Fail(MakeString("input 'shape' has ", sizes->size(), " entries but ", axes.size(),
                            " axes are cropped or padded"));
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = ResolveAxis(context, axes[i], rank);
    out.dims[axis] = sizes ? KnownDim((*sizes)[i]) : Dim{};
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// Resize and Upsample: the output dims from known scales or sizes (the keep-aspect policies
// included), else only the rank.
// A dim computed in floating point from a model's scales: one that is NaN, negative or past
// 2^62 (scales come from constants the model chose) is left unknown, and the kernel refuses it.
Dim DimFromDouble(double value) {
  if (!(value >= 0 && value <= static_cast<double>(int64_t{1} << 62))) return Dim{};
  return KnownDim(static_cast<int64_t>(value));
}

void Resize(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  const bool upsample = context.GetNode().OpType() == "Upsample";
  const bool legacy = upsample || context.Opset() < 11;
  std::optional<std::vector<double>> scales;
  std::optional<std::vector<int64_t>> sizes;
  bool unknown = false;
  if (upsample && context.Opset() < 9) {
    if (const Attribute* attr = context.Attr("scales"))
      scales = std::vector<double>(attr->floats.begin(), attr->floats.end());
  } else {
    const size_t scales_input = legacy ? 1 : 2;
    if (context.HasInput(scales_input)) {
      scales = context.InputReals(scales_input);
      const SymbolicShape* shape = context.InputShape(scales_input);
      const bool empty =
          shape && shape->dims.size() == 1 && shape->dims[0].IsKnown() && shape->dims[0].value == 0;
      if (!scales && !empty) unknown = true;
      if (scales && scales->empty()) scales.reset();
    }
    if (!legacy && context.HasInput(3)) {
      sizes = context.InputInts(3);
      if (!sizes) unknown = true;
      if (sizes && sizes->empty()) sizes.reset();
    }
  }
  SymbolicShape out{std::vector<Dim>(x->dims.size())};
  std::vector<int64_t> axes;
  if (auto attr = context.IntsAttr("axes"); attr && !attr->empty()) {
    for (int64_t a : *attr) axes.push_back(ResolveAxis(context, a, rank));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  const std::string policy = context.Attr("keep_aspect_ratio_policy")
                                 ? context.Attr("keep_aspect_ratio_policy")->s
                                 : std::string("stretch");
  if (!unknown && (scales || sizes)) {
    out = *x;
    const size_t given = scales ? scales->size() : sizes->size();
    if (given != axes.size())
      context.Fail(MakeString("'", scales ? "scales" : "sizes", "' has ", given, " entries but ",
                              axes.size(), " are needed"));
    if (scales) {
      for (size_t i = 0; i < axes.size(); ++i) {
        const Dim& d = x->dims[static_cast<size_t>(axes[i])];
        out.dims[static_cast<size_t>(axes[i])] =
            d.IsKnown() ? DimFromDouble(std::floor((*scales)[i] * static_cast<double>(d.value)))
                        : Dim{};
      }
    } else if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i)
        out.dims[static_cast<size_t>(axes[i])] = KnownDim((*sizes)[i]);
    } else {
      bool all_known = true;
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const Dim& d = x->dims[static_cast<size_t>(axes[i])];
        if (!d.IsKnown() || d.value == 0) {
          all_known = false;
          continue;
        }
        const double s = static_cast<double>((*sizes)[i]) / static_cast<double>(d.value);
        scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        const Dim& d = x->dims[static_cast<size_t>(axes[i])];
        out.dims[static_cast<size_t>(axes[i])] =
            all_known ? DimFromDouble(scale * static_cast<double>(d.value) + 0.5) : Dim{};
      }
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void Range(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(0), SymbolicShape{{Dim{}}});
}

}  // namespace

void RegisterRegionShapes() {
  RegisterShapeInference("Slice", Slice);
  RegisterShapeInference("Split", Split);
  RegisterShapeInference("Pad", Pad);
  RegisterShapeInference("Tile", Tile);
  RegisterShapeInference("Trilu", SameShape);
  RegisterShapeInference("EyeLike", EyeLike);
  RegisterShapeInference("CenterCropPad", CenterCropPad);
  RegisterShapeInference("Range", Range);
  RegisterShapeInference("Resize", Resize);
  RegisterShapeInference("Upsample", Resize);
}

}  // namespace prism

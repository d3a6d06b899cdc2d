// Shape-manipulating ops (Reshape, Flatten, Transpose, Concat, Squeeze/Unsqueeze, Gather), type
// changes (Cast, CastLike), and the sources of propagated values (Constant, Shape, Size).
#include <set>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

std::optional<SymbolicShape> InputShapeOrNone(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.InputShape(i);
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

int64_t NormalizeAxis(const InferenceContext& context, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

// The product of dims [begin, end) when all are known.
std::optional<int64_t> KnownProduct(const SymbolicShape& shape, size_t begin, size_t end) {
  std::optional<int64_t> product = 1;
  for (size_t d = begin; d < end && product; ++d) {
    if (!shape.dims[d].IsKnown()) return std::nullopt;
    product = CheckedMul(*product, shape.dims[d].value);
  }
  return product;  // nullopt too when the product overflows: an unknown size
}

void Reshape(InferenceContext& context) {
  const PropagatedValues* target = context.InputValues(1);
  const SymbolicShape* data = context.InputShape(0);
  if (!target) {
    // The rank is the target's length when only its shape is known.
    const SymbolicShape* target_shape = context.InputShape(1);
    std::optional<SymbolicShape> out;
    if (target_shape && target_shape->dims.size() == 1 && target_shape->dims[0].IsKnown())
      out = SymbolicShape{std::vector<Dim>(static_cast<size_t>(target_shape->dims[0].value))};
    return context.SetOutput(0, context.InputElem(0), out);
  }
  const bool allow_zero = context.Opset() >= 14 && context.IntAttr("allowzero", 0) != 0;
  SymbolicShape out;
  int inferred_axis = -1;
  for (size_t i = 0; i < target->values.size(); ++i) {
    const SymbolicInt& element = target->values[i];
    if (element.value && *element.value == -1) {
      if (inferred_axis >= 0) context.Fail("the shape input has more than one -1");
      inferred_axis = static_cast<int>(i);
      out.dims.emplace_back();
    } else if (element.value && *element.value == 0 && !allow_zero) {
      if (data && i < data->dims.size())
        out.dims.push_back(data->dims[i]);
      else if (data)
        context.Fail(MakeString("shape value 0 at index ", i, " copies a dim that data ",
                                data->ToString(), " does not have"));
      else
        out.dims.emplace_back();
    } else if (element.value && *element.value < -1) {
      context.Fail(MakeString("shape value ", *element.value, " at index ", i, " is invalid"));
    } else {
      out.dims.push_back(element.ToDim());
    }
  }
  if (data) {
    const auto total = KnownProduct(*data, 0, data->dims.size());
    int64_t known = 1;
    bool all_known = true;
    for (size_t i = 0; i < out.dims.size(); ++i) {
      if (static_cast<int>(i) == inferred_axis) continue;
      if (!out.dims[i].IsKnown()) {
        all_known = false;
        continue;
      }
      const std::optional<int64_t> product = CheckedMul(known, out.dims[i].value);
      if (!product)
        context.Fail(MakeString("the target shape ", out.ToString(),
                                " has more elements than fit in int64"));
      known = *product;
    }
    if (total && all_known) {
      if (inferred_axis >= 0) {
        if (known == 0 || *total % known != 0)
          context.Fail(MakeString("cannot reshape ", data->ToString(), " (", *total,
                                  " elements) to a shape with ", known, " elements per -1"));
        out.dims[inferred_axis] = KnownDim(*total / known);
      } else if (known != *total) {
        context.Fail(MakeString("cannot reshape ", data->ToString(), " (", *total, " elements) to ",
                                out.ToString(), " (", known, " elements)"));
      }
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void Flatten(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), SymbolicShape{{Dim{}, Dim{}}});
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  int64_t axis = context.IntAttr("axis", 1);
  if (axis < -rank || axis > rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  if (axis < 0) axis += rank;
  auto product = [&](size_t begin, size_t end) {
    const auto value = KnownProduct(*x, begin, end);
    return value ? KnownDim(*value) : Dim{};
  };
  context.SetOutput(0, context.InputElem(0),
                    SymbolicShape{{product(0, axis), product(axis, x->dims.size())}});
}

void Transpose(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const size_t rank = x->dims.size();
  std::vector<int64_t> perm = context.IntsAttr("perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(rank - 1 - d));
  if (perm.size() != rank)
    context.Fail(MakeString("perm has ", perm.size(), " values for input ", x->ToString()));
  std::set<int64_t> seen;
  SymbolicShape out;
  for (int64_t p : perm) {
    const int64_t axis = NormalizeAxis(context, p, static_cast<int64_t>(rank));
    if (!seen.insert(axis).second) context.Fail(MakeString("perm repeats axis ", p));
    out.dims.push_back(x->dims[axis]);
  }
  context.SetOutput(0, context.InputElem(0), out);
}

void Concat(InferenceContext& context) {
  std::optional<SymbolicShape> out;
  int64_t axis = context.IntAttr("axis", 0);
  bool rank_known = true;
  for (size_t i = 0; i < context.InputCount(); ++i) {
    const SymbolicShape* shape = context.InputShape(i);
    if (!shape) {
      rank_known = false;
      continue;
    }
    const int64_t rank = static_cast<int64_t>(shape->dims.size());
    const int64_t normalized = NormalizeAxis(context, axis, rank);
    if (!out) {
      out = *shape;
      axis = normalized;
      continue;
    }
    if (shape->dims.size() != out->dims.size())
      context.Fail(MakeString("input ", i, " ", shape->ToString(), " has another rank than ",
                              out->ToString()));
    for (size_t d = 0; d < out->dims.size(); ++d) {
      Dim& merged = out->dims[d];
      const Dim& other = shape->dims[d];
      if (static_cast<int64_t>(d) == axis) {
        merged = AddDims(merged, other);
      } else if (merged.IsKnown() && other.IsKnown() && merged.value != other.value) {
        context.Fail(MakeString("input ", i, " ", shape->ToString(), " differs from ",
                                out->ToString(), " outside axis ", axis));
      } else if (!merged.IsKnown()) {
        merged = other.IsKnown() ? other : (SameDim(merged, other) ? merged : Dim{});
      }
    }
  }
  if (out && !rank_known) out->dims[axis] = Dim{};
  context.SetOutput(0, context.InputElem(0), out);
  // Concatenated shape pieces.
  PropagatedValues joined;
  for (size_t i = 0; i < context.InputCount(); ++i) {
    const PropagatedValues* values = context.InputValues(i);
    if (!values) return;
    joined.values.insert(joined.values.end(), values->values.begin(), values->values.end());
  }
  context.SetOutputValues(0, std::move(joined));
}

void Constant(InferenceContext& context) {
  for (const auto& [name, attribute] : context.GetNode().Attributes()) {
    if (name == "value" && attribute.tensor) {
      const Tensor& tensor = *attribute.tensor;
      SymbolicShape shape;
      for (int64_t d : tensor.Shape().Dims()) shape.dims.push_back(KnownDim(d));
      context.SetOutput(0, tensor.Type(), shape);
      if ((tensor.Type() == ElementType::kInt64 || tensor.Type() == ElementType::kInt32) &&
          tensor.Shape().Rank() <= 1 && tensor.NumElements() <= 64) {
        PropagatedValues values;
        values.is_scalar = tensor.Shape().Rank() == 0;
        for (int64_t i = 0; i < tensor.NumElements(); ++i)
          values.values.push_back(SymbolicInt{tensor.Type() == ElementType::kInt64
                                                  ? tensor.Data<int64_t>()[i]
                                                  : tensor.Data<int32_t>()[i],
                                              ""});
        context.SetOutputValues(0, std::move(values));
      } else if (tensor.Type() == ElementType::kFloat && tensor.Shape().Rank() <= 1 &&
                 tensor.NumElements() <= 64) {
        PropagatedValues values;
        values.is_scalar = tensor.Shape().Rank() == 0;
        values.reals =
            std::vector<double>(tensor.Data<float>(), tensor.Data<float>() + tensor.NumElements());
        context.SetOutputValues(0, std::move(values));
      }
    } else if (name == "value_float" || name == "value_int" || name == "value_string") {
      context.SetOutput(0,
                        name == "value_float" ? ElementType::kFloat
                        : name == "value_int" ? ElementType::kInt64
                                              : ElementType::kString,
                        SymbolicShape{});
      if (name == "value_int")
        context.SetOutputValues(
            0, PropagatedValues{{SymbolicInt{attribute.i, ""}}, true, std::nullopt});
    } else if (name == "value_floats" || name == "value_ints" || name == "value_strings") {
      const size_t count = name == "value_floats" ? attribute.floats.size()
                           : name == "value_ints" ? attribute.ints.size()
                                                  : attribute.strings.size();
      context.SetOutput(0,
                        name == "value_floats" ? ElementType::kFloat
                        : name == "value_ints" ? ElementType::kInt64
                                               : ElementType::kString,
                        SymbolicShape{{KnownDim(static_cast<int64_t>(count))}});
      if (name == "value_ints") {
        PropagatedValues values;
        for (int64_t v : attribute.ints) values.values.push_back(SymbolicInt{v, ""});
        context.SetOutputValues(0, std::move(values));
      } else if (name == "value_floats") {
        PropagatedValues values;
        values.reals = std::vector<double>(attribute.floats.begin(), attribute.floats.end());
        context.SetOutputValues(0, std::move(values));
      }
    }
  }
}

void Shape(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, ElementType::kInt64, SymbolicShape{{Dim{}}});
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  auto clamp = [rank](int64_t axis) {
    if (axis < 0) axis += rank;
    return std::min(std::max<int64_t>(axis, 0), rank);
  };
  const int64_t start = context.Opset() >= 15 ? clamp(context.IntAttr("start", 0)) : 0;
  const int64_t end = context.Opset() >= 15 ? clamp(context.IntAttr("end", rank)) : rank;
  PropagatedValues values;
  for (int64_t d = start; d < end; ++d) values.values.push_back(SymbolicInt::FromDim(x->dims[d]));
  context.SetOutput(0, ElementType::kInt64,
                    SymbolicShape{{KnownDim(static_cast<int64_t>(values.values.size()))}});
  context.SetOutputValues(0, std::move(values));
}

void Size(InferenceContext& context) {
  context.SetOutput(0, ElementType::kInt64, SymbolicShape{});
  if (const SymbolicShape* x = context.InputShape(0))
    if (auto total = KnownProduct(*x, 0, x->dims.size()))
      context.SetOutputValues(0, PropagatedValues{{SymbolicInt{*total, ""}}, true, std::nullopt});
}

void Gather(InferenceContext& context) {
  const SymbolicShape* data = context.InputShape(0);
  const SymbolicShape* indices = context.InputShape(1);
  if (!data || !indices) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(data->dims.size());
  if (rank == 0) context.Fail("data must have rank 1 or more");
  const int64_t axis = NormalizeAxis(context, context.IntAttr("axis", 0), rank);
  SymbolicShape out;
  out.dims.insert(out.dims.end(), data->dims.begin(), data->dims.begin() + axis);
  out.dims.insert(out.dims.end(), indices->dims.begin(), indices->dims.end());
  out.dims.insert(out.dims.end(), data->dims.begin() + axis + 1, data->dims.end());
  context.SetOutput(0, context.InputElem(0), out);
  // Picking dims out of a propagated shape.
  const PropagatedValues* values = context.InputValues(0);
  const auto picks = context.InputInts(1);
  if (values && picks && axis == 0 && indices->dims.size() <= 1) {
    PropagatedValues picked;
    picked.is_scalar = indices->dims.empty();
    const int64_t count = static_cast<int64_t>(values->values.size());
    for (int64_t index : *picks) {
      if (index < -count || index >= count)
        context.Fail(MakeString("index ", index, " is out of range for ", count, " values"));
      picked.values.push_back(values->values[index < 0 ? index + count : index]);
    }
    context.SetOutputValues(0, std::move(picked));
  }
}

std::optional<std::vector<int64_t>> SqueezeAxes(const InferenceContext& context, bool* known) {
  *known = true;
  if (context.Opset() >= 13) {
    if (!context.HasInput(1)) return std::nullopt;
    auto axes = context.InputInts(1);
    *known = axes.has_value();
    return axes;
  }
  return context.IntsAttr("axes");
}

void Unsqueeze(InferenceContext& context) {
  bool known = true;
  const auto axes = SqueezeAxes(context, &known);
  const SymbolicShape* x = context.InputShape(0);
  if (!x || !known || !axes) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size() + axes->size());
  std::set<int64_t> inserted;
  for (int64_t axis : *axes)
    if (!inserted.insert(NormalizeAxis(context, axis, rank)).second)
      context.Fail(MakeString("axes repeat ", axis));
  SymbolicShape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.dims.push_back(inserted.count(d) ? KnownDim(1) : x->dims[next++]);
  context.SetOutput(0, context.InputElem(0), out);
  if (const PropagatedValues* values = context.InputValues(0); values && values->is_scalar)
    context.SetOutputValues(0, PropagatedValues{values->values, false, std::nullopt});
}

void Squeeze(InferenceContext& context) {
  bool known = true;
  const auto axes = SqueezeAxes(context, &known);
  const SymbolicShape* x = context.InputShape(0);
  if (!x || !known) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  std::set<int64_t> removed;
  if (axes && !axes->empty()) {
    for (int64_t axis : *axes) {
      const int64_t d = NormalizeAxis(context, axis, rank);
      if (x->dims[d].IsKnown() && x->dims[d].value != 1)
        context.Fail(MakeString("axis ", axis, " of ", x->ToString(), " is not 1"));
      removed.insert(d);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      if (!x->dims[d].IsKnown())
        return context.SetOutput(0, context.InputElem(0), std::nullopt);  // 1 or not: unknown
      if (x->dims[d].value == 1) removed.insert(d);
    }
  }
  SymbolicShape out;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed.count(d)) out.dims.push_back(x->dims[d]);
  context.SetOutput(0, context.InputElem(0), out);
  if (const PropagatedValues* values = context.InputValues(0);
      values && values->values.size() == 1 && out.dims.empty())
    context.SetOutputValues(0, PropagatedValues{values->values, true, std::nullopt});
}

void Cast(InferenceContext& context) {
  const Attribute* to = context.Attr("to");
  ElementType type = ElementType::kUndefined;
  if (to && to->type == AttributeType::kString)
    type = ElementTypeFromDataTypeName(to->s);
  else if (to && IsKnownElementType(static_cast<int32_t>(to->i)))
    type = static_cast<ElementType>(to->i);
  context.SetOutput(0, type, InputShapeOrNone(context, 0));
  if (type == ElementType::kInt64 || type == ElementType::kInt32)
    if (const PropagatedValues* values = context.InputValues(0))
      context.SetOutputValues(0, *values);
}

// BitCast: the shape kept, the type named by 'to' (same bit width as the input's).
void BitCast(InferenceContext& context) {
  const Attribute* to = context.Attr("to");
  if (!to || !IsKnownElementType(static_cast<int32_t>(to->i)) || to->i == 0 ||
      static_cast<ElementType>(to->i) == ElementType::kString)
    context.Fail("attribute 'to' must name a non-string element type");
  const ElementType type = static_cast<ElementType>(to->i);
  const ElementType from = context.InputElem(0);
  if (from != ElementType::kUndefined && ElementBits(from) != ElementBits(type))
    context.Fail(MakeString("'to' = ", ElementTypeName(type), " has ", ElementBits(type),
                            " bits per element but the input is ", ElementTypeName(from), " with ",
                            ElementBits(from)));
  context.SetOutput(0, type, InputShapeOrNone(context, 0));
}

void CastLike(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(1), InputShapeOrNone(context, 0));
}

// ConstantOfShape: the shape is the input's values (each a dim, known or symbolic); with only
// the input's length known, the rank.
void ConstantOfShape(InferenceContext& context) {
  const Attribute* value = context.GetNode().FindAttribute("value");
  const ElementType elem = value && value->tensor ? value->tensor->Type() : ElementType::kFloat;
  std::optional<SymbolicShape> shape;
  if (const PropagatedValues* dims = context.InputValues(0)) {
    SymbolicShape known;
    for (const SymbolicInt& dim : dims->values) {
      if (dim.value && *dim.value < 0)
        context.Fail(MakeString("dims must be >= 0, given ", *dim.value));
      known.dims.push_back(dim.value ? Dim{*dim.value, ""} : Dim{-1, dim.symbol});
    }
    shape = known;
  } else if (const SymbolicShape* input = context.InputShape(0)) {
    if (input->dims.size() == 1 && input->dims[0].IsKnown())
      shape = SymbolicShape{std::vector<Dim>(static_cast<size_t>(input->dims[0].value))};
  }
  context.SetOutput(0, elem, shape);
}

// Expand: the input's shape broadcast with the target shape's values; with only the target's
// length known, the rank (the larger of the two).
void ExpandShape(InferenceContext& context) {
  const SymbolicShape* input = context.InputShape(0);
  std::optional<SymbolicShape> shape;
  if (const PropagatedValues* dims = context.InputValues(1)) {
    SymbolicShape target;
    for (const SymbolicInt& dim : dims->values)
      target.dims.push_back(dim.value ? Dim{*dim.value, ""} : Dim{-1, dim.symbol});
    if (input) shape = Broadcast(context, *input, target);
  } else if (const SymbolicShape* target = context.InputShape(1)) {
    if (input && target->dims.size() == 1 && target->dims[0].IsKnown())
      shape = SymbolicShape{std::vector<Dim>(static_cast<size_t>(
          std::max<int64_t>(target->dims[0].value, static_cast<int64_t>(input->dims.size()))))};
  }
  context.SetOutput(0, context.InputElem(0), shape);
}

}  // namespace

void RegisterTensorShapes() {
  RegisterShapeInference("Reshape", Reshape);
  RegisterShapeInference("Flatten", Flatten);
  RegisterShapeInference("Transpose", Transpose);
  RegisterShapeInference("Concat", Concat);
  RegisterShapeInference("Constant", Constant);
  RegisterShapeInference("Shape", Shape);
  RegisterShapeInference("ConstantOfShape", ConstantOfShape);
  RegisterShapeInference("Expand", ExpandShape);
  RegisterShapeInference("Size", Size);
  RegisterShapeInference("BitCast", BitCast);
  RegisterShapeInference("Gather", Gather);
  RegisterShapeInference("Unsqueeze", Unsqueeze);
  RegisterShapeInference("Squeeze", Squeeze);
  RegisterShapeInference("Cast", Cast);
  RegisterShapeInference("CastLike", CastLike);
}

}  // namespace prism

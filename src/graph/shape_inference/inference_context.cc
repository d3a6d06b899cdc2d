#include "graph/shape_inference/inference_context.h"

namespace prism {

Dim KnownDim(int64_t value) {
  return Dim{value, ""};
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

Dim MulDim(const Dim& a, int64_t factor) {
  if (!a.IsKnown()) return Dim{};
  const std::optional<int64_t> product = CheckedMul(a.value, factor);
  return product ? KnownDim(*product) : Dim{};
}

std::optional<int64_t> WideValue(WideInt value) {
  if (value < 0 || value > static_cast<WideInt>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(value);
}

Dim WideDim(WideInt value) {
  const std::optional<int64_t> narrow = WideValue(value);
  return narrow ? KnownDim(*narrow) : Dim{};
}

Dim AddDims(const Dim& a, const Dim& b) {
  int64_t sum = 0;
  if (!a.IsKnown() || !b.IsKnown() || __builtin_add_overflow(a.value, b.value, &sum)) return Dim{};
  return KnownDim(sum);
}

bool SameDim(const Dim& a, const Dim& b) {
  if (a.IsKnown() || b.IsKnown()) return a.value == b.value;
  return !a.param.empty() && a.param == b.param;
}

InferenceContext::InferenceContext(const Node& node,
                                   std::unordered_map<const NodeArg*, PropagatedValues>& propagated)
    : node_(node), propagated_(propagated) {}

const ValueType& InferenceContext::InputType(size_t i) const {
  static const ValueType kUnknown;
  return node_.HasInput(i) ? node_.Inputs()[i]->type : kUnknown;
}

ElementType InferenceContext::InputElem(size_t i) const {
  return InputType(i).elem;
}

const SymbolicShape* InferenceContext::InputShape(size_t i) const {
  if (!node_.HasInput(i)) return nullptr;
  const auto& shape = node_.Inputs()[i]->shape;
  return shape ? &*shape : nullptr;
}

int64_t InferenceContext::InputRank(size_t i) const {
  const SymbolicShape* shape = InputShape(i);
  return shape ? static_cast<int64_t>(shape->dims.size()) : -1;
}

const PropagatedValues* InferenceContext::InputValues(size_t i) const {
  if (!node_.HasInput(i)) return nullptr;
  auto it = propagated_.find(node_.Inputs()[i]);
  return it == propagated_.end() || it->second.reals ? nullptr : &it->second;
}

std::optional<std::vector<double>> InferenceContext::InputReals(size_t i) const {
  if (!node_.HasInput(i)) return std::nullopt;
  auto it = propagated_.find(node_.Inputs()[i]);
  if (it == propagated_.end() || !it->second.reals) return std::nullopt;
  return it->second.reals;
}

std::optional<std::vector<int64_t>> InferenceContext::InputInts(size_t i) const {
  const PropagatedValues* values = InputValues(i);
  if (values == nullptr) return std::nullopt;
  std::vector<int64_t> ints;
  for (const SymbolicInt& element : values->values) {
    if (!element.value) return std::nullopt;
    ints.push_back(*element.value);
  }
  return ints;
}

int64_t InferenceContext::IntAttr(const std::string& name, int64_t fallback) const {
  const Attribute* attribute = Attr(name);
  return attribute ? attribute->i : fallback;
}

std::optional<std::vector<int64_t>> InferenceContext::IntsAttr(const std::string& name) const {
  const Attribute* attribute = Attr(name);
  if (attribute == nullptr) return std::nullopt;
  return attribute->ints;
}

void InferenceContext::SetOutputType(size_t o, ValueType type) {
  if (!node_.HasOutput(o) || type.kind == TypeKind::kUnknown) return;
  NodeArg* arg = node_.Outputs()[o];
  if (type.elem == ElementType::kUndefined && arg->type.kind == type.kind) return;
  arg->type = type;
}

void InferenceContext::SetOutputShape(size_t o, SymbolicShape shape) {
  if (!node_.HasOutput(o)) return;
  NodeArg* arg = node_.Outputs()[o];
  // A symbolic or known declared dim is more specific than an unknown inferred one.
  if (arg->shape && arg->shape->dims.size() == shape.dims.size()) {
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      const Dim& declared = arg->shape->dims[d];
      Dim& inferred = shape.dims[d];
      if (!inferred.IsKnown() && inferred.param.empty()) inferred = declared;
      if (!inferred.IsKnown() && declared.IsKnown()) inferred = declared;
    }
  }
  arg->shape = std::move(shape);
}

void InferenceContext::SetOutputValues(size_t o, PropagatedValues values) {
  if (!node_.HasOutput(o) || values.values.size() > 64) return;
  propagated_[node_.Outputs()[o]] = std::move(values);
}

void InferenceContext::SetOutput(size_t o, ElementType elem, std::optional<SymbolicShape> shape) {
  if (elem != ElementType::kUndefined) SetOutputType(o, ValueType::Tensor(elem));
  if (shape) SetOutputShape(o, std::move(*shape));
}

void InferenceContext::Fail(const std::string& message) const {
  PRISM_THROW(kInvalidGraph, node_.Describe(), ": ", message);
}

SymbolicShape Broadcast(const InferenceContext& context, const SymbolicShape& a,
                        const SymbolicShape& b) {
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  SymbolicShape out;
  out.dims.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const Dim* x = i + a.dims.size() >= rank ? &a.dims[i + a.dims.size() - rank] : nullptr;
    const Dim* y = i + b.dims.size() >= rank ? &b.dims[i + b.dims.size() - rank] : nullptr;
    Dim& result = out.dims[i];
    if (!x) {
      result = *y;
    } else if (!y) {
      result = *x;
    } else if (x->IsKnown() && x->value == 1) {
      result = *y;
    } else if (y->IsKnown() && y->value == 1) {
      result = *x;
    } else if (x->IsKnown() && y->IsKnown()) {
      if (x->value != y->value)
        context.Fail(MakeString("inputs of shapes ", a.ToString(), " and ", b.ToString(),
                                " do not broadcast (dim ", i, ": ", x->value, " vs ", y->value,
                                ")"));
      result = *x;
    } else if (x->IsKnown()) {
      result = *x;  // the other is symbolic: it must equal this or be 1; take the known value
    } else if (y->IsKnown()) {
      result = *y;
    } else {
      result = SameDim(*x, *y) ? *x : Dim{};
    }
  }
  return out;
}

}  // namespace prism

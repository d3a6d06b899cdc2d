#include "framework/compute_trace.h"

namespace prism {

namespace detail {
std::atomic<const ComputeTraceHooks*> compute_trace_hooks{nullptr};
}

void SetComputeTraceHooks(const ComputeTraceHooks* hooks) {
  detail::compute_trace_hooks.store(hooks, std::memory_order_release);
}

namespace {

// The indices a constraint's binding list names: plain indices, or kVariadicFrom(i) for i..end.
std::vector<size_t> BoundIndices(const std::vector<int>& bindings, size_t count) {
  std::vector<size_t> indices;
  for (int binding : bindings) {
    if (binding >= 0) {
      indices.push_back(static_cast<size_t>(binding));
      continue;
    }
    for (size_t i = static_cast<size_t>(-1 - binding); i < count; ++i) indices.push_back(i);
  }
  return indices;
}

// The graph's type of arg with the element type of the value that really flowed through it
// (an empty optional keeps the graph's element type).
ValueType ConcreteType(const NodeArg* arg, const Value& value) {
  ValueType type = arg != nullptr ? arg->type : ValueType{};
  TypeKind value_kind = TypeKind::kUnknown;
  if (value.IsMap() || value.IsMapSequence()) {
    return value.Type();  // maps are never optional: their own type says everything
  } else if (value.IsTensor()) {
    type.elem = value.GetTensor().Type();
    value_kind = TypeKind::kTensor;
  } else if (value.IsSequence()) {
    type.elem = value.GetSequence().elem_type;
    value_kind = TypeKind::kSequence;
  }
  if (type.kind == TypeKind::kUnknown) type.kind = value_kind;
  if (type.kind == TypeKind::kOptional && value_kind != TypeKind::kUnknown) type.inner = value_kind;
  return type;
}

// The first present value among indices, with its graph arg; false when none is present.
bool FirstPresent(const std::vector<size_t>& indices, const std::vector<const Value*>& values,
                  const std::vector<NodeArg*>& args, ValueType* type) {
  for (size_t i : indices) {
    if (i >= values.size() || values[i] == nullptr) continue;
    *type = ConcreteType(i < args.size() ? args[i] : nullptr, *values[i]);
    return true;
  }
  return false;
}

}  // namespace

std::string ComputeTraceEvent::TypeBinding() const {
  std::string binding;
  for (const TypeConstraint& constraint : def.constraints) {
    ValueType type;
    bool found =
        FirstPresent(BoundIndices(constraint.inputs, inputs.size()), inputs, node.Inputs(), &type);
    if (!found)
      found = FirstPresent(BoundIndices(constraint.outputs, outputs.size()), outputs,
                           node.Outputs(), &type);
    if (!found && constraint.inputs.empty() && constraint.outputs.empty())
      found = FirstPresent({0}, outputs, node.Outputs(), &type);
    if (!binding.empty()) binding += ";";
    binding += constraint.name + "=";
    binding += found && type.kind != TypeKind::kUnknown ? type.ToString() : "?";
  }
  return binding;
}

}  // namespace prism

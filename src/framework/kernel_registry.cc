#include "framework/kernel_registry.h"

#include <algorithm>

#include "common/status.h"

namespace prism {
namespace {

bool KindAllowed(const TypeConstraint& constraint, const ValueType& type) {
  switch (type.kind) {
    case TypeKind::kUnknown:
      return true;  // nothing known statically: decided at run time
    case TypeKind::kTensor:
      return constraint.allow_tensor;
    case TypeKind::kSequence:
      if (type.inner == TypeKind::kMap)
        return !constraint.maps.empty() && constraint.maps_in_sequence;
      return constraint.allow_sequence;
    case TypeKind::kMap:
      return !constraint.maps.empty() && !constraint.maps_in_sequence;
    case TypeKind::kOptional:
      if (type.key != ElementType::kUndefined) return false;  // an optional map: no op takes one
      return constraint.allow_optional &&
             (type.inner == TypeKind::kSequence ? constraint.allow_sequence
                                                : constraint.allow_tensor);
    default:
      return false;
  }
}

// A map or seq(map) type whose key and value types (where known) are one of the constraint's
// pairs.
bool MapTypeAllowed(const TypeConstraint& constraint, const ValueType& type) {
  for (const auto& [key, value] : constraint.maps)
    if ((type.key == ElementType::kUndefined || type.key == key) &&
        (type.elem == ElementType::kUndefined || type.elem == value))
      return true;
  return false;
}

std::string CheckArg(const TypeConstraint& constraint, const NodeArg* arg, const char* role,
                     size_t index) {
  if (arg == nullptr) return "";
  if (!KindAllowed(constraint, arg->type))
    return MakeString(role, " ", index, " '", arg->name, "' has type ", arg->type.ToString(),
                      ", which constraint ", constraint.name, " does not accept");
  if (arg->type.IsMap() || arg->type.IsSequenceOfMaps()) {
    if (MapTypeAllowed(constraint, arg->type)) return "";
    return MakeString(role, " ", index, " '", arg->name, "' has type ", arg->type.ToString(),
                      ", not in constraint ", constraint.name);
  }
  if (arg->type.elem == ElementType::kUndefined) return "";
  if (std::find(constraint.allowed.begin(), constraint.allowed.end(), arg->type.elem) ==
      constraint.allowed.end())
    return MakeString(role, " ", index, " '", arg->name, "' has type ", arg->type.ToString(),
                      ", not in constraint ", constraint.name);
  return "";
}

}  // namespace

std::string KernelDefMismatch(const KernelDef& def, const Node& node) {
  const int version = node.OpsetVersion();
  if (version < def.since_version || version > def.end_version)
    return MakeString("opset ", version, " is outside ", def.VersionRange());
  for (const TypeConstraint& constraint : def.constraints) {
    for (int bound : constraint.inputs) {
      const size_t first =
          bound >= 0 ? static_cast<size_t>(bound) : static_cast<size_t>(-1 - bound);
      const size_t last = bound >= 0 ? first + 1 : node.InputCount();
      for (size_t i = first; i < last && i < node.InputCount(); ++i) {
        std::string why = CheckArg(constraint, node.Inputs()[i], "input", i);
        if (!why.empty()) return why;
      }
    }
    for (int bound : constraint.outputs) {
      const size_t first =
          bound >= 0 ? static_cast<size_t>(bound) : static_cast<size_t>(-1 - bound);
      const size_t last = bound >= 0 ? first + 1 : node.OutputCount();
      for (size_t o = first; o < last && o < node.OutputCount(); ++o) {
        std::string why = CheckArg(constraint, node.Outputs()[o], "output", o);
        if (!why.empty()) return why;
      }
    }
  }
  return "";
}

std::string KernelRegistry::Key(const std::string& domain, const std::string& op_type) {
  return (domain == "ai.onnx" ? std::string() : domain) + ":" + op_type;
}

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  const std::string key = Key(def.domain, def.op_type);
  auto& list = kernels_[key];
  order_.emplace_back(key, list.size());
  list.push_back(KernelCreateInfo{std::move(def), std::move(factory)});
}

const KernelCreateInfo* KernelRegistry::Find(const Node& node, std::string* reason) const {
  auto it = kernels_.find(Key(node.Domain(), node.OpType()));
  if (it == kernels_.end()) {
    if (reason)
      *reason = MakeString("no kernel for op ", node.Domain().empty() ? "" : node.Domain() + ".",
                           node.OpType());
    return nullptr;
  }
  std::string reasons;
  for (const KernelCreateInfo& info : it->second) {
    std::string why = KernelDefMismatch(info.def, node);
    if (why.empty()) return &info;
    reasons +=
        MakeString(reasons.empty() ? "" : "; ", "kernel ", info.def.VersionRange(), ": ", why);
  }
  if (reason)
    *reason = MakeString("no kernel for ", node.OpType(), " opset ", node.OpsetVersion(),
                         " with these types (", reasons, ")");
  return nullptr;
}

bool KernelRegistry::HasDomain(const std::string& domain) const {
  const std::string prefix = Key(domain, "");
  for (const auto& [key, list] : kernels_)
    if (key.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

std::vector<const KernelCreateInfo*> KernelRegistry::All() const {
  std::vector<const KernelCreateInfo*> all;
  all.reserve(order_.size());
  for (const auto& [key, index] : order_) all.push_back(&kernels_.at(key)[index]);
  return all;
}

}  // namespace prism

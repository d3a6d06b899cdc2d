#include "framework/custom_op.h"

#include <algorithm>
#include <cstdint>

#include "common/status.h"

namespace prism {
namespace {

std::string CanonicalCustomDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

std::string OpLabel(const std::string& domain, const std::string& name) {
  return MakeString("custom op '", name, "' of domain '", domain.empty() ? "ai.onnx" : domain, "'");
}

std::string TensorTypeText(ElementType type) {
  return ValueType::Tensor(type).ToString();
}

std::string Plural(size_t count, const char* word) {
  return MakeString(count, " ", word, count == 1 ? "" : "s");
}

// Checks one side (inputs or outputs) of a node against the declared arguments: their count,
// omitted ones, and the element types known statically.
std::string CheckSide(const std::string& op, const char* side,
                      const std::vector<CustomOpArg>& declared, int min_arity, bool homogeneous,
                      const std::vector<NodeArg*>& args, const Node& node) {
  const size_t count = args.size();
  const bool variadic = !declared.empty() && declared.back().kind == CustomOpArgKind::kVariadic;
  size_t required = 0;
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i].kind == CustomOpArgKind::kRequired) required = i + 1;
  if (variadic) required = declared.size() - 1 + static_cast<size_t>(std::max(min_arity, 0));
  const size_t most = variadic ? SIZE_MAX : declared.size();
  if (count < required || count > most) {
    std::string expected;
    if (variadic)
      expected = MakeString("at least ", Plural(required, side));
    else if (required == most)
      expected = Plural(most, side);
    else
      expected = MakeString(required, " to ", Plural(most, side));
    return MakeString(op, " expects ", expected, ", node '", node.Name(), "' has ", count);
  }
  ElementType variadic_type = ElementType::kUndefined;
  for (size_t i = 0; i < count; ++i) {
    const CustomOpArg& arg = declared[std::min(i, declared.size() - 1)];
    const NodeArg* value = args[i];
    if (value == nullptr) {
      if (arg.kind == CustomOpArgKind::kOptional) continue;
      return MakeString(op, " requires ", side, " ", i, ", which node '", node.Name(), "' omits");
    }
    const ValueType& type = value->type;
    if (type.kind != TypeKind::kUnknown && type.kind != TypeKind::kTensor)
      return MakeString(op, " takes tensors, but ", side, " ", i, " '", value->name, "' of node '",
                        node.Name(), "' is ", type.ToString());
    if (type.elem == ElementType::kUndefined) continue;
    if (arg.type != ElementType::kUndefined && type.elem != arg.type)
      return MakeString(op, " expects ", side, " ", i, " of type ", TensorTypeText(arg.type),
                        ", but '", value->name, "' of node '", node.Name(), "' is ",
                        type.ToString());
    if (arg.kind == CustomOpArgKind::kVariadic && homogeneous) {
      if (variadic_type == ElementType::kUndefined)
        variadic_type = type.elem;
      else if (type.elem != variadic_type)
        return MakeString(op, " expects its variadic ", side, "s to share one type, but node '",
                          node.Name(), "' gives ", TensorTypeText(variadic_type), " and ",
                          type.ToString(), " ('", value->name, "')");
    }
  }
  return "";
}

// The adapter between the executor and a custom op: checks the node at creation and the values
// at every run (static types of custom-op outputs are often unknown), then computes with the
// op's state for this node.
class CustomOpKernel final : public OpKernel {
 public:
  CustomOpKernel(const OpKernelInfo& info, std::shared_ptr<const CustomOp> op,
                 const std::string& domain)
      : OpKernel(info), op_(std::move(op)), label_(OpLabel(domain, op_->Signature().name)) {
    const std::string why = CustomOpMismatch(domain, op_->Signature(), info.GetNode());
    PRISM_ENFORCE(why.empty(), kInvalidGraph, why);
    state_ = op_->CreateKernel(info);
    PRISM_ENFORCE(state_ != nullptr, kFail, label_, " made no kernel for node '",
                  info.GetNode().Name(), "'");
  }

  void Compute(OpKernelContext& context) const override {
    const CustomOpSignature& signature = op_->Signature();
    CheckValues(context, signature.inputs, signature.variadic_input_homogeneous);
    state_->Compute(context);
  }

 private:
  void CheckValues(const OpKernelContext& context, const std::vector<CustomOpArg>& declared,
                   bool homogeneous) const {
    if (declared.empty()) return;
    ElementType variadic_type = ElementType::kUndefined;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Value* value = context.InputValue(i);
      if (value == nullptr || !value->HasValue()) continue;  // omitted: checked at creation
      const CustomOpArg& arg = declared[std::min(i, declared.size() - 1)];
      PRISM_ENFORCE(value->IsTensor(), kInvalidArgument, label_, " takes tensors, but input ", i,
                    " is ", value->Describe());
      const ElementType type = value->GetTensor().Type();
      PRISM_ENFORCE(arg.type == ElementType::kUndefined || arg.type == type, kInvalidArgument,
                    label_, " expects input ", i, " of type ", TensorTypeText(arg.type), ", got ",
                    TensorTypeText(type));
      if (arg.kind == CustomOpArgKind::kVariadic && homogeneous) {
        if (variadic_type == ElementType::kUndefined) variadic_type = type;
        PRISM_ENFORCE(type == variadic_type, kInvalidArgument, label_,
                      " expects its variadic inputs to share one type, got ",
                      TensorTypeText(variadic_type), " and ", TensorTypeText(type), " (input ", i,
                      ")");
      }
    }
  }

  // Declared before state_: the state (which may live in the op's library) goes first.
  std::shared_ptr<const CustomOp> op_;
  std::string label_;
  std::unique_ptr<CustomOpKernelState> state_;
};

}  // namespace

std::string CustomOpMismatch(const std::string& domain, const CustomOpSignature& signature,
                             const Node& node) {
  const std::string op = OpLabel(CanonicalCustomDomain(domain), signature.name);
  const int version = node.OpsetVersion();
  if (version < signature.since_version || version > signature.end_version)
    return MakeString(op, " covers opset ", signature.since_version,
                      signature.end_version == INT_MAX ? std::string("+")
                                                       : MakeString(" to ", signature.end_version),
                      " of its domain, node '", node.Name(), "' uses opset ", version);
  std::string why = CheckSide(op, "input", signature.inputs, signature.variadic_input_min_arity,
                              signature.variadic_input_homogeneous, node.Inputs(), node);
  if (!why.empty()) return why;
  return CheckSide(op, "output", signature.outputs, signature.variadic_output_min_arity,
                   signature.variadic_output_homogeneous, node.Outputs(), node);
}

std::string CustomOpRegistry::Key(const std::string& domain, const std::string& op_type) {
  return CanonicalCustomDomain(domain) + ":" + op_type;
}

namespace {

bool SameInputs(const CustomOpSignature& a, const CustomOpSignature& b) {
  if (a.inputs.size() != b.inputs.size()) return false;
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (a.inputs[i].type != b.inputs[i].type || a.inputs[i].kind != b.inputs[i].kind) return false;
  return true;
}

}  // namespace

CustomOpRegistry::CustomOpRegistry(
    const std::vector<std::shared_ptr<const CustomOpDomain>>& domains) {
  for (const auto& domain : domains) {
    if (domain == nullptr) continue;
    const std::string name = CanonicalCustomDomain(domain->domain);
    ++domains_[name];
    for (const auto& op : domain->ops) {
      if (op == nullptr) continue;
      const CustomOpSignature& signature = op->Signature();
      auto& entries = ops_[Key(name, signature.name)];
      for (const Entry& entry : entries) {
        const CustomOpSignature& other = entry.op->Signature();
        const bool overlap = signature.since_version <= other.end_version &&
                             other.since_version <= signature.end_version;
        PRISM_ENFORCE(
            !(other.provider == signature.provider && overlap && SameInputs(signature, other)),
            kInvalidArgument, OpLabel(name, signature.name), " is registered twice for ",
            signature.provider, " with the same inputs and overlapping opsets");
      }
      KernelDef def = KernelDefBuilder(signature.name)
                          .Domain(name)
                          .Versions(signature.since_version, signature.end_version)
                          .Build();
      KernelFactory factory = [op, name](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
        return std::make_unique<CustomOpKernel>(info, op, name);
      };
      entries.push_back(Entry{name, op, KernelCreateInfo{std::move(def), std::move(factory)}});
    }
  }
}

const KernelCreateInfo* CustomOpRegistry::Find(const Node& node, const std::string& provider,
                                               std::string* reason) const {
  auto it = ops_.find(Key(node.Domain(), node.OpType()));
  if (it == ops_.end()) return nullptr;
  std::vector<std::string> reasons;
  for (const Entry& entry : it->second) {
    if (entry.op->Signature().provider != provider) continue;
    std::string why = CustomOpMismatch(entry.domain, entry.op->Signature(), node);
    if (why.empty()) return &entry.info;
    reasons.push_back(std::move(why));
  }
  if (reason != nullptr && !reasons.empty()) {
    std::string text;
    for (const std::string& why : reasons) text += (text.empty() ? "" : "; ") + why;
    *reason = text;
  }
  return nullptr;
}

bool CustomOpRegistry::Covers(const Node& node) const {
  return ops_.count(Key(node.Domain(), node.OpType())) > 0;
}

bool CustomOpRegistry::HasDomain(const std::string& domain) const {
  return domains_.count(CanonicalCustomDomain(domain)) > 0;
}

}  // namespace prism

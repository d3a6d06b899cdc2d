#include "framework/op_kernel.h"

#include "graph/graph.h"

namespace prism {

const Attribute& OpKernelInfo::Get(const std::string& name, AttributeType type) const {
  const Attribute* attribute = node_.FindAttribute(name);
  PRISM_ENFORCE(attribute != nullptr, kInvalidArgument, node_.Describe(), ": required attribute '",
                name, "' is missing");
  PRISM_ENFORCE(attribute->type == type, kInvalidArgument, node_.Describe(), ": attribute '", name,
                "' must be of type ", AttributeTypeName(type), ", got ",
                AttributeTypeName(attribute->type));
  return *attribute;
}

int64_t OpKernelInfo::Int(const std::string& name) const {
  return Get(name, AttributeType::kInt).i;
}
int64_t OpKernelInfo::IntOr(const std::string& name, int64_t fallback) const {
  return HasAttr(name) ? Int(name) : fallback;
}
float OpKernelInfo::Float(const std::string& name) const {
  return Get(name, AttributeType::kFloat).f;
}
float OpKernelInfo::FloatOr(const std::string& name, float fallback) const {
  return HasAttr(name) ? Float(name) : fallback;
}
std::string OpKernelInfo::String(const std::string& name) const {
  return Get(name, AttributeType::kString).s;
}
std::string OpKernelInfo::StringOr(const std::string& name, const std::string& fallback) const {
  return HasAttr(name) ? String(name) : fallback;
}
std::vector<int64_t> OpKernelInfo::Ints(const std::string& name) const {
  return Get(name, AttributeType::kInts).ints;
}
std::vector<int64_t> OpKernelInfo::IntsOr(const std::string& name,
                                          std::vector<int64_t> fallback) const {
  return HasAttr(name) ? Ints(name) : fallback;
}
std::vector<float> OpKernelInfo::Floats(const std::string& name) const {
  return Get(name, AttributeType::kFloats).floats;
}
std::vector<std::string> OpKernelInfo::Strings(const std::string& name) const {
  return Get(name, AttributeType::kStrings).strings;
}
const Tensor& OpKernelInfo::TensorAttr(const std::string& name) const {
  return *Get(name, AttributeType::kTensor).tensor;
}
const Graph& OpKernelInfo::Subgraph(const std::string& name) const {
  return *Get(name, AttributeType::kGraph).graphs.at(0);
}

const Tensor* OpKernelInfo::ConstantInput(size_t i) const {
  if (!node_.HasInput(i) || !constants_) return nullptr;
  return constants_(node_.Inputs()[i]->name);
}

ElementType OpKernelInfo::InputType(size_t i) const {
  return node_.HasInput(i) ? node_.Inputs()[i]->type.elem : ElementType::kUndefined;
}

ElementType OpKernelInfo::OutputType(size_t i) const {
  return node_.HasOutput(i) ? node_.Outputs()[i]->type.elem : ElementType::kUndefined;
}

const Tensor* OpKernelContext::Input(size_t i) const {
  const Value* value = InputValue(i);
  if (value == nullptr || !value->HasValue()) return nullptr;
  PRISM_ENFORCE(value->IsTensor(), kInvalidArgument, node_.Describe(), ": input ", i,
                " must be a tensor, got ", value->Describe());
  return &value->GetTensor();
}

const Tensor& OpKernelContext::RequiredInput(size_t i) const {
  const Tensor* tensor = Input(i);
  PRISM_ENFORCE(tensor != nullptr, kInvalidArgument, node_.Describe(), ": required input ", i,
                " is missing");
  return *tensor;
}

std::string OpKernel::PrePackFormat(int /*input_index*/, const Tensor& /*weight*/) const {
  return "";
}

PrePackedWeight OpKernel::PrePack(int input_index, const Tensor& /*weight*/) const {
  PRISM_THROW(kNotImplemented, node_.Describe(), ": the kernel names no packed form of input ",
              input_index);
}

void OpKernel::UsePrePacked(int input_index, PrePackedWeight /*packed*/) {
  PRISM_THROW(kNotImplemented, node_.Describe(), ": the kernel cannot use a packed form of input ",
              input_index);
}

}  // namespace prism

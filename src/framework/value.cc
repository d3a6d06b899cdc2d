#include "framework/value.h"

namespace prism {

namespace {
const char* KindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTensor:
      return "tensor";
    case TypeKind::kSequence:
      return "seq";
    case TypeKind::kOptional:
      return "optional";
    case TypeKind::kMap:
      return "map";
    case TypeKind::kSparseTensor:
      return "sparse_tensor";
    case TypeKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}
}  // namespace

std::string ValueType::ToString() const {
  const std::string tensor = MakeString("tensor(", ElementTypeName(elem), ")");
  switch (kind) {
    case TypeKind::kTensor:
      return tensor;
    case TypeKind::kSparseTensor:
      return MakeString("sparse_tensor(", ElementTypeName(elem), ")");
    case TypeKind::kSequence:
      return "seq(" + tensor + ")";
    case TypeKind::kOptional:
      return MakeString("optional(", inner == TypeKind::kSequence ? "seq(" + tensor + ")" : tensor,
                        ")");
    default:
      return KindName(kind);
  }
}

const Tensor& Value::GetTensor() const {
  PRISM_ENFORCE(kind_ == TypeKind::kTensor, kInvalidArgument, "expected a tensor, got ",
                Describe());
  return tensor_;
}

Tensor& Value::MutableTensor() {
  PRISM_ENFORCE(kind_ == TypeKind::kTensor, kInvalidArgument, "expected a tensor, got ",
                Describe());
  return tensor_;
}

const TensorSequence& Value::GetSequence() const {
  PRISM_ENFORCE(kind_ == TypeKind::kSequence, kInvalidArgument, "expected a sequence, got ",
                Describe());
  return *sequence_;
}

std::string Value::Describe() const {
  switch (kind_) {
    case TypeKind::kTensor:
      return tensor_.Describe();
    case TypeKind::kSequence:
      return MakeString("seq(tensor(", ElementTypeName(sequence_->elem_type), ")) of ",
                        sequence_->tensors.size());
    default:
      return "an empty optional";
  }
}

}  // namespace prism

// Values flowing through a graph: tensors, sequences of tensors, and empty optionals.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/tensor.h"

namespace prism {

enum class TypeKind : int { kUnknown = 0, kTensor, kSequence, kOptional, kMap, kSparseTensor };

// The static type of a graph value: tensor(T), seq(tensor(T)), optional(tensor(T)), ...
struct ValueType {
  TypeKind kind = TypeKind::kUnknown;
  ElementType elem = ElementType::kUndefined;
  TypeKind inner = TypeKind::kUnknown;  // for optional: kTensor or kSequence

  static ValueType Tensor(ElementType e) { return {TypeKind::kTensor, e, TypeKind::kUnknown}; }
  bool IsTensor() const { return kind == TypeKind::kTensor; }
  bool operator==(const ValueType& o) const {
    return kind == o.kind && elem == o.elem && inner == o.inner;
  }
  std::string ToString() const;  // onnxruntime's spelling: "tensor(float)", "seq(tensor(int64))"
};

struct TensorSequence {
  ElementType elem_type = ElementType::kUndefined;
  std::vector<Tensor> tensors;
};

class Value {
 public:
  Value() = default;  // an empty optional (or a value not yet produced)
  explicit Value(Tensor tensor) : kind_(TypeKind::kTensor), tensor_(std::move(tensor)) {}
  explicit Value(TensorSequence sequence)
      : kind_(TypeKind::kSequence),
        sequence_(std::make_shared<TensorSequence>(std::move(sequence))) {}

  bool HasValue() const { return kind_ != TypeKind::kUnknown; }
  bool IsTensor() const { return kind_ == TypeKind::kTensor; }
  bool IsSequence() const { return kind_ == TypeKind::kSequence; }
  TypeKind Kind() const { return kind_; }

  const Tensor& GetTensor() const;
  Tensor& MutableTensor();
  const TensorSequence& GetSequence() const;
  std::string Describe() const;

 private:
  TypeKind kind_ = TypeKind::kUnknown;
  Tensor tensor_;
  std::shared_ptr<const TensorSequence> sequence_;
};

}  // namespace prism

// Values flowing through a graph: tensors, sequences of tensors, maps (ai.onnx.ml), sequences of
// maps, and empty optionals.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/tensor.h"

namespace prism {

enum class TypeKind : int { kUnknown = 0, kTensor, kSequence, kOptional, kMap, kSparseTensor };

// The static type of a graph value: tensor(T), seq(tensor(T)), optional(tensor(T)),
// map(K, tensor(V)), seq(map(K, tensor(V))), ...
struct ValueType {
  TypeKind kind = TypeKind::kUnknown;
  // The tensor element type: of the tensor, of a sequence's or optional's tensors, or of a map's
  // values (V).
  ElementType elem = ElementType::kUndefined;
  // optional: kTensor or kSequence (what it holds); sequence: kMap for seq(map(K, V)), otherwise
  // the sequence holds tensors.
  TypeKind inner = TypeKind::kUnknown;
  // map(K, V) and seq(map(K, V)): the key type K (int64 or string).
  ElementType key = ElementType::kUndefined;

  static ValueType Tensor(ElementType e) { return {TypeKind::kTensor, e, TypeKind::kUnknown}; }
  static ValueType Map(ElementType key_type, ElementType value_type) {
    return {TypeKind::kMap, value_type, TypeKind::kUnknown, key_type};
  }
  static ValueType SequenceOfMaps(ElementType key_type, ElementType value_type) {
    return {TypeKind::kSequence, value_type, TypeKind::kMap, key_type};
  }
  bool IsTensor() const { return kind == TypeKind::kTensor; }
  bool IsMap() const { return kind == TypeKind::kMap; }
  bool IsSequenceOfMaps() const { return kind == TypeKind::kSequence && inner == TypeKind::kMap; }
  bool operator==(const ValueType& o) const {
    return kind == o.kind && elem == o.elem && inner == o.inner && key == o.key;
  }
  // onnxruntime's spelling: "tensor(float)", "seq(tensor(int64))", "map(int64,tensor(float))",
  // "seq(map(string,tensor(float)))".
  std::string ToString() const;
};

struct TensorSequence {
  ElementType elem_type = ElementType::kUndefined;
  std::vector<Tensor> tensors;
};

// A map(K, V) value: keys[i] -> values[i], both 1-D CPU tensors of one length. The keys (int64 or
// string) are unique and ascending, as onnxruntime's std::map holds them; the values are float,
// double, int64 or string. Immutable once made; copies share the tensors.
struct TensorMap {
  Tensor keys;
  Tensor values;

  // A map of these pairs after checking them: 1-D, equal lengths, supported key and value types,
  // CPU memory. Keys already strictly ascending are used as they are (the tensors are shared);
  // otherwise the pairs are copied in key order, and of repeated keys the first pair is kept (as
  // onnxruntime's CreateValue does). Throws kInvalidArgument naming what is wrong.
  static TensorMap Make(const Tensor& keys, const Tensor& values);
  int64_t Size() const { return keys.NumElements(); }
  ElementType KeyType() const { return keys.Type(); }
  ElementType ValueElementType() const { return values.Type(); }
};

// seq(map(K, V)): the key and value types are stated so that an empty sequence has them too.
struct MapSequence {
  ElementType key_type = ElementType::kUndefined;
  ElementType value_type = ElementType::kUndefined;
  std::vector<TensorMap> maps;
};

// Key and value element types a map may have (onnxruntime's map types).
bool IsMapKeyType(ElementType type);
bool IsMapValueType(ElementType type);

class Value {
 public:
  Value() = default;  // an empty optional (or a value not yet produced)
  explicit Value(Tensor tensor) : kind_(TypeKind::kTensor), tensor_(std::move(tensor)) {}
  explicit Value(TensorSequence sequence)
      : kind_(TypeKind::kSequence),
        sequence_(std::make_shared<TensorSequence>(std::move(sequence))) {}
  // A map (made with TensorMap::Make).
  explicit Value(TensorMap map)
      : kind_(TypeKind::kMap), map_(std::make_shared<TensorMap>(std::move(map))) {}
  // A sequence of maps; every map must have the sequence's key and value types.
  explicit Value(MapSequence sequence);

  bool HasValue() const { return kind_ != TypeKind::kUnknown; }
  bool IsTensor() const { return kind_ == TypeKind::kTensor; }
  // Any sequence: of tensors (GetSequence) or of maps (GetMapSequence).
  bool IsSequence() const { return kind_ == TypeKind::kSequence; }
  bool IsMapSequence() const { return map_sequence_ != nullptr; }
  bool IsMap() const { return kind_ == TypeKind::kMap; }
  TypeKind Kind() const { return kind_; }
  // The value's own type (unknown for an empty optional).
  ValueType Type() const;

  const Tensor& GetTensor() const;
  Tensor& MutableTensor();
  // A sequence of tensors; throws naming the value for a sequence of maps.
  const TensorSequence& GetSequence() const;
  const TensorMap& GetMap() const;
  const MapSequence& GetMapSequence() const;
  std::string Describe() const;

 private:
  TypeKind kind_ = TypeKind::kUnknown;
  Tensor tensor_;
  std::shared_ptr<const TensorSequence> sequence_;
  std::shared_ptr<const TensorMap> map_;
  std::shared_ptr<const MapSequence> map_sequence_;
};

}  // namespace prism

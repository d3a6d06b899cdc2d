#include "framework/value.h"

#include <algorithm>
#include <cstring>
#include <numeric>

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

// "map(int64,tensor(float))": onnxruntime writes no space after the comma.
std::string MapTypeString(ElementType key, ElementType value) {
  return MakeString("map(", ElementTypeName(key), ",tensor(", ElementTypeName(value), "))");
}

template <typename K>
bool StrictlyAscending(const K* keys, int64_t count) {
  for (int64_t i = 1; i < count; ++i)
    if (!(keys[i - 1] < keys[i])) return false;
  return true;
}

// The positions of the pairs to keep, in key order: the first of each repeated key.
template <typename K>
std::vector<int64_t> KeyOrder(const K* keys, int64_t count) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  std::vector<int64_t> kept;
  for (int64_t position : order)
    if (kept.empty() || keys[kept.back()] < keys[position]) kept.push_back(position);
  return kept;
}

// A new CPU tensor holding source's elements at positions, in that order.
Tensor Gather(const Tensor& source, const std::vector<int64_t>& positions) {
  Tensor out(source.Type(), TensorShape({static_cast<int64_t>(positions.size())}),
             GetCpuAllocator());
  if (source.Type() == ElementType::kString) {
    const std::string* in = source.Data<std::string>();
    std::string* to = out.MutableData<std::string>();
    for (size_t i = 0; i < positions.size(); ++i) to[i] = in[positions[i]];
    return out;
  }
  const size_t width = StorageBytes(source.Type(), 1);
  const auto* in = static_cast<const unsigned char*>(source.RawData());
  auto* to = static_cast<unsigned char*>(out.MutableRawData());
  for (size_t i = 0; i < positions.size(); ++i)
    std::memcpy(to + i * width, in + static_cast<size_t>(positions[i]) * width, width);
  return out;
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
      return "seq(" + (inner == TypeKind::kMap ? MapTypeString(key, elem) : tensor) + ")";
    case TypeKind::kMap:
      return MapTypeString(key, elem);
    case TypeKind::kOptional: {
      const std::string held = key != ElementType::kUndefined ? MapTypeString(key, elem) : tensor;
      return MakeString("optional(", inner == TypeKind::kSequence ? "seq(" + held + ")" : held,
                        ")");
    }
    default:
      return KindName(kind);
  }
}

bool IsMapKeyType(ElementType type) {
  return type == ElementType::kInt64 || type == ElementType::kString;
}

bool IsMapValueType(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kDouble ||
         type == ElementType::kInt64 || type == ElementType::kString;
}

TensorMap TensorMap::Make(const Tensor& keys, const Tensor& values) {
  PRISM_ENFORCE(keys.IsValid() && values.IsValid(), kInvalidArgument,
                "a map needs a keys tensor and a values tensor");
  PRISM_ENFORCE(IsMapKeyType(keys.Type()), kInvalidArgument,
                "map keys must be int64 or string, got ", keys.Describe());
  PRISM_ENFORCE(IsMapValueType(values.Type()), kInvalidArgument,
                "map values must be float, double, int64 or string, got ", values.Describe());
  PRISM_ENFORCE(keys.Shape().Rank() == 1 && values.Shape().Rank() == 1, kInvalidArgument,
                "map keys and values must be 1-D tensors, got keys ", keys.Describe(),
                " and values ", values.Describe());
  PRISM_ENFORCE(keys.NumElements() == values.NumElements(), kInvalidArgument,
                "map keys and values must have the same length, got ", keys.NumElements(),
                " keys and ", values.NumElements(), " values");
  PRISM_ENFORCE(keys.Location().IsCpuAccessible() && values.Location().IsCpuAccessible(),
                kInvalidArgument, "maps live in CPU memory; got keys in ",
                keys.Location().ToString(), " and values in ", values.Location().ToString());
  const int64_t count = keys.NumElements();
  std::vector<int64_t> kept;
  if (keys.Type() == ElementType::kInt64) {
    if (StrictlyAscending(keys.Data<int64_t>(), count)) return TensorMap{keys, values};
    kept = KeyOrder(keys.Data<int64_t>(), count);
  } else {
    if (StrictlyAscending(keys.Data<std::string>(), count)) return TensorMap{keys, values};
    kept = KeyOrder(keys.Data<std::string>(), count);
  }
  return TensorMap{Gather(keys, kept), Gather(values, kept)};
}

Value::Value(MapSequence sequence) : kind_(TypeKind::kSequence) {
  PRISM_ENFORCE(IsMapKeyType(sequence.key_type) && IsMapValueType(sequence.value_type),
                kInvalidArgument,
                "a sequence of maps needs int64 or string keys and float, "
                "double, int64 or string values, got ",
                MapTypeString(sequence.key_type, sequence.value_type));
  for (size_t i = 0; i < sequence.maps.size(); ++i) {
    const TensorMap& map = sequence.maps[i];
    PRISM_ENFORCE(
        map.KeyType() == sequence.key_type && map.ValueElementType() == sequence.value_type,
        kInvalidArgument, "element ", i, " of a seq(",
        MapTypeString(sequence.key_type, sequence.value_type), ") is a ",
        MapTypeString(map.KeyType(), map.ValueElementType()));
  }
  map_sequence_ = std::make_shared<MapSequence>(std::move(sequence));
}

ValueType Value::Type() const {
  switch (kind_) {
    case TypeKind::kTensor:
      return ValueType::Tensor(tensor_.Type());
    case TypeKind::kSequence:
      if (map_sequence_)
        return ValueType::SequenceOfMaps(map_sequence_->key_type, map_sequence_->value_type);
      return ValueType{TypeKind::kSequence, sequence_->elem_type, TypeKind::kUnknown};
    case TypeKind::kMap:
      return ValueType::Map(map_->KeyType(), map_->ValueElementType());
    default:
      return ValueType{};
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
  PRISM_ENFORCE(kind_ == TypeKind::kSequence && sequence_ != nullptr, kInvalidArgument,
                "expected a sequence of tensors, got ", Describe());
  return *sequence_;
}

const TensorMap& Value::GetMap() const {
  PRISM_ENFORCE(kind_ == TypeKind::kMap, kInvalidArgument, "expected a map, got ", Describe());
  return *map_;
}

const MapSequence& Value::GetMapSequence() const {
  PRISM_ENFORCE(map_sequence_ != nullptr, kInvalidArgument, "expected a sequence of maps, got ",
                Describe());
  return *map_sequence_;
}

std::string Value::Describe() const {
  switch (kind_) {
    case TypeKind::kTensor:
      return tensor_.Describe();
    case TypeKind::kSequence:
      if (map_sequence_) return MakeString(Type().ToString(), " of ", map_sequence_->maps.size());
      return MakeString("seq(tensor(", ElementTypeName(sequence_->elem_type), ")) of ",
                        sequence_->tensors.size());
    case TypeKind::kMap:
      return MakeString(Type().ToString(), " of ", map_->Size());
    default:
      return "an empty optional";
  }
}

}  // namespace prism

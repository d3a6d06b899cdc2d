// Values: tensors over caller or library memory, string tensors, sequences, maps and optionals.
#include <algorithm>
#include <cstring>
#include <vector>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

namespace {

TensorShape MakeShape(const int64_t* shape, size_t shape_length) {
  if (shape_length > 0) Require(shape, "shape");
  return TensorShape(std::vector<int64_t>(shape, shape + shape_length));
}

const Tensor& TensorOf(const PrismValue& value) {
  PRISM_ENFORCE(value.value.IsTensor(), kInvalidArgument, "expected a tensor value, got ",
                value.value.Describe());
  return value.value.GetTensor();
}

void RequireSequence(const PrismValue& value) {
  PRISM_ENFORCE(value.value.IsSequence(), kInvalidArgument, "expected a sequence value, got ",
                value.value.Describe());
}

const TensorMap& MapOf(const PrismValue& value) {
  PRISM_ENFORCE(value.value.IsMap(), kInvalidArgument, "expected a map value, got ",
                value.value.Describe());
  return value.value.GetMap();
}

// The maps of a sequence: all of one key type and one value type.
Value MapSequenceOf(const PrismValue* const* elements, size_t count) {
  MapSequence sequence;
  for (size_t i = 0; i < count; ++i) {
    PRISM_ENFORCE(elements[i]->value.IsMap(), kInvalidArgument,
                  "a sequence holds tensors or maps, not both; elements[0] is a map, elements[", i,
                  "] is ", elements[i]->value.Describe());
    const TensorMap& map = elements[i]->value.GetMap();
    if (i == 0) {
      sequence.key_type = map.KeyType();
      sequence.value_type = map.ValueElementType();
    }
    PRISM_ENFORCE(
        map.KeyType() == sequence.key_type && map.ValueElementType() == sequence.value_type,
        kInvalidArgument, "sequence elements must share one type: elements[0] is ",
        elements[0]->value.Describe(), ", elements[", i, "] is ", elements[i]->value.Describe());
    sequence.maps.push_back(map);  // maps are immutable: the sequence shares them
  }
  return Value(std::move(sequence));
}

const Tensor& StringTensorOf(const PrismValue& value) {
  const Tensor& tensor = TensorOf(value);
  PRISM_ENFORCE(tensor.Type() == ElementType::kString, kInvalidArgument,
                "expected a string tensor, got ", tensor.Describe());
  return tensor;
}

void RejectStrings(const Tensor& tensor, const char* use_instead) {
  PRISM_ENFORCE(tensor.Type() != ElementType::kString, kInvalidArgument, tensor.Describe(),
                " holds std::string objects, not bytes: use ", use_instead);
}

}  // namespace

PrismStatus* CreateTensorWithDataAsValue(const PrismMemoryInfo* info, void* data,
                                         size_t data_length, const int64_t* shape,
                                         size_t shape_length, PrismElementType type,
                                         PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    Require(out, "out");
    *out = new PrismValue(Value(TensorOverCallerMemory(info->info, data, data_length, shape,
                                                       shape_length, EnumArgument(type))));
  });
}

PrismStatus* CreateTensorAsValue(PrismAllocator* allocator, const int64_t* shape,
                                 size_t shape_length, PrismElementType type,
                                 PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(allocator, "allocator");
    Require(out, "out");
    const ElementType element_type = CheckedElementType(EnumArgument(type));
    const MemoryInfo& location = allocator->allocator->Info();
    PRISM_ENFORCE(element_type != ElementType::kString || location.IsCpuAccessible(),
                  kInvalidArgument, "string tensors can only be allocated in CPU memory, not ",
                  location.ToString());
    Tensor tensor(element_type, MakeShape(shape, shape_length), allocator->allocator);
    // CPU tensors start zeroed so that reading before writing is deterministic.
    if (element_type != ElementType::kString && location.IsCpuAccessible() &&
        tensor.SizeInBytes() > 0)
      std::memset(tensor.MutableRawData(), 0, tensor.SizeInBytes());
    *out = new PrismValue(Value(std::move(tensor)));
  });
}

PrismStatus* CreateSequenceValue(const PrismValue* const* elements, size_t count,
                                 PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    if (count > 0) Require(elements, "elements");
    for (size_t i = 0; i < count; ++i)
      PRISM_ENFORCE(elements[i] != nullptr, kInvalidArgument, "elements[", i, "] is NULL");
    if (count > 0 && elements[0]->value.IsMap()) {
      *out = new PrismValue(MapSequenceOf(elements, count));
      return;
    }
    TensorSequence sequence;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(elements[i]->value.IsTensor(), kInvalidArgument,
                    "a sequence holds tensors or maps; elements[", i, "] is ",
                    elements[i]->value.Describe(), i > 0 ? " but elements[0] is a tensor" : "");
      const Tensor& tensor = elements[i]->value.GetTensor();
      if (i == 0) sequence.elem_type = tensor.Type();
      PRISM_ENFORCE(tensor.Type() == sequence.elem_type, kInvalidArgument,
                    "sequence elements must share one element type: elements[0] is ",
                    ElementTypeName(sequence.elem_type), ", elements[", i, "] is ",
                    ElementTypeName(tensor.Type()));
      sequence.tensors.push_back(tensor);  // shares the element's buffer
    }
    *out = new PrismValue(Value(std::move(sequence)));
  });
}

PrismStatus* CreateEmptyOptionalValue(PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    PrismValue** target = Require(out, "out");  // before allocating: NULL leaks nothing
    *target = new PrismValue(Value());
  });
}

void ReleaseValue(PrismValue* value) noexcept {
  delete value;
}

PrismStatus* GetValueKind(const PrismValue* value, PrismValueKind* out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    // A value without contents can only be an empty optional.
    *out = value->value.HasValue() ? ToValueKind(value->value.Kind()) : PRISM_VALUE_OPTIONAL;
  });
}

PrismStatus* ValueHasValue(const PrismValue* value, int* out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    *Require(out, "out") = value->value.HasValue() ? 1 : 0;
  });
}

PrismStatus* GetTensorMutableData(PrismValue* value, void** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    RejectStrings(TensorOf(*value), "GetStringTensorElement / FillStringTensor");
    Tensor& tensor = value->value.MutableTensor();
    *out = tensor.SizeInBytes() == 0 ? nullptr : tensor.MutableRawData();
  });
}

PrismStatus* GetTensorData(const PrismValue* value, const void** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    const Tensor& tensor = TensorOf(*value);
    RejectStrings(tensor, "GetStringTensorElement");
    *out = tensor.SizeInBytes() == 0 ? nullptr : tensor.RawData();
  });
}

PrismStatus* GetTensorSizeInBytes(const PrismValue* value, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    const Tensor& tensor = TensorOf(*value);
    RejectStrings(tensor, "GetTensorTypeAndShape for the element count");
    *out = tensor.SizeInBytes();
  });
}

PrismStatus* GetTensorTypeAndShape(const PrismValue* value,
                                   PrismTensorTypeAndShapeInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    const Tensor& tensor = TensorOf(*value);
    auto info = std::make_unique<PrismTensorTypeAndShapeInfo>();
    info->element_type = tensor.Type();
    info->has_shape = true;
    info->dims = tensor.Shape().Dims();
    info->symbols.assign(info->dims.size(), std::string());
    *out = info.release();
  });
}

PrismStatus* GetTensorMemoryInfo(const PrismValue* value, const PrismMemoryInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    TensorOf(*value);
    *out = &value->location;
  });
}

PrismValueDescription DescribeContents(const PrismValue& value) {
  PrismValueDescription description{};
  const Value& contents = value.value;
  description.has_value = contents.HasValue() ? 1 : 0;
  if (!contents.HasValue()) return description;
  description.kind = ToValueKind(contents.Kind());
  description.element_type = PRISM_TYPE_UNDEFINED;
  description.device_type = PRISM_DEVICE_CPU;
  if (!contents.IsTensor()) return description;
  const Tensor& tensor = contents.GetTensor();
  description.element_type = static_cast<PrismElementType>(tensor.Type());
  description.rank = tensor.Shape().Dims().size();
  if (tensor.Type() != ElementType::kString) {
    description.size_in_bytes = tensor.SizeInBytes();
    description.data = tensor.SizeInBytes() == 0 ? nullptr : tensor.RawData();
  }
  // Caller memory has no owner; an initializer's or another value's buffer has more than one.
  description.sole_owner = tensor.Buffer() != nullptr && tensor.Buffer().use_count() == 1;
  description.device_type = static_cast<PrismDeviceType>(value.location.info.device);
  return description;
}

Tensor TensorOverCallerMemory(const MemoryInfo& location, const void* data, size_t data_length,
                              const int64_t* shape, size_t shape_length, int type) {
  const ElementType element_type = CheckedElementType(type);
  PRISM_ENFORCE(element_type != ElementType::kString, kInvalidArgument,
                "string tensors cannot wrap caller memory: use CreateTensorAsValue and "
                "FillStringTensor");
  TensorShape tensor_shape = MakeShape(shape, shape_length);
  const size_t needed = StorageBytes(element_type, tensor_shape.Size());
  PRISM_ENFORCE(data_length >= needed, kInvalidArgument, "data_length ", data_length,
                " bytes is smaller than the ", needed, " bytes a tensor(",
                ElementTypeName(element_type), ")", tensor_shape.ToString(), " needs");
  if (needed > 0) Require(data, "data");
  // The library never writes a feed: the tensor is read-only in use, whatever its type says.
  return Tensor(element_type, std::move(tensor_shape), const_cast<void*>(data), location);
}

PrismStatus* DescribeValue(const PrismValue* value, int* has_value, PrismValueKind* kind,
                           PrismElementType* element_type, size_t* rank, int64_t* dims,
                           size_t dims_capacity, size_t* size_in_bytes, const void** data,
                           PrismDeviceType* device_type) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(has_value, "has_value");
    Require(kind, "kind");
    Require(element_type, "element_type");
    Require(rank, "rank");
    if (dims_capacity > 0) Require(dims, "dims");
    Require(size_in_bytes, "size_in_bytes");
    Require(data, "data");
    Require(device_type, "device_type");
    const PrismValueDescription description = DescribeContents(*value);
    *has_value = description.has_value;
    if (!description.has_value) return;
    *kind = description.kind;
    *element_type = description.element_type;
    *rank = description.rank;
    *size_in_bytes = description.size_in_bytes;
    *data = description.data;
    *device_type = description.device_type;
    if (value->value.IsTensor()) {
      const std::vector<int64_t>& shape = value->value.GetTensor().Shape().Dims();
      std::copy_n(shape.begin(), std::min(shape.size(), dims_capacity), dims);
    }
  });
}

PrismStatus* FillStringTensor(PrismValue* value, const char* const* strings, const size_t* lengths,
                              size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    const Tensor& tensor = StringTensorOf(*value);
    PRISM_ENFORCE(static_cast<uint64_t>(tensor.NumElements()) == count, kInvalidArgument, "count ",
                  count, " does not match the ", tensor.NumElements(), " elements of ",
                  tensor.Describe());
    if (count > 0) {
      Require(strings, "strings");
      Require(lengths, "lengths");
    }
    // Build every element first so that a failure leaves the tensor unchanged.
    std::vector<std::string> staged(count);
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(strings[i] != nullptr || lengths[i] == 0, kInvalidArgument, "strings[", i,
                    "] is NULL but lengths[", i, "] is ", lengths[i]);
      if (lengths[i] > 0) staged[i].assign(strings[i], lengths[i]);
    }
    auto* elements = value->value.MutableTensor().MutableData<std::string>();
    for (size_t i = 0; i < count; ++i) elements[i] = std::move(staged[i]);
  });
}

PrismStatus* GetStringTensorElement(const PrismValue* value, size_t index, const char** out,
                                    size_t* length) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    Require(length, "length");
    const Tensor& tensor = StringTensorOf(*value);
    PRISM_ENFORCE(index < static_cast<uint64_t>(tensor.NumElements()), kInvalidArgument,
                  "string index ", index, " is out of range for ", tensor.Describe());
    const std::string& element = tensor.Data<std::string>()[index];
    *out = element.data();
    *length = element.size();
  });
}

PrismStatus* GetSequenceLength(const PrismValue* value, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(out, "out");
    RequireSequence(*value);
    *out = value->value.IsMapSequence() ? value->value.GetMapSequence().maps.size()
                                        : value->value.GetSequence().tensors.size();
  });
}

PrismStatus* GetSequenceElement(const PrismValue* value, size_t index,
                                PrismValue** element) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    Require(element, "element");
    RequireSequence(*value);
    const size_t length = value->value.IsMapSequence() ? value->value.GetMapSequence().maps.size()
                                                       : value->value.GetSequence().tensors.size();
    PRISM_ENFORCE(index < length, kInvalidArgument, "sequence index ", index,
                  " is out of range: the sequence has ", length, " elements");
    *element = new PrismValue(value->value.IsMapSequence()
                                  ? Value(value->value.GetMapSequence().maps[index])
                                  : Value(value->value.GetSequence().tensors[index]));
  });
}

PrismStatus* CreateMapValue(const PrismValue* keys, const PrismValue* values,
                            PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(keys, "keys");
    Require(values, "values");
    Require(out, "out");
    const Tensor& key_tensor = TensorOf(*keys);
    const Tensor& value_tensor = TensorOf(*values);
    PRISM_ENFORCE(
        key_tensor.Location().IsCpuAccessible() && value_tensor.Location().IsCpuAccessible(),
        kInvalidArgument, "map keys and values must be CPU tensors, got keys in ",
        key_tensor.Location().ToString(), " and values in ", value_tensor.Location().ToString());
    // Checked first so that a bad pair is refused before anything is copied.
    TensorMap checked = TensorMap::Make(key_tensor, value_tensor);
    // The map owns its pairs: copies, so that the caller's buffers may change or go away.
    const bool shared = checked.keys.RawData() == key_tensor.RawData();
    *out = new PrismValue(
        Value(shared ? TensorMap{checked.keys.CloneToCpu(), checked.values.CloneToCpu()}
                     : std::move(checked)));
  });
}

PrismStatus* GetMapKeys(const PrismValue* value, PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    *Require(out, "out") = new PrismValue(Value(MapOf(*value).keys.CloneToCpu()));
  });
}

PrismStatus* GetMapValues(const PrismValue* value, PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(value, "value");
    *Require(out, "out") = new PrismValue(Value(MapOf(*value).values.CloneToCpu()));
  });
}

}  // namespace prism::capi

// Type information of graph inputs/outputs: kind, type string, element type and shape, map key
// and value types.
#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

std::unique_ptr<PrismTypeInfo> MakeTypeInfo(const ValueInfo& info) {
  auto type_info = std::make_unique<PrismTypeInfo>();
  type_info->type = info.type;
  type_info->type_string = info.type.ToString();
  // Tensors, sparse tensors, and the element of sequences/optionals have a tensor part; the
  // graph's shape belongs to the value itself, so only tensors (and optional tensors) carry it.
  // Maps have none, in sequences and optionals too (TypeInfoGetMapTypes describes them).
  const TypeKind kind = info.type.kind;
  const bool holds_maps = info.type.key != ElementType::kUndefined;
  const bool has_tensor_part =
      !holds_maps && (kind == TypeKind::kTensor || kind == TypeKind::kSparseTensor ||
                      kind == TypeKind::kSequence || kind == TypeKind::kOptional);
  if (has_tensor_part && info.type.elem != ElementType::kUndefined) {
    auto tensor = std::make_unique<PrismTensorTypeAndShapeInfo>();
    tensor->element_type = info.type.elem;
    const bool shaped = kind == TypeKind::kTensor || kind == TypeKind::kSparseTensor ||
                        (kind == TypeKind::kOptional && info.type.inner != TypeKind::kSequence);
    if (shaped && info.has_shape) {
      tensor->has_shape = true;
      for (const Dim& dim : info.shape) {
        tensor->dims.push_back(dim.IsKnown() ? dim.value : -1);
        tensor->symbols.push_back(dim.IsKnown() ? std::string() : dim.param);
      }
    }
    type_info->tensor = std::move(tensor);
  }
  return type_info;
}

void ReleaseTypeInfo(PrismTypeInfo* info) noexcept {
  delete info;
}

PrismStatus* TypeInfoGetKind(const PrismTypeInfo* info, PrismValueKind* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = ToValueKind(info->type.kind);
  });
}

PrismStatus* TypeInfoGetTypeString(const PrismTypeInfo* info, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = info->type_string.c_str();
  });
}

PrismStatus* TypeInfoGetTensorInfo(const PrismTypeInfo* info,
                                   const PrismTensorTypeAndShapeInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = info->tensor.get();
  });
}

PrismStatus* TypeInfoGetMapTypes(const PrismTypeInfo* info, PrismElementType* key_type,
                                 PrismElementType* value_type) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    Require(key_type, "key_type");
    Require(value_type, "value_type");
    const ValueType& type = info->type;
    PRISM_ENFORCE(type.IsMap() || type.IsSequenceOfMaps(), kInvalidArgument,
                  "expected a map or seq(map) type, got ", info->type_string);
    *key_type = static_cast<PrismElementType>(type.key);
    *value_type = static_cast<PrismElementType>(type.elem);
  });
}

void ReleaseTensorTypeAndShapeInfo(PrismTensorTypeAndShapeInfo* info) noexcept {
  delete info;
}

PrismStatus* TensorInfoGetElementType(const PrismTensorTypeAndShapeInfo* info,
                                      PrismElementType* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = static_cast<PrismElementType>(info->element_type);
  });
}

PrismStatus* TensorInfoGetRank(const PrismTensorTypeAndShapeInfo* info, int64_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = info->has_shape ? static_cast<int64_t>(info->dims.size()) : -1;
  });
}

PrismStatus* TensorInfoGetDimensions(const PrismTensorTypeAndShapeInfo* info, int64_t* dims,
                                     size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    PRISM_ENFORCE(info->has_shape, kInvalidArgument,
                  "the rank is unknown (TensorInfoGetRank returned -1): there are no dimensions");
    PRISM_ENFORCE(count == info->dims.size(), kInvalidArgument, "count must equal the rank ",
                  info->dims.size(), ", got ", count);
    if (count > 0) Require(dims, "dims");
    for (size_t i = 0; i < count; ++i) dims[i] = info->dims[i];
  });
}

PrismStatus* TensorInfoGetSymbolicDimensions(const PrismTensorTypeAndShapeInfo* info,
                                             const char** names, size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    PRISM_ENFORCE(info->has_shape, kInvalidArgument,
                  "the rank is unknown (TensorInfoGetRank returned -1): there are no dimensions");
    PRISM_ENFORCE(count == info->symbols.size(), kInvalidArgument, "count must equal the rank ",
                  info->symbols.size(), ", got ", count);
    if (count > 0) Require(names, "names");
    for (size_t i = 0; i < count; ++i) names[i] = info->symbols[i].c_str();
  });
}

PrismStatus* TensorInfoGetElementCount(const PrismTensorTypeAndShapeInfo* info,
                                       int64_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    Require(out, "out");
    int64_t count = info->has_shape ? 1 : -1;
    for (int64_t dim : info->dims) {
      if (dim < 0) {
        count = -1;
        break;
      }
      // Graph shapes are not validated like run-time shapes: refuse to overflow.
      PRISM_ENFORCE(dim == 0 || count <= INT64_MAX / dim, kInvalidArgument,
                    "the element count overflows int64");
      count *= dim;
    }
    *out = count;
  });
}

}  // namespace prism::capi

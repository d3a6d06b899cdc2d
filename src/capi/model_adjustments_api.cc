// Session options that change the model as a session loads it (version 7): free dimension
// overrides, initializers and external data from the application's memory.
#include <string>

#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {
namespace {

PrismStatus* AddDimensionOverride(const char* function, PrismSessionOptions* options,
                                  const char* identifier, const char* argument,
                                  FreeDimensionOverride::Kind kind, int64_t value) {
  return Guard(function, [&] {
    Require(options, "options");
    Require(identifier, argument);
    PRISM_ENFORCE(*identifier != '\0', kInvalidArgument, function, ": ", argument,
                  " must not be empty");
    PRISM_ENFORCE(value >= 0, kInvalidArgument, function, ": the value for ", argument, " '",
                  identifier, "' must be >= 0, got ", value);
    options->options.model_adjustments.SetFreeDimensionOverride(kind, identifier, value);
  });
}

// The tensor an initializer is supplied with: the value's own (sharing its memory).
const Tensor& SuppliedTensor(const char* function, const std::string& name,
                             const PrismValue* value) {
  PRISM_ENFORCE(value != nullptr, kInvalidArgument, function, ": the value for initializer '", name,
                "' is NULL");
  PRISM_ENFORCE(value->value.IsTensor(), kInvalidArgument, function, ": initializer '", name,
                "' must be given a tensor, got ", value->value.Describe());
  const Tensor& tensor = value->value.GetTensor();
  PRISM_ENFORCE(tensor.Location().IsCpuAccessible(), kInvalidArgument, function, ": initializer '",
                name, "' must be given a tensor in CPU memory, got one in ",
                tensor.Location().ToString(), " memory");
  return tensor;
}

}  // namespace

PrismStatus* AddFreeDimensionOverride(PrismSessionOptions* options, const char* dim_denotation,
                                      int64_t dim_value) noexcept {
  return AddDimensionOverride(__func__, options, dim_denotation, "dim_denotation",
                              FreeDimensionOverride::Kind::kDenotation, dim_value);
}

PrismStatus* AddFreeDimensionOverrideByName(PrismSessionOptions* options, const char* dim_name,
                                            int64_t dim_value) noexcept {
  return AddDimensionOverride(__func__, options, dim_name, "dim_name",
                              FreeDimensionOverride::Kind::kName, dim_value);
}

PrismStatus* AddInitializer(PrismSessionOptions* options, const char* name,
                            const PrismValue* value) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(name, "name");
    Require(value, "value");
    PRISM_ENFORCE(*name != '\0', kInvalidArgument, "AddInitializer: name must not be empty");
    const Tensor& tensor = SuppliedTensor("AddInitializer", name, value);
    options->options.model_adjustments.initializers.insert_or_assign(name, tensor);
  });
}

PrismStatus* AddExternalInitializers(PrismSessionOptions* options, const char* const* names,
                                     const PrismValue* const* values, size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    if (count > 0) {
      Require(names, "names");
      Require(values, "values");
    }
    // Every entry is checked before any is stored: a failed call changes nothing.
    std::map<std::string, Tensor> supplied;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(names[i] != nullptr && *names[i] != '\0', kInvalidArgument,
                    "AddExternalInitializers: names[", i, "] is ",
                    names[i] == nullptr ? "NULL" : "empty");
      supplied.insert_or_assign(names[i],
                                SuppliedTensor("AddExternalInitializers", names[i], values[i]));
    }
    for (auto& [name, tensor] : supplied)
      options->options.model_adjustments.external_initializers.insert_or_assign(name, tensor);
  });
}

PrismStatus* AddExternalInitializersFromFilesInMemory(PrismSessionOptions* options,
                                                      const char* const* file_names,
                                                      const void* const* buffers,
                                                      const size_t* lengths,
                                                      size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    if (count > 0) {
      Require(file_names, "file_names");
      Require(buffers, "buffers");
      Require(lengths, "lengths");
    }
    std::map<std::string, ExternalFileInMemory> files;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(file_names[i] != nullptr && *file_names[i] != '\0', kInvalidArgument,
                    "AddExternalInitializersFromFilesInMemory: file_names[", i, "] is ",
                    file_names[i] == nullptr ? "NULL" : "empty");
      PRISM_ENFORCE(buffers[i] != nullptr || lengths[i] == 0, kInvalidArgument,
                    "AddExternalInitializersFromFilesInMemory: buffers[", i, "] (file '",
                    file_names[i], "') is NULL but lengths[", i, "] is ", lengths[i]);
      files.insert_or_assign(file_names[i], ExternalFileInMemory{buffers[i], lengths[i]});
    }
    for (auto& [name, file] : files)
      options->options.model_adjustments.external_files.insert_or_assign(name, file);
  });
}

}  // namespace prism::capi

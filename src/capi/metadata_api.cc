// Model metadata: producer, graph name and description, version and custom properties.
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

void ReleaseModelMetadata(PrismModelMetadata* metadata) noexcept {
  delete metadata;
}

PrismStatus* ModelMetadataGetProducerName(const PrismModelMetadata* m, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.producer_name.c_str();
  });
}

PrismStatus* ModelMetadataGetGraphName(const PrismModelMetadata* m, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.graph_name.c_str();
  });
}

PrismStatus* ModelMetadataGetDomain(const PrismModelMetadata* m, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.domain.c_str();
  });
}

PrismStatus* ModelMetadataGetDescription(const PrismModelMetadata* m, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.description.c_str();
  });
}

PrismStatus* ModelMetadataGetGraphDescription(const PrismModelMetadata* m,
                                              const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.graph_description.c_str();
  });
}

PrismStatus* ModelMetadataGetVersion(const PrismModelMetadata* m, int64_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->metadata.version;
  });
}

PrismStatus* ModelMetadataGetCustomMetadataCount(const PrismModelMetadata* m,
                                                 size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    *Require(out, "out") = m->custom.size();
  });
}

PrismStatus* ModelMetadataGetCustomMetadata(const PrismModelMetadata* m, size_t index,
                                            const char** key, const char** value) noexcept {
  return Guard(__func__, [&] {
    Require(m, "m");
    Require(key, "key");
    Require(value, "value");
    PRISM_ENFORCE(index < m->custom.size(), kInvalidArgument, "custom metadata index ", index,
                  " is out of range: the model has ", m->custom.size(), " entries");
    *key = m->custom[index].first.c_str();
    *value = m->custom[index].second.c_str();
  });
}

}  // namespace prism::capi

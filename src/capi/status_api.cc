// Status objects and the strings the library hands out.
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

PrismErrorCode GetErrorCode(const PrismStatus* status) noexcept {
  return status == nullptr ? PRISM_OK : status->code;
}

const char* GetErrorMessage(const PrismStatus* status) noexcept {
  return status == nullptr ? "" : status->message.c_str();
}

void ReleaseStatus(PrismStatus* status) noexcept {
  if (status != nullptr && !status->is_static) delete status;
}

void ReleaseString(char* text) noexcept {
  delete[] text;
}

void ReleaseStringArray(char** texts, size_t count) noexcept {
  FreeCStringArray(texts, count);
}

}  // namespace prism::capi

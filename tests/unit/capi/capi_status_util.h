// Shared by the C ABI unit tests: a status read into (code, message) and released.
#pragma once

#include <string>
#include <utility>

#include "prism/prism_c_api.h"

namespace prism::testing {

// The status's code and message (and releases it through api); PRISM_OK and "" for success.
inline std::pair<PrismErrorCode, std::string> TakeStatus(const PrismApi& api, PrismStatus* status) {
  if (status == nullptr) return {PRISM_OK, ""};
  std::pair<PrismErrorCode, std::string> result{api.GetErrorCode(status),
                                                api.GetErrorMessage(status)};
  api.ReleaseStatus(status);
  return result;
}

}  // namespace prism::testing

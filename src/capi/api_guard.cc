#include "capi/api_guard.h"

#include <cstring>
#include <memory>

#include "capi/api_objects.h"

namespace prism::capi {

namespace {

// Handed out when a status cannot be allocated; ReleaseStatus leaves it alone.
PrismStatus* OutOfMemoryStatus() noexcept {
  static PrismStatus status{PRISM_RUNTIME_EXCEPTION, "out of memory", true};
  return &status;
}

}  // namespace

PrismStatus* MakeStatus(PrismErrorCode code, const std::string& message) noexcept {
  try {
    return new PrismStatus{code, message, false};
  } catch (...) {
    return OutOfMemoryStatus();
  }
}

PrismStatus* MakeNullArgumentStatus(const char* function, const char* argument) noexcept {
  try {
    return MakeStatus(PRISM_INVALID_ARGUMENT,
                      MakeString(function, ": argument '", argument, "' is NULL"));
  } catch (...) {
    return OutOfMemoryStatus();
  }
}

char* CopyToCString(const std::string& text) {
  auto* copy = new char[text.size() + 1];
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

void CopyToCStringArray(const std::vector<std::string>& texts, char*** out, size_t* count) {
  auto array = std::make_unique<char*[]>(texts.size() + 1);  // never zero-sized
  size_t made = 0;
  try {
    for (; made < texts.size(); ++made) array[made] = CopyToCString(texts[made]);
  } catch (...) {
    for (size_t i = 0; i < made; ++i) delete[] array[i];
    throw;
  }
  *out = array.release();
  *count = texts.size();
}

void FreeCStringArray(char** texts, size_t count) noexcept {
  if (texts == nullptr) return;
  for (size_t i = 0; i < count; ++i) delete[] texts[i];
  delete[] texts;
}

void CopyKeyValueArrays(const std::vector<std::string>& key_list,
                        const std::vector<std::string>& value_list, char*** keys, char*** values,
                        size_t* count) {
  char** key_array = nullptr;
  size_t key_count = 0;
  CopyToCStringArray(key_list, &key_array, &key_count);
  try {
    CopyToCStringArray(value_list, values, count);
  } catch (...) {
    FreeCStringArray(key_array, key_count);
    throw;
  }
  *keys = key_array;
}

void CopyNamedCounts(const std::vector<std::pair<std::string, int64_t>>& entries, char*** keys,
                     char*** values, size_t* count) {
  std::vector<std::string> key_list, value_list;
  for (const auto& [key, value] : entries) {
    key_list.push_back(key);
    value_list.push_back(std::to_string(value));
  }
  CopyKeyValueArrays(key_list, value_list, keys, values, count);
}

}  // namespace prism::capi

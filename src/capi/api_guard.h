// The exception barrier of the C API: every entry point runs its body through Guard, which turns
// any C++ exception into a PrismStatus so that nothing unwinds across the ABI.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "prism/prism_c_api.h"

namespace prism::capi {

// Thrown by Require for a NULL argument; Guard names the function in the message.
struct NullArgument {
  const char* argument;
};

// A new status, or a preallocated out-of-memory status when even that allocation fails.
PrismStatus* MakeStatus(PrismErrorCode code, const std::string& message) noexcept;
PrismStatus* MakeNullArgumentStatus(const char* function, const char* argument) noexcept;

template <typename Fn>
PrismStatus* Guard(const char* function, Fn&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const NullArgument& e) {
    return MakeNullArgumentStatus(function, e.argument);
  } catch (const Exception& e) {
    return MakeStatus(static_cast<PrismErrorCode>(e.Code()), e.what());
  } catch (const std::bad_alloc&) {
    return MakeStatus(PRISM_RUNTIME_EXCEPTION, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return MakeStatus(PRISM_RUNTIME_EXCEPTION, e.what());
  } catch (...) {
    return MakeStatus(PRISM_RUNTIME_EXCEPTION, std::string(function) + ": unknown exception");
  }
}

// Returns pointer, or throws NullArgument naming it.
template <typename T>
T* Require(T* pointer, const char* argument) {
  if (pointer == nullptr) throw NullArgument{argument};
  return pointer;
}

// Strings handed to the caller: released with ReleaseString / ReleaseStringArray.
char* CopyToCString(const std::string& text);
// *out receives count strings, all allocated before anything is stored (no partial results).
void CopyToCStringArray(const std::vector<std::string>& texts, char*** out, size_t* count);
void FreeCStringArray(char** texts, size_t count) noexcept;
// keys/values out-parameters (two string arrays [out, owned] ReleaseStringArray(count)) from
// equally long lists; nothing is left allocated when it throws.
void CopyKeyValueArrays(const std::vector<std::string>& key_list,
                        const std::vector<std::string>& value_list, char*** keys, char*** values,
                        size_t* count);
// The same for the *Stats functions, from (name, number) pairs.
void CopyNamedCounts(const std::vector<std::pair<std::string, int64_t>>& entries, char*** keys,
                     char*** values, size_t* count);

}  // namespace prism::capi

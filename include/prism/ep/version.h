// The version of Prism's C++ interface for execution providers (the headers in prism/ep/).
// A plugin states the version and the compiler ABI it was built with in its descriptor
// (prism/ep/plugin.h); Prism loads it only when both match its own.
#pragma once

#include <cstdint>

namespace prism::ep {

// Raised on any change to these headers that a plugin must be rebuilt for.
constexpr uint32_t kEpSdkVersion = 1;

// The C++ ABI the plugin was compiled for: these headers pass std::string, std::vector and
// exceptions across the library boundary, so plugin and Prism must agree on them.
#if defined(__GXX_ABI_VERSION)
constexpr uint32_t kCompilerAbiVersion = __GXX_ABI_VERSION;
#else
constexpr uint32_t kCompilerAbiVersion = 0;
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI)
constexpr uint32_t kStdStringAbi = _GLIBCXX_USE_CXX11_ABI;
#else
constexpr uint32_t kStdStringAbi = 0;
#endif

}  // namespace prism::ep

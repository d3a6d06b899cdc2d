// Finds EP factories: the built-in CPU EP, and plugin EPs loaded from
// libprism_provider_<short>.so with dlopen the first time a session asks for them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/execution_provider.h"

namespace prism {

// The factory for a provider name in onnxruntime's spelling, or nullptr with *why explaining
// (library missing, device missing, unknown name). library_dir is searched first when set, then
// $PRISM_PROVIDER_PATH, then the folder of libprism_core.so.
std::shared_ptr<IExecutionProviderFactory> FindProviderFactory(const std::string& name,
                                                               const std::string& library_dir,
                                                               std::string* why);

// Names of EPs whose library loads and whose device exists, best first, CPU last (hidden test
// EPs excluded), as onnxruntime's get_available_providers().
std::vector<std::string> AvailableProviders();

// Every provider name Prism knows, available or not.
std::vector<std::string> KnownProviders();

}  // namespace prism

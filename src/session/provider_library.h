// Finds EP factories by name. Built-in EPs (the CPU EP) register a factory when the library
// loads; plugin EPs are found by file name, libprism_provider_<anything>.so, on the search path,
// and say their name and interface version in an exported PrismProviderDescriptor. The core
// holds no list of provider names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/execution_provider.h"

namespace prism {

// Called at load time by built-in EPs (a static registrar in their translation unit).
void RegisterBuiltinProvider(std::shared_ptr<IExecutionProviderFactory> factory);

// The search path for plugins, in order: library_dir when set, each folder of
// $PRISM_PROVIDER_PATH (':'-separated), then the folder of libprism_core.so.
std::vector<std::string> ProviderSearchPath(const std::string& library_dir);

// The factory for a provider name in onnxruntime's spelling, or nullptr with *why explaining
// (no plugin of that name found, a plugin built for another interface version, device missing).
// Built-in EPs come first, then the first plugin of that name on the search path.
std::shared_ptr<IExecutionProviderFactory> FindProviderFactory(const std::string& name,
                                                               const std::string& library_dir,
                                                               std::string* why);

// Names of the EPs found that can run here (library loads, device present, listed), plugins in
// search-path and file-name order, built-in EPs (the CPU EP) last, as onnxruntime's
// get_available_providers().
std::vector<std::string> AvailableProviders(const std::string& library_dir = "");

// Opens every plugin on the search path once (dlopen and factory, no device check), as the first
// lookup would. A process that forks children which create sessions (the conformance runner's
// isolated tests) calls it first, so that each child finds the plugins already loaded instead of
// loading them again (the CUDA plugin's libraries alone take over 100 ms).
void OpenProviderPlugins(const std::string& library_dir = "");

}  // namespace prism

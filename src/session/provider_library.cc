#include "session/provider_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "common/logging.h"
#include "providers/cpu/cpu_execution_provider.h"

namespace prism {
namespace {

struct PluginName {
  const char* provider;
  const char* library_stem;
};

// Provider names with onnxruntime's spelling and the plugin that implements each.
constexpr PluginName kPlugins[] = {
    {"CUDAExecutionProvider", "cuda"},
    {"DnnlExecutionProvider", "dnnl"},
    {"TestExecutionProvider", "test"},
};

std::string CoreLibraryDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&CoreLibraryDirectory), &info) == 0 || !info.dli_fname)
    return ".";
  std::string path = info.dli_fname;
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

struct LoadedPlugin {
  std::shared_ptr<IExecutionProviderFactory> factory;
  std::string error;
};

std::mutex& PluginMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, LoadedPlugin>& PluginCache() {
  static std::map<std::string, LoadedPlugin> cache;
  return cache;
}

LoadedPlugin LoadPlugin(const std::string& stem, const std::string& library_dir) {
  const std::string file = "libprism_provider_" + stem + ".so";
  std::vector<std::string> directories;
  if (!library_dir.empty()) directories.push_back(library_dir);
  if (const char* env = std::getenv("PRISM_PROVIDER_PATH"); env && *env) directories.push_back(env);
  directories.push_back(CoreLibraryDirectory());
  std::string errors;
  for (const std::string& dir : directories) {
    const std::string path = dir + "/" + file;
    // The library stays loaded for the life of the process: kernels and allocators it created
    // may outlive any one session.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      errors += MakeString(errors.empty() ? "" : "; ", error ? error : path);
      continue;
    }
    auto create =
        reinterpret_cast<PrismCreateProviderFactoryFn>(dlsym(handle, "PrismCreateProviderFactory"));
    if (create == nullptr) return {nullptr, path + " does not export PrismCreateProviderFactory"};
    return {std::shared_ptr<IExecutionProviderFactory>(create()), ""};
  }
  return {nullptr, errors};
}

}  // namespace

std::shared_ptr<IExecutionProviderFactory> FindProviderFactory(const std::string& name,
                                                               const std::string& library_dir,
                                                               std::string* why) {
  if (name == kCpuExecutionProvider) return std::make_shared<CpuExecutionProviderFactory>();
  const char* stem = nullptr;
  for (const PluginName& plugin : kPlugins)
    if (name == plugin.provider) stem = plugin.library_stem;
  if (stem == nullptr) {
    if (why) *why = MakeString("unknown execution provider '", name, "'");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(PluginMutex());
  const std::string key = library_dir + "|" + stem;
  auto it = PluginCache().find(key);
  if (it == PluginCache().end())
    it = PluginCache().emplace(key, LoadPlugin(stem, library_dir)).first;
  const LoadedPlugin& plugin = it->second;
  if (!plugin.factory) {
    if (why) *why = MakeString(name, " library could not be loaded: ", plugin.error);
    return nullptr;
  }
  std::string device_error;
  if (!plugin.factory->IsAvailable(&device_error)) {
    if (why) *why = MakeString(name, " is not available: ", device_error);
    return nullptr;
  }
  return plugin.factory;
}

std::vector<std::string> AvailableProviders() {
  std::vector<std::string> names;
  for (const PluginName& plugin : kPlugins) {
    auto factory = FindProviderFactory(plugin.provider, "", nullptr);
    if (factory && factory->IsListed()) names.push_back(plugin.provider);
  }
  names.push_back(kCpuExecutionProvider);
  return names;
}

std::vector<std::string> KnownProviders() {
  std::vector<std::string> names;
  for (const PluginName& plugin : kPlugins) names.push_back(plugin.provider);
  names.push_back(kCpuExecutionProvider);
  return names;
}

}  // namespace prism

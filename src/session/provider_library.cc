#include "session/provider_library.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "common/logging.h"
#include "framework/ep_sdk/sdk_provider.h"

namespace prism {
namespace {

constexpr const char* kPluginPrefix = "libprism_provider_";
constexpr const char* kPluginSuffix = ".so";

std::mutex& RegistryMutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::shared_ptr<IExecutionProviderFactory>>& Builtins() {
  static std::vector<std::shared_ptr<IExecutionProviderFactory>> builtins;
  return builtins;
}

// One plugin file, opened once per process: the library stays loaded for the life of the
// process, since kernels and allocators it created may outlive any one session.
struct PluginFile {
  std::string path;
  std::string name;  // from the descriptor; set whenever the descriptor could be read
  std::shared_ptr<IExecutionProviderFactory> factory;  // null when unusable
  std::string error;                                   // why unusable
};

std::map<std::string, PluginFile>& PluginFiles() {
  static std::map<std::string, PluginFile> files;
  return files;
}

std::string CoreLibraryDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&CoreLibraryDirectory), &info) == 0 || !info.dli_fname)
    return ".";
  std::string path = info.dli_fname;
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// A plugin written against the public EP SDK (include/prism/ep/): it exports
// PrismGetEpPluginDescriptor instead of the internal interface's descriptor.
PluginFile OpenSdkPlugin(void* handle, PluginFile file) {
  auto get_descriptor =
      reinterpret_cast<PrismGetEpPluginDescriptorFn>(dlsym(handle, "PrismGetEpPluginDescriptor"));
  const PrismEpPluginDescriptor* descriptor = get_descriptor ? get_descriptor() : nullptr;
  if (descriptor == nullptr) {
    file.error =
        "exports neither PrismGetProviderDescriptor nor PrismGetEpPluginDescriptor (not a Prism "
        "provider plugin)";
    return file;
  }
  file.name = descriptor->name ? descriptor->name : "";
  std::string error;
  std::unique_ptr<IExecutionProviderFactory> factory =
      ep_sdk::FactoryFromDescriptor(*descriptor, &error);
  if (!factory) {
    file.error = error;
    return file;
  }
  if (factory->Name() != file.name) {
    file.error = MakeString("descriptor names '", file.name, "' but its factory names '",
                            factory->Name(), "'");
    return file;
  }
  file.factory = std::move(factory);
  return file;
}

PluginFile OpenPlugin(const std::string& path) {
  PluginFile file;
  file.path = path;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    file.error = MakeString("cannot be loaded: ", error ? error : "unknown dlopen error");
    return file;
  }
  auto get_descriptor =
      reinterpret_cast<PrismGetProviderDescriptorFn>(dlsym(handle, "PrismGetProviderDescriptor"));
  const PrismProviderDescriptor* descriptor = get_descriptor ? get_descriptor() : nullptr;
  if (descriptor == nullptr) return OpenSdkPlugin(handle, std::move(file));
  file.name = descriptor->name ? descriptor->name : "";
  if (descriptor->interface_version != kProviderInterfaceVersion) {
    file.error = MakeString("was built for provider interface version ",
                            descriptor->interface_version, ", this Prism needs version ",
                            kProviderInterfaceVersion, "; rebuild the plugin against this release");
    return file;
  }
  if (file.name.empty() || descriptor->create_factory == nullptr) {
    file.error = "has a descriptor without a name or factory function";
    return file;
  }
  file.factory.reset(descriptor->create_factory());
  if (!file.factory)
    file.error = "returned no factory";
  else if (file.factory->Name() != file.name)
    file.error = MakeString("descriptor names '", file.name, "' but its factory names '",
                            file.factory->Name(), "'");
  if (!file.error.empty()) file.factory.reset();
  return file;
}

// The plugin files of one folder, in file-name order, each opened once (caller holds the lock).
std::vector<const PluginFile*> PluginsIn(const std::string& dir) {
  std::vector<std::string> paths;
  if (DIR* stream = opendir(dir.c_str())) {
    while (const dirent* entry = readdir(stream)) {
      const std::string file = entry->d_name;
      const size_t prefix = std::char_traits<char>::length(kPluginPrefix);
      const size_t suffix = std::char_traits<char>::length(kPluginSuffix);
      if (file.size() > prefix + suffix && file.compare(0, prefix, kPluginPrefix) == 0 &&
          file.compare(file.size() - suffix, suffix, kPluginSuffix) == 0)
        paths.push_back(dir + "/" + file);
    }
    closedir(stream);
  }
  std::sort(paths.begin(), paths.end());
  std::vector<const PluginFile*> plugins;
  for (const std::string& path : paths) {
    auto it = PluginFiles().find(path);
    if (it == PluginFiles().end()) it = PluginFiles().emplace(path, OpenPlugin(path)).first;
    plugins.push_back(&it->second);
  }
  return plugins;
}

}  // namespace

void RegisterBuiltinProvider(std::shared_ptr<IExecutionProviderFactory> factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Builtins().push_back(std::move(factory));
}

std::vector<std::string> ProviderSearchPath(const std::string& library_dir) {
  std::vector<std::string> directories;
  if (!library_dir.empty()) directories.push_back(library_dir);
  if (const char* env = std::getenv("PRISM_PROVIDER_PATH"); env && *env) {
    std::string path = env;
    size_t start = 0;
    while (start <= path.size()) {
      const size_t colon = std::min(path.find(':', start), path.size());
      if (colon > start) directories.push_back(path.substr(start, colon - start));
      start = colon + 1;
    }
  }
  directories.push_back(CoreLibraryDirectory());
  return directories;
}

std::shared_ptr<IExecutionProviderFactory> FindProviderFactory(const std::string& name,
                                                               const std::string& library_dir,
                                                               std::string* why) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  for (const auto& builtin : Builtins())
    if (builtin->Name() == name) return builtin;
  const std::vector<std::string> directories = ProviderSearchPath(library_dir);
  std::string found;  // usable plugins seen, for the message
  for (const std::string& dir : directories) {
    for (const PluginFile* plugin : PluginsIn(dir)) {
      if (plugin->name != name) {
        if (plugin->factory) found += MakeString(found.empty() ? "" : ", ", plugin->name);
        continue;
      }
      if (!plugin->factory) {
        if (why) *why = MakeString(name, " plugin ", plugin->path, " ", plugin->error);
        return nullptr;
      }
      std::string device_error;
      if (!plugin->factory->IsAvailable(&device_error)) {
        if (why) *why = MakeString(name, " is not available: ", device_error);
        return nullptr;
      }
      return plugin->factory;
    }
  }
  if (why) {
    std::string searched;
    for (const std::string& dir : directories)
      searched += MakeString(searched.empty() ? "" : ", ", dir);
    *why = MakeString("unknown execution provider '", name, "': no ", kPluginPrefix, "*",
                      kPluginSuffix, " plugin of that name in ", searched,
                      found.empty() ? "" : MakeString(" (plugins found: ", found, ")"));
  }
  return nullptr;
}

std::vector<std::string> AvailableProviders(const std::string& library_dir) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::vector<std::string> names;
  auto add = [&](const std::shared_ptr<IExecutionProviderFactory>& factory) {
    std::string ignored;
    if (factory && factory->IsListed() && factory->IsAvailable(&ignored) &&
        std::find(names.begin(), names.end(), factory->Name()) == names.end())
      names.push_back(factory->Name());
  };
  for (const std::string& dir : ProviderSearchPath(library_dir))
    for (const PluginFile* plugin : PluginsIn(dir)) add(plugin->factory);
  for (const auto& builtin : Builtins()) add(builtin);
  return names;
}

void OpenProviderPlugins(const std::string& library_dir) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  for (const std::string& dir : ProviderSearchPath(library_dir)) PluginsIn(dir);
}

}  // namespace prism

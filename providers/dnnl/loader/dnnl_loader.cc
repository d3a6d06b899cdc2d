// libprism_provider_dnnl.so: the plugin the core finds. It depends on neither oneDNN nor OpenMP;
// its factory opens the EP itself, libprism_dnnl_ep.so (next to this library), which does.
//
// Why two libraries: oneDNN's CPU runtime here is OpenMP (libgomp), and libgomp reads its wait
// policy once, when it is loaded. Its default lets idle worker threads spin, which on a machine
// where other processes keep a core busy makes every parallel region wait for a spinning thread
// that has lost its core (a ResNet-50 run with 2 threads: 40 ms passive, 0.2-1 s spinning). So,
// unless the user chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT is set) or libgomp is already
// loaded, the loader sets OMP_WAIT_POLICY=PASSIVE while libgomp loads and restores the
// environment afterwards. Passive workers sleep as soon as a parallel region ends, so an idle
// session burns no CPU either.
//
// When the EP library cannot be loaded (no libdnnl.so.2 on the machine, say), the factory says
// the EP is unavailable and why, with the dlopen error: get_available_providers() leaves it out
// and a session asking for it logs (or, with session.fail_on_unavailable_provider, fails with)
// that message.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "framework/execution_provider.h"

namespace {

constexpr const char* kName = "DnnlExecutionProvider";
constexpr const char* kImplementation = "libprism_dnnl_ep.so";

std::string ThisLibraryFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ThisLibraryFolder), &info) == 0 || !info.dli_fname)
    return ".";
  const std::string path = info.dli_fname;
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

class UnavailableFactory final : public prism::IExecutionProviderFactory {
 public:
  explicit UnavailableFactory(std::string why) : why_(std::move(why)) {}
  std::string Name() const override { return kName; }
  bool IsAvailable(std::string* why) const override {
    if (why) *why = why_;
    return false;
  }
  std::unique_ptr<prism::IExecutionProvider> Create(const prism::ProviderOptions&) const override {
    return nullptr;
  }

 private:
  std::string why_;
};

using CreateFactoryFn = prism::IExecutionProviderFactory* (*)(uint32_t);

prism::IExecutionProviderFactory* CreateFactory() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string path = ThisLibraryFolder() + "/" + kImplementation;
  // OpenMP's wait policy: passive unless the user chose one or libgomp is already in use.
  bool set_policy = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (gomp != nullptr)
      dlclose(gomp);
    else
      set_policy = setenv("OMP_WAIT_POLICY", "PASSIVE", 0) == 0;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* error = handle == nullptr ? dlerror() : nullptr;
  if (set_policy) unsetenv("OMP_WAIT_POLICY");
  if (handle == nullptr)
    return new UnavailableFactory(std::string("the oneDNN EP library ") + path +
                                  " cannot be loaded: " + (error ? error : "unknown dlopen error"));
  auto create = reinterpret_cast<CreateFactoryFn>(dlsym(handle, "PrismDnnlCreateFactory"));
  prism::IExecutionProviderFactory* factory =
      create != nullptr ? create(prism::kProviderInterfaceVersion) : nullptr;
  if (factory == nullptr)
    return new UnavailableFactory(path + (create == nullptr
                                              ? " does not export PrismDnnlCreateFactory"
                                              : " was built for another provider interface"));
  return factory;  // the library stays loaded for the life of the process
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const PrismProviderDescriptor*
PrismGetProviderDescriptor() {
  static const PrismProviderDescriptor descriptor{prism::kProviderInterfaceVersion, kName,
                                                  &CreateFactory};
  return &descriptor;
}

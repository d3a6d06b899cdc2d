// Helpers shared by the session tests: the test EP's provider spec, access to the test EP
// plugin's allocation counters, and one-call session runs.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "graph/model.h"
#include "session/inference_session.h"

namespace prism::testing {

inline ProviderSpec TestEp(const std::string& ops) {
  return ProviderSpec{"TestExecutionProvider", {{"ops", ops}}};
}

// The folder of libprism_core.so: where InferenceSession looks for plugin EPs.
inline std::string CoreLibraryFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Model::LoadFromFile), &info) == 0 || !info.dli_fname)
    return ".";
  const std::string path = info.dli_fname;
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

inline std::string TestEpPluginPath() {
  return CoreLibraryFolder() + "/libprism_provider_test.so";
}

// A function the (already loaded) test EP plugin exports, or nullptr. RTLD_NOLOAD: tests look
// at the very instance the session loaded, never load a second one.
template <typename Fn>
Fn TestEpSymbol(const char* name) {
  void* handle = dlopen(TestEpPluginPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* symbol = dlsym(handle, name);
  dlclose(handle);  // drops only the reference NOLOAD added; the session's stays
  return reinterpret_cast<Fn>(symbol);
}

using CounterFn = int64_t (*)();
using ResetFn = void (*)();

// Creates a session over model bytes; fails the test (with a hint) when the plugin is missing.
inline std::unique_ptr<InferenceSession> MakeSession(const onnx::ModelProto& model,
                                                     std::vector<ProviderSpec> providers,
                                                     SessionOptions options = {}) {
  for (const ProviderSpec& spec : providers) {
    if (spec.name == "TestExecutionProvider") {
      EXPECT_TRUE(std::filesystem::exists(TestEpPluginPath()))
          << TestEpPluginPath() << " is missing: build the prism_provider_test target";
    }
  }
  auto session = std::make_unique<InferenceSession>(std::move(options), std::move(providers));
  const std::string bytes = Serialize(model);
  session->Load(bytes.data(), bytes.size());
  return session;
}

inline std::vector<Value> RunFloat(const InferenceSession& session,
                                   const std::vector<std::string>& names,
                                   const std::vector<Tensor>& tensors) {
  std::vector<Value> feeds;
  for (const Tensor& tensor : tensors) feeds.emplace_back(tensor);
  return session.Run(RunOptions{}, names, feeds, {});
}

}  // namespace prism::testing

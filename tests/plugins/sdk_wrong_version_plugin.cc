// An EP SDK plugin whose descriptor claims another SDK version: Prism must refuse it at load,
// naming both versions (tests/unit/ep_sdk/ep_sdk_plugin_test.cc).
#include "prism/ep/prism_ep.h"

namespace {

class NeverCreated final : public prism::ep::ExecutionProviderFactory {
 public:
  std::string Name() const override { return "SdkWrongVersionExecutionProvider"; }
  std::unique_ptr<prism::ep::ExecutionProvider> Create(
      const prism::ep::ProviderOptions&) const override {
    return nullptr;
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const PrismEpPluginDescriptor*
PrismGetEpPluginDescriptor() {
  static const PrismEpPluginDescriptor descriptor{
      prism::ep::kEpSdkVersion + 998, prism::ep::kCompilerAbiVersion, prism::ep::kStdStringAbi,
      "SdkWrongVersionExecutionProvider",
      []() -> prism::ep::ExecutionProviderFactory* { return new NeverCreated(); }};
  return &descriptor;
}

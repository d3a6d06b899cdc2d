// Execution providers written against the public EP SDK (include/prism/ep/) as Prism's internal
// IExecutionProvider: the plugin sees only the SDK's types, never the graph IR or protobuf.
#pragma once

#include <memory>
#include <string>

#include "framework/execution_provider.h"
#include "prism/ep/plugin.h"

namespace prism::ep_sdk {

// The domain of the fused nodes an SDK EP's groups become.
constexpr const char* kSdkFusedDomain = "com.prism.plugin";

// The factory a plugin's descriptor creates, after checking the descriptor's versions against
// this build's; nullptr with *error saying which version differs.
std::unique_ptr<IExecutionProviderFactory> FactoryFromDescriptor(
    const PrismEpPluginDescriptor& descriptor, std::string* error);

// Wraps an SDK factory (the plugin loader uses FactoryFromDescriptor; tests call this directly).
std::unique_ptr<IExecutionProviderFactory> WrapSdkFactory(
    std::unique_ptr<ep::ExecutionProviderFactory> factory);

}  // namespace prism::ep_sdk

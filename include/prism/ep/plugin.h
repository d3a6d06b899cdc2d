// How a shared library becomes a Prism plugin EP. Name the library libprism_provider_<x>.so, put
// it next to libprism_core.so or in a folder on PRISM_PROVIDER_PATH (or the session option
// session.provider_library_dir), and, in one of its source files, write
//
//   PRISM_EP_PLUGIN("MyAcceleratorExecutionProvider", MyAcceleratorFactory)
//
// where MyAcceleratorFactory derives from prism::ep::ExecutionProviderFactory and has a default
// constructor. The macro exports the descriptor Prism reads when it loads the library.
#pragma once

#include <cstdint>

#include "prism/ep/execution_provider.h"
#include "prism/ep/version.h"

extern "C" {
// What a plugin exports as
//   extern "C" const PrismEpPluginDescriptor* PrismGetEpPluginDescriptor();
// Prism refuses the plugin, naming the versions, unless every version field equals its own.
struct PrismEpPluginDescriptor {
  uint32_t sdk_version;           // prism::ep::kEpSdkVersion of the plugin's headers
  uint32_t compiler_abi_version;  // prism::ep::kCompilerAbiVersion
  uint32_t std_string_abi;        // prism::ep::kStdStringAbi
  const char* name;               // the EP's name; equals its factory's Name()
  prism::ep::ExecutionProviderFactory* (*create_factory)();  // owned by the caller
};
using PrismGetEpPluginDescriptorFn = const PrismEpPluginDescriptor* (*)();
}

#define PRISM_EP_PLUGIN(provider_name, FactoryType)                                         \
  extern "C" __attribute__((visibility("default"))) const PrismEpPluginDescriptor*          \
  PrismGetEpPluginDescriptor() {                                                            \
    static const PrismEpPluginDescriptor descriptor{                                        \
        prism::ep::kEpSdkVersion, prism::ep::kCompilerAbiVersion, prism::ep::kStdStringAbi, \
        provider_name,                                                                      \
        []() -> prism::ep::ExecutionProviderFactory* { return new FactoryType(); }};        \
    return &descriptor;                                                                     \
  }

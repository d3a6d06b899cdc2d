// The C++ interface an execution provider implements, and its factory. Prism calls
// GetCapability once per session (on the nodes the EPs before it in the session's provider list
// did not take), then Compile once per group it accepted; the kernels run on every Run.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "prism/ep/capability.h"
#include "prism/ep/compiled_kernel.h"
#include "prism/ep/device_memory.h"
#include "prism/ep/graph_view.h"

namespace prism::ep {

using ProviderOptions = std::map<std::string, std::string>;

class ExecutionProvider {
 public:
  virtual ~ExecutionProvider() = default;

  // Accepts the nodes the EP can run and declines the others with a reason: a node neither
  // accepted nor declined is reported as declined without one. Throwing fails session creation.
  virtual void GetCapability(const GraphView& graph, Capability& capability) const = 0;

  // Compiles one group of accepted nodes into a kernel. subgraph's Inputs() and Outputs() are
  // the kernel's, in order; its constant initializers can be read there (host memory).
  // Throwing (any std::exception) fails session creation with the message.
  virtual std::unique_ptr<CompiledKernel> Compile(const GraphView& subgraph) const = 0;

  // The options in effect (session.get_provider_options() shows them).
  virtual ProviderOptions GetProviderOptions() const { return {}; }

  // The EP's own memory, or nullptr when its kernels work on host memory.
  virtual std::shared_ptr<DeviceMemory> GetDeviceMemory() const { return nullptr; }
};

class ExecutionProviderFactory {
 public:
  virtual ~ExecutionProviderFactory() = default;
  // onnxruntime's spelling of the EP's name, e.g. "MyAcceleratorExecutionProvider": sessions ask
  // for the EP by this name, and it must equal the descriptor's (prism/ep/plugin.h).
  virtual std::string Name() const = 0;
  // Whether the EP can run on this machine (its device is present); *why says what is missing.
  // get_available_providers() lists the EP only when it is available.
  virtual bool IsAvailable(std::string* why) const {
    (void)why;
    return true;
  }
  // One EP per session. Options the EP does not know should be refused by throwing
  // std::invalid_argument naming them.
  virtual std::unique_ptr<ExecutionProvider> Create(const ProviderOptions& options) const = 0;
};

}  // namespace prism::ep

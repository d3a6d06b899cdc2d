// The CPU execution provider: always present, always last in the priority list.
#pragma once

#include <memory>

#include "framework/execution_provider.h"

namespace prism {

class CpuExecutionProvider final : public IExecutionProvider {
 public:
  explicit CpuExecutionProvider(ProviderOptions options = {});
  std::shared_ptr<KernelRegistry> GetKernelRegistry() const override;
  ProviderOptions GetProviderOptions() const override { return options_; }

  // The registry of every CPU kernel (built once per process).
  static std::shared_ptr<KernelRegistry> SharedRegistry();

 private:
  ProviderOptions options_;
};

class CpuExecutionProviderFactory final : public IExecutionProviderFactory {
 public:
  std::string Name() const override { return kCpuExecutionProvider; }
  bool IsAvailable(std::string*) const override { return true; }
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override;
};

}  // namespace prism

// A kernel an SDK plugin compiled (prism/ep/compiled_kernel.h), run as a Prism kernel: its
// KernelContext is Prism's OpKernelContext seen through the SDK's types.
#pragma once

#include <memory>
#include <string>

#include "framework/op_kernel.h"
#include "prism/ep/compiled_kernel.h"

namespace prism::ep_sdk {

class SdkKernel final : public OpKernel {
 public:
  SdkKernel(const OpKernelInfo& info, std::string provider,
            std::unique_ptr<ep::CompiledKernel> kernel);
  void Compute(OpKernelContext& context) const override;

 private:
  std::string provider_;
  std::unique_ptr<ep::CompiledKernel> kernel_;
};

}  // namespace prism::ep_sdk

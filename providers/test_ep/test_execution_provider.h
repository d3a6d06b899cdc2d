// A test-only EP, built as a plugin like any other. It claims the ops listed in its "ops"
// option and keeps its tensors in simulated device memory: bytes are stored scrambled, so any
// CPU kernel that read them without a copy would compute garbage. It proves plugin loading,
// partitioning, copy insertion and the partition report on machines without a GPU. With option
// "fuse" = "1" it claims connected groups of those ops as fused nodes (MetaDef) and compiles
// each into one kernel, proving the fuse and compile phases.
#pragma once

#include <atomic>
#include <set>
#include <string>

#include "framework/execution_provider.h"

namespace prism::test_ep {

// The same sources build further plugins for the discovery tests (tests/CMakeLists.txt): another
// name, a hidden-or-listed flag, or a wrong interface version.
#ifndef PRISM_TEST_EP_NAME
#define PRISM_TEST_EP_NAME "TestExecutionProvider"
#endif
constexpr const char* kProviderName = PRISM_TEST_EP_NAME;
constexpr const char* kMemoryName = "TestDevice";
constexpr uint8_t kScrambleKey = 0xA5;

// Live allocations in simulated device memory (for tests that check freeing).
struct AllocationCounters {
  std::atomic<int64_t> live_allocations{0};
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> total_allocations{0};
  // Most allocations live at once since the last reset (tests bound intermediate memory).
  std::atomic<int64_t> peak_live_allocations{0};
};
AllocationCounters& Counters();

class TestDeviceAllocator final : public IAllocator {
 public:
  explicit TestDeviceAllocator(int device_id);
  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return info_; }

 private:
  MemoryInfo info_;
};

// Copies between CPU memory and simulated device memory, (un)scrambling on the way.
class TestDataTransfer final : public IDataTransfer {
 public:
  bool CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const override;
  void CopyTensor(const Tensor& source, Tensor& destination) const override;
};

class TestExecutionProvider final : public IExecutionProvider {
 public:
  explicit TestExecutionProvider(const ProviderOptions& options);

  std::vector<ComputeCapability> GetCapability(const GraphViewer& graph, const KernelLookup& lookup,
                                               std::vector<DeclinedNode>* declined) const override;
  std::shared_ptr<KernelRegistry> GetKernelRegistry() const override { return registry_; }
  AllocatorPtr GetAllocator(MemType mem_type) const override;
  std::shared_ptr<IDataTransfer> GetDataTransfer() const override { return transfer_; }
  ProviderOptions GetProviderOptions() const override { return options_; }
  std::unique_ptr<OpKernel> Compile(const MetaDef& meta_def, const Graph& body,
                                    const OpKernelInfo& info) const override;

 private:
  std::vector<std::vector<NodeIndex>> GroupClaimable(const GraphViewer& graph,
                                                     const std::vector<NodeIndex>& claimable) const;

  ProviderOptions options_;
  bool all_ops_ = false;  // ops '*': every op the CPU EP has
  bool fuse_ = false;
  mutable std::atomic<int> fused_groups_made_{0};  // names fused nodes uniquely per EP instance
  std::set<std::string> ops_;
  AllocatorPtr device_allocator_;
  std::shared_ptr<IDataTransfer> transfer_;
  std::shared_ptr<KernelRegistry> registry_;
};

}  // namespace prism::test_ep

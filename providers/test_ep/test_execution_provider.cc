#include "providers/test_ep/test_execution_provider.h"

#include <cstring>
#include <functional>
#include <map>
#include <sstream>

#include "framework/fused_claim.h"
#include "graph/graph.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "providers/test_ep/compiled_group_kernel.h"
#include "providers/test_ep/wrapped_cpu_kernel.h"

namespace prism::test_ep {

AllocationCounters& Counters() {
  static AllocationCounters counters;
  return counters;
}

TestDeviceAllocator::TestDeviceAllocator(int device_id) {
  info_.name = kMemoryName;
  info_.device = DeviceType::kSimulated;
  info_.device_id = device_id;
}

void* TestDeviceAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  // A size header in front of the block lets Free keep the byte count exact.
  auto* block = static_cast<size_t*>(GetCpuAllocator()->Alloc(bytes + 64));
  block[0] = bytes;
  const int64_t live = ++Counters().live_allocations;
  int64_t peak = Counters().peak_live_allocations.load();
  while (live > peak && !Counters().peak_live_allocations.compare_exchange_weak(peak, live)) {
  }
  Counters().total_allocations++;
  Counters().live_bytes += static_cast<int64_t>(bytes);
  return reinterpret_cast<char*>(block) + 64;
}

void TestDeviceAllocator::Free(void* pointer) {
  if (pointer == nullptr) return;
  auto* block = reinterpret_cast<size_t*>(static_cast<char*>(pointer) - 64);
  Counters().live_allocations--;
  Counters().live_bytes -= static_cast<int64_t>(block[0]);
  GetCpuAllocator()->Free(block);
}

bool TestDataTransfer::CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const {
  const bool source_device = source.name == kMemoryName;
  const bool destination_device = destination.name == kMemoryName;
  return (source_device || source.IsCpuAccessible()) &&
         (destination_device || destination.IsCpuAccessible()) &&
         (source_device || destination_device);
}

void TestDataTransfer::CopyTensor(const Tensor& source, Tensor& destination) const {
  PRISM_ENFORCE(source.Type() == destination.Type() && source.Shape() == destination.Shape(),
                kInvalidArgument, "test EP copy from ", source.Describe(), " to ",
                destination.Describe());
  PRISM_ENFORCE(source.Type() != ElementType::kString, kInvalidArgument,
                "string tensors cannot live in test device memory");
  const auto* in = static_cast<const uint8_t*>(source.RawData());
  auto* out = static_cast<uint8_t*>(destination.MutableRawData());
  const bool scramble =
      (source.Location().name == kMemoryName) != (destination.Location().name == kMemoryName);
  for (size_t i = 0; i < source.SizeInBytes(); ++i)
    out[i] = scramble ? static_cast<uint8_t>(in[i] ^ kScrambleKey) : in[i];
}

namespace {

std::set<std::string> ParseOps(const ProviderOptions& options) {
  std::set<std::string> ops;
  auto it = options.find("ops");
  const std::string list = it == options.end() ? "Add,Mul,Relu" : it->second;
  std::stringstream stream(list);
  std::string op;
  while (std::getline(stream, op, ','))
    if (!op.empty()) ops.insert(op);
  return ops;
}

int ParseDeviceId(const ProviderOptions& options) {
  auto it = options.find("device_id");
  if (it == options.end()) return 0;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    PRISM_THROW(kInvalidArgument, kProviderName, ": device_id '", it->second, "' is not a number");
  }
}

}  // namespace

TestExecutionProvider::TestExecutionProvider(const ProviderOptions& options)
    : IExecutionProvider(kProviderName),
      options_(options),
      ops_(ParseOps(options)),
      device_allocator_(std::make_shared<TestDeviceAllocator>(ParseDeviceId(options))),
      transfer_(std::make_shared<TestDataTransfer>()),
      registry_(std::make_shared<KernelRegistry>()) {
  options_.emplace("ops", "Add,Mul,Relu");
  options_.emplace("device_id", "0");
  options_.emplace("fuse", "0");
  const std::string fuse = options_.at("fuse");
  PRISM_ENFORCE(fuse == "0" || fuse == "1", kInvalidArgument, kProviderName, ": fuse '", fuse,
                "' must be 0 or 1");
  fuse_ = fuse == "1";
  options_.emplace("fail_compute", "0");
  const bool fail_compute = options_.at("fail_compute") == "1";
  // "wrong_op": that op's kernel adds 1 to the first element of a floating output, the planted
  // fault the cross-provider consistency test must catch.
  options_.emplace("wrong_op", "");
  const std::string wrong_op = options_.at("wrong_op");
  all_ops_ = ops_.count("*") > 0;
  // Mirror the CPU kernels of the claimed ops (every domain: ops=Name claims that name in each);
  // each runs the CPU kernel on unscrambled copies.
  for (const KernelCreateInfo* info : CpuExecutionProvider::SharedRegistry()->All()) {
    if (!all_ops_ && !ops_.count(info->def.op_type)) continue;
    registry_->Register(info->def, MakeWrappedKernelFactory(info->factory, fail_compute,
                                                            info->def.op_type == wrong_op));
  }
}

std::vector<ComputeCapability> TestExecutionProvider::GetCapability(
    const GraphViewer& graph, const KernelLookup& lookup,
    std::vector<DeclinedNode>* declined) const {
  std::vector<ComputeCapability> claims;
  std::vector<NodeIndex> claimable;
  for (NodeIndex index : graph.Nodes()) {
    const Node& node = graph.GetNode(index);
    std::string reason;
    if (!all_ops_ && !ops_.count(node.OpType())) {
      reason = MakeString("op ", node.OpType(), " is not in this EP's 'ops' option");
    } else if ((fuse_ || all_ops_) && !node.Subgraphs().empty()) {
      reason = fuse_ ? "nodes with subgraphs are not fused"
                     : "nodes with subgraphs are claimed only when named in 'ops'";
    } else {
      for (const NodeArg* arg : node.Inputs())
        if (arg && arg->type.elem == ElementType::kString)
          reason = "string tensors cannot live in test device memory";
      for (const NodeArg* arg : node.Outputs())
        if (arg && arg->type.elem == ElementType::kString)
          reason = "string tensors cannot live in test device memory";
      if (reason.empty() && all_ops_)
        for (const NodeArg* arg : node.Inputs())
          if (arg && arg->type.kind != TypeKind::kTensor && arg->type.kind != TypeKind::kUnknown)
            reason = "only tensors are claimed with ops '*'";
      if (reason.empty() && lookup.Find(node, &reason) != nullptr) {
        claimable.push_back(index);
        continue;
      }
    }
    if (declined) declined->push_back(DeclinedNode{index, reason});
  }
  if (!fuse_) {
    for (NodeIndex index : claimable) claims.push_back(ComputeCapability{{index}, nullptr});
    return claims;
  }
  for (std::vector<NodeIndex>& group : GroupClaimable(graph, claimable))
    claims.push_back(MakeFusedClaim(graph.GetGraph(), std::move(group),
                                    MakeString(kProviderName, "_fused_", fused_groups_made_++),
                                    "com.prism.test"));
  return claims;
}

// Groups are the connected pieces of each run of claimable nodes that are consecutive in the
// viewer's topological order: no path between two nodes of a run can leave it, so fusing a group
// never makes a cycle. (A side branch scheduled in between splits a chain; fewer, larger groups
// would need a convexity check, which the test EP does not need.)
std::vector<std::vector<NodeIndex>> TestExecutionProvider::GroupClaimable(
    const GraphViewer& graph, const std::vector<NodeIndex>& claimable) const {
  std::set<NodeIndex> wanted(claimable.begin(), claimable.end());
  std::vector<std::vector<NodeIndex>> runs(1);
  for (NodeIndex index : graph.Nodes()) {
    if (wanted.count(index))
      runs.back().push_back(index);
    else if (!runs.back().empty())
      runs.emplace_back();
  }
  std::vector<std::vector<NodeIndex>> groups;
  for (const std::vector<NodeIndex>& run : runs) {
    // Union-find over producer -> consumer edges inside the run.
    std::map<NodeIndex, NodeIndex> leader;
    for (NodeIndex index : run) leader[index] = index;
    std::function<NodeIndex(NodeIndex)> find = [&](NodeIndex index) {
      return leader[index] == index ? index : leader[index] = find(leader[index]);
    };
    for (NodeIndex index : run)
      for (const NodeArg* arg : graph.GetNode(index).Inputs()) {
        const Node* producer = arg ? graph.GetGraph().Producer(arg->name) : nullptr;
        if (producer && leader.count(producer->Index()) &&
            &producer->OwnerGraph() == &graph.GetGraph())
          leader[find(index)] = find(producer->Index());
      }
    std::map<NodeIndex, std::vector<NodeIndex>> pieces;
    for (NodeIndex index : run) pieces[find(index)].push_back(index);
    for (auto& [root, piece] : pieces) groups.push_back(std::move(piece));
  }
  return groups;
}

std::unique_ptr<OpKernel> TestExecutionProvider::Compile(const MetaDef&, const Graph& body,
                                                         const OpKernelInfo& info) const {
  return CompileGroup(body, info);
}

AllocatorPtr TestExecutionProvider::GetAllocator(MemType mem_type) const {
  return mem_type == MemType::kDefault ? device_allocator_ : GetCpuAllocator();
}

class TestExecutionProviderFactory final : public IExecutionProviderFactory {
 public:
  std::string Name() const override { return kProviderName; }
  bool IsAvailable(std::string*) const override { return true; }
#ifdef PRISM_TEST_EP_LISTED
  bool IsListed() const override {
    return true;
  }
#else
  bool IsListed() const override {
    return false;
  }  // used only when named explicitly
#endif
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override {
    return std::make_unique<TestExecutionProvider>(options);
  }
};

}  // namespace prism::test_ep

#ifndef PRISM_TEST_EP_INTERFACE_VERSION
#define PRISM_TEST_EP_INTERFACE_VERSION prism::kProviderInterfaceVersion
#endif

extern "C" __attribute__((visibility("default"))) const PrismProviderDescriptor*
PrismGetProviderDescriptor() {
  static const PrismProviderDescriptor descriptor{
      PRISM_TEST_EP_INTERFACE_VERSION, prism::test_ep::kProviderName,
      []() -> prism::IExecutionProviderFactory* {
        return new prism::test_ep::TestExecutionProviderFactory();
      }};
  return &descriptor;
}

// Lets tests check that simulated device memory is freed.
extern "C" __attribute__((visibility("default"))) int64_t PrismTestEpLiveAllocations() {
  return prism::test_ep::Counters().live_allocations.load();
}

// High-water mark of live allocations since the last reset, and the reset itself.
extern "C" __attribute__((visibility("default"))) int64_t PrismTestEpPeakLiveAllocations() {
  return prism::test_ep::Counters().peak_live_allocations.load();
}

extern "C" __attribute__((visibility("default"))) void PrismTestEpResetPeakLiveAllocations() {
  prism::test_ep::Counters().peak_live_allocations.store(
      prism::test_ep::Counters().live_allocations.load());
}

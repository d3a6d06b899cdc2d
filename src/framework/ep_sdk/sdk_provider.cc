#include "framework/ep_sdk/sdk_provider.h"

#include <atomic>
#include <stdexcept>
#include <unordered_map>

#include "framework/ep_sdk/sdk_device_memory.h"
#include "framework/ep_sdk/sdk_graph_view.h"
#include "framework/ep_sdk/sdk_kernel.h"
#include "framework/fused_claim.h"
#include "framework/node_grouping.h"

namespace prism::ep_sdk {
namespace {

class SdkExecutionProvider final : public IExecutionProvider {
 public:
  SdkExecutionProvider(const std::string& name, std::unique_ptr<ep::ExecutionProvider> provider)
      : IExecutionProvider(name),
        provider_(std::move(provider)),
        registry_(std::make_shared<KernelRegistry>()) {
    std::shared_ptr<ep::DeviceMemory> memory = provider_->GetDeviceMemory();
    if (memory) {
      device_allocator_ = std::make_shared<SdkDeviceAllocator>(memory);
      transfer_ = std::make_shared<SdkDataTransfer>(memory, device_allocator_->Info());
    }
  }

  std::vector<ComputeCapability> GetCapability(const GraphViewer& viewer, const KernelLookup&,
                                               std::vector<DeclinedNode>* declined) const override {
    const Graph& graph = viewer.GetGraph();
    SdkGraphView view(graph, viewer.Nodes(), graph.Inputs(), graph.Outputs(),
                      [&graph](const std::string& name) -> const Tensor* {
                        return graph.IsConstantInitializer(name) ? graph.FindInitializer(name)
                                                                 : nullptr;
                      });
    ep::Capability capability;
    try {
      provider_->GetCapability(view, capability);
    } catch (const std::exception& error) {
      PRISM_THROW(kEpFail, Type(), " GetCapability failed: ", error.what());
    }
    std::vector<bool> accepted(graph.NodeCount(), false);
    std::vector<bool> answered(graph.NodeCount(), false);
    std::vector<DeclinedNode> refusals;
    for (size_t id : capability.Accepted()) {
      PRISM_ENFORCE(viewer.Contains(id), kEpFail, Type(), " accepted node id ", id,
                    ", which is not in the graph it was shown");
      answered[id] = true;
      // The SDK shows no subgraph bodies, so a node holding one cannot be compiled by the EP.
      if (!graph.GetNode(id).Subgraphs().empty())
        refusals.push_back(
            DeclinedNode{id, "nodes with subgraphs (If, Loop, Scan) are not given to plugin EPs"});
      else
        accepted[id] = true;
    }
    for (const auto& [id, reason] : capability.Declined()) {
      PRISM_ENFORCE(viewer.Contains(id), kEpFail, Type(), " declined node id ", id,
                    ", which is not in the graph it was shown");
      PRISM_ENFORCE(!accepted[id], kEpFail, Type(), " both accepted and declined ",
                    graph.GetNode(id).Describe());
      if (answered[id]) continue;
      answered[id] = true;
      refusals.push_back(DeclinedNode{id, reason});
    }
    for (NodeIndex index : viewer.Nodes())
      if (!answered[index])
        refusals.push_back(DeclinedNode{index, MakeString(Type(), " gave no reason")});
    if (declined) declined->insert(declined->end(), refusals.begin(), refusals.end());

    std::vector<std::vector<NodeIndex>> groups;
    if (capability.GetGrouping() == ep::Grouping::kSingleNodes) {
      for (NodeIndex index : graph.TopologicalOrder())
        if (accepted[index]) groups.push_back({index});
    } else {
      groups = GroupAcceptedNodes(graph, accepted);
    }
    std::vector<ComputeCapability> claims;
    for (std::vector<NodeIndex>& group : groups)
      claims.push_back(MakeFusedClaim(
          graph, std::move(group), MakeString(Type(), "_fused_", groups_made_++), kSdkFusedDomain));
    return claims;
  }

  std::unique_ptr<OpKernel> Compile(const MetaDef& meta_def, const Graph& body,
                                    const OpKernelInfo& info) const override {
    std::unordered_map<std::string, size_t> input_index;
    for (size_t i = 0; i < meta_def.inputs.size(); ++i) input_index.emplace(meta_def.inputs[i], i);
    SdkGraphView view(body, body.TopologicalOrder(), body.Inputs(), body.Outputs(),
                      [&](const std::string& name) -> const Tensor* {
                        auto it = input_index.find(name);
                        return it == input_index.end() ? nullptr : info.ConstantInput(it->second);
                      });
    std::unique_ptr<ep::CompiledKernel> kernel;
    try {
      kernel = provider_->Compile(view);
    } catch (const std::exception& error) {
      PRISM_THROW(kEpFail, Type(), " could not compile ", info.GetNode().Describe(), ": ",
                  error.what());
    }
    PRISM_ENFORCE(kernel != nullptr, kEpFail, Type(), " returned no kernel for ",
                  info.GetNode().Describe());
    return std::make_unique<SdkKernel>(info, Type(), std::move(kernel));
  }

  std::shared_ptr<KernelRegistry> GetKernelRegistry() const override { return registry_; }
  AllocatorPtr GetAllocator(MemType mem_type) const override {
    if (device_allocator_ && mem_type == MemType::kDefault) return device_allocator_;
    return IExecutionProvider::GetAllocator(mem_type);
  }
  std::shared_ptr<IDataTransfer> GetDataTransfer() const override { return transfer_; }
  ProviderOptions GetProviderOptions() const override { return provider_->GetProviderOptions(); }

 private:
  std::unique_ptr<ep::ExecutionProvider> provider_;
  std::shared_ptr<KernelRegistry> registry_;
  AllocatorPtr device_allocator_;
  std::shared_ptr<IDataTransfer> transfer_;
  mutable std::atomic<int> groups_made_{0};
};

class SdkProviderFactory final : public IExecutionProviderFactory {
 public:
  explicit SdkProviderFactory(std::unique_ptr<ep::ExecutionProviderFactory> factory)
      : factory_(std::move(factory)), name_(factory_->Name()) {}

  std::string Name() const override { return name_; }
  bool IsAvailable(std::string* why) const override {
    try {
      return factory_->IsAvailable(why);
    } catch (const std::exception& error) {
      if (why) *why = MakeString("its availability check failed: ", error.what());
      return false;
    }
  }
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override {
    std::unique_ptr<ep::ExecutionProvider> provider;
    try {
      provider = factory_->Create(options);
    } catch (const std::invalid_argument& error) {
      PRISM_THROW(kInvalidArgument, name_, ": ", error.what());
    } catch (const std::exception& error) {
      PRISM_THROW(kEpFail, name_, " could not be created: ", error.what());
    }
    PRISM_ENFORCE(provider != nullptr, kEpFail, name_, " factory returned no provider");
    return std::make_unique<SdkExecutionProvider>(name_, std::move(provider));
  }

 private:
  std::unique_ptr<ep::ExecutionProviderFactory> factory_;
  std::string name_;
};

}  // namespace

std::unique_ptr<IExecutionProviderFactory> WrapSdkFactory(
    std::unique_ptr<ep::ExecutionProviderFactory> factory) {
  return std::make_unique<SdkProviderFactory>(std::move(factory));
}

std::unique_ptr<IExecutionProviderFactory> FactoryFromDescriptor(
    const PrismEpPluginDescriptor& descriptor, std::string* error) {
  auto refuse = [&](const std::string& message) {
    if (error) *error = message;
    return nullptr;
  };
  if (descriptor.sdk_version != ep::kEpSdkVersion)
    return refuse(MakeString("was built for EP SDK version ", descriptor.sdk_version,
                             ", this Prism needs version ", ep::kEpSdkVersion,
                             "; rebuild the plugin against this release"));
  if (descriptor.compiler_abi_version != ep::kCompilerAbiVersion ||
      descriptor.std_string_abi != ep::kStdStringAbi)
    return refuse(MakeString("was built for C++ ABI ", descriptor.compiler_abi_version,
                             " (std::string ABI ", descriptor.std_string_abi, "), this Prism uses ",
                             ep::kCompilerAbiVersion, " (", ep::kStdStringAbi,
                             "); build it with the same compiler"));
  if (descriptor.name == nullptr || *descriptor.name == '\0' ||
      descriptor.create_factory == nullptr)
    return refuse("has a descriptor without a name or factory function");
  std::unique_ptr<ep::ExecutionProviderFactory> factory;
  try {
    factory.reset(descriptor.create_factory());
  } catch (const std::exception& failure) {
    return refuse(MakeString("failed to create its factory: ", failure.what()));
  }
  if (!factory) return refuse("returned no factory");
  try {
    return WrapSdkFactory(std::move(factory));
  } catch (const std::exception& failure) {
    return refuse(MakeString("failed to name its factory: ", failure.what()));
  }
}

}  // namespace prism::ep_sdk

// The execution-provider interface: what an EP can run (GetCapability), where its memory lives
// (allocators), how to move data in and out (data transfer), and its kernels.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/allocator.h"
#include "framework/data_transfer.h"
#include "framework/kernel_registry.h"
#include "graph/attribute.h"

namespace prism {

class GraphViewer;
class Graph;

using ProviderOptions = std::map<std::string, std::string>;

// A group of nodes an EP compiles into one fused kernel. The session replaces the group by one
// node (op type `name`, in `domain`) whose body holds the group's nodes, then asks the EP to
// Compile it.
struct MetaDef {
  std::string name;    // unique per session: the fused node's op type and name
  std::string domain;  // e.g. "com.prism.test"
  int since_version = 1;
  // Values the group reads from outside (graph inputs, other nodes' outputs, initializers) and
  // the values it produces that something outside reads (or that are graph outputs), in the
  // order of the fused node's inputs and outputs.
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  // Attributes the fused node carries (the EP's own settings for Compile).
  std::map<std::string, Attribute> attributes;
  // The inputs that are constant initializers (weights): OpKernelInfo::ConstantInput gives them
  // at Compile, and the session places them once in the EP's memory.
  std::vector<std::string> constant_initializers;
};

// One claim of GetCapability: a single node with a registered kernel (meta_def null), or
// several nodes fused into one kernel the EP compiles (meta_def set).
struct ComputeCapability {
  std::vector<NodeIndex> nodes;
  std::unique_ptr<MetaDef> meta_def;
};

// A node an EP looked at and did not take, and why (shown in the partition report).
struct DeclinedNode {
  NodeIndex node = 0;
  std::string reason;
};

class CustomOpRegistry;

// Kernel lookup handed to GetCapability: the session's custom ops for this EP (when it has any),
// then the EP's registry, plus the reason for a miss.
class KernelLookup {
 public:
  explicit KernelLookup(const KernelRegistry* registry,
                        const CustomOpRegistry* custom_ops = nullptr, std::string provider = "")
      : registry_(registry), custom_ops_(custom_ops), provider_(std::move(provider)) {}
  const KernelCreateInfo* Find(const Node& node, std::string* reason) const;
  // Whether Find gives node a custom op's kernel.
  bool FindsCustomOp(const Node& node) const;

 private:
  const KernelRegistry* registry_;
  const CustomOpRegistry* custom_ops_;
  std::string provider_;
};

class IExecutionProvider {
 public:
  explicit IExecutionProvider(std::string type) : type_(std::move(type)) {}
  virtual ~IExecutionProvider() = default;

  // onnxruntime's spelling, e.g. "CPUExecutionProvider".
  const std::string& Type() const { return type_; }

  // Default: every node of the viewer that has a kernel in lookup; the rest are declined with
  // the lookup's reason.
  virtual std::vector<ComputeCapability> GetCapability(const GraphViewer& graph,
                                                       const KernelLookup& lookup,
                                                       std::vector<DeclinedNode>* declined) const;

  virtual std::shared_ptr<KernelRegistry> GetKernelRegistry() const = 0;
  // Default memory (kDefault) and the host memory it uses for CPU inputs/outputs.
  virtual AllocatorPtr GetAllocator(MemType mem_type) const;
  // Copies between this EP's memory and the host; nullptr for CPU-memory EPs.
  virtual std::shared_ptr<IDataTransfer> GetDataTransfer() const { return nullptr; }
  virtual ProviderOptions GetProviderOptions() const { return {}; }
  // Compiles a fused node into one kernel: the kernel's construction creates whatever state the
  // compiled group needs, its Compute runs the group, its destruction releases the state. The
  // body is the fused node's FusedBody() (the group's nodes; its inputs and outputs are the
  // node's). EPs that never fuse keep the default (throws).
  virtual std::unique_ptr<OpKernel> Compile(const MetaDef& meta_def, const Graph& body,
                                            const OpKernelInfo& info) const;

  // Whole-run graph capture (onnxruntime's enable_cuda_graph): an EP that returns true gets the
  // runs of a session whose nodes all run on it captured once, between BeginGraphCapture and
  // EndGraphCapture (the kernels enqueue as usual and nothing executes), and replayed by
  // ReplayGraph (session/graph_capture.h). EndGraphCapture(false) drops a failed capture.
  // ReserveCapturedMemory keeps the device memory the captured run used, now free in the EP's
  // allocator, from being handed out again: replays write it. The defaults throw.
  virtual bool GraphCaptureEnabled() const { return false; }
  virtual void BeginGraphCapture() const;
  virtual void EndGraphCapture(bool keep) const;
  virtual void ReplayGraph() const;
  virtual void ReserveCapturedMemory() const;

 private:
  std::string type_;
};

// Creates providers of one kind: the CPU EP registers one at load (RegisterBuiltinProvider),
// plugin libraries export one through their PrismProviderDescriptor.
class IExecutionProviderFactory {
 public:
  virtual ~IExecutionProviderFactory() = default;
  virtual std::string Name() const = 0;  // "CUDAExecutionProvider"
  // Whether the device this EP needs is present; *why says what is missing.
  virtual bool IsAvailable(std::string* why) const = 0;
  // Whether get_available_providers() lists it (the test EP hides itself).
  virtual bool IsListed() const { return true; }
  virtual std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const = 0;
};

constexpr const char* kCpuExecutionProvider = "CPUExecutionProvider";

// The version of the C++ interface between the core and plugin EPs (IExecutionProvider,
// IExecutionProviderFactory, kernels, tensors). Raise it on any change a plugin must be rebuilt
// for; a plugin built for another version is refused at load, naming both.
constexpr uint32_t kProviderInterfaceVersion = 3;

}  // namespace prism

extern "C" {
// What a plugin library (libprism_provider_<anything>.so on the search path) exports as
//   extern "C" const PrismProviderDescriptor* PrismGetProviderDescriptor();
// The first two fields keep their place in every version, so that a version mismatch can be
// reported with the provider's name before anything else is touched.
struct PrismProviderDescriptor {
  uint32_t interface_version;  // kProviderInterfaceVersion of the headers the plugin was built with
  const char* name;            // onnxruntime's spelling, e.g. "CUDAExecutionProvider"
  prism::IExecutionProviderFactory* (*create_factory)();  // owned by the caller
};
using PrismGetProviderDescriptorFn = const PrismProviderDescriptor* (*)();
}

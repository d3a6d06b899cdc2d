// The definitions behind the opaque handles of prism_c_api.h. The C header declares the handle
// structs in the global namespace, so they are defined there; everything else lives in
// prism::capi.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "framework/custom_op.h"
#include "prism/prism_c_api.h"
#include "session/environment_allocators.h"
#include "session/global_thread_pools.h"
#include "session/inference_session.h"
#include "session/prepacked_weights_container.h"

struct PrismStatus {
  PrismErrorCode code = PRISM_OK;
  std::string message;
  bool is_static = false;  // the preallocated out-of-memory status is never freed
};

struct PrismEnv {
  std::string log_id;
  uint64_t log_sink = 0;  // CreateEnvWithCustomLogger: the sink this env installed (0: none)
  // CreateAndRegisterAllocator(V2): shared with sessions that set session.use_env_allocators.
  std::shared_ptr<prism::EnvironmentAllocators> allocators =
      std::make_shared<prism::EnvironmentAllocators>();
};

// onnxruntime's OrtCUDAProviderOptionsV2: the CUDA EP's options, checked as they are set.
struct PrismCUDAProviderOptions {
  std::map<std::string, std::string> options;
};

struct PrismThreadingOptions {
  prism::GlobalThreadPoolSizes sizes;
};

struct PrismPrepackedWeightsContainer {
  std::shared_ptr<prism::PrepackedWeightsContainer> container;
};

struct PrismSessionOptions {
  prism::SessionOptions options;
  std::vector<prism::ProviderSpec> providers;  // in priority order
  // Custom op libraries RegisterCustomOpsLibrary loaded (each unloaded when its last holder, an
  // options object or an op of a session, goes).
  std::vector<std::shared_ptr<void>> libraries;
};

struct PrismCustomOpDomain {
  std::string domain;
  std::vector<std::shared_ptr<const prism::CustomOp>> ops;
};

struct PrismSession {
  // Shared with IO bindings so that a binding outlives its session handle safely.
  std::shared_ptr<prism::InferenceSession> session;
  // Snapshots taken at load time: the graph's interface never changes, so the names handed out
  // as borrowed pointers stay valid across SetProviders.
  std::vector<prism::ValueInfo> inputs;
  std::vector<prism::ValueInfo> outputs;
  std::vector<prism::ValueInfo> initializers;
  // Serializes SetProviders calls (each rebuilds the plan); report readers take it shared so
  // they see one plan, not a half-replaced one.
  mutable std::shared_mutex plan_mutex;
};

struct PrismRunOptions {
  prism::RunOptions options;
  std::atomic<bool> terminate{false};
  PrismRunOptions() { options.terminate = &terminate; }
};

struct PrismMemoryInfo {
  prism::MemoryInfo info;
  // What CreateMemoryInfo was asked for: an arena makes CreateAndRegisterAllocator share one.
  PrismAllocatorType allocator_type = PRISM_DEVICE_ALLOCATOR;
};

struct PrismAllocator {
  prism::AllocatorPtr allocator;
  PrismMemoryInfo info;
  bool is_static = false;  // the process CPU allocator handle is never freed
};

struct PrismValue {
  prism::Value value;
  PrismMemoryInfo location;  // where the tensor lives (CPU for everything else)

  explicit PrismValue(prism::Value v) : value(std::move(v)) {
    if (value.IsTensor()) location.info = value.GetTensor().Location();
  }
};

struct PrismTensorTypeAndShapeInfo {
  prism::ElementType element_type = prism::ElementType::kUndefined;
  bool has_shape = false;
  std::vector<int64_t> dims;         // -1 for symbolic or unknown dims
  std::vector<std::string> symbols;  // "" when a dim has no symbolic name
};

struct PrismTypeInfo {
  prism::ValueType type;
  std::string type_string;
  std::unique_ptr<PrismTensorTypeAndShapeInfo> tensor;  // null when the type has no tensor part
};

struct PrismModelMetadata {
  prism::ModelMetadata metadata;
  std::vector<std::pair<std::string, std::string>> custom;  // indexable copy of the map
};

struct PrismIoBinding {
  struct OutputBinding {
    std::string name;
    std::unique_ptr<PrismValue> preallocated;  // results are copied into it, or
    prism::MemoryInfo device;                  // the run leaves the result in this memory
  };

  std::shared_ptr<prism::InferenceSession> session;
  // Bindings are mutated and run from the caller's threads; one lock keeps them consistent.
  mutable std::mutex mutex;
  std::vector<std::string> input_names;
  std::vector<prism::Value> inputs;
  std::vector<OutputBinding> outputs;
  std::vector<prism::Value> results;  // of the last RunWithBinding, in output binding order
};

struct PrismKernelInfo {
  const prism::OpKernelInfo& info;
  const std::string& op_label;  // "custom op 'Foo' of domain 'd'"
};

struct PrismKernelContext {
  prism::OpKernelContext& context;
  const prism::CustomOpSignature& signature;
  const std::string& op_label;
  std::vector<std::unique_ptr<PrismValue>> inputs;   // null where the node omits one
  std::vector<std::unique_ptr<PrismValue>> outputs;  // made by KernelContextGetOutput
  std::mutex outputs_mutex;
};

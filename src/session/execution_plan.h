// The executable form of a (sub)graph: kernel and copy steps in order, value slots with their
// memory spaces, and the slots each step releases after running.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/execution_provider.h"
#include "graph/graph.h"

namespace prism {

struct ExecutionStep {
  enum class Kind { kKernel, kCopy };
  Kind kind = Kind::kKernel;

  // Kernel steps.
  const Node* node = nullptr;
  const IExecutionProvider* provider = nullptr;
  // The registration the kernel came from; its registry lives as long as the provider.
  const KernelDef* kernel_def = nullptr;
  std::unique_ptr<OpKernel> kernel;
  std::vector<int> inputs;   // slot per node input, -1 when omitted
  std::vector<int> outputs;  // slot per node output, -1 when omitted
  std::vector<AllocatorPtr> output_allocators;
  AllocatorPtr temp_allocator;

  // Copy steps.
  int copy_source = -1;
  int copy_target = -1;
  AllocatorPtr copy_allocator;

  std::vector<int> release_after;  // slots whose last reader is this step
};

struct GraphPlan {
  const Graph* graph = nullptr;
  std::string path;  // "main", "main/if_0:then_branch"
  std::vector<std::string> slot_names;
  std::vector<MemoryInfo> slot_memory;
  std::unordered_map<std::string, int> slot_of;  // value name -> slot holding it where produced
  std::vector<int> input_slots;                  // graph inputs (incl. overridable), in order
  // Per graph input: whether a kernel, a subgraph or the graph's result reads its slot directly,
  // in the slot's planned (CPU) memory. When none does, only copy steps read it, and a feed
  // already in a copy's target memory is used there in place.
  std::vector<bool> input_read_directly;
  std::vector<std::pair<int, const Tensor*>> constant_slots;  // initializers preloaded per run
  std::vector<std::pair<std::string, int>> outer_slots;       // read from the enclosing frame
  // Constant initializers copied once, at session creation, into the memory space of an EP that
  // reads them (their slots are in constant_slots, so no run copies them again).
  std::vector<std::unique_ptr<Tensor>> placed_constants;
  // Constant initializers of this graph that every reader took in a prepacked form: no slot
  // holds them any more, and the session may release them (the packed form can restore them).
  std::vector<std::pair<std::string, PrePackedWeight>> prepacked_only;
  int64_t prepacked_inputs = 0;  // kernel inputs read from a packed form, in this graph
  std::vector<int> output_slots;
  std::vector<ExecutionStep> steps;
  std::vector<bool> keep;  // slots never released (graph outputs)
  // For execution_mode parallel: per step, how many steps must finish before it, which steps
  // wait on it and the distinct slots it reads (implicit subgraph reads included); per slot, how
  // many steps read it (it is released when the last of them finishes).
  std::vector<int> dependency_count;
  std::vector<std::vector<int>> dependents;
  std::vector<std::vector<int>> reads;
  std::vector<int> reader_count;
  // Defs of this graph's fused nodes' steps (their kernels come from Compile, not a registry).
  std::vector<std::unique_ptr<KernelDef>> fused_kernel_defs;
  // Plans of the subgraphs of this graph's nodes.
  std::map<const Graph*, std::unique_ptr<GraphPlan>> subgraphs;

  int AddSlot(const std::string& name, const MemoryInfo& memory);
};

}  // namespace prism

// Phase "plan": turns each partitioned (and fused) graph into an executable plan: value slots and
// their memory spaces, copies where a value crosses memory spaces (constants placed once, at
// session creation), kernels (created here, or compiled earlier for fused nodes) and the slots
// each step releases.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "framework/data_transfer.h"
#include "session/execution_plan.h"
#include "session/graph_partitioner.h"
#include "session/partition_report.h"
#include "session/prepacked_weights_container.h"
#include "session/session_allocators.h"

namespace prism {

class Profiler;

// Kernels the compile phase made for fused nodes; the planner moves each into its step.
using CompiledKernels = std::unordered_map<const Node*, std::unique_ptr<OpKernel>>;

struct PlannerInputs {
  const std::vector<std::unique_ptr<IExecutionProvider>>& providers;
  const DataTransferManager& data_transfers;
  const Assignment& assignment;
  CompiledKernels& compiled_kernels;
  SessionAllocators& allocators;  // steps allocate through the session's wrappers (arenas)
  // Where kernels' packed forms of constant inputs are kept and shared (nullptr: no prepacking).
  PrepackedWeightsContainer* prepacked = nullptr;
  // Called during planning for each main-graph constant that every reader took packed (the
  // plan holds no slot for it any more): the session may release it now.
  std::function<void(const std::string& name, const PrePackedWeight& packed)> on_packed_only;
  // The session's custom ops: a node's EP finds its kernel there first (nullptr: none).
  const CustomOpRegistry* custom_ops = nullptr;
};

// The constant initializer `name` as seen from graph (enclosing graphs included), or nullptr when
// the name is a non-constant value there.
const Tensor* FindConstantInitializer(const Graph& graph, const std::string& name);

class ExecutionPlanner {
 public:
  // Copies found are appended to report.copies. A profiler, when given, gets the kernel
  // creation totals through KernelCreationMicroseconds()/KernelsCreated().
  ExecutionPlanner(const PlannerInputs& inputs, PartitionReport& report, Profiler* profiler);
  ~ExecutionPlanner();

  // Plans the main graph and, recursively, its subgraphs.
  std::unique_ptr<GraphPlan> PlanMain(const Graph& main);
  int64_t KernelCreationMicroseconds() const;
  int64_t KernelsCreated() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism

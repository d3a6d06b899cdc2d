// Everything a session needs to run, built once per provider list: the EPs, the data transfer
// manager, the partition report and the execution plan. Immutable once built, so concurrent
// Runs share it without locks.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/thread_pool.h"
#include "framework/custom_op.h"
#include "framework/data_transfer.h"
#include "framework/execution_provider.h"
#include "graph/model.h"
#include "session/execution_plan.h"
#include "session/graph_capture.h"
#include "session/memory_pattern.h"
#include "session/partition_report.h"
#include "session/prepacked_weights_container.h"
#include "session/session_allocators.h"
#include "session/session_options.h"

namespace prism {

class Profiler;

class SessionState {
 public:
  // Runs the session's phases on its own copy of the model's graph: create the EPs (skipping or
  // failing on unavailable ones as the options say) → partition → fuse claimed groups → compile
  // them → plan (placement, copies, kernels, releases). A profiler, when given, gets "Session"
  // events for these phases.
  // release_model_weight: called with each of the model's main-graph constant initializers
  // that every reader took prepacked, as soon as that is known during planning, and with those a
  // transform replaced by a weight derived from them (the model's owner may then free its copy;
  // see ModelWeightsPrepacked()). packed.unpack gives the weight back; it is empty for a source
  // the derived weight cannot give back exactly (a Conv W folded with its BatchNormalization):
  // the owner frees such a copy only when it can read it back from elsewhere (the model file).
  using WeightReleaser =
      std::function<void(const std::string& name, const PrePackedWeight& packed)>;
  static std::shared_ptr<const SessionState> Build(const std::shared_ptr<const Model>& model,
                                                   const SessionOptions& options,
                                                   const std::vector<ProviderSpec>& providers,
                                                   Profiler* profiler = nullptr,
                                                   const WeightReleaser& release_model_weight = {});

  const Model& GetModel() const { return *model_; }
  // The session's own graph after every transform and fusion: what the plan runs.
  const Graph& GetGraph() const { return *graph_; }
  const std::vector<std::unique_ptr<IExecutionProvider>>& Providers() const { return providers_; }
  const DataTransferManager& DataTransfers() const { return data_transfers_; }
  const PartitionReport& Report() const { return report_; }
  const GraphPlan& MainPlan() const { return *main_plan_; }
  // The intra-op pool kernels split their work over; nullptr with one thread.
  ThreadPool* IntraOpPool() const { return intra_op_pool_.get(); }
  // The pool execution_mode parallel runs independent steps on; nullptr when sequential.
  ThreadPool* InterOpPool() const { return inter_op_pool_.get(); }
  // The allocators the plan allocates from (arenas; statistics). Thread-safe.
  SessionAllocators& Allocators() const { return *allocators_; }
  // The main graph's memory patterns by feed shapes; nullptr with enable_mem_pattern off.
  MemoryPatternCache* PatternCache() const { return pattern_cache_.get(); }
  // enable_mem_reuse: outputs may take over their inputs' buffers and the memory pattern may
  // place values over the same bytes; false gives every value its own buffer.
  bool MemoryReuse() const { return memory_reuse_; }
  // The model's main-graph constant initializers that every reader took prepacked: this state
  // no longer holds them (the session may release the model's copy; unpack() restores one).
  const std::vector<std::pair<std::string, PrePackedWeight>>& ModelWeightsPrepacked() const {
    return model_weights_prepacked_;
  }
  // Where this state's kernels got their packed forms (nullptr: prepacking disabled).
  const PrepackedWeightsContainer* PrepackedWeights() const { return prepacked_.get(); }
  // session.run_timeout_ms: how long one Run may take before it stops between two steps (or
  // at a subgraph's start, so every Loop iteration) with an error; 0: no limit.
  int64_t RunTimeoutMs() const { return run_timeout_ms_; }
  // Captures and replays whole runs when an EP asked for graph capture (enable_cuda_graph) and
  // runs every node of the main graph; nullptr otherwise.
  GraphCaptureRunner* GraphCapture() const { return graph_capture_.get(); }
  // The position of the main graph's input `name` in GetGraph().Inputs(); nullopt when the
  // graph has no such input (a run's feeds are matched through it).
  std::optional<size_t> InputIndex(const std::string& name) const {
    auto it = input_index_.find(name);
    return it == input_index_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

 private:
  std::shared_ptr<const Model> model_;
  // The options' custom ops; the plan's steps point at their kernel defs, so it goes last.
  std::shared_ptr<const CustomOpRegistry> custom_ops_;
  std::unique_ptr<Graph> graph_;
  std::vector<std::unique_ptr<IExecutionProvider>> providers_;
  DataTransferManager data_transfers_;
  PartitionReport report_;
  std::unique_ptr<GraphPlan> main_plan_;
  std::shared_ptr<ThreadPool> intra_op_pool_;
  std::shared_ptr<ThreadPool> inter_op_pool_;
  std::unique_ptr<SessionAllocators> allocators_;
  std::unique_ptr<MemoryPatternCache> pattern_cache_;
  bool memory_reuse_ = true;
  std::shared_ptr<PrepackedWeightsContainer> prepacked_;
  std::vector<std::pair<std::string, PrePackedWeight>> model_weights_prepacked_;
  int64_t run_timeout_ms_ = 0;
  std::unordered_map<std::string, size_t> input_index_;
  // Holds buffers of the EP's memory: declared after providers_, so destroyed before them.
  std::unique_ptr<GraphCaptureRunner> graph_capture_;
};

}  // namespace prism

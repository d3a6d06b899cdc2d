#include "session/session_state.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/logging.h"
#include "graph/model_writer.h"
#include "graph/shape_inference.h"
#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"
#include "session/cpu_node_evaluator.h"
#include "session/execution_planner.h"
#include "session/global_thread_pools.h"
#include "session/graph_partitioner.h"
#include "session/node_fuser.h"
#include "session/profiler.h"
#include "session/provider_library.h"

namespace prism {
namespace {

// Phase "compile": each fused node's EP turns it into one kernel.
CompiledKernels CompileFusedNodes(const std::vector<FusedNode>& fused) {
  CompiledKernels kernels;
  for (const FusedNode& entry : fused) {
    const Node& node = entry.graph->GetNode(entry.node);
    const Graph& graph = *entry.graph;
    OpKernelInfo info(node, *entry.provider, [&graph](const std::string& name) {
      return FindConstantInitializer(graph, name);
    });
    std::unique_ptr<OpKernel> kernel;
    try {
      kernel = entry.provider->Compile(entry.meta_def, *node.FusedBody(), info);
    } catch (const Exception& e) {
      throw Exception(e.Code(), MakeString(entry.provider->Type(), " cannot compile fused node '",
                                           node.Name(), "': ", e.what()));
    }
    PRISM_ENFORCE(kernel != nullptr, kEpFail, entry.provider->Type(),
                  " returned no kernel for fused node '", node.Name(), "'");
    kernels.emplace(&node, std::move(kernel));
  }
  return kernels;
}

// The value that sources released for a derived weight are rebuilt from: the state graph's
// tensor (sharing its buffer), or once prepacked, the packed form's unpack.
struct DerivedWeight {
  std::optional<Tensor> plain;
  std::function<Tensor()> unpack;
  Tensor Value() const { return plain ? *plain : unpack(); }
};

// TransformContext::drop_derived_sources for a session that may release the model's weights:
// drops the unread sources from owner, and releases the model's copy of each dropped source
// whose bytes the pass read from the model (main graph only), with a rebuild from `derived`.
void ReleaseDerivedSources(const Model& model, const Graph& main_graph, Graph& owner,
                           const std::string& derived, const TransformContext::Sources& sources,
                           TransformContext::Rebuild rebuild,
                           std::map<std::string, std::shared_ptr<DerivedWeight>>& derived_weights,
                           const SessionState::WeightReleaser& release_model_weight) {
  std::vector<std::string> names;
  for (const auto& [name, value] : sources) names.push_back(name);
  RemoveUnreadInitializers(owner, names);
  const Tensor* value = owner.FindInitializer(derived);
  if (&owner != &main_graph || value == nullptr) return;
  const Graph& model_graph = model.MainGraph();
  for (size_t i = 0; i < sources.size(); ++i) {
    const auto& [name, read] = sources[i];
    const Tensor* in_model = model_graph.FindInitializer(name);
    // Released only when nothing in the state reads it and it is the model's own bytes.
    if (owner.FindInitializer(name) != nullptr || in_model == nullptr ||
        !model_graph.IsConstantInitializer(name) || in_model->RawData() != read.RawData())
      continue;
    PrePackedWeight restore;
    restore.type = in_model->Type();
    restore.shape = in_model->Shape();
    if (rebuild) {  // else no exact way back from the derived weight (see WeightReleaser)
      std::shared_ptr<DerivedWeight>& holder = derived_weights[derived];
      if (!holder) holder = std::make_shared<DerivedWeight>(DerivedWeight{*value, {}});
      restore.unpack = [holder, rebuild, i] { return rebuild(holder->Value(), i); };
    }
    release_model_weight(name, restore);
  }
}

}  // namespace

std::shared_ptr<const SessionState> SessionState::Build(
    const std::shared_ptr<const Model>& model, const SessionOptions& options,
    const std::vector<ProviderSpec>& providers, Profiler* profiler,
    const WeightReleaser& release_model_weight) {
  const auto providers_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  auto state = std::make_shared<SessionState>();
  state->model_ = model;
  if (!options.custom_op_domains.empty())
    state->custom_ops_ = std::make_shared<CustomOpRegistry>(options.custom_op_domains);
  const CustomOpRegistry* custom_ops = state->custom_ops_.get();
  if (auto it = options.config_entries.find("session.run_timeout_ms");
      it != options.config_entries.end()) {
    const std::string& text = it->second;
    size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    PRISM_ENFORCE(used == text.size() && !text.empty() && text[0] >= '0' && text[0] <= '9',
                  kInvalidArgument,
                  "session config entry session.run_timeout_ms must be a number of "
                  "milliseconds, got '",
                  text, "'");
    state->run_timeout_ms_ = value;
  }
  const bool strict = options.ConfigOr("session.fail_on_unavailable_provider", "0") == "1";
  const std::string library_dir = options.ConfigOr("session.provider_library_dir", "");
  ProviderOptions cpu_options;
  std::set<std::string> seen;
  for (const ProviderSpec& spec : providers) {
    PRISM_ENFORCE(seen.insert(spec.name).second, kInvalidArgument, "provider '", spec.name,
                  "' is listed twice");
    if (spec.name == kCpuExecutionProvider) {
      cpu_options = spec.options;  // the CPU EP always goes last
      continue;
    }
    std::string why;
    auto factory = FindProviderFactory(spec.name, library_dir, &why);
    if (!factory) {
      PRISM_ENFORCE(!strict, kEpFail, why);
      PRISM_LOG(kWarning, why, "; falling back to the next provider");
      continue;
    }
    try {
      state->providers_.push_back(factory->Create(spec.options));
    } catch (const Exception& e) {
      // The EP failed to start: an EP failure, whatever its own code (retry-on-CPU relies on it).
      PRISM_THROW(kEpFail, spec.name, " could not be created: ", e.what());
    }
  }
  const bool has_other = !state->providers_.empty();
  std::string cpu_missing;
  auto cpu_factory = FindProviderFactory(kCpuExecutionProvider, library_dir, &cpu_missing);
  PRISM_ENFORCE(cpu_factory != nullptr, kEpFail, cpu_missing);
  state->providers_.push_back(cpu_factory->Create(cpu_options));
  for (const auto& provider : state->providers_)
    if (auto transfer = provider->GetDataTransfer()) state->data_transfers_.Register(transfer);
  if (profiler) {
    std::string names;
    for (const auto& provider : state->providers_)
      names += (names.empty() ? "" : ",") + provider->Type();
    profiler->RecordSession("provider_creation", providers_start, Profiler::Clock::now(),
                            {{"providers", names}});
  }

  // intra_op_num_threads: 0 means the physical cores this process may use. Without per-session
  // threads, the process's global pool serves every such session.
  if (!options.use_per_session_threads) {
    PRISM_ENFORCE(GlobalThreadPoolsCreated(), kInvalidArgument,
                  "use_per_session_threads is off but this process has no global thread pools: "
                  "create them first (C ABI CreateEnvWithGlobalThreadPools, Python "
                  "prismrt.set_global_thread_pool_sizes)");
    state->intra_op_pool_ = GlobalIntraOpPool();
    if (options.execution_mode == ExecutionMode::kParallel)
      state->inter_op_pool_ = GlobalInterOpPool();
  } else {
    const int threads =
        options.intra_op_num_threads > 0 ? options.intra_op_num_threads : DefaultIntraOpThreads();
    // onnxruntime's session.intra_op.allow_spinning: "1" (default) lets idle threads poll briefly
    // before sleeping, "0" makes them sleep at once.
    const std::string spinning = options.ConfigOr("session.intra_op.allow_spinning", "1");
    PRISM_ENFORCE(spinning == "0" || spinning == "1", kInvalidArgument,
                  "session.intra_op.allow_spinning must be \"0\" or \"1\", got \"", spinning, "\"");
    const int spin = spinning == "1" ? ThreadPool::kDefaultSpinMicroseconds : 0;
    if (threads > 1) state->intra_op_pool_ = std::make_shared<ThreadPool>(threads, spin);
    // inter_op_num_threads: steps at once in parallel mode (0: the physical cores, as above).
    const int inter =
        options.inter_op_num_threads > 0 ? options.inter_op_num_threads : DefaultIntraOpThreads();
    if (options.execution_mode == ExecutionMode::kParallel && inter > 1)
      state->inter_op_pool_ = std::make_shared<ThreadPool>(inter);
  }

  // Each phase works on the session's own copy of the graph; the loaded model stays untouched.
  state->graph_ = model->MainGraph().Clone();
  Graph& graph = *state->graph_;

  // EP-independent transforms (basic level), before partitioning.
  const auto transform_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  const int level = static_cast<int>(options.graph_optimization_level);
  std::unique_ptr<TransformerManager> transformers =
      MakeDefaultTransformers(level, options.disabled_optimizers);
  const IExecutionProvider& cpu_provider = *state->providers_.back();
  TransformContext transform_context;
  // Folded results are at most constant folding's 16 MiB, and at most session.max_tensor_bytes:
  // a larger one is never allocated (the node stays and runs under the session's limits).
  size_t fold_limit = size_t{16} << 20;
  const size_t tensor_limit = AllocationLimitsFromConfig(options.config_entries).max_tensor_bytes;
  if (tensor_limit != 0 && tensor_limit < fold_limit) fold_limit = tensor_limit;
  transform_context.evaluate_on_cpu = [&cpu_provider, fold_limit, custom_ops](
                                          const Node& node,
                                          const std::vector<const Tensor*>& inputs) {
    // A custom op of an ONNX op's type runs instead of the built-in kernel, and only at run time.
    PRISM_ENFORCE(custom_ops == nullptr || !custom_ops->Covers(node), kNotImplemented,
                  node.Describe(), " is a custom op: not folded");
    return EvaluateOnCpu(cpu_provider, node, inputs, fold_limit);
  };
  // Weights a transform computed from the model's own (packed Q/K/V, a BatchNormalization-folded
  // Conv W): the model's copies of the sources are released as soon as the state graph drops
  // them, and rebuilt from the derived weight for a later build (or, where that is not exact,
  // read back from the model file by the session). Until a kernel takes the derived weight
  // prepacked, that is the state graph's tensor; from then on its packed form, so no plain copy
  // stays alive.
  auto derived_weights = std::make_shared<std::map<std::string, std::shared_ptr<DerivedWeight>>>();
  if (release_model_weight)
    transform_context.drop_derived_sources =
        [&graph, &model, &release_model_weight, derived_weights](
            Graph& owner, const std::string& derived, const TransformContext::Sources& sources,
            TransformContext::Rebuild rebuild) {
          ReleaseDerivedSources(*model, graph, owner, derived, sources, std::move(rebuild),
                                *derived_weights, release_model_weight);
        };
  const int basic_changes = transformers->Run(graph, TransformerLevel::kBasic, transform_context);
  // Rewrites (folded shapes, removed nodes) may make more shapes static.
  if (basic_changes > 0) InferShapes(graph);
  if (profiler)
    profiler->RecordSession("graph_transforms_basic", transform_start, Profiler::Clock::now(), {},
                            {{"changes", basic_changes}});

  PartitionSettings partition_settings;
  partition_settings.disable_cpu_fallback =
      has_other && options.ConfigOr("session.disable_cpu_ep_fallback", "0") == "1";
  partition_settings.custom_ops = custom_ops;
  const auto partition_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  Assignment assignment =
      PartitionGraphs(graph, state->providers_, partition_settings, state->report_);
  if (profiler)
    profiler->RecordSession("graph_partitioning", partition_start, Profiler::Clock::now(), {},
                            {{"nodes", static_cast<int64_t>(state->report_.nodes.size())}});

  // EP-specific transforms (extended, layout): only on nodes of the EPs each pass targets; a
  // fusion's new node inherits its EP, and the partition report lists it as a fused group.
  transform_context.provider_of = [&assignment](const Graph& owner,
                                                NodeIndex index) -> const IExecutionProvider* {
    auto it = assignment.find(&owner);
    return it != assignment.end() && index < it->second.provider_of.size()
               ? it->second.provider_of[index]
               : nullptr;
  };
  PartitionReport& report = state->report_;
  transform_context.on_fused = [&assignment, &report](
                                   const Graph& owner, const std::vector<std::string>& replaced,
                                   NodeIndex fused, const IExecutionProvider* provider) {
    GraphAssignment& graph_assignment = assignment.at(&owner);
    graph_assignment.provider_of.resize(owner.NodeCount(), nullptr);
    graph_assignment.provider_of[fused] = provider;
    // A helper node that replaces none of the model's (a Reshape, a Cast) only gets its EP.
    if (replaced.empty()) return;
    const Node& node = owner.GetNode(fused);
    for (NodePlacement& placement : report.nodes)
      if (placement.graph == graph_assignment.path &&
          std::find(replaced.begin(), replaced.end(), placement.node_name) != replaced.end()) {
        placement.fused_into = node.Name();
        // It now runs where the fused node runs (a Clip the CUDA EP declined, fused into the
        // FusedConv of a Conv the CUDA EP runs, runs on the CUDA EP).
        if (provider != nullptr) placement.provider = provider->Type();
      }
    // Recorded like an EP's compiled group: the report keeps counting the model's own nodes.
    report.fused_groups.push_back(
        FusedGroupRecord{graph_assignment.path, node.Name(), node.Domain(),
                         provider != nullptr ? provider->Type() : "", replaced});
  };
  if (level >= static_cast<int>(GraphOptimizationLevel::kExtended))
    transformers->Run(graph, TransformerLevel::kExtended, transform_context);
  if (level >= static_cast<int>(GraphOptimizationLevel::kLayout))
    transformers->Run(graph, TransformerLevel::kLayout, transform_context);

  // optimized_model_filepath: the transformed graph, before EPs fuse what they compile (a
  // compiled node has no ONNX form).
  if (!options.optimized_model_filepath.empty())
    SaveModel(*model, graph, options.optimized_model_filepath);

  const auto fuse_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  std::vector<FusedNode> fused = FuseClaimedGroups(graph, assignment, state->report_);
  CompiledKernels compiled = CompileFusedNodes(fused);
  if (profiler && !fused.empty())
    profiler->RecordSession("fuse_and_compile", fuse_start, Profiler::Clock::now(), {},
                            {{"fused_nodes", static_cast<int64_t>(fused.size())}});

  state->allocators_ = std::make_unique<SessionAllocators>(options);
  if (options.enable_mem_pattern) state->pattern_cache_ = std::make_unique<MemoryPatternCache>();
  state->memory_reuse_ = options.enable_mem_reuse;
  if (options.ConfigOr("session.disable_prepacking", "0") != "1")
    state->prepacked_ = options.prepacked_weights != nullptr
                            ? options.prepacked_weights
                            : std::make_shared<PrepackedWeightsContainer>(/*by_content=*/false);
  PlannerInputs planner_inputs{state->providers_,   state->data_transfers_,  assignment, compiled,
                               *state->allocators_, state->prepacked_.get(), {}};
  planner_inputs.custom_ops = custom_ops;
  // A weight every reader took packed leaves this state's graph at once. When it is still the
  // model's own bytes (not made or changed by a transformer), the session may release the
  // model's copy too (release_model_weight), so the original is freed before the next is packed.
  planner_inputs.on_packed_only = [&](const std::string& name, const PrePackedWeight& packed) {
    const Tensor* in_model = model->MainGraph().FindInitializer(name);
    const Tensor* in_state = graph.FindInitializer(name);
    const bool models_own = in_model != nullptr && in_state != nullptr &&
                            model->MainGraph().IsConstantInitializer(name) &&
                            in_model->RawData() == in_state->RawData();
    graph.RemoveInitializer(name);
    // A derived weight now lives only packed: released sources are rebuilt from that form.
    if (auto derived = derived_weights->find(name); derived != derived_weights->end()) {
      derived->second->unpack = packed.unpack;
      derived->second->plain.reset();
    }
    if (!models_own) return;
    state->model_weights_prepacked_.emplace_back(name, packed);
    if (release_model_weight) release_model_weight(name, packed);
  };
  ExecutionPlanner planner(planner_inputs, state->report_, profiler);
  const auto planning_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  state->main_plan_ = planner.PlanMain(graph);
  for (size_t i = 0; i < graph.Inputs().size(); ++i)
    state->input_index_.emplace(graph.Inputs()[i]->name, i);
  if (profiler)
    profiler->RecordSession("graph_planning", planning_start, Profiler::Clock::now(), {},
                            {{"nodes", static_cast<int64_t>(state->report_.nodes.size())},
                             {"copies", static_cast<int64_t>(state->report_.copies.size())},
                             {"kernels_created", planner.KernelsCreated()},
                             {"kernel_creation_us", planner.KernelCreationMicroseconds()}});
  for (const auto& provider : state->providers_) {
    if (!provider->GraphCaptureEnabled()) continue;
    std::string elsewhere;
    for (const NodePlacement& node : state->report_.nodes)
      if (node.graph == "main" && node.provider != provider->Type() && elsewhere.size() < 200)
        elsewhere += (elsewhere.empty() ? "" : ", ") + node.node_name + " (" + node.op_type +
                     ") on " + node.provider;
    if (elsewhere.empty()) {
      state->graph_capture_ = std::make_unique<GraphCaptureRunner>(*provider);
    } else {
      PRISM_LOG(kWarning, provider->Type(),
                ": graph capture was asked for, but not every node runs on this EP, so runs go "
                "step by step: ",
                elsewhere);
    }
  }
  return state;
}

}  // namespace prism

#include "session/session_state.h"

#include <algorithm>
#include <set>

#include "common/logging.h"
#include "session/profiler.h"
#include "session/provider_library.h"

namespace prism {

int GraphPlan::AddSlot(const std::string& name, const MemoryInfo& memory) {
  slot_names.push_back(name);
  slot_memory.push_back(memory);
  keep.push_back(false);
  return static_cast<int>(slot_names.size()) - 1;
}

namespace {

std::string DescribeInputTypes(const Node& node) {
  std::string text;
  for (size_t i = 0; i < node.InputCount(); ++i) {
    text += i ? ", " : "";
    text += node.HasInput(i) ? node.Inputs()[i]->type.ToString() : "<omitted>";
  }
  return "(" + text + ")";
}

const Tensor* FindConstant(const Graph& graph, const std::string& name) {
  for (const Graph* g = &graph; g != nullptr; g = g->Parent()) {
    if (g->IsConstantInitializer(name)) return g->FindInitializer(name);
    if (g->FindNodeArg(name) != nullptr) return nullptr;  // a local, non-constant value
  }
  return nullptr;
}

}  // namespace

class SessionState::Planner {
 public:
  Planner(SessionState& state, const SessionOptions& options, bool disable_cpu_fallback,
          Profiler* profiler)
      : state_(state),
        options_(options),
        disable_cpu_fallback_(disable_cpu_fallback),
        profiler_(profiler) {}

  // Kernel creation is interleaved with planning, so the profiler gets its total.
  int64_t KernelCreationMicroseconds() const { return kernel_creation_ns_ / 1000; }
  int64_t KernelsCreated() const { return kernels_created_; }

  // outer_memory: where the enclosing frame keeps each outer-scope value.
  std::unique_ptr<GraphPlan> PlanGraph(
      const Graph& graph, const std::string& path,
      const std::function<MemoryInfo(const std::string&)>& outer_memory) {
    auto plan = std::make_unique<GraphPlan>();
    plan->graph = &graph;
    plan->path = path;
    const auto partition_start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
    const std::vector<const IExecutionProvider*> assignment = Partition(graph, path);
    if (profiler_)
      profiler_->RecordSession("graph_partitioning", partition_start, Profiler::Clock::now(),
                               {{"graph", path}});

    const MemoryInfo cpu = CpuMemoryInfo();
    std::map<int, const Tensor*> constant_of;  // slots of constant initializers (not overridable)
    for (const NodeArg* input : graph.Inputs()) {
      const int slot = plan->AddSlot(input->name, cpu);
      plan->slot_of[input->name] = slot;
      plan->input_slots.push_back(slot);
    }
    for (const auto& [name, tensor] : graph.Initializers()) {
      auto it = plan->slot_of.find(name);
      const int slot = it != plan->slot_of.end() ? it->second : plan->AddSlot(name, cpu);
      plan->slot_of[name] = slot;
      plan->constant_slots.emplace_back(slot, &tensor);
      if (graph.IsConstantInitializer(name)) constant_of[slot] = &tensor;
    }
    for (const std::string& name : graph.OuterScopeValues()) {
      const int slot = plan->AddSlot(name, outer_memory(name));
      plan->slot_of[name] = slot;
      plan->outer_slots.emplace_back(name, slot);
    }

    // Copies already made: (source slot, memory name) -> (slot in that memory, report entry).
    std::map<std::pair<int, std::string>, std::pair<int, size_t>> copies;
    auto slot_in = [&](int source, const MemoryInfo& wanted, const std::string& consumer,
                       const std::string& reason) -> int {
      if (plan->slot_memory[source].SameSpace(wanted)) return source;
      const auto key = std::make_pair(source, wanted.ToString());
      auto found = copies.find(key);
      if (found != copies.end()) {
        state_.report_.copies[found->second.second].consumers.push_back(consumer);
        return found->second.first;
      }
      // A copy, not a reference: AddSlot grows slot_names and would leave a reference dangling.
      const std::string name = plan->slot_names[source];
      const MemoryInfo from = plan->slot_memory[source];
      const int target = plan->AddSlot(name + "@" + wanted.ToString(), wanted);
      const IDataTransfer* transfer = state_.data_transfers_.Find(from, wanted);
      PRISM_ENFORCE(transfer != nullptr, kEpFail, "value '", name, "' must move from ",
                    from.ToString(), " to ", wanted.ToString(), " for ", consumer,
                    ", but no EP provides that data transfer");
      CopyRecord record{path,     name,   from.ToString(), wanted.ToString(),
                        consumer, reason, {consumer}};
      if (auto constant = constant_of.find(source); constant != constant_of.end()) {
        // A constant moves once, now, into the memory of the EP that reads it.
        auto placed = std::make_unique<Tensor>(constant->second->Type(), constant->second->Shape(),
                                               AllocatorFor(wanted));
        transfer->CopyTensor(*constant->second, *placed);
        plan->constant_slots.emplace_back(target, placed.get());
        plan->placed_constants.push_back(std::move(placed));
        record.reason += "; constant, placed once at session creation";
        record.per_run = false;
      } else {
        ExecutionStep copy;
        copy.kind = ExecutionStep::Kind::kCopy;
        copy.copy_source = source;
        copy.copy_target = target;
        copy.copy_allocator = AllocatorFor(wanted);
        plan->steps.push_back(std::move(copy));
        // A run whose feed for this input is already in the wanted memory uses it in place.
        record.skipped_when_fed_there =
            std::find(plan->input_slots.begin(), plan->input_slots.end(), source) !=
            plan->input_slots.end();
        if (record.skipped_when_fed_there)
          record.reason +=
              MakeString("; graph input, not copied when fed in ", wanted.ToString(), " memory");
      }
      state_.report_.copies.push_back(std::move(record));
      copies[key] = {target, state_.report_.copies.size() - 1};
      return target;
    };

    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      const IExecutionProvider* provider = assignment[index];
      std::string why;
      const KernelCreateInfo* info = provider->GetKernelRegistry()->Find(node, &why);
      PRISM_ENFORCE(info != nullptr, kEpFail, provider->Type(), " claimed ", node.Describe(),
                    " but has no kernel for it: ", why);
      const MemoryInfo device = provider->GetAllocator(MemType::kDefault)->Info();

      ExecutionStep step;
      step.node = &node;
      step.provider = provider;
      step.kernel_def = &info->def;
      step.temp_allocator = provider->GetAllocator(MemType::kDefault);
      for (size_t i = 0; i < node.InputCount(); ++i) {
        if (!node.HasInput(i)) {
          step.inputs.push_back(-1);
          continue;
        }
        const std::string& name = node.Inputs()[i]->name;
        const bool wants_cpu = info->def.cpu_inputs.count(static_cast<int>(i)) > 0;
        const MemoryInfo& wanted = wants_cpu ? cpu : device;
        step.inputs.push_back(slot_in(
            plan->slot_of.at(name), wanted, node.Describe(),
            wants_cpu ? MakeString("input ", i, " must be in CPU memory")
                      : MakeString(provider->Type(), " reads input ", i, " from its own memory")));
      }
      // Subgraphs read outer values where the enclosing frame keeps them. Their path names the
      // attribute too ("main/if:then_branch"), as the loader's errors do, so branches differ.
      for (const auto& [attribute_name, attribute] : node.Attributes()) {
        for (size_t g = 0; g < attribute.graphs.size(); ++g) {
          const Graph* sub = attribute.graphs[g].get();
          const std::string sub_path =
              MakeString(path, "/", node.Name(), ":", attribute_name,
                         attribute.type == AttributeType::kGraphs ? std::to_string(g) : "");
          auto sub_plan = PlanGraph(*sub, sub_path, [&](const std::string& name) {
            auto it = plan->slot_of.find(name);
            return it != plan->slot_of.end() ? plan->slot_memory[it->second] : outer_memory(name);
          });
          plan->subgraphs[sub] = std::move(sub_plan);
        }
      }
      for (size_t o = 0; o < node.OutputCount(); ++o) {
        const bool on_cpu = info->def.cpu_outputs.count(static_cast<int>(o)) > 0;
        AllocatorPtr allocator = on_cpu ? provider->GetAllocator(MemType::kCpuOutput)
                                        : provider->GetAllocator(MemType::kDefault);
        step.output_allocators.push_back(allocator);
        if (!node.HasOutput(o)) {
          step.outputs.push_back(-1);
          continue;
        }
        const std::string& name = node.Outputs()[o]->name;
        const int slot = plan->AddSlot(name, allocator->Info());
        plan->slot_of[name] = slot;
        step.outputs.push_back(slot);
      }
      OpKernelInfo kernel_info(
          node, *provider, [&graph](const std::string& name) { return FindConstant(graph, name); });
      const auto create_start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
      try {
        step.kernel = info->factory(kernel_info);
      } catch (const Exception& e) {
        throw Exception(e.Code(), MakeString(node.Describe(), " (", provider->Type(),
                                             "): cannot create kernel: ", e.what()));
      }
      if (profiler_) {
        kernel_creation_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   Profiler::Clock::now() - create_start)
                                   .count();
        ++kernels_created_;
      }
      plan->steps.push_back(std::move(step));
    }

    // Subgraph results go back to their (CPU) control-flow kernel; main graph outputs are
    // copied to the caller's memory by Run.
    for (const NodeArg* output : graph.Outputs()) {
      int slot = plan->slot_of.at(output->name);
      if (graph.Parent() != nullptr)
        slot = slot_in(slot, cpu, "graph output",
                       "subgraph outputs return to the CPU control-flow kernel");
      plan->output_slots.push_back(slot);
      plan->keep[slot] = true;
    }
    ComputeReleases(*plan);
    ComputeDirectInputReads(*plan);
    return plan;
  }

  std::vector<const IExecutionProvider*> Partition(const Graph& graph, const std::string& path) {
    std::vector<const IExecutionProvider*> assignment(graph.NodeCount(), nullptr);
    std::vector<std::vector<std::pair<std::string, std::string>>> declined(graph.NodeCount());
    std::vector<NodeIndex> remaining = graph.TopologicalOrder();
    for (const auto& provider : state_.providers_) {
      if (remaining.empty()) break;
      GraphViewer viewer(graph, remaining);
      auto registry = provider->GetKernelRegistry();
      KernelLookup lookup(registry.get());
      std::vector<DeclinedNode> refusals;
      std::vector<ComputeCapability> claims = provider->GetCapability(viewer, lookup, &refusals);
      std::set<NodeIndex> taken;
      for (const ComputeCapability& claim : claims) {
        PRISM_ENFORCE(claim.meta_def == nullptr, kNotImplemented, provider->Type(),
                      " claimed fused subgraph '", claim.meta_def ? claim.meta_def->name : "",
                      "'; fused capabilities are not supported by the executor yet");
        for (NodeIndex index : claim.nodes) {
          PRISM_ENFORCE(viewer.Contains(index) && assignment[index] == nullptr, kEpFail,
                        provider->Type(), " claimed node ", index,
                        ", which was not offered to it or is already taken");
          assignment[index] = provider.get();
          taken.insert(index);
        }
      }
      std::map<NodeIndex, std::string> reasons;
      for (const DeclinedNode& refusal : refusals) reasons[refusal.node] = refusal.reason;
      std::vector<NodeIndex> still;
      for (NodeIndex index : remaining) {
        if (taken.count(index)) continue;
        auto it = reasons.find(index);
        declined[index].emplace_back(provider->Type(), it != reasons.end()
                                                           ? it->second
                                                           : "not claimed by its GetCapability");
        still.push_back(index);
      }
      remaining = std::move(still);
    }
    if (!remaining.empty()) {
      const Node& node = graph.GetNode(remaining.front());
      std::string reasons;
      for (const auto& [provider, reason] : declined[node.Index()])
        reasons += MakeString("; ", provider, ": ", reason);
      PRISM_THROW(kNotImplemented, "no execution provider can run ", node.Describe(), " in graph ",
                  path, " (op ", node.Domain().empty() ? "" : node.Domain() + ".", node.OpType(),
                  ", opset ", node.OpsetVersion(), ", input types ", DescribeInputTypes(node), ")",
                  reasons);
    }
    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      if (disable_cpu_fallback_ && assignment[index]->Type() == kCpuExecutionProvider) {
        std::string reasons;
        for (const auto& [provider, reason] : declined[index])
          reasons += MakeString("; ", provider, ": ", reason);
        PRISM_THROW(kEpFail, node.Describe(),
                    " would fall back to the CPU EP, and CPU fallback is "
                    "disabled (session.disable_cpu_ep_fallback)",
                    reasons);
      }
      NodePlacement placement{path,
                              node.Name(),
                              node.OpType(),
                              node.Domain(),
                              node.OpsetVersion(),
                              assignment[index]->Type(),
                              declined[index],
                              {},
                              {}};
      for (const NodeArg* arg : node.Inputs())
        if (arg) placement.inputs.push_back(arg->name);
      for (const NodeArg* arg : node.ImplicitInputs()) placement.inputs.push_back(arg->name);
      for (const NodeArg* arg : node.Outputs())
        if (arg) placement.outputs.push_back(arg->name);
      state_.report_.nodes.push_back(std::move(placement));
    }
    return assignment;
  }

 private:
  AllocatorPtr AllocatorFor(const MemoryInfo& memory) const {
    for (const auto& provider : state_.providers_) {
      AllocatorPtr allocator = provider->GetAllocator(MemType::kDefault);
      if (allocator->Info().SameSpace(memory)) return allocator;
    }
    return GetCpuAllocator();
  }

  static void ComputeReleases(GraphPlan& plan) {
    std::vector<int> last_use(plan.slot_names.size(), -1);
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      const ExecutionStep& step = plan.steps[s];
      auto touch = [&](int slot) {
        if (slot >= 0) last_use[slot] = static_cast<int>(s);
      };
      if (step.kind == ExecutionStep::Kind::kCopy) {
        touch(step.copy_source);
        touch(step.copy_target);
        continue;
      }
      for (int slot : step.inputs) touch(slot);
      for (int slot : step.outputs) touch(slot);
      for (const NodeArg* arg : step.node->ImplicitInputs()) {
        auto it = plan.slot_of.find(arg->name);
        if (it != plan.slot_of.end()) touch(it->second);
      }
    }
    for (size_t slot = 0; slot < last_use.size(); ++slot)
      if (last_use[slot] >= 0 && !plan.keep[slot])
        plan.steps[last_use[slot]].release_after.push_back(static_cast<int>(slot));
  }

  // Which graph inputs something other than a copy step reads in their planned memory: kernel
  // inputs, subgraphs' outer-scope reads (implicit inputs) and, in subgraphs, the graph's
  // results (main graph results are moved to the caller's memory by Run).
  static void ComputeDirectInputReads(GraphPlan& plan) {
    std::vector<bool> read(plan.slot_names.size(), false);
    for (const ExecutionStep& step : plan.steps) {
      if (step.kind == ExecutionStep::Kind::kCopy) continue;
      for (int slot : step.inputs)
        if (slot >= 0) read[slot] = true;
      for (const NodeArg* arg : step.node->ImplicitInputs()) {
        auto it = plan.slot_of.find(arg->name);
        if (it != plan.slot_of.end()) read[it->second] = true;
      }
    }
    if (plan.graph->Parent() != nullptr)
      for (int slot : plan.output_slots) read[slot] = true;
    for (int slot : plan.input_slots) plan.input_read_directly.push_back(read[slot]);
  }

  SessionState& state_;
  const SessionOptions& options_;
  bool disable_cpu_fallback_;
  Profiler* profiler_;
  int64_t kernel_creation_ns_ = 0;
  int64_t kernels_created_ = 0;
};

std::shared_ptr<const SessionState> SessionState::Build(const std::shared_ptr<const Model>& model,
                                                        const SessionOptions& options,
                                                        const std::vector<ProviderSpec>& providers,
                                                        Profiler* profiler) {
  const auto providers_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  auto state = std::make_shared<SessionState>();
  state->model_ = model;
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
    state->providers_.push_back(factory->Create(spec.options));
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

  const bool disable_fallback =
      has_other && options.ConfigOr("session.disable_cpu_ep_fallback", "0") == "1";
  Planner planner(*state, options, disable_fallback, profiler);
  const auto planning_start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  state->main_plan_ = planner.PlanGraph(model->MainGraph(), "main", [](const std::string& name) {
    PRISM_THROW(kInvalidGraph, "main graph reads undefined value '", name, "'");
    return CpuMemoryInfo();
  });
  if (profiler)
    profiler->RecordSession("graph_planning", planning_start, Profiler::Clock::now(), {},
                            {{"nodes", static_cast<int64_t>(state->report_.nodes.size())},
                             {"copies", static_cast<int64_t>(state->report_.copies.size())},
                             {"kernels_created", planner.KernelsCreated()},
                             {"kernel_creation_us", planner.KernelCreationMicroseconds()}});
  return state;
}

}  // namespace prism

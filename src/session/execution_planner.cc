#include "session/execution_planner.h"

#include <algorithm>
#include <map>

#include "session/profiler.h"

namespace prism {

int GraphPlan::AddSlot(const std::string& name, const MemoryInfo& memory) {
  slot_names.push_back(name);
  slot_memory.push_back(memory);
  keep.push_back(false);
  return static_cast<int>(slot_names.size()) - 1;
}

const Tensor* FindConstantInitializer(const Graph& graph, const std::string& name) {
  for (const Graph* g = &graph; g != nullptr; g = g->Parent()) {
    if (g->IsConstantInitializer(name)) return g->FindInitializer(name);
    if (g->FindNodeArg(name) != nullptr) return nullptr;  // a local, non-constant value
  }
  return nullptr;
}

class ExecutionPlanner::Impl {
 public:
  Impl(const PlannerInputs& inputs, PartitionReport& report, Profiler* profiler)
      : in_(inputs), report_(report), profiler_(profiler) {}

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
    const std::vector<const IExecutionProvider*>& assignment =
        in_.assignment.at(&graph).provider_of;

    const MemoryInfo cpu = CpuMemoryInfo();
    std::map<int, const Tensor*> constant_of;  // slots of constant initializers (not overridable)
    // Per constant slot: the node inputs that read it still unpacked (-1: also read otherwise,
    // by a subgraph or as a graph output, so never released).
    std::map<int, int> unpacked_reads;
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
    for (const auto& [slot, tensor] : constant_of) unpacked_reads[slot] = 0;
    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      for (const NodeArg* arg : node.Inputs()) {
        if (arg == nullptr) continue;
        auto found = plan->slot_of.find(arg->name);
        if (found == plan->slot_of.end()) continue;  // made by a node, not a constant
        auto it = unpacked_reads.find(found->second);
        if (it != unpacked_reads.end() && it->second >= 0) ++it->second;
      }
      for (const NodeArg* arg : node.ImplicitInputs())
        if (auto it = plan->slot_of.find(arg->name); it != plan->slot_of.end())
          if (unpacked_reads.count(it->second)) unpacked_reads[it->second] = -1;
    }
    for (const NodeArg* output : graph.Outputs())
      if (auto it = plan->slot_of.find(output->name); it != plan->slot_of.end())
        if (unpacked_reads.count(it->second)) unpacked_reads[it->second] = -1;
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
      // CPU reads take any host memory as it is (a device EP's page-locked CPU outputs).
      if (wanted.IsCpuAccessible() && wanted.name == cpu.name &&
          plan->slot_memory[source].IsCpuAccessible())
        return source;
      const auto key = std::make_pair(source, wanted.ToString());
      auto found = copies.find(key);
      if (found != copies.end()) {
        report_.copies[found->second.second].consumers.push_back(consumer);
        return found->second.first;
      }
      // A copy, not a reference: AddSlot grows slot_names and would leave a reference dangling.
      const std::string name = plan->slot_names[source];
      const MemoryInfo from = plan->slot_memory[source];
      const int target = plan->AddSlot(name + "@" + wanted.ToString(), wanted);
      const IDataTransfer* transfer = in_.data_transfers.Find(from, wanted);
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
      report_.copies.push_back(std::move(record));
      copies[key] = {target, report_.copies.size() - 1};
      return target;
    };

    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      const IExecutionProvider* provider = assignment[index];
      // A fused node's kernel was compiled already; its def says only where it runs.
      const KernelDef* def = nullptr;
      const KernelCreateInfo* info = nullptr;
      if (node.FusedBody() != nullptr) {
        def = FusedKernelDef(*plan, node);
      } else {
        std::string why;
        const auto registry = provider->GetKernelRegistry();
        info = KernelLookup(registry.get(), in_.custom_ops, provider->Type()).Find(node, &why);
        PRISM_ENFORCE(info != nullptr, kEpFail, provider->Type(), " claimed ", node.Describe(),
                      " but has no kernel for it: ", why);
        def = &info->def;
      }
      const MemoryInfo device = provider->GetAllocator(MemType::kDefault)->Info();

      ExecutionStep step;
      step.node = &node;
      step.provider = provider;
      step.kernel_def = def;
      step.temp_allocator = in_.allocators.For(*provider, MemType::kDefault);
      for (size_t i = 0; i < node.InputCount(); ++i) {
        if (!node.HasInput(i)) {
          step.inputs.push_back(-1);
          continue;
        }
        const std::string& name = node.Inputs()[i]->name;
        const bool wants_cpu = def->cpu_inputs.count(static_cast<int>(i)) > 0;
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
        const bool on_cpu = def->cpu_outputs.count(static_cast<int>(o)) > 0;
        AllocatorPtr allocator =
            in_.allocators.For(*provider, on_cpu ? MemType::kCpuOutput : MemType::kDefault);
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
      const auto create_start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
      if (info == nullptr) {
        auto compiled = in_.compiled_kernels.find(&node);
        PRISM_ENFORCE(compiled != in_.compiled_kernels.end(), kEpFail, node.Describe(),
                      " is a fused node that was never compiled");
        step.kernel = std::move(compiled->second);
        in_.compiled_kernels.erase(compiled);
      } else {
        OpKernelInfo kernel_info(node, *provider, [&graph](const std::string& name) {
          return FindConstantInitializer(graph, name);
        });
        try {
          step.kernel = info->factory(kernel_info);
          if (in_.prepacked != nullptr)
            PrePackConstants(graph, *plan, step, constant_of, unpacked_reads);
        } catch (const Exception& e) {
          throw Exception(e.Code(), MakeString(node.Describe(), " (", provider->Type(),
                                               "): cannot create kernel: ", e.what()));
        }
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
    ComputeDependencies(*plan);
    ComputeDirectInputReads(*plan);
    return plan;
  }

 private:
  AllocatorPtr AllocatorFor(const MemoryInfo& memory) const {
    for (const auto& provider : in_.providers) {
      AllocatorPtr allocator = in_.allocators.For(*provider, MemType::kDefault);
      if (allocator->Info().SameSpace(memory)) return allocator;
    }
    return in_.allocators.For(*in_.providers.back(), MemType::kDefault);  // the CPU EP's
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

  static void ComputeDependencies(GraphPlan& plan) {
    const size_t steps = plan.steps.size();
    std::vector<int> producer(plan.slot_names.size(), -1);
    plan.dependency_count.assign(steps, 0);
    plan.dependents.assign(steps, {});
    plan.reads.assign(steps, {});
    plan.reader_count.assign(plan.slot_names.size(), 0);
    for (size_t s = 0; s < steps; ++s) {
      const ExecutionStep& step = plan.steps[s];
      std::vector<int>& reads = plan.reads[s];
      auto read = [&](int slot) {
        if (slot >= 0 && std::find(reads.begin(), reads.end(), slot) == reads.end())
          reads.push_back(slot);
      };
      if (step.kind == ExecutionStep::Kind::kCopy) {
        read(step.copy_source);
      } else {
        for (int slot : step.inputs) read(slot);
        for (const NodeArg* arg : step.node->ImplicitInputs()) {
          auto it = plan.slot_of.find(arg->name);
          if (it != plan.slot_of.end()) read(it->second);
        }
      }
      std::vector<int> waits_on;
      for (int slot : reads) {
        ++plan.reader_count[slot];
        const int from = producer[slot];
        if (from >= 0 && std::find(waits_on.begin(), waits_on.end(), from) == waits_on.end())
          waits_on.push_back(from);
      }
      for (int from : waits_on) plan.dependents[from].push_back(static_cast<int>(s));
      plan.dependency_count[s] = static_cast<int>(waits_on.size());
      if (step.kind == ExecutionStep::Kind::kCopy) {
        producer[step.copy_target] = static_cast<int>(s);
      } else {
        for (int slot : step.outputs)
          if (slot >= 0) producer[slot] = static_cast<int>(s);
      }
    }
  }

  // Offers each constant input of a new kernel to its prepacking: a kernel that names a packed
  // form gets it (packed now, or the one the container holds for the same bytes and format) and
  // from then on reads no tensor for that input. A constant whose last unpacked reader this was
  // leaves the per-run slots at once, and the main graph's go to in_.on_packed_only, which may
  // release them, so that originals and packed forms are not all held together at the peak.
  void PrePackConstants(const Graph& graph, GraphPlan& plan, ExecutionStep& step,
                        std::map<int, const Tensor*>& constant_of,
                        std::map<int, int>& unpacked_reads) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const int slot = step.inputs[i];
      auto constant = constant_of.find(slot);
      if (constant == constant_of.end()) continue;
      const Tensor& weight = *constant->second;
      const int index = static_cast<int>(i);
      const std::string format = step.kernel->PrePackFormat(index, weight);
      if (format.empty()) continue;
      PrePackedWeight packed = in_.prepacked->GetOrPack(
          format, weight, [&] { return step.kernel->PrePack(index, weight); });
      step.kernel->UsePrePacked(index, packed);
      step.inputs[i] = -1;
      ++plan.prepacked_inputs;
      int& unpacked = unpacked_reads.at(slot);
      if (unpacked < 0 || --unpacked > 0) continue;
      // Every reader took it packed: no run needs the original.
      auto& slots = plan.constant_slots;
      slots.erase(std::remove_if(slots.begin(), slots.end(),
                                 [slot](const auto& entry) { return entry.first == slot; }),
                  slots.end());
      constant_of.erase(constant);
      plan.prepacked_only.emplace_back(plan.slot_names[slot], packed);
      if (graph.Parent() == nullptr && in_.on_packed_only)
        in_.on_packed_only(plan.slot_names[slot], packed);
    }
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

  // The def a fused node's step reports (compute traces, docs): its op and EP, no constraints.
  static const KernelDef* FusedKernelDef(GraphPlan& plan, const Node& node) {
    auto def = std::make_unique<KernelDef>();
    def->op_type = node.OpType();
    def->domain = node.Domain();
    def->since_version = node.OpsetVersion();
    plan.fused_kernel_defs.push_back(std::move(def));
    return plan.fused_kernel_defs.back().get();
  }

  const PlannerInputs& in_;
  PartitionReport& report_;
  Profiler* profiler_;
  int64_t kernel_creation_ns_ = 0;
  int64_t kernels_created_ = 0;
};

ExecutionPlanner::ExecutionPlanner(const PlannerInputs& inputs, PartitionReport& report,
                                   Profiler* profiler)
    : impl_(std::make_unique<Impl>(inputs, report, profiler)) {}

ExecutionPlanner::~ExecutionPlanner() = default;

std::unique_ptr<GraphPlan> ExecutionPlanner::PlanMain(const Graph& main) {
  return impl_->PlanGraph(main, "main", [](const std::string& name) {
    PRISM_THROW(kInvalidGraph, "main graph reads undefined value '", name, "'");
    return CpuMemoryInfo();
  });
}

int64_t ExecutionPlanner::KernelCreationMicroseconds() const {
  return impl_->KernelCreationMicroseconds();
}

int64_t ExecutionPlanner::KernelsCreated() const {
  return impl_->KernelsCreated();
}

}  // namespace prism

#include "session/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>

#include "common/logging.h"
#include "framework/compute_trace.h"
#include "session/memory_pattern.h"
#include "session/profiler.h"

namespace prism {

class ExecutionFrame {
 public:
  ExecutionFrame(const GraphPlan& plan, const ExecutionFrame* parent)
      : plan_(plan),
        parent_(parent),
        slots_(plan.slot_names.size()),
        allocated_here_(plan.slot_names.size(), 0) {}

  const GraphPlan& Plan() const { return plan_; }
  std::vector<Value>& Slots() { return slots_; }
  // Whether this run allocated the slot's buffer for a kernel's output (not a feed, a constant
  // or a view made by a kernel): only those may be written over in place.
  // (char, not bool: steps running in parallel write their own slots' entries.)
  std::vector<char>& AllocatedHere() { return allocated_here_; }

  // When the run must stop (session.run_timeout_ms): set by the main graph's frame, inherited
  // by its subgraphs' frames; max() when there is no limit.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // The main graph's memory pattern, recording or replaying (at most one is set).
  PatternRecorder* recorder = nullptr;
  PatternRun* replay = nullptr;
  bool parallel = false;  // steps run concurrently (execution_mode parallel)

  // A value visible from this frame by name (for child frames' outer scope).
  const Value& Lookup(const std::string& name) const {
    auto it = plan_.slot_of.find(name);
    if (it != plan_.slot_of.end()) return slots_[it->second];
    PRISM_ENFORCE(parent_ != nullptr, kRuntimeException, "outer-scope value '", name,
                  "' is not defined in any enclosing graph");
    return parent_->Lookup(name);
  }

 private:
  const GraphPlan& plan_;
  const ExecutionFrame* parent_;
  std::vector<Value> slots_;
  std::vector<char> allocated_here_;
};

namespace {

class KernelContext final : public OpKernelContext {
 public:
  KernelContext(const SessionState& state, const ExecutionStep& step, int step_index,
                ExecutionFrame& frame, const RunOptions& run_options,
                RunInstrumentation* instrumentation)
      : OpKernelContext(*step.node),
        state_(state),
        step_(step),
        step_index_(step_index),
        frame_(frame),
        run_options_(run_options),
        instrumentation_(instrumentation) {}

  size_t InputCount() const override { return step_.inputs.size(); }
  const Value* InputValue(size_t i) const override {
    if (i >= step_.inputs.size() || step_.inputs[i] < 0) return nullptr;
    return &frame_.Slots()[step_.inputs[i]];
  }
  size_t OutputCount() const override { return step_.outputs.size(); }

  Tensor& Output(size_t i, const TensorShape& shape, ElementType type) override {
    PRISM_ENFORCE(i < step_.outputs.size(), kRuntimeException, GetNode().Describe(),
                  ": output index ", i, " is out of range");
    Value& slot = SlotFor(i);
    slot = Value(NewOutputTensor(i, shape, type));
    if (step_.outputs[i] >= 0) frame_.AllocatedHere()[step_.outputs[i]] = true;
    return slot.MutableTensor();
  }

  void SetOutput(size_t i, Value value) override {
    PRISM_ENFORCE(i < step_.outputs.size(), kRuntimeException, GetNode().Describe(),
                  ": output index ", i, " is out of range");
    SlotFor(i) = std::move(value);
    if (step_.outputs[i] >= 0) frame_.AllocatedHere()[step_.outputs[i]] = false;
  }

  bool IsOutputRequested(size_t i) const override {
    return i < step_.outputs.size() && step_.outputs[i] >= 0;
  }

  const AllocatorPtr& TempAllocator() const override {
    if (temp_allocator_ == nullptr) {
      if (frame_.replay != nullptr)
        temp_allocator_ = frame_.replay->ScratchAllocator(step_index_, step_.temp_allocator);
      else if (frame_.recorder != nullptr)
        temp_allocator_ = frame_.recorder->Wrap(step_.temp_allocator, step_index_, -1);
      else
        temp_allocator_ = step_.temp_allocator;
    }
    return temp_allocator_;
  }
  ThreadPool* IntraOpThreadPool() const override { return state_.IntraOpPool(); }

  std::vector<Value> RunSubgraph(const Graph& subgraph, const std::vector<Value>& inputs) override {
    auto it = frame_.Plan().subgraphs.find(&subgraph);
    PRISM_ENFORCE(it != frame_.Plan().subgraphs.end(), kRuntimeException, GetNode().Describe(),
                  ": subgraph was not planned");
    return ExecuteGraph(state_, *it->second, inputs, &frame_, run_options_, instrumentation_);
  }

  // The value of output i the graph reads; nullptr when the graph omits that output.
  const Value* RequestedOutput(size_t i) { return IsOutputRequested(i) ? &SlotFor(i) : nullptr; }

  // The outputs as written, for the profiler (omitted ones included: the kernel made them).
  std::vector<ProfileTypeShape> DescribeOutputs() {
    std::vector<ProfileTypeShape> described;
    for (size_t i = 0; i < step_.outputs.size(); ++i) {
      ProfileTypeShape value = Profiler::DescribeValue(SlotFor(i));
      if (!value.type.empty()) described.push_back(std::move(value));
    }
    return described;
  }

 private:
  // Output i's storage: an input's buffer taken over in place, the memory pattern's planned
  // bytes, or a new buffer from the step's allocator.
  Tensor NewOutputTensor(size_t i, const TensorShape& shape, ElementType type) {
    const AllocatorPtr& allocator = step_.output_allocators[i];
    const int out_slot = step_.outputs[i];
    const size_t bytes = StorageBytes(type, shape.Size());
    const size_t limit = state_.Allocators().Limits().max_tensor_bytes;
    PRISM_ENFORCE(limit == 0 || bytes <= limit, kRuntimeException, "output ", i, " '",
                  OutputName(i), "' of shape ", shape.ToString(), " (", ElementTypeName(type),
                  ") needs ", bytes, " bytes, more than the session's limit of ", limit,
                  " bytes per tensor (session.max_tensor_bytes)");
    if (out_slot >= 0 && type != ElementType::kString && bytes > 0) {
      if (const Tensor* reusable = InplaceCandidate(i, type, bytes, allocator->Info()))
        return Tensor(type, shape, reusable->Buffer(), const_cast<void*>(reusable->RawData()),
                      reusable->Location());
      if (!frame_.Plan().keep[out_slot]) {
        if (frame_.replay != nullptr) {
          if (std::shared_ptr<void> planned =
                  frame_.replay->Take(step_index_, static_cast<int>(i), bytes))
            return Tensor(type, shape, planned, planned.get(), allocator->Info());
        } else if (frame_.recorder != nullptr) {
          return Tensor(type, shape,
                        frame_.recorder->Wrap(allocator, step_index_, static_cast<int>(i)));
        }
      }
    }
    return Tensor(type, shape, allocator);
  }

  // An input whose buffer output i may take over: the kernel def allows it, this step is the
  // input's last reader, this run allocated it, the slot alone holds the buffer, and type, size
  // and memory match.
  const Tensor* InplaceCandidate(size_t i, ElementType type, size_t bytes,
                                 const MemoryInfo& memory) {
    if (step_.kernel_def == nullptr || frame_.parallel || !state_.MemoryReuse()) return nullptr;
    for (const auto& [input, output] : step_.kernel_def->may_inplace) {
      if (output != static_cast<int>(i) || input < 0 ||
          static_cast<size_t>(input) >= step_.inputs.size())
        continue;
      const int slot = step_.inputs[static_cast<size_t>(input)];
      if (slot < 0 || !frame_.AllocatedHere()[slot] || frame_.Plan().keep[slot]) continue;
      if (std::find(step_.release_after.begin(), step_.release_after.end(), slot) ==
          step_.release_after.end())
        continue;
      const Value& value = frame_.Slots()[slot];
      if (!value.IsTensor()) continue;
      const Tensor& tensor = value.GetTensor();
      if (tensor.Type() != type || tensor.SizeInBytes() != bytes ||
          !tensor.Location().SameSpace(memory) || tensor.Buffer() == nullptr ||
          tensor.Buffer().use_count() != 1)
        continue;
      return &tensor;
    }
    return nullptr;
  }

  std::string OutputName(size_t i) const {
    const auto& outputs = GetNode().Outputs();
    return i < outputs.size() && outputs[i] != nullptr ? outputs[i]->name : std::string();
  }

  Value& SlotFor(size_t i) {
    if (step_.outputs[i] >= 0) return frame_.Slots()[step_.outputs[i]];
    // Outputs the graph omits are rare: their slots are made on first use, not every step.
    if (scratch_outputs_.empty()) scratch_outputs_.resize(step_.outputs.size());
    return scratch_outputs_[i];
  }

  const SessionState& state_;
  const ExecutionStep& step_;
  int step_index_;
  ExecutionFrame& frame_;
  mutable AllocatorPtr temp_allocator_;
  const RunOptions& run_options_;
  RunInstrumentation* instrumentation_;
  std::vector<Value> scratch_outputs_;  // outputs the graph omits but kernels still write
};

// Tells the compute trace hook which registration computed, with the values it read and wrote.
void ReportCompute(const ComputeTraceHooks& hooks, const ExecutionStep& step,
                   KernelContext& context) {
  std::vector<const Value*> inputs(context.InputCount());
  for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = context.InputValue(i);
  std::vector<const Value*> outputs(context.OutputCount());
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = context.RequestedOutput(i);
  hooks.computed(
      ComputeTraceEvent{*step.node, *step.kernel_def, step.provider->Type(), inputs, outputs});
}

// Records a kernel step's run as a "Node" event, as onnxruntime names and describes it.
void RecordKernelEvent(Profiler& profiler, const ExecutionStep& step, const GraphPlan& plan,
                       std::vector<ProfileTypeShape> inputs, std::vector<ProfileTypeShape> outputs,
                       Profiler::Clock::time_point start, Profiler::Clock::time_point end) {
  ProfileEvent event;
  event.category = "Node";
  event.name = step.node->Name() + "_kernel_time";
  event.start_ns = profiler.NanosecondsSinceStart(start);
  event.end_ns = profiler.NanosecondsSinceStart(end);
  event.thread_id = Profiler::CurrentThreadId();
  event.op_name = step.node->OpType();
  event.provider = step.provider->Type();
  event.inputs = std::move(inputs);
  event.outputs = std::move(outputs);
  if (plan.graph != nullptr && plan.graph->Parent() != nullptr)
    event.string_args.emplace_back("graph", plan.path);
  profiler.Record(std::move(event));
}

void RecordCopyEvent(Profiler& profiler, const GraphPlan& plan, const ExecutionStep& step,
                     int64_t bytes, Profiler::Clock::time_point start,
                     Profiler::Clock::time_point end) {
  ProfileEvent event;
  event.category = "Copy";
  event.name = plan.slot_names[step.copy_target] + "_copy";
  event.start_ns = profiler.NanosecondsSinceStart(start);
  event.end_ns = profiler.NanosecondsSinceStart(end);
  event.thread_id = Profiler::CurrentThreadId();
  event.string_args = {{"value", plan.slot_names[step.copy_source]},
                       {"from", plan.slot_memory[step.copy_source].ToString()},
                       {"to", plan.slot_memory[step.copy_target].ToString()},
                       {"graph", plan.path}};
  event.int_args = {{"bytes", bytes}};
  profiler.Record(std::move(event));
}

}  // namespace

int64_t ValueBytes(const Value& value) {
  if (value.IsTensor()) return static_cast<int64_t>(value.GetTensor().SizeInBytes());
  auto map_bytes = [](const TensorMap& map) {
    return static_cast<int64_t>(map.keys.SizeInBytes() + map.values.SizeInBytes());
  };
  if (value.IsMap()) return map_bytes(value.GetMap());
  int64_t bytes = 0;
  if (value.IsMapSequence()) {
    for (const TensorMap& map : value.GetMapSequence().maps) bytes += map_bytes(map);
  } else if (value.IsSequence()) {
    for (const Tensor& tensor : value.GetSequence().tensors)
      bytes += static_cast<int64_t>(tensor.SizeInBytes());
  }
  return bytes;
}

Value CopyValue(const DataTransferManager& transfers, const Value& source,
                const AllocatorPtr& allocator) {
  if (source.IsMap() || source.IsMapSequence()) {
    // Maps are immutable CPU values: a CPU consumer shares them; no device kernel takes them.
    PRISM_ENFORCE(allocator->Info().IsCpuAccessible(), kNotImplemented, source.Describe(),
                  " cannot be copied to ", allocator->Info().ToString(),
                  ": maps live in CPU memory only");
    return source;
  }
  if (source.IsTensor()) {
    const Tensor& tensor = source.GetTensor();
    Tensor copy(tensor.Type(), tensor.Shape(), allocator);
    transfers.CopyTensor(tensor, copy);
    return Value(std::move(copy));
  }
  if (source.IsSequence()) {
    TensorSequence sequence;
    sequence.elem_type = source.GetSequence().elem_type;
    for (const Tensor& tensor : source.GetSequence().tensors) {
      Tensor copy(tensor.Type(), tensor.Shape(), allocator);
      transfers.CopyTensor(tensor, copy);
      sequence.tensors.push_back(std::move(copy));
    }
    return Value(std::move(sequence));
  }
  return source;  // an empty optional has nothing to move
}

bool ValueInMemory(const Value& value, const MemoryInfo& memory) {
  auto fits = [&](const Tensor& tensor) {
    return memory.IsCpuAccessible() ? tensor.Location().IsCpuAccessible()
                                    : tensor.Location().SameSpace(memory);
  };
  if (value.IsTensor()) return fits(value.GetTensor());
  if (value.IsMap() || value.IsMapSequence()) return memory.IsCpuAccessible();
  if (value.IsSequence())
    return std::all_of(value.GetSequence().tensors.begin(), value.GetSequence().tensors.end(),
                       fits);
  return true;
}

namespace {

// Runs every step of plan on pool's threads (the caller included), each once all the steps
// producing what it reads have finished; a slot is released when its last reader finishes (or,
// never read, when produced). The first failure stops the scheduling; it is rethrown once the
// steps already running have returned.
void RunInParallel(ThreadPool& pool, const GraphPlan& plan, std::vector<Value>& slots,
                   const std::function<void(size_t)>& run_step) {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<size_t> ready;
  std::vector<int> waiting = plan.dependency_count;
  std::vector<int> readers_left = plan.reader_count;
  size_t unfinished = plan.steps.size();
  std::exception_ptr error;
  for (size_t s = 0; s < plan.steps.size(); ++s)
    if (waiting[s] == 0) ready.push_back(s);
  auto release_unread = [&](int slot) {
    if (slot >= 0 && plan.reader_count[slot] == 0 && !plan.keep[slot]) slots[slot] = Value();
  };
  auto worker = [&] {
    for (;;) {
      size_t step_index = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return error || unfinished == 0 || !ready.empty(); });
        if (error || unfinished == 0) return;
        step_index = ready.front();
        ready.pop_front();
      }
      try {
        run_step(step_index);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        changed.notify_all();
        return;
      }
      std::lock_guard<std::mutex> lock(mutex);
      for (int next : plan.dependents[step_index])
        if (--waiting[static_cast<size_t>(next)] == 0) ready.push_back(static_cast<size_t>(next));
      for (int slot : plan.reads[step_index])
        if (--readers_left[slot] == 0 && !plan.keep[slot]) slots[slot] = Value();
      const ExecutionStep& step = plan.steps[step_index];
      if (step.kind == ExecutionStep::Kind::kCopy)
        release_unread(step.copy_target);
      else
        for (int slot : step.outputs) release_unread(slot);
      --unfinished;
      changed.notify_all();
    }
  };
  // One worker loop per thread; a pool thread busy elsewhere joins late or never, and the
  // caller's loop alone can finish every step.
  const int threads = pool.DegreeOfParallelism();
  pool.ParallelFor(threads, 1e12, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) worker();
  });
  if (error) std::rethrow_exception(error);
}

// The steps the given outputs of plan depend on (1 = run), for only_execute_path_to_fetches.
std::vector<char> StepsNeededFor(const GraphPlan& plan, const std::vector<size_t>& outputs) {
  std::vector<char> wanted(plan.slot_names.size(), 0);
  for (size_t output : outputs)
    if (output < plan.output_slots.size() && plan.output_slots[output] >= 0)
      wanted[static_cast<size_t>(plan.output_slots[output])] = 1;
  std::vector<char> needed(plan.steps.size(), 0);
  for (size_t s = plan.steps.size(); s-- > 0;) {
    const ExecutionStep& step = plan.steps[s];
    bool produces_wanted = false;
    if (step.kind == ExecutionStep::Kind::kCopy)
      produces_wanted = step.copy_target >= 0 && wanted[static_cast<size_t>(step.copy_target)];
    else
      for (int slot : step.outputs)
        produces_wanted = produces_wanted || (slot >= 0 && wanted[static_cast<size_t>(slot)]);
    if (!produces_wanted) continue;
    needed[s] = 1;
    for (int slot : plan.reads[s]) wanted[static_cast<size_t>(slot)] = 1;  // implicit reads too
  }
  return needed;
}

std::vector<Value> RunSteps(const SessionState& state, const GraphPlan& plan,
                            const std::vector<Value>& inputs, const ExecutionFrame* parent,
                            const RunOptions& run_options, RunInstrumentation* instrumentation,
                            const std::vector<size_t>* fetched) {
  Profiler* profiler = instrumentation != nullptr ? instrumentation->profiler : nullptr;
  ExecutionFrame frame(plan, parent);
  if (parent != nullptr)
    frame.deadline = parent->deadline;
  else if (state.RunTimeoutMs() > 0)
    frame.deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(state.RunTimeoutMs());
  // Between two steps, and when a subgraph starts (a Loop's body may have no step at all): a
  // terminated or overdue run stops here.
  // step: the step about to run; nullptr at the graph's start.
  auto check_stop = [&](const ExecutionStep* step) {
    if (run_options.terminate != nullptr && run_options.terminate->load())
      PRISM_THROW(kFail, "the run was terminated (RunOptions.terminate)");
    if (frame.deadline == std::chrono::steady_clock::time_point::max() ||
        std::chrono::steady_clock::now() <= frame.deadline)
      return;
    std::string where = "at the start of graph " + plan.path;
    if (step != nullptr && step->kind == ExecutionStep::Kind::kCopy)
      where = "before the copy of '" + plan.slot_names[step->copy_source] + "'";
    else if (step != nullptr)
      where = "before " + step->node->Describe();
    PRISM_THROW(kFail, "the run took longer than the session's limit of ", state.RunTimeoutMs(),
                " ms (session.run_timeout_ms); stopped ", where);
  };
  check_stop(nullptr);
  std::vector<Value>& slots = frame.Slots();
  for (const auto& [slot, tensor] : plan.constant_slots) slots[slot] = Value(*tensor);
  PRISM_ENFORCE(inputs.size() <= plan.input_slots.size(), kInvalidArgument, "graph ", plan.path,
                " takes ", plan.input_slots.size(), " inputs, got ", inputs.size());
  // Inputs are planned in CPU memory. A feed elsewhere (a device buffer) is remembered as given,
  // so that copy steps from its slot read it and skip copying into the memory it is already in;
  // its slot gets a CPU copy only when something reads the slot directly. Per-run state only:
  // the plan stays shared and immutable.
  std::vector<std::pair<int, const Value*>> feeds_elsewhere;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].HasValue()) continue;  // an overridable initializer stays in place
    const int slot = plan.input_slots[i];
    if (ValueInMemory(inputs[i], plan.slot_memory[slot])) {
      slots[slot] = inputs[i];
      continue;
    }
    feeds_elsewhere.emplace_back(slot, &inputs[i]);
    if (!plan.input_read_directly[i]) {
      slots[slot] = inputs[i];
      continue;
    }
    slots[slot] = CopyValue(state.DataTransfers(), inputs[i], GetCpuAllocator());
    if (instrumentation != nullptr) {
      instrumentation->copies.fetch_add(1, std::memory_order_relaxed);
      instrumentation->bytes_copied.fetch_add(ValueBytes(slots[slot]), std::memory_order_relaxed);
    }
  }
  for (const auto& [name, slot] : plan.outer_slots) slots[slot] = parent->Lookup(name);

  // The main graph's memory pattern: replayed when these feed shapes have one, else recorded.
  // execution_mode parallel: the main graph's steps run as their inputs become ready, on the
  // inter-op pool. Lifetimes then depend on timing, so the memory pattern and in-place reuse
  // (both keyed to the plan's order) stay off, as onnxruntime turns the pattern off there.
  frame.parallel = parent == nullptr && state.InterOpPool() != nullptr && plan.steps.size() > 1;
  std::shared_ptr<PatternRecorder> recorder;
  std::unique_ptr<PatternRun> replay;
  std::string pattern_key;
  // A run pruned to its fetches allocates less than a whole one: it neither records nor replays.
  const std::vector<char> needed = parent == nullptr && fetched != nullptr
                                       ? StepsNeededFor(plan, *fetched)
                                       : std::vector<char>();
  if (parent == nullptr && !frame.parallel && state.PatternCache() != nullptr &&
      fetched == nullptr) {
    pattern_key = MemoryPatternCache::Key(inputs);
    if (!pattern_key.empty()) {
      if (auto pattern = state.PatternCache()->Find(pattern_key)) {
        replay = std::make_unique<PatternRun>(std::move(pattern));
        frame.replay = replay.get();
      } else if (state.PatternCache()->ShouldRecord(pattern_key)) {
        recorder = std::make_shared<PatternRecorder>();
        frame.recorder = recorder.get();
      }
    }
  }

  // One step: a copy, or a kernel with its profiling and checks. Releases are the caller's.
  // Parallel steps run on pool threads: they log with the run's settings too.
  const LogSettings* log_settings = CurrentLogSettings();
  auto run_step = [&](size_t step_index) {
    if (!needed.empty() && !needed[step_index]) return;  // not on the path to the fetches
    const ExecutionStep& step = plan.steps[step_index];
    ScopedLogSettings log_scope(log_settings);
    if (recorder) recorder->SetCurrentStep(static_cast<int>(step_index));
    check_stop(&step);
    if (step.kind == ExecutionStep::Kind::kCopy) {
      PRISM_VLOG(1, "graph ", plan.path, ": copy '", plan.slot_names[step.copy_source], "' to ",
                 plan.slot_memory[step.copy_target].ToString());
      const Value* source = &slots[step.copy_source];
      for (const auto& [slot, feed] : feeds_elsewhere)
        if (slot == step.copy_source) source = feed;
      const auto start = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
      if (ValueInMemory(*source, plan.slot_memory[step.copy_target])) {
        slots[step.copy_target] = *source;  // fed where it is consumed: used in place
      } else {
        slots[step.copy_target] = CopyValue(state.DataTransfers(), *source, step.copy_allocator);
        if (instrumentation != nullptr) {
          const int64_t bytes = ValueBytes(slots[step.copy_target]);
          instrumentation->copies.fetch_add(1, std::memory_order_relaxed);
          instrumentation->bytes_copied.fetch_add(bytes, std::memory_order_relaxed);
          if (profiler)
            RecordCopyEvent(*profiler, plan, step, bytes, start, Profiler::Clock::now());
        }
      }
    } else {
      PRISM_VLOG(1, "graph ", plan.path, ": run ", step.node->Describe(), " on ",
                 step.provider->Type());
      KernelContext context(state, step, static_cast<int>(step_index), frame, run_options,
                            instrumentation);
      std::vector<ProfileTypeShape> profiled_inputs;
      Profiler::Clock::time_point start;
      if (profiler) {
        for (size_t i = 0; i < step.inputs.size(); ++i) {
          ProfileTypeShape value = step.inputs[i] >= 0
                                       ? Profiler::DescribeValue(slots[step.inputs[i]])
                                       : ProfileTypeShape{};
          if (!value.type.empty()) profiled_inputs.push_back(std::move(value));
        }
        start = Profiler::Clock::now();
      }
      try {
        step.kernel->Compute(context);
      } catch (const Exception& e) {
        throw Exception(e.Code(), MakeString(step.node->Describe(), " (", step.provider->Type(),
                                             ") failed: ", e.what()));
      } catch (const std::bad_alloc&) {
        PRISM_THROW(kRuntimeException, step.node->Describe(), ": out of memory");
      }
      if (profiler) {
        const auto end = Profiler::Clock::now();
        RecordKernelEvent(*profiler, step, plan, std::move(profiled_inputs),
                          context.DescribeOutputs(), start, end);
      }
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        const int slot = step.outputs[o];
        PRISM_ENFORCE(slot < 0 || slots[slot].HasValue() ||
                          step.node->Outputs()[o]->type.kind == TypeKind::kOptional,
                      kRuntimeException, step.node->Describe(), " (", step.provider->Type(),
                      ") did not produce output ", o, " '", step.node->Outputs()[o]->name, "'");
      }
      const ComputeTraceHooks* hooks = CurrentComputeTraceHooks();
      if (hooks != nullptr && hooks->computed != nullptr) ReportCompute(*hooks, step, context);
    }
  };

  if (frame.parallel) {
    RunInParallel(*state.InterOpPool(), plan, slots, run_step);
  } else {
    for (size_t step_index = 0; step_index < plan.steps.size(); ++step_index) {
      run_step(step_index);
      for (int slot : plan.steps[step_index].release_after) slots[slot] = Value();
      if (replay) replay->EndStep(static_cast<int>(step_index));
    }
  }

  std::vector<Value> outputs;
  outputs.reserve(plan.output_slots.size());
  for (int slot : plan.output_slots) outputs.push_back(slots[slot]);
  // Buffers still held now (the outputs, values never released) outlive the run: the pattern
  // leaves them out.
  if (recorder) state.PatternCache()->Insert(pattern_key, recorder->Finish(state.MemoryReuse()));
  return outputs;
}

}  // namespace

std::vector<Value> ExecuteGraph(const SessionState& state, const GraphPlan& plan,
                                const std::vector<Value>& inputs, const ExecutionFrame* parent,
                                const RunOptions& run_options, RunInstrumentation* instrumentation,
                                const std::vector<size_t>* fetched) {
  // A main graph's run tells the trace hooks whether it completed (subgraphs are part of it).
  const ComputeTraceHooks* hooks = parent == nullptr ? CurrentComputeTraceHooks() : nullptr;
  if (hooks == nullptr || hooks->run_ended == nullptr)
    return RunSteps(state, plan, inputs, parent, run_options, instrumentation, fetched);
  try {
    std::vector<Value> outputs =
        RunSteps(state, plan, inputs, parent, run_options, instrumentation, fetched);
    hooks->run_ended(true);
    return outputs;
  } catch (...) {
    hooks->run_ended(false);
    throw;
  }
}

Value CopyValueToCpu(const DataTransferManager& transfers, const Value& value) {
  if (value.IsTensor() && value.GetTensor().Location().IsCpuAccessible()) return value;
  if (!value.IsTensor() && !value.IsSequence()) return value;
  return CopyValue(transfers, value, GetCpuAllocator());
}

}  // namespace prism

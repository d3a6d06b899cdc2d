#include "session/executor.h"

#include "common/logging.h"

namespace prism {

class ExecutionFrame {
 public:
  ExecutionFrame(const GraphPlan& plan, const ExecutionFrame* parent)
      : plan_(plan), parent_(parent), slots_(plan.slot_names.size()) {}

  const GraphPlan& Plan() const { return plan_; }
  std::vector<Value>& Slots() { return slots_; }

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
};

namespace {

class KernelContext final : public OpKernelContext {
 public:
  KernelContext(const SessionState& state, const ExecutionStep& step, ExecutionFrame& frame,
                const RunOptions& run_options)
      : OpKernelContext(*step.node),
        state_(state),
        step_(step),
        frame_(frame),
        run_options_(run_options),
        scratch_outputs_(step.outputs.size()) {}

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
    slot = Value(Tensor(type, shape, step_.output_allocators[i]));
    return slot.MutableTensor();
  }

  void SetOutput(size_t i, Value value) override {
    PRISM_ENFORCE(i < step_.outputs.size(), kRuntimeException, GetNode().Describe(),
                  ": output index ", i, " is out of range");
    SlotFor(i) = std::move(value);
  }

  bool IsOutputRequested(size_t i) const override {
    return i < step_.outputs.size() && step_.outputs[i] >= 0;
  }

  const AllocatorPtr& TempAllocator() const override { return step_.temp_allocator; }

  std::vector<Value> RunSubgraph(const Graph& subgraph, const std::vector<Value>& inputs) override {
    auto it = frame_.Plan().subgraphs.find(&subgraph);
    PRISM_ENFORCE(it != frame_.Plan().subgraphs.end(), kRuntimeException, GetNode().Describe(),
                  ": subgraph was not planned");
    return ExecuteGraph(state_, *it->second, inputs, &frame_, run_options_);
  }

 private:
  Value& SlotFor(size_t i) {
    return step_.outputs[i] >= 0 ? frame_.Slots()[step_.outputs[i]] : scratch_outputs_[i];
  }

  const SessionState& state_;
  const ExecutionStep& step_;
  ExecutionFrame& frame_;
  const RunOptions& run_options_;
  std::vector<Value> scratch_outputs_;  // outputs the graph omits but kernels still write
};

}  // namespace

Value CopyValue(const DataTransferManager& transfers, const Value& source,
                const AllocatorPtr& allocator) {
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

std::vector<Value> ExecuteGraph(const SessionState& state, const GraphPlan& plan,
                                const std::vector<Value>& inputs, const ExecutionFrame* parent,
                                const RunOptions& run_options) {
  ExecutionFrame frame(plan, parent);
  std::vector<Value>& slots = frame.Slots();
  for (const auto& [slot, tensor] : plan.constant_slots) slots[slot] = Value(*tensor);
  PRISM_ENFORCE(inputs.size() <= plan.input_slots.size(), kInvalidArgument, "graph ", plan.path,
                " takes ", plan.input_slots.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].HasValue()) slots[plan.input_slots[i]] = inputs[i];
  for (const auto& [name, slot] : plan.outer_slots) slots[slot] = parent->Lookup(name);

  for (const ExecutionStep& step : plan.steps) {
    if (run_options.terminate != nullptr && run_options.terminate->load())
      PRISM_THROW(kFail, "the run was terminated (RunOptions.terminate)");
    if (step.kind == ExecutionStep::Kind::kCopy) {
      slots[step.copy_target] =
          CopyValue(state.DataTransfers(), slots[step.copy_source], step.copy_allocator);
    } else {
      KernelContext context(state, step, frame, run_options);
      try {
        step.kernel->Compute(context);
      } catch (const Exception& e) {
        throw Exception(e.Code(), MakeString(step.node->Describe(), " (", step.provider->Type(),
                                             ") failed: ", e.what()));
      } catch (const std::bad_alloc&) {
        PRISM_THROW(kRuntimeException, step.node->Describe(), ": out of memory");
      }
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        const int slot = step.outputs[o];
        PRISM_ENFORCE(slot < 0 || slots[slot].HasValue() ||
                          step.node->Outputs()[o]->type.kind == TypeKind::kOptional,
                      kRuntimeException, step.node->Describe(), " (", step.provider->Type(),
                      ") did not produce output ", o, " '", step.node->Outputs()[o]->name, "'");
      }
    }
    for (int slot : step.release_after) slots[slot] = Value();
  }

  std::vector<Value> outputs;
  outputs.reserve(plan.output_slots.size());
  for (int slot : plan.output_slots) outputs.push_back(slots[slot]);
  return outputs;
}

Value CopyValueToCpu(const DataTransferManager& transfers, const Value& value) {
  if (value.IsTensor() && value.GetTensor().Location().IsCpuAccessible()) return value;
  if (!value.IsTensor() && !value.IsSequence()) return value;
  return CopyValue(transfers, value, GetCpuAllocator());
}

}  // namespace prism

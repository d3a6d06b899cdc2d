// The sequence ops of opset 11: SequenceConstruct, SequenceEmpty, SequenceAt, SequenceInsert,
// SequenceErase, SequenceLength. A sequence's tensors share their buffers with the values they
// came from (tensors are never written after they are produced), so building a sequence copies
// no element data.
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/sequence/sequence_types.h"

namespace prism::cpu {
namespace {

const TensorSequence& RequireSequence(const OpKernelContext& context, size_t i, const char* name) {
  const Value* value = context.InputValue(i);
  PRISM_ENFORCE(value != nullptr && value->IsSequence(), kInvalidArgument,
                context.GetNode().Describe(), ": input ", i, " '", name,
                "' must be a sequence of tensors, got ",
                value != nullptr ? value->Describe() : std::string("nothing"));
  return value->GetSequence();
}

// A position input: an int32 or int64 tensor with one element (the spec says a scalar; models in
// the wild, and ONNX's own tests, also pass shape [1]).
int64_t ReadPosition(const Tensor& position, const Node& node) {
  PRISM_ENFORCE(position.NumElements() == 1 && position.Shape().Rank() <= 1, kInvalidArgument,
                node.Describe(), ": input 'position' must be a scalar, got ", position.Describe());
  if (position.Type() == ElementType::kInt32) return position.Data<int32_t>()[0];
  PRISM_ENFORCE(position.Type() == ElementType::kInt64, kInvalidArgument, node.Describe(),
                ": input 'position' must be int32 or int64, got ", position.Describe());
  return position.Data<int64_t>()[0];
}

// position in [-size, size - 1] (or [-size, size] with at_end_allowed), made non-negative.
size_t ResolvePosition(int64_t position, size_t size, bool at_end_allowed, const Node& node) {
  const int64_t length = static_cast<int64_t>(size);
  const int64_t last = at_end_allowed ? length : length - 1;
  PRISM_ENFORCE(position >= -length && position <= last, kInvalidArgument, node.Describe(),
                ": position ", position, " is out of range for a sequence of ", size,
                " tensors (expected ", -length, " to ", last, ")");
  return static_cast<size_t>(position < 0 ? position + length : position);
}

void RequireElementType(const TensorSequence& sequence, const Tensor& tensor, const Node& node,
                        const char* what) {
  PRISM_ENFORCE(
      sequence.elem_type == ElementType::kUndefined || sequence.elem_type == tensor.Type(),
      kInvalidArgument, node.Describe(), ": ", what, " is ", tensor.Describe(),
      " but the sequence holds tensor(", ElementTypeName(sequence.elem_type), ")");
}

class SequenceConstruct final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    TensorSequence sequence;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor* tensor = context.Input(i);
      PRISM_ENFORCE(tensor != nullptr, kInvalidArgument, node.Describe(), ": input ", i,
                    " is missing; every input of SequenceConstruct must be a tensor");
      if (i == 0) sequence.elem_type = tensor->Type();
      RequireElementType(sequence, *tensor, node, ("input " + std::to_string(i)).c_str());
      sequence.tensors.push_back(*tensor);
    }
    if (sequence.elem_type == ElementType::kUndefined)
      sequence.elem_type = context.GetNode().Outputs()[0]->type.elem;
    context.SetOutput(0, Value(std::move(sequence)));
  }
};

class SequenceEmpty final : public OpKernel {
 public:
  explicit SequenceEmpty(const OpKernelInfo& info)
      : OpKernel(info),
        dtype_(
            static_cast<int32_t>(info.IntOr("dtype", static_cast<int64_t>(ElementType::kFloat)))) {
    PRISM_ENFORCE(IsKnownElementType(dtype_), kInvalidArgument, info.GetNode().Describe(),
                  ": attribute 'dtype' is ", dtype_, ", which is no ONNX tensor element type");
  }
  void Compute(OpKernelContext& context) const override {
    TensorSequence sequence;
    sequence.elem_type = static_cast<ElementType>(dtype_);
    context.SetOutput(0, Value(std::move(sequence)));
  }

 private:
  int32_t dtype_;
};

class SequenceAt final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const TensorSequence& sequence = RequireSequence(context, 0, "input_sequence");
    const int64_t position = ReadPosition(context.RequiredInput(1), GetNode());
    const size_t index = ResolvePosition(position, sequence.tensors.size(), false, GetNode());
    context.SetOutput(0, Value(sequence.tensors[index]));
  }
};

class SequenceInsert final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const TensorSequence& input = RequireSequence(context, 0, "input_sequence");
    const Tensor& tensor = context.RequiredInput(1);
    RequireElementType(input, tensor, GetNode(), "input 'tensor'");
    size_t index = input.tensors.size();  // default: at the end
    if (const Tensor* position = context.Input(2))
      index = ResolvePosition(ReadPosition(*position, GetNode()), input.tensors.size(), true,
                              GetNode());
    TensorSequence output;
    output.elem_type = tensor.Type();
    output.tensors.reserve(input.tensors.size() + 1);
    output.tensors.insert(output.tensors.end(), input.tensors.begin(),
                          input.tensors.begin() + static_cast<std::ptrdiff_t>(index));
    output.tensors.push_back(tensor);
    output.tensors.insert(output.tensors.end(),
                          input.tensors.begin() + static_cast<std::ptrdiff_t>(index),
                          input.tensors.end());
    context.SetOutput(0, Value(std::move(output)));
  }
};

class SequenceErase final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const TensorSequence& input = RequireSequence(context, 0, "input_sequence");
    PRISM_ENFORCE(!input.tensors.empty(), kInvalidArgument, GetNode().Describe(),
                  ": input 'input_sequence' is empty; there is no tensor to erase");
    int64_t position = -1;  // default: the last tensor
    if (const Tensor* given = context.Input(1)) position = ReadPosition(*given, GetNode());
    const size_t index = ResolvePosition(position, input.tensors.size(), false, GetNode());
    TensorSequence output = input;
    output.tensors.erase(output.tensors.begin() + static_cast<std::ptrdiff_t>(index));
    context.SetOutput(0, Value(std::move(output)));
  }
};

class SequenceLength final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const TensorSequence& sequence = RequireSequence(context, 0, "input_sequence");
    Tensor& length = context.Output(0, TensorShape(std::vector<int64_t>{}), ElementType::kInt64);
    length.MutableData<int64_t>()[0] = static_cast<int64_t>(sequence.tensors.size());
  }
};

void RegisterSequenceKernels(KernelRegistry& registry) {
  const std::vector<ElementType> types = SequenceElementTypes();
  const std::vector<ElementType> positions = {ElementType::kInt32, ElementType::kInt64};
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceConstruct")
                                     .Versions(11)
                                     .Constraint("T", types, {kVariadicFrom(0)})
                                     .Constraint("S", types, {}, {0})
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceConstruct>());
  registry.Register(
      SequenceOnly(
          KernelDefBuilder("SequenceEmpty").Versions(11).Constraint("S", types, {}, {0}).Build(),
          "S"),
      MakeKernelFactory<SequenceEmpty>());
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceAt")
                                     .Versions(11)
                                     .Constraint("S", types, {0})
                                     .Constraint("T", types, {}, {0})
                                     .Constraint("I", positions, {1})
                                     .CpuInput(1)
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceAt>());
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceInsert")
                                     .Versions(11)
                                     .Constraint("S", types, {0}, {0})
                                     .Constraint("T", types, {1})
                                     .Constraint("I", positions, {2})
                                     .CpuInput(2)
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceInsert>());
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceErase")
                                     .Versions(11)
                                     .Constraint("S", types, {0}, {0})
                                     .Constraint("I", positions, {1})
                                     .CpuInput(1)
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceErase>());
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceLength")
                                     .Versions(11)
                                     .Constraint("S", types, {0})
                                     .Constraint("I", {ElementType::kInt64}, {}, {0})
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceLength>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(sequence_basic, RegisterSequenceKernels);

}  // namespace prism::cpu

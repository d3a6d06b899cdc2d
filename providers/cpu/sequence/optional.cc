// Optional (15): wraps its input, or makes an empty optional of the `type` attribute's type when
// there is no input. OptionalHasElement (15; 18 also takes a plain tensor or sequence, which has
// an element, and a missing input, which has none). OptionalGetElement (15; 18 also returns a
// plain tensor or sequence unchanged); an empty optional is an error. An optional holding a value
// is that value (the graph's type says it is optional); an empty one is a Value without one.
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/sequence/sequence_types.h"

namespace prism::cpu {
namespace {

class Optional final : public OpKernel {
 public:
  explicit Optional(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(node.HasInput(0) || info.HasAttr("type"), kInvalidArgument, node.Describe(),
                  ": without an input, attribute 'type' must give the element type of the "
                  "empty optional");
  }
  void Compute(OpKernelContext& context) const override {
    const Value* input = context.InputValue(0);
    context.SetOutput(0, input != nullptr ? *input : Value());
  }
};

// Opsets 15 to 17 take only an optional; a plain tensor or sequence is refused where the graph
// says so.
void RequireOptionalBefore18(const OpKernelInfo& info) {
  const Node& node = info.GetNode();
  if (node.OpsetVersion() >= 18 || !node.HasInput(0)) return;
  const ValueType& type = node.Inputs()[0]->type;
  PRISM_ENFORCE(type.kind == TypeKind::kOptional || type.kind == TypeKind::kUnknown,
                kInvalidArgument, node.Describe(), ": input 'input' has type ", type.ToString(),
                ", but opset ", node.OpsetVersion(),
                " takes only an optional (opset 18 also takes tensors and sequences)");
}

class OptionalHasElement final : public OpKernel {
 public:
  explicit OptionalHasElement(const OpKernelInfo& info) : OpKernel(info) {
    RequireOptionalBefore18(info);
  }
  void Compute(OpKernelContext& context) const override {
    const Value* input = context.InputValue(0);
    PRISM_ENFORCE(input != nullptr || GetNode().OpsetVersion() >= 18, kInvalidArgument,
                  GetNode().Describe(), ": input 'input' is missing; opset ",
                  GetNode().OpsetVersion(), " requires it (opset 18 allows it to be missing)");
    Tensor& out = context.Output(0, TensorShape(std::vector<int64_t>{}), ElementType::kBool);
    out.MutableData<bool>()[0] = input != nullptr && input->HasValue();
  }
};

class OptionalGetElement final : public OpKernel {
 public:
  explicit OptionalGetElement(const OpKernelInfo& info) : OpKernel(info) {
    RequireOptionalBefore18(info);
  }
  void Compute(OpKernelContext& context) const override {
    const Value* input = context.InputValue(0);
    PRISM_ENFORCE(input != nullptr && input->HasValue(), kInvalidArgument, GetNode().Describe(),
                  ": input 'input' is an empty optional; there is no element to get");
    context.SetOutput(0, *input);
  }
};

void RegisterOptionalKernels(KernelRegistry& registry) {
  struct Range {
    int since, end;
    std::vector<ElementType> types;
  };
  for (const Range& r :
       {Range{15, 27, SequenceElementTypes()}, Range{28, INT_MAX, OptionalElementTypesOpset28()}}) {
    registry.Register(KernelDefBuilder("Optional")
                          .Versions(r.since, r.end)
                          .Constraint("V", r.types, {0})
                          .AlsoSequence()
                          .Constraint("O", r.types, {}, {0})
                          .AlsoSequence()
                          .AlsoOptional()
                          .Build(),
                      MakeKernelFactory<Optional>());
  }
  for (const Range& r :
       {Range{15, 17, SequenceElementTypes()}, Range{18, 27, SequenceElementTypes()},
        Range{28, INT_MAX, OptionalElementTypesOpset28()}}) {
    registry.Register(KernelDefBuilder("OptionalHasElement")
                          .Versions(r.since, r.end)
                          .Constraint("O", r.types, {0})
                          .AlsoSequence()
                          .AlsoOptional()
                          .Constraint("B", {ElementType::kBool}, {}, {0})
                          .Build(),
                      MakeKernelFactory<OptionalHasElement>());
    registry.Register(KernelDefBuilder("OptionalGetElement")
                          .Versions(r.since, r.end)
                          .Constraint("O", r.types, {0})
                          .AlsoSequence()
                          .AlsoOptional()
                          .Constraint("V", r.types, {}, {0})
                          .AlsoSequence()
                          .Build(),
                      MakeKernelFactory<OptionalGetElement>());
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(sequence_optional, RegisterOptionalKernels);

}  // namespace prism::cpu

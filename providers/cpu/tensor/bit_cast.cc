// BitCast (opset 26): the input's bytes reinterpreted as the element type named by 'to', which
// must have the same bit width; the shape is kept. Host memory is little endian, as the spec's
// byte order is. A bool output holds 0 or 1 (a nonzero byte reads as true), since a C++ bool
// with another byte value would be undefined for every later kernel.
#include <cstring>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class BitCast final : public OpKernel {
 public:
  explicit BitCast(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(info.HasAttr("to"), kInvalidArgument, node.Describe(),
                  ": attribute 'to' is required");
    const int64_t to = info.IntOr("to", 0);
    PRISM_ENFORCE(IsKnownElementType(static_cast<int32_t>(to)) && to != 0 &&
                      static_cast<ElementType>(to) != ElementType::kString,
                  kInvalidArgument, node.Describe(), ": attribute 'to' = ", to,
                  " is not a non-string ONNX element type");
    to_ = static_cast<ElementType>(to);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    PRISM_ENFORCE(input.Type() != ElementType::kString, kInvalidArgument, node.Describe(),
                  ": input 'input' cannot be a string tensor");
    PRISM_ENFORCE(ElementBits(input.Type()) == ElementBits(to_), kInvalidArgument, node.Describe(),
                  ": 'to' = ", ElementTypeName(to_), " has ", ElementBits(to_),
                  " bits per element but input 'input' is ", ElementTypeName(input.Type()),
                  " with ", ElementBits(input.Type()), " (the widths must be equal)");
    Tensor& output = context.Output(0, input.Shape(), to_);
    if (output.SizeInBytes() == 0) return;
    std::memcpy(output.MutableRawData(), input.RawData(), input.SizeInBytes());
    if (to_ == ElementType::kBool) {
      uint8_t* bytes = static_cast<uint8_t*>(output.MutableRawData());
      for (size_t i = 0; i < output.SizeInBytes(); ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
    }
  }

 private:
  ElementType to_ = ElementType::kUndefined;
};

std::vector<ElementType> NonStringTypes() {
  std::vector<ElementType> types;
  for (ElementType type : AllTensorTypesWithComplexOf(TensorTypeGeneration::kInt2))
    if (type != ElementType::kString) types.push_back(type);
  return types;
}

void RegisterBitCastKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("BitCast")
                        .Versions(26)
                        .Constraint("T1", NonStringTypes(), {0})
                        .Constraint("T2", NonStringTypes(), {}, {0})
                        .Build(),
                    MakeKernelFactory<BitCast>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_bit_cast, RegisterBitCastKernels);

}  // namespace prism::cpu

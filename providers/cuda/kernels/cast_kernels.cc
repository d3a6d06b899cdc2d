// Cast between float, float16, double, int8, uint8, int32, int64 and bool on the device. Other
// target types are declined (the CPU EP casts them); a cast to the input's own type is a view.
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

struct CastEntry {
  ElementType type;
  CastType device;
};
constexpr CastEntry kCastTypes[] = {
    {ElementType::kFloat, CastType::kFloat},   {ElementType::kFloat16, CastType::kFloat16},
    {ElementType::kDouble, CastType::kDouble}, {ElementType::kInt8, CastType::kInt8},
    {ElementType::kUint8, CastType::kUint8},   {ElementType::kInt32, CastType::kInt32},
    {ElementType::kInt64, CastType::kInt64},   {ElementType::kBool, CastType::kBool},
};

const CastEntry* FindCastType(ElementType type) {
  for (const CastEntry& entry : kCastTypes)
    if (entry.type == type) return &entry;
  return nullptr;
}

std::vector<ElementType> CastTypes() {
  std::vector<ElementType> types;
  for (const CastEntry& entry : kCastTypes) types.push_back(entry.type);
  return types;
}

class CastKernel final : public OpKernel {
 public:
  explicit CastKernel(const OpKernelInfo& info)
      : OpKernel(info), provider_(ProviderOf(info)), to_(static_cast<ElementType>(info.Int("to"))) {
    PRISM_ENFORCE(FindCastType(to_) != nullptr, kNotImplemented, info.GetNode().Describe(),
                  ": CUDAExecutionProvider does not cast to ", ElementTypeName(to_));
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    if (input.Type() == to_) {
      context.SetOutput(0, Value(input));
      return;
    }
    const CastEntry* from = FindCastType(input.Type());
    PRISM_ENFORCE(from != nullptr, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider does not cast from ", ElementTypeName(input.Type()));
    Tensor& output = context.Output(0, input.Shape(), to_);
    PRISM_CUDA_CALL(LaunchCast(input.RawData(), from->device, output.MutableRawData(),
                               FindCastType(to_)->device, input.NumElements(), provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  ElementType to_;
};

}  // namespace

void RegisterCastKernels(KernelRegistry& registry) {
  const std::vector<ElementType> types = CastTypes();
  registry.Register(KernelDefBuilder("Cast")
                        .Versions(6)
                        .Constraint("T1", types, {0})
                        .Constraint("T2", types, {}, {0})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<CastKernel>(info); });
}

std::string CastDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "Cast") return "";
  const Attribute* to = node.FindAttribute("to");
  if (to == nullptr) return "Cast has no 'to' attribute";
  if (!IsKnownElementType(static_cast<int32_t>(to->i)) ||
      FindCastType(static_cast<ElementType>(to->i)) == nullptr)
    return "CUDAExecutionProvider does not cast to " +
           std::string(IsKnownElementType(static_cast<int32_t>(to->i))
                           ? ElementTypeName(static_cast<ElementType>(to->i))
                           : "an unknown type") +
           " (attribute 'to')";
  return "";
}

}  // namespace prism::cuda

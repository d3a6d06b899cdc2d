// Expand: the input broadcast (numpy rules, in both directions) with the shape given by the int64
// input. Any element type; elements move as whole storage units.
#include <string>
#include <vector>

#include "providers/cpu/common/broadcast.h"
#include "providers/cpu/common/storage_unit.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

template <typename T>
void Spread(const Broadcaster& plan, const T* in, T* out) {
  plan.ForEachSpan(
      [&](int64_t output_offset, int64_t count, const int64_t* offsets, const int64_t* steps) {
        for (int64_t k = 0; k < count; ++k) out[output_offset + k] = in[offsets[0] + k * steps[0]];
      });
}

class Expand final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const Tensor& shape = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    PRISM_ENFORCE(shape.Type() == ElementType::kInt64 && shape.Shape().Rank() == 1,
                  kInvalidArgument, what, ": Expand shape must be a 1-D int64 tensor, got ",
                  shape.Describe());
    const int64_t* values = shape.Data<int64_t>();
    std::vector<int64_t> dims(values, values + shape.NumElements());
    for (size_t i = 0; i < dims.size(); ++i)
      PRISM_ENFORCE(dims[i] >= 0, kInvalidArgument, what, ": Expand shape must be >= 0, got ",
                    dims[i], " at index ", i);
    const Broadcaster plan({input.Shape(), TensorShape(dims)}, what);
    Tensor& out = context.Output(0, plan.OutputShape(), input.Type());
    DispatchByStorageUnit(input.Type(), what, [&](auto* unit) {
      using U = std::remove_pointer_t<decltype(unit)>;
      Spread(plan, static_cast<const U*>(input.RawData()), static_cast<U*>(out.MutableRawData()));
    });
  }
};

void RegisterExpandKernels(KernelRegistry& registry) {
  using E = ElementType;
  std::vector<E> t8 = {E::kBool,    E::kComplex128, E::kComplex64, E::kDouble, E::kFloat,
                       E::kFloat16, E::kInt16,      E::kInt32,     E::kInt64,  E::kInt8,
                       E::kString,  E::kUint16,     E::kUint32,    E::kUint64, E::kUint8};
  std::vector<E> t13 = t8;
  t13.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<Expand>();
  for (const auto& [since, end, types] :
       std::vector<std::tuple<int, int, std::vector<E>>>{{8, 12, t8}, {13, INT_MAX, t13}})
    registry.Register(KernelDefBuilder("Expand")
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_expand, RegisterExpandKernels);

}  // namespace prism::cpu

// Where: elements of X where the condition holds, of Y elsewhere, the three inputs broadcast
// together (numpy rules). Any element type: elements move as whole storage units (strings as
// strings), so complex and 16-byte types need no arithmetic.
#include <string>
#include <vector>

#include "providers/cpu/common/broadcast.h"
#include "providers/cpu/common/storage_unit.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

template <typename T>
void Select(const Broadcaster& plan, const bool* condition, const T* x, const T* y, T* out) {
  plan.ForEachSpan([&](int64_t output_offset, int64_t count, const int64_t* offsets,
                       const int64_t* steps) {
    for (int64_t k = 0; k < count; ++k)
      out[output_offset + k] = condition[offsets[0] + k * steps[0]] ? x[offsets[1] + k * steps[1]]
                                                                    : y[offsets[2] + k * steps[2]];
  });
}

class Where final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& condition = context.RequiredInput(0);
    const Tensor& x = context.RequiredInput(1);
    const Tensor& y = context.RequiredInput(2);
    const std::string what = GetNode().Describe();
    PRISM_ENFORCE(condition.Type() == ElementType::kBool, kInvalidArgument, what,
                  ": condition must be bool, got ", ElementTypeName(condition.Type()));
    PRISM_ENFORCE(x.Type() == y.Type(), kInvalidArgument, what,
                  ": X and Y must have one element type, got ", ElementTypeName(x.Type()), " and ",
                  ElementTypeName(y.Type()));
    const Broadcaster plan({condition.Shape(), x.Shape(), y.Shape()}, what);
    Tensor& out = context.Output(0, plan.OutputShape(), x.Type());
    const bool* c = condition.Data<bool>();
    DispatchByStorageUnit(x.Type(), what, [&](auto* unit) {
      using U = std::remove_pointer_t<decltype(unit)>;
      Select(plan, c, static_cast<const U*>(x.RawData()), static_cast<const U*>(y.RawData()),
             static_cast<U*>(out.MutableRawData()));
    });
  }
};

void RegisterWhereKernels(KernelRegistry& registry) {
  using E = ElementType;
  std::vector<E> t9 = {E::kBool,    E::kComplex128, E::kComplex64, E::kDouble, E::kFloat,
                       E::kFloat16, E::kInt16,      E::kInt32,     E::kInt64,  E::kInt8,
                       E::kString,  E::kUint16,     E::kUint32,    E::kUint64, E::kUint8};
  std::vector<E> t16 = t9;
  t16.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<Where>();
  registry.Register(KernelDefBuilder("Where")
                        .Versions(9, 15)
                        .Constraint("B", {E::kBool}, {0})
                        .Constraint("T", t9, {1, 2}, {0})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("Where")
                        .Versions(16)
                        .Constraint("B", {E::kBool}, {0})
                        .Constraint("T", t16, {1, 2}, {0})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_where, RegisterWhereKernels);

}  // namespace prism::cpu

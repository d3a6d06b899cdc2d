// BitwiseAnd, BitwiseOr, BitwiseXor (numpy broadcasting) and BitwiseNot on integers.
#include <string>
#include <vector>

#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using IntegerTypes =
    TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

enum class Bitwise { kAnd, kOr, kXor };

template <Bitwise kOp>
struct BitwiseDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Broadcaster& plan, const Tensor& a, const Tensor& b, Tensor& out,
                    ThreadPool* pool) const {
      BroadcastBinary(
          plan, a.Data<T>(), b.Data<T>(), out.MutableData<T>(),
          [](T x, T y) {
            if constexpr (kOp == Bitwise::kAnd) return static_cast<T>(x & y);
            if constexpr (kOp == Bitwise::kOr) return static_cast<T>(x | y);
            return static_cast<T>(x ^ y);
          },
          pool);
    }
  };
};

template <Bitwise kOp>
class BitwiseBinary final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    RequireOneType(a, b, what);
    const Broadcaster plan({a.Shape(), b.Shape()}, what);
    Tensor& out = context.Output(0, plan.OutputShape(), a.Type());
    DispatchByType<BitwiseDispatch<kOp>::template Fn, IntegerTypes>(
        a.Type(), GetNode().OpType(), plan, a, b, out, context.IntraOpThreadPool());
  }
};

template <typename T>
struct NotDispatch {
  void operator()(const Tensor& x, Tensor& y) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) out[i] = static_cast<T>(~in[i]);
  }
};

class BitwiseNot final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<NotDispatch, IntegerTypes>(x.Type(), "BitwiseNot", x, y);
  }
};

void RegisterBitwiseKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> integers = {E::kInt8,  E::kInt16,  E::kInt32,  E::kInt64,
                                   E::kUint8, E::kUint16, E::kUint32, E::kUint64};
  for (const auto& [op, factory] :
       {std::pair{"BitwiseAnd", MakeKernelFactory<BitwiseBinary<Bitwise::kAnd>>()},
        std::pair{"BitwiseOr", MakeKernelFactory<BitwiseBinary<Bitwise::kOr>>()},
        std::pair{"BitwiseXor", MakeKernelFactory<BitwiseBinary<Bitwise::kXor>>()}})
    registry.Register(KernelDefBuilder(op)
                          .Versions(18)
                          .Constraint("T", integers, {0, 1}, {0})
                          .MayInplace(0, 0)
                          .MayInplace(1, 0)
                          .Build(),
                      factory);
  registry.Register(KernelDefBuilder("BitwiseNot")
                        .Versions(18)
                        .Constraint("T", integers, {0}, {0})
                        .MayInplace(0, 0)
                        .Build(),
                    MakeKernelFactory<BitwiseNot>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_bitwise, RegisterBitwiseKernels);

}  // namespace prism::cpu

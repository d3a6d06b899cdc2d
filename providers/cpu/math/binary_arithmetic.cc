// Add, Sub, Mul, Div: elementwise arithmetic on two tensors of one type. Opset 7+ broadcast
// numpy-style; opsets 1-6 use the legacy `broadcast`/`axis` attributes (B stretched over A).
// Integers wrap on overflow; integer Div truncates toward zero and rejects division by zero.
#include <optional>

#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/element_compute.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class Arithmetic { kAdd, kSub, kMul, kDiv };

const char* ArithmeticName(Arithmetic op) {
  switch (op) {
    case Arithmetic::kAdd:
      return "Add";
    case Arithmetic::kSub:
      return "Sub";
    case Arithmetic::kMul:
      return "Mul";
    case Arithmetic::kDiv:
      return "Div";
  }
  return "?";
}

template <Arithmetic kOp, typename T>
struct ApplyArithmetic {
  const Node* node;  // names the node in division-by-zero errors

  T operator()(T a, T b) const {
    if constexpr (kIsHalfType<T>) {
      const ApplyArithmetic<kOp, float> wide{node};
      return FromCompute<T>(wide(ToCompute(a), ToCompute(b)));
    } else if constexpr (std::is_floating_point_v<T>) {
      if constexpr (kOp == Arithmetic::kAdd) return a + b;
      if constexpr (kOp == Arithmetic::kSub) return a - b;
      if constexpr (kOp == Arithmetic::kMul) return a * b;
      if constexpr (kOp == Arithmetic::kDiv) return a / b;
    } else {
      if constexpr (kOp == Arithmetic::kAdd) return math::WrapAdd(a, b);
      if constexpr (kOp == Arithmetic::kSub) return math::WrapSub(a, b);
      if constexpr (kOp == Arithmetic::kMul) return math::WrapMul(a, b);
      if constexpr (kOp == Arithmetic::kDiv) {
        if (b == 0) PRISM_THROW(kInvalidArgument, node->Describe(), ": integer division by zero");
        // lowest / -1 overflows; negation that wraps gives the two's-complement answer.
        if constexpr (std::is_signed_v<T>) {
          if (b == static_cast<T>(-1)) return math::WrapSub(T{0}, a);
        }
        return static_cast<T>(a / b);  // C++ integer division truncates toward zero
      }
    }
  }
};

template <Arithmetic kOp>
struct ArithmeticDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Broadcaster& plan, const Tensor& a, const Tensor& b, Tensor& out,
                    const Node& node, ThreadPool* pool) const {
      BroadcastBinary(plan, a.Data<T>(), b.Data<T>(), out.MutableData<T>(),
                      ApplyArithmetic<kOp, T>{&node}, pool);
    }
  };
};

template <Arithmetic kOp>
class BinaryArithmetic final : public OpKernel {
 public:
  explicit BinaryArithmetic(const OpKernelInfo& info) : OpKernel(info), rule_(info) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    RequireOneType(a, b, what);
    const Broadcaster plan = rule_.Plan(a.Shape(), b.Shape(), what);
    Tensor& out = context.Output(0, plan.OutputShape(), a.Type());
    DispatchByType<ArithmeticDispatch<kOp>::template Fn>(
        a.Type(), ArithmeticName(kOp), plan, a, b, out, GetNode(), context.IntraOpThreadPool());
  }

 private:
  BinaryBroadcastRule rule_;
};

template <Arithmetic kOp>
void RegisterArithmetic(KernelRegistry& registry) {
  using E = ElementType;
  const char* name = ArithmeticName(kOp);
  const auto factory = MakeKernelFactory<BinaryArithmetic<kOp>>();
  const std::vector<E> v1 = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> v6 = {E::kFloat16, E::kFloat,  E::kDouble, E::kInt32,
                             E::kInt64,   E::kUint32, E::kUint64};
  std::vector<E> v13 = v6;
  v13.push_back(E::kBFloat16);
  std::vector<E> v14 = v13;
  for (E e : {E::kInt8, E::kInt16, E::kUint8, E::kUint16}) v14.push_back(e);
  const auto add = [&](int since, int end, const std::vector<E>& types) {
    registry.Register(KernelDefBuilder(name)
                          .Versions(since, end)
                          .Constraint("T", types, {0, 1}, {0})
                          .MayInplace(0, 0)
                          .MayInplace(1, 0)
                          .Build(),
                      factory);
  };
  add(1, 5, v1);
  add(6, 6, v6);
  add(7, 12, v6);
  add(13, 13, v13);
  add(14, INT_MAX, v14);
}

void RegisterBinaryArithmeticKernels(KernelRegistry& registry) {
  RegisterArithmetic<Arithmetic::kAdd>(registry);
  RegisterArithmetic<Arithmetic::kSub>(registry);
  RegisterArithmetic<Arithmetic::kMul>(registry);
  RegisterArithmetic<Arithmetic::kDiv>(registry);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_binary_arithmetic, RegisterBinaryArithmeticKernels);

}  // namespace prism::cpu

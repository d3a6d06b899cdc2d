// Comparisons (Equal, Greater, GreaterOrEqual, Less, LessOrEqual) and logic (And, Or, Xor, Not):
// bool outputs. Two-input ops broadcast as Add does (numpy-style from opset 7, the legacy
// `broadcast`/`axis` attributes before). float16/bfloat16 compare as float; a NaN compares
// unequal and unordered with everything (Equal(NaN, NaN) is false), as numpy does. Equal takes
// strings from opset 19.
#include <string>
#include <type_traits>
#include <vector>

#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class Comparison { kEqual, kGreater, kGreaterOrEqual, kLess, kLessOrEqual, kAnd, kOr, kXor };

template <Comparison kOp>
struct Compare {
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    if constexpr (kIsHalfType<T>) {
      return Compare<kOp>{}(ToCompute(a), ToCompute(b));
    } else {
      if constexpr (kOp == Comparison::kEqual) return a == b;
      if constexpr (kOp == Comparison::kGreater) return a > b;
      if constexpr (kOp == Comparison::kGreaterOrEqual) return a >= b;
      if constexpr (kOp == Comparison::kLess) return a < b;
      if constexpr (kOp == Comparison::kLessOrEqual) return a <= b;
      if constexpr (kOp == Comparison::kAnd) return static_cast<bool>(a) && static_cast<bool>(b);
      if constexpr (kOp == Comparison::kOr) return static_cast<bool>(a) || static_cast<bool>(b);
      if constexpr (kOp == Comparison::kXor) return static_cast<bool>(a) != static_cast<bool>(b);
    }
  }
};

template <Comparison kOp>
struct CompareDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Broadcaster& plan, const Tensor& a, const Tensor& b, Tensor& out,
                    ThreadPool* pool) const {
      BroadcastBinary(plan, a.Data<T>(), b.Data<T>(), out.MutableData<bool>(), Compare<kOp>{},
                      pool);
    }
  };
};

using ComparedTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                               uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string>;

template <Comparison kOp>
class BinaryComparison final : public OpKernel {
 public:
  explicit BinaryComparison(const OpKernelInfo& info) : OpKernel(info), rule_(info) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    RequireOneType(a, b, what);
    const Broadcaster plan = rule_.Plan(a.Shape(), b.Shape(), what);
    Tensor& out = context.Output(0, plan.OutputShape(), ElementType::kBool);
    // Logic ops take bools only (their registrations say so); the others any compared type.
    using Types = std::conditional_t<kLogic, TypeList<bool>, ComparedTypes>;
    DispatchByType<CompareDispatch<kOp>::template Fn, Types>(a.Type(), GetNode().OpType(), plan, a,
                                                             b, out, context.IntraOpThreadPool());
  }

 private:
  static constexpr bool kLogic =
      kOp == Comparison::kAnd || kOp == Comparison::kOr || kOp == Comparison::kXor;
  BinaryBroadcastRule rule_;
};

class Not final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), ElementType::kBool);
    const bool* in = x.Data<bool>();
    bool* out = y.MutableData<bool>();
    ThreadPool::TryParallelFor(context.IntraOpThreadPool(), x.NumElements(), 1.0,
                               [&](int64_t begin, int64_t end) {
                                 for (int64_t i = begin; i < end; ++i) out[i] = !in[i];
                               });
  }
};

void RegisterComparisonKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  std::vector<E> numeric = floats;
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    numeric.push_back(e);
  std::vector<E> numeric_bf16 = numeric;
  numeric_bf16.push_back(E::kBFloat16);
  const auto add = [&](const char* op, KernelFactory factory, int since, int end,
                       const std::vector<E>& types) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(since, end)
                          .Constraint("T", types, {0, 1})
                          .Constraint("T1", {E::kBool}, {}, {0})
                          .Build(),
                      factory);
  };
  const auto equal = MakeKernelFactory<BinaryComparison<Comparison::kEqual>>();
  std::vector<E> equal11 = numeric;
  equal11.push_back(E::kBool);
  std::vector<E> equal13 = equal11;
  equal13.push_back(E::kBFloat16);
  std::vector<E> equal19 = equal13;
  equal19.push_back(E::kString);
  add("Equal", equal, 1, 6, {E::kBool, E::kInt32, E::kInt64});
  add("Equal", equal, 7, 10, {E::kBool, E::kInt32, E::kInt64});
  add("Equal", equal, 11, 12, equal11);
  add("Equal", equal, 13, 18, equal13);
  add("Equal", equal, 19, INT_MAX, equal19);
  for (const auto& [op, factory] :
       {std::pair{"Greater", MakeKernelFactory<BinaryComparison<Comparison::kGreater>>()},
        std::pair{"Less", MakeKernelFactory<BinaryComparison<Comparison::kLess>>()}}) {
    add(op, factory, 1, 6, floats);
    add(op, factory, 7, 8, floats);
    add(op, factory, 9, 12, numeric);
    add(op, factory, 13, INT_MAX, numeric_bf16);
  }
  for (const auto& [op, factory] :
       {std::pair{"GreaterOrEqual",
                  MakeKernelFactory<BinaryComparison<Comparison::kGreaterOrEqual>>()},
        std::pair{"LessOrEqual",
                  MakeKernelFactory<BinaryComparison<Comparison::kLessOrEqual>>()}}) {
    add(op, factory, 12, 15, numeric);
    add(op, factory, 16, INT_MAX, numeric_bf16);
  }
  for (const auto& [op, factory] :
       {std::pair{"And", MakeKernelFactory<BinaryComparison<Comparison::kAnd>>()},
        std::pair{"Or", MakeKernelFactory<BinaryComparison<Comparison::kOr>>()},
        std::pair{"Xor", MakeKernelFactory<BinaryComparison<Comparison::kXor>>()}}) {
    add(op, factory, 1, 6, {E::kBool});
    add(op, factory, 7, INT_MAX, {E::kBool});
  }
  registry.Register(KernelDefBuilder("Not")
                        .Versions(1)
                        .Constraint("T", {E::kBool}, {0}, {0})
                        .MayInplace(0, 0)
                        .Build(),
                    MakeKernelFactory<Not>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_comparison, RegisterComparisonKernels);

}  // namespace prism::cpu

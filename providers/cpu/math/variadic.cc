// Max, Min, Sum, Mean over one or more inputs of one type. From opset 8 the inputs broadcast
// numpy-style; before, they must all have one shape. Max and Min propagate NaN (as numpy's
// maximum/minimum); float16/bfloat16 compute in float; integer Sum is not an op of the spec
// (Sum and Mean take floating types only).
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/common/broadcast.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class Fold { kMax, kMin, kSum, kMean };

template <Fold kFold, typename C>
C Combine(C acc, C x) {
  if constexpr (kFold == Fold::kSum || kFold == Fold::kMean) {
    return acc + x;
  } else {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(acc) || std::isnan(x)) return std::isnan(acc) ? acc : x;
    }
    if constexpr (kFold == Fold::kMax) return x > acc ? x : acc;
    return x < acc ? x : acc;
  }
}

template <Fold kFold>
struct FoldDispatch {
  template <typename T>
  struct Fn {
    void operator()(const Broadcaster& plan, const std::vector<const Tensor*>& inputs,
                    Tensor& out) const {
      using C = ComputeTypeOf<T>;
      std::vector<const T*> data;
      for (const Tensor* input : inputs) data.push_back(input->Data<T>());
      T* y = out.MutableData<T>();
      const size_t n = data.size();
      plan.ForEachSpan(
          [&](int64_t output_offset, int64_t count, const int64_t* offsets, const int64_t* steps) {
            for (int64_t k = 0; k < count; ++k) {
              C acc = ToCompute(data[0][offsets[0] + k * steps[0]]);
              for (size_t i = 1; i < n; ++i)
                acc = Combine<kFold>(acc, ToCompute(data[i][offsets[i] + k * steps[i]]));
              if constexpr (kFold == Fold::kMean) acc = acc / static_cast<C>(n);
              y[output_offset + k] = FromCompute<T>(acc);
            }
          });
    }
  };
};

const char* FoldName(Fold fold) {
  switch (fold) {
    case Fold::kMax:
      return "Max";
    case Fold::kMin:
      return "Min";
    case Fold::kSum:
      return "Sum";
    case Fold::kMean:
      break;
  }
  return "Mean";
}

template <Fold kFold>
class Variadic final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const std::string what = GetNode().Describe();
    std::vector<const Tensor*> inputs;
    std::vector<TensorShape> shapes;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor& input = context.RequiredInput(i);
      PRISM_ENFORCE(input.Type() == context.RequiredInput(0).Type(), kInvalidArgument, what,
                    ": every input must have one element type, input 0 is ",
                    ElementTypeName(context.RequiredInput(0).Type()), ", input ", i, " is ",
                    ElementTypeName(input.Type()));
      if (GetNode().OpsetVersion() < 8)
        PRISM_ENFORCE(input.Shape() == context.RequiredInput(0).Shape(), kInvalidArgument, what,
                      ": before opset 8 every input must have one shape, input 0 is ",
                      context.RequiredInput(0).Shape().ToString(), ", input ", i, " is ",
                      input.Shape().ToString());
      inputs.push_back(&input);
      shapes.push_back(input.Shape());
    }
    PRISM_ENFORCE(!inputs.empty(), kInvalidArgument, what, ": needs at least one input");
    const Broadcaster plan(shapes, what);
    Tensor& out = context.Output(0, plan.OutputShape(), inputs[0]->Type());
    DispatchByType<FoldDispatch<kFold>::template Fn>(inputs[0]->Type(), FoldName(kFold), plan,
                                                     inputs, out);
  }
};

void RegisterVariadicKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  std::vector<E> floats_bf16 = floats;
  floats_bf16.push_back(E::kBFloat16);
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
                          .Constraint("T", types, {kVariadicFrom(0)}, {0})
                          .Build(),
                      factory);
  };
  for (const auto& [op, factory] : {std::pair{"Max", MakeKernelFactory<Variadic<Fold::kMax>>()},
                                    std::pair{"Min", MakeKernelFactory<Variadic<Fold::kMin>>()}}) {
    add(op, factory, 1, 5, floats);
    add(op, factory, 6, 7, floats);
    add(op, factory, 8, 11, floats);
    add(op, factory, 12, 12, numeric);
    add(op, factory, 13, INT_MAX, numeric_bf16);
  }
  for (const auto& [op, factory] :
       {std::pair{"Sum", MakeKernelFactory<Variadic<Fold::kSum>>()},
        std::pair{"Mean", MakeKernelFactory<Variadic<Fold::kMean>>()}}) {
    add(op, factory, 1, 5, floats);
    add(op, factory, 6, 7, floats);
    add(op, factory, 8, 12, floats);
    add(op, factory, 13, INT_MAX, floats_bf16);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_variadic, RegisterVariadicKernels);

}  // namespace prism::cpu

// Mod: elementwise remainder with numpy broadcasting. fmod=1 truncates the quotient (C's fmod and
// %: the result has A's sign); fmod=0 floors it (Python's %: the result has B's sign). Before
// opset 28, fmod=0 takes integers only. An integer divisor of zero is an error naming the node;
// a floating one gives NaN. float16/bfloat16 compute in float.
#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct ModOf {
  bool floor_mode;
  const Node* node;

  T operator()(T a, T b) const {
    if constexpr (kIsHalfType<T>) {
      const ModOf<float> wide{floor_mode, node};
      return FromCompute<T>(wide(ToCompute(a), ToCompute(b)));
    } else if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (!floor_mode) return r;
      if (r == T{0}) return std::copysign(T{0}, b);  // the sign of B, as for every result
      if ((r < T{0}) != (b < T{0})) r += b;
      return r;
    } else {
      if (b == T{0}) PRISM_THROW(kInvalidArgument, node->Describe(), ": integer modulo by zero");
      if constexpr (std::is_signed_v<T>) {
        if (b == static_cast<T>(-1)) return T{0};  // lowest % -1 would overflow
      }
      T r = static_cast<T>(a % b);  // truncated, as C does
      if constexpr (std::is_signed_v<T>) {
        if (floor_mode && r != T{0} && ((r < T{0}) != (b < T{0}))) r = static_cast<T>(r + b);
      }
      return r;
    }
  }
};

template <typename T>
struct ModDispatch {
  void operator()(const Broadcaster& plan, const Tensor& a, const Tensor& b, Tensor& out,
                  bool floor_mode, const Node& node, ThreadPool* pool) const {
    BroadcastBinary(plan, a.Data<T>(), b.Data<T>(), out.MutableData<T>(),
                    ModOf<T>{floor_mode, &node}, pool);
  }
};

class Mod final : public OpKernel {
 public:
  explicit Mod(const OpKernelInfo& info) : OpKernel(info) {
    const int64_t fmod = info.IntOr("fmod", 0);
    PRISM_ENFORCE(fmod == 0 || fmod == 1, kInvalidArgument, info.GetNode().Describe(),
                  ": Mod fmod must be 0 or 1, got ", fmod);
    floor_mode_ = fmod == 0;
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    RequireOneType(a, b, what);
    const bool floating = a.Type() == ElementType::kFloat || a.Type() == ElementType::kDouble ||
                          a.Type() == ElementType::kFloat16 || a.Type() == ElementType::kBFloat16;
    PRISM_ENFORCE(!(floating && floor_mode_ && GetNode().OpsetVersion() < 28), kInvalidArgument,
                  what, ": Mod with fmod=0 takes integers before opset 28, got ",
                  ElementTypeName(a.Type()), " (set fmod=1 for floating-point inputs)");
    const Broadcaster plan({a.Shape(), b.Shape()}, what);
    Tensor& out = context.Output(0, plan.OutputShape(), a.Type());
    DispatchByType<ModDispatch>(a.Type(), "Mod", plan, a, b, out, floor_mode_, GetNode(),
                                context.IntraOpThreadPool());
  }

 private:
  bool floor_mode_ = true;
};

void RegisterModKernels(KernelRegistry& registry) {
  using E = ElementType;
  std::vector<E> numeric = {E::kFloat16, E::kFloat, E::kDouble};
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    numeric.push_back(e);
  std::vector<E> numeric_bf16 = numeric;
  numeric_bf16.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<Mod>();
  for (const auto& [since, end, types] : std::vector<std::tuple<int, int, std::vector<E>>>{
           {10, 12, numeric}, {13, 27, numeric_bf16}, {28, INT_MAX, numeric_bf16}})
    registry.Register(
        KernelDefBuilder("Mod").Versions(since, end).Constraint("T", types, {0, 1}, {0}).Build(),
        factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_mod, RegisterModKernels);

}  // namespace prism::cpu

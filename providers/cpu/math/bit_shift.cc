// BitShift: X shifted by Y bits (numpy broadcasting), direction LEFT or RIGHT. Unsigned types
// from opset 11, signed from 28: a signed right shift sign-extends, a left shift discards the
// bits moved past the sign bit. A shift below 0 or of the type's width or more leaves only the
// sign fill: -1 for a right shift of a negative X, else 0.
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "providers/cpu/common/binary_broadcast_rule.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct Shift {
  bool left;
  T operator()(T x, T y) const {
    using U = std::make_unsigned_t<T>;
    constexpr int kBits = static_cast<int>(sizeof(T) * 8);
    const bool in_range = !(y < T{0}) && static_cast<U>(y) < static_cast<U>(kBits);
    if (!in_range) {
      if constexpr (std::is_signed_v<T>) {
        if (!left && x < T{0}) return static_cast<T>(-1);
      }
      return T{0};
    }
    if (left) return static_cast<T>(static_cast<U>(x) << static_cast<int>(y));
    return static_cast<T>(x >> static_cast<int>(y));  // sign-extending for signed T (C++20)
  }
};

template <typename T>
struct ShiftDispatch {
  void operator()(const Broadcaster& plan, const Tensor& x, const Tensor& y, Tensor& out, bool left,
                  ThreadPool* pool) const {
    BroadcastBinary(plan, x.Data<T>(), y.Data<T>(), out.MutableData<T>(), Shift<T>{left}, pool);
  }
};

using IntegerTypes =
    TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

class BitShift final : public OpKernel {
 public:
  explicit BitShift(const OpKernelInfo& info) : OpKernel(info) {
    const std::string direction = info.StringOr("direction", "");
    PRISM_ENFORCE(direction == "LEFT" || direction == "RIGHT", kInvalidArgument,
                  info.GetNode().Describe(), ": BitShift direction must be LEFT or RIGHT, got '",
                  direction, "'");
    left_ = direction == "LEFT";
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& y = context.RequiredInput(1);
    const std::string what = GetNode().Describe();
    RequireOneType(x, y, what, "X", "Y");
    const Broadcaster plan({x.Shape(), y.Shape()}, what);
    Tensor& out = context.Output(0, plan.OutputShape(), x.Type());
    DispatchByType<ShiftDispatch, IntegerTypes>(x.Type(), "BitShift", plan, x, y, out, left_,
                                                context.IntraOpThreadPool());
  }

 private:
  bool left_ = true;
};

void RegisterBitShiftKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> unsigned_types = {E::kUint8, E::kUint16, E::kUint32, E::kUint64};
  std::vector<E> all = unsigned_types;
  for (E e : {E::kInt8, E::kInt16, E::kInt32, E::kInt64}) all.push_back(e);
  const auto factory = MakeKernelFactory<BitShift>();
  registry.Register(KernelDefBuilder("BitShift")
                        .Versions(11, 27)
                        .Constraint("T", unsigned_types, {0, 1}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("BitShift").Versions(28).Constraint("T", all, {0, 1}, {0}).Build(), factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_bit_shift, RegisterBitShiftKernels);

}  // namespace prism::cpu

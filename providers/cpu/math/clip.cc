// Clip: limits every element to [min, max]. Opsets 1-10 take min/max as float attributes,
// opset 11+ as optional one-element inputs of the data's type (12 adds integers). A missing
// bound defaults to the type's lowest()/max(), as the spec says. When min > max every element
// becomes max (applying min first, then max). NaN elements stay NaN.
#include <limits>
#include <optional>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/element_compute.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
ComputeTypeOf<T> Lowest() {
  if constexpr (std::is_same_v<T, Float16>)
    return Float16::FromBits(0xfbffu).ToFloat();
  else if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16::FromBits(0xff7fu).ToFloat();
  else
    return std::numeric_limits<T>::lowest();
}

template <typename T>
ComputeTypeOf<T> Highest() {
  if constexpr (std::is_same_v<T, Float16>)
    return Float16::FromBits(0x7bffu).ToFloat();
  else if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16::FromBits(0x7f7fu).ToFloat();
  else
    return std::numeric_limits<T>::max();
}

// The bounds, each from an attribute (opset < 11), an input (opset 11+), or T's limits.
struct ClipBounds {
  std::optional<float> min_attr;
  std::optional<float> max_attr;
  const Tensor* min_input = nullptr;
  const Tensor* max_input = nullptr;
};

template <typename T>
struct ClipDispatch {
  void operator()(const Tensor& x, Tensor& y, const ClipBounds& bounds, ThreadPool* pool) const {
    using C = ComputeTypeOf<T>;
    C lo = Lowest<T>();
    C hi = Highest<T>();
    if (bounds.min_attr) lo = static_cast<C>(*bounds.min_attr);
    if (bounds.max_attr) hi = static_cast<C>(*bounds.max_attr);
    if (bounds.min_input) lo = ToCompute(bounds.min_input->Data<T>()[0]);
    if (bounds.max_input) hi = ToCompute(bounds.max_input->Data<T>()[0]);
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    ThreadPool::TryParallelFor(pool, x.NumElements(), 2.0, [&](int64_t begin, int64_t end) {
      if constexpr (std::is_same_v<T, float>) {
        mlas::ActiveKernels().clamp_f32(out + begin, in + begin, end - begin, lo, hi);
        return;
      }
      for (int64_t i = begin; i < end; ++i) {
        C v = ToCompute(in[i]);
        // Comparisons with NaN are false, so NaN passes through both.
        if (v < lo) v = lo;
        if (v > hi) v = hi;
        out[i] = FromCompute<T>(v);
      }
    });
  }
};

class Clip final : public OpKernel {
 public:
  explicit Clip(const OpKernelInfo& info) : OpKernel(info) {
    if (info.GetNode().OpsetVersion() < 11) {
      if (info.HasAttr("min")) min_attr_ = info.Float("min");
      if (info.HasAttr("max")) max_attr_ = info.Float("max");
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    ClipBounds bounds{min_attr_, max_attr_, nullptr, nullptr};
    if (GetNode().OpsetVersion() >= 11) {
      bounds.min_input = BoundInput(context, 1, "min", x);
      bounds.max_input = BoundInput(context, 2, "max", x);
    }
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<ClipDispatch>(x.Type(), "Clip", x, y, bounds, context.IntraOpThreadPool());
  }

 private:
  const Tensor* BoundInput(const OpKernelContext& context, size_t index, const char* name,
                           const Tensor& x) const {
    if (index >= context.InputCount()) return nullptr;
    const Tensor* bound = context.Input(index);
    if (bound == nullptr) return nullptr;
    PRISM_ENFORCE(bound->NumElements() == 1, kInvalidArgument, GetNode().Describe(), ": input '",
                  name, "' must be a scalar (one element), got shape ", bound->Shape().ToString());
    PRISM_ENFORCE(bound->Type() == x.Type(), kInvalidArgument, GetNode().Describe(), ": input '",
                  name, "' must have the input's type ", ElementTypeName(x.Type()), ", got ",
                  ElementTypeName(bound->Type()));
    return bound;
  }

  std::optional<float> min_attr_;
  std::optional<float> max_attr_;
};

void RegisterClipKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<Clip>();
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  std::vector<E> v12 = floats;
  for (E e :
       {E::kInt8, E::kInt16, E::kInt32, E::kInt64, E::kUint8, E::kUint16, E::kUint32, E::kUint64})
    v12.push_back(e);
  std::vector<E> v13 = v12;
  v13.push_back(E::kBFloat16);
  const auto add = [&](int since, int end, const std::vector<E>& types, std::vector<int> inputs) {
    registry.Register(KernelDefBuilder("Clip")
                          .Versions(since, end)
                          .Constraint("T", types, inputs, {0})
                          .MayInplace(0, 0)
                          .Build(),
                      factory);
  };
  add(1, 5, floats, {0});
  add(6, 10, floats, {0});
  add(11, 11, floats, {0, 1, 2});
  add(12, 12, v12, {0, 1, 2});
  add(13, INT_MAX, v13, {0, 1, 2});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_clip, RegisterClipKernels);

}  // namespace prism::cpu

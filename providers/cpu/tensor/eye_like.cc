// EyeLike: a 2-D tensor of the input's shape with ones on the diagonal shifted by k (k > 0 above
// the main diagonal, k < 0 below) and zeros elsewhere, of element type 'dtype' (by default the
// input's). Only the input's shape is read.
#include <climits>
#include <cstring>

#include "framework/float16.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct EyeImpl {
  void operator()(Tensor& output, int64_t rows, int64_t cols, int64_t k) const {
    T* out = output.MutableData<T>();
    std::memset(static_cast<void*>(out), 0, static_cast<size_t>(output.SizeInBytes()));
    // The diagonal's first row, and its end, without forming -k or i + k for a k near the
    // int64 limits (k is an attribute: any value).
    const int64_t first = k >= 0 ? 0 : (k < -rows ? rows : -k);
    for (int64_t i = first; i < rows && k < cols - i; ++i) {
      if constexpr (std::is_same_v<T, bool>)
        out[i * cols + i + k] = true;
      else
        out[i * cols + i + k] = T(1.0f);
    }
  }
};

class EyeLike final : public OpKernel {
 public:
  explicit EyeLike(const OpKernelInfo& info)
      : OpKernel(info), dtype_(info.IntOr("dtype", 0)), k_(info.IntOr("k", 0)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    PRISM_ENFORCE(input.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                  ": input must be 2-D, got shape ", input.Shape().ToString());
    ElementType type = input.Type();
    if (dtype_ != 0) {
      PRISM_ENFORCE(IsKnownElementType(static_cast<int32_t>(dtype_)), kInvalidArgument,
                    node.Describe(), ": dtype ", dtype_, " is not an ONNX element type");
      type = static_cast<ElementType>(dtype_);
    }
    Tensor& output = context.Output(0, input.Shape(), type);
    if (output.NumElements() == 0) return;
    DispatchByType<EyeImpl, TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                     int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool>>(
        type, node.OpType(), output, input.Shape()[0], input.Shape()[1], k_);
  }

 private:
  int64_t dtype_;
  int64_t k_;
};

void RegisterEyeLikeKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> types = {E::kFloat16, E::kFloat,  E::kDouble, E::kInt8,
                                E::kInt16,   E::kInt32,  E::kInt64,  E::kUint8,
                                E::kUint16,  E::kUint32, E::kUint64, E::kBool};
  std::vector<E> with_bf16 = types;
  with_bf16.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<EyeLike>();
  registry.Register(KernelDefBuilder("EyeLike")
                        .Versions(9, 21)
                        .Constraint("T1", types, {0})
                        .Constraint("T2", types, {}, {0})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("EyeLike")
                        .Versions(22)
                        .Constraint("T1", with_bf16, {0})
                        .Constraint("T2", with_bf16, {}, {0})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_eye_like, RegisterEyeLikeKernels);

}  // namespace prism::cpu

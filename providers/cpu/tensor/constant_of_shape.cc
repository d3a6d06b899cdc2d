// ConstantOfShape: a tensor of the shape given by the int64 input, every element the one-element
// `value` attribute (float 0 when absent). Any element type, sub-byte packed ones included
// (int4/uint4, int2/uint2, float4e2m1): the element's bits repeat through the packed stream.
#include <cstring>
#include <string>
#include <vector>

#include "framework/packed_int.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

class ConstantOfShape final : public OpKernel {
 public:
  explicit ConstantOfShape(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("value")) {
      value_ = info.TensorAttr("value");
      PRISM_ENFORCE(value_.NumElements() == 1, kInvalidArgument, info.GetNode().Describe(),
                    ": ConstantOfShape value must hold one element, got ",
                    value_.Shape().ToString());
      PRISM_ENFORCE(value_.Location().IsCpuAccessible(), kInvalidArgument,
                    info.GetNode().Describe(), ": ConstantOfShape value must be in CPU memory");
    } else {
      value_ = Tensor(ElementType::kFloat, TensorShape({1}), GetCpuAllocator());
      value_.MutableData<float>()[0] = 0.0f;
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& shape = context.RequiredInput(0);
    const std::string what = GetNode().Describe();
    PRISM_ENFORCE(shape.Type() == ElementType::kInt64 && shape.Shape().Rank() == 1,
                  kInvalidArgument, what,
                  ": ConstantOfShape input must be a 1-D int64 tensor, got ", shape.Describe());
    const int64_t* dims = shape.Data<int64_t>();
    std::vector<int64_t> out_dims(dims, dims + shape.NumElements());
    for (size_t i = 0; i < out_dims.size(); ++i)
      PRISM_ENFORCE(out_dims[i] >= 0, kInvalidArgument, what,
                    ": ConstantOfShape dims must be >= 0, got ", out_dims[i], " at index ", i);
    Tensor& out = context.Output(0, TensorShape(out_dims), value_.Type());
    const int64_t count = out.NumElements();
    if (count == 0) return;
    if (value_.Type() == ElementType::kString) {
      auto* strings = out.MutableData<std::string>();
      for (int64_t i = 0; i < count; ++i) strings[i] = value_.Data<std::string>()[0];
      return;
    }
    const int bits = ElementBits(value_.Type());
    if (bits < 8) {
      // The element's bits, repeated through the stream (the last byte's spare bits stay 0).
      const uint8_t element = GetPackedBits(value_.RawData(), 0, bits);
      std::memset(out.MutableRawData(), 0, out.SizeInBytes());
      for (int64_t i = 0; i < count; ++i) SetPackedBits(out.MutableRawData(), i, bits, element);
      return;
    }
    const size_t width = static_cast<size_t>(bits / 8);
    auto* bytes = static_cast<char*>(out.MutableRawData());
    std::memcpy(bytes, value_.RawData(), width);
    // Doubling copies: log2(count) memcpy calls instead of one per element.
    size_t filled = width;
    const size_t total = width * static_cast<size_t>(count);
    while (filled < total) {
      const size_t chunk = std::min(filled, total - filled);
      std::memcpy(bytes + filled, bytes, chunk);
      filled += chunk;
    }
  }

 private:
  Tensor value_;
};

void RegisterConstantOfShapeKernels(KernelRegistry& registry) {
  using E = ElementType;
  std::vector<E> t9 = {E::kFloat16, E::kFloat, E::kDouble, E::kInt8,   E::kInt16,  E::kInt32,
                       E::kInt64,   E::kUint8, E::kUint16, E::kUint32, E::kUint64, E::kBool};
  std::vector<E> t20 = t9;
  for (E e :
       {E::kBFloat16, E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ})
    t20.push_back(e);
  std::vector<E> t21 = t20;
  t21.push_back(E::kInt4);
  t21.push_back(E::kUint4);
  std::vector<E> t23 = t21;
  t23.push_back(E::kFloat4E2M1);
  std::vector<E> t24 = t23;
  t24.push_back(E::kFloat8E8M0);
  std::vector<E> t25 = t24;
  t25.push_back(E::kInt2);
  t25.push_back(E::kUint2);
  const auto factory = MakeKernelFactory<ConstantOfShape>();
  for (const auto& [since, end, types] :
       std::vector<std::tuple<int, int, std::vector<E>>>{{9, 19, t9},
                                                         {20, 20, t20},
                                                         {21, 22, t21},
                                                         {23, 23, t23},
                                                         {24, 24, t24},
                                                         {25, INT_MAX, t25}})
    registry.Register(KernelDefBuilder("ConstantOfShape")
                          .Versions(since, end)
                          .Constraint("T1", {E::kInt64}, {0})
                          .CpuInput(0)
                          .Constraint("T2", types, {}, {0})
                          .Build(),
                      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_constant_of_shape, RegisterConstantOfShapeKernels);

}  // namespace prism::cpu

// DFT (opsets 17, 20) as the ONNX reference computes it: the last input dim holds a real (1) or
// complex (2: real, imaginary) signal along `axis` (17: attribute, default 1; 20: optional input,
// default -2). dft_length (default: the signal's length; 2 * (length - 1) for an inverse
// one-sided transform) pads the signal with zeros or cuts it. Forward: X[k] = sum_j x[j]
// e^(-2 pi i jk/n), the first n/2 + 1 bins when onesided. Inverse: x[k] = 1/n sum_j X[j]
// e^(2 pi i jk/n); with onesided, the input is a half spectrum and the output the real signal
// (numpy's irfft: the imaginary parts of the first and, for even n, the middle bin are ignored).
// Output: [..., bins, ..., 2], or [..., n, ..., 1] for the one-sided inverse. Computed in double
// by the direct sum.
#include <cmath>
#include <complex>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/signal/twiddle.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using Complex = std::complex<double>;

struct DftPlan {
  int64_t outer, in_len, inner;  // input viewed as [outer, in_len, inner, components]
  int64_t components;            // 1 (real) or 2 (complex) input
  int64_t n;                     // dft_length
  int64_t out_len;               // bins (or samples) written along the axis
  bool inverse, onesided;
};

std::vector<double> Transform(const std::vector<Complex>& signal, const DftPlan& p) {
  const int64_t n = p.n;
  std::vector<double> out;  // interleaved (re, im), or real samples for irfft
  if (p.inverse && p.onesided) {
    const int64_t m = n / 2 + 1;
    for (int64_t k = 0; k < n; ++k) {
      double sum = 0;
      for (int64_t j = 0; j < m && j < static_cast<int64_t>(signal.size()); ++j) {
        const Complex twiddle = Twiddle(j * k % n, n, 1.0);
        const bool edge = j == 0 || (n % 2 == 0 && j == n / 2);
        sum += edge ? signal[j].real() * twiddle.real() : 2 * (signal[j] * twiddle).real();
      }
      out.push_back(sum / static_cast<double>(n));
    }
    return out;
  }
  const double sign = p.inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < p.out_len; ++k) {
    Complex sum = 0;
    for (int64_t j = 0; j < n && j < static_cast<int64_t>(signal.size()); ++j) {
      sum += signal[j] * Twiddle(j * k % n, n, sign);
    }
    if (p.inverse) sum /= static_cast<double>(n);
    out.push_back(sum.real());
    out.push_back(sum.imag());
  }
  return out;
}

template <typename T>
struct DftImpl {
  void operator()(const Tensor& input, Tensor& output, const DftPlan& p) const {
    const T* in = input.Data<T>();
    T* out = output.MutableData<T>();
    const int64_t out_components = p.inverse && p.onesided ? 1 : 2;
    std::vector<Complex> signal(static_cast<size_t>(p.in_len));
    for (int64_t o = 0; o < p.outer; ++o) {
      for (int64_t i = 0; i < p.inner; ++i) {
        for (int64_t j = 0; j < p.in_len; ++j) {
          const int64_t at = ((o * p.in_len + j) * p.inner + i) * p.components;
          signal[j] = Complex(ToDouble(in[at]), p.components == 2 ? ToDouble(in[at + 1]) : 0.0);
        }
        const std::vector<double> result = Transform(signal, p);
        for (int64_t k = 0; k < p.out_len; ++k)
          for (int64_t c = 0; c < out_components; ++c)
            out[((o * p.out_len + k) * p.inner + i) * out_components + c] =
                FromCompute<T>(result[k * out_components + c]);
      }
    }
  }
};

class Dft final : public OpKernel {
 public:
  explicit Dft(const OpKernelInfo& info)
      : OpKernel(info),
        axis_attribute_(info.GetNode().OpsetVersion() < 20 ? info.IntOr("axis", 1) : -2),
        inverse_(info.IntOr("inverse", 0) != 0),
        onesided_(info.IntOr("onesided", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 2 && (shape[rank - 1] == 1 || shape[rank - 1] == 2), kInvalidArgument,
                  node.Describe(), ": input must be [..., 1] (real) or [..., 2] (complex), got ",
                  shape.ToString());
    int64_t axis = axis_attribute_;
    if (node.OpsetVersion() >= 20 && context.InputCount() > 2)
      if (const Tensor* axis_input = context.Input(2)) {
        const std::vector<int64_t> values = ReadIntList(*axis_input, node.Describe() + " axis");
        PRISM_ENFORCE(values.size() == 1, kInvalidArgument, node.Describe(),
                      ": axis must hold one value");
        axis = values[0];
      }
    PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ", axis,
                  " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    PRISM_ENFORCE(axis < rank - 1, kInvalidArgument, node.Describe(), ": axis ", axis,
                  " is the real/imaginary axis, not a signal axis");
    PRISM_ENFORCE(!(onesided_ && !inverse_ && shape[rank - 1] == 2), kInvalidArgument,
                  node.Describe(), ": a one-sided forward transform needs a real input");
    DftPlan p{};
    p.outer = shape.SizeToDimension(static_cast<size_t>(axis));
    p.in_len = shape[axis];
    p.inner = shape.SizeFromDimension(static_cast<size_t>(axis) + 1) / shape[rank - 1];
    p.components = shape[rank - 1];
    p.inverse = inverse_;
    p.onesided = onesided_;
    p.n = inverse_ && onesided_ ? 2 * (p.in_len - 1) : p.in_len;
    if (const Tensor* length = context.Input(1)) {
      const std::vector<int64_t> values = ReadIntList(*length, node.Describe() + " dft_length");
      PRISM_ENFORCE(values.size() == 1, kInvalidArgument, node.Describe(),
                    ": dft_length must hold one value");
      p.n = values[0];
    }
    PRISM_ENFORCE(p.n > 0, kInvalidArgument, node.Describe(), ": dft_length ", p.n,
                  " must be positive");
    p.out_len = !inverse_ && onesided_ ? p.n / 2 + 1 : p.n;
    std::vector<int64_t> dims = shape.Dims();
    dims[axis] = p.out_len;
    dims[rank - 1] = inverse_ && onesided_ ? 1 : 2;
    Tensor& output = context.Output(0, TensorShape(dims), input.Type());
    if (output.NumElements() == 0) return;
    DispatchByType<DftImpl, TypeList<float, double, Float16, BFloat16>>(input.Type(), node.OpType(),
                                                                        input, output, p);
  }

 private:
  int64_t axis_attribute_;
  bool inverse_;
  bool onesided_;
};

void RegisterDftKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  const auto factory = MakeKernelFactory<Dft>();
  registry.Register(KernelDefBuilder("DFT")
                        .Versions(17, 19)
                        .Constraint("T1", floats, {0}, {0})
                        .Constraint("T2", {E::kInt32, E::kInt64}, {1})
                        .CpuInput(1)
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("DFT")
                        .Versions(20)
                        .Constraint("T1", floats, {0}, {0})
                        .Constraint("T2", {E::kInt32, E::kInt64}, {1})
                        .CpuInput(1)
                        .CpuInput(2)
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(signal_dft, RegisterDftKernels);

}  // namespace prism::cpu

// DFT (opsets 17, 20) as the ONNX reference computes it: the last input dim holds a real (1) or
// complex (2: real, imaginary) signal along `axis` (17: attribute, default 1; 20: optional input,
// default -2). dft_length (default: the signal's length; 2 * (length - 1) for an inverse
// one-sided transform) pads the signal with zeros or cuts it. Forward: X[k] = sum_j x[j]
// e^(-2 pi i jk/n), the first n/2 + 1 bins when onesided. Inverse: x[k] = 1/n sum_j X[j]
// e^(2 pi i jk/n); with onesided, the input is a half spectrum and the output the real signal
// (numpy's irfft: the imaginary parts of the first and, for even n, the middle bin are ignored).
// Output: [..., bins, ..., 2], or [..., n, ..., 1] for the one-sided inverse. Computed in double
// by the FFT (fft.h), one plan per call.
#include <cmath>
#include <complex>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/signal/fft.h"
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

// One signal: the input along the axis gathered into `buffer` (zero-padded or cut to n), the
// transform, and the bins (or samples) written back along the axis.
template <typename T>
void TransformSignal(const T* in, T* out, int64_t o, int64_t i, const DftPlan& p,
                     const FftPlan& fft, Complex* buffer, Complex* scratch) {
  const int64_t n = p.n;
  const auto load = [&](int64_t j) {
    if (j >= p.in_len) return Complex(0, 0);
    const int64_t at = ((o * p.in_len + j) * p.inner + i) * p.components;
    return Complex(ToDouble(in[at]), p.components == 2 ? ToDouble(in[at + 1]) : 0.0);
  };
  const auto at_out = [&](int64_t k, int64_t components) {
    return ((o * p.out_len + k) * p.inner + i) * components;
  };
  if (p.inverse && p.onesided) {
    // The full Hermitian spectrum X[n - j] = conj(X[j]); the first and (even n) middle bins are
    // their own mirrors, so only their real parts count.
    buffer[0] = Complex(load(0).real(), 0);
    for (int64_t j = 1; j <= n / 2; ++j) {
      const Complex value = load(j);
      if (2 * j == n) {
        buffer[j] = Complex(value.real(), 0);
      } else {
        buffer[j] = value;
        buffer[n - j] = std::conj(value);
      }
    }
    fft.Execute(buffer, scratch);
    for (int64_t k = 0; k < n; ++k)
      out[at_out(k, 1)] = FromCompute<T>(buffer[k].real() / static_cast<double>(n));
    return;
  }
  for (int64_t j = 0; j < n; ++j) buffer[j] = load(j);
  fft.Execute(buffer, scratch);
  for (int64_t k = 0; k < p.out_len; ++k) {
    const Complex bin = p.inverse ? buffer[k] / static_cast<double>(n) : buffer[k];
    T* to = out + at_out(k, 2);
    to[0] = FromCompute<T>(bin.real());
    to[1] = FromCompute<T>(bin.imag());
  }
}

template <typename T>
struct DftImpl {
  void operator()(const Tensor& input, Tensor& output, const DftPlan& p, ThreadPool* pool) const {
    const T* in = input.Data<T>();
    T* out = output.MutableData<T>();
    const FftPlan fft(p.n, p.inverse);
    // The signals are independent: split them over the intra-op pool, one buffer per chunk.
    const double n = static_cast<double>(p.n);
    const double cost = 10.0 * n * (std::log2(n) + 1.0) * (fft.UsesBluestein() ? 6.0 : 1.0);
    ThreadPool::TryParallelFor(pool, p.outer * p.inner, cost, [&](int64_t first, int64_t last) {
      std::vector<Complex> buffer(static_cast<size_t>(p.n)), scratch(fft.ScratchSize());
      for (int64_t index = first; index < last; ++index)
        TransformSignal(in, out, index / p.inner, index % p.inner, p, fft, buffer.data(),
                        scratch.data());
    });
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
    DispatchByType<DftImpl, TypeList<float, double, Float16, BFloat16>>(
        input.Type(), node.OpType(), input, output, p, context.IntraOpThreadPool());
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

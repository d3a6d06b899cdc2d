// STFT (opset 17): signal [batch, length, 1 (real) or 2 (complex)], frame_step, an optional 1-D
// window and an optional frame_length (the window's length when omitted, else the signal's).
// frames = (length - frame_length) / frame_step + 1 frames, frame f starting at f * frame_step;
// each frame is multiplied by the window (all ones when omitted) and transformed with a DFT of
// size frame_length: X[k] = sum_j x[j] w[j] e^(-2 pi i jk / n), the first n / 2 + 1 bins when
// onesided (the default). Output [batch, frames, bins, 2]. Computed in double by the FFT
// (fft.h), one plan per call, as the DFT kernel does. A one-sided transform of a complex
// signal is refused: the spec says it is not possible (the spectrum has no conjugate symmetry).
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

struct StftPlan {
  int64_t batch, length, components;
  int64_t frame_step, frame_length, frames, bins;
};

template <typename T>
struct StftImpl {
  void operator()(const Tensor& signal, const Tensor* window, Tensor& output, const StftPlan& p,
                  ThreadPool* pool) const {
    const T* in = signal.Data<T>();
    T* out = output.MutableData<T>();
    const int64_t n = p.frame_length;
    std::vector<double> weights(static_cast<size_t>(n), 1.0);
    if (window != nullptr)
      for (int64_t j = 0; j < n; ++j) weights[j] = ToDouble(window->Data<T>()[j]);
    const FftPlan fft(n, false);
    // Frames are independent: split them over the intra-op pool, one frame buffer per chunk.
    const double size = static_cast<double>(n);
    const double cost = 10.0 * size * (std::log2(size) + 1.0) * (fft.UsesBluestein() ? 6.0 : 1.0);
    ThreadPool::TryParallelFor(pool, p.batch * p.frames, cost, [&](int64_t first, int64_t last) {
      std::vector<Complex> frame(static_cast<size_t>(n)), scratch(fft.ScratchSize());
      for (int64_t index = first; index < last; ++index) {
        const int64_t b = index / p.frames, f = index % p.frames;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t at = (b * p.length + f * p.frame_step + j) * p.components;
          const double imag = p.components == 2 ? ToDouble(in[at + 1]) : 0.0;
          frame[j] = Complex(ToDouble(in[at]), imag) * weights[j];
        }
        fft.Execute(frame.data(), scratch.data());
        for (int64_t k = 0; k < p.bins; ++k) {
          T* bin = out + (index * p.bins + k) * 2;
          bin[0] = FromCompute<T>(frame[k].real());
          bin[1] = FromCompute<T>(frame[k].imag());
        }
      }
    });
  }
};

class Stft final : public OpKernel {
 public:
  explicit Stft(const OpKernelInfo& info) : OpKernel(info), onesided_(info.IntOr("onesided", 1)) {
    PRISM_ENFORCE(onesided_ == 0 || onesided_ == 1, kInvalidArgument, info.GetNode().Describe(),
                  ": onesided must be 0 or 1, got ", onesided_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& signal = context.RequiredInput(0);
    const TensorShape& shape = signal.Shape();
    PRISM_ENFORCE(shape.Rank() == 3 && (shape[2] == 1 || shape[2] == 2), kInvalidArgument,
                  node.Describe(), ": input signal must be [batch, length, 1] (real) or [batch, ",
                  "length, 2] (complex), got ", shape.ToString());
    StftPlan p{};
    p.batch = shape[0];
    p.length = shape[1];
    p.components = shape[2];
    PRISM_ENFORCE(!(onesided_ == 1 && p.components == 2), kInvalidArgument, node.Describe(),
                  ": onesided=1 (the default) needs a real signal, got a complex one ",
                  shape.ToString(), "; set onesided=0");
    p.frame_step = ReadScalar(context.RequiredInput(1), "frame_step");
    PRISM_ENFORCE(p.frame_step > 0, kInvalidArgument, node.Describe(),
                  ": frame_step must be positive, got ", p.frame_step);
    const Tensor* window = context.InputCount() > 2 ? context.Input(2) : nullptr;
    const Tensor* length_input = context.InputCount() > 3 ? context.Input(3) : nullptr;
    if (window != nullptr) {
      PRISM_ENFORCE(window->Shape().Rank() == 1 && window->Type() == signal.Type(),
                    kInvalidArgument, node.Describe(), ": input window must be 1-D of the ",
                    "signal's type ", ElementTypeName(signal.Type()), ", got ", window->Describe());
    }
    if (length_input != nullptr) {
      p.frame_length = ReadScalar(*length_input, "frame_length");
      PRISM_ENFORCE(window == nullptr || window->Shape()[0] == p.frame_length, kInvalidArgument,
                    node.Describe(), ": input window has length ", window ? window->Shape()[0] : 0,
                    " but frame_length is ", p.frame_length);
    } else {
      p.frame_length = window != nullptr ? window->Shape()[0] : p.length;
    }
    PRISM_ENFORCE(p.frame_length > 0 && p.frame_length <= p.length, kInvalidArgument,
                  node.Describe(), ": frame_length ", p.frame_length,
                  " must be in [1, signal length ", p.length, "]");
    p.frames = (p.length - p.frame_length) / p.frame_step + 1;
    p.bins = onesided_ == 1 ? p.frame_length / 2 + 1 : p.frame_length;
    Tensor& output = context.Output(0, TensorShape({p.batch, p.frames, p.bins, 2}), signal.Type());
    if (output.NumElements() == 0) return;
    DispatchByType<StftImpl, TypeList<float, double, Float16, BFloat16>>(
        signal.Type(), node.OpType(), signal, window, output, p, context.IntraOpThreadPool());
  }

 private:
  int64_t ReadScalar(const Tensor& tensor, const char* name) const {
    const std::vector<int64_t> values =
        ReadIntList(tensor, GetNode().Describe() + " input " + name);
    PRISM_ENFORCE(values.size() == 1, kInvalidArgument, GetNode().Describe(), ": input ", name,
                  " must be a scalar, got shape ", tensor.Shape().ToString());
    return values[0];
  }
  int64_t onesided_;
};

void RegisterStftKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("STFT")
          .Versions(17)
          .Constraint("T1", {E::kFloat, E::kFloat16, E::kDouble, E::kBFloat16}, {0, 2}, {0})
          .Constraint("T2", {E::kInt32, E::kInt64}, {1, 3})
          .CpuInput(1)
          .CpuInput(3)
          .Build(),
      MakeKernelFactory<Stft>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(signal_stft, RegisterStftKernels);

}  // namespace prism::cpu

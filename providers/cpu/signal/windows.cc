// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix (opset 17).
//
// The windows are the spec's generalized cosine window w[n] = a0 - a1 cos(2 pi n / N) +
// a2 cos(4 pi n / N) for n in [0, size), N = size (periodic) or size - 1 (symmetric), with
// (a0, a1, a2) = (1/2, 1/2, 0) for Hann, (25/46, 21/46, 0) for Hamming and (0.42, 0.5, 0.08) for
// Blackman; computed in double (exact cosines at the quarter turns) and cast once to
// output_datatype (integers truncate, as the spec's closing Cast does).
//
// MelWeightMatrix follows the spec's reference algorithm step by step: the edges on the mel scale
// (mel(f) = 2595 log10(1 + f / 700)) computed in the type of the edge inputs (numpy rounds every
// operation there), num_mel_bins + 2 equally spaced mel points mapped back to hertz in double,
// each turned into a spectrogram bin floor((dft_length + 1) * hz / sample_rate) by numpy's floor
// division, then triangles rising from bin i to bin i + 1 and falling to bin i + 2 (a zero-width
// rise puts a single 1 at the centre). A bin outside the [0, dft_length / 2] rows it writes to is
// refused: the reference would index out of range (or wrap around a negative index).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/scratch_buffer.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/signal/twiddle.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using WindowOutputTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                   int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

struct CosineWindow {
  double a0, a1, a2;
};

int64_t ReadScalarInt(const Tensor& tensor, const Node& node, const char* name) {
  const std::vector<int64_t> values = ReadIntList(tensor, node.Describe() + " input " + name);
  PRISM_ENFORCE(values.size() == 1, kInvalidArgument, node.Describe(), ": input ", name,
                " must be a scalar, got shape ", tensor.Shape().ToString());
  return values[0];
}

ElementType OutputDatatype(const OpKernelInfo& info) {
  const int64_t code = info.IntOr("output_datatype", 1);
  PRISM_ENFORCE(IsKnownElementType(static_cast<int32_t>(code)), kInvalidArgument,
                info.GetNode().Describe(), ": output_datatype ", code,
                " is not an ONNX element type");
  return static_cast<ElementType>(code);
}

template <typename T>
struct WriteDoubles {
  void operator()(const double* values, Tensor& output) const {
    T* out = output.MutableData<T>();
    for (int64_t i = 0; i < output.NumElements(); ++i) out[i] = FromCompute<T>(values[i]);
  }
};

class Window final : public OpKernel {
 public:
  Window(const OpKernelInfo& info, CosineWindow coefficients)
      : OpKernel(info),
        coefficients_(coefficients),
        periodic_(info.IntOr("periodic", 1)),
        output_type_(OutputDatatype(info)) {
    PRISM_ENFORCE(periodic_ == 0 || periodic_ == 1, kInvalidArgument, info.GetNode().Describe(),
                  ": periodic must be 0 or 1, got ", periodic_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const int64_t size = ReadScalarInt(context.RequiredInput(0), node, "size");
    PRISM_ENFORCE(size >= 0, kInvalidArgument, node.Describe(), ": input size must be >= 0, got ",
                  size);
    const int64_t period = periodic_ == 1 ? size : size - 1;
    const bool floating = IsFloatingPoint(output_type_);
    // A symmetric window of one sample divides 0 by 0 in the spec's formula: NaN, which an
    // integer output cannot hold.
    PRISM_ENFORCE(period > 0 || size == 0 || floating, kInvalidArgument, node.Describe(),
                  ": a symmetric window of size 1 is 0/0 (NaN) by the spec's formula, which "
                  "output_datatype ",
                  ElementTypeName(output_type_), " cannot represent");
    // The output first: its size is checked against the session's limits before the scratch
    // of the same length, which the session's allocator checks too (found by the model fuzzer:
    // a size of INT32_MAX allocated 16 GiB of doubles here first).
    Tensor& output = context.Output(0, TensorShape({size}), output_type_);
    ScratchBuffer<double> values(context.TempAllocator(), static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n) {
      if (period == 0) {
        values.data()[n] = std::nan("");
        continue;
      }
      const double cos1 = Twiddle(n % period, period, 1.0).real();
      const double cos2 = Twiddle((2 * n) % period, period, 1.0).real();
      // The reference's order of operations: an integer output truncates a peak that another
      // order would round to 0.9999999999999999 instead of 1.
      values.data()[n] = (-coefficients_.a1 * cos1 + coefficients_.a2 * cos2) + coefficients_.a0;
    }
    DispatchByType<WriteDoubles, WindowOutputTypes>(output_type_, node.OpType(), values.data(),
                                                    output);
  }

 private:
  static bool IsFloatingPoint(ElementType type) {
    return type == ElementType::kFloat || type == ElementType::kDouble ||
           type == ElementType::kFloat16 || type == ElementType::kBFloat16;
  }
  CosineWindow coefficients_;
  int64_t periodic_;
  ElementType output_type_;
};

// numpy's floor division of two doubles (a // b): floor of the exact quotient, computed from
// fmod so that a quotient that rounds up to an integer does not cross it.
double NumpyFloorDivide(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floor_div = std::floor(div);
  if (div - floor_div > 0.5) floor_div += 1.0;
  return floor_div;
}

// A double rounded to T, as numpy rounds each operation on a scalar of type T.
template <typename T>
struct EdgeMel {
  void operator()(const Tensor& edge, double& mel) const {
    auto round = [](double x) { return ToDouble(FromCompute<T>(x)); };
    const double hertz = ToDouble(edge.Data<T>()[0]);
    const double log_term = round(std::log1p(round(hertz / 700.0)));
    mel = round(round(2595.0) * log_term) / std::log(10.0);
  }
};

class MelWeightMatrix final : public OpKernel {
 public:
  explicit MelWeightMatrix(const OpKernelInfo& info)
      : OpKernel(info), output_type_(OutputDatatype(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const int64_t num_mel_bins = ReadScalarInt(context.RequiredInput(0), node, "num_mel_bins");
    const int64_t dft_length = ReadScalarInt(context.RequiredInput(1), node, "dft_length");
    const int64_t sample_rate = ReadScalarInt(context.RequiredInput(2), node, "sample_rate");
    PRISM_ENFORCE(num_mel_bins >= 0, kInvalidArgument, node.Describe(),
                  ": num_mel_bins must be >= 0, got ", num_mel_bins);
    PRISM_ENFORCE(dft_length > 0, kInvalidArgument, node.Describe(),
                  ": dft_length must be positive, got ", dft_length);
    PRISM_ENFORCE(sample_rate > 0, kInvalidArgument, node.Describe(),
                  ": sample_rate must be positive, got ", sample_rate);
    const double low_mel = EdgeToMel(context.RequiredInput(3), "lower_edge_hertz");
    const double high_mel = EdgeToMel(context.RequiredInput(4), "upper_edge_hertz");
    const int64_t rows = dft_length / 2 + 1;
    // The sizes the inputs ask for are checked before anything is allocated: the output's
    // against the session's limits by its allocator, then the work arrays' as its scratch
    // (found by the model fuzzer: a num_mel_bins near 2^31 asked for 16 GiB of bin edges here).
    PRISM_ENFORCE(num_mel_bins <= (std::numeric_limits<int64_t>::max() / 8 - 2) / rows,
                  kInvalidArgument, node.Describe(), ": the ", rows, " x ", num_mel_bins,
                  " weight matrix of dft_length ", dft_length, " and num_mel_bins ", num_mel_bins,
                  " is too large");
    Tensor& output = context.Output(0, TensorShape({rows, num_mel_bins}), output_type_);
    const int64_t points = num_mel_bins + 2;
    const double mel_step = (high_mel - low_mel) / static_cast<double>(points);
    ScratchBuffer<int64_t> bins(context.TempAllocator(), static_cast<size_t>(points));
    for (int64_t i = 0; i < points; ++i) {
      const double mel = static_cast<double>(i) * mel_step + low_mel;
      const double hertz = 700.0 * std::expm1(mel / 2595.0 * std::log(10.0));
      const double bin = NumpyFloorDivide(static_cast<double>(dft_length + 1) * hertz,
                                          static_cast<double>(sample_rate));
      PRISM_ENFORCE(std::isfinite(bin) && std::fabs(bin) < 0x1p62, kInvalidArgument,
                    node.Describe(), ": mel point ", i, " maps to frequency bin ", bin,
                    ", out of any range (edges ", low_mel, " and ", high_mel, " mel)");
      bins.data()[i] = static_cast<int64_t>(bin);
    }
    ScratchBuffer<double> matrix(context.TempAllocator(), static_cast<size_t>(rows * num_mel_bins));
    std::fill(matrix.data(), matrix.data() + matrix.size(), 0.0);
    auto set = [&](int64_t row, int64_t column, double value) {
      PRISM_ENFORCE(row >= 0 && row < rows, kInvalidArgument, node.Describe(),
                    ": the triangle of mel bin ", column, " reaches spectrogram bin ", row,
                    ", outside [0, ", rows, ") for dft_length ", dft_length,
                    " (upper_edge_hertz above sample_rate / 2, or a negative edge)");
      matrix.data()[row * num_mel_bins + column] = value;
    };
    for (int64_t i = 0; i < num_mel_bins; ++i) {
      const int64_t left = bins.data()[i], center = bins.data()[i + 1], right = bins.data()[i + 2];
      const int64_t rise = center - left;
      if (rise == 0) {
        set(center, i, 1.0);
      } else {
        for (int64_t j = left; j <= center; ++j)
          set(j, i, static_cast<double>(j - left) / static_cast<double>(rise));
      }
      const int64_t fall = right - center;
      if (fall > 0)
        for (int64_t j = center; j < right; ++j)
          set(j, i, static_cast<double>(right - j) / static_cast<double>(fall));
    }
    DispatchByType<WriteDoubles, WindowOutputTypes>(output_type_, node.OpType(), matrix.data(),
                                                    output);
  }

 private:
  double EdgeToMel(const Tensor& edge, const char* name) const {
    const Node& node = GetNode();
    PRISM_ENFORCE(edge.NumElements() == 1 && edge.Shape().Rank() <= 1, kInvalidArgument,
                  node.Describe(), ": input ", name, " must be a scalar, got shape ",
                  edge.Shape().ToString());
    double mel = 0;
    DispatchByType<EdgeMel, TypeList<float, double, Float16, BFloat16>>(edge.Type(), node.OpType(),
                                                                        edge, mel);
    return mel;
  }
  ElementType output_type_;
};

void RegisterWindowKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> numeric = {E::kUint8,   E::kUint16, E::kUint32, E::kUint64,
                                  E::kInt8,    E::kInt16,  E::kInt32,  E::kInt64,
                                  E::kFloat16, E::kFloat,  E::kDouble, E::kBFloat16};
  const std::vector<E> index_types = {E::kInt32, E::kInt64};
  const std::pair<const char*, CosineWindow> windows[] = {
      {"HannWindow", {0.5, 0.5, 0.0}},
      {"HammingWindow", {25.0 / 46.0, 21.0 / 46.0, 0.0}},
      {"BlackmanWindow", {0.42, 0.5, 0.08}},
  };
  for (const auto& [op, coefficients] : windows) {
    const CosineWindow c = coefficients;
    registry.Register(KernelDefBuilder(op)
                          .Versions(17)
                          .Constraint("T1", index_types, {0})
                          .Constraint("T2", numeric, {}, {0})
                          .CpuInput(0)
                          .Build(),
                      [c](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
                        return std::make_unique<Window>(info, c);
                      });
  }
  registry.Register(
      KernelDefBuilder("MelWeightMatrix")
          .Versions(17)
          .Constraint("T1", index_types, {0, 1, 2})
          .Constraint("T2", {E::kFloat, E::kFloat16, E::kDouble, E::kBFloat16}, {3, 4})
          .Constraint("T3", numeric, {}, {0})
          .CpuInput(0)
          .CpuInput(1)
          .CpuInput(2)
          .CpuInput(3)
          .CpuInput(4)
          .Build(),
      MakeKernelFactory<MelWeightMatrix>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(signal_windows, RegisterWindowKernels);

}  // namespace prism::cpu

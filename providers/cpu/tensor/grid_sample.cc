// GridSample (opsets 16, 20, 22): Y[n, c, o...] samples X[n, c] at the normalized location
// grid[n, o..., :] (x first: the last grid component indexes X's first spatial axis), as the
// ONNX reference computes it:
// - denormalized x = (g + 1) / 2 * (d - 1) with align_corners, else ((g + 1) * d - 1) / 2, held
//   in float as the reference holds it;
// - out-of-range locations (beyond [0, d - 1] with align_corners, [-0.5, d - 0.5] without): zeros
//   reads 0 outside, border clamps to [0, d - 1], reflection folds back into the range;
// - nearest rounds half to even (as PyTorch), linear weighs 2 taps per axis and cubic 4
//   (Keys, alpha = -0.75), the taps outside X read through the padding mode as well.
// Opset 16 is 4-D only, with the mode names bilinear/bicubic; from 20 any spatial rank. nearest
// moves elements of every type; linear and cubic compute numbers in double (integers truncate
// back, saturating, as the reference's astype truncates), and refuse bool, strings and complex.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class SampleMode { kNearest, kLinear, kCubic };
enum class PaddingMode { kZeros, kBorder, kReflection };

// The reference's reflection: folds x back into [low, high] by the nearer border.
float Reflect(float x, float low, float high) {
  const float range = high - low;
  if (!(range > 0)) return low;  // a single position (size 1 with align_corners)
  if (x >= low && x <= high) return x;
  const float dx = x < low ? low - x : x - high;
  if (!(dx / range < 1e9f)) {
    // Far outside (the fuzzer fed 3.4e38): the count of folds does not fit an int, and float
    // has no fraction left at that size; fold in double by the period of two ranges instead.
    const double period = 2.0 * static_cast<double>(range);
    const double folded = std::isfinite(dx) ? std::fmod(static_cast<double>(dx), period) : 0.0;
    const double r = folded <= range ? folded : period - folded;
    return static_cast<float>(x < low ? low + r : high - r);
  }
  const int n = static_cast<int>(dx / range);
  const float r = dx - static_cast<float>(n) * range;
  if (x < low) return n % 2 == 0 ? low + r : high - r;
  return n % 2 == 0 ? high - r : low + r;
}

void CubicCoefficients(double x, double coefficients[4]) {
  constexpr double a = -0.75;
  x = std::fabs(x);
  coefficients[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  coefficients[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  coefficients[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  coefficients[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a;
}

// Per output location: for each spatial axis, its taps (index into X's axis, or -1 for a zero
// read) and their weights.
struct AxisTaps {
  std::vector<int64_t> index;
  std::vector<double> weight;
};

class GridSample final : public OpKernel {
 public:
  explicit GridSample(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    const bool legacy = node.OpsetVersion() < 20;
    const std::string mode = info.StringOr("mode", legacy ? "bilinear" : "linear");
    if (mode == "nearest")
      mode_ = SampleMode::kNearest;
    else if (mode == (legacy ? "bilinear" : "linear"))
      mode_ = SampleMode::kLinear;
    else if (mode == (legacy ? "bicubic" : "cubic"))
      mode_ = SampleMode::kCubic;
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": mode '", mode, "' is not ",
                  legacy ? "bilinear, nearest or bicubic" : "linear, nearest or cubic");
    const std::string padding = info.StringOr("padding_mode", "zeros");
    if (padding == "zeros")
      padding_ = PaddingMode::kZeros;
    else if (padding == "border")
      padding_ = PaddingMode::kBorder;
    else if (padding == "reflection")
      padding_ = PaddingMode::kReflection;
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": padding_mode '", padding,
                  "' is not zeros, border or reflection");
    align_corners_ = info.IntOr("align_corners", 0) != 0;
    legacy_ = legacy;
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& grid = context.RequiredInput(1);
    const auto& x_dims = x.Shape().Dims();
    const auto& g_dims = grid.Shape().Dims();
    const size_t rank = x_dims.size() >= 2 ? x_dims.size() - 2 : 0;
    PRISM_ENFORCE(rank >= 1 && (!legacy_ || rank == 2), kInvalidArgument, node.Describe(),
                  ": X must be [N, C, D1, ...]", legacy_ ? " with 2 spatial axes" : "", ", got ",
                  x.Shape().ToString());
    PRISM_ENFORCE(g_dims.size() == rank + 2 && g_dims[0] == x_dims[0] &&
                      g_dims.back() == static_cast<int64_t>(rank),
                  kInvalidArgument, node.Describe(), ": grid must be [", x_dims[0], ", out..., ",
                  rank, "] for X ", x.Shape().ToString(), ", got ", grid.Shape().ToString());
    const bool numeric = x.Type() != ElementType::kString && x.Type() != ElementType::kBool &&
                         x.Type() != ElementType::kComplex64 &&
                         x.Type() != ElementType::kComplex128;
    PRISM_ENFORCE(mode_ == SampleMode::kNearest || numeric, kInvalidArgument, node.Describe(), ": ",
                  mode_ == SampleMode::kLinear ? "linear" : "cubic",
                  " interpolation needs numbers, X is ", ElementTypeName(x.Type()),
                  " (nearest moves any type)");
    std::vector<int64_t> y_dims = {x_dims[0], x_dims[1]};
    y_dims.insert(y_dims.end(), g_dims.begin() + 1, g_dims.end() - 1);
    Tensor& y = context.Output(0, TensorShape(y_dims), x.Type());
    if (y.NumElements() == 0) return;

    std::vector<double> grid_values;
    DispatchByType<ReadGrid, TypeList<float, double, Float16, BFloat16>>(grid.Type(), node.OpType(),
                                                                         grid, grid_values);
    const int64_t batch = x_dims[0], channels = x_dims[1];
    const int64_t locations = y.NumElements() / (batch * channels);
    int64_t plane = 1;
    std::vector<int64_t> strides(rank, 1);
    for (size_t a = rank; a-- > 0;) {
      strides[a] = plane;
      plane *= x_dims[a + 2];
    }
    std::vector<AxisTaps> taps(rank);
    std::vector<int64_t> offsets;
    std::vector<double> weights;
    Tensor zero(x.Type(), TensorShape({1}), GetCpuAllocator());
    if (x.Type() != ElementType::kString)
      std::fill_n(static_cast<uint8_t*>(zero.MutableRawData()), zero.SizeInBytes(), 0);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t l = 0; l < locations; ++l) {
        const double* g = grid_values.data() + (n * locations + l) * static_cast<int64_t>(rank);
        for (size_t a = 0; a < rank; ++a) taps[a] = AxisTapsOf(g[rank - 1 - a], x_dims[a + 2]);
        // The tensor product of the axes' taps: flat offsets in the plane (-1: a zero read).
        offsets.assign(1, 0);
        weights.assign(1, 1.0);
        for (size_t a = 0; a < rank; ++a) {
          std::vector<int64_t> next_offsets;
          std::vector<double> next_weights;
          for (size_t t = 0; t < offsets.size(); ++t)
            for (size_t k = 0; k < taps[a].index.size(); ++k) {
              const int64_t i = taps[a].index[k];
              next_offsets.push_back(offsets[t] < 0 || i < 0 ? -1 : offsets[t] + i * strides[a]);
              next_weights.push_back(weights[t] * taps[a].weight[k]);
            }
          offsets.swap(next_offsets);
          weights.swap(next_weights);
        }
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t in_base = (n * channels + c) * plane;
          const int64_t out_at = (n * channels + c) * locations + l;
          if (mode_ == SampleMode::kNearest) {
            if (offsets[0] < 0)
              FillElements(y, out_at, 1, zero);
            else
              CopyElements(x, in_base + offsets[0], y, out_at, 1);
          } else {
            DispatchByType<Interpolate>(x.Type(), node.OpType(), x, in_base, offsets, weights, y,
                                        out_at);
          }
        }
      }
    }
  }

 private:
  template <typename T>
  struct ReadGrid {
    void operator()(const Tensor& grid, std::vector<double>& out) const {
      out.resize(static_cast<size_t>(grid.NumElements()));
      for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(grid.Data<T>()[i]);
    }
  };

  template <typename T>
  struct Interpolate {
    void operator()(const Tensor& x, int64_t base, const std::vector<int64_t>& offsets,
                    const std::vector<double>& weights, Tensor& y, int64_t at) const {
      const T* in = x.Data<T>();
      double sum = 0;
      for (size_t i = 0; i < offsets.size(); ++i)
        if (offsets[i] >= 0) sum += weights[i] * ToDouble(in[base + offsets[i]]);
      if constexpr (std::is_integral_v<T>) {
        const double truncated = std::trunc(sum);
        const double low = static_cast<double>(std::numeric_limits<T>::lowest());
        const double high = static_cast<double>(std::numeric_limits<T>::max());
        y.MutableData<T>()[at] = std::isnan(truncated)
                                     ? T(0)
                                     : static_cast<T>(truncated <= low    ? low
                                                      : truncated >= high ? high
                                                                          : truncated);
      } else {
        y.MutableData<T>()[at] = FromCompute<T>(sum);
      }
    }
  };

  // An axis index read through the padding mode; -1 reads zero.
  int64_t PaddedIndex(int64_t i, int64_t d, float low, float high) const {
    if (padding_ == PaddingMode::kZeros) return i >= 0 && i < d ? i : -1;
    if (padding_ == PaddingMode::kBorder) return std::clamp<int64_t>(i, 0, d - 1);
    const int64_t reflected = static_cast<int64_t>(Reflect(static_cast<float>(i), low, high));
    return std::clamp<int64_t>(reflected, 0, d - 1);
  }

  AxisTaps AxisTapsOf(double normalized, int64_t d) const {
    const float low = align_corners_ ? 0.0f : -0.5f;
    const float high = align_corners_ ? static_cast<float>(d) - 1.0f : static_cast<float>(d) - 0.5f;
    float x =
        static_cast<float>(align_corners_ ? (normalized + 1) / 2.0 * static_cast<double>(d - 1)
                                          : ((normalized + 1) * static_cast<double>(d) - 1) / 2.0);
    AxisTaps taps;
    if (std::isnan(x)) {  // a NaN coordinate lies nowhere in the input: it reads padding zero
      taps.index.push_back(-1);
      taps.weight.push_back(1.0);
      return taps;
    }
    if (mode_ == SampleMode::kNearest) x = std::nearbyint(x);  // half to even
    // Beyond a few positions outside, every tap reads padding zero: clamping there keeps that
    // and keeps the index conversions below defined for any grid value (the fuzzer fed 3.4e38).
    if (padding_ == PaddingMode::kZeros) x = std::clamp(x, low - 8.0f, high + 8.0f);
    if (x < low || x > high) {
      if (padding_ == PaddingMode::kBorder)
        x = std::clamp(x, 0.0f, static_cast<float>(d - 1));
      else if (padding_ == PaddingMode::kReflection)
        x = Reflect(x, low, high);
    }
    if (mode_ == SampleMode::kNearest) {
      taps.index.push_back(PaddedIndex(static_cast<int64_t>(x), d, low, high));
      taps.weight.push_back(1.0);
      return taps;
    }
    const double x0 = std::floor(static_cast<double>(x));
    const double t = static_cast<double>(x) - x0;
    const int64_t first = static_cast<int64_t>(x0);
    if (mode_ == SampleMode::kLinear) {
      taps.index = {PaddedIndex(first, d, low, high), PaddedIndex(first + 1, d, low, high)};
      taps.weight = {1 - t, t};
      return taps;
    }
    double coefficients[4];
    CubicCoefficients(t, coefficients);
    for (int k = 0; k < 4; ++k) {
      taps.index.push_back(PaddedIndex(first - 1 + k, d, low, high));
      taps.weight.push_back(coefficients[k]);
    }
    return taps;
  }

  SampleMode mode_ = SampleMode::kLinear;
  PaddingMode padding_ = PaddingMode::kZeros;
  bool align_corners_ = false;
  bool legacy_ = false;
};

void RegisterGridSampleKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<GridSample>();
  const auto add = [&](int since, int end, std::vector<E> data, std::vector<E> grid) {
    registry.Register(KernelDefBuilder("GridSample")
                          .Versions(since, end)
                          .Constraint("T1", std::move(data), {0}, {0})
                          .Constraint("T2", std::move(grid), {1})
                          .Build(),
                      factory);
  };
  const std::vector<E> classic_grid = {E::kFloat16, E::kFloat, E::kDouble};
  add(16, 19, AllTensorTypesWithComplexOf(TensorTypeGeneration::kNoBfloat16), classic_grid);
  add(20, 21, AllTensorTypesWithComplexOf(TensorTypeGeneration::kNoBfloat16), classic_grid);
  add(22, INT_MAX, AllTensorTypesWithComplexOf(TensorTypeGeneration::kBfloat16),
      {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_grid_sample, RegisterGridSampleKernels);

}  // namespace prism::cpu

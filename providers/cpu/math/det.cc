// Det: the determinant of each square matrix in the last two dims of a [*, M, M] input; the
// output has shape [*]. Each matrix is factored by Gaussian elimination with partial pivoting in
// double precision (float16 and bfloat16 too), so the sign follows the row swaps and a singular
// matrix gives exactly 0. An empty matrix (M = 0) has determinant 1.
#include <cmath>
#include <utility>
#include <vector>

#include "framework/float16.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// Overwrites `matrix` (n x n, row-major) with its elimination and returns the determinant.
double Determinant(std::vector<double>& matrix, int64_t n) {
  double det = 1.0;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t row = col + 1; row < n; ++row)
      if (std::fabs(matrix[row * n + col]) > std::fabs(matrix[pivot * n + col])) pivot = row;
    const double pivot_value = matrix[pivot * n + col];
    if (pivot_value == 0.0) return 0.0;
    if (std::isnan(pivot_value)) return pivot_value;
    if (pivot != col) {
      for (int64_t k = 0; k < n; ++k) std::swap(matrix[pivot * n + k], matrix[col * n + k]);
      det = -det;
    }
    det *= pivot_value;
    for (int64_t row = col + 1; row < n; ++row) {
      const double factor = matrix[row * n + col] / pivot_value;
      if (factor == 0.0) continue;
      for (int64_t k = col; k < n; ++k) matrix[row * n + k] -= factor * matrix[col * n + k];
    }
  }
  return det;
}

template <typename T>
struct DetImpl {
  void operator()(const Tensor& input, Tensor& output, int64_t n) const {
    const T* in = input.Data<T>();
    T* out = output.MutableData<T>();
    std::vector<double> matrix(static_cast<size_t>(n * n));
    for (int64_t m = 0; m < output.NumElements(); ++m) {
      for (int64_t i = 0; i < n * n; ++i) {
        if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
          matrix[i] = in[m * n * n + i].ToFloat();
        else
          matrix[i] = static_cast<double>(in[m * n * n + i]);
      }
      const double det = Determinant(matrix, n);
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        out[m] = T(static_cast<float>(det));
      else
        out[m] = static_cast<T>(det);
    }
  }
};

class Det final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    const size_t rank = shape.Rank();
    PRISM_ENFORCE(rank >= 2 && shape[rank - 1] == shape[rank - 2], kInvalidArgument,
                  node.Describe(), ": input 'X' must hold square matrices [*, M, M], got shape ",
                  shape.ToString());
    std::vector<int64_t> batch(shape.Dims().begin(), shape.Dims().end() - 2);
    Tensor& output = context.Output(0, TensorShape(batch), input.Type());
    DispatchByType<DetImpl, TypeList<float, double, Float16, BFloat16>>(
        input.Type(), node.OpType(), input, output, shape[rank - 1]);
  }
};

void RegisterDetKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<Det>();
  registry.Register(KernelDefBuilder("Det")
                        .Versions(11, 21)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("Det")
          .Versions(22)
          .Constraint("T", {E::kFloat16, E::kBFloat16, E::kFloat, E::kDouble}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_det, RegisterDetKernels);

}  // namespace prism::cpu

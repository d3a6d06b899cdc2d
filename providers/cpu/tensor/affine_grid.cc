// AffineGrid (opset 20): the sampling grid GridSample reads for the affine matrices theta
// ([N, 2, 3] for 2-D, [N, 3, 4] for 3-D) and the output size [N, C, H, W] or [N, C, D, H, W]:
// grid[n, (d,) h, w] = theta[n] [x_w, y_h, (z_d,) 1]^T, with each axis' normalized coordinates
// from -1 to 1 at the pixel corners (align_corners) or centers (-1 + 1/L .. 1 - 1/L); an axis
// of length 1 sits at -1 with align_corners, at 0 without. Computed in double.
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

std::vector<double> AxisCoordinates(int64_t length, bool align_corners) {
  std::vector<double> values(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) {
    if (align_corners)
      values[i] = length == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / (length - 1);
    else
      values[i] = -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(length);
  }
  return values;
}

template <typename T>
struct AffineGridImpl {
  void operator()(const Tensor& theta, Tensor& grid, const std::vector<int64_t>& spatial,
                  bool align_corners) const {
    const size_t rank = spatial.size();  // 2 or 3
    const int64_t batch = theta.Shape()[0];
    std::vector<std::vector<double>> axes;  // in (z,) y, x order of the spatial dims
    for (int64_t length : spatial) axes.push_back(AxisCoordinates(length, align_corners));
    int64_t points = 1;
    for (int64_t length : spatial) points *= length;
    const T* m = theta.Data<T>();
    T* out = grid.MutableData<T>();
    const int64_t cols = static_cast<int64_t>(rank) + 1;
    std::vector<double> homogeneous(static_cast<size_t>(cols), 1.0);
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0; n < batch; ++n) {
      std::fill(index.begin(), index.end(), 0);
      for (int64_t p = 0; p < points; ++p) {
        // [x, y, (z,) 1]: x walks the last spatial axis.
        for (size_t a = 0; a < rank; ++a) homogeneous[a] = axes[rank - 1 - a][index[rank - 1 - a]];
        for (size_t r = 0; r < rank; ++r) {
          double sum = 0;
          for (int64_t c = 0; c < cols; ++c)
            sum +=
                ToDouble(m[(n * static_cast<int64_t>(rank) + static_cast<int64_t>(r)) * cols + c]) *
                homogeneous[c];
          out[(n * points + p) * static_cast<int64_t>(rank) + static_cast<int64_t>(r)] =
              FromCompute<T>(sum);
        }
        for (size_t a = rank; a-- > 0;) {
          if (++index[a] < spatial[a]) break;
          index[a] = 0;
        }
      }
    }
  }
};

class AffineGrid final : public OpKernel {
 public:
  explicit AffineGrid(const OpKernelInfo& info)
      : OpKernel(info), align_corners_(info.IntOr("align_corners", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& theta = context.RequiredInput(0);
    const std::vector<int64_t> size =
        ReadIntList(context.RequiredInput(1), node.Describe() + " input 'size'");
    PRISM_ENFORCE(size.size() == 4 || size.size() == 5, kInvalidArgument, node.Describe(),
                  ": size must be [N, C, H, W] or [N, C, D, H, W], got ", size.size(), " values");
    const int64_t rank = static_cast<int64_t>(size.size()) - 2;
    PRISM_ENFORCE(theta.Shape().Rank() == 3 && theta.Shape()[0] == size[0] &&
                      theta.Shape()[1] == rank && theta.Shape()[2] == rank + 1,
                  kInvalidArgument, node.Describe(), ": theta must be [", size[0], ", ", rank, ", ",
                  rank + 1, "] for size of ", size.size(), " values, got ",
                  theta.Shape().ToString());
    const std::vector<int64_t> spatial(size.begin() + 2, size.end());
    for (int64_t length : spatial)
      PRISM_ENFORCE(length >= 0, kInvalidArgument, node.Describe(), ": size holds ", length);
    std::vector<int64_t> dims = {size[0]};
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    dims.push_back(rank);
    Tensor& grid = context.Output(0, TensorShape(dims), theta.Type());
    if (grid.NumElements() == 0) return;
    DispatchByType<AffineGridImpl, TypeList<float, double, Float16, BFloat16>>(
        theta.Type(), node.OpType(), theta, grid, spatial, align_corners_);
  }

 private:
  bool align_corners_;
};

void RegisterAffineGridKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("AffineGrid")
          .Versions(20)
          .Constraint("T1", {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
          .Constraint("T2", {E::kInt64}, {1})
          .CpuInput(1)
          .Build(),
      MakeKernelFactory<AffineGrid>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_affine_grid, RegisterAffineGridKernels);

}  // namespace prism::cpu

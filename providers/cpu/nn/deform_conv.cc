// DeformConv (opsets 19, 22): a grouped convolution whose every kernel tap reads X at its regular
// position plus a learned offset, interpolated (bilinear in 2-D, multilinear in any rank) with
// zeros outside the image, and optionally scaled by a mask. offset is
// [N, offset_group * prod(kernel) * rank, out...] (per tap the rank displacements, in axis
// order), mask [N, offset_group * prod(kernel), out...]; the input channels are split into
// offset_group runs that each read their own offsets. Lowered as a deformed im2col per image
// and group followed by one GEMM, in float for the half types and in T otherwise.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

struct DeformGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1, offset_group = 1;
  std::vector<int64_t> in, kernel, out, strides, dilations, pads_begin;
  int64_t in_size = 1, kernel_size = 1, out_size = 1;
};

// Interpolates one channel plane at a fractional position; corners outside the plane are 0.
template <typename C>
C SampleAt(const C* plane, const DeformGeometry& g, const std::vector<double>& position) {
  const size_t rank = position.size();
  std::vector<int64_t> low(rank);
  std::vector<double> frac(rank);
  for (size_t d = 0; d < rank; ++d) {
    // Entirely outside (beyond one pixel of the border), or NaN (an offset the model computed
    // or was fed; the fuzzer found it): nothing to interpolate.
    if (!(position[d] > -1.0 && position[d] < static_cast<double>(g.in[d]))) return C(0);
    const double floor_value = std::floor(position[d]);
    low[d] = static_cast<int64_t>(floor_value);
    frac[d] = position[d] - floor_value;
  }
  double sum = 0.0;
  for (int64_t corner = 0; corner < (int64_t{1} << rank); ++corner) {
    double weight = 1.0;
    int64_t index = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      const bool high = ((corner >> (rank - 1 - d)) & 1) != 0;
      const int64_t at = low[d] + (high ? 1 : 0);
      weight *= high ? frac[d] : 1.0 - frac[d];
      if (at < 0 || at >= g.in[d]) inside = false;
      index = index * g.in[d] + at;
    }
    if (inside && weight != 0.0) sum += weight * static_cast<double>(plane[index]);
  }
  return static_cast<C>(sum);
}

// C is the compute type (float or double), T the stored type.
template <typename T, typename C>
void RunDeformConv(const DeformGeometry& g, const Tensor& x_tensor, const Tensor& w_tensor,
                   const Tensor& offset_tensor, const Tensor* b_tensor, const Tensor* mask_tensor,
                   Tensor& y_tensor, ThreadPool* pool) {
  const auto widen = [](const Tensor& t) {
    std::vector<C> out(static_cast<size_t>(t.NumElements()));
    const T* src = t.Data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(ToCompute(src[i]));
    return out;
  };
  const std::vector<C> x = widen(x_tensor), w = widen(w_tensor), offset = widen(offset_tensor);
  const std::vector<C> mask = mask_tensor ? widen(*mask_tensor) : std::vector<C>();
  const std::vector<C> bias = b_tensor ? widen(*b_tensor) : std::vector<C>();
  const size_t rank = g.in.size();
  const int64_t in_per_group = g.in_channels / g.group;
  const int64_t out_per_group = g.out_channels / g.group;
  const int64_t in_per_offset_group = g.in_channels / g.offset_group;
  const int64_t col_rows = in_per_group * g.kernel_size;
  std::vector<C> col(static_cast<size_t>(col_rows * g.out_size));
  std::vector<C> y(static_cast<size_t>(g.batch * g.out_channels * g.out_size));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      // col[(c, k), o] = mask * X_c(regular position + offset) for channel c of the group.
      ThreadPool::TryParallelFor(
          pool, in_per_group, static_cast<double>(g.kernel_size * g.out_size * 8),
          [&](int64_t begin, int64_t end) {
            std::vector<double> position(rank);
            std::vector<int64_t> k_index(rank), o_index(rank);
            for (int64_t ci = begin; ci < end; ++ci) {
              const int64_t c = grp * in_per_group + ci;
              const int64_t og = c / in_per_offset_group;
              const C* plane = x.data() + (n * g.in_channels + c) * g.in_size;
              for (int64_t k = 0; k < g.kernel_size; ++k) {
                for (int64_t rest = k, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
                  k_index[d] = rest % g.kernel[d];
                  rest /= g.kernel[d];
                }
                C* row = col.data() + (ci * g.kernel_size + k) * g.out_size;
                const int64_t tap = og * g.kernel_size + k;
                for (int64_t o = 0; o < g.out_size; ++o) {
                  for (int64_t rest = o, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
                    o_index[d] = rest % g.out[d];
                    rest /= g.out[d];
                  }
                  for (size_t d = 0; d < rank; ++d) {
                    const int64_t channel =
                        tap * static_cast<int64_t>(rank) + static_cast<int64_t>(d);
                    const C shift =
                        offset[(n * g.offset_group * g.kernel_size * static_cast<int64_t>(rank) +
                                channel) *
                                   g.out_size +
                               o];
                    position[d] = static_cast<double>(o_index[d] * g.strides[d] - g.pads_begin[d] +
                                                      k_index[d] * g.dilations[d]) +
                                  static_cast<double>(shift);
                  }
                  C value = SampleAt(plane, g, position);
                  if (!mask.empty())
                    value *= mask[(n * g.offset_group * g.kernel_size + tap) * g.out_size + o];
                  row[o] = value;
                }
              }
            }
          });
      C* y_group = y.data() + (n * g.out_channels + grp * out_per_group) * g.out_size;
      C beta = C(0);
      if (!bias.empty()) {
        for (int64_t m = 0; m < out_per_group; ++m)
          std::fill_n(y_group + m * g.out_size, g.out_size, bias[grp * out_per_group + m]);
        beta = C(1);
      }
      mlas::Gemm<C>(false, false, out_per_group, g.out_size, col_rows, C(1),
                    w.data() + grp * out_per_group * col_rows, col_rows, col.data(), g.out_size,
                    beta, y_group, g.out_size, pool);
    }
  }
  T* out = y_tensor.MutableData<T>();
  for (size_t i = 0; i < y.size(); ++i) out[i] = FromCompute<T>(y[i]);
}

template <typename T>
struct DeformConvImpl {
  template <typename... Args>
  void operator()(Args&&... args) const {
    RunDeformConv<T, std::conditional_t<std::is_same_v<T, double>, double, float>>(
        std::forward<Args>(args)...);
  }
};

class DeformConv final : public OpKernel {
 public:
  explicit DeformConv(const OpKernelInfo& info)
      : OpKernel(info),
        group_(info.IntOr("group", 1)),
        offset_group_(info.IntOr("offset_group", 1)),
        kernel_shape_(info.IntsOr("kernel_shape", {})),
        strides_(info.IntsOr("strides", {})),
        dilations_(info.IntsOr("dilations", {})),
        pads_(info.IntsOr("pads", {})) {
    PRISM_ENFORCE(group_ >= 1 && offset_group_ >= 1, kInvalidArgument, GetNode().Describe(),
                  ": group ", group_, " and offset_group ", offset_group_, " must be positive");
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor& offset = context.RequiredInput(2);
    const Tensor* b = context.Input(3);
    const Tensor* mask = context.Input(4);
    const DeformGeometry g = Geometry(node, x, w, offset, b, mask);
    std::vector<int64_t> dims = {g.batch, g.out_channels};
    dims.insert(dims.end(), g.out.begin(), g.out.end());
    Tensor& y = context.Output(0, TensorShape(dims), x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<DeformConvImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), node, g, x, w, offset, b, mask, y, context.IntraOpThreadPool());
  }

 private:
  DeformGeometry Geometry(const std::string& node, const Tensor& x, const Tensor& w,
                          const Tensor& offset, const Tensor* b, const Tensor* mask) const {
    for (const Tensor* t : {&w, &offset, b, mask})
      if (t != nullptr)
        PRISM_ENFORCE(t->Type() == x.Type(), kInvalidArgument, node, ": every input must be ",
                      ElementTypeName(x.Type()), " as X, got ", t->Describe());
    const TensorShape& xs = x.Shape();
    PRISM_ENFORCE(xs.Rank() >= 3 && w.Shape().Rank() == xs.Rank(), kInvalidArgument, node, ": X ",
                  xs.ToString(), " and W ", w.Shape().ToString(),
                  " must have one rank of 3 or more");
    const size_t rank = xs.Rank() - 2;
    DeformGeometry g;
    g.batch = xs[0];
    g.in_channels = xs[1];
    g.out_channels = w.Shape()[0];
    g.group = group_;
    g.offset_group = offset_group_;
    PRISM_ENFORCE(g.in_channels % group_ == 0 && w.Shape()[1] == g.in_channels / group_ &&
                      g.out_channels % group_ == 0,
                  kInvalidArgument, node, ": X ", xs.ToString(), " and W ", w.Shape().ToString(),
                  " do not fit group ", group_,
                  " (X channels = W.shape[1] * group, W.shape[0] divisible by group)");
    PRISM_ENFORCE(g.in_channels % offset_group_ == 0, kInvalidArgument, node, ": X's ",
                  g.in_channels, " channels are not divisible by offset_group ", offset_group_);
    g.in.assign(xs.Dims().begin() + 2, xs.Dims().end());
    g.kernel.assign(w.Shape().Dims().begin() + 2, w.Shape().Dims().end());
    if (!kernel_shape_.empty())
      PRISM_ENFORCE(kernel_shape_ == g.kernel, kInvalidArgument, node, ": kernel_shape ",
                    JoinInts(kernel_shape_), " does not match W ", w.Shape().ToString());
    g.strides = strides_.empty() ? std::vector<int64_t>(rank, 1) : strides_;
    g.dilations = dilations_.empty() ? std::vector<int64_t>(rank, 1) : dilations_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * rank, 0) : pads_;
    PRISM_ENFORCE(g.strides.size() == rank && g.dilations.size() == rank && pads.size() == 2 * rank,
                  kInvalidArgument, node, ": strides ", JoinInts(g.strides), ", dilations ",
                  JoinInts(g.dilations), " and pads ", JoinInts(pads), " must have ", rank, ", ",
                  rank, " and ", 2 * rank, " values");
    for (size_t d = 0; d < rank; ++d) {
      PRISM_ENFORCE(g.strides[d] >= 1 && g.dilations[d] >= 1 && g.kernel[d] >= 1 && pads[d] >= 0 &&
                        pads[d + rank] >= 0,
                    kInvalidArgument, node, ": strides ", JoinInts(g.strides), ", dilations ",
                    JoinInts(g.dilations), " and W's kernel must be positive, pads ",
                    JoinInts(pads), " not negative");
      const int64_t window = (g.kernel[d] - 1) * g.dilations[d] + 1;
      const int64_t padded = g.in[d] + pads[d] + pads[d + rank];
      PRISM_ENFORCE(padded >= window, kInvalidArgument, node, ": spatial axis ", d, " of X ",
                    xs.ToString(), " with pads ", JoinInts(pads),
                    " is smaller than the dilated kernel extent ", window);
      g.out.push_back((padded - window) / g.strides[d] + 1);
      g.pads_begin.push_back(pads[d]);
    }
    g.in_size = TensorShape(g.in).Size();
    g.kernel_size = TensorShape(g.kernel).Size();
    g.out_size = TensorShape(g.out).Size();
    std::vector<int64_t> offset_dims = {g.batch,
                                        offset_group_ * g.kernel_size * static_cast<int64_t>(rank)};
    offset_dims.insert(offset_dims.end(), g.out.begin(), g.out.end());
    PRISM_ENFORCE(offset.Shape() == TensorShape(offset_dims), kInvalidArgument, node,
                  ": offset must be ", TensorShape(offset_dims).ToString(),
                  " (N, offset_group * kernel taps * ", rank, ", output dims), got ",
                  offset.Shape().ToString());
    if (b != nullptr)
      PRISM_ENFORCE(b->Shape() == TensorShape({g.out_channels}), kInvalidArgument, node,
                    ": B must be [", g.out_channels, "], got ", b->Shape().ToString());
    if (mask != nullptr) {
      std::vector<int64_t> mask_dims = {g.batch, offset_group_ * g.kernel_size};
      mask_dims.insert(mask_dims.end(), g.out.begin(), g.out.end());
      PRISM_ENFORCE(mask->Shape() == TensorShape(mask_dims), kInvalidArgument, node,
                    ": mask must be ", TensorShape(mask_dims).ToString(), ", got ",
                    mask->Shape().ToString());
    }
    return g;
  }

  int64_t group_, offset_group_;
  std::vector<int64_t> kernel_shape_, strides_, dilations_, pads_;
};

void RegisterDeformConvKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("DeformConv")
                        .Versions(19, 21)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0, 1, 2, 3, 4}, {0})
                        .Build(),
                    MakeKernelFactory<DeformConv>());
  registry.Register(
      KernelDefBuilder("DeformConv")
          .Versions(22, INT_MAX)
          .Constraint("T", {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble}, {0, 1, 2, 3, 4}, {0})
          .Build(),
      MakeKernelFactory<DeformConv>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_deform_conv, RegisterDeformConvKernels);

}  // namespace prism::cpu

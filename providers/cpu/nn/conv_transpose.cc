// ConvTranspose (opsets 1, 11, 22): X [N, C, D1, ...] with W [C, M / group, k1, ...] and the
// optional bias B [M]. Per batch entry and group, the columns W_g^T X_g (a GEMM) are scattered
// into the output: input position p and kernel tap t land at p * stride + t * dilation -
// pad_begin. Output dims: stride * (in - 1) + output_padding + (k - 1) * dilation + 1 -
// pad_begin - pad_end; output_shape (or auto_pad SAME_*, which asks for in * stride) fixes them
// instead and the pads follow from the spec's equations (SAME_UPPER puts the smaller half of
// the total padding first). float16 and bfloat16 compute in float.
#include <algorithm>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

struct TransposeGeometry {
  std::vector<int64_t> input, kernel, output, pad_begin;
  std::vector<int64_t> strides, dilations;
};

template <typename T>
struct ConvTransposeImpl {
  // Compute type: float for the half types, the type itself otherwise.
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;

  void operator()(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y,
                  const TransposeGeometry& g, int64_t group, ThreadPool* pool) const {
    const int64_t batch = x.Shape()[0];
    const int64_t in_channels = x.Shape()[1];
    const int64_t out_per_group = w.Shape()[1];
    const int64_t in_per_group = in_channels / group;
    const int64_t out_channels = out_per_group * group;
    int64_t in_size = 1, kernel_size = 1, out_size = 1;
    for (size_t a = 0; a < g.input.size(); ++a) {
      in_size *= g.input[a];
      kernel_size *= g.kernel[a];
      out_size *= g.output[a];
    }
    const std::vector<C> xs = Widen(x), ws = Widen(w);
    std::vector<C> out(static_cast<size_t>(batch * out_channels * out_size), C(0));
    // Per kernel tap and input position: the output position, or -1 outside the output.
    std::vector<int64_t> target(static_cast<size_t>(kernel_size * in_size));
    const size_t rank = g.input.size();
    std::vector<int64_t> tap(rank, 0);
    for (int64_t t = 0; t < kernel_size; ++t) {
      std::vector<int64_t> position(rank, 0);
      for (int64_t p = 0; p < in_size; ++p) {
        int64_t flat = 0;
        bool inside = true;
        for (size_t a = 0; a < rank; ++a) {
          const int64_t o = position[a] * g.strides[a] + tap[a] * g.dilations[a] - g.pad_begin[a];
          inside = inside && o >= 0 && o < g.output[a];
          flat = flat * g.output[a] + o;
        }
        target[t * in_size + p] = inside ? flat : -1;
        for (size_t a = rank; a-- > 0;) {
          if (++position[a] < g.input[a]) break;
          position[a] = 0;
        }
      }
      for (size_t a = rank; a-- > 0;) {
        if (++tap[a] < g.kernel[a]) break;
        tap[a] = 0;
      }
    }
    const int64_t rows = out_per_group * kernel_size;
    ThreadPool::TryParallelFor(
        pool, batch * group, 2.0 * static_cast<double>(rows * in_per_group * in_size),
        [&](int64_t first, int64_t last) {
          std::vector<C> columns(static_cast<size_t>(rows * in_size));
          for (int64_t unit = first; unit < last; ++unit) {
            const int64_t n = unit / group, grp = unit % group;
            // columns [M_g * K, in] = W_g^T [M_g * K, C_g] x X_g [C_g, in].
            const C* w_group = ws.data() + grp * in_per_group * rows;
            const C* x_group = xs.data() + (n * in_channels + grp * in_per_group) * in_size;
            mlas::Gemm<C>(true, false, rows, in_size, in_per_group, C(1), w_group, rows, x_group,
                          in_size, C(0), columns.data(), in_size);
            for (int64_t m = 0; m < out_per_group; ++m) {
              C* plane = out.data() + (n * out_channels + grp * out_per_group + m) * out_size;
              for (int64_t t = 0; t < kernel_size; ++t) {
                const C* row = columns.data() + (m * kernel_size + t) * in_size;
                const int64_t* to = target.data() + t * in_size;
                for (int64_t p = 0; p < in_size; ++p)
                  if (to[p] >= 0) plane[to[p]] += row[p];
              }
            }
          }
        });
    if (bias != nullptr) {
      const std::vector<C> bs = Widen(*bias);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t c = 0; c < out_channels; ++c)
          for (int64_t i = 0; i < out_size; ++i)
            out[(n * out_channels + c) * out_size + i] += bs[c];
    }
    T* dst = y.MutableData<T>();
    for (size_t i = 0; i < out.size(); ++i) dst[i] = FromCompute<T>(out[i]);
  }

  static std::vector<C> Widen(const Tensor& t) {
    std::vector<C> values(static_cast<size_t>(t.NumElements()));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<C>(ToCompute(t.Data<T>()[i]));
    return values;
  }
};

class ConvTranspose final : public OpKernel {
 public:
  explicit ConvTranspose(const OpKernelInfo& info)
      : OpKernel(info),
        auto_pad_(info.StringOr("auto_pad", "NOTSET")),
        group_(info.IntOr("group", 1)),
        kernel_shape_(info.IntsOr("kernel_shape", {})),
        strides_(info.IntsOr("strides", {})),
        dilations_(info.IntsOr("dilations", {})),
        pads_(info.IntsOr("pads", {})),
        output_padding_(info.IntsOr("output_padding", {})),
        output_shape_(info.IntsOr("output_shape", {})) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(auto_pad_ == "NOTSET" || auto_pad_ == "SAME_UPPER" || auto_pad_ == "SAME_LOWER" ||
                      auto_pad_ == "VALID",
                  kInvalidArgument, node.Describe(),
                  ": auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got '", auto_pad_,
                  "'");
    PRISM_ENFORCE(group_ > 0, kInvalidArgument, node.Describe(), ": group ", group_,
                  " must be positive");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor* bias = context.Input(2);
    const TensorShape& xs = x.Shape();
    const TensorShape& ws = w.Shape();
    PRISM_ENFORCE(xs.Rank() >= 3 && ws.Rank() == xs.Rank(), kInvalidArgument, node.Describe(),
                  ": X must be [N, C, D1, ...] and W [C, M/group, k1, ...] of the same rank, got ",
                  xs.ToString(), " and ", ws.ToString());
    PRISM_ENFORCE(w.Type() == x.Type() && (bias == nullptr || bias->Type() == x.Type()),
                  kInvalidArgument, node.Describe(), ": X, W and B must share one type");
    PRISM_ENFORCE(xs[1] == ws[0] && xs[1] % group_ == 0, kInvalidArgument, node.Describe(),
                  ": X has ", xs[1], " channels but W ", ws.ToString(), " expects ", ws[0],
                  " (and group ", group_, " must divide them)");
    const int64_t out_channels = ws[1] * group_;
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Shape().Rank() == 1 && bias->Shape()[0] == out_channels, kInvalidArgument,
                    node.Describe(), ": B must have shape [", out_channels, "], got ",
                    bias->Shape().ToString());
    const TransposeGeometry geometry = OutputGeometry(xs, ws);
    std::vector<int64_t> out_dims = {xs[0], out_channels};
    out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<ConvTransposeImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), node.OpType(), x, w, bias, y, geometry, group_, context.IntraOpThreadPool());
  }

 private:
  TransposeGeometry OutputGeometry(const TensorShape& xs, const TensorShape& ws) const {
    const Node& node = GetNode();
    const size_t rank = xs.Rank() - 2;
    TransposeGeometry g;
    g.input.assign(xs.Dims().begin() + 2, xs.Dims().end());
    g.kernel = kernel_shape_.empty() ? std::vector<int64_t>(ws.Dims().begin() + 2, ws.Dims().end())
                                     : kernel_shape_;
    g.strides = strides_.empty() ? std::vector<int64_t>(rank, 1) : strides_;
    g.dilations = dilations_.empty() ? std::vector<int64_t>(rank, 1) : dilations_;
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * rank, 0) : pads_;
    const std::vector<int64_t> output_padding =
        output_padding_.empty() ? std::vector<int64_t>(rank, 0) : output_padding_;
    PRISM_ENFORCE(
        g.kernel.size() == rank && g.strides.size() == rank && g.dilations.size() == rank &&
            pads.size() == 2 * rank && output_padding.size() == rank,
        kInvalidArgument, node.Describe(), ": kernel_shape ", Join(g.kernel), ", strides ",
        Join(g.strides), ", dilations ", Join(g.dilations), ", pads ", Join(pads),
        " and output_padding ", Join(output_padding), " must fit ", rank, " spatial axes");
    for (size_t a = 0; a < rank; ++a)
      PRISM_ENFORCE(g.kernel[a] == ws[a + 2] && g.strides[a] > 0 && g.dilations[a] > 0,
                    kInvalidArgument, node.Describe(), ": kernel_shape ", Join(g.kernel),
                    " must match W ", ws.ToString(), ", strides and dilations be positive");
    // output_shape may list the spatial dims only, or N and C too.
    std::vector<int64_t> wanted = output_shape_;
    if (wanted.size() == rank + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
    PRISM_ENFORCE(wanted.empty() || wanted.size() == rank, kInvalidArgument, node.Describe(),
                  ": output_shape ", Join(output_shape_), " must have ", rank, " values");
    // Sizes from attributes (any int64): every step is checked, so that an absurd stride,
    // dilation, padding or output_shape is refused rather than wrapped.
    bool overflow = false;
    const auto mul = [&](int64_t x, int64_t y) {
      int64_t product = 0;
      overflow = overflow || __builtin_mul_overflow(x, y, &product);
      return product;
    };
    const auto add = [&](int64_t x, int64_t y) {
      int64_t sum = 0;
      overflow = overflow || __builtin_add_overflow(x, y, &sum);
      return sum;
    };
    const auto sub = [&](int64_t x, int64_t y) {
      int64_t difference = 0;
      overflow = overflow || __builtin_sub_overflow(x, y, &difference);
      return difference;
    };
    if (wanted.empty() && (auto_pad_ == "SAME_UPPER" || auto_pad_ == "SAME_LOWER"))
      for (size_t a = 0; a < rank; ++a) wanted.push_back(mul(g.input[a], g.strides[a]));
    if (auto_pad_ == "VALID") std::fill(pads.begin(), pads.end(), 0);
    for (size_t a = 0; a < rank; ++a)
      PRISM_ENFORCE(pads[a] >= 0 && pads[a + rank] >= 0 && output_padding[a] >= 0 &&
                        (wanted.empty() || wanted[a] >= 0),
                    kInvalidArgument, node.Describe(), ": pads ", Join(pads), ", output_padding ",
                    Join(output_padding), " and output_shape ", Join(output_shape_),
                    " must not be negative");
    g.output.resize(rank);
    g.pad_begin.resize(rank);
    for (size_t a = 0; a < rank; ++a) {
      const int64_t full = add(add(add(mul(g.strides[a], g.input[a] - 1), output_padding[a]),
                                   mul(g.kernel[a] - 1, g.dilations[a])),
                               1);
      const int64_t total = wanted.empty() ? 0 : sub(full, wanted[a]);
      const int64_t unpadded = wanted.empty() ? sub(sub(full, pads[a]), pads[a + rank]) : 0;
      PRISM_ENFORCE(!overflow, kInvalidArgument, node.Describe(), ": strides ", Join(g.strides),
                    ", dilations ", Join(g.dilations), ", output_padding ", Join(output_padding),
                    " and output_shape ", Join(output_shape_),
                    " give an output size that overflows int64 on spatial axis ", a);
      if (!wanted.empty()) {
        // As the spec's equations (SAME_UPPER puts the smaller half first), with floor
        // division: an output_shape larger than the full result gives a negative total, and
        // the extra cells go to the end.
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        g.pad_begin[a] = auto_pad_ == "SAME_UPPER" ? half : total - half;
        g.output[a] = wanted[a];
      } else {
        g.pad_begin[a] = pads[a];
        g.output[a] = unpadded;
      }
      PRISM_ENFORCE(g.output[a] >= 0, kInvalidArgument, node.Describe(),
                    ": the output would have negative size ", g.output[a], " on spatial axis ", a);
    }
    return g;
  }

  std::string auto_pad_;
  int64_t group_;
  std::vector<int64_t> kernel_shape_, strides_, dilations_, pads_, output_padding_, output_shape_;
};

void RegisterConvTransposeKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> with_bf16 = {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble};
  const auto factory = MakeKernelFactory<ConvTranspose>();
  registry.Register(KernelDefBuilder("ConvTranspose")
                        .Versions(1, 10)
                        .Constraint("T", classic, {0, 1, 2}, {0})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("ConvTranspose")
                        .Versions(11, 21)
                        .Constraint("T", classic, {0, 1, 2}, {0})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("ConvTranspose")
                        .Versions(22)
                        .Constraint("T", with_bf16, {0, 1, 2}, {0})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_conv_transpose, RegisterConvTransposeKernels);

}  // namespace prism::cpu

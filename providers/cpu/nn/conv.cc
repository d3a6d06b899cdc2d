// Conv: N-D grouped convolution (1-D, 2-D, 3-D, ...). Each image and group is an im2col
// lowering followed by one GEMM, Y_g[M/group, out] = W_g[M/group, C/group * kernel] * col;
// depthwise 2-D convolutions (one input and one output channel per group) run directly.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/thread_pool.h"
#include "framework/scratch_buffer.h"
#include "mlas/gemm.h"
#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"
#include "providers/cpu/contrib/fused_conv_activation.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/int8_conv.h"
#include "providers/cpu/quantization/qlinear_conv.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {

namespace {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The resolved geometry of one Conv call.
struct ConvPlan {
  ThreadPool* pool = nullptr;  // the session's intra-op pool (nullptr: this thread)
  AllocatorPtr scratch;        // the kernel context's scratch allocator (im2col)
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  std::vector<int64_t> in_spatial;
  std::vector<int64_t> kernel;
  std::vector<int64_t> out_spatial;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  int64_t in_size = 1;      // product of in_spatial
  int64_t kernel_size = 1;  // product of kernel
  int64_t out_size = 1;     // product of out_spatial
  TensorShape output_shape;

  int64_t InChannelsPerGroup() const { return in_channels / group; }
  int64_t OutChannelsPerGroup() const { return out_channels / group; }
};

// Lowers one group of one image: col[(c, k_0..k_{s-1}), (o_0..o_{s-1})], zero where the
// kernel window reaches into padding. The innermost spatial axis is handled as a run so that
// 1-D, 2-D and 3-D all get a tight inner loop.
template <typename T>
void Im2ColChannels(const ConvPlan& plan, const T* x, T* col, int64_t channel_begin,
                    int64_t channel_end) {
  const size_t rank = plan.in_spatial.size();
  const size_t last = rank - 1;
  const int64_t in_w = plan.in_spatial[last];
  const int64_t out_w = plan.out_spatial[last];
  const int64_t stride_w = plan.strides[last];
  // Output positions over all axes but the last.
  const int64_t outer_count = plan.out_size / std::max<int64_t>(out_w, 1);

  // Odometers over the kernel window and the output positions, in one scratch buffer.
  std::vector<int64_t> indices(2 * rank, 0);
  int64_t* kernel_index = indices.data();
  int64_t* out_index = kernel_index + rank;
  // Each channel's rows start at a known place and its kernel odometer comes back to zero, so
  // channel ranges are independent (the pool splits by channel).
  T* dst = col + channel_begin * plan.kernel_size * plan.out_size;
  for (int64_t c = channel_begin; c < channel_end; ++c) {
    const T* x_channel = x + c * plan.in_size;
    for (int64_t kpos = 0; kpos < plan.kernel_size; ++kpos) {
      // kernel_index walks the kernel window in row-major order, matching W's layout.
      const int64_t offset_w = kernel_index[last] * plan.dilations[last] - plan.pads_begin[last];
      // Valid output range on the last axis: 0 <= ow * stride + offset_w < in_w.
      int64_t ow_begin = offset_w >= 0 ? 0 : (-offset_w + stride_w - 1) / stride_w;
      int64_t ow_end = in_w - offset_w > 0 ? (in_w - offset_w - 1) / stride_w + 1 : 0;
      ow_begin = std::min(ow_begin, out_w);
      ow_end = std::clamp(ow_end, ow_begin, out_w);

      std::fill_n(out_index, rank, 0);
      for (int64_t outer = 0; outer < outer_count; ++outer) {
        // Input row for this output position on the outer axes, or none when in padding.
        int64_t row_offset = 0;
        bool inside = true;
        for (size_t d = 0; d < last; ++d) {
          const int64_t in_pos = out_index[d] * plan.strides[d] +
                                 kernel_index[d] * plan.dilations[d] - plan.pads_begin[d];
          if (in_pos < 0 || in_pos >= plan.in_spatial[d]) {
            inside = false;
            break;
          }
          row_offset = row_offset * plan.in_spatial[d] + in_pos;
        }
        if (!inside || ow_begin == ow_end) {
          std::fill(dst, dst + out_w, T(0));
        } else {
          // First input element read by the valid run (ow_begin is never in the padding).
          const T* src = x_channel + row_offset * in_w + (ow_begin * stride_w + offset_w);
          std::fill(dst, dst + ow_begin, T(0));
          if (stride_w == 1) {
            std::memcpy(dst + ow_begin, src, sizeof(T) * (ow_end - ow_begin));
          } else {
            for (int64_t ow = ow_begin; ow < ow_end; ++ow) {
              dst[ow] = src[(ow - ow_begin) * stride_w];
            }
          }
          std::fill(dst + ow_end, dst + out_w, T(0));
        }
        dst += out_w;
        for (size_t d = last; d-- > 0;) {
          if (++out_index[d] < plan.out_spatial[d]) break;
          out_index[d] = 0;
        }
      }
      for (size_t d = rank; d-- > 0;) {
        if (++kernel_index[d] < plan.kernel[d]) break;
        kernel_index[d] = 0;
      }
    }
  }
}

mlas::DepthwiseGeometry DepthwiseGeometryOf(const ConvPlan& plan) {
  return mlas::DepthwiseGeometry{plan.in_spatial[0],  plan.in_spatial[1], plan.out_spatial[0],
                                 plan.out_spatial[1], plan.kernel[0],     plan.kernel[1],
                                 plan.strides[0],     plan.strides[1],    plan.dilations[0],
                                 plan.dilations[1],   plan.pads_begin[0], plan.pads_begin[1]};
}

// Depthwise 2-D: y[oh, ow] = sum over the window of x * w for one channel, in the ISA-dispatched
// kernels (the whole plane per call). float: scratch as mlas::DepthwiseLayoutOf says, zero
// before the first channel of a run of calls.
template <typename T>
void DepthwiseConv2D(const ConvPlan& plan, const T* x, const T* w, T bias, T* y, float* scratch) {
  const mlas::DepthwiseGeometry geometry = DepthwiseGeometryOf(plan);
  if constexpr (std::is_same_v<T, float>)
    mlas::ActiveKernels().depthwise2d_f32(geometry, x, w, bias, y, scratch);
  else
    mlas::ActiveKernels().depthwise2d_f64(geometry, x, w, bias, y);
}

// True when the input itself is the im2col matrix: a 1x1 kernel, stride 1, no padding.
bool IsPointwise(const ConvPlan& plan) {
  for (size_t d = 0; d < plan.kernel.size(); ++d) {
    if (plan.kernel[d] != 1 || plan.strides[d] != 1 || plan.pads_begin[d] != 0) return false;
  }
  return plan.out_spatial == plan.in_spatial;
}

template <typename T>
void Im2Col(const ConvPlan& plan, const T* x, T* col) {
  const double cost = static_cast<double>(plan.kernel_size * plan.out_size);
  ThreadPool::TryParallelFor(
      plan.pool, plan.InChannelsPerGroup(), cost,
      [&](int64_t begin, int64_t end) { Im2ColChannels(plan, x, col, begin, end); });
}

// What the float convolution does to each output row of a group as the GEMM completes it: the
// bias, FusedConv's sum input and activation (sgemm.h's epilogue; one pass while the row is in
// cache, and the GEMM never reads C).
struct ConvEpilogue {
  const float* bias;  // the group's first channel's bias, or null
  const float* sum;   // the group's first channel's plane of Z, or null
  const ConvActivation* activation;
  int64_t out_size;

  static void Apply(const void* context, int64_t row, int64_t rows, int64_t column, int64_t columns,
                    float* block, int64_t ldc) {
    const auto& e = *static_cast<const ConvEpilogue*>(context);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t channel = row + r;
      e.activation->ApplyRow(block + r * ldc,
                             e.sum != nullptr ? e.sum + channel * e.out_size + column : nullptr,
                             e.bias != nullptr ? e.bias[channel] : 0.0f, columns);
    }
  }
};

// Float and double convolution. Float only: activation and sum (FusedConv's) are applied to the
// output (null: none).
template <typename T>
void RunConv(const ConvPlan& plan, const T* x, const T* w, const T* bias, T* y,
             const ConvActivation* activation = nullptr, const float* sum = nullptr) {
  static const ConvActivation kIdentity;
  if (activation == nullptr) activation = &kIdentity;
  const int64_t in_per_group = plan.InChannelsPerGroup();
  const int64_t out_per_group = plan.OutChannelsPerGroup();
  const int64_t col_rows = in_per_group * plan.kernel_size;
  const int64_t w_group_size = out_per_group * col_rows;

  // Integer convolutions (ConvInteger) always take the GEMM path.
  if constexpr (std::is_floating_point_v<T>) {
    if (plan.in_spatial.size() == 2 && in_per_group == 1 && out_per_group == 1) {
      const double cost = static_cast<double>(plan.kernel_size * plan.out_size);
      const int64_t scratch_floats =
          std::is_same_v<T, float>
              ? mlas::DepthwiseLayoutOf(DepthwiseGeometryOf(plan)).ScratchFloats()
              : 0;
      ThreadPool::TryParallelFor(
          plan.pool, plan.batch * plan.group, cost, [&](int64_t begin, int64_t end) {
            // One zeroed scratch per range of channels: its padding stays zero across them.
            ScratchBuffer<float> scratch(plan.scratch, static_cast<size_t>(scratch_floats));
            std::fill_n(scratch.data(), scratch_floats, 0.0f);
            for (int64_t index = begin; index < end; ++index) {
              const int64_t n = index / plan.group;
              const int64_t g = index % plan.group;
              T* plane = y + (n * plan.out_channels + g) * plan.out_size;
              DepthwiseConv2D(plan, x + (n * plan.in_channels + g) * plan.in_size,
                              w + g * plan.kernel_size, bias != nullptr ? bias[g] : T(0), plane,
                              scratch.data());
              if constexpr (std::is_same_v<T, float>) {
                if (!activation->IsNone() || sum != nullptr)
                  activation->ApplyRow(
                      plane,
                      sum != nullptr ? sum + (n * plan.out_channels + g) * plan.out_size : nullptr,
                      0.0f, plan.out_size);
              }
            }
          });
      return;
    }
  }

  const bool pointwise = IsPointwise(plan);
  ScratchBuffer<T> col(plan.scratch, pointwise ? 0 : static_cast<size_t>(col_rows * plan.out_size));
  for (int64_t n = 0; n < plan.batch; ++n) {
    for (int64_t g = 0; g < plan.group; ++g) {
      const T* x_group = x + (n * plan.in_channels + g * in_per_group) * plan.in_size;
      T* y_group = y + (n * plan.out_channels + g * out_per_group) * plan.out_size;
      const T* b_matrix = x_group;
      if (!pointwise) {
        Im2Col(plan, x_group, col.data());
        b_matrix = col.data();
      }
      if constexpr (std::is_same_v<T, float>) {
        const int64_t first_channel = n * plan.out_channels + g * out_per_group;
        const ConvEpilogue epilogue{bias != nullptr ? bias + g * out_per_group : nullptr,
                                    sum != nullptr ? sum + first_channel * plan.out_size : nullptr,
                                    activation, plan.out_size};
        if (bias != nullptr || sum != nullptr || !activation->IsNone()) {
          const mlas::SgemmEpilogue finish{&ConvEpilogue::Apply, &epilogue};
          mlas::Sgemm(mlas::ActiveKernels(), false, false, out_per_group, plan.out_size, col_rows,
                      1.0f, w + g * w_group_size, col_rows, b_matrix, plan.out_size, 0.0f, y_group,
                      plan.out_size, plan.pool, &finish);
          continue;
        }
      }
      T beta = T(0);
      if (bias != nullptr) {
        // Seed the output with the bias and let the GEMM accumulate onto it.
        for (int64_t m = 0; m < out_per_group; ++m) {
          std::fill_n(y_group + m * plan.out_size, plan.out_size, bias[g * out_per_group + m]);
        }
        beta = T(1);
      }
      mlas::Gemm<T>(false, false, out_per_group, plan.out_size, col_rows, T(1),
                    w + g * w_group_size, col_rows, b_matrix, plan.out_size, beta, y_group,
                    plan.out_size, plan.pool);
    }
  }
}

template <typename T>
struct ConvImpl {
  void operator()(const ConvPlan& plan, const Tensor& x, const Tensor& w, const Tensor* b,
                  Tensor& y) const {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      // Half types compute in float and round once at the end.
      const auto widen = [](const Tensor& t) {
        const T* src = t.Data<T>();
        std::vector<float> out(static_cast<size_t>(t.NumElements()));
        for (size_t i = 0; i < out.size(); ++i) out[i] = src[i].ToFloat();
        return out;
      };
      const std::vector<float> x_float = widen(x);
      const std::vector<float> w_float = widen(w);
      std::vector<float> b_float;
      if (b != nullptr) b_float = widen(*b);
      std::vector<float> y_float(static_cast<size_t>(y.NumElements()));
      RunConv<float>(plan, x_float.data(), w_float.data(), b != nullptr ? b_float.data() : nullptr,
                     y_float.data());
      T* out = y.MutableData<T>();
      for (size_t i = 0; i < y_float.size(); ++i) out[i] = T(y_float[i]);
    } else {
      RunConv<T>(plan, x.Data<T>(), w.Data<T>(), b != nullptr ? b->Data<T>() : nullptr,
                 y.MutableData<T>());
    }
  }
};

using ConvTypes = TypeList<float, double, Float16, BFloat16>;

std::string Join(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

// The attributes and geometry shared by Conv and ConvInteger.
class ConvBase : public OpKernel {
 public:
  explicit ConvBase(const OpKernelInfo& info)
      : OpKernel(info),
        group_(info.IntOr("group", 1)),
        has_kernel_shape_(info.HasAttr("kernel_shape")),
        kernel_shape_(info.IntsOr("kernel_shape", {})),
        strides_(info.IntsOr("strides", {})),
        dilations_(info.IntsOr("dilations", {})),
        pads_(info.IntsOr("pads", {})) {
    const std::string auto_pad = info.StringOr("auto_pad", "NOTSET");
    if (auto_pad == "NOTSET") {
      auto_pad_ = AutoPad::kNotSet;
    } else if (auto_pad == "SAME_UPPER") {
      auto_pad_ = AutoPad::kSameUpper;
    } else if (auto_pad == "SAME_LOWER") {
      auto_pad_ = AutoPad::kSameLower;
    } else if (auto_pad == "VALID") {
      auto_pad_ = AutoPad::kValid;
    } else {
      PRISM_THROW(kInvalidArgument, GetNode().Describe(), ": Conv auto_pad '", auto_pad,
                  "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
    PRISM_ENFORCE(group_ >= 1, kInvalidArgument, GetNode().Describe(),
                  ": Conv group must be >= 1, got ", group_);
  }

 protected:
  ConvPlan Plan(const Tensor& x, const Tensor& w, const Tensor* b) const {
    return Plan(x, w.Shape(), b);
  }
  // The same from W's shape (an int8 W may have been prepacked).
  ConvPlan Plan(const Tensor& x, const TensorShape& w_shape, const Tensor* b) const {
    return PlanFromShape(x.Shape(), w_shape, b);
  }
  // The same from X's shape in NCHW order (a channels-last X permuted to it).
  ConvPlan PlanFromShape(const TensorShape& x_shape, const TensorShape& w_shape,
                         const Tensor* b) const {
    const std::string node = GetNode().Describe();
    PRISM_ENFORCE(x_shape.Rank() >= 3, kInvalidArgument, node,
                  ": Conv input X must have rank >= 3 (N, C, spatial...), got ",
                  x_shape.ToString());
    PRISM_ENFORCE(w_shape.Rank() == x_shape.Rank(), kInvalidArgument, node, ": Conv weight W ",
                  w_shape.ToString(), " must have the rank of X ", x_shape.ToString());
    const size_t rank = x_shape.Rank() - 2;

    ConvPlan plan;
    plan.batch = x_shape[0];
    plan.in_channels = x_shape[1];
    plan.out_channels = w_shape[0];
    plan.group = group_;
    // Division instead of w_shape[1] * group_, which could overflow for absurd groups.
    PRISM_ENFORCE(plan.in_channels % group_ == 0 && w_shape[1] == plan.in_channels / group_,
                  kInvalidArgument, node, ": Conv channel mismatch: X ", x_shape.ToString(),
                  " has ", plan.in_channels, " input channels but W ", w_shape.ToString(), " has ",
                  w_shape[1], " channels per group with group ", group_,
                  " (X channels must equal W.shape[1] * group)");
    PRISM_ENFORCE(plan.out_channels % group_ == 0, kInvalidArgument, node,
                  ": Conv output channels M = ", plan.out_channels, " of W ", w_shape.ToString(),
                  " is not divisible by group ", group_);
    if (b != nullptr) {
      PRISM_ENFORCE(b->Shape().Rank() == 1 && b->Shape()[0] == plan.out_channels, kInvalidArgument,
                    node, ": Conv bias B must have shape [", plan.out_channels, "], got ",
                    b->Shape().ToString());
    }

    plan.kernel.assign(w_shape.Dims().begin() + 2, w_shape.Dims().end());
    if (has_kernel_shape_) {
      PRISM_ENFORCE(kernel_shape_ == plan.kernel, kInvalidArgument, node, ": Conv kernel_shape ",
                    Join(kernel_shape_), " does not match the spatial dims of W ",
                    w_shape.ToString());
    }
    plan.strides = strides_.empty() ? std::vector<int64_t>(rank, 1) : strides_;
    plan.dilations = dilations_.empty() ? std::vector<int64_t>(rank, 1) : dilations_;
    PRISM_ENFORCE(plan.strides.size() == rank, kInvalidArgument, node, ": Conv strides ",
                  Join(plan.strides), " must have ", rank, " values");
    PRISM_ENFORCE(plan.dilations.size() == rank, kInvalidArgument, node, ": Conv dilations ",
                  Join(plan.dilations), " must have ", rank, " values");
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * rank, 0) : pads_;
    if (auto_pad_ == AutoPad::kNotSet) {
      PRISM_ENFORCE(pads.size() == 2 * rank, kInvalidArgument, node, ": Conv pads ", Join(pads),
                    " must have ", 2 * rank, " values");
    }

    plan.in_spatial.assign(x_shape.Dims().begin() + 2, x_shape.Dims().end());
    plan.out_spatial.resize(rank);
    plan.pads_begin.resize(rank);
    std::vector<int64_t> out_dims = {plan.batch, plan.out_channels};
    for (size_t d = 0; d < rank; ++d) {
      const int64_t in = plan.in_spatial[d];
      const int64_t stride = plan.strides[d];
      const int64_t dilation = plan.dilations[d];
      PRISM_ENFORCE(stride >= 1, kInvalidArgument, node, ": Conv strides must be >= 1, got ",
                    Join(plan.strides));
      PRISM_ENFORCE(dilation >= 1, kInvalidArgument, node, ": Conv dilations must be >= 1, got ",
                    Join(plan.dilations));
      PRISM_ENFORCE(plan.kernel[d] >= 1, kInvalidArgument, node,
                    ": Conv kernel dims must be >= 1, got W ", w_shape.ToString());
      // Bounds that keep the size arithmetic below far from int64 overflow.
      constexpr int64_t kLimit = int64_t{1} << 31;
      PRISM_ENFORCE(
          stride <= kLimit && dilation <= kLimit && plan.kernel[d] <= kLimit &&
              (auto_pad_ != AutoPad::kNotSet || (pads[d] <= kLimit && pads[d + rank] <= kLimit)),
          kInvalidArgument, node, ": Conv strides ", Join(plan.strides), ", dilations ",
          Join(plan.dilations), " or pads ", Join(pads), " are out of range");
      const int64_t window = (plan.kernel[d] - 1) * dilation + 1;  // dilated kernel extent
      int64_t out = 0;
      int64_t pad_begin = 0;
      switch (auto_pad_) {
        case AutoPad::kNotSet: {
          pad_begin = pads[d];
          const int64_t pad_end = pads[d + rank];
          PRISM_ENFORCE(pad_begin >= 0 && pad_end >= 0, kInvalidArgument, node,
                        ": Conv pads must be >= 0, got ", Join(pads));
          const int64_t padded = in + pad_begin + pad_end;
          PRISM_ENFORCE(padded >= window, kInvalidArgument, node, ": Conv spatial axis ", d,
                        " of X ", x_shape.ToString(), " with pads ", Join(pads),
                        " is smaller than the dilated kernel extent ", window);
          out = (padded - window) / stride + 1;
          break;
        }
        case AutoPad::kValid:
          PRISM_ENFORCE(in >= window, kInvalidArgument, node, ": Conv spatial axis ", d, " of X ",
                        x_shape.ToString(), " is smaller than the dilated kernel extent ", window,
                        " (auto_pad VALID)");
          out = (in - window) / stride + 1;
          break;
        case AutoPad::kSameUpper:
        case AutoPad::kSameLower: {
          out = (in + stride - 1) / stride;
          const int64_t total = std::max<int64_t>(0, (out - 1) * stride + window - in);
          // The odd pixel goes at the end for SAME_UPPER, at the beginning for SAME_LOWER.
          pad_begin = auto_pad_ == AutoPad::kSameUpper ? total / 2 : total - total / 2;
          break;
        }
      }
      plan.out_spatial[d] = out;
      plan.pads_begin[d] = pad_begin;
      out_dims.push_back(out);
    }
    plan.output_shape = TensorShape(out_dims);
    plan.in_size = TensorShape(plan.in_spatial).Size();
    plan.kernel_size = TensorShape(plan.kernel).Size();
    plan.out_size = TensorShape(plan.out_spatial).Size();
    return plan;
  }

  int64_t group_;
  bool has_kernel_shape_;
  std::vector<int64_t> kernel_shape_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> dilations_;
  std::vector<int64_t> pads_;
  AutoPad auto_pad_ = AutoPad::kNotSet;
};

class Conv final : public ConvBase {
 public:
  using ConvBase::ConvBase;

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor* b = context.Input(2);
    const std::string node = GetNode().Describe();
    PRISM_ENFORCE(w.Type() == x.Type() && (b == nullptr || b->Type() == x.Type()), kInvalidArgument,
                  node, ": Conv inputs must share one element type, got X ",
                  ElementTypeName(x.Type()), ", W ", ElementTypeName(w.Type()),
                  b != nullptr ? MakeString(", B ", ElementTypeName(b->Type())) : "");
    ConvPlan plan = Plan(x, w, b);
    plan.pool = context.IntraOpThreadPool();
    plan.scratch = context.TempAllocator();
    Tensor& y = context.Output(0, plan.output_shape, x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<ConvImpl, ConvTypes>(x.Type(), "Conv", plan, x, w, b, y);
  }
};

// The geometry of a plan for the int8 convolution (quantization/int8_conv.h).
quantization::Int8ConvGeometry Int8Geometry(const ConvPlan& plan) {
  quantization::Int8ConvGeometry g;
  g.batch = plan.batch;
  g.in_channels = plan.in_channels;
  g.out_channels = plan.out_channels;
  g.group = plan.group;
  g.in_spatial = plan.in_spatial;
  g.kernel = plan.kernel;
  g.out_spatial = plan.out_spatial;
  g.strides = plan.strides;
  g.dilations = plan.dilations;
  g.pads_begin = plan.pads_begin;
  return g;
}

// The int8 weight of ConvInteger / QLinearConv: prepacked once when it is a constant, else packed
// on each call.
class Int8ConvWeight {
 public:
  Int8ConvWeight(int input_index, int64_t group) : input_index_(input_index), group_(group) {}

  std::string Format(int input_index, const Tensor& weight) const {
    return input_index == input_index_ ? quantization::PackedConvWeightsFormat(weight, group_) : "";
  }
  PrePackedWeight Pack(const Tensor& weight) const {
    return quantization::PrePackConvWeights(weight, group_);
  }
  void Use(PrePackedWeight packed) {
    packed_ = std::static_pointer_cast<const quantization::PackedConvWeights>(packed.data);
    weight_ = std::move(packed);
  }

  const TensorShape& Shape(const OpKernelContext& context) const {
    return packed_ != nullptr ? packed_->Shape() : context.RequiredInput(input_index_).Shape();
  }
  ElementType Type(const OpKernelContext& context) const {
    return packed_ != nullptr ? packed_->Type() : context.RequiredInput(input_index_).Type();
  }
  // The packed weight (packed now into `holder` when it was not prepacked).
  const quantization::PackedConvWeights& Get(
      const OpKernelContext& context,
      std::shared_ptr<const quantization::PackedConvWeights>& holder) const {
    if (packed_ != nullptr) return *packed_;
    holder = quantization::PackedConvWeights::Pack(context.RequiredInput(input_index_), group_);
    return *holder;
  }

 private:
  int input_index_;
  int64_t group_;
  std::shared_ptr<const quantization::PackedConvWeights> packed_;
  PrePackedWeight weight_;
};

// ConvInteger's and QLinearConv's shared part: the int8 weight (input weight_input), prepacked
// once when constant.
class Int8ConvBase : public ConvBase {
 public:
  Int8ConvBase(const OpKernelInfo& info, int weight_input)
      : ConvBase(info), weight_(weight_input, group_) {}

  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return weight_.Format(input_index, weight);
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return weight_.Pack(weight);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    weight_.Use(std::move(packed));
  }

 protected:
  Int8ConvWeight weight_;
};

// ConvInteger (opset 10): (X - x_zero_point) convolved with (W - w_zero_point) in int32 (wrapping);
// X and W are int8 or uint8 each, w_zero_point is a scalar or one value per output channel.
// Padding holds x_zero_point, i.e. zero once shifted. Runs on the int8 GEMM (int8_conv.h).
class ConvInteger final : public Int8ConvBase {
 public:
  explicit ConvInteger(const OpKernelInfo& info) : Int8ConvBase(info, 1) {}

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const ElementType w_type = weight_.Type(context);
    ConvPlan plan = Plan(x, weight_.Shape(context), nullptr);
    const Tensor* x_zero = context.Input(2);
    const Tensor* w_zero = context.Input(3);
    if (x_zero != nullptr)
      PRISM_ENFORCE(x_zero->NumElements() == 1 && x_zero->Type() == x.Type(), kInvalidArgument,
                    node, ": x_zero_point must be one ", ElementTypeName(x.Type()),
                    " value (per-tensor), got ", x_zero->Describe());
    if (w_zero != nullptr)
      PRISM_ENFORCE(w_zero->Type() == w_type && w_zero->Shape().Rank() <= 1 &&
                        (w_zero->NumElements() == 1 || w_zero->NumElements() == plan.out_channels),
                    kInvalidArgument, node, ": w_zero_point must be one ", ElementTypeName(w_type),
                    " value or one per output channel (", plan.out_channels, "), got ",
                    w_zero->Describe());
    Tensor& y = context.Output(0, plan.output_shape, ElementType::kInt32);
    if (y.NumElements() == 0) return;
    const auto zero_value = [](const Tensor& zero, int64_t i) {
      return zero.Type() == ElementType::kUint8 ? static_cast<int32_t>(zero.Data<uint8_t>()[i])
                                                : static_cast<int32_t>(zero.Data<int8_t>()[i]);
    };
    std::vector<int32_t> w_zeros;
    if (w_zero != nullptr && w_zero->NumElements() > 1)
      for (int64_t m = 0; m < plan.out_channels; ++m) w_zeros.push_back(zero_value(*w_zero, m));
    std::shared_ptr<const quantization::PackedConvWeights> holder;
    quantization::Int8ConvArgs args;
    args.x = x.RawData();
    args.x_signed = x.Type() == ElementType::kInt8;
    args.x_zero = x_zero != nullptr ? zero_value(*x_zero, 0) : 0;
    args.w = &weight_.Get(context, holder);
    args.w_zero_per_channel = w_zeros.empty() ? nullptr : w_zeros.data();
    args.w_zero = w_zero != nullptr && w_zeros.empty() ? zero_value(*w_zero, 0) : 0;
    args.y_int32 = y.MutableData<int32_t>();
    quantization::RunInt8Conv(Int8Geometry(plan), args, context.IntraOpThreadPool(),
                              context.TempAllocator());
  }
};

// QLinearConv (opset 10): ConvInteger's int32 convolution of the zero-point-shifted x and w
// plus the int32 bias B, requantized per output channel (quantization/qlinear_conv.h), on the
// int8 GEMM (int8_conv.h). Also onnxruntime's com.microsoft QLinearConv, the same op with the
// attribute channels_last: 1 takes X as [N, spatial..., C] and writes Y as [N, spatial..., M]
// (what the NhwcTransformer produces), which the int8 convolution reads and writes directly.
class QLinearConv final : public Int8ConvBase {
 public:
  explicit QLinearConv(const OpKernelInfo& info)
      : Int8ConvBase(info, 3),
        channels_last_(GetNode().Domain() == "com.microsoft" &&
                       info.IntOr("channels_last", 0) != 0),
        constant_operands_(ConstantOperands(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor* bias = context.Input(8);
    TensorShape x_shape = x.Shape();
    if (channels_last_) {
      PRISM_ENFORCE(x_shape.Rank() >= 3, kInvalidArgument, GetNode().Describe(),
                    ": channels-last QLinearConv input X must have rank >= 3 (N, spatial..., C), "
                    "got ",
                    x_shape.ToString());
      // Checked here too so that the message shows X as given (the plan sees it permuted).
      const TensorShape& w_shape = weight_.Shape(context);
      const int64_t channels = x_shape[x_shape.Rank() - 1];
      PRISM_ENFORCE(w_shape.Rank() == x_shape.Rank() && channels % group_ == 0 &&
                        w_shape[1] == channels / group_,
                    kInvalidArgument, GetNode().Describe(), ": channels-last X ",
                    x_shape.ToString(), " has ", channels, " channels (its last axis), which W ",
                    w_shape.ToString(), " with group ", group_,
                    " does not take (W.shape[1] * group must equal them, ranks equal)");
      std::vector<int64_t> dims = {x_shape[0], channels};
      dims.insert(dims.end(), x_shape.Dims().begin() + 1, x_shape.Dims().end() - 1);
      x_shape = TensorShape(dims);
    }
    ConvPlan plan = PlanFromShape(x_shape, weight_.Shape(context), bias);
    // The quantization parameters' checks and multipliers: once, when they are constants.
    std::optional<quantization::QLinearConvQuantization> per_run;
    if (constant_operands_)
      std::call_once(quantization_once_, [&] {
        quantization_.emplace(GetNode(), context, plan.out_channels, weight_.Type(context));
      });
    else
      per_run.emplace(GetNode(), context, plan.out_channels, weight_.Type(context));
    const quantization::QLinearConvQuantization& quantization =
        constant_operands_ ? *quantization_ : *per_run;
    TensorShape y_shape = plan.output_shape;
    if (channels_last_) {
      std::vector<int64_t> dims = {plan.batch};
      dims.insert(dims.end(), plan.out_spatial.begin(), plan.out_spatial.end());
      dims.push_back(plan.out_channels);
      y_shape = TensorShape(dims);
    }
    Tensor& y = context.Output(0, y_shape, quantization.OutputType());
    if (y.NumElements() == 0) return;
    std::shared_ptr<const quantization::PackedConvWeights> holder;
    quantization::Int8ConvArgs args;
    args.x = x.RawData();
    args.x_signed = x.Type() == ElementType::kInt8;
    args.x_zero = quantization.XZeroPoint();
    args.w = &weight_.Get(context, holder);
    args.w_zero_per_channel = quantization.WZeroPoints();
    args.y_8bit = y.MutableRawData();
    args.y_signed = y.Type() == ElementType::kInt8;
    args.bias = bias != nullptr ? bias->Data<int32_t>() : nullptr;
    args.multipliers = quantization.Multipliers();
    args.y_zero = quantization.YZeroPoint();
    args.channels_last = channels_last_;
    args.cache = constant_operands_ ? &cache_ : nullptr;
    quantization::RunInt8Conv(Int8Geometry(plan), args, context.IntraOpThreadPool(),
                              context.TempAllocator());
  }

 private:
  // Whether W, the scales, the zero points and the bias are all constant initializers (or
  // absent): then what is derived from them is the same on every run.
  static bool ConstantOperands(const OpKernelInfo& info) {
    for (size_t i = 1; i <= 8; ++i)
      if (info.GetNode().HasInput(i) && info.ConstantInput(i) == nullptr) return false;
    return true;
  }

  bool channels_last_;
  bool constant_operands_;
  mutable std::once_flag quantization_once_;
  mutable std::optional<quantization::QLinearConvQuantization> quantization_;
  quantization::Int8ConvCache cache_;
};

// FusedConv (com.microsoft, float): Conv, then + Z and an activation (contrib/fused_conv.cc).
class FusedConv final : public ConvBase {
 public:
  explicit FusedConv(const OpKernelInfo& info)
      : ConvBase(info),
        activation_(ConvActivation::Parse(GetNode(), info.StringOr("activation", ""),
                                          info.HasAttr("activation_params")
                                              ? info.Floats("activation_params")
                                              : std::vector<float>{})) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(1);
    const Tensor* b = context.Input(2);
    ConvPlan plan = Plan(x, w, b);
    plan.pool = context.IntraOpThreadPool();
    plan.scratch = context.TempAllocator();
    Tensor& y = context.Output(0, plan.output_shape, x.Type());
    if (y.NumElements() == 0) return;
    const Tensor* z = context.Input(3);
    if (z != nullptr)
      PRISM_ENFORCE(z->Type() == ElementType::kFloat && z->Shape() == y.Shape(), kInvalidArgument,
                    GetNode().Describe(), ": FusedConv input Z must be float with Y's shape ",
                    y.Shape().ToString(), ", got ", z->Describe());
    RunConv<float>(plan, x.Data<float>(), w.Data<float>(), b ? b->Data<float>() : nullptr,
                   y.MutableData<float>(), &activation_, z ? z->Data<float>() : nullptr);
  }

 private:
  ConvActivation activation_;
};

void RegisterConvKernels(KernelRegistry& registry) {
  using ET = ElementType;
  const std::vector<ET> float_types = {ET::kFloat16, ET::kFloat, ET::kDouble};
  const std::vector<ET> types_v22 = {ET::kBFloat16, ET::kFloat16, ET::kFloat, ET::kDouble};
  const auto factory = MakeKernelFactory<Conv>();
  registry.Register(
      KernelDefBuilder("Conv").Versions(1, 10).Constraint("T", float_types, {0, 1, 2}, {0}).Build(),
      factory);
  registry.Register(KernelDefBuilder("Conv")
                        .Versions(11, 21)
                        .Constraint("T", float_types, {0, 1, 2}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("Conv").Versions(22).Constraint("T", types_v22, {0, 1, 2}, {0}).Build(),
      factory);
  registry.Register(KernelDefBuilder("ConvInteger")
                        .Versions(10)
                        .Constraint("T1", {ET::kInt8, ET::kUint8}, {0, 2})
                        .Constraint("T2", {ET::kInt8, ET::kUint8}, {1, 3})
                        .Constraint("T3", {ET::kInt32}, {}, {0})
                        .Build(),
                    MakeKernelFactory<ConvInteger>());
  // ONNX's QLinearConv and onnxruntime's com.microsoft one (which adds channels_last): one kernel.
  for (const auto& [domain, version] : {std::pair<const char*, int>{"", 10}, {"com.microsoft", 1}})
    registry.Register(KernelDefBuilder("QLinearConv")
                          .Domain(domain)
                          .Versions(version)
                          .Constraint("T1", {ET::kInt8, ET::kUint8}, {0, 2})
                          .Constraint("T2", {ET::kInt8, ET::kUint8}, {3, 5})
                          .Constraint("T3", {ET::kInt8, ET::kUint8}, {7}, {0})
                          .Constraint("T4", {ET::kInt32}, {8})
                          .Build(),
                      MakeKernelFactory<QLinearConv>());
  registry.Register(KernelDefBuilder("FusedConv")
                        .Domain("com.microsoft")
                        .Versions(1)
                        .Constraint("T", {ET::kFloat}, {0, 1, 2, 3}, {0})
                        .Build(),
                    MakeKernelFactory<FusedConv>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_conv, RegisterConvKernels);

}  // namespace prism::cpu

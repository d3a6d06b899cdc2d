// com.microsoft.nchwc Conv (version 1, float): Y = activation(conv(X, W) + B + Sum), Y in the
// NCHWc layout (mlas/nchwc.h), from one of three kinds of X, decided by the shapes:
//   blocked:   X NCHWc [N, Cp, H, W], group 1, W [Mp, Cp, KH, KW];
//   NCHW input: X plain [N, C, H, W] with C < b, group 1, W [Mp, C, KH, KW];
//   depthwise: X NCHWc, group == Cp == Mp, W [Mp, 1, KH, KW].
// Mp and Cp are multiples of the block b (the graph pass pads W). W's floats are in onnxruntime's
// order (mlas/nchwc_filter_order.h: OIHWBiBo for the blocked kind, OIHWBo for the others), the
// shape OIHW, so that a saved optimized model means the same in both runtimes. The attributes are
// ONNX Conv's plus FusedConv's activation and activation_params: Relu, LeakyRelu and Clip run
// inside the kernel's store with the bias and the sum; Tanh, Sigmoid and HardSigmoid after it over
// Y. W, a constant initializer, is packed once at session creation (PrePack); for a 3x3, stride 1
// convolution also in the Winograd form (mlas/nchwc_winograd.h), which runs instead of the direct
// kernel on the shapes where it measured faster. Where X's plane is known at creation and the
// Winograd form pays on it, that form alone is made: the direct one would never run.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/aligned_vector.h"
#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/nchwc.h"
#include "mlas/nchwc_filter_order.h"
#include "mlas/nchwc_winograd.h"
#include "providers/cpu/contrib/fused_activation.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

std::string Join(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

// A packed filter and the geometry it was packed for (the parts W decides): the direct form, the
// Winograd form where the convolution may run by it, or the Winograd form alone where X's plane
// is known and it pays there (then W itself is kept as the way back: 11 of resnet50's 3x3 layers
// held 14 MB of direct filters that never ran; without packing them its session creation took
// 336 ms instead of 363, medians of alternating runs).
struct NchwcPackedFilter {
  mlas::NchwcConvShape shape;
  AlignedVector<float> floats;  // the direct form; empty when only the Winograd form runs
  std::optional<mlas::NchwcWinogradFilter> winograd;
  Tensor original;  // W as given, kept when there is no direct form

  bool HasDirect() const { return !floats.empty(); }
};

class NchwcConv final : public OpKernel {
 public:
  explicit NchwcConv(const OpKernelInfo& info)
      : OpKernel(info),
        group_(info.IntOr("group", 1)),
        kernel_shape_(info.IntsOr("kernel_shape", {})),
        strides_(info.IntsOr("strides", {1, 1})),
        dilations_(info.IntsOr("dilations", {1, 1})),
        pads_(info.IntsOr("pads", {0, 0, 0, 0})),
        auto_pad_(info.StringOr("auto_pad", "NOTSET")) {
    const std::string node = GetNode().Describe();
    if (strides_.empty()) strides_ = {1, 1};
    if (dilations_.empty()) dilations_ = {1, 1};
    if (pads_.empty()) pads_ = {0, 0, 0, 0};
    PRISM_ENFORCE(auto_pad_ == "NOTSET" || auto_pad_ == "VALID" || auto_pad_ == "SAME_UPPER" ||
                      auto_pad_ == "SAME_LOWER",
                  kInvalidArgument, node, ": NCHWc Conv auto_pad '", auto_pad_,
                  "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    PRISM_ENFORCE(strides_.size() == 2 && dilations_.size() == 2 && pads_.size() == 4,
                  kInvalidArgument, node,
                  ": NCHWc Conv is 2-D: strides and dilations need 2 values and pads 4, got "
                  "strides ",
                  Join(strides_), ", dilations ", Join(dilations_), ", pads ", Join(pads_));
    // The upper bounds (as the plain Conv's) keep the geometry's arithmetic far from int64
    // overflow; the kernels' byte offsets too.
    constexpr int64_t kLimit = int64_t{1} << 31;
    for (int64_t v : strides_)
      PRISM_ENFORCE(v >= 1 && v <= kLimit, kInvalidArgument, node,
                    ": NCHWc Conv strides must be in [1, 2^31], got ", Join(strides_));
    for (int64_t v : dilations_)
      PRISM_ENFORCE(v >= 1 && v <= kLimit, kInvalidArgument, node,
                    ": NCHWc Conv dilations must be in [1, 2^31], got ", Join(dilations_));
    for (int64_t v : pads_)
      PRISM_ENFORCE(v >= 0 && v <= kLimit, kInvalidArgument, node,
                    ": NCHWc Conv pads must be in [0, 2^31], got ", Join(pads_));
    PRISM_ENFORCE(group_ >= 1, kInvalidArgument, node, ": NCHWc Conv group must be >= 1, got ",
                  group_);
    ParseActivation(info);
  }

  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    if (input_index != 1 || weight.Type() != ElementType::kFloat || weight.Shape().Rank() != 4)
      return "";
    if (!FilterShape(weight.Shape()).has_value()) return "";
    return "mlas.nchwc.filter.f32(b=" + std::to_string(mlas::NchwcBlockSize()) +
           ",group=" + std::to_string(group_) + WinogradSuffix(*FilterShape(weight.Shape())) + ")";
  }

  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    auto packed = std::make_shared<NchwcPackedFilter>(Pack(weight, /*with_winograd=*/true));
    PrePackedWeight result;
    result.bytes = packed->floats.size() * sizeof(float) +
                   (packed->winograd ? packed->winograd->Bytes() : 0) +
                   (packed->original.IsValid() ? packed->original.SizeInBytes() : 0);
    result.type = weight.Type();
    result.shape = weight.Shape();
    result.unpack = [packed, dims = weight.Shape()] {
      Tensor original(ElementType::kFloat, dims, GetCpuAllocator());
      if (!packed->HasDirect()) {
        std::copy_n(packed->original.Data<float>(), dims.Size(), original.MutableData<float>());
        return original;
      }
      std::vector<float> oihw(static_cast<size_t>(dims.Size()));
      mlas::NchwcUnpackFilter(mlas::ActiveKernels(), packed->shape, packed->floats.data(),
                              oihw.data());
      mlas::NchwcOrderFilter(FilterOrder(packed->shape), FilterDims(dims), oihw.data(),
                             original.MutableData<float>());
      return original;
    };
    result.data = packed;
    return result;
  }

  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_ = std::static_pointer_cast<const NchwcPackedFilter>(packed.data);
    packed_w_shape_ = packed.shape;
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    std::shared_ptr<const NchwcPackedFilter> filter = packed_;
    TensorShape w_shape = packed_w_shape_;
    if (filter == nullptr) {
      const Tensor& w = context.RequiredInput(1);
      PRISM_ENFORCE(w.Type() == ElementType::kFloat && w.Shape().Rank() == 4, kInvalidArgument,
                    node, ": NCHWc Conv input W must be a 4-D float tensor, got ", w.Describe());
      w_shape = w.Shape();
      CheckFilter(w_shape);
      filter = std::make_shared<const NchwcPackedFilter>(Pack(w, /*with_winograd=*/false));
    }
    PRISM_ENFORCE(x.Type() == ElementType::kFloat && x.Shape().Rank() == 4, kInvalidArgument, node,
                  ": NCHWc Conv input X must be a 4-D float tensor, got ", x.Describe());
    mlas::NchwcConvShape shape = filter->shape;
    const TensorShape& xs = x.Shape();
    shape.batch = xs[0];
    shape.input_h = xs[2];
    shape.input_w = xs[3];
    const int64_t b = mlas::NchwcBlockSize();
    const bool matches = shape.input_is_nchw ? xs[1] == shape.input_channels && xs[1] < b
                                             : xs[1] == shape.input_channels;
    PRISM_ENFORCE(matches, kInvalidArgument, node, ": NCHWc Conv input X ", xs.ToString(),
                  " does not fit W ", w_shape.ToString(), " with group ", group_,
                  ": expected X channels ", shape.input_channels,
                  shape.input_is_nchw ? " (plain NCHW input)"
                                      : " (NCHWc input, block " + std::to_string(b) + ")");
    ResolveGeometry(shape, node);
    const TensorShape y_shape({shape.batch, shape.output_channels, shape.output_h, shape.output_w});
    const Tensor* bias = context.Input(2);
    const Tensor* sum = context.Input(3);
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Type() == ElementType::kFloat && bias->Shape().Rank() == 1 &&
                        bias->Shape()[0] == shape.output_channels,
                    kInvalidArgument, node, ": NCHWc Conv input B must be float [",
                    shape.output_channels, "], got ", bias->Describe());
    if (sum != nullptr)
      PRISM_ENFORCE(sum->Type() == ElementType::kFloat && sum->Shape() == y_shape, kInvalidArgument,
                    node, ": NCHWc Conv input Sum must be float with Y's shape ",
                    y_shape.ToString(), ", got ", sum->Describe());
    Tensor& y = context.Output(0, y_shape, ElementType::kFloat);
    if (y.NumElements() == 0) return;
    mlas::NchwcConvEpilogue epilogue;
    epilogue.bias = bias != nullptr ? bias->Data<float>() : nullptr;
    epilogue.sum = sum != nullptr ? sum->Data<float>() : nullptr;
    epilogue.activation = kernel_activation_;
    epilogue.alpha = activation_.alpha;
    epilogue.beta = activation_.beta;
    const float* input = x.Data<float>();
    float* output = y.MutableData<float>();
    ThreadPool* pool = context.IntraOpThreadPool();
    const int64_t threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;
    // Without a direct form (X's plane was known at creation, where Winograd pays) the Winograd
    // form runs whatever the plane: it is exact on every plane, only slower on some.
    if (filter->winograd &&
        (!filter->HasDirect() || mlas::NchwcWinogradPays(shape, filter->winograd->OutputTile()))) {
      const mlas::NchwcWinogradPlan plan =
          mlas::NchwcWinogradPlanFor(shape, filter->winograd->OutputTile(), threads);
      const int64_t items = plan.WorkItems(shape.batch);
      // Per item: its tiles' share of the direct convolution's multiply-adds, about twice what the
      // transformed products and the transforms cost together.
      const double cost = static_cast<double>(plan.batch * plan.output_tile * plan.output_tile) *
                          static_cast<double>(shape.output_channels * shape.input_channels * 9);
      ThreadPool::TryParallelFor(pool, items, cost, [&](int64_t begin, int64_t end) {
        mlas::NchwcWinogradConv(shape, plan, input, *filter->winograd, epilogue, output, begin,
                                end);
      });
    } else {
      RunDirect(shape, input, *filter, epilogue, output, pool);
    }
    if (activation_after_) {
      const int64_t count = y.NumElements();
      constexpr int64_t kChunk = 16384;
      ThreadPool::TryParallelFor(context.IntraOpThreadPool(), (count + kChunk - 1) / kChunk,
                                 static_cast<double>(kChunk) * 20, [&](int64_t begin, int64_t end) {
                                   const int64_t first = begin * kChunk;
                                   const int64_t last = std::min(count, end * kChunk);
                                   ApplyFusedActivation(activation_, output + first, last - first);
                                 });
    }
  }

 private:
  static void RunDirect(const mlas::NchwcConvShape& shape, const float* input,
                        const NchwcPackedFilter& filter, const mlas::NchwcConvEpilogue& epilogue,
                        float* output, ThreadPool* pool) {
    const int64_t b = mlas::NchwcBlockSize();
    const int64_t items = mlas::NchwcConvWorkItems(shape);
    // Multiply-adds per item: a row of a group of output blocks.
    const int64_t item_channels =
        shape.IsDepthwise() ? b
                            : std::min(mlas::kNchwcConvBlocksPerItem * b, shape.output_channels);
    const double cost = 2.0 * static_cast<double>(shape.output_w * item_channels) *
                        static_cast<double>((shape.IsDepthwise() ? 1 : shape.input_channels) *
                                            shape.kernel_h * shape.kernel_w);
    // Threads take whole grains of items (mlas::NchwcConvItemGrain).
    const int64_t grain = mlas::NchwcConvItemGrain(shape);
    ThreadPool::TryParallelFor(pool, items / grain, cost * static_cast<double>(grain),
                               [&](int64_t begin, int64_t end) {
                                 mlas::NchwcConv(shape, input, filter.floats.data(), epilogue,
                                                 output, begin * grain, end * grain);
                               });
  }

  // The output tile of the Winograd form a filter of this shape is packed in too, or 0: the
  // attributes allow it, and the input's plane (where shape inference knows it) is one where
  // it pays. An unknown plane packs F(2x2), which pays on more planes; each run decides.
  // plane_known: whether the tile was chosen for a known plane.
  int WinogradTile(mlas::NchwcConvShape shape, bool* plane_known = nullptr) const {
    if (plane_known != nullptr) *plane_known = false;
    shape.stride_h = strides_[0];
    shape.stride_w = strides_[1];
    shape.dilation_h = dilations_[0];
    shape.dilation_w = dilations_[1];
    if (!mlas::NchwcWinogradApplies(mlas::ActiveKernels(), shape)) return 0;
    const Node& node = GetNode();
    const NodeArg* x = node.HasInput(0) ? node.Inputs()[0] : nullptr;
    if (x == nullptr || !x->shape || x->shape->dims.size() != 4 || !x->shape->dims[2].IsKnown() ||
        !x->shape->dims[3].IsKnown())
      return 2;
    shape.input_h = x->shape->dims[2].value;
    shape.input_w = x->shape->dims[3].value;
    try {
      ResolveGeometry(shape, node.Describe());
    } catch (const Exception&) {
      return 0;  // no output at this size: the run reports it
    }
    if (plane_known != nullptr) *plane_known = true;
    return mlas::NchwcWinogradBestTile(mlas::ActiveKernels(), shape);
  }

  std::string WinogradSuffix(const mlas::NchwcConvShape& shape) const {
    const int tile = WinogradTile(shape);
    return tile == 0 ? "" : ",winograd=" + std::to_string(tile);
  }

  void ParseActivation(const OpKernelInfo& info) {
    using Kind = FusedActivation::Kind;
    const std::string node = GetNode().Describe();
    const std::string name = info.StringOr("activation", "");
    const std::vector<float> params =
        info.HasAttr("activation_params") ? info.Floats("activation_params") : std::vector<float>{};
    const std::optional<Kind> kind = FusedActivationKind(name);
    PRISM_ENFORCE(kind.has_value() &&
                      (*kind == Kind::kNone || *kind == Kind::kRelu || *kind == Kind::kLeakyRelu ||
                       *kind == Kind::kClip || *kind == Kind::kHardSigmoid ||
                       *kind == Kind::kSigmoid || *kind == Kind::kTanh),
                  kInvalidArgument, node, ": NCHWc Conv activation '", name,
                  "' is not one of Relu, LeakyRelu, Clip, HardSigmoid, Sigmoid, Tanh");
    const size_t needed = *kind == Kind::kLeakyRelu                               ? 1
                          : (*kind == Kind::kClip || *kind == Kind::kHardSigmoid) ? 2
                                                                                  : 0;
    PRISM_ENFORCE(params.size() == needed, kInvalidArgument, node, ": NCHWc Conv activation '",
                  name, "' takes ", needed, " activation_params, got ", params.size());
    activation_.kind = *kind;
    if (needed >= 1) activation_.alpha = params[0];
    if (needed >= 2) activation_.beta = params[1];
    switch (*kind) {
      case Kind::kNone:
        kernel_activation_ = mlas::kActivationNone;
        break;
      case Kind::kRelu:
        kernel_activation_ = mlas::kActivationRelu;
        break;
      case Kind::kLeakyRelu:
        kernel_activation_ = mlas::kActivationLeakyRelu;
        break;
      case Kind::kClip:
        kernel_activation_ = mlas::kActivationClip;
        break;
      default:
        kernel_activation_ = mlas::kActivationNone;
        activation_after_ = true;
    }
  }

  // The kind and channel counts W gives (batch and spatial sizes come with X), or nothing when W
  // fits none of the three kinds.
  std::optional<mlas::NchwcConvShape> FilterShape(const TensorShape& w) const {
    if (w.Rank() != 4) return std::nullopt;
    const int64_t b = mlas::NchwcBlockSize();
    mlas::NchwcConvShape s;
    s.output_channels = w[0];
    s.kernel_h = w[2];
    s.kernel_w = w[3];
    if (w[0] <= 0 || w[0] % b != 0 || w[1] <= 0 || w[2] <= 0 || w[3] <= 0) return std::nullopt;
    if (group_ == 1 && w[1] % b == 0) {
      s.input_channels = w[1];
    } else if (group_ == 1 && w[1] < b) {
      s.input_channels = w[1];
      s.input_is_nchw = true;
    } else if (group_ == w[0] && w[1] == 1) {
      s.input_channels = w[0];
      s.groups = group_;
    } else {
      return std::nullopt;
    }
    return s;
  }

  void CheckFilter(const TensorShape& w) const {
    PRISM_ENFORCE(FilterShape(w).has_value(), kInvalidArgument, GetNode().Describe(),
                  ": NCHWc Conv W ", w.ToString(), " with group ", group_,
                  " is none of the supported kinds (block ", mlas::NchwcBlockSize(),
                  "): expected [Mp, Cp, KH, KW] with Mp and Cp multiples of the block (group 1), "
                  "[Mp, C, KH, KW] with C < block (group 1, NCHW input), or [Mp, 1, KH, KW] with "
                  "group == Mp (depthwise)");
    if (!kernel_shape_.empty())
      PRISM_ENFORCE(
          kernel_shape_.size() == 2 && kernel_shape_[0] == w[2] && kernel_shape_[1] == w[3],
          kInvalidArgument, GetNode().Describe(), ": NCHWc Conv kernel_shape ", Join(kernel_shape_),
          " does not match W ", w.ToString());
  }

  static mlas::NchwcFilterOrder FilterOrder(const mlas::NchwcConvShape& s) {
    return s.input_is_nchw || s.groups > 1 ? mlas::NchwcFilterOrder::kOIHWBo
                                           : mlas::NchwcFilterOrder::kOIHWBiBo;
  }

  static mlas::NchwcFilterDims FilterDims(const TensorShape& w) {
    return {w[0], w[1], w[2], w[3], mlas::NchwcBlockSize()};
  }

  // W comes in onnxruntime's order; mlas packs from OIHW. The Winograd form only for a constant
  // W (packed once): it costs more than a run's convolution to make.
  NchwcPackedFilter Pack(const Tensor& w, bool with_winograd) const {
    CheckFilter(w.Shape());
    NchwcPackedFilter packed;
    packed.shape = *FilterShape(w.Shape());
    bool plane_known = false;
    const int winograd_tile = with_winograd ? WinogradTile(packed.shape, &plane_known) : 0;
    if (winograd_tile != 0) {
      std::vector<float> oihw(static_cast<size_t>(w.NumElements()));
      mlas::NchwcUnorderFilter(FilterOrder(packed.shape), FilterDims(w.Shape()), w.Data<float>(),
                               oihw.data());
      packed.winograd = mlas::NchwcWinogradFilter::Pack(packed.shape, oihw.data(), winograd_tile);
      if (plane_known) {
        // W's own buffer where something keeps it alive (shared with the initializer), else a copy
        // (memory the application owns is only promised for the session's life).
        if (w.Buffer() != nullptr) {
          packed.original = w;
        } else {
          packed.original = Tensor(ElementType::kFloat, w.Shape(), GetCpuAllocator());
          std::copy_n(w.Data<float>(), w.NumElements(), packed.original.MutableData<float>());
        }
        return packed;
      }
    }
    packed.floats.resize(static_cast<size_t>(mlas::NchwcPackedFilterFloats(packed.shape)));
    mlas::NchwcPackOrderedFilter(mlas::ActiveKernels(), packed.shape, w.Data<float>(),
                                 packed.floats.data());
    return packed;
  }

  // Strides, dilations, pads (auto_pad resolved) and the output size for shape's input size.
  void ResolveGeometry(mlas::NchwcConvShape& s, const std::string& node) const {
    const int64_t in[2] = {s.input_h, s.input_w};
    const int64_t kernel[2] = {s.kernel_h, s.kernel_w};
    int64_t out[2], begin[2], end[2];
    for (int d = 0; d < 2; ++d) {
      PRISM_ENFORCE(kernel[d] >= 1 && kernel[d] <= (int64_t{1} << 31), kInvalidArgument, node,
                    ": NCHWc Conv kernel dims must be in [1, 2^31], got ", kernel[0], "x",
                    kernel[1]);
      const int64_t window = (kernel[d] - 1) * dilations_[d] + 1;
      begin[d] = pads_[d];
      end[d] = pads_[d + 2];
      if (auto_pad_ == "VALID") {
        begin[d] = end[d] = 0;
      } else if (auto_pad_ == "SAME_UPPER" || auto_pad_ == "SAME_LOWER") {
        out[d] = (in[d] + strides_[d] - 1) / strides_[d];
        const int64_t total = std::max<int64_t>(0, (out[d] - 1) * strides_[d] + window - in[d]);
        begin[d] = auto_pad_ == "SAME_UPPER" ? total / 2 : total - total / 2;
        end[d] = total - begin[d];
      }
      const int64_t padded = in[d] + begin[d] + end[d];
      PRISM_ENFORCE(padded >= window, kInvalidArgument, node, ": NCHWc Conv spatial axis ", d,
                    " of X (", in[d], " with pads ", begin[d], "+", end[d],
                    ") is smaller than the dilated kernel extent ", window);
      out[d] = (padded - window) / strides_[d] + 1;
    }
    s.output_h = out[0];
    s.output_w = out[1];
    s.stride_h = strides_[0];
    s.stride_w = strides_[1];
    s.dilation_h = dilations_[0];
    s.dilation_w = dilations_[1];
    s.pad_top = begin[0];
    s.pad_left = begin[1];
    s.pad_bottom = end[0];
    s.pad_right = end[1];
  }

  int64_t group_;
  std::vector<int64_t> kernel_shape_, strides_, dilations_, pads_;
  std::string auto_pad_;
  FusedActivation activation_;
  int kernel_activation_ = mlas::kActivationNone;
  bool activation_after_ = false;
  std::shared_ptr<const NchwcPackedFilter> packed_;
  TensorShape packed_w_shape_;
};

void RegisterNchwcConvKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("Conv")
                        .Domain("com.microsoft.nchwc")
                        .Versions(1)
                        .Constraint("T", {ElementType::kFloat}, {0, 1, 2, 3}, {0})
                        .Build(),
                    MakeKernelFactory<NchwcConv>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nchwc_conv, RegisterNchwcConvKernels);

}  // namespace prism::cpu

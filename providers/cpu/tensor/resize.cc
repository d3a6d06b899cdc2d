// Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7, 9, 10, and 1 with height/width
// scales): output sizes from `scales` (floor(scale * size)) or `sizes` (with
// keep_aspect_ratio_policy), optionally on a subset of `axes`; each output coordinate maps back
// to the input by the coordinate_transformation_mode (half_pixel, half_pixel_symmetric,
// pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize with its roi and
// extrapolation_value). Interpolation is separable, one axis at a time, as the ONNX reference
// computes it:
// - nearest picks one input element by nearest_mode (round_prefer_floor, round_prefer_ceil,
//   floor, ceil); it moves elements as they are, so it works on every element type;
// - linear and cubic (cubic_coeff_a, exclude_outside) weigh 2 or 4 neighbours, clamped to the
//   edge; with antialias (opset 18+) the filter widens by 1 / scale when shrinking. They run in
//   double on the numeric types; integer results round half to even and saturate.
// Opset 10 Resize and Upsample use the asymmetric transform and, for nearest, floor when
// growing and ceil when shrinking (onnxruntime's behaviour for these opsets).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/common/storage_unit.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/cast.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Transform {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfCropAndResize
};
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kLegacy };
enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

// The widest antialiasing filter a scale may ask for, in taps per output element. A non-empty
// output never needs more than about twice its input's size; the bound keeps the conversion to
// an integer defined for any scale.
constexpr double kMaxTaps = 1ll << 40;

// One axis of the resize: for each output index, the first neighbour and the weights of the
// taps (neighbour indices already clamped into the input), or extrapolated.
struct AxisPlan {
  int64_t in = 0;
  int64_t out = 0;
  int64_t taps = 0;
  std::vector<int64_t> index;  // out * taps, clamped input indices
  std::vector<double> weight;  // out * taps
  std::vector<bool> extrapolated;
};

double CubicWeight(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

class Resize final : public OpKernel {
 public:
  explicit Resize(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    upsample_ = node.OpType() == "Upsample";
    opset_ = node.OpsetVersion();
    legacy_ = upsample_ || opset_ < 11;
    const std::string mode = info.StringOr("mode", "nearest");
    if (mode == "nearest")
      mode_ = Mode::kNearest;
    else if (mode == "linear" || mode == "bilinear" || mode == "trilinear")
      mode_ = Mode::kLinear;
    else if (mode == "cubic" && !legacy_)
      mode_ = Mode::kCubic;
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": mode '", mode, "' is not supported (",
                  legacy_ ? "nearest or linear" : "nearest, linear or cubic", ")");
    if (legacy_) {
      transform_ = Transform::kAsymmetric;
      nearest_ = Nearest::kLegacy;
    } else {
      const std::string transform = info.StringOr("coordinate_transformation_mode", "half_pixel");
      if (transform == "half_pixel")
        transform_ = Transform::kHalfPixel;
      else if (transform == "half_pixel_symmetric" && opset_ >= 19)
        transform_ = Transform::kHalfPixelSymmetric;
      else if (transform == "pytorch_half_pixel")
        transform_ = Transform::kPytorchHalfPixel;
      else if (transform == "align_corners")
        transform_ = Transform::kAlignCorners;
      else if (transform == "asymmetric")
        transform_ = Transform::kAsymmetric;
      else if (transform == "tf_crop_and_resize")
        transform_ = Transform::kTfCropAndResize;
      else
        PRISM_THROW(kInvalidArgument, node.Describe(), ": coordinate_transformation_mode '",
                    transform, "' is not supported at opset ", opset_);
      const std::string nearest = info.StringOr("nearest_mode", "round_prefer_floor");
      if (nearest == "round_prefer_floor")
        nearest_ = Nearest::kRoundPreferFloor;
      else if (nearest == "round_prefer_ceil")
        nearest_ = Nearest::kRoundPreferCeil;
      else if (nearest == "floor")
        nearest_ = Nearest::kFloor;
      else if (nearest == "ceil")
        nearest_ = Nearest::kCeil;
      else
        PRISM_THROW(kInvalidArgument, node.Describe(), ": nearest_mode '", nearest,
                    "' is not supported");
    }
    cubic_a_ = info.FloatOr("cubic_coeff_a", -0.75f);
    exclude_outside_ = info.IntOr("exclude_outside", 0) != 0;
    extrapolation_ = info.FloatOr("extrapolation_value", 0.0f);
    antialias_ = info.IntOr("antialias", 0) != 0;
    PRISM_ENFORCE(!antialias_ || mode_ != Mode::kNearest, kInvalidArgument, node.Describe(),
                  ": antialias applies to linear and cubic modes only");
    const std::string policy = info.StringOr("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch")
      policy_ = AspectPolicy::kStretch;
    else if (policy == "not_larger")
      policy_ = AspectPolicy::kNotLarger;
    else if (policy == "not_smaller")
      policy_ = AspectPolicy::kNotSmaller;
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": keep_aspect_ratio_policy '", policy,
                  "' is not stretch, not_larger or not_smaller");
    if (info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
    if (upsample_ && opset_ < 9) {
      if (info.HasAttr("scales")) {
        for (float s : info.Floats("scales")) scales_attr_.push_back(s);
      } else if (opset_ < 7) {  // Upsample-1: NCHW height and width scales
        scales_attr_ = {1.0, 1.0, info.FloatOr("height_scale", 1.0f),
                        info.FloatOr("width_scale", 1.0f)};
      }
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const size_t rank = shape.Rank();
    const int64_t r = static_cast<int64_t>(rank);

    // The inputs by opset: Upsample-7 (attribute), Upsample-9/Resize-10 (X, scales),
    // Resize-11+ (X, roi, scales, sizes).
    std::vector<double> scales = scales_attr_;
    std::vector<int64_t> sizes;
    std::vector<double> roi;
    const Tensor* scales_tensor = nullptr;
    if (legacy_ && !(upsample_ && opset_ < 9)) scales_tensor = &context.RequiredInput(1);
    if (!legacy_) {
      if (const Tensor* t = context.Input(1)) roi = AsDoubles(*t);
      scales_tensor = context.Input(2);
      if (const Tensor* t = context.Input(3))
        sizes = ReadIntList(*t, node.Describe() + " input 'sizes'");
    }
    if (scales_tensor != nullptr) scales = AsDoubles(*scales_tensor);
    PRISM_ENFORCE(scales.empty() != sizes.empty(), kInvalidArgument, node.Describe(),
                  scales.empty() ? ": needs 'scales' or 'sizes'"
                                 : ": give either 'scales' or 'sizes', not both");

    std::vector<size_t> axes;
    if (axes_attr_.empty()) {
      for (size_t d = 0; d < rank; ++d) axes.push_back(d);
    } else {
      std::vector<bool> seen(rank, false);
      for (int64_t axis : axes_attr_) {
        PRISM_ENFORCE(axis >= -r && axis < r, kInvalidArgument, node.Describe(), ": axis ", axis,
                      " is out of range [", -r, ", ", r - 1, "] for input of shape ",
                      shape.ToString());
        const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
        PRISM_ENFORCE(!seen[a], kInvalidArgument, node.Describe(), ": axis ", axis,
                      " is given more than once");
        seen[a] = true;
        axes.push_back(a);
      }
    }
    const size_t given = scales.empty() ? sizes.size() : scales.size();
    PRISM_ENFORCE(given == axes.size(), kInvalidArgument, node.Describe(), ": '",
                  scales.empty() ? "sizes" : "scales", "' has ", given, " entries but ",
                  axes.size(), " are needed for input of shape ", shape.ToString());

    std::vector<double> axis_scale(rank, 1.0);
    std::vector<int64_t> out_dims = shape.Dims();
    if (!scales.empty()) {
      for (size_t i = 0; i < axes.size(); ++i) {
        PRISM_ENFORCE(scales[i] > 0, kInvalidArgument, node.Describe(), ": scale ", scales[i],
                      " for axis ", axes[i], " must be positive");
        axis_scale[axes[i]] = scales[i];
        // Scales come from an input: the size they give must be a dim (the fuzzer fed 3.4e38).
        const double size = std::floor(scales[i] * static_cast<double>(shape[axes[i]]));
        PRISM_ENFORCE(size <= static_cast<double>(int64_t{1} << 62), kInvalidArgument,
                      node.Describe(), ": scale ", scales[i], " for axis ", axes[i],
                      " makes an output dim of ", size, " from ", shape[axes[i]]);
        out_dims[axes[i]] = static_cast<int64_t>(size);
      }
    } else {
      for (size_t i = 0; i < axes.size(); ++i) {
        PRISM_ENFORCE(sizes[i] >= 0, kInvalidArgument, node.Describe(), ": size ", sizes[i],
                      " for axis ", axes[i], " is negative");
        PRISM_ENFORCE(shape[axes[i]] > 0 || sizes[i] == 0, kInvalidArgument, node.Describe(),
                      ": cannot resize empty axis ", axes[i], " to ", sizes[i]);
        axis_scale[axes[i]] =
            shape[axes[i]] > 0 ? static_cast<double>(sizes[i]) / static_cast<double>(shape[axes[i]])
                               : 1.0;
        out_dims[axes[i]] = sizes[i];
      }
      if (policy_ != AspectPolicy::kStretch) {
        double scale =
            policy_ == AspectPolicy::kNotLarger ? std::numeric_limits<double>::max() : 0.0;
        for (size_t a : axes)
          scale = policy_ == AspectPolicy::kNotLarger ? std::min(scale, axis_scale[a])
                                                      : std::max(scale, axis_scale[a]);
        for (size_t a : axes) {
          axis_scale[a] = scale;
          const double size = scale * static_cast<double>(shape[a]) + 0.5;
          PRISM_ENFORCE(size <= static_cast<double>(int64_t{1} << 62), kInvalidArgument,
                        node.Describe(), ": sizes keep the aspect ratio with scale ", scale,
                        ", which makes axis ", a, " of ", shape[a], " an output dim of ", size);
          out_dims[a] = static_cast<int64_t>(size);
        }
      }
    }

    // roi: [starts..., ends...] for the given axes (or all), defaults 0 and 1.
    std::vector<double> roi_start(rank, 0.0), roi_end(rank, 1.0);
    if (transform_ == Transform::kTfCropAndResize) {
      PRISM_ENFORCE(roi.size() == 2 * axes.size(), kInvalidArgument, node.Describe(),
                    ": tf_crop_and_resize needs 'roi' with ", 2 * axes.size(), " entries, got ",
                    roi.size());
      for (size_t i = 0; i < axes.size(); ++i) {
        roi_start[axes[i]] = roi[i];
        roi_end[axes[i]] = roi[i + axes.size()];
      }
    }

    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    if (y.NumElements() == 0) return;
    PRISM_ENFORCE(x.NumElements() > 0, kInvalidArgument, node.Describe(),
                  ": cannot resize the empty input ", shape.ToString(), " to ",
                  y.Shape().ToString());
    std::vector<AxisPlan> plans(rank);
    for (size_t a = 0; a < rank; ++a)
      plans[a] = PlanAxis(shape[a], out_dims[a], axis_scale[a], roi_start[a], roi_end[a]);
    if (mode_ == Mode::kNearest)
      GatherNearest(x, y, plans);
    else
      Interpolate(x, y, plans, context.IntraOpThreadPool());
  }

 private:
  static std::vector<double> AsDoubles(const Tensor& tensor) {
    Tensor as_double(ElementType::kDouble, tensor.Shape(), GetCpuAllocator());
    CastElements(tensor, as_double, CastOptions{});
    const double* data = as_double.Data<double>();
    return std::vector<double>(data, data + as_double.NumElements());
  }

  double SourceCoordinate(int64_t j, int64_t in, int64_t out, double scale, double start,
                          double end, bool* extrapolated) const {
    const double y = static_cast<double>(j);
    const double out_width = scale * static_cast<double>(in);
    const double in_width = static_cast<double>(in);
    switch (transform_) {
      case Transform::kAlignCorners:
        return out_width == 1 ? 0.0 : y * (in_width - 1) / (out_width - 1);
      case Transform::kAsymmetric:
        return y / scale;
      case Transform::kTfCropAndResize: {
        double x = out_width == 1 ? (end - start) * (in_width - 1) / 2
                                  : y * (end - start) * (in_width - 1) / (out_width - 1);
        x += start * (in_width - 1);
        *extrapolated = !(x >= 0 && x <= in_width - 1);  // NaN (from a NaN roi) too
        return x;
      }
      case Transform::kPytorchHalfPixel:
        return out_width == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
      case Transform::kHalfPixelSymmetric: {
        const double adjustment = static_cast<double>(out) / out_width;
        const double offset = in_width / 2 * (1 - adjustment);
        return offset + (y + 0.5) / scale - 0.5;
      }
      case Transform::kHalfPixel:
        break;
    }
    return (y + 0.5) / scale - 0.5;
  }

  AxisPlan PlanAxis(int64_t in, int64_t out, double scale, double start, double end) const {
    AxisPlan plan;
    plan.in = in;
    plan.out = out;
    plan.extrapolated.assign(static_cast<size_t>(out), false);
    // Identity (as the reference decides it: a scale within rounding of 1, same size, full roi).
    if (out == in && std::fabs(scale - 1.0) <= 1e-9 && start == 0.0 && end == 1.0) {
      plan.taps = 1;
      for (int64_t j = 0; j < out; ++j) {
        plan.index.push_back(j);
        plan.weight.push_back(1.0);
      }
      return plan;
    }
    const double filter_scale = antialias_ ? std::min(scale, 1.0) : 1.0;
    if (mode_ == Mode::kNearest) {
      plan.taps = 1;
    } else {
      const double support = mode_ == Mode::kLinear ? 1 : 2;
      const double taps =
          antialias_ ? 2 - 2 * (std::floor(-support / filter_scale) + 1) : 2 * support;
      // A tiny scale (from an input) widens the antialiasing filter without bound.
      PRISM_ENFORCE(taps <= kMaxTaps, kInvalidArgument, "scale ", scale,
                    " needs an antialiasing "
                    "filter of ",
                    taps, " taps per output element (at most ", kMaxTaps, ")");
      plan.taps = static_cast<int64_t>(taps);
    }
    for (int64_t j = 0; j < out; ++j) {
      bool extrapolated = false;
      double x = SourceCoordinate(j, in, out, scale, start, end, &extrapolated);
      // Far outside the input (a hostile roi), every tap reads the edge or is excluded: clamping
      // there keeps the result and makes the index conversions below defined. NaN reads index 0.
      const double margin = static_cast<double>(plan.taps) + 2;
      x = std::isnan(x) ? 0.0 : std::clamp(x, -margin, static_cast<double>(in) + margin);
      plan.extrapolated[static_cast<size_t>(j)] = extrapolated;
      const double x0 = std::floor(x);
      const bool integral = x == x0;
      const double ratio = integral ? 1.0 : x - x0;
      if (mode_ == Mode::kNearest) {
        double pick = x;
        if (!integral) {
          switch (nearest_) {
            case Nearest::kRoundPreferFloor:
              pick = ratio <= 0.5 ? x0 : x0 + 1;
              break;
            case Nearest::kRoundPreferCeil:
              pick = ratio < 0.5 ? x0 : x0 + 1;
              break;
            case Nearest::kFloor:
              pick = x0;
              break;
            case Nearest::kCeil:
              pick = x0 + 1;
              break;
            case Nearest::kLegacy:
              pick = scale < 1 ? std::ceil(x) : x0;
              break;
          }
        }
        plan.index.push_back(std::clamp<int64_t>(static_cast<int64_t>(pick), 0, in - 1));
        plan.weight.push_back(1.0);
        continue;
      }
      // An even window of taps: starting at x0 - taps/2 + 1, one earlier when x is integral
      // (the tap at x0 then gets the full weight through ratio = 1).
      const int64_t half = plan.taps / 2;
      const int64_t first = static_cast<int64_t>(x0) - half + (integral ? 0 : 1);
      std::vector<double> w(static_cast<size_t>(plan.taps));
      for (int64_t k = 0; k < plan.taps; ++k) {
        const double distance = static_cast<double>(k - half + 1) - ratio;  // tap - x
        if (mode_ == Mode::kLinear)
          w[static_cast<size_t>(k)] =
              antialias_ ? std::clamp(1 - std::fabs(distance * filter_scale), 0.0, 1.0)
                         : std::max(0.0, 1 - std::fabs(distance));
        else
          w[static_cast<size_t>(k)] = CubicWeight(distance * filter_scale, cubic_a_);
      }
      if (antialias_) {
        double sum = 0;
        for (double v : w) sum += v;
        for (double& v : w) v /= sum;
      }
      if (exclude_outside_) {
        double sum = 0;
        for (int64_t k = 0; k < plan.taps; ++k) {
          const int64_t idx = first + k;
          if (idx < 0 || idx >= in) w[static_cast<size_t>(k)] = 0;
          sum += w[static_cast<size_t>(k)];
        }
        if (sum != 0)
          for (double& v : w) v /= sum;
      }
      for (int64_t k = 0; k < plan.taps; ++k) {
        plan.index.push_back(std::clamp<int64_t>(first + k, 0, in - 1));
        plan.weight.push_back(w[static_cast<size_t>(k)]);
      }
    }
    return plan;
  }

  // The extrapolation value as one element of type `type`.
  Tensor ExtrapolationElement(ElementType type) const {
    Tensor value(ElementType::kDouble, TensorShape({1}), GetCpuAllocator());
    value.MutableData<double>()[0] = extrapolation_;
    Tensor typed(type, TensorShape({1}), GetCpuAllocator());
    CastElements(value, typed, CastOptions{});
    return typed;
  }

  void GatherNearest(const Tensor& x, Tensor& y, const std::vector<AxisPlan>& plans) const {
    const size_t rank = plans.size();
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * plans[d].in;
    const bool any_extrapolated = transform_ == Transform::kTfCropAndResize;
    Tensor fill = any_extrapolated ? ExtrapolationElement(x.Type()) : Tensor();
    DispatchByStorageUnit(x.Type(), GetNode().Describe(), [&](auto* unit) {
      using U = std::remove_pointer_t<decltype(unit)>;
      const U* in = static_cast<const U*>(x.RawData());
      U* out = static_cast<U*>(y.MutableRawData());
      const U* fill_value = any_extrapolated ? static_cast<const U*>(fill.RawData()) : nullptr;
      std::vector<int64_t> index(rank, 0);
      const int64_t total = y.NumElements();
      for (int64_t i = 0; i < total; ++i) {
        int64_t source = 0;
        bool outside = false;
        for (size_t d = 0; d < rank; ++d) {
          const size_t j = static_cast<size_t>(index[d]);
          source += plans[d].index[j] * strides[d];
          outside = outside || plans[d].extrapolated[j];
        }
        out[i] = outside ? *fill_value : in[source];
        for (size_t d = rank; d-- > 0;) {
          if (++index[d] < plans[d].out) break;
          index[d] = 0;
        }
      }
    });
  }

  void Interpolate(const Tensor& x, Tensor& y, const std::vector<AxisPlan>& plans,
                   ThreadPool* pool) const {
    const ElementType type = x.Type();
    const bool numeric = type == ElementType::kFloat || type == ElementType::kDouble ||
                         type == ElementType::kFloat16 || type == ElementType::kBFloat16 ||
                         IsSignedInteger(type) || IsUnsignedInteger(type);
    PRISM_ENFORCE(numeric, kInvalidArgument, GetNode().Describe(),
                  ": linear and cubic interpolation need numeric elements, got ",
                  ElementTypeName(type), " (use mode 'nearest')");
    Tensor current(ElementType::kDouble, x.Shape(), GetCpuAllocator());
    CastElements(x, current, CastOptions{});
    std::vector<int64_t> dims = x.Shape().Dims();
    for (size_t axis = 0; axis < plans.size(); ++axis) {
      const AxisPlan& plan = plans[axis];
      const bool identity = plan.taps == 1 && plan.in == plan.out;
      if (identity) continue;
      std::vector<int64_t> next_dims = dims;
      next_dims[axis] = plan.out;
      Tensor next(ElementType::kDouble, TensorShape(next_dims), GetCpuAllocator());
      const int64_t outer = TensorShape(dims).SizeToDimension(axis);
      const int64_t inner = TensorShape(dims).SizeFromDimension(axis + 1);
      const double* src = current.Data<double>();
      double* dst = next.MutableData<double>();
      const double cost = 2.0 * static_cast<double>(plan.taps * inner);
      ThreadPool::TryParallelFor(pool, outer * plan.out, cost, [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t o = unit / plan.out, j = unit % plan.out;
          double* row = dst + unit * inner;
          if (plan.extrapolated[static_cast<size_t>(j)]) {
            std::fill(row, row + inner, extrapolation_);
            continue;
          }
          std::fill(row, row + inner, 0.0);
          for (int64_t k = 0; k < plan.taps; ++k) {
            const size_t t = static_cast<size_t>(j * plan.taps + k);
            const double w = plan.weight[t];
            if (w == 0) continue;
            const double* from = src + (o * plan.in + plan.index[t]) * inner;
            for (int64_t i = 0; i < inner; ++i) row[i] += w * from[i];
          }
        }
      });
      current = std::move(next);
      dims = std::move(next_dims);
    }
    if (IsSignedInteger(type) || IsUnsignedInteger(type)) {
      // Round half to even and saturate, as the reference's saturate_cast does.
      const double low = IsSignedInteger(type) ? -std::ldexp(1.0, ElementBits(type) - 1) : 0.0;
      const double high = IsSignedInteger(type) ? std::ldexp(1.0, ElementBits(type) - 1) - 1
                                                : std::ldexp(1.0, ElementBits(type)) - 1;
      double* values = current.MutableData<double>();
      for (int64_t i = 0; i < current.NumElements(); ++i)
        values[i] = std::clamp(std::nearbyint(values[i]), low, high);
    }
    CastElements(current, y, CastOptions{});
  }

  bool upsample_ = false;
  int opset_ = 0;
  bool legacy_ = false;
  Mode mode_ = Mode::kNearest;
  Transform transform_ = Transform::kHalfPixel;
  Nearest nearest_ = Nearest::kRoundPreferFloor;
  double cubic_a_ = -0.75;
  bool exclude_outside_ = false;
  double extrapolation_ = 0.0;
  bool antialias_ = false;
  AspectPolicy policy_ = AspectPolicy::kStretch;
  std::vector<int64_t> axes_attr_;
  std::vector<double> scales_attr_;
};

void RegisterResizeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<Resize>();
  const std::vector<E> float_types = {E::kFloat16, E::kFloat, E::kDouble};
  registry.Register(KernelDefBuilder("Resize")
                        .Versions(10, 10)
                        .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {0})
                        .CpuInput(1)
                        .Build(),
                    factory);
  for (const auto& [since, end, types] :
       {std::tuple{11, 12, G::kNoBfloat16}, std::tuple{13, 17, G::kBfloat16},
        std::tuple{18, 18, G::kBfloat16}, std::tuple{19, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Resize")
                          .Versions(since, end)
                          .Constraint("T1", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Constraint("T2", float_types, {1})
                          .CpuInput(1)
                          .CpuInput(2)
                          .CpuInput(3)
                          .Build(),
                      factory);
  }
  registry.Register(
      KernelDefBuilder("Upsample")
          .Versions(1, 6)
          .Constraint("T", {E::kBool, E::kInt32, E::kInt64, E::kFloat16, E::kFloat, E::kDouble},
                      {0}, {0})
          .Build(),
      factory);
  registry.Register(KernelDefBuilder("Upsample")
                        .Versions(7, 8)
                        .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {0})
                        .Build(),
                    factory);
  for (const auto& [since, end] : {std::pair{9, 9}, std::pair{10, INT_MAX}}) {
    registry.Register(KernelDefBuilder("Upsample")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_resize, RegisterResizeKernels);

}  // namespace prism::cpu

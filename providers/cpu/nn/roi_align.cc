// RoiAlign (opsets 10, 16, 22): for each region of interest [x1, y1, x2, y2] (scaled by
// spatial_scale) over image batch_indices[r] of X [N, C, H, W], an output_height x
// output_width grid of bins, each the average (mode avg) or maximum (mode max) of
// sampling_ratio^2 bilinear samples (adaptive: ceil(roi size / bins) per axis when 0).
// coordinate_transformation_mode half_pixel (the default from opset 16) shifts the region by
// -0.5 pixel and lets it be smaller than a pixel; output_half_pixel (opset 10's only behaviour)
// does not shift and widens regions to at least one pixel. As onnxruntime and the reference:
// a sample more than one pixel outside the image contributes 0 (it still counts in the average),
// and max mode takes the largest of the four weighted corners of each sample, not the
// interpolated value. Computed in double.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// The four corners of one bilinear sample and their weights (all zero outside the image).
struct Sample {
  int64_t corner[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
};

struct RoiAlignParams {
  bool max_mode = false;
  bool half_pixel = true;
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  double spatial_scale = 1.0;
};

Sample BilinearSample(double y, double x, int64_t height, int64_t width) {
  Sample sample;
  // Outside the image, or NaN (a region of NaN coordinates): all weights zero.
  if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 &&
        x <= static_cast<double>(width)))
    return sample;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_low = y_high = height - 1;
    y = static_cast<double>(y_low);
  }
  if (x_low >= width - 1) {
    x_low = x_high = width - 1;
    x = static_cast<double>(x_low);
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  sample.corner[0] = y_low * width + x_low;
  sample.corner[1] = y_low * width + x_high;
  sample.corner[2] = y_high * width + x_low;
  sample.corner[3] = y_high * width + x_high;
  sample.weight[0] = hy * hx;
  sample.weight[1] = hy * lx;
  sample.weight[2] = ly * hx;
  sample.weight[3] = ly * lx;
  return sample;
}

// sampling_ratio 0: ceil(extent / bins) samples per bin. A region's coordinates come from an input,
// so the extent may be NaN or astronomically large (the fuzzer found both): such a region is
// refused rather than converted to an integer out of range or sampled billions of times. A
// negative extent (half_pixel regions are not clamped) takes no samples, however large it is.
int64_t AdaptiveGrid(double extent, int64_t bins, int64_t region, const char* axis) {
  constexpr double kMaxSamplesPerBin = 1 << 16;
  const double grid = std::ceil(extent / static_cast<double>(bins));
  PRISM_ENFORCE(!std::isnan(grid), kInvalidArgument, "region ", region, " of rois has a NaN ",
                axis);
  PRISM_ENFORCE(grid <= kMaxSamplesPerBin, kInvalidArgument, "region ", region, " of rois has a ",
                axis, " of ", extent, ", which would take ", grid,
                " samples per bin with sampling_ratio 0 (at most 65536)");
  return grid <= 0 ? 0 : static_cast<int64_t>(grid);
}

template <typename T>
struct RoiAlignImpl {
  void operator()(const Tensor& x, const Tensor& rois, const std::vector<int64_t>& batch_of_roi,
                  Tensor& y, const RoiAlignParams& p, ThreadPool* pool) const {
    const int64_t channels = x.Shape()[1], height = x.Shape()[2], width = x.Shape()[3];
    const int64_t roi_count = rois.Shape()[0];
    const T* data = x.Data<T>();
    const T* boxes = rois.Data<T>();
    T* out = y.MutableData<T>();
    const double offset = p.half_pixel ? 0.5 : 0.0;
    const double cost = static_cast<double>(channels * p.out_h * p.out_w * 16);
    ThreadPool::TryParallelFor(pool, roi_count, cost, [&](int64_t begin, int64_t end) {
      std::vector<Sample> samples;
      for (int64_t r = begin; r < end; ++r) {
        const double start_w = ToDouble(boxes[r * 4 + 0]) * p.spatial_scale - offset;
        const double start_h = ToDouble(boxes[r * 4 + 1]) * p.spatial_scale - offset;
        double roi_w = ToDouble(boxes[r * 4 + 2]) * p.spatial_scale - offset - start_w;
        double roi_h = ToDouble(boxes[r * 4 + 3]) * p.spatial_scale - offset - start_h;
        if (!p.half_pixel) {  // malformed regions become 1x1
          roi_w = std::max(roi_w, 1.0);
          roi_h = std::max(roi_h, 1.0);
        }
        const double bin_h = roi_h / static_cast<double>(p.out_h);
        const double bin_w = roi_w / static_cast<double>(p.out_w);
        const int64_t grid_h =
            p.sampling_ratio > 0 ? p.sampling_ratio : AdaptiveGrid(roi_h, p.out_h, r, "height");
        const int64_t grid_w =
            p.sampling_ratio > 0 ? p.sampling_ratio : AdaptiveGrid(roi_w, p.out_w, r, "width");
        const int64_t per_bin = std::max<int64_t>(grid_h, 0) * std::max<int64_t>(grid_w, 0);
        const double count = static_cast<double>(std::max<int64_t>(per_bin, 1));
        // The samples are the same for every channel.
        samples.clear();
        for (int64_t ph = 0; ph < p.out_h; ++ph)
          for (int64_t pw = 0; pw < p.out_w; ++pw)
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const double sy =
                  start_h + static_cast<double>(ph) * bin_h +
                  (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const double sx =
                    start_w + static_cast<double>(pw) * bin_w +
                    (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
                samples.push_back(BilinearSample(sy, sx, height, width));
              }
            }
        for (int64_t c = 0; c < channels; ++c) {
          const T* plane = data + (batch_of_roi[r] * channels + c) * height * width;
          T* out_plane = out + (r * channels + c) * p.out_h * p.out_w;
          const Sample* sample = samples.data();
          for (int64_t bin = 0; bin < p.out_h * p.out_w; ++bin) {
            double value = 0.0;
            for (int64_t s = 0; s < per_bin; ++s, ++sample) {
              if (p.max_mode) {
                double largest = sample->weight[0] * ToDouble(plane[sample->corner[0]]);
                for (int k = 1; k < 4; ++k)
                  largest =
                      std::max(largest, sample->weight[k] * ToDouble(plane[sample->corner[k]]));
                value = s == 0 ? largest : std::max(value, largest);
              } else {
                for (int k = 0; k < 4; ++k)
                  value += sample->weight[k] * ToDouble(plane[sample->corner[k]]);
              }
            }
            out_plane[bin] = FromCompute<T>(p.max_mode ? value : value / count);
          }
        }
      }
    });
  }
};

class RoiAlign final : public OpKernel {
 public:
  explicit RoiAlign(const OpKernelInfo& info) : OpKernel(info) {
    const std::string node = GetNode().Describe();
    const std::string mode = info.StringOr("mode", "avg");
    PRISM_ENFORCE(mode == "avg" || mode == "max", kInvalidArgument, node, ": mode '", mode,
                  "' is not avg or max");
    params_.max_mode = mode == "max";
    // Opset 10 has no coordinate_transformation_mode: its regions are not shifted.
    const std::string transform =
        info.StringOr("coordinate_transformation_mode",
                      info.GetNode().OpsetVersion() >= 16 ? "half_pixel" : "output_half_pixel");
    PRISM_ENFORCE(transform == "half_pixel" || transform == "output_half_pixel", kInvalidArgument,
                  node, ": coordinate_transformation_mode '", transform,
                  "' is not half_pixel or output_half_pixel");
    params_.half_pixel = transform == "half_pixel";
    params_.out_h = info.IntOr("output_height", 1);
    params_.out_w = info.IntOr("output_width", 1);
    params_.sampling_ratio = info.IntOr("sampling_ratio", 0);
    params_.spatial_scale = info.FloatOr("spatial_scale", 1.0f);
    PRISM_ENFORCE(params_.out_h >= 1 && params_.out_w >= 1 && params_.sampling_ratio >= 0,
                  kInvalidArgument, node, ": output_height ", params_.out_h, " and output_width ",
                  params_.out_w, " must be positive, sampling_ratio ", params_.sampling_ratio,
                  " not negative");
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& rois = context.RequiredInput(1);
    const Tensor& batch_indices = context.RequiredInput(2);
    PRISM_ENFORCE(x.Shape().Rank() == 4, kInvalidArgument, node, ": X must be [N, C, H, W], got ",
                  x.Shape().ToString());
    PRISM_ENFORCE(rois.Type() == x.Type(), kInvalidArgument, node, ": rois must be ",
                  ElementTypeName(x.Type()), " as X, got ", ElementTypeName(rois.Type()));
    PRISM_ENFORCE(rois.Shape().Rank() == 2 && rois.Shape()[1] == 4, kInvalidArgument, node,
                  ": rois must be [num_rois, 4], got ", rois.Shape().ToString());
    const int64_t roi_count = rois.Shape()[0];
    PRISM_ENFORCE(batch_indices.Shape().Rank() == 1 && batch_indices.Shape()[0] == roi_count,
                  kInvalidArgument, node, ": batch_indices must be [", roi_count, "], got ",
                  batch_indices.Shape().ToString());
    std::vector<int64_t> batch_of_roi(static_cast<size_t>(roi_count));
    for (int64_t r = 0; r < roi_count; ++r) {
      batch_of_roi[r] = batch_indices.Data<int64_t>()[r];
      PRISM_ENFORCE(batch_of_roi[r] >= 0 && batch_of_roi[r] < x.Shape()[0], kInvalidArgument, node,
                    ": batch_indices[", r, "] = ", batch_of_roi[r], " is outside X's batch of ",
                    x.Shape()[0]);
    }
    Tensor& y = context.Output(
        0, TensorShape({roi_count, x.Shape()[1], params_.out_h, params_.out_w}), x.Type());
    if (y.NumElements() == 0) return;
    PRISM_ENFORCE(x.Shape()[2] > 0 && x.Shape()[3] > 0, kInvalidArgument, node, ": X ",
                  x.Shape().ToString(), " has an empty image to sample");
    DispatchByType<RoiAlignImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), node, x, rois, batch_of_roi, y, params_, context.IntraOpThreadPool());
  }

 private:
  RoiAlignParams params_;
};

void RegisterRoiAlignKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const auto add = [&](int since, int end, std::vector<E> types) {
    registry.Register(KernelDefBuilder("RoiAlign")
                          .Versions(since, end)
                          .Constraint("T1", std::move(types), {0, 1}, {0})
                          .Constraint("T2", {E::kInt64}, {2})
                          .Build(),
                      MakeKernelFactory<RoiAlign>());
  };
  add(10, 15, classic);
  add(16, 21, classic);
  add(22, INT_MAX, {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_roi_align, RegisterRoiAlignKernels);

}  // namespace prism::cpu

// NonMaxSuppression (opsets 10, 11): per batch and class, boxes scoring above score_threshold
// (when given) are taken in descending score order (ties: the lower box index first), and a box
// is kept unless its IoU with a box already kept exceeds iou_threshold, up to
// max_output_boxes_per_class (default 0: none). Boxes are [y1, x1, y2, x2] with the corners in
// either order (center_point_box 0) or [x_center, y_center, width, height] (1). The output lists
// [batch, class, box] rows in that order, shape [selected, 3].
#include <algorithm>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

struct Corners {
  float y_min, x_min, y_max, x_max;
};

Corners CornersOf(const float* box, bool center_point) {
  if (center_point) {
    const float half_width = box[2] / 2, half_height = box[3] / 2;
    return {box[1] - half_height, box[0] - half_width, box[1] + half_height, box[0] + half_width};
  }
  return {std::min(box[0], box[2]), std::min(box[1], box[3]), std::max(box[0], box[2]),
          std::max(box[1], box[3])};
}

// Whether b suppresses a: their intersection over union exceeds the threshold (boxes without
// area, or without overlap, never suppress).
bool Suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float x_min = std::max(a.x_min, b.x_min), x_max = std::min(a.x_max, b.x_max);
  const float y_min = std::max(a.y_min, b.y_min), y_max = std::min(a.y_max, b.y_max);
  if (x_max <= x_min || y_max <= y_min) return false;
  const float intersection = (x_max - x_min) * (y_max - y_min);
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float union_area = area_a + area_b - intersection;
  if (intersection <= 0 || area_a <= 0 || area_b <= 0 || union_area <= 0) return false;
  return intersection / union_area > iou_threshold;
}

class NonMaxSuppression final : public OpKernel {
 public:
  explicit NonMaxSuppression(const OpKernelInfo& info)
      : OpKernel(info), center_point_(info.IntOr("center_point_box", 0)) {
    PRISM_ENFORCE(center_point_ == 0 || center_point_ == 1, kInvalidArgument,
                  info.GetNode().Describe(), ": center_point_box ", center_point_,
                  " is not 0 or 1");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& boxes = context.RequiredInput(0);
    const Tensor& scores = context.RequiredInput(1);
    PRISM_ENFORCE(boxes.Shape().Rank() == 3 && boxes.Shape()[2] == 4, kInvalidArgument,
                  node.Describe(), ": boxes must be [batches, boxes, 4], got ",
                  boxes.Shape().ToString());
    const int64_t batches = boxes.Shape()[0], count = boxes.Shape()[1];
    PRISM_ENFORCE(
        scores.Shape().Rank() == 3 && scores.Shape()[0] == batches && scores.Shape()[2] == count,
        kInvalidArgument, node.Describe(), ": scores must be [", batches, ", classes, ", count,
        "], got ", scores.Shape().ToString());
    const int64_t classes = scores.Shape()[1];
    const auto scalar = [&](size_t index, const char* name) -> const Tensor* {
      const Tensor* t = context.Input(index);
      if (t == nullptr || t->NumElements() == 0) return nullptr;
      PRISM_ENFORCE(t->NumElements() == 1, kInvalidArgument, node.Describe(), ": input '", name,
                    "' must hold one value, got shape ", t->Shape().ToString());
      return t;
    };
    const Tensor* max_tensor = scalar(2, "max_output_boxes_per_class");
    const Tensor* iou_tensor = scalar(3, "iou_threshold");
    const Tensor* score_tensor = scalar(4, "score_threshold");
    const int64_t max_per_class =
        max_tensor != nullptr ? std::max<int64_t>(0, max_tensor->Data<int64_t>()[0]) : 0;
    const float iou_threshold = iou_tensor != nullptr ? iou_tensor->Data<float>()[0] : 0.0f;
    PRISM_ENFORCE(iou_threshold >= 0 && iou_threshold <= 1, kInvalidArgument, node.Describe(),
                  ": iou_threshold ", iou_threshold, " is outside [0, 1]");

    std::vector<int64_t> selected;  // batch, class, box triples
    const float* box_data = boxes.Data<float>();
    const float* score_data = scores.Data<float>();
    std::vector<Corners> corners(static_cast<size_t>(count));
    std::vector<int64_t> order;
    std::vector<int64_t> kept;
    for (int64_t b = 0; b < batches && max_per_class > 0; ++b) {
      for (int64_t i = 0; i < count; ++i)
        corners[i] = CornersOf(box_data + (b * count + i) * 4, center_point_ == 1);
      for (int64_t c = 0; c < classes; ++c) {
        const float* class_scores = score_data + (b * classes + c) * count;
        order.clear();
        for (int64_t i = 0; i < count; ++i)
          if (score_tensor == nullptr || class_scores[i] > score_tensor->Data<float>()[0])
            order.push_back(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t x, int64_t y) { return class_scores[x] > class_scores[y]; });
        kept.clear();
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
          bool keep = true;
          for (int64_t k : kept)
            if (Suppresses(corners[i], corners[k], iou_threshold)) {
              keep = false;
              break;
            }
          if (!keep) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
    Tensor& out = context.Output(0, TensorShape({static_cast<int64_t>(selected.size() / 3), 3}),
                                 ElementType::kInt64);
    std::copy(selected.begin(), selected.end(), out.MutableData<int64_t>());
  }

 private:
  int64_t center_point_;
};

void RegisterNonMaxSuppressionKernels(KernelRegistry& registry) {
  const auto factory = MakeKernelFactory<NonMaxSuppression>();
  for (const auto& [since, end] : {std::pair{10, 10}, std::pair{11, INT_MAX}})
    registry.Register(KernelDefBuilder("NonMaxSuppression")
                          .Versions(since, end)
                          .CpuInput(2)
                          .CpuInput(3)
                          .CpuInput(4)
                          .Build(),
                      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_non_max_suppression, RegisterNonMaxSuppressionKernels);

}  // namespace prism::cpu

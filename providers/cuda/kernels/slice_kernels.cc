// Slice (negative axes and steps, bounds clamped as the spec says), by element size: one strided
// copy whose input strides are the steps. starts/ends/axes/steps are read in CPU memory (opset
// 10+) or from the attributes (1-9).
#include <algorithm>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

class SliceKernel final : public OpKernel {
 public:
  explicit SliceKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        from_attributes_(info.GetNode().OpsetVersion() < 10) {
    if (from_attributes_) {
      starts_ = info.Ints("starts");
      ends_ = info.Ints("ends");
      axes_ = info.IntsOr("axes", {});
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    PRISM_ENFORCE(rank <= kMaxCopyRank, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider slices up to rank ", kMaxCopyRank, ", got ",
                  input.Shape().ToString());
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!from_attributes_) {
      const std::string what = GetNode().Describe();
      starts = ReadHostInts(context.RequiredInput(1), what + " starts");
      ends = ReadHostInts(context.RequiredInput(2), what + " ends");
      if (const Tensor* given = context.Input(3)) axes = ReadHostInts(*given, what + " axes");
      if (const Tensor* given = context.Input(4)) steps = ReadHostInts(*given, what + " steps");
    }
    PRISM_ENFORCE(starts.size() == ends.size(), kInvalidArgument, GetNode().Describe(), ": ",
                  starts.size(), " starts but ", ends.size(), " ends");
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    PRISM_ENFORCE(axes.size() == starts.size() && steps.size() == starts.size(), kInvalidArgument,
                  GetNode().Describe(), ": starts, ends, axes and steps differ in length");

    std::vector<int64_t> first(dims.size(), 0), step(dims.size(), 1), out_dims = dims;
    std::vector<bool> seen(dims.size(), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t axis = static_cast<size_t>(HandleNegativeAxis(axes[i], rank, "Slice axis"));
      PRISM_ENFORCE(!seen[axis], kInvalidArgument, GetNode().Describe(), ": axis ", axes[i],
                    " is given more than once");
      seen[axis] = true;
      PRISM_ENFORCE(steps[i] != 0, kInvalidArgument, GetNode().Describe(), ": step 0 for axis ",
                    axes[i]);
      const int64_t dim = dims[axis];
      int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
      int64_t count = 0;
      if (steps[i] > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        count = end > start ? (end - start + steps[i] - 1) / steps[i] : 0;
      } else {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        count = start > end ? (start - end - steps[i] - 1) / -steps[i] : 0;
      }
      first[axis] = count > 0 ? start : 0;
      step[axis] = steps[i];
      out_dims[axis] = count;
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    const std::vector<int64_t> in_strides = ContiguousStrides(dims);
    const std::vector<int64_t> out_strides = ContiguousStrides(out_dims);
    StridedCopy copy;
    copy.rank = static_cast<int>(rank);
    for (size_t d = 0; d < dims.size(); ++d) {
      copy.dims[d] = out_dims[d];
      copy.in_strides[d] = in_strides[d] * step[d];
      copy.out_strides[d] = out_strides[d];
      copy.in_offset += first[d] * in_strides[d];
    }
    RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(), copy, provider_,
                   GetNode());
  }

 private:
  const CudaExecutionProvider& provider_;
  bool from_attributes_;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

void RegisterSliceKernels(KernelRegistry& registry) {
  auto factory = [](const OpKernelInfo& info) { return std::make_unique<SliceKernel>(info); };
  registry.Register(
      KernelDefBuilder("Slice").Versions(1, 9).Constraint("T", MovableTypes(), {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("Slice")
          .Versions(10)
          .Constraint("T", MovableTypes(), {0}, {0})
          .Constraint("Tind", {ElementType::kInt32, ElementType::kInt64}, {1, 2, 3, 4})
          .CpuInput(1)
          .CpuInput(2)
          .CpuInput(3)
          .CpuInput(4)
          .Build(),
      factory);
}

std::string SliceDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "Slice") return "";
  return RankDeclineReason(node, kMaxCopyRank);
}

}  // namespace prism::cuda

// Slice: numpy-style basic slicing. Opset 1 takes starts/ends/axes as attributes; opset 10+
// takes starts, ends and the optional axes and steps as int32/int64 inputs. Per the spec, a
// start or end below zero counts from the end of its axis, and both are then clamped: to
// [0, dim] for a positive step, to [0, dim - 1] (start) and [-1, dim - 1] (end) for a negative
// one. Every element type moves by its storage (element_copy.h).
#include <algorithm>
#include <climits>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

// One axis of the slice: the first source index, the step, and how many indices are taken.
struct AxisSlice {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

AxisSlice ClampAxis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  AxisSlice slice;
  slice.step = step;
  if (dim == 0) return slice;  // nothing to take (and the negative-step range would be empty)
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    // 1 + (span - 1) / step: the textbook ceil division (span + step - 1) / step overflows for a
    // step near INT64_MAX (the fuzzer found it), and -step below does for INT64_MIN.
    slice.count = end > start ? 1 + (end - start - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    slice.count = start > end ? static_cast<int64_t>(1 + static_cast<__int128>(start - end - 1) /
                                                             -static_cast<__int128>(step))
                              : 0;
  }
  slice.start = start;
  // One element or none: the step is never taken. Setting it to 1 keeps the copy's odometer from
  // multiplying a huge step by a stride (the fuzzer's step INT64_MAX).
  if (slice.count <= 1) slice.step = 1;
  return slice;
}

class Slice final : public OpKernel {
 public:
  explicit Slice(const OpKernelInfo& info)
      : OpKernel(info), from_inputs_(info.GetNode().OpsetVersion() >= 10) {
    if (!from_inputs_) {
      starts_attr_ = info.Ints("starts");
      ends_attr_ = info.Ints("ends");
      if (info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const TensorShape& shape = data.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    std::vector<int64_t> starts = starts_attr_, ends = ends_attr_, axes = axes_attr_, steps;
    if (from_inputs_) {
      starts = ReadIntList(context.RequiredInput(1), node.Describe() + " input 'starts'");
      ends = ReadIntList(context.RequiredInput(2), node.Describe() + " input 'ends'");
      if (const Tensor* t = context.Input(3))
        axes = ReadIntList(*t, node.Describe() + " input 'axes'");
      if (const Tensor* t = context.Input(4))
        steps = ReadIntList(*t, node.Describe() + " input 'steps'");
    }
    PRISM_ENFORCE(starts.size() == ends.size(), kInvalidArgument, node.Describe(),
                  ": 'starts' has ", starts.size(), " entries but 'ends' has ", ends.size());
    if (axes.empty()) {
      PRISM_ENFORCE(static_cast<int64_t>(starts.size()) <= rank, kInvalidArgument, node.Describe(),
                    ": ", starts.size(), " starts given for input of rank ", rank);
      for (size_t a = 0; a < starts.size(); ++a) axes.push_back(static_cast<int64_t>(a));
    }
    PRISM_ENFORCE(axes.size() == starts.size(), kInvalidArgument, node.Describe(), ": 'axes' has ",
                  axes.size(), " entries but 'starts' has ", starts.size());
    if (steps.empty()) steps.assign(starts.size(), 1);
    PRISM_ENFORCE(steps.size() == starts.size(), kInvalidArgument, node.Describe(),
                  ": 'steps' has ", steps.size(), " entries but 'starts' has ", starts.size());

    std::vector<AxisSlice> slices(shape.Rank());
    std::vector<bool> seen(shape.Rank(), false);
    for (size_t d = 0; d < shape.Rank(); ++d) slices[d] = {0, 1, shape[d]};
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i];
      PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ",
                    axis, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                    shape.ToString());
      const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      PRISM_ENFORCE(!seen[a], kInvalidArgument, node.Describe(), ": axis ", axis,
                    " is given more than once");
      seen[a] = true;
      PRISM_ENFORCE(steps[i] != 0, kInvalidArgument, node.Describe(), ": step for axis ", axis,
                    " is 0");
      slices[a] = ClampAxis(starts[i], ends[i], steps[i], shape[a]);
    }

    std::vector<int64_t> out_dims;
    for (const AxisSlice& s : slices) out_dims.push_back(s.count);
    Tensor& output = context.Output(0, TensorShape(out_dims), data.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);

    // Trailing axes taken whole with step 1 form one contiguous block with the last sliced axis
    // (when its step is 1 too), so each copy moves as many elements as possible.
    size_t last = shape.Rank();
    int64_t block = 1;
    while (last > 0 && slices[last - 1].start == 0 && slices[last - 1].step == 1 &&
           slices[last - 1].count == shape[last - 1]) {
      block *= shape[last - 1];
      --last;
    }
    std::vector<int64_t> strides(shape.Rank(), 1);
    for (size_t d = shape.Rank(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    int64_t run = block;  // elements per copy
    size_t walk = last;   // axes walked by the odometer
    if (last > 0 && slices[last - 1].step == 1) {
      run *= slices[last - 1].count;
      --walk;
    }
    int64_t source = 0;
    for (size_t d = 0; d < last; ++d) source += slices[d].start * strides[d];
    if (walk == 0) {
      CopyElements(data, source, output, 0, run);
      return;
    }
    std::vector<int64_t> index(walk, 0);
    const int64_t copies = output.NumElements() / run;
    for (int64_t c = 0; c < copies; ++c) {
      CopyElements(data, source, output, c * run, run);
      for (size_t a = walk; a-- > 0;) {
        source += slices[a].step * strides[a];
        if (++index[a] < slices[a].count) break;
        source -= slices[a].step * strides[a] * slices[a].count;
        index[a] = 0;
      }
    }
  }

 private:
  bool from_inputs_;
  std::vector<int64_t> starts_attr_, ends_attr_, axes_attr_;
};

void RegisterSliceKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<Slice>();
  registry.Register(KernelDefBuilder("Slice")
                        .Versions(1, 9)
                        .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {0})
                        .Build(),
                    factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r : {Range{10, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16},
                         Range{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Slice")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Constraint("Tind", {E::kInt32, E::kInt64}, {1, 2, 3, 4})
                          .CpuInput(1)
                          .CpuInput(2)
                          .CpuInput(3)
                          .CpuInput(4)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_slice, RegisterSliceKernels);

}  // namespace prism::cpu

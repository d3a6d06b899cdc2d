// Concat and Split along any axis, by element size: each input (output) is one strided copy
// into (out of) its slab of the joined tensor. Split's sizes come from input 1 (opset 13+, in CPU
// memory), the 'split' attribute (before 13), num_outputs (18+) or equal parts.
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

// A copy between a part (dims [outer, part_axis, inner], contiguous) and the whole (axis length
// whole_axis), at offset `at` along the axis. to_whole: part -> whole (Concat), else Split.
StridedCopy SlabCopy(int64_t outer, int64_t part_axis, int64_t inner, int64_t whole_axis,
                     int64_t at, bool to_whole) {
  StridedCopy copy;
  copy.rank = 3;
  copy.dims[0] = outer;
  copy.dims[1] = part_axis;
  copy.dims[2] = inner;
  const int64_t part_strides[3] = {part_axis * inner, inner, 1};
  const int64_t whole_strides[3] = {whole_axis * inner, inner, 1};
  for (int d = 0; d < 3; ++d) {
    copy.in_strides[d] = to_whole ? part_strides[d] : whole_strides[d];
    copy.out_strides[d] = to_whole ? whole_strides[d] : part_strides[d];
  }
  (to_whole ? copy.out_offset : copy.in_offset) = at * inner;
  return copy;
}

class ConcatKernel final : public OpKernel {
 public:
  explicit ConcatKernel(const OpKernelInfo& info)
      : OpKernel(info), provider_(ProviderOf(info)), axis_(info.Int("axis")) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& first = context.RequiredInput(0);
    const int64_t rank = static_cast<int64_t>(first.Shape().Rank());
    PRISM_ENFORCE(rank > 0, kInvalidArgument, GetNode().Describe(),
                  ": Concat inputs must have rank >= 1");
    const size_t axis = static_cast<size_t>(HandleNegativeAxis(axis_, rank));
    std::vector<int64_t> dims = first.Shape().Dims();
    dims[axis] = 0;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor& input = context.RequiredInput(i);
      PRISM_ENFORCE(
          input.Shape().Rank() == static_cast<size_t>(rank) && input.Type() == first.Type(),
          kInvalidArgument, GetNode().Describe(), ": input ", i, " ", input.Describe(),
          " does not match input 0 ", first.Describe());
      for (size_t d = 0; d < dims.size(); ++d)
        PRISM_ENFORCE(d == axis || input.Shape()[d] == first.Shape()[d], kInvalidArgument,
                      GetNode().Describe(), ": input ", i, " ", input.Shape().ToString(),
                      " differs from input 0 ", first.Shape().ToString(), " outside axis ", axis);
      dims[axis] += input.Shape()[axis];
    }
    Tensor& output = context.Output(0, TensorShape(dims), first.Type());
    const int64_t outer = output.Shape().SizeToDimension(axis);
    const int64_t inner = output.Shape().SizeFromDimension(axis + 1);
    int64_t at = 0;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor& input = context.RequiredInput(i);
      const int64_t part = input.Shape()[axis];
      RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(),
                     SlabCopy(outer, part, inner, dims[axis], at, true), provider_, GetNode());
      at += part;
    }
  }

 private:
  const CudaExecutionProvider& provider_;
  int64_t axis_;
};

class SplitKernel final : public OpKernel {
 public:
  explicit SplitKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        axis_(info.IntOr("axis", 0)),
        num_outputs_(info.IntOr("num_outputs", 0)) {
    if (info.GetNode().OpsetVersion() < 13 && info.HasAttr("split")) split_ = info.Ints("split");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const int64_t rank = static_cast<int64_t>(input.Shape().Rank());
    PRISM_ENFORCE(rank > 0, kInvalidArgument, GetNode().Describe(),
                  ": Split's input must have rank >= 1");
    const size_t axis = static_cast<size_t>(HandleNegativeAxis(axis_, rank));
    const int64_t length = input.Shape()[axis];
    const int64_t outputs = static_cast<int64_t>(context.OutputCount());
    std::vector<int64_t> sizes = split_;
    if (const Tensor* given = context.Input(1))
      sizes = ReadHostInts(*given, GetNode().Describe() + " split input");
    if (sizes.empty()) {
      // Equal parts; with num_outputs (18+) the last part may be smaller: ceil(length / n).
      const int64_t parts = num_outputs_ > 0 ? num_outputs_ : outputs;
      PRISM_ENFORCE(parts == outputs, kInvalidArgument, GetNode().Describe(), ": num_outputs ",
                    parts, " differs from the node's ", outputs, " outputs");
      if (num_outputs_ > 0) {
        const int64_t each = (length + parts - 1) / parts;
        for (int64_t i = 0, left = length; i < parts; ++i, left -= each)
          sizes.push_back(left < each ? (left > 0 ? left : 0) : each);
      } else {
        PRISM_ENFORCE(length % parts == 0, kInvalidArgument, GetNode().Describe(), ": axis ", axis,
                      " of ", input.Shape().ToString(), " does not split into ", parts,
                      " equal parts");
        sizes.assign(static_cast<size_t>(parts), length / parts);
      }
    }
    PRISM_ENFORCE(static_cast<int64_t>(sizes.size()) == outputs, kInvalidArgument,
                  GetNode().Describe(), ": ", sizes.size(), " split sizes for ", outputs,
                  " outputs");
    int64_t total = 0;
    for (int64_t size : sizes) {
      PRISM_ENFORCE(size >= 0, kInvalidArgument, GetNode().Describe(), ": negative split size ",
                    size);
      total += size;
    }
    PRISM_ENFORCE(total == length, kInvalidArgument, GetNode().Describe(), ": split sizes sum to ",
                  total, ", axis ", axis, " has length ", length);
    const int64_t outer = input.Shape().SizeToDimension(axis);
    const int64_t inner = input.Shape().SizeFromDimension(axis + 1);
    int64_t at = 0;
    for (size_t o = 0; o < sizes.size(); ++o) {
      std::vector<int64_t> dims = input.Shape().Dims();
      dims[axis] = sizes[o];
      if (context.IsOutputRequested(o)) {
        Tensor& output = context.Output(o, TensorShape(dims), input.Type());
        RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(),
                       SlabCopy(outer, sizes[o], inner, length, at, false), provider_, GetNode());
      }
      at += sizes[o];
    }
  }

 private:
  const CudaExecutionProvider& provider_;
  int64_t axis_;
  int64_t num_outputs_;
  std::vector<int64_t> split_;
};

}  // namespace

void RegisterConcatSplitKernels(KernelRegistry& registry) {
  const std::vector<ElementType>& types = MovableTypes();
  registry.Register(KernelDefBuilder("Concat")
                        .Versions(4)
                        .Constraint("T", types, {kVariadicFrom(0)}, {0})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<ConcatKernel>(info); });
  auto split = [](const OpKernelInfo& info) { return std::make_unique<SplitKernel>(info); };
  registry.Register(KernelDefBuilder("Split")
                        .Versions(2, 12)
                        .Constraint("T", types, {0}, {kVariadicFrom(0)})
                        .Build(),
                    split);
  registry.Register(KernelDefBuilder("Split")
                        .Versions(13)
                        .Constraint("T", types, {0}, {kVariadicFrom(0)})
                        .CpuInput(1)
                        .Build(),
                    split);
}

std::string ConcatSplitDeclineReason(const Node& node) {
  if (!node.Domain().empty() || (node.OpType() != "Concat" && node.OpType() != "Split")) return "";
  return "";
}

}  // namespace prism::cuda

// Expand (numpy broadcasting to a shape given in CPU memory) and Tile (repeats in CPU memory), by
// element size: one strided copy each, broadcast dims reading with stride 0. Tile splits every
// dim d into [repeat, d] so that the copy needs no modulo (rank up to 8).
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cpu/common/broadcast.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

constexpr size_t kMaxTileRank = kMaxCopyRank / 2;

class ExpandKernel final : public OpKernel {
 public:
  explicit ExpandKernel(const OpKernelInfo& info) : OpKernel(info), provider_(ProviderOf(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t> requested =
        ReadHostInts(context.RequiredInput(1), GetNode().Describe() + " shape input");
    const TensorShape shape =
        cpu::BroadcastShapes({input.Shape(), TensorShape(requested)}, GetNode().Describe());
    PRISM_ENFORCE(shape.Rank() <= static_cast<size_t>(kMaxCopyRank), kNotImplemented,
                  GetNode().Describe(), ": CUDAExecutionProvider expands up to rank ", kMaxCopyRank,
                  ", got ", shape.ToString());
    Tensor& output = context.Output(0, shape, input.Type());
    const std::vector<int64_t> in_strides = ContiguousStrides(input.Shape().Dims());
    const std::vector<int64_t> out_strides = ContiguousStrides(shape.Dims());
    const size_t offset = shape.Rank() - input.Shape().Rank();
    StridedCopy copy;
    copy.rank = static_cast<int>(shape.Rank());
    for (size_t d = 0; d < shape.Rank(); ++d) {
      copy.dims[d] = shape[d];
      copy.out_strides[d] = out_strides[d];
      copy.in_strides[d] =
          d < offset || input.Shape()[d - offset] == 1 ? 0 : in_strides[d - offset];
    }
    RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(), copy, provider_,
                   GetNode());
  }

 private:
  const CudaExecutionProvider& provider_;
};

class TileKernel final : public OpKernel {
 public:
  explicit TileKernel(const OpKernelInfo& info) : OpKernel(info), provider_(ProviderOf(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t> repeats =
        ReadHostInts(context.RequiredInput(1), GetNode().Describe() + " repeats input");
    const std::vector<int64_t>& dims = input.Shape().Dims();
    PRISM_ENFORCE(repeats.size() == dims.size(), kInvalidArgument, GetNode().Describe(), ": ",
                  repeats.size(), " repeats for an input of rank ", dims.size());
    PRISM_ENFORCE(dims.size() <= kMaxTileRank, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider tiles up to rank ", kMaxTileRank, ", got ",
                  input.Shape().ToString());
    std::vector<int64_t> out_dims(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      PRISM_ENFORCE(repeats[d] >= 0, kInvalidArgument, GetNode().Describe(), ": repeat ",
                    repeats[d], " for axis ", d, " is negative");
      out_dims[d] = dims[d] * repeats[d];
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    const std::vector<int64_t> in_strides = ContiguousStrides(dims);
    const std::vector<int64_t> out_strides = ContiguousStrides(out_dims);
    StridedCopy copy;
    copy.rank = static_cast<int>(2 * dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      copy.dims[2 * d] = repeats[d];
      copy.in_strides[2 * d] = 0;
      copy.out_strides[2 * d] = dims[d] * out_strides[d];
      copy.dims[2 * d + 1] = dims[d];
      copy.in_strides[2 * d + 1] = in_strides[d];
      copy.out_strides[2 * d + 1] = out_strides[d];
    }
    RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(), copy, provider_,
                   GetNode());
  }

 private:
  const CudaExecutionProvider& provider_;
};

}  // namespace

void RegisterExpandTileKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("Expand")
                        .Versions(8)
                        .Constraint("T", MovableTypes(), {0}, {0})
                        .CpuInput(1)
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<ExpandKernel>(info); });
  registry.Register(KernelDefBuilder("Tile")
                        .Versions(6)
                        .Constraint("T", MovableTypes(), {0}, {0})
                        .Constraint("T1", {ElementType::kInt64}, {1})
                        .CpuInput(1)
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<TileKernel>(info); });
}

std::string ExpandTileDeclineReason(const Node& node) {
  if (!node.Domain().empty()) return "";
  if (node.OpType() == "Expand") return RankDeclineReason(node, kMaxCopyRank);
  if (node.OpType() == "Tile") return RankDeclineReason(node, kMaxTileRank);
  return "";
}

}  // namespace prism::cuda

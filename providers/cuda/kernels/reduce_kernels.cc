// Float reductions (ReduceSum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp) over
// any axes of inputs up to rank 8: keepdims, noop_with_empty_axes, axes as the attribute or as
// the input read in CPU memory (ReduceSum 13+, the others 18+). Kept and reduced dims are merged
// where contiguous, so a last-axis reduction walks one contiguous run per output.
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

constexpr size_t kMaxReduceRank = 8;

struct ReduceEntry {
  const char* op_type;
  ReduceOp op;
  int axes_input_since;  // the opset from which axes is an input
};
constexpr ReduceEntry kReductions[] = {
    {"ReduceSum", ReduceOp::kSum, 13},       {"ReduceMean", ReduceOp::kMean, 18},
    {"ReduceMax", ReduceOp::kMax, 18},       {"ReduceMin", ReduceOp::kMin, 18},
    {"ReduceProd", ReduceOp::kProd, 18},     {"ReduceSumSquare", ReduceOp::kSumSquare, 18},
    {"ReduceL1", ReduceOp::kL1, 18},         {"ReduceL2", ReduceOp::kL2, 18},
    {"ReduceLogSum", ReduceOp::kLogSum, 18}, {"ReduceLogSumExp", ReduceOp::kLogSumExp, 18},
};

// Appends dim (with its stride) to dims, merging it into the last one when contiguous with it.
void AppendDim(int& rank, int64_t* dims, int64_t* strides, int64_t dim, int64_t stride) {
  if (dim == 1) return;
  if (rank > 0 && strides[rank - 1] == stride * dim) {
    dims[rank - 1] *= dim;
    strides[rank - 1] = stride;
    return;
  }
  dims[rank] = dim;
  strides[rank] = stride;
  ++rank;
}

class ReduceKernel final : public OpKernel {
 public:
  ReduceKernel(const OpKernelInfo& info, ReduceOp op, bool axes_from_input)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        op_(op),
        axes_from_input_(axes_from_input),
        keep_dims_(info.IntOr("keepdims", 1) != 0),
        noop_with_empty_axes_(info.IntOr("noop_with_empty_axes", 0) != 0) {
    if (!axes_from_input_) axes_ = info.IntsOr("axes", {});
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(shape.Rank() <= kMaxReduceRank, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider reduces inputs up to rank ", kMaxReduceRank, ", got ",
                  shape.ToString());
    std::vector<int64_t> axes = axes_;
    if (axes_from_input_)
      if (const Tensor* given = context.Input(1))
        axes = ReadHostInts(*given, GetNode().Describe() + " axes input");
    std::vector<bool> reduced(shape.Rank(), false);
    if (axes.empty()) {
      // No axes: every axis, or none with noop_with_empty_axes (each element reduced alone).
      if (!noop_with_empty_axes_) reduced.assign(shape.Rank(), true);
    } else {
      for (int64_t axis : axes)
        reduced[static_cast<size_t>(HandleNegativeAxis(axis, rank, "reduction axis"))] = true;
    }
    std::vector<int64_t> out_dims;
    for (size_t d = 0; d < shape.Rank(); ++d) {
      if (!reduced[d])
        out_dims.push_back(shape[d]);
      else if (keep_dims_)
        out_dims.push_back(1);
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), ElementType::kFloat);
    const std::vector<int64_t> strides = ContiguousStrides(shape.Dims());
    ReduceIndex index;
    int64_t reduced_count = 1;
    for (size_t d = 0; d < shape.Rank(); ++d) {
      if (reduced[d]) {
        reduced_count *= shape[d];
        AppendDim(index.reduced_rank, index.reduced_dims, index.reduced_strides, shape[d],
                  strides[d]);
      } else {
        AppendDim(index.kept_rank, index.kept_dims, index.kept_strides, shape[d], strides[d]);
      }
    }
    if (reduced_count == 0) index.reduced_rank = 0;  // nothing is read
    PRISM_CUDA_CALL(LaunchReduceFloat(op_, x.Data<float>(), output.MutableData<float>(),
                                      output.NumElements(), reduced_count, index,
                                      provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  ReduceOp op_;
  bool axes_from_input_;
  bool keep_dims_;
  bool noop_with_empty_axes_;
  std::vector<int64_t> axes_;
};

}  // namespace

void RegisterReduceKernels(KernelRegistry& registry) {
  const std::vector<ElementType> f = {ElementType::kFloat};
  for (const ReduceEntry& entry : kReductions) {
    const ReduceOp op = entry.op;
    registry.Register(
        KernelDefBuilder(entry.op_type)
            .Versions(1, entry.axes_input_since - 1)
            .Constraint("T", f, {0}, {0})
            .Build(),
        [op](const OpKernelInfo& info) { return std::make_unique<ReduceKernel>(info, op, false); });
    registry.Register(
        KernelDefBuilder(entry.op_type)
            .Versions(entry.axes_input_since)
            .Constraint("T", f, {0}, {0})
            .CpuInput(1)
            .Build(),
        [op](const OpKernelInfo& info) { return std::make_unique<ReduceKernel>(info, op, true); });
  }
}

std::string ReduceDeclineReason(const Node& node) {
  if (!node.Domain().empty()) return "";
  for (const ReduceEntry& entry : kReductions)
    if (node.OpType() == entry.op_type) return RankDeclineReason(node, kMaxReduceRank);
  return "";
}

}  // namespace prism::cuda

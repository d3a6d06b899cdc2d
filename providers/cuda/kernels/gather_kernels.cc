// Gather along any axis, by element size, int32 or int64 indices (negative ones wrap). An index
// out of range is an error, as on the CPU EP: constant indices are checked once at creation;
// others raise a device flag that the host reads back after the launch (one stream
// synchronization per run of the node), and the node fails naming the range.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

class GatherKernel final : public OpKernel {
 public:
  explicit GatherKernel(const OpKernelInfo& info)
      : OpKernel(info), provider_(ProviderOf(info)), axis_(info.IntOr("axis", 0)) {
    const Tensor* data = info.ConstantInput(0);
    const Tensor* indices = info.ConstantInput(1);
    // Constant indices against a constant-shaped axis can be checked now; a data input's
    // shape may change per run, so only its declared static dim counts.
    const NodeArg* data_arg = info.GetNode().Inputs()[0];
    int64_t axis_dim = -1;
    if (data != nullptr) {
      const int64_t rank = static_cast<int64_t>(data->Shape().Rank());
      if (axis_ >= -rank && axis_ < rank)
        axis_dim = data->Shape()[static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_)];
    } else if (data_arg != nullptr && data_arg->shape) {
      const int64_t rank = static_cast<int64_t>(data_arg->shape->dims.size());
      if (axis_ >= -rank && axis_ < rank) {
        const Dim& dim =
            data_arg->shape->dims[static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_)];
        if (dim.IsKnown()) axis_dim = dim.value;
      }
    }
    if (indices == nullptr || axis_dim < 0) return;
    for (int64_t i = 0; i < indices->NumElements(); ++i) {
      const int64_t index = indices->Type() == ElementType::kInt64
                                ? indices->Data<int64_t>()[i]
                                : static_cast<int64_t>(indices->Data<int32_t>()[i]);
      if (index < -axis_dim || index >= axis_dim) return;  // fails at run time, with the flag
    }
    checked_axis_dim_ = axis_dim;
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const int64_t rank = static_cast<int64_t>(data.Shape().Rank());
    PRISM_ENFORCE(rank > 0, kInvalidArgument, GetNode().Describe(),
                  ": Gather's data must have rank >= 1");
    const size_t axis = static_cast<size_t>(HandleNegativeAxis(axis_, rank));
    const int64_t axis_dim = data.Shape()[axis];
    std::vector<int64_t> dims(data.Shape().Dims().begin(), data.Shape().Dims().begin() + axis);
    dims.insert(dims.end(), indices.Shape().Dims().begin(), indices.Shape().Dims().end());
    dims.insert(dims.end(), data.Shape().Dims().begin() + axis + 1, data.Shape().Dims().end());
    Tensor& output = context.Output(0, TensorShape(dims), data.Type());
    if (output.NumElements() == 0) return;
    const int size = ElementSize(data.Type());
    const cudaStream_t stream = provider_.Stream();
    const bool checked = checked_axis_dim_ == axis_dim;
    // The kernel raises the flag only for an index out of range: with checked indices it is
    // never written, and never read.
    // While the EP's stream is captured into a graph the flag cannot be read back here: it
    // comes from the EP, which reads it after every replay.
    const bool capturing = !checked && provider_.Capturing();
    const AllocatorPtr& allocator = context.TempAllocator();
    int* flag = capturing ? provider_.DeferredCheckFlag(MakeString(
                                GetNode().Describe(), ": an index is out of range [", -axis_dim,
                                ", ", axis_dim - 1, "] for axis ", axis, " of data ",
                                data.Shape().ToString()))
                          : static_cast<int*>(allocator->Alloc(sizeof(int)));
    const std::unique_ptr<int, std::function<void(int*)>> flag_owner(
        capturing ? nullptr : flag, [allocator](int* p) { allocator->Free(p); });
    if (!checked && !capturing) PRISM_CUDA_CALL(cudaMemsetAsync(flag, 0, sizeof(int), stream));
    PRISM_CUDA_CALL(LaunchGather(
        data.RawData(), output.MutableRawData(), size, indices.RawData(),
        indices.Type() == ElementType::kInt64, data.Shape().SizeToDimension(axis), axis_dim,
        indices.NumElements(), data.Shape().SizeFromDimension(axis + 1), flag, stream));
    if (checked || capturing) return;
    int raised = 0;
    PRISM_CUDA_CALL(cudaMemcpyAsync(&raised, flag, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PRISM_CUDA_CALL(cudaStreamSynchronize(stream));
    PRISM_ENFORCE(raised == 0, kInvalidArgument, GetNode().Describe(),
                  ": an index is out of range [", -axis_dim, ", ", axis_dim - 1, "] for axis ",
                  axis, " of data ", data.Shape().ToString());
  }

 private:
  const CudaExecutionProvider& provider_;
  int64_t axis_;
  int64_t checked_axis_dim_ = -1;  // the axis length the constant indices were checked against
};

}  // namespace

void RegisterGatherKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("Gather")
                        .Versions(1)
                        .Constraint("T", MovableTypes(), {0}, {0})
                        .Constraint("Tind", {ElementType::kInt32, ElementType::kInt64}, {1})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<GatherKernel>(info); });
}

}  // namespace prism::cuda

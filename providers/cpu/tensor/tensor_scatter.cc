// TensorScatter (opset 24): a KV-cache update. present_cache is past_cache with, for each batch
// entry b (axis 0), update's slices along `axis` (default -2) written from position
// write_indices[b] (0 when absent) on: consecutively (mode linear, which must fit the cache) or
// wrapping around the cache's length (mode circular). Every other dim of update must equal the
// cache's. Elements are moved, whatever their type.
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class TensorScatter final : public OpKernel {
 public:
  explicit TensorScatter(const OpKernelInfo& info)
      : OpKernel(info), mode_(info.StringOr("mode", "linear")), axis_(info.IntOr("axis", -2)) {
    PRISM_ENFORCE(mode_ == "linear" || mode_ == "circular", kInvalidArgument,
                  info.GetNode().Describe(), ": mode '", mode_, "' is not linear or circular");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& cache = context.RequiredInput(0);
    const Tensor& update = context.RequiredInput(1);
    const Tensor* indices = context.Input(2);
    const TensorShape& shape = cache.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(
        rank >= 2 && update.Shape().Rank() == shape.Rank() && update.Type() == cache.Type(),
        kInvalidArgument, node.Describe(),
        ": past_cache and update must share rank (at least 2) and type, got ", cache.Describe(),
        " and ", update.Describe());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range for rank ", rank);
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    PRISM_ENFORCE(axis > 0, kInvalidArgument, node.Describe(),
                  ": axis must not be the batch axis 0");
    for (size_t a = 0; a < shape.Rank(); ++a)
      PRISM_ENFORCE(a == axis ? update.Shape()[a] <= shape[a] : update.Shape()[a] == shape[a],
                    kInvalidArgument, node.Describe(), ": update ", update.Shape().ToString(),
                    " does not fit past_cache ", shape.ToString(), " on axis ", a);
    const int64_t batch = shape[0];
    std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
    if (indices != nullptr) {
      PRISM_ENFORCE(indices->Type() == ElementType::kInt64 && indices->NumElements() == batch,
                    kInvalidArgument, node.Describe(),
                    ": write_indices must hold one int64 per batch entry, got ",
                    indices->Describe());
      starts.assign(indices->Data<int64_t>(), indices->Data<int64_t>() + batch);
    }
    const int64_t length = shape[axis], steps = update.Shape()[axis];
    const bool circular = mode_ == "circular";
    for (int64_t b = 0; b < batch; ++b)
      PRISM_ENFORCE(
          starts[b] >= 0 && (circular ? starts[b] < length : starts[b] <= length - steps),
          kInvalidArgument, node.Describe(), ": write_indices[", b, "] = ", starts[b],
          circular ? MakeString(" is outside [0, ", length, ")")
                   : MakeString(" with ", steps, " updates overruns the cache length ", length));
    Tensor& present = context.Output(0, shape, cache.Type());
    if (present.NumElements() == 0) return;
    ClearPackedStorage(present);
    CopyElements(cache, 0, present, 0, cache.NumElements());
    if (update.NumElements() == 0) return;
    // Per batch entry: `outer` runs over the dims between 0 and axis, `inner` after it.
    const int64_t outer = shape.SizeToDimension(axis) / batch;
    const int64_t inner = shape.SizeFromDimension(axis + 1);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t s = 0; s < steps; ++s) {
          const int64_t target = circular ? (starts[b] + s) % length : starts[b] + s;
          CopyElements(update, ((b * outer + o) * steps + s) * inner, present,
                       ((b * outer + o) * length + target) * inner, inner);
        }
  }

 private:
  std::string mode_;
  int64_t axis_;
};

void RegisterTensorScatterKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("TensorScatter")
          .Versions(24)
          .Constraint("T", AllTensorTypesWithComplexOf(TensorTypeGeneration::kFloat8E8M0), {0, 1},
                      {0})
          .CpuInput(2)
          .Build(),
      MakeKernelFactory<TensorScatter>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_tensor_scatter, RegisterTensorScatterKernels);

}  // namespace prism::cpu

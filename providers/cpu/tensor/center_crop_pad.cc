// CenterCropPad: each axis named in 'axes' (default: all, in order) becomes the size given by the
// 'shape' input. A larger input is cropped to a centered window whose start is rounded down; a
// smaller one is padded with zeros (false, "") on both sides, the odd pixel going to the end.
#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class CenterCropPad final : public OpKernel {
 public:
  explicit CenterCropPad(const OpKernelInfo& info)
      : OpKernel(info), axes_(info.IntsOr("axes", {})) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t> sizes =
        ReadIntList(context.RequiredInput(1), node.Describe() + ": input 'shape'");
    const std::vector<int64_t>& in_dims = input.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(in_dims.size());
    std::vector<int64_t> axes = axes_;
    if (axes.empty())
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    PRISM_ENFORCE(sizes.size() == axes.size(), kInvalidArgument, node.Describe(),
                  ": input 'shape' has ", sizes.size(), " entries but ", axes.size(),
                  " axes are cropped or padded (input shape ", input.Shape().ToString(), ")");
    std::vector<int64_t> out_dims = in_dims;
    std::set<int64_t> seen;
    for (size_t i = 0; i < axes.size(); ++i) {
      PRISM_ENFORCE(axes[i] >= -rank && axes[i] < rank, kInvalidArgument, node.Describe(),
                    ": axis ", axes[i], " is out of range for rank ", rank);
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      PRISM_ENFORCE(seen.insert(axis).second, kInvalidArgument, node.Describe(), ": axis ", axes[i],
                    " appears twice in 'axes'");
      PRISM_ENFORCE(sizes[i] >= 0, kInvalidArgument, node.Describe(), ": input 'shape' entry ", i,
                    " is negative (", sizes[i], ")");
      out_dims[axis] = sizes[i];
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    if (output.NumElements() == 0) return;
    Tensor zero(input.Type(), TensorShape({1}), GetCpuAllocator());
    if (input.Type() != ElementType::kString)
      std::fill_n(static_cast<uint8_t*>(zero.MutableRawData()), zero.SizeInBytes(), 0);
    FillElements(output, 0, output.NumElements(), zero);
    if (input.NumElements() == 0 || rank == 0) {
      if (rank == 0) CopyElements(input, 0, output, 0, 1);
      return;
    }
    // Per axis: where the kept window starts in the input and in the output, and its length.
    std::vector<int64_t> in_start(rank), out_start(rank), count(rank);
    for (int64_t a = 0; a < rank; ++a) {
      const int64_t difference = in_dims[a] - out_dims[a];
      in_start[a] = difference > 0 ? difference / 2 : 0;
      out_start[a] = difference < 0 ? -difference / 2 : 0;
      count[a] = std::min(in_dims[a], out_dims[a]);
    }
    std::vector<int64_t> in_strides(rank, 1), out_strides(rank, 1);
    for (int64_t a = rank - 2; a >= 0; --a) {
      in_strides[a] = in_strides[a + 1] * in_dims[a + 1];
      out_strides[a] = out_strides[a + 1] * out_dims[a + 1];
    }
    // Copy the window one innermost row at a time.
    std::vector<int64_t> index(rank, 0);
    while (true) {
      int64_t in_offset = 0, out_offset = 0;
      for (int64_t a = 0; a < rank; ++a) {
        in_offset += (in_start[a] + index[a]) * in_strides[a];
        out_offset += (out_start[a] + index[a]) * out_strides[a];
      }
      CopyElements(input, in_offset, output, out_offset, count[rank - 1]);
      int64_t a = rank - 2;
      for (; a >= 0; --a) {
        if (++index[a] < count[a]) break;
        index[a] = 0;
      }
      if (a < 0) break;
    }
  }

 private:
  std::vector<int64_t> axes_;
};

void RegisterCenterCropPadKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("CenterCropPad")
          .Versions(18)
          .Constraint("T", AllTensorTypesWithComplexOf(TensorTypeGeneration::kBfloat16), {0}, {0})
          .Constraint("Tind", {E::kInt32, E::kInt64}, {1})
          .CpuInput(1)
          .Build(),
      MakeKernelFactory<CenterCropPad>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_center_crop_pad, RegisterCenterCropPadKernels);

}  // namespace prism::cpu

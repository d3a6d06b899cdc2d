// Split: cuts the input along `axis` into the node's outputs. The sizes come from the 'split'
// attribute (opsets 2 to 12; opset 1 also accepts it as a second input), the 'split' input
// (opset 13+), or, when none is given, equal parts: before opset 18 the axis must divide evenly
// into the number of outputs; from 18 `num_outputs` parts of ceil(dim / num_outputs) with a
// smaller last one.
#include <climits>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Split final : public OpKernel {
 public:
  explicit Split(const OpKernelInfo& info)
      : OpKernel(info),
        opset_(info.GetNode().OpsetVersion()),
        axis_(info.IntOr("axis", 0)),
        num_outputs_(info.IntOr("num_outputs", 0)) {
    if (opset_ < 13 && info.HasAttr("split")) split_attr_ = info.Ints("split");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t dim = shape[axis];
    const int64_t outputs = static_cast<int64_t>(context.OutputCount());

    std::vector<int64_t> sizes = split_attr_;
    const Tensor* split_input = (opset_ == 1 || opset_ >= 13) ? context.Input(1) : nullptr;
    if (split_input) sizes = ReadIntList(*split_input, node.Describe() + " input 'split'");
    if (!sizes.empty()) {
      PRISM_ENFORCE(num_outputs_ == 0, kInvalidArgument, node.Describe(),
                    ": give either the 'split' input or the 'num_outputs' attribute, not both");
      PRISM_ENFORCE(static_cast<int64_t>(sizes.size()) == outputs, kInvalidArgument,
                    node.Describe(), ": 'split' has ", sizes.size(), " entries but the node has ",
                    outputs, " outputs");
      int64_t total = 0;
      for (int64_t s : sizes) {
        PRISM_ENFORCE(s >= 0, kInvalidArgument, node.Describe(), ": 'split' entry ", s,
                      " is negative");
        // Summed with a bound: entries come from an input (the fuzzer fed INT64_MAX).
        PRISM_ENFORCE(s <= dim - total, kInvalidArgument, node.Describe(),
                      ": 'split' sums to more than axis ", axis_, " of input shape ",
                      shape.ToString(), " has (", dim, ")");
        total += s;
      }
      PRISM_ENFORCE(total == dim, kInvalidArgument, node.Describe(), ": 'split' sums to ", total,
                    " but axis ", axis_, " of input shape ", shape.ToString(), " has size ", dim);
    } else if (opset_ >= 18) {
      PRISM_ENFORCE(num_outputs_ > 0, kInvalidArgument, node.Describe(),
                    ": needs the 'split' input or the 'num_outputs' attribute");
      PRISM_ENFORCE(num_outputs_ == outputs, kInvalidArgument, node.Describe(), ": num_outputs ",
                    num_outputs_, " does not match the node's ", outputs, " outputs");
      PRISM_ENFORCE(num_outputs_ <= dim || dim == 0, kInvalidArgument, node.Describe(),
                    ": num_outputs ", num_outputs_, " is larger than axis ", axis_,
                    " of input shape ", shape.ToString());
      const int64_t part = (dim + num_outputs_ - 1) / num_outputs_;
      for (int64_t o = 0; o < outputs; ++o)
        sizes.push_back(std::max<int64_t>(0, std::min(part, dim - o * part)));
    } else {
      PRISM_ENFORCE(dim % outputs == 0, kInvalidArgument, node.Describe(), ": axis ", axis_,
                    " of input shape ", shape.ToString(), " does not split evenly into ", outputs,
                    " outputs");
      sizes.assign(static_cast<size_t>(outputs), dim / outputs);
    }

    const int64_t outer = shape.SizeToDimension(axis);
    const int64_t inner = shape.SizeFromDimension(axis + 1);
    int64_t offset = 0;  // along the axis
    for (int64_t o = 0; o < outputs; ++o) {
      std::vector<int64_t> dims = shape.Dims();
      dims[axis] = sizes[static_cast<size_t>(o)];
      Tensor& output = context.Output(static_cast<size_t>(o), TensorShape(dims), input.Type());
      const int64_t run = sizes[static_cast<size_t>(o)] * inner;
      if (output.NumElements() > 0) {
        ClearPackedStorage(output);
        for (int64_t r = 0; r < outer; ++r)
          CopyElements(input, (r * dim + offset) * inner, output, r * run, run);
      }
      offset += sizes[static_cast<size_t>(o)];
    }
  }

 private:
  int opset_;
  int64_t axis_;
  int64_t num_outputs_;
  std::vector<int64_t> split_attr_;
};

void RegisterSplitKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<Split>();
  registry.Register(
      KernelDefBuilder("Split")
          .Versions(1, 1)
          .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {kVariadicFrom(0)})
          .CpuInput(1)
          .Build(),
      factory);
  registry.Register(
      KernelDefBuilder("Split")
          .Versions(2, 10)
          .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {kVariadicFrom(0)})
          .Build(),
      factory);
  registry.Register(
      KernelDefBuilder("Split")
          .Versions(11, 12)
          .Constraint("T", AllTensorTypesWithComplexOf(G::kNoBfloat16), {0}, {kVariadicFrom(0)})
          .Build(),
      factory);
  for (const auto& [since, end] : {std::pair{13, 17}, std::pair{18, INT_MAX}}) {
    registry.Register(
        KernelDefBuilder("Split")
            .Versions(since, end)
            .Constraint("T", AllTensorTypesWithComplexOf(G::kBfloat16), {0}, {kVariadicFrom(0)})
            .CpuInput(1)
            .Build(),
        factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_split, RegisterSplitKernels);

}  // namespace prism::cpu

// Tile: repeats the input along each axis. Opset 6+ takes 'repeats', one non-negative count per
// axis; opset 1 takes 'tiles' (a count) and 'axis' (the one axis it applies to). Each output row
// is the matching input row (coordinates modulo the input dims) repeated along the last axis.
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Tile final : public OpKernel {
 public:
  explicit Tile(const OpKernelInfo& info) : OpKernel(info), opset_(info.GetNode().OpsetVersion()) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    const size_t rank = shape.Rank();
    std::vector<int64_t> repeats(rank, 1);
    if (opset_ >= 6) {
      repeats = ReadIntList(context.RequiredInput(1), node.Describe() + " input 'repeats'");
      PRISM_ENFORCE(repeats.size() == rank, kInvalidArgument, node.Describe(),
                    ": input 'repeats' has ", repeats.size(),
                    " entries but input 'input' has rank ", rank);
    } else {
      const std::vector<int64_t> tiles =
          ReadIntList(context.RequiredInput(1), node.Describe() + " input 'tiles'");
      const std::vector<int64_t> axis =
          ReadIntList(context.RequiredInput(2), node.Describe() + " input 'axis'");
      PRISM_ENFORCE(tiles.size() == 1 && axis.size() == 1, kInvalidArgument, node.Describe(),
                    ": inputs 'tiles' and 'axis' must each hold one value");
      const int64_t r = static_cast<int64_t>(rank);
      PRISM_ENFORCE(axis[0] >= -r && axis[0] < r, kInvalidArgument, node.Describe(), ": axis ",
                    axis[0], " is out of range [", -r, ", ", r - 1, "] for input of shape ",
                    shape.ToString());
      repeats[static_cast<size_t>(axis[0] < 0 ? axis[0] + r : axis[0])] = tiles[0];
    }
    std::vector<int64_t> out_dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      PRISM_ENFORCE(repeats[d] >= 0, kInvalidArgument, node.Describe(), ": repeat count ",
                    repeats[d], " for axis ", d, " is negative");
      PRISM_ENFORCE(!__builtin_mul_overflow(shape[d], repeats[d], &out_dims[d]), kInvalidArgument,
                    node.Describe(), ": axis ", d, " of size ", shape[d], " repeated ", repeats[d],
                    " times does not fit int64");
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);
    if (rank == 0) {
      CopyElements(input, 0, output, 0, 1);
      return;
    }
    const int64_t row = shape[rank - 1];
    const int64_t out_row = out_dims[rank - 1];
    const int64_t rows = output.NumElements() / out_row;
    std::vector<int64_t> index(rank - 1, 0);  // output coordinates of the current row
    for (int64_t r = 0; r < rows; ++r) {
      int64_t source_row = 0;
      for (size_t d = 0; d + 1 < rank; ++d)
        source_row = source_row * shape[d] + index[d] % shape[d];
      for (int64_t k = 0; k < repeats[rank - 1]; ++k)
        CopyElements(input, source_row * row, output, r * out_row + k * row, row);
      for (size_t d = rank - 1; d-- > 0;) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  }

 private:
  int opset_;
};

void RegisterTileKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<Tile>();
  registry.Register(KernelDefBuilder("Tile")
                        .Versions(1, 5)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Constraint("T1", {E::kInt64}, {1, 2})
                        .CpuInput(1)
                        .CpuInput(2)
                        .Build(),
                    factory);
  for (const auto& [since, end, types] :
       {std::tuple{6, 12, G::kNoBfloat16}, std::tuple{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Tile")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Constraint("T1", {E::kInt64}, {1})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_tile, RegisterTileKernels);

}  // namespace prism::cpu

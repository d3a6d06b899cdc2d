// ScatterElements (and the deprecated Scatter): the output is data with, for every position p of
// indices, the element at p (with p[axis] replaced by indices[p]) replaced by updates[p], or
// combined with it by the 'reduction' (add/mul from opset 16, max/min from 18; see
// scatter_apply.h). Positions are visited in row-major order, so with reduction "none" a
// duplicated index keeps the last update.
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/scatter_apply.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class ScatterElements final : public OpKernel {
 public:
  explicit ScatterElements(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", 0)), reduction_(ReadScatterReduction(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const Tensor& updates = context.RequiredInput(2);
    const TensorShape& shape = data.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'data' must have rank >= 1, got a scalar");
    PRISM_ENFORCE(indices.Shape() == updates.Shape(), kInvalidArgument, node.Describe(),
                  ": input 'indices' of shape ", indices.Shape().ToString(),
                  " and 'updates' of shape ", updates.Shape().ToString(), " differ");
    PRISM_ENFORCE(indices.Shape().Rank() == shape.Rank(), kInvalidArgument, node.Describe(),
                  ": input 'indices' has rank ", indices.Shape().Rank(), " but 'data' has rank ",
                  rank);
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for data of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    for (size_t d = 0; d < shape.Rank(); ++d)
      PRISM_ENFORCE(d == axis || indices.Shape()[d] <= shape[d], kInvalidArgument, node.Describe(),
                    ": input 'indices' of shape ", indices.Shape().ToString(),
                    " is larger than 'data' of shape ", shape.ToString(), " in dim ", d);
    const std::vector<int64_t> picks = NormalizedIndices(indices, shape[axis], node, "indices");
    Tensor& output = context.Output(0, shape, data.Type());
    CopyElements(data, 0, output, 0, data.NumElements());
    if (picks.empty()) return;
    const std::vector<int64_t> targets = ElementOffsets(shape, indices.Shape(), picks, axis);
    std::vector<ScatterMove> moves(targets.size());
    for (size_t i = 0; i < targets.size(); ++i) moves[i] = {targets[i], static_cast<int64_t>(i)};
    ApplyScatter(output, updates, moves, 1, reduction_, node);
  }

 private:
  int64_t axis_;
  ScatterReduction reduction_;
};

void RegisterScatterElementsKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<ScatterElements>();
  for (const auto& [op, since, end, types] :
       {std::tuple{"Scatter", 9, 10, G::kNoBfloat16},
        std::tuple{"Scatter", 11, INT_MAX, G::kNoBfloat16},
        std::tuple{"ScatterElements", 11, 12, G::kNoBfloat16},
        std::tuple{"ScatterElements", 13, 15, G::kBfloat16},
        std::tuple{"ScatterElements", 16, 17, G::kBfloat16},
        std::tuple{"ScatterElements", 18, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0, 2}, {0})
                          .Constraint("Tind", {E::kInt32, E::kInt64}, {1})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_scatter_elements, RegisterScatterElementsKernels);

}  // namespace prism::cpu

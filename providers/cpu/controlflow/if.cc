// If: runs then_branch or else_branch depending on a single-element bool condition and
// returns that branch's outputs (tensors, sequences or optionals). Branches read outer-scope
// values through the executor's scope chain.
#include <climits>
#include <vector>

#include "graph/graph.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class If final : public OpKernel {
 public:
  explicit If(const OpKernelInfo& info)
      : OpKernel(info),
        then_branch_(info.Subgraph("then_branch")),
        else_branch_(info.Subgraph("else_branch")) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& cond = context.RequiredInput(0);
    PRISM_ENFORCE(cond.Type() == ElementType::kBool, kInvalidArgument, GetNode().Describe(),
                  ": cond must be a bool tensor, got ", cond.Describe());
    PRISM_ENFORCE(cond.NumElements() == 1, kInvalidArgument, GetNode().Describe(),
                  ": cond must hold exactly one element, got ", cond.Describe());
    const bool take_then = cond.Data<bool>()[0];
    const Graph& branch = take_then ? then_branch_ : else_branch_;
    std::vector<Value> results = context.RunSubgraph(branch, {});
    PRISM_ENFORCE(results.size() == context.OutputCount(), kInvalidArgument, GetNode().Describe(),
                  ": ", take_then ? "then_branch" : "else_branch", " produced ", results.size(),
                  " outputs but the node has ", context.OutputCount());
    for (size_t i = 0; i < results.size(); ++i) context.SetOutput(i, std::move(results[i]));
  }

 private:
  const Graph& then_branch_;
  const Graph& else_branch_;
};

void RegisterIfKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<If>();
  // V binds the node's outputs, whose count varies; the registry matches fixed output indices
  // only, so the element types are checked when the branch runs rather than here.
  struct Range {
    int since;
    int end;
    G types;
    bool sequences;
    bool optionals;
  };
  for (const Range& r :
       {Range{1, 10, G::kNoBfloat16, false, false}, Range{11, 12, G::kNoBfloat16, false, false},
        Range{13, 15, G::kNoBfloat16, true, false}, Range{16, 18, G::kBfloat16, true, true},
        Range{19, 20, G::kFloat8, true, true}, Range{21, 22, G::kInt4, true, true},
        Range{23, 23, G::kFloat4, true, true}, Range{24, 24, G::kFloat8E8M0, true, true},
        Range{25, INT_MAX, G::kInt2, true, true}}) {
    KernelDefBuilder builder("If");
    builder.Versions(r.since, r.end).Constraint("B", {ElementType::kBool}, {0}).CpuInput(0);
    builder.Constraint("V", AllTensorTypesWithComplexOf(r.types), {}, {kVariadicFrom(0)});
    if (r.sequences) builder.AlsoSequence();
    if (r.optionals) builder.AlsoOptional();
    registry.Register(builder.Build(), factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(controlflow_if, RegisterIfKernels);

}  // namespace prism::cpu

// DepthToSpace and SpaceToDepth on [N, C, H, W]: moving blocksize x blocksize blocks between the
// channel and spatial dims, as a 6-D reshape, a permutation and a reshape back. DepthToSpace's
// mode (opset 11+) picks the channel order: DCR (depth-column-row, the default) or CRD; so does
// SpaceToDepth's from opset 28 (before, always DCR).
#include <climits>
#include <string>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/permute.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class DepthSpace final : public OpKernel {
 public:
  explicit DepthSpace(const OpKernelInfo& info)
      : OpKernel(info),
        to_space_(info.GetNode().OpType() == "DepthToSpace"),
        blocksize_(info.Int("blocksize")) {
    const std::string mode = info.StringOr("mode", "DCR");
    PRISM_ENFORCE(mode == "DCR" || mode == "CRD", kInvalidArgument, info.GetNode().Describe(),
                  ": mode '", mode, "' is not DCR or CRD");
    crd_ = mode == "CRD";
    int64_t square = 0;
    PRISM_ENFORCE(
        blocksize_ > 0 && !__builtin_mul_overflow(blocksize_, blocksize_, &square),
        kInvalidArgument, info.GetNode().Describe(), ": blocksize ", blocksize_,
        blocksize_ > 0 ? " is too large (its square overflows int64)" : " must be positive");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    PRISM_ENFORCE(shape.Rank() == 4, kInvalidArgument, node.Describe(),
                  ": input must be 4-D [N, C, H, W], got shape ", shape.ToString());
    const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3], b = blocksize_;
    std::vector<int64_t> view;
    std::vector<size_t> perm;
    std::vector<int64_t> out_dims;
    if (to_space_) {
      PRISM_ENFORCE(c % (b * b) == 0, kInvalidArgument, node.Describe(), ": channels ", c,
                    " of input shape ", shape.ToString(),
                    " are not a multiple of blocksize^2 = ", b * b);
      const int64_t oc = c / (b * b);
      if (crd_) {
        view = {n, oc, b, b, h, w};
        perm = {0, 1, 4, 2, 5, 3};
      } else {
        view = {n, b, b, oc, h, w};
        perm = {0, 3, 4, 1, 5, 2};
      }
      int64_t out_h = 0, out_w = 0;
      PRISM_ENFORCE(!__builtin_mul_overflow(h, b, &out_h) && !__builtin_mul_overflow(w, b, &out_w),
                    kInvalidArgument, node.Describe(), ": the output of input shape ",
                    shape.ToString(), " with blocksize ", b, " has dims that overflow int64");
      out_dims = {n, oc, out_h, out_w};
    } else {
      PRISM_ENFORCE(h % b == 0 && w % b == 0, kInvalidArgument, node.Describe(),
                    ": spatial dims of input shape ", shape.ToString(),
                    " are not multiples of blocksize ", b);
      view = {n, c, h / b, b, w / b, b};
      perm = crd_ ? std::vector<size_t>{0, 1, 3, 5, 2, 4} : std::vector<size_t>{0, 3, 5, 1, 2, 4};
      int64_t out_c = 0;
      PRISM_ENFORCE(!__builtin_mul_overflow(c, b * b, &out_c), kInvalidArgument, node.Describe(),
                    ": the output of input shape ", shape.ToString(), " with blocksize ", b,
                    " has channels that overflow int64");
      out_dims = {n, out_c, h / b, w / b};
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    PermuteElements(input, view, perm, output);
  }

 private:
  bool to_space_;
  int64_t blocksize_;
  bool crd_ = false;
};

void RegisterDepthSpaceKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<DepthSpace>();
  for (const auto& [op, since, end, types] :
       {std::tuple{"DepthToSpace", 1, 10, G::kNoBfloat16},
        std::tuple{"DepthToSpace", 11, 12, G::kNoBfloat16},
        std::tuple{"DepthToSpace", 13, 27, G::kBfloat16},
        std::tuple{"DepthToSpace", 28, INT_MAX, G::kBfloat16},
        std::tuple{"SpaceToDepth", 1, 12, G::kNoBfloat16},
        std::tuple{"SpaceToDepth", 13, 27, G::kBfloat16},
        std::tuple{"SpaceToDepth", 28, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_depth_space, RegisterDepthSpaceKernels);

}  // namespace prism::cpu

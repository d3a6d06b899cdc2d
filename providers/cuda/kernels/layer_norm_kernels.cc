// LayerNormalization (opset 17, float32, normalizing the trailing dims from axis on, scale and
// optional bias of exactly the normalized size; Mean and InvStdDev written when used) and
// com.microsoft SkipLayerNormalization (float32: input + skip [+ bias], normalized over the last
// axis; skip of input's shape or one [S, H] block shared by the batch; every output).
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

void EnforceVector(const Node& node, const Tensor* tensor, const char* what, int64_t size) {
  PRISM_ENFORCE(tensor == nullptr || tensor->NumElements() == size, kNotImplemented,
                node.Describe(), ": CUDAExecutionProvider needs ", what, " of ", size,
                " elements (the normalized size), got ", tensor->Shape().ToString());
}

float* StatsOutput(OpKernelContext& context, size_t index, const std::vector<int64_t>& dims) {
  if (index >= context.OutputCount() || !context.IsOutputRequested(index)) return nullptr;
  return context.Output(index, TensorShape(dims), ElementType::kFloat).MutableData<float>();
}

class LayerNormKernel final : public OpKernel {
 public:
  explicit LayerNormKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        axis_(info.IntOr("axis", -1)),
        epsilon_(info.FloatOr("epsilon", 1e-5f)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, GetNode().Describe(),
                  ": LayerNormalization's input must have rank >= 1");
    const size_t axis = static_cast<size_t>(HandleNegativeAxis(axis_, rank));
    LayerNormArgs args;
    args.rows = shape.SizeToDimension(axis);
    args.cols = shape.SizeFromDimension(axis);
    args.epsilon = epsilon_;
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* bias = context.Input(2);
    EnforceVector(GetNode(), &scale, "Scale", args.cols);
    EnforceVector(GetNode(), bias, "B", args.cols);
    Tensor& y = context.Output(0, shape, ElementType::kFloat);
    std::vector<int64_t> stats_dims = shape.Dims();
    for (size_t d = axis; d < stats_dims.size(); ++d) stats_dims[d] = 1;
    args.mean = StatsOutput(context, 1, stats_dims);
    args.inv_std_dev = StatsOutput(context, 2, stats_dims);
    if (args.rows == 0) return;
    PRISM_ENFORCE(args.cols > 0, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider does not normalize an empty axis (input ",
                  shape.ToString(), ")");
    PRISM_ENFORCE(args.rows <= INT32_MAX, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider normalizes up to 2^31-1 rows, got ", args.rows);
    args.x = x.Data<float>();
    args.scale = scale.Data<float>();
    args.shift = bias != nullptr ? bias->Data<float>() : nullptr;
    args.y = y.MutableData<float>();
    PRISM_CUDA_CALL(LaunchLayerNorm(args, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  int64_t axis_;
  float epsilon_;
};

class SkipLayerNormKernel final : public OpKernel {
 public:
  explicit SkipLayerNormKernel(const OpKernelInfo& info)
      : OpKernel(info), provider_(ProviderOf(info)), epsilon_(info.FloatOr("epsilon", 1e-12f)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const Tensor& skip = context.RequiredInput(1);
    const Tensor& gamma = context.RequiredInput(2);
    const Tensor* beta = context.Input(3);
    const Tensor* bias = context.Input(4);
    const TensorShape& shape = input.Shape();
    PRISM_ENFORCE(shape.Rank() == 2 || shape.Rank() == 3, kInvalidArgument, GetNode().Describe(),
                  ": input must be 3-D [batch, sequence, hidden] or 2-D [tokens, hidden], got ",
                  shape.ToString());
    LayerNormArgs args;
    args.cols = shape[shape.Rank() - 1];
    args.rows = shape.SizeToDimension(shape.Rank() - 1);
    args.skip_rows = args.rows;
    if (skip.Shape() != shape) {
      const TensorShape& s = skip.Shape();
      const bool shared = shape.Rank() == 3 &&
                          ((s.Rank() == 3 && s[0] == 1 && s[1] == shape[1] && s[2] == args.cols) ||
                           (s.Rank() == 2 && s[0] == shape[1] && s[1] == args.cols));
      PRISM_ENFORCE(shared, kInvalidArgument, GetNode().Describe(), ": skip ", s.ToString(),
                    " must have input's shape ", shape.ToString(),
                    " or be [1, S, H] / [S, H] for a 3-D input");
      args.skip_rows = shape[1];
    }
    EnforceVector(GetNode(), &gamma, "gamma", args.cols);
    EnforceVector(GetNode(), beta, "beta", args.cols);
    EnforceVector(GetNode(), bias, "bias", args.cols);
    args.epsilon = epsilon_;
    Tensor& output = context.Output(0, shape, ElementType::kFloat);
    std::vector<int64_t> stats_dims = shape.Dims();
    stats_dims.back() = 1;
    args.mean = StatsOutput(context, 1, stats_dims);
    args.inv_std_dev = StatsOutput(context, 2, stats_dims);
    if (context.OutputCount() > 3 && context.IsOutputRequested(3))
      args.sum = context.Output(3, shape, ElementType::kFloat).MutableData<float>();
    if (args.rows == 0) return;
    PRISM_ENFORCE(args.cols > 0 && args.rows <= INT32_MAX && args.skip_rows > 0, kNotImplemented,
                  GetNode().Describe(),
                  ": CUDAExecutionProvider normalizes 1 to 2^31-1 rows of "
                  "at least one element, got ",
                  shape.ToString());
    args.x = input.Data<float>();
    args.skip = skip.Data<float>();
    args.bias = bias != nullptr ? bias->Data<float>() : nullptr;
    args.scale = gamma.Data<float>();
    args.shift = beta != nullptr ? beta->Data<float>() : nullptr;
    args.y = output.MutableData<float>();
    PRISM_CUDA_CALL(LaunchLayerNorm(args, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  float epsilon_;
};

// The product of dims [from, end) of a known shape; -1 when a dim is unknown.
int64_t KnownSize(const SymbolicShape& shape, size_t from) {
  int64_t size = 1;
  for (size_t d = from; d < shape.dims.size(); ++d) {
    if (!shape.dims[d].IsKnown()) return -1;
    size *= shape.dims[d].value;
  }
  return size;
}

}  // namespace

void RegisterLayerNormKernels(KernelRegistry& registry) {
  const std::vector<ElementType> f = {ElementType::kFloat};
  // From opset 1, as the CPU EP and onnxruntime register it: LayerNormFusion emits it at the
  // model's opset.
  registry.Register(
      KernelDefBuilder("LayerNormalization")
          .Versions(1)
          .Constraint("T", f, {0, 1, 2}, {0})
          .Constraint("U", f, {}, {1, 2})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<LayerNormKernel>(info); });
  registry.Register(
      KernelDefBuilder("SkipLayerNormalization")
          .Domain(kMsDomain)
          .Versions(1)
          .Constraint("T", f, {0, 1, 2, 3, 4}, {0, 3})
          .Build(),
      [](const OpKernelInfo& info) { return std::make_unique<SkipLayerNormKernel>(info); });
}

std::string LayerNormDeclineReason(const Node& node) {
  if (node.Domain().empty() && node.OpType() == "LayerNormalization") {
    if (const Attribute* stash = node.FindAttribute("stash_type"); stash && stash->i != 1)
      return "CUDAExecutionProvider's LayerNormalization computes in float (stash_type=1), "
             "this node has stash_type=" +
             std::to_string(stash->i);
    const NodeArg* x = node.HasInput(0) ? node.Inputs()[0] : nullptr;
    if (x == nullptr || !x->shape) return "";
    const int64_t rank = static_cast<int64_t>(x->shape->dims.size());
    const Attribute* axis_attribute = node.FindAttribute("axis");
    int64_t axis = axis_attribute != nullptr ? axis_attribute->i : -1;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return "";  // the kernel reports the bad axis
    const int64_t cols = KnownSize(*x->shape, static_cast<size_t>(axis));
    for (size_t i = 1; i < node.InputCount() && i < 3; ++i) {
      const NodeArg* arg = node.Inputs()[i];
      if (arg == nullptr || !arg->shape || cols < 0) continue;
      const int64_t size = KnownSize(*arg->shape, 0);
      if (size >= 0 && size != cols)
        return "CUDAExecutionProvider's LayerNormalization needs " +
               std::string(i == 1 ? "Scale" : "B") + " of the normalized size " +
               std::to_string(cols) + " (no broadcasting), got " + arg->shape->ToString();
    }
  }
  return "";
}

}  // namespace prism::cuda

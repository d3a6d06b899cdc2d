// Pad in constant, edge and reflect modes, by element size (rank up to 8; negative pads crop).
// pads, constant_value and axes are read in CPU memory (opset 11+) or from the attributes
// (2-10). 'wrap' (opset 19) is declined.
#include <cstring>
#include <string>
#include <vector>

#include "framework/float16.h"
#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

constexpr size_t kMaxPadRank = 8;

// The pad value's bytes as the element type holds them (from the float 'value' attribute).
uint64_t ValueBits(float value, ElementType type) {
  uint64_t bits = 0;
  if (type == ElementType::kDouble) {
    const double wide = value;
    std::memcpy(&bits, &wide, sizeof(wide));
  } else if (type == ElementType::kFloat16) {
    bits = Float16(value).bits;
  } else if (type == ElementType::kBFloat16) {
    bits = BFloat16(value).bits;
  } else {
    std::memcpy(&bits, &value, sizeof(value));
  }
  return bits;
}

class PadKernel final : public OpKernel {
 public:
  explicit PadKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        from_attributes_(info.GetNode().OpsetVersion() < 11),
        mode_name_(info.StringOr("mode", "constant")) {
    if (from_attributes_) {
      pads_ = info.Ints("pads");
      value_ = info.FloatOr("value", 0.0f);
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const int64_t rank = static_cast<int64_t>(input.Shape().Rank());
    PRISM_ENFORCE(rank >= 1 && rank <= static_cast<int64_t>(kMaxPadRank), kNotImplemented,
                  GetNode().Describe(), ": CUDAExecutionProvider pads rank 1 to ", kMaxPadRank,
                  ", got ", input.Shape().ToString());
    const PadMode mode = mode_name_ == "edge"      ? PadMode::kEdge
                         : mode_name_ == "reflect" ? PadMode::kReflect
                                                   : PadMode::kConstant;
    std::vector<int64_t> pads = pads_;
    uint64_t value_bits = ValueBits(value_, input.Type());
    std::vector<int64_t> axes;
    if (!from_attributes_) {
      const std::string what = GetNode().Describe();
      pads = ReadHostInts(context.RequiredInput(1), what + " pads");
      if (const Tensor* value = context.Input(2); value != nullptr && value->NumElements() > 0) {
        PRISM_ENFORCE(value->Type() == input.Type() && value->Location().IsCpuAccessible(),
                      kInvalidArgument, what, ": constant_value ", value->Describe(),
                      " must hold one ", ElementTypeName(input.Type()));
        value_bits = 0;
        std::memcpy(&value_bits, value->RawData(), static_cast<size_t>(ElementSize(value->Type())));
      }
      if (const Tensor* given = context.Input(3)) axes = ReadHostInts(*given, what + " axes");
    }
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    PRISM_ENFORCE(pads.size() == 2 * axes.size(), kInvalidArgument, GetNode().Describe(), ": ",
                  pads.size(), " pads for ", axes.size(), " axes (need twice as many)");
    PadIndex index;
    index.rank = static_cast<int>(rank);
    std::vector<int64_t> out_dims = input.Shape().Dims();
    for (int64_t d = 0; d < rank; ++d) index.in_dims[d] = input.Shape()[static_cast<size_t>(d)];
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t axis = static_cast<size_t>(HandleNegativeAxis(axes[i], rank, "Pad axis"));
      const int64_t begin = pads[i], end = pads[i + axes.size()];
      const int64_t dim = input.Shape()[axis];
      out_dims[axis] = dim + begin + end;
      PRISM_ENFORCE(out_dims[axis] >= 0, kInvalidArgument, GetNode().Describe(), ": pads ", begin,
                    " and ", end, " make axis ", axis, " of ", input.Shape().ToString(),
                    " negative");
      const bool grows = begin > 0 || end > 0;
      PRISM_ENFORCE(
          !grows || mode == PadMode::kConstant || dim >= (mode == PadMode::kReflect ? 2 : 1),
          kInvalidArgument, GetNode().Describe(), ": ", mode_name_, " padding needs axis ", axis,
          " of ", input.Shape().ToString(), " to have ",
          mode == PadMode::kReflect ? "at least 2" : "at least 1", " elements");
      index.pads_begin[axis] = begin;
    }
    for (int64_t d = 0; d < rank; ++d) index.out_dims[d] = out_dims[static_cast<size_t>(d)];
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    PRISM_CUDA_CALL(LaunchPad(input.RawData(), output.MutableRawData(), ElementSize(input.Type()),
                              index, mode, value_bits, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  bool from_attributes_;
  std::string mode_name_;
  std::vector<int64_t> pads_;
  float value_ = 0.0f;
};

}  // namespace

void RegisterPadKernels(KernelRegistry& registry) {
  auto factory = [](const OpKernelInfo& info) { return std::make_unique<PadKernel>(info); };
  registry.Register(
      KernelDefBuilder("Pad")
          .Versions(2, 10)
          .Constraint("T", {ElementType::kFloat, ElementType::kFloat16, ElementType::kDouble}, {0},
                      {0})
          .Build(),
      factory);
  registry.Register(KernelDefBuilder("Pad")
                        .Versions(11)
                        .Constraint("T", MovableTypes(), {0, 2}, {0})
                        .Constraint("Tind", {ElementType::kInt32, ElementType::kInt64}, {3})
                        .CpuInput(1)
                        .CpuInput(2)
                        .CpuInput(3)
                        .Build(),
                    factory);
}

std::string PadDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "Pad") return "";
  const Attribute* mode = node.FindAttribute("mode");
  if (mode != nullptr && mode->s != "constant" && mode->s != "edge" && mode->s != "reflect")
    return "CUDAExecutionProvider pads in modes constant, edge and reflect, not mode='" + mode->s +
           "'";
  return RankDeclineReason(node, kMaxPadRank);
}

}  // namespace prism::cuda

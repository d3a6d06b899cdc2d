// Ops whose output is the input's buffer under another shape (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, inference Dropout): no device work at all, the output is a view, as on the
// CPU EP. Their shape and axes inputs are read in CPU memory. Shape and Size read only the input's
// shape and write their small int64 result in CPU memory, where the shape computations that use
// it run.
#include <climits>
#include <optional>
#include <string>

#include "framework/kernel_registry.h"
#include "graph/graph.h"
#include "providers/cpu/tensor/reshape_shape.h"
#include "providers/cpu/tensor/squeeze_shape.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

class ReshapeKernel final : public OpKernel {
 public:
  explicit ReshapeKernel(const OpKernelInfo& info)
      : OpKernel(info), allow_zero_(info.IntOr("allowzero", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& data = context.RequiredInput(0);
    const std::vector<int64_t> requested =
        ReadHostInts(context.RequiredInput(1), GetNode().Describe() + " shape input");
    context.SetOutput(
        0,
        Value(data.Reshaped(cpu::ResolveReshape(data.Shape(), requested, allow_zero_, GetNode()))));
  }

 private:
  bool allow_zero_;
};

class FlattenKernel final : public OpKernel {
 public:
  explicit FlattenKernel(const OpKernelInfo& info) : OpKernel(info), axis_(info.IntOr("axis", 1)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const int64_t rank = static_cast<int64_t>(input.Shape().Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ <= rank, kInvalidArgument, GetNode().Describe(),
                  ": axis ", axis_, " is out of range [", -rank, ", ", rank, "] for input ",
                  input.Shape().ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    context.SetOutput(
        0, Value(input.Reshaped(TensorShape(
               {input.Shape().SizeToDimension(axis), input.Shape().SizeFromDimension(axis)}))));
  }

 private:
  int64_t axis_;
};

// Squeeze (squeeze = true) and Unsqueeze: axes from the attribute before opset 13, else input 1.
class SqueezeKernel final : public OpKernel {
 public:
  SqueezeKernel(const OpKernelInfo& info, bool squeeze)
      : OpKernel(info), squeeze_(squeeze), from_attribute_(info.GetNode().OpsetVersion() < 13) {
    if (from_attribute_ && info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    std::optional<std::vector<int64_t>> axes = axes_attr_;
    if (!from_attribute_)
      if (const Tensor* given = context.Input(1))
        axes = ReadHostInts(*given, GetNode().Describe() + " axes input");
    const TensorShape shape = squeeze_ ? cpu::SqueezedShape(input.Shape(), axes, GetNode())
                                       : cpu::UnsqueezedShape(input.Shape(), axes, GetNode());
    context.SetOutput(0, Value(input.Reshaped(shape)));
  }

 private:
  bool squeeze_;
  bool from_attribute_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

// Identity and inference Dropout (its mask output and training are declined in GetCapability).
class PassThroughKernel final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    if (GetNode().OpType() == "Dropout")
      if (const Tensor* training = context.Input(2))
        PRISM_ENFORCE(training->NumElements() == 1 && !training->Data<bool>()[0], kNotImplemented,
                      GetNode().Describe(),
                      ": CUDAExecutionProvider runs Dropout for inference only (training_mode "
                      "must be false)");
    context.SetOutput(0, Value(context.RequiredInput(0)));
  }
};

class ShapeKernel final : public OpKernel {
 public:
  explicit ShapeKernel(const OpKernelInfo& info)
      : OpKernel(info), start_(info.IntOr("start", 0)), end_(info.IntOr("end", INT64_MAX)) {}

  void Compute(OpKernelContext& context) const override {
    const std::vector<int64_t>& dims = context.RequiredInput(0).Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (GetNode().OpType() == "Size") {
      Tensor& size = context.Output(0, TensorShape(std::vector<int64_t>{}), ElementType::kInt64);
      size.MutableData<int64_t>()[0] = context.RequiredInput(0).Shape().Size();
      return;
    }
    // Negative bounds count from the back; both are clamped to [0, rank].
    auto clamp = [rank](int64_t axis) {
      if (axis < 0) axis = axis < -rank ? 0 : axis + rank;
      return axis < rank ? axis : rank;
    };
    const int64_t start = clamp(start_);
    const int64_t count = clamp(end_) > start ? clamp(end_) - start : 0;
    Tensor& output = context.Output(0, TensorShape({count}), ElementType::kInt64);
    for (int64_t i = 0; i < count; ++i)
      output.MutableData<int64_t>()[i] = dims[static_cast<size_t>(start + i)];
  }

 private:
  int64_t start_;
  int64_t end_;
};

template <typename Kernel>
KernelFactory Factory() {
  return [](const OpKernelInfo& info) { return std::make_unique<Kernel>(info); };
}

KernelFactory SqueezeFactory(bool squeeze) {
  return [squeeze](const OpKernelInfo& info) {
    return std::make_unique<SqueezeKernel>(info, squeeze);
  };
}

}  // namespace

void RegisterViewKernels(KernelRegistry& registry) {
  const std::vector<ElementType>& types = MovableTypes();
  registry.Register(
      KernelDefBuilder("Reshape").Versions(5).Constraint("T", types, {0}, {0}).CpuInput(1).Build(),
      Factory<ReshapeKernel>());
  registry.Register(
      KernelDefBuilder("Flatten").Versions(1).Constraint("T", types, {0}, {0}).Build(),
      Factory<FlattenKernel>());
  for (const bool squeeze : {true, false}) {
    const char* op = squeeze ? "Squeeze" : "Unsqueeze";
    registry.Register(KernelDefBuilder(op).Versions(1, 12).Constraint("T", types, {0}, {0}).Build(),
                      SqueezeFactory(squeeze));
    registry.Register(
        KernelDefBuilder(op).Versions(13).Constraint("T", types, {0}, {0}).CpuInput(1).Build(),
        SqueezeFactory(squeeze));
  }
  registry.Register(
      KernelDefBuilder("Identity").Versions(1).Constraint("T", types, {0}, {0}).Build(),
      Factory<PassThroughKernel>());
  const std::vector<ElementType> floats = {ElementType::kFloat, ElementType::kFloat16,
                                           ElementType::kDouble, ElementType::kBFloat16};
  registry.Register(
      KernelDefBuilder("Dropout").Versions(7, 11).Constraint("T", floats, {0}, {0}).Build(),
      Factory<PassThroughKernel>());
  registry.Register(KernelDefBuilder("Dropout")
                        .Versions(12)
                        .Constraint("T", floats, {0}, {0})
                        .Constraint("T1", floats, {1})
                        .Constraint("T2", {ElementType::kBool}, {2})
                        .CpuInput(1)
                        .CpuInput(2)
                        .Build(),
                    Factory<PassThroughKernel>());
  for (const char* op : {"Shape", "Size"})
    registry.Register(KernelDefBuilder(op)
                          .Versions(1)
                          .Constraint("T", types, {0})
                          .Constraint("T1", {ElementType::kInt64}, {}, {0})
                          .CpuOutput(0)
                          .Build(),
                      Factory<ShapeKernel>());
}

std::string ViewDeclineReason(const Node& node) {
  if (node.OpType() != "Dropout") return "";
  if (node.HasOutput(1))
    return "CUDAExecutionProvider runs Dropout for inference without its mask output (output 1 "
           "is used)";
  if (node.HasInput(2)) {
    const std::string& name = node.Inputs()[2]->name;
    const Graph& graph = node.OwnerGraph();
    const Tensor* training =
        graph.IsConstantInitializer(name) ? graph.FindInitializer(name) : nullptr;
    if (training == nullptr || training->Type() != ElementType::kBool ||
        training->NumElements() != 1 || training->Data<bool>()[0])
      return "CUDAExecutionProvider runs Dropout for inference only: training_mode is not a "
             "constant false";
  }
  return "";
}

}  // namespace prism::cuda

// Elementwise float32 ops on the GPU: binary math with numpy broadcasting (Add, Sub, Mul, Div,
// Pow, Max, Min of two inputs) and unary math and activations.
#include <string>

#include "framework/kernel_registry.h"
#include "providers/cpu/common/broadcast.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_kernels.h"
#include "providers/cuda/kernels/device_kernels.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

struct BinaryEntry {
  const char* op_type;
  BinaryOp op;
  int since;
};
constexpr BinaryEntry kBinary[] = {
    {"Add", BinaryOp::kAdd, 7}, {"Sub", BinaryOp::kSub, 7}, {"Mul", BinaryOp::kMul, 7},
    {"Div", BinaryOp::kDiv, 7}, {"Pow", BinaryOp::kPow, 7}, {"Max", BinaryOp::kMax, 8},
    {"Min", BinaryOp::kMin, 8},
};

struct UnaryEntry {
  const char* op_type;
  UnaryOp op;
  int since;
};
constexpr UnaryEntry kUnary[] = {
    {"Relu", UnaryOp::kRelu, 6}, {"Sigmoid", UnaryOp::kSigmoid, 6},
    {"Tanh", UnaryOp::kTanh, 6}, {"Exp", UnaryOp::kExp, 6},
    {"Log", UnaryOp::kLog, 6},   {"Sqrt", UnaryOp::kSqrt, 6},
    {"Neg", UnaryOp::kNeg, 6},   {"Abs", UnaryOp::kAbs, 6},
    {"Erf", UnaryOp::kErf, 9},   {"LeakyRelu", UnaryOp::kLeakyRelu, 6},
    {"Elu", UnaryOp::kElu, 6},   {"Gelu", UnaryOp::kGeluErf, 20},
};

class BinaryKernel final : public OpKernel {
 public:
  BinaryKernel(const OpKernelInfo& info, BinaryOp op)
      : OpKernel(info), provider_(ProviderOf(info)), op_(op) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const TensorShape shape = cpu::BroadcastShapes({a.Shape(), b.Shape()}, GetNode().Describe());
    PRISM_ENFORCE(shape.Rank() <= static_cast<size_t>(kMaxBroadcastRank), kNotImplemented,
                  GetNode().Describe(), ": CUDAExecutionProvider broadcasts up to rank ",
                  kMaxBroadcastRank, ", got ", shape.ToString());
    Tensor& y = context.Output(0, shape, ElementType::kFloat);
    BroadcastIndex index;
    index.rank = static_cast<int>(shape.Rank());
    for (size_t d = 0; d < shape.Rank(); ++d) index.out_dims[d] = shape[d];
    BroadcastStrides(a.Shape(), shape, index.a_strides);
    BroadcastStrides(b.Shape(), shape, index.b_strides);
    const bool same = a.Shape() == shape && b.Shape() == shape;
    PRISM_CUDA_CALL(LaunchBinaryFloat(op_, a.Data<float>(), b.Data<float>(), y.MutableData<float>(),
                                      shape.Size(), index, same, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  BinaryOp op_;
};

class UnaryKernel final : public OpKernel {
 public:
  UnaryKernel(const OpKernelInfo& info, UnaryOp op)
      : OpKernel(info), provider_(ProviderOf(info)), op_(op) {
    if (op_ == UnaryOp::kLeakyRelu) alpha_ = info.FloatOr("alpha", 0.01f);
    if (op_ == UnaryOp::kElu) alpha_ = info.FloatOr("alpha", 1.0f);
    if (op_ == UnaryOp::kGeluErf && info.StringOr("approximate", "none") == "tanh")
      op_ = UnaryOp::kGeluTanh;
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), ElementType::kFloat);
    PRISM_CUDA_CALL(LaunchUnaryFloat(op_, x.Data<float>(), y.MutableData<float>(), x.Shape().Size(),
                                     alpha_, provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
  UnaryOp op_;
  float alpha_ = 0.0f;
};

}  // namespace

void RegisterElementwiseKernels(KernelRegistry& registry) {
  for (const BinaryEntry& entry : kBinary) {
    const BinaryOp op = entry.op;
    KernelDefBuilder builder(entry.op_type);
    builder.Versions(entry.since);
    if (entry.op == BinaryOp::kPow)
      builder.Constraint("T", {ElementType::kFloat}, {0}, {0})
          .Constraint("T1", {ElementType::kFloat}, {1});
    else
      builder.Constraint("T", {ElementType::kFloat}, {0, 1}, {0});
    registry.Register(builder.Build(), [op](const OpKernelInfo& info) {
      return std::make_unique<BinaryKernel>(info, op);
    });
  }
  for (const UnaryEntry& entry : kUnary) {
    const UnaryOp op = entry.op;
    registry.Register(
        KernelDefBuilder(entry.op_type)
            .Versions(entry.since)
            .Constraint("T", {ElementType::kFloat}, {0}, {0})
            .MayInplace(0, 0)
            .Build(),
        [op](const OpKernelInfo& info) { return std::make_unique<UnaryKernel>(info, op); });
  }
}

std::string ElementwiseDeclineReason(const Node& node) {
  const std::string& op = node.OpType();
  if (!node.Domain().empty()) return "";
  if ((op == "Max" || op == "Min") && node.InputCount() != 2)
    return "CUDAExecutionProvider runs " + op + " of exactly two inputs, this node has " +
           std::to_string(node.InputCount());
  if (op == "Gelu") {
    const Attribute* approximate = node.FindAttribute("approximate");
    if (approximate != nullptr && approximate->s != "none" && approximate->s != "tanh")
      return "Gelu approximate='" + approximate->s + "' is not 'none' or 'tanh'";
  }
  for (const NodeArg* output : node.Outputs())
    if (output != nullptr && output->shape &&
        output->shape->dims.size() > static_cast<size_t>(kMaxBroadcastRank))
      return "CUDAExecutionProvider's elementwise kernels take rank up to " +
             std::to_string(kMaxBroadcastRank) + ", the output has rank " +
             std::to_string(output->shape->dims.size());
  return "";
}

}  // namespace prism::cuda

// com.microsoft.nchwc MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool (version 1,
// float): 2-D pooling of an NCHWc tensor [N, Cp, H, W] (Cp a multiple of the block b,
// mlas/nchwc.h) into an NCHWc tensor. MaxPool and AveragePool take ONNX's attributes (auto_pad,
// kernel_shape, pads, strides, dilations, ceil_mode, count_include_pad) with storage_order 0 and
// a single output (no Indices); the global pools cover the plane.
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/nchwc.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/nn/pool_attributes.h"

namespace prism::cpu {
namespace {

// X must be a 4-D float NCHWc tensor: its channels a multiple of the block.
void CheckBlockedInput(const Tensor& x, const std::string& node, const char* op) {
  const int64_t b = mlas::NchwcBlockSize();
  PRISM_ENFORCE(x.Type() == ElementType::kFloat && x.Shape().Rank() == 4 && x.Shape()[1] % b == 0,
                kInvalidArgument, node, ": NCHWc ", op,
                " input X must be a 4-D float NCHWc tensor with channels a multiple of the block ",
                b, ", got ", x.Describe());
}

void RunPool(OpKernelContext& context, const mlas::NchwcPoolShape& shape, Tensor& y,
             const Tensor& x) {
  const float* input = x.Data<float>();
  float* output = y.MutableData<float>();
  const double cost = static_cast<double>(shape.output_w * mlas::NchwcBlockSize() * shape.kernel_h *
                                          shape.kernel_w);
  ThreadPool::TryParallelFor(
      context.IntraOpThreadPool(), mlas::NchwcPoolWorkItems(shape), cost,
      [&](int64_t begin, int64_t end) { mlas::NchwcPool(shape, input, output, begin, end); });
}

class NchwcPool final : public OpKernel {
 public:
  explicit NchwcPool(const OpKernelInfo& info)
      : OpKernel(info),
        is_max_(info.GetNode().OpType() == "MaxPool"),
        attrs_(PoolAttributes::Parse(info)) {
    const std::string node = GetNode().Describe();
    PRISM_ENFORCE(attrs_.SpatialRank() == 2, kInvalidArgument, node,
                  ": NCHWc pooling is 2-D: kernel_shape needs 2 values, got ",
                  attrs_.kernel_shape.size());
    PRISM_ENFORCE(attrs_.storage_order == 0, kInvalidArgument, node,
                  ": NCHWc MaxPool supports storage_order 0 only, got ", attrs_.storage_order);
    const std::vector<NodeArg*>& outputs = GetNode().Outputs();
    PRISM_ENFORCE(outputs.size() <= 1 || outputs[1] == nullptr || outputs[1]->name.empty(),
                  kInvalidArgument, node, ": NCHWc MaxPool has one output (no Indices), got ",
                  outputs.size());
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    CheckBlockedInput(x, node, GetNode().OpType().c_str());
    const PoolGeometry g = attrs_.Geometry(x.Shape(), GetNode());
    const TensorShape& xs = x.Shape();
    mlas::NchwcPoolShape shape;
    shape.batch = xs[0];
    shape.channels = xs[1];
    shape.input_h = xs[2];
    shape.input_w = xs[3];
    shape.output_h = g.output[0];
    shape.output_w = g.output[1];
    shape.kernel_h = attrs_.kernel_shape[0];
    shape.kernel_w = attrs_.kernel_shape[1];
    shape.stride_h = attrs_.strides[0];
    shape.stride_w = attrs_.strides[1];
    shape.dilation_h = attrs_.dilations[0];
    shape.dilation_w = attrs_.dilations[1];
    shape.pad_top = g.pad_begin[0];
    shape.pad_left = g.pad_begin[1];
    shape.pad_bottom = g.pad_end[0];
    shape.pad_right = g.pad_end[1];
    shape.kind = is_max_                    ? mlas::NchwcPoolKind::kMax
                 : attrs_.count_include_pad ? mlas::NchwcPoolKind::kAverageIncludePad
                                            : mlas::NchwcPoolKind::kAverageExcludePad;
    Tensor& y = context.Output(
        0, TensorShape({shape.batch, shape.channels, shape.output_h, shape.output_w}),
        ElementType::kFloat);
    if (y.NumElements() == 0) return;
    RunPool(context, shape, y, x);
  }

 private:
  bool is_max_;
  PoolAttributes attrs_;
};

class NchwcGlobalPool final : public OpKernel {
 public:
  explicit NchwcGlobalPool(const OpKernelInfo& info)
      : OpKernel(info), is_max_(info.GetNode().OpType() == "GlobalMaxPool") {}

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    CheckBlockedInput(x, node, GetNode().OpType().c_str());
    const TensorShape& xs = x.Shape();
    PRISM_ENFORCE(!is_max_ || xs[0] * xs[1] == 0 || xs[2] * xs[3] > 0, kInvalidArgument, node,
                  ": NCHWc GlobalMaxPool input X ", xs.ToString(),
                  " has empty planes, which have no maximum");
    mlas::NchwcPoolShape shape;
    shape.batch = xs[0];
    shape.channels = xs[1];
    shape.input_h = shape.kernel_h = xs[2];
    shape.input_w = shape.kernel_w = xs[3];
    shape.output_h = shape.output_w = 1;
    shape.kind = is_max_ ? mlas::NchwcPoolKind::kMax : mlas::NchwcPoolKind::kAverageExcludePad;
    Tensor& y = context.Output(0, TensorShape({xs[0], xs[1], 1, 1}), ElementType::kFloat);
    if (y.NumElements() == 0) return;
    RunPool(context, shape, y, x);
  }

 private:
  bool is_max_;
};

void RegisterNchwcPoolKernels(KernelRegistry& registry) {
  for (const char* op : {"MaxPool", "AveragePool"})
    registry.Register(KernelDefBuilder(op)
                          .Domain("com.microsoft.nchwc")
                          .Versions(1)
                          .Constraint("T", {ElementType::kFloat}, {0}, {0})
                          .Build(),
                      MakeKernelFactory<NchwcPool>());
  for (const char* op : {"GlobalMaxPool", "GlobalAveragePool"})
    registry.Register(KernelDefBuilder(op)
                          .Domain("com.microsoft.nchwc")
                          .Versions(1)
                          .Constraint("T", {ElementType::kFloat}, {0}, {0})
                          .Build(),
                      MakeKernelFactory<NchwcGlobalPool>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nchwc_pool, RegisterNchwcPoolKernels);

}  // namespace prism::cpu

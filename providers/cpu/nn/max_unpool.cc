// MaxUnpool (opsets 9, 11, 22): the partial inverse of MaxPool. Y starts as zeros and each X
// value goes to the flat position its index names: Y.flat[I[j]] = X[j]. Y's shape is
// output_shape when given, else [N, C, (in - 1) * stride - pad_begin - pad_end + kernel, ...].
// The indices are MaxPool's second output, flat over MaxPool's input, which is the tensor Y
// rebuilds: with output_shape they index that shape, as the spec and onnxruntime read it
// (onnx.reference indexes the default shape and pads it at the end instead; see
// tests/conformance/expected_failures.txt). Several X values naming one position: the last
// written wins, as in both.
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"

namespace prism::cpu {
namespace {

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

class MaxUnpool final : public OpKernel {
 public:
  explicit MaxUnpool(const OpKernelInfo& info)
      : OpKernel(info),
        kernel_shape_(info.IntsOr("kernel_shape", {})),
        strides_(info.IntsOr("strides", {})),
        pads_(info.IntsOr("pads", {})) {
    const std::string node = GetNode().Describe();
    const size_t rank = kernel_shape_.size();
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node, ": attribute kernel_shape is required");
    if (strides_.empty()) strides_.assign(rank, 1);
    if (pads_.empty()) pads_.assign(2 * rank, 0);
    PRISM_ENFORCE(strides_.size() == rank && pads_.size() == 2 * rank, kInvalidArgument, node,
                  ": strides ", JoinInts(strides_), " and pads ", JoinInts(pads_), " must have ",
                  rank, " and ", 2 * rank, " values for kernel_shape ", JoinInts(kernel_shape_));
    for (size_t d = 0; d < rank; ++d)
      PRISM_ENFORCE(
          kernel_shape_[d] >= 1 && strides_[d] >= 1 && pads_[d] >= 0 && pads_[d + rank] >= 0,
          kInvalidArgument, node, ": kernel_shape ", JoinInts(kernel_shape_), " and strides ",
          JoinInts(strides_), " must be positive, pads ", JoinInts(pads_), " not negative");
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const size_t rank = kernel_shape_.size();
    PRISM_ENFORCE(x.Shape().Rank() == rank + 2, kInvalidArgument, node, ": X ",
                  x.Shape().ToString(), " must have rank ", rank + 2, " for kernel_shape ",
                  JoinInts(kernel_shape_));
    PRISM_ENFORCE(indices.Shape() == x.Shape(), kInvalidArgument, node, ": I ",
                  indices.Shape().ToString(), " must have the shape of X ", x.Shape().ToString());
    std::vector<int64_t> dims = {x.Shape()[0], x.Shape()[1]};
    for (size_t d = 0; d < rank; ++d)
      dims.push_back((x.Shape()[d + 2] - 1) * strides_[d] - pads_[d] - pads_[d + rank] +
                     kernel_shape_[d]);
    const Tensor* output_shape = context.Input(2);
    if (output_shape != nullptr) {
      const std::vector<int64_t> given = ReadIntList(*output_shape, node + " input 'output_shape'");
      PRISM_ENFORCE(given.size() == rank + 2 && given[0] == dims[0] && given[1] == dims[1],
                    kInvalidArgument, node, ": output_shape ", JoinInts(given), " must be [",
                    dims[0], ", ", dims[1], ", ", rank, " spatial dims]");
      for (size_t d = 0; d < rank; ++d)
        PRISM_ENFORCE(given[d + 2] >= 0, kInvalidArgument, node, ": output_shape ", JoinInts(given),
                      " holds a negative dim");
      dims = given;
    }
    for (int64_t dim : dims)
      PRISM_ENFORCE(dim >= 0, kInvalidArgument, node, ": X ", x.Shape().ToString(),
                    " with kernel_shape ", JoinInts(kernel_shape_), " and pads ", JoinInts(pads_),
                    " gives the negative output shape ", JoinInts(dims));
    Tensor& y = context.Output(0, TensorShape(dims), x.Type());
    const int64_t size = y.NumElements();
    // Every registered type is floating point, whose zero is all bits clear.
    if (size > 0) std::memset(y.MutableRawData(), 0, y.SizeInBytes());
    const int64_t* index = indices.Data<int64_t>();
    for (int64_t j = 0; j < x.NumElements(); ++j) {
      PRISM_ENFORCE(index[j] >= 0 && index[j] < size, kInvalidArgument, node, ": I[", j,
                    "] = ", index[j], " is outside the output of ", size, " elements ",
                    y.Shape().ToString());
      CopyElements(x, j, y, index[j], 1);
    }
  }

 private:
  std::vector<int64_t> kernel_shape_, strides_, pads_;
};

void RegisterMaxUnpoolKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const auto add = [&](int since, int end, std::vector<E> types) {
    registry.Register(KernelDefBuilder("MaxUnpool")
                          .Versions(since, end)
                          .Constraint("T1", std::move(types), {0}, {0})
                          .Constraint("T2", {E::kInt64}, {1, 2})
                          .CpuInput(2)
                          .Build(),
                      MakeKernelFactory<MaxUnpool>());
  };
  add(9, 10, classic);
  add(11, 21, classic);
  add(22, INT_MAX, {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_max_unpool, RegisterMaxUnpoolKernels);

}  // namespace prism::cpu

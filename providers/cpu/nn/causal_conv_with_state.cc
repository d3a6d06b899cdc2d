// CausalConvWithState (opset 27): a depthwise causal 1-D convolution that carries its left
// context. input [B, C, L], weight [C, 1, k], optional bias [C] and past_state [B, C, k - 1]
// (zeros when absent): output[b, c, t] = bias[c] + sum_j weight[c, 0, j] * padded[b, c, t + j]
// over padded = past_state ++ input, then optionally SiLU (activation "silu" or its alias
// "swish", computed in float as the reference does); present_state is padded's last k - 1
// positions. Computed in double, the convolution rounded to the type before the activation.
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct CausalConvImpl {
  void operator()(const Tensor& input, const Tensor& weight, const Tensor* bias, const Tensor* past,
                  bool silu, Tensor& output, Tensor& present) const {
    const int64_t batch = input.Shape()[0], channels = input.Shape()[1];
    const int64_t length = input.Shape()[2], k = weight.Shape()[2];
    const T* x = input.Data<T>();
    const T* w = weight.Data<T>();
    T* y = output.MutableData<T>();
    T* state = present.MutableData<T>();
    std::vector<double> padded(static_cast<size_t>(length + k - 1));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t j = 0; j < k - 1; ++j)
          padded[j] =
              past != nullptr ? ToDouble(past->Data<T>()[(b * channels + c) * (k - 1) + j]) : 0.0;
        for (int64_t t = 0; t < length; ++t)
          padded[k - 1 + t] = ToDouble(x[(b * channels + c) * length + t]);
        const double shift = bias != nullptr ? ToDouble(bias->Data<T>()[c]) : 0.0;
        for (int64_t t = 0; t < length; ++t) {
          double sum = shift;
          for (int64_t j = 0; j < k; ++j) sum += ToDouble(w[c * k + j]) * padded[t + j];
          T value = FromCompute<T>(sum);
          if (silu) {
            const float v = static_cast<float>(ToDouble(value));
            value = FromCompute<T>(static_cast<double>(v * (1.0f / (1.0f + std::exp(-v)))));
          }
          y[(b * channels + c) * length + t] = value;
        }
        for (int64_t j = 0; j < k - 1; ++j)
          state[(b * channels + c) * (k - 1) + j] = FromCompute<T>(padded[length + j]);
      }
    }
  }
};

class CausalConvWithState final : public OpKernel {
 public:
  explicit CausalConvWithState(const OpKernelInfo& info)
      : OpKernel(info), activation_(info.StringOr("activation", "none")) {
    PRISM_ENFORCE(activation_ == "none" || activation_ == "silu" || activation_ == "swish",
                  kInvalidArgument, info.GetNode().Describe(), ": activation '", activation_,
                  "' is not none, silu or swish");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& weight = context.RequiredInput(1);
    const Tensor* bias = context.Input(2);
    const Tensor* past = context.Input(3);
    PRISM_ENFORCE(input.Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input must be [batch, channels, length], got ", input.Shape().ToString());
    const int64_t batch = input.Shape()[0], channels = input.Shape()[1];
    PRISM_ENFORCE(weight.Shape().Rank() == 3 && weight.Shape()[0] == channels &&
                      weight.Shape()[1] == 1 && weight.Shape()[2] >= 1,
                  kInvalidArgument, node.Describe(), ": weight must be [", channels,
                  ", 1, k], got ", weight.Shape().ToString());
    const int64_t k = weight.Shape()[2];
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Shape().Rank() == 1 && bias->Shape()[0] == channels, kInvalidArgument,
                    node.Describe(), ": bias must be [", channels, "], got ",
                    bias->Shape().ToString());
    const std::vector<int64_t> state_dims = {batch, channels, k - 1};
    if (past != nullptr)
      PRISM_ENFORCE(past->Shape().Dims() == state_dims, kInvalidArgument, node.Describe(),
                    ": past_state must be ", TensorShape(state_dims).ToString(), ", got ",
                    past->Shape().ToString());
    for (const Tensor* t : {&weight, bias, past})
      PRISM_ENFORCE(t == nullptr || t->Type() == input.Type(), kInvalidArgument, node.Describe(),
                    ": every input must have input's type ", ElementTypeName(input.Type()));
    Tensor& output = context.Output(0, input.Shape(), input.Type());
    Tensor& present = context.Output(1, TensorShape(state_dims), input.Type());
    DispatchByType<CausalConvImpl, TypeList<float, Float16, BFloat16>>(
        input.Type(), node.OpType(), input, weight, bias, past, activation_ != "none", output,
        present);
  }

 private:
  std::string activation_;
};

void RegisterCausalConvWithStateKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("CausalConvWithState")
          .Versions(27)
          .Constraint("T", {E::kFloat, E::kFloat16, E::kBFloat16}, {0, 1, 2, 3}, {0, 1})
          .Build(),
      MakeKernelFactory<CausalConvWithState>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_causal_conv_with_state, RegisterCausalConvWithStateKernels);

}  // namespace prism::cpu

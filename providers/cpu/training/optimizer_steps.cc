// The optimizer steps of ai.onnx.preview.training (version 1): Adagrad, Adam and Momentum update
// n tensors at once. Inputs: the learning rate R and the step count T (scalars), then n X's,
// n G's (gradients) and the optimizer's n states of each kind; outputs: the n new X's and the
// n new states of each kind. They are plain elementwise formulas, so an inference runtime can
// run a training step that a model exports (the spec's formulas, in double, rounded once):
//   all:      g' = norm_coefficient * x + g
//   Adagrad:  h = h + g'^2; x = x - R / (1 + T * decay_factor) * g' / (sqrt(h) + epsilon)
//   Adam:     v = alpha v + (1 - alpha) g'; h = beta h + (1 - beta) g'^2;
//             r = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//             x = (1 - norm_coefficient_post) (x - r v / (sqrt(h) + epsilon))
//   Momentum: v = alpha v + (T > 0 ? beta : 1) g'; x = x - R v (standard) or
//             x - R (g' + alpha v) (nesterov)
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

enum class Optimizer { kAdagrad, kAdam, kMomentum };

double ReadNumber(const Tensor& t, int64_t i) {
  return t.Type() == ElementType::kDouble ? t.Data<double>()[i]
                                          : static_cast<double>(t.Data<float>()[i]);
}

void WriteNumber(Tensor& t, int64_t i, double value) {
  if (t.Type() == ElementType::kDouble)
    t.MutableData<double>()[i] = value;
  else
    t.MutableData<float>()[i] = static_cast<float>(value);
}

template <Optimizer kind>
class OptimizerStep final : public OpKernel {
 public:
  // States per tensor besides X and G: Adagrad h; Adam v, h; Momentum v.
  static constexpr int kStates = kind == Optimizer::kAdam ? 2 : 1;

  explicit OptimizerStep(const OpKernelInfo& info)
      : OpKernel(info),
        norm_coefficient_(kind == Optimizer::kMomentum ? info.Float("norm_coefficient")
                                                       : info.FloatOr("norm_coefficient", 0.0f)),
        epsilon_(kind == Optimizer::kMomentum ? 0.0f : info.FloatOr("epsilon", 1e-6f)),
        decay_factor_(kind == Optimizer::kAdagrad ? info.FloatOr("decay_factor", 0.0f) : 0.0f),
        alpha_(kind == Optimizer::kAdam       ? info.FloatOr("alpha", 0.9f)
               : kind == Optimizer::kMomentum ? info.Float("alpha")
                                              : 0.0f),
        beta_(kind == Optimizer::kAdam       ? info.FloatOr("beta", 0.999f)
              : kind == Optimizer::kMomentum ? info.Float("beta")
                                             : 0.0f),
        norm_coefficient_post_(
            kind == Optimizer::kAdam ? info.FloatOr("norm_coefficient_post", 0.0f) : 0.0f) {
    if constexpr (kind == Optimizer::kMomentum) {
      const std::string mode = info.String("mode");
      PRISM_ENFORCE(mode == "standard" || mode == "nesterov", kInvalidArgument,
                    GetNode().Describe(), ": mode '", mode, "' is not standard or nesterov");
      nesterov_ = mode == "nesterov";
    }
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& rate = context.RequiredInput(0);
    const Tensor& step = context.RequiredInput(1);
    PRISM_ENFORCE(rate.NumElements() == 1 && step.NumElements() == 1, kInvalidArgument, node,
                  ": R and T must be scalars, got ", rate.Describe(), " and ", step.Describe());
    const size_t tensors_in = context.InputCount() - 2;
    const size_t per_tensor = 2 + kStates;  // X, G and the states
    PRISM_ENFORCE(tensors_in > 0 && tensors_in % per_tensor == 0 &&
                      context.OutputCount() == tensors_in / per_tensor * (1 + kStates),
                  kInvalidArgument, node, ": ", tensors_in, " inputs after R and T and ",
                  context.OutputCount(), " outputs do not make n groups of ", per_tensor,
                  " inputs (X, G, states) and ", 1 + kStates, " outputs");
    const size_t n = tensors_in / per_tensor;
    const double r = ReadNumber(rate, 0);
    const int64_t t = step.Data<int64_t>()[0];
    for (size_t i = 0; i < n; ++i) {
      const Tensor& x = context.RequiredInput(2 + i);
      const Tensor& g = context.RequiredInput(2 + n + i);
      std::vector<const Tensor*> states;
      for (int s = 0; s < kStates; ++s) {
        states.push_back(&context.RequiredInput(2 + (2 + s) * n + i));
        PRISM_ENFORCE(states.back()->Shape() == x.Shape(), kInvalidArgument, node, ": state ", s,
                      " of tensor ", i, " is ", states.back()->Shape().ToString(), ", X is ",
                      x.Shape().ToString());
      }
      PRISM_ENFORCE(g.Shape() == x.Shape(), kInvalidArgument, node, ": G of tensor ", i, " is ",
                    g.Shape().ToString(), ", X is ", x.Shape().ToString());
      Tensor& x_new = context.Output(i, x.Shape(), x.Type());
      std::vector<Tensor*> states_new;
      for (int s = 0; s < kStates; ++s)
        states_new.push_back(&context.Output((1 + s) * n + i, x.Shape(), states[s]->Type()));
      for (int64_t e = 0; e < x.NumElements(); ++e) {
        const double xv = ReadNumber(x, e);
        const double gr = norm_coefficient_ * xv + ReadNumber(g, e);
        if constexpr (kind == Optimizer::kAdagrad) {
          const double h = ReadNumber(*states[0], e) + gr * gr;
          const double adjusted = r / (1.0 + static_cast<double>(t) * decay_factor_);
          WriteNumber(x_new, e, xv - adjusted * gr / (std::sqrt(h) + epsilon_));
          WriteNumber(*states_new[0], e, h);
        } else if constexpr (kind == Optimizer::kAdam) {
          const double v = alpha_ * ReadNumber(*states[0], e) + (1.0 - alpha_) * gr;
          const double h = beta_ * ReadNumber(*states[1], e) + (1.0 - beta_) * gr * gr;
          const double td = static_cast<double>(t);
          const double adjusted =
              t > 0 ? r * std::sqrt(1.0 - std::pow(beta_, td)) / (1.0 - std::pow(alpha_, td)) : r;
          const double moved = xv - adjusted * (v / (std::sqrt(h) + epsilon_));
          WriteNumber(x_new, e, (1.0 - norm_coefficient_post_) * moved);
          WriteNumber(*states_new[0], e, v);
          WriteNumber(*states_new[1], e, h);
        } else {
          const double v = alpha_ * ReadNumber(*states[0], e) + (t > 0 ? beta_ : 1.0) * gr;
          WriteNumber(x_new, e, nesterov_ ? xv - r * (gr + alpha_ * v) : xv - r * v);
          WriteNumber(*states_new[0], e, v);
        }
      }
    }
  }

 private:
  double norm_coefficient_, epsilon_, decay_factor_, alpha_, beta_, norm_coefficient_post_;
  bool nesterov_ = false;
};

void RegisterOptimizerStepKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto add = [&](const char* op, KernelFactory factory) {
    registry.Register(
        KernelDefBuilder(op)
            .Domain("ai.onnx.preview.training")
            .Versions(1, INT_MAX)
            .Constraint("T1", {E::kFloat, E::kDouble}, {0})
            .Constraint("T2", {E::kInt64}, {1})
            .Constraint("T3", {E::kFloat, E::kDouble}, {kVariadicFrom(2)}, {kVariadicFrom(0)})
            .CpuInput(0)
            .CpuInput(1)
            .Build(),
        std::move(factory));
  };
  add("Adagrad", MakeKernelFactory<OptimizerStep<Optimizer::kAdagrad>>());
  add("Adam", MakeKernelFactory<OptimizerStep<Optimizer::kAdam>>());
  add("Momentum", MakeKernelFactory<OptimizerStep<Optimizer::kMomentum>>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(training_optimizer_steps, RegisterOptimizerStepKernels);

}  // namespace prism::cpu

// LinearAttention (opset 27): a recurrent state S [B, kv_heads, d_k, d_v] per batch and head,
// updated token by token (query, key, value are [B, T, heads * d]):
//   gated rules: S *= exp(decay_t)   (decay per head, or per key dim)
//   delta rules: v_t = beta_t * (v_t - S^T k_t)   (beta per head, or one for all)
//   S += k_t v_t^T;   output_t = scale * q_t^T S   (query head h reads kv head h / group)
// update_rule: linear, gated, delta or gated_delta (the default); decay is required exactly by
// the gated rules and beta by the delta rules. scale 0 means 1/sqrt(d_k); chunk_size is a tuning
// hint with no effect on the result. past_state (type S) seeds S (zeros when absent);
// present_state has past_state's type, or query's without it. Computed in double.
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, Float16, BFloat16>;

template <typename T>
struct ReadDoubles {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(tensor.Data<T>()[i]);
  }
};

template <typename T>
struct WriteDoubles {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    for (size_t i = 0; i < values.size(); ++i)
      tensor.MutableData<T>()[i] = FromCompute<T>(values[i]);
  }
};

class LinearAttention final : public OpKernel {
 public:
  explicit LinearAttention(const OpKernelInfo& info)
      : OpKernel(info),
        q_heads_(info.IntOr("q_num_heads", 0)),
        kv_heads_(info.IntOr("kv_num_heads", 0)),
        scale_(info.FloatOr("scale", 0.0f)),
        rule_(info.StringOr("update_rule", "gated_delta")) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(
        rule_ == "linear" || rule_ == "gated" || rule_ == "delta" || rule_ == "gated_delta",
        kInvalidArgument, node.Describe(), ": update_rule '", rule_,
        "' is not linear, gated, delta or gated_delta");
    PRISM_ENFORCE(q_heads_ > 0 && kv_heads_ > 0 && q_heads_ % kv_heads_ == 0, kInvalidArgument,
                  node.Describe(), ": q_num_heads (", q_heads_,
                  ") must be a positive multiple of kv_num_heads (", kv_heads_, ")");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& query = context.RequiredInput(0);
    const Tensor& key = context.RequiredInput(1);
    const Tensor& value = context.RequiredInput(2);
    const Tensor* past = context.Input(3);
    const Tensor* decay = context.Input(4);
    const Tensor* beta = context.Input(5);
    const bool gated = rule_ == "gated" || rule_ == "gated_delta";
    const bool delta = rule_ == "delta" || rule_ == "gated_delta";
    PRISM_ENFORCE((decay != nullptr) == gated, kInvalidArgument, node.Describe(), ": update_rule '",
                  rule_, gated ? "' requires" : "' forbids", " input decay");
    PRISM_ENFORCE((beta != nullptr) == delta, kInvalidArgument, node.Describe(), ": update_rule '",
                  rule_, delta ? "' requires" : "' forbids", " input beta");
    for (const Tensor* t : {&query, &key, &value})
      PRISM_ENFORCE(t->Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                    ": query, key and value must be [B, T, heads * d], got ",
                    t->Shape().ToString());
    const int64_t batch = query.Shape()[0], steps = query.Shape()[1];
    PRISM_ENFORCE(query.Shape()[2] % q_heads_ == 0 && key.Shape()[2] % kv_heads_ == 0 &&
                      value.Shape()[2] % kv_heads_ == 0,
                  kInvalidArgument, node.Describe(), ": hidden sizes do not split into heads");
    const int64_t dk = query.Shape()[2] / q_heads_, dv = value.Shape()[2] / kv_heads_;
    PRISM_ENFORCE(
        key.Shape()[2] / kv_heads_ == dk && key.Shape()[0] == batch && value.Shape()[0] == batch &&
            key.Shape()[1] == steps && value.Shape()[1] == steps,
        kInvalidArgument, node.Describe(), ": key ", key.Shape().ToString(), " and value ",
        value.Shape().ToString(), " do not match query ", query.Shape().ToString());
    const auto read = [&](const Tensor& t) {
      std::vector<double> out;
      DispatchByType<ReadDoubles, FloatTypes>(t.Type(), node.OpType(), t, out);
      return out;
    };
    const std::vector<double> q = read(query), k = read(key), v = read(value);
    std::vector<double> decays, betas;
    int64_t decay_width = 0, beta_width = 0;
    if (decay != nullptr) {
      decay_width = decay->Shape().Rank() == 3 ? decay->Shape()[2] : -1;
      PRISM_ENFORCE(decay->Shape().Rank() == 3 && decay->Shape()[0] == batch &&
                        decay->Shape()[1] == steps &&
                        (decay_width == kv_heads_ || decay_width == kv_heads_ * dk),
                    kInvalidArgument, node.Describe(), ": decay must be [", batch, ", ", steps,
                    ", ", kv_heads_, " or ", kv_heads_ * dk, "], got ", decay->Shape().ToString());
      decays = read(*decay);
    }
    if (beta != nullptr) {
      beta_width = beta->Shape().Rank() == 3 ? beta->Shape()[2] : -1;
      PRISM_ENFORCE(beta->Shape().Rank() == 3 && beta->Shape()[0] == batch &&
                        beta->Shape()[1] == steps && (beta_width == kv_heads_ || beta_width == 1),
                    kInvalidArgument, node.Describe(), ": beta must be [", batch, ", ", steps, ", ",
                    kv_heads_, " or 1], got ", beta->Shape().ToString());
      betas = read(*beta);
    }
    const std::vector<int64_t> state_dims = {batch, kv_heads_, dk, dv};
    std::vector<double> state(static_cast<size_t>(batch * kv_heads_ * dk * dv), 0.0);
    if (past != nullptr) {
      PRISM_ENFORCE(past->Shape().Dims() == state_dims, kInvalidArgument, node.Describe(),
                    ": past_state must be ", TensorShape(state_dims).ToString(), ", got ",
                    past->Shape().ToString());
      state = read(*past);
    }
    const double scale =
        scale_ != 0.0f ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(dk));
    const int64_t group = q_heads_ / kv_heads_;
    std::vector<double> out(static_cast<size_t>(batch * steps * q_heads_ * dv), 0.0);
    std::vector<double> v_t(static_cast<size_t>(dv));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t t = 0; t < steps; ++t) {
        for (int64_t h = 0; h < kv_heads_; ++h) {
          double* s = state.data() + (b * kv_heads_ + h) * dk * dv;
          const double* k_t = k.data() + ((b * steps + t) * kv_heads_ + h) * dk;
          for (int64_t m = 0; m < dv; ++m) v_t[m] = v[((b * steps + t) * kv_heads_ + h) * dv + m];
          if (gated) {
            for (int64_t d = 0; d < dk; ++d) {
              const int64_t at =
                  (b * steps + t) * decay_width + (decay_width == kv_heads_ ? h : h * dk + d);
              const double factor = std::exp(decays[at]);
              for (int64_t m = 0; m < dv; ++m) s[d * dv + m] *= factor;
            }
          }
          if (delta) {
            const double bt = betas[(b * steps + t) * beta_width + (beta_width == 1 ? 0 : h)];
            for (int64_t m = 0; m < dv; ++m) {
              double retrieved = 0;
              for (int64_t d = 0; d < dk; ++d) retrieved += s[d * dv + m] * k_t[d];
              v_t[m] = bt * (v_t[m] - retrieved);
            }
          }
          for (int64_t d = 0; d < dk; ++d)
            for (int64_t m = 0; m < dv; ++m) s[d * dv + m] += k_t[d] * v_t[m];
        }
        for (int64_t h = 0; h < q_heads_; ++h) {
          const double* s = state.data() + (b * kv_heads_ + h / group) * dk * dv;
          const double* q_t = q.data() + ((b * steps + t) * q_heads_ + h) * dk;
          double* o = out.data() + ((b * steps + t) * q_heads_ + h) * dv;
          for (int64_t m = 0; m < dv; ++m) {
            double sum = 0;
            for (int64_t d = 0; d < dk; ++d) sum += q_t[d] * s[d * dv + m];
            o[m] = scale * sum;
          }
        }
      }
    }
    Tensor& output = context.Output(0, TensorShape({batch, steps, q_heads_ * dv}), query.Type());
    DispatchByType<WriteDoubles, FloatTypes>(query.Type(), node.OpType(), out, output);
    if (context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      const ElementType state_type = past != nullptr ? past->Type() : query.Type();
      Tensor& present = context.Output(1, TensorShape(state_dims), state_type);
      DispatchByType<WriteDoubles, FloatTypes>(state_type, node.OpType(), state, present);
    }
  }

 private:
  int64_t q_heads_, kv_heads_;
  float scale_;
  std::string rule_;
};

void RegisterLinearAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kBFloat16, E::kFloat};
  registry.Register(KernelDefBuilder("LinearAttention")
                        .Versions(27)
                        .Constraint("T", floats, {0, 1, 2, 4, 5}, {0})
                        .Constraint("S", floats, {3}, {1})
                        .Build(),
                    MakeKernelFactory<LinearAttention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_linear_attention, RegisterLinearAttentionKernels);

}  // namespace prism::cpu

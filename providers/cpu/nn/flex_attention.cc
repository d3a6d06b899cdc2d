// FlexAttention (ai.onnx.preview, version 1): scaled dot-product attention over rank-4
// Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] with optional modifier subgraphs:
//   scores = (Q * sqrt(scale)) @ (K * sqrt(scale))^T, score_mod(scores), softmax over S,
//   prob_mod(probs), Y = probs @ V.
// Query head h reads K/V head h / (Hq / Hkv) (grouped-query attention). The scores, the
// modifiers and the softmax use softmax_precision (float for float16/bfloat16/float inputs,
// double for double, unless the attribute names one). Values are rounded where the spec's
// reference materializes them: the scaled Q and K and their product in the input type, the
// scores and probabilities in the softmax type, the output in the input type. Sums run in
// double.
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

bool IsFlexFloat(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kDouble ||
         type == ElementType::kFloat16 || type == ElementType::kBFloat16;
}

// x rounded to the nearest value of type.
double RoundTo(ElementType type, double x) {
  switch (type) {
    case ElementType::kFloat:
      return static_cast<float>(x);
    case ElementType::kFloat16:
      return Float16(static_cast<float>(x)).ToFloat();
    case ElementType::kBFloat16:
      return BFloat16(static_cast<float>(x)).ToFloat();
    default:
      return x;
  }
}

// All elements of a float tensor as double.
std::vector<double> ReadAll(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) {
    switch (t.Type()) {
      case ElementType::kFloat:
        out[i] = t.Data<float>()[i];
        break;
      case ElementType::kDouble:
        out[i] = t.Data<double>()[i];
        break;
      case ElementType::kFloat16:
        out[i] = t.Data<Float16>()[i].ToFloat();
        break;
      default:
        out[i] = t.Data<BFloat16>()[i].ToFloat();
        break;
    }
  }
  return out;
}

void WriteAll(Tensor& t, const std::vector<double>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    switch (t.Type()) {
      case ElementType::kFloat:
        t.MutableData<float>()[i] = static_cast<float>(values[i]);
        break;
      case ElementType::kDouble:
        t.MutableData<double>()[i] = values[i];
        break;
      case ElementType::kFloat16:
        t.MutableData<Float16>()[i] = Float16(static_cast<float>(values[i]));
        break;
      default:
        t.MutableData<BFloat16>()[i] = BFloat16(static_cast<float>(values[i]));
        break;
    }
  }
}

class FlexAttention final : public OpKernel {
 public:
  explicit FlexAttention(const OpKernelInfo& info)
      : OpKernel(info),
        has_scale_(info.HasAttr("scale")),
        scale_(info.FloatOr("scale", 0.0f)),
        precision_attr_(info.IntOr("softmax_precision", 0)),
        score_mod_(info.HasAttr("score_mod") ? &info.Subgraph("score_mod") : nullptr),
        prob_mod_(info.HasAttr("prob_mod") ? &info.Subgraph("prob_mod") : nullptr) {
    if (precision_attr_ != 0) {
      const auto type = static_cast<ElementType>(precision_attr_);
      PRISM_ENFORCE(IsFlexFloat(type), kInvalidArgument, GetNode().Describe(),
                    ": softmax_precision ", precision_attr_,
                    " is not float, float16, bfloat16 or double");
    }
    for (const Graph* mod : {score_mod_, prob_mod_})
      if (mod != nullptr)
        PRISM_ENFORCE(mod->Inputs().size() == 1 && mod->Outputs().size() == 1, kInvalidArgument,
                      GetNode().Describe(), ": score_mod and prob_mod take one input and give ",
                      "one output, got ", mod->Inputs().size(), " and ", mod->Outputs().size());
  }

  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& q = context.RequiredInput(0);
    const Tensor& k = context.RequiredInput(1);
    const Tensor& v = context.RequiredInput(2);
    const ElementType type = q.Type();
    PRISM_ENFORCE(k.Type() == type && v.Type() == type, kInvalidArgument, node,
                  ": Q, K and V must share one type, got ", q.Describe(), ", ", k.Describe(), ", ",
                  v.Describe());
    PRISM_ENFORCE(q.Shape().Rank() == 4 && k.Shape().Rank() == 4 && v.Shape().Rank() == 4,
                  kInvalidArgument, node, ": Q, K and V must be rank 4, got ", q.Shape().ToString(),
                  ", ", k.Shape().ToString(), ", ", v.Shape().ToString());
    const int64_t batch = q.Shape()[0], q_heads = q.Shape()[1], q_len = q.Shape()[2],
                  head = q.Shape()[3];
    const int64_t kv_heads = k.Shape()[1], kv_len = k.Shape()[2], v_head = v.Shape()[3];
    PRISM_ENFORCE(k.Shape()[0] == batch && v.Shape()[0] == batch && k.Shape()[3] == head &&
                      v.Shape()[1] == kv_heads && v.Shape()[2] == kv_len,
                  kInvalidArgument, node, ": K ", k.Shape().ToString(), " and V ",
                  v.Shape().ToString(), " do not fit Q ", q.Shape().ToString(),
                  " (same batch; K's head size as Q's; V's heads and length as K's)");
    PRISM_ENFORCE(kv_heads > 0 && q_heads % kv_heads == 0, kInvalidArgument, node, ": Q's ",
                  q_heads, " heads are not a multiple of K's ", kv_heads);
    Tensor& y = context.Output(0, TensorShape({batch, q_heads, q_len, v_head}), type);
    if (y.NumElements() == 0) return;

    const ElementType soft = precision_attr_ != 0 ? static_cast<ElementType>(precision_attr_)
                             : type == ElementType::kDouble ? ElementType::kDouble
                                                            : ElementType::kFloat;
    const double scale = has_scale_ ? scale_ : 1.0 / std::sqrt(static_cast<double>(head));
    const double sqrt_scale = RoundTo(type, std::sqrt(static_cast<float>(scale)));
    std::vector<double> qs = ReadAll(q), ks = ReadAll(k);
    for (double& x : qs) x = RoundTo(type, x * sqrt_scale);
    for (double& x : ks) x = RoundTo(type, x * sqrt_scale);
    const std::vector<double> vs = ReadAll(v);
    const int64_t group = q_heads / kv_heads;

    std::vector<double> scores(static_cast<size_t>(batch * q_heads * q_len * kv_len));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < q_heads; ++h) {
        const double* q_head = qs.data() + ((b * q_heads + h) * q_len) * head;
        const double* k_head = ks.data() + ((b * kv_heads + h / group) * kv_len) * head;
        double* out = scores.data() + ((b * q_heads + h) * q_len) * kv_len;
        for (int64_t i = 0; i < q_len; ++i)
          for (int64_t j = 0; j < kv_len; ++j) {
            double sum = 0.0;
            for (int64_t e = 0; e < head; ++e) sum += q_head[i * head + e] * k_head[j * head + e];
            out[i * kv_len + j] = RoundTo(soft, RoundTo(type, sum));
          }
      }
    const TensorShape score_shape({batch, q_heads, q_len, kv_len});
    if (score_mod_ != nullptr)
      scores = RunModifier(context, *score_mod_, "score_mod", scores, soft, score_shape);
    for (size_t row = 0; row < scores.size() / static_cast<size_t>(kv_len); ++row) {
      double* line = scores.data() + row * static_cast<size_t>(kv_len);
      double largest = -INFINITY;
      for (int64_t j = 0; j < kv_len; ++j) largest = std::max(largest, line[j]);
      double total = 0.0;
      for (int64_t j = 0; j < kv_len; ++j) {
        line[j] = RoundTo(soft, std::exp(line[j] - largest));
        total += line[j];
      }
      total = RoundTo(soft, total);
      for (int64_t j = 0; j < kv_len; ++j) line[j] = RoundTo(soft, line[j] / total);
    }
    if (prob_mod_ != nullptr)
      scores = RunModifier(context, *prob_mod_, "prob_mod", scores, soft, score_shape);

    std::vector<double> result(static_cast<size_t>(y.NumElements()));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < q_heads; ++h) {
        const double* probs = scores.data() + ((b * q_heads + h) * q_len) * kv_len;
        const double* v_head_data = vs.data() + ((b * kv_heads + h / group) * kv_len) * v_head;
        double* out = result.data() + ((b * q_heads + h) * q_len) * v_head;
        for (int64_t i = 0; i < q_len; ++i)
          for (int64_t e = 0; e < v_head; ++e) {
            double sum = 0.0;
            for (int64_t j = 0; j < kv_len; ++j)
              sum += probs[i * kv_len + j] * RoundTo(soft, v_head_data[j * v_head + e]);
            out[i * v_head + e] = RoundTo(soft, sum);
          }
      }
    WriteAll(y, result);
  }

 private:
  // Runs a modifier subgraph on values held as the softmax type; its output must keep the shape
  // and the type.
  std::vector<double> RunModifier(OpKernelContext& context, const Graph& graph,
                                  const std::string& name, const std::vector<double>& values,
                                  ElementType soft, const TensorShape& shape) const {
    Tensor input(soft, shape, GetCpuAllocator());
    WriteAll(input, values);
    std::vector<Value> feeds;
    feeds.emplace_back(std::move(input));
    std::vector<Value> results = context.RunSubgraph(graph, feeds);
    PRISM_ENFORCE(results.size() == 1 && results[0].IsTensor() &&
                      results[0].GetTensor().Type() == soft &&
                      results[0].GetTensor().Shape() == shape,
                  kInvalidArgument, GetNode().Describe(), ": ", name, " must return one ",
                  ElementTypeName(soft), " tensor of shape ", shape.ToString(), ", got ",
                  results.empty() ? std::string("nothing") : results[0].Describe());
    return ReadAll(results[0].GetTensor());
  }

  bool has_scale_;
  float scale_;
  int64_t precision_attr_;
  const Graph* score_mod_;
  const Graph* prob_mod_;
};

void RegisterFlexAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("FlexAttention")
          .Domain("ai.onnx.preview")
          .Versions(1, INT_MAX)
          .Constraint("T1", {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble}, {0, 1, 2}, {0})
          .Build(),
      MakeKernelFactory<FlexAttention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_flex_attention, RegisterFlexAttentionKernels);

}  // namespace prism::cpu

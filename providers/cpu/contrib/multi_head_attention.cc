// MultiHeadAttention (com.microsoft, version 1), as onnxruntime's CPU EP computes it:
//   query [B, S, D], key [B, L, D], value [B, L, Dv] (bias [D + D + Dv] added to each), split
//   into num_heads heads; or query packed as [B, S, N, 3, H] (Q, K and V of each head side by
//   side; key and value absent), or key packed as [B, L, N, 2, H] (value absent), or key and
//   value already per head, [B, N, L, H] and [B, N, L, Hv] (cross attention's cached K and V:
//   no bias, no past). onnxruntime's CPU EP refuses the two packed forms; Prism computes them
//   as their unpacked equivalents.
//   past_key [B, N, P, H] and past_value [B, N, P, Hv] are prepended; present_key/value return
//   [B, N, P + L, H|Hv]. key_padding_mask (int32): [B] lengths, [2B] ends then starts,
//   [B, T] or [B, S, T] raw masks, masked keys get mask_filter_value (default -10000) added;
//   attention_bias [B or 1, N or 1, S, T] is added; unidirectional (with S > 1) hides keys
//   j > i + P. Output 3 (qk) returns the scores before the softmax, as onnxruntime's kernel.
// float16 and bfloat16 compute in float and round once.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu::contrib {
namespace {

// One of Q, K, V in float with its bias added: a HeadView over an owned copy (or the input).
struct Projection {
  std::vector<float> owned;
  HeadView<const float> view;
};

class MultiHeadAttention final : public OpKernel {
 public:
  explicit MultiHeadAttention(const OpKernelInfo& info)
      : OpKernel(info),
        num_heads_(info.Int("num_heads")),
        unidirectional_(info.IntOr("unidirectional", 0) != 0),
        scale_(info.FloatOr("scale", 0.0f)),
        mask_filter_value_(info.FloatOr("mask_filter_value", -10000.0f)),
        qk_type_(info.OutputType(3)) {
    PRISM_ENFORCE(num_heads_ > 0, kInvalidArgument, info.GetNode().Describe(),
                  ": num_heads must be positive, got ", num_heads_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const auto input = [&](size_t i) {
      return context.InputCount() > i ? context.Input(i) : nullptr;
    };
    const Tensor& query = context.RequiredInput(0);
    const Tensor *key = input(1), *value = input(2), *bias = input(3);
    const Tensor *key_mask = input(4), *attention_bias = input(5);
    const Tensor *past_key = input(6), *past_value = input(7);
    PRISM_ENFORCE(input(8) == nullptr && input(9) == nullptr, kNotImplemented, node.Describe(),
                  ": inputs 8 (past_sequence_length) and 9 (cache_indirection) are not supported "
                  "on the CPU EP");
    for (const Tensor* t : {key, value, bias, attention_bias, past_key, past_value})
      PRISM_ENFORCE(t == nullptr || t->Type() == query.Type(), kInvalidArgument, node.Describe(),
                    ": every float input must have query's type ", query.Describe(), ", got ",
                    t->Describe());
    PRISM_ENFORCE((past_key == nullptr) == (past_value == nullptr), kInvalidArgument,
                  node.Describe(), ": past_key and past_value must be given together");

    const TensorShape& qs = query.Shape();
    const int64_t n = num_heads_;
    PRISM_ENFORCE(qs.Rank() == 3 || qs.Rank() == 5, kInvalidArgument, node.Describe(),
                  ": input 0 (query) must be [batch, sequence, hidden] or packed [batch, "
                  "sequence, num_heads, 3, head_size], got ",
                  qs.ToString());
    const int64_t batch = qs[0], seq = qs[1];
    int64_t head = 0, v_head = 0, kv_len = 0;
    const FloatView q_in(&query), k_in(key), v_in(value), bias_in(bias);
    const float* bias_data = bias_in.data();
    Projection q, k, v;

    // Adds bias[offset + h * size + d] to rows of `rows` vectors of `heads x size` laid out with
    // the view's strides (a copy of src).
    const auto project = [&](Projection& out, const float* src, int64_t count, int64_t b_len,
                             int64_t rows, int64_t size, HeadView<const float> layout,
                             int64_t bias_offset) {
      out.owned.assign(src, src + count);
      out.view = layout;
      out.view.data = out.owned.data() + (layout.data - src);
      if (bias_data == nullptr) return;
      float* base = out.owned.data() + (layout.data - src);
      for (int64_t b = 0; b < b_len; ++b)
        for (int64_t h = 0; h < n; ++h)
          for (int64_t r = 0; r < rows; ++r) {
            float* row =
                base + b * layout.batch_stride + h * layout.head_stride + r * layout.row_stride;
            for (int64_t d = 0; d < size; ++d) row[d] += bias_data[bias_offset + h * size + d];
          }
    };

    if (qs.Rank() == 5) {  // packed QKV [B, S, N, 3, H]
      PRISM_ENFORCE(qs[2] == n && qs[3] == 3 && key == nullptr && value == nullptr,
                    kInvalidArgument, node.Describe(),
                    ": a 5-D input 0 (query) must be [batch, sequence, ", n,
                    ", 3, head_size] with no key and value, got ", qs.ToString());
      PRISM_ENFORCE(past_key == nullptr, kInvalidArgument, node.Describe(),
                    ": packed QKV cannot be combined with past_key/past_value");
      head = v_head = qs[4];
      kv_len = seq;
      CheckBias(bias, 3 * n * head);
      const int64_t count = qs.Size();
      const int64_t row = n * 3 * head;
      for (int64_t part = 0; part < 3; ++part) {
        Projection& target = part == 0 ? q : part == 1 ? k : v;
        project(target, q_in.data(), count, batch, seq, head,
                {q_in.data() + part * head, seq * row, 3 * head, row}, part * n * head);
      }
    } else {
      PRISM_ENFORCE(key != nullptr, kInvalidArgument, node.Describe(),
                    ": input 1 (key) is required unless query is packed QKV");
      const int64_t hidden = qs[2];
      PRISM_ENFORCE(hidden % n == 0, kInvalidArgument, node.Describe(), ": query hidden size ",
                    hidden, " must be divisible by num_heads ", n);
      head = hidden / n;
      const TensorShape& ks = key->Shape();
      PRISM_ENFORCE(ks.Rank() >= 3 && ks.Rank() <= 5 && ks[0] == batch, kInvalidArgument,
                    node.Describe(), ": input 1 (key) must be [", batch, ", kv_sequence, ", hidden,
                    "], [", batch, ", ", n, ", kv_sequence, ", head, "] or [", batch,
                    ", kv_sequence, ", n, ", 2, ", head, "], got ", ks.ToString());
      if (ks.Rank() == 5) {  // packed KV [B, L, N, 2, H]
        PRISM_ENFORCE(ks[2] == n && ks[3] == 2 && ks[4] == head && value == nullptr,
                      kInvalidArgument, node.Describe(), ": a 5-D input 1 (key) must be [", batch,
                      ", kv_sequence, ", n, ", 2, ", head, "] with no value, got ", ks.ToString());
        kv_len = ks[1];
        v_head = head;
        CheckBias(bias, 3 * hidden);
        const int64_t row = n * 2 * head;
        project(k, k_in.data(), ks.Size(), batch, kv_len, head,
                {k_in.data(), kv_len * row, 2 * head, row}, hidden);
        project(v, k_in.data(), ks.Size(), batch, kv_len, head,
                {k_in.data() + head, kv_len * row, 2 * head, row}, 2 * hidden);
      } else {
        PRISM_ENFORCE(
            value != nullptr && value->Shape().Rank() == ks.Rank() && value->Shape()[0] == batch,
            kInvalidArgument, node.Describe(), ": input 2 (value) must be given with ", ks.Rank(),
            " dims and batch ", batch, " like key ", ks.ToString(), ", got ",
            value == nullptr ? std::string("none") : value->Shape().ToString());
        const TensorShape& vs = value->Shape();
        if (ks.Rank() == 3) {
          kv_len = ks[1];
          PRISM_ENFORCE(ks[2] == hidden && vs[1] == kv_len && vs[2] % n == 0, kInvalidArgument,
                        node.Describe(), ": input 1 (key) ", ks.ToString(),
                        " must have query's hidden size ", hidden, ", and input 2 (value) ",
                        vs.ToString(), " its sequence and a size divisible by ", n);
          v_head = vs[2] / n;
          CheckBias(bias, 2 * hidden + vs[2]);
          project(k, k_in.data(), ks.Size(), batch, kv_len, head,
                  {k_in.data(), kv_len * hidden, head, hidden}, hidden);
          project(v, v_in.data(), vs.Size(), batch, kv_len, v_head,
                  {v_in.data(), kv_len * vs[2], v_head, vs[2]}, 2 * hidden);
        } else {  // [B, N, L, H]: used as they are
          PRISM_ENFORCE(ks[1] == n && ks[3] == head && vs[1] == n && vs[2] == ks[2],
                        kInvalidArgument, node.Describe(), ": 4-D input 1 (key) ", ks.ToString(),
                        " and input 2 (value) ", vs.ToString(), " must be [", batch, ", ", n,
                        ", kv_sequence, ", head, "] and [", batch, ", ", n,
                        ", kv_sequence, v_head_size]");
          PRISM_ENFORCE(bias == nullptr && past_key == nullptr, kInvalidArgument, node.Describe(),
                        ": 4-D key and value cannot be combined with bias or past_key/value");
          kv_len = ks[2];
          v_head = vs[3];
          k.view = {k_in.data(), n * kv_len * head, kv_len * head, head};
          v.view = {v_in.data(), n * kv_len * v_head, kv_len * v_head, v_head};
        }
      }
      project(q, q_in.data(), qs.Size(), batch, seq, head,
              {q_in.data(), seq * hidden, head, hidden}, 0);
    }

    int64_t past_len = 0;
    if (past_key != nullptr) {
      const TensorShape &pk = past_key->Shape(), &pv = past_value->Shape();
      PRISM_ENFORCE(
          pk.Rank() == 4 && pk[0] == batch && pk[1] == n && pk[3] == head && pv.Rank() == 4 &&
              pv[0] == batch && pv[1] == n && pv[2] == pk[2] && pv[3] == v_head,
          kInvalidArgument, node.Describe(), ": inputs 6 (past_key) ", pk.ToString(),
          " and 7 (past_value) ", pv.ToString(), " must be [", batch, ", ", n, ", past_sequence, ",
          head, "] and [", batch, ", ", n, ", past_sequence, ", v_head, "]");
      past_len = pk[2];
    }
    const int64_t total = past_len + kv_len;

    // present_key/value [B, N, T, H|Hv]: past rows then the new ones; read as K and V.
    const bool want_key = context.OutputCount() > 1 && context.IsOutputRequested(1);
    const bool want_value = context.OutputCount() > 2 && context.IsOutputRequested(2);
    std::vector<float> present_k, present_v;
    const FloatView past_k(past_key), past_v(past_value);
    const auto extend = [&](std::vector<float>& cache, const float* past, int64_t size,
                            HeadView<const float>& view) {
      cache.resize(static_cast<size_t>(batch * n * total * size));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < n; ++h) {
          float* dst = cache.data() + (b * n + h) * total * size;
          if (past_len > 0) std::copy_n(past + (b * n + h) * past_len * size, past_len * size, dst);
          const float* src = view.At(b, h);
          for (int64_t r = 0; r < kv_len; ++r)
            std::copy_n(src + r * view.row_stride, size, dst + (past_len + r) * size);
        }
      view = {cache.data(), n * total * size, total * size, size};
    };
    if (past_key != nullptr || want_key) extend(present_k, past_k.data(), head, k.view);
    if (past_key != nullptr || want_value) extend(present_v, past_v.data(), v_head, v.view);

    AttentionProblem problem;
    problem.batch = batch;
    problem.heads = problem.kv_heads = n;
    problem.q_len = seq;
    problem.total = total;
    problem.head_size = head;
    problem.v_head_size = v_head;
    problem.scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(head));
    problem.q = q.view;
    problem.k = k.view;
    problem.v = v.view;
    problem.causal = unidirectional_ && seq > 1;
    problem.causal_offset = past_len;
    problem.causal_spares_last_row = true;
    std::vector<float> mask_values;
    if (key_mask != nullptr)
      problem.mask = PrepareKeyMask(node, *key_mask, "input 4 (key_padding_mask)", false, batch,
                                    seq, total, mask_filter_value_, mask_values);
    const FloatView bias_view(attention_bias);
    if (attention_bias != nullptr) {
      const TensorShape& bs = attention_bias->Shape();
      PRISM_ENFORCE(bs.Rank() == 4 && (bs[0] == batch || bs[0] == 1) &&
                        (bs[1] == n || bs[1] == 1) && bs[2] == seq && bs[3] == total,
                    kInvalidArgument, node.Describe(), ": input 5 (attention_bias) must be [",
                    batch, " or 1, ", n, " or 1, ", seq, ", ", total, "], got ", bs.ToString());
      problem.bias = {bias_view.data(), bs[0] == 1 ? 0 : bs[1] * seq * total,
                      bs[1] == 1 ? 0 : seq * total, total};
    }

    const int64_t v_hidden = n * v_head;
    std::vector<float> y(static_cast<size_t>(batch * seq * v_hidden));
    problem.out = {y.data(), seq * v_hidden, v_head, v_hidden};
    const bool want_qk = context.OutputCount() > 3 && context.IsOutputRequested(3);
    std::vector<float> qk;
    if (want_qk) {
      qk.resize(static_cast<size_t>(batch * n * seq * total));
      problem.scores_out = {qk.data(), n * seq * total, seq * total, total};
    }
    if (!y.empty() || want_qk) RunAttention(problem, context.IntraOpThreadPool());

    StoreFloats(y.data(), context.Output(0, TensorShape({batch, seq, v_hidden}), query.Type()));
    if (want_key)
      StoreFloats(present_k.data(),
                  context.Output(1, TensorShape({batch, n, total, head}), query.Type()));
    if (want_value)
      StoreFloats(present_v.data(),
                  context.Output(2, TensorShape({batch, n, total, v_head}), query.Type()));
    if (want_qk)
      StoreFloats(qk.data(),
                  context.Output(3, TensorShape({batch, n, seq, total}),
                                 qk_type_ != ElementType::kUndefined ? qk_type_ : query.Type()));
  }

 private:
  void CheckBias(const Tensor* bias, int64_t length) const {
    PRISM_ENFORCE(bias == nullptr || (bias->Shape().Rank() == 1 && bias->Shape()[0] == length),
                  kInvalidArgument, GetNode().Describe(), ": input 3 (bias) must be 1-D [", length,
                  "], got ", bias->Shape().ToString());
  }

  int64_t num_heads_;
  bool unidirectional_;
  float scale_;
  float mask_filter_value_;
  ElementType qk_type_;  // kUndefined: not inferred, query's type
};

void RegisterMultiHeadAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat, E::kFloat16, E::kBFloat16};
  registry.Register(KernelDefBuilder("MultiHeadAttention")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", floats, {0, 1, 2, 3, 5, 6, 7}, {0, 1, 2})
                        .Constraint("QK", floats, {}, {3})
                        .Constraint("M", {E::kInt32}, {4, 8, 9})
                        .Build(),
                    MakeKernelFactory<MultiHeadAttention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_multi_head_attention, RegisterMultiHeadAttentionKernels);

}  // namespace prism::cpu::contrib

// GroupQueryAttention (com.microsoft, version 1), as onnxruntime's CPU EP computes it:
//   query [B, S, N * H] (or packed [B, S, (N + 2 Nkv) * H] with key and value absent), key and
//   value [B, S, Nkv * H]; query head h reads key/value head h / (N / Nkv).
//   seqlens_k [B] holds each entry's total length - 1; total_sequence_length (a scalar) is the
//   batch's largest. A first prompt (S == total_sequence_length) starts at position 0; otherwise
//   entry b's new tokens follow its past_len_b = seqlens_k[b] + 1 - S cached ones.
//   present_key/value [B, Nkv, max(P, total_sequence_length), H]: past_len_b rows of
//   past_key/value, the new rows, zeros after.
//   Query row i of entry b sees keys j <= past_len_b + i (causal, the default; causal 0 sees
//   every valid key) and, with local_window_size w >= 0, j > past_len_b + i - w (w = 0 keeps none);
//   keys at or past seqlens_k[b] + 1 are invalid. Scores: scale * Q K^T, then softcap, then
//   attention_bias [B or 1, N or 1, S, total_sequence_length]; excluded keys get probability 0.
//   do_rotary rotates Q and the new K first by cos_cache/sin_cache [max_position, R / 2] at
//   position_ids (or past_len_b + i), over the first R dims of each head (pairs (2k, 2k + 1)
//   when rotary_interleaved, else (k, k + R / 2)). smooth_softmax and head_sink [N] add e^0 or
//   e^sink[h] to each softmax denominator. qk_output 1 returns the scores before the softmax, 2
//   the probabilities ([B, N, S, present length]).
// Refused: quantized caches (k_scale, v_scale), sliding_window_cache, q/k_norm_weight.
// float16 and bfloat16 compute in float and round once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu::contrib {
namespace {

// Rotates the first rotary_dim values of a head vector by the angle table row (cos, sin).
void Rotate(float* x, const float* cos, const float* sin, int64_t rotary_dim, bool interleaved) {
  const int64_t half = rotary_dim / 2;
  for (int64_t k = 0; k < half; ++k) {
    const int64_t a = interleaved ? 2 * k : k, b = interleaved ? 2 * k + 1 : k + half;
    const float x1 = x[a], x2 = x[b];
    x[a] = x1 * cos[k] - x2 * sin[k];
    x[b] = x2 * cos[k] + x1 * sin[k];
  }
}

class GroupQueryAttention final : public OpKernel {
 public:
  explicit GroupQueryAttention(const OpKernelInfo& info)
      : OpKernel(info),
        num_heads_(info.Int("num_heads")),
        kv_num_heads_(info.Int("kv_num_heads")),
        scale_(info.FloatOr("scale", 0.0f)),
        softcap_(info.FloatOr("softcap", 0.0f)),
        local_window_(info.IntOr("local_window_size", -1)),
        causal_(info.IntOr("causal", 1) != 0),
        do_rotary_(info.IntOr("do_rotary", 0) != 0),
        interleaved_(info.IntOr("rotary_interleaved", 0) != 0),
        smooth_softmax_(info.IntOr("smooth_softmax", 0) != 0),
        qk_output_(info.IntOr("qk_output", 0)) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(num_heads_ > 0 && kv_num_heads_ > 0 && num_heads_ % kv_num_heads_ == 0,
                  kInvalidArgument, node.Describe(), ": num_heads ", num_heads_,
                  " must be a positive multiple of kv_num_heads ", kv_num_heads_);
    PRISM_ENFORCE(info.IntOr("sliding_window_cache", 0) == 0, kNotImplemented, node.Describe(),
                  ": sliding_window_cache is not supported");
    PRISM_ENFORCE(local_window_ >= -1 && (causal_ || local_window_ == -1), kInvalidArgument,
                  node.Describe(),
                  ": local_window_size must be -1 or nonnegative, and -1 when causal is 0, got ",
                  local_window_);
    PRISM_ENFORCE(qk_output_ >= 0 && qk_output_ <= 2, kInvalidArgument, node.Describe(),
                  ": qk_output must be 0, 1 or 2, got ", qk_output_);
    for (const char* name : {"k_quant_type", "v_quant_type"})
      PRISM_ENFORCE(info.StringOr(name, "NONE") == "NONE", kNotImplemented, node.Describe(),
                    ": quantized KV caches (", name, ") are not supported");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const auto input = [&](size_t i) {
      return context.InputCount() > i ? context.Input(i) : nullptr;
    };
    const Tensor& query = context.RequiredInput(0);
    const Tensor *key = input(1), *value = input(2), *past_key = input(3), *past_value = input(4);
    const Tensor& seqlens = context.RequiredInput(5);
    const Tensor& total_tensor = context.RequiredInput(6);
    const Tensor *cos_cache = input(7), *sin_cache = input(8), *position_ids = input(9);
    const Tensor *attention_bias = input(10), *head_sink = input(11);
    PRISM_ENFORCE(input(12) == nullptr && input(13) == nullptr, kNotImplemented, node.Describe(),
                  ": inputs 12 and 13 (k_scale, v_scale) of quantized KV caches are not supported");
    PRISM_ENFORCE(input(14) == nullptr && input(15) == nullptr, kNotImplemented, node.Describe(),
                  ": inputs 14 and 15 (q_norm_weight, k_norm_weight) are not supported on the CPU "
                  "EP");
    for (const Tensor* t :
         {key, value, past_key, past_value, cos_cache, sin_cache, attention_bias, head_sink})
      PRISM_ENFORCE(t == nullptr || t->Type() == query.Type(), kInvalidArgument, node.Describe(),
                    ": every float input must have query's type ", query.Describe(), ", got ",
                    t->Describe());
    PRISM_ENFORCE(
        (key == nullptr) == (value == nullptr) && (past_key == nullptr) == (past_value == nullptr),
        kInvalidArgument, node.Describe(),
        ": key and value, and past_key and past_value, must be given together");

    const TensorShape& qs = query.Shape();
    PRISM_ENFORCE(qs.Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input 0 (query) must be [batch, sequence, hidden], got ", qs.ToString());
    const int64_t batch = qs[0], seq = qs[1], n = num_heads_, nkv = kv_num_heads_;
    const bool packed = key == nullptr;
    const int64_t head = qs[2] / (packed ? n + 2 * nkv : n);
    PRISM_ENFORCE(head * (packed ? n + 2 * nkv : n) == qs[2], kInvalidArgument, node.Describe(),
                  ": input 0 (query) hidden size ", qs[2], " must be ",
                  packed ? "(num_heads + 2 kv_num_heads)" : "num_heads", " times the head size");
    if (!packed)
      for (const Tensor* t : {key, value})
        PRISM_ENFORCE(t->Shape().Rank() == 3 && t->Shape()[0] == batch && t->Shape()[1] == seq &&
                          t->Shape()[2] == nkv * head,
                      kInvalidArgument, node.Describe(), ": inputs 1 (key) and 2 (value) must be [",
                      batch, ", ", seq, ", ", nkv * head, "], got ", t->Shape().ToString());
    PRISM_ENFORCE(seqlens.Type() == ElementType::kInt32 && seqlens.Shape().Rank() == 1 &&
                      seqlens.Shape()[0] == batch,
                  kInvalidArgument, node.Describe(), ": input 5 (seqlens_k) must be int32 [", batch,
                  "], got ", seqlens.Describe());
    PRISM_ENFORCE(total_tensor.NumElements() == 1, kInvalidArgument, node.Describe(),
                  ": input 6 (total_sequence_length) must hold one value, got ",
                  total_tensor.Shape().ToString());
    const int64_t total_len = total_tensor.Data<int32_t>()[0];
    int64_t past_len = 0;
    if (past_key != nullptr) {
      const TensorShape &pk = past_key->Shape(), &pv = past_value->Shape();
      PRISM_ENFORCE(pk.Rank() == 4 && pk[0] == batch && pk[1] == nkv && pk[3] == head && pk == pv,
                    kInvalidArgument, node.Describe(), ": inputs 3 (past_key) ", pk.ToString(),
                    " and 4 (past_value) ", pv.ToString(), " must both be [", batch, ", ", nkv,
                    ", past_sequence, ", head, "]");
      past_len = pk[2];
    }
    const bool first_prompt = seq == total_len;
    const int64_t present_len = std::max(past_len, total_len);
    std::vector<int64_t> key_lengths(static_cast<size_t>(batch)), offsets(key_lengths.size());
    for (int64_t b = 0; b < batch; ++b) {
      key_lengths[b] = int64_t{seqlens.Data<int32_t>()[b]} + 1;
      offsets[b] = first_prompt ? 0 : key_lengths[b] - seq;
      PRISM_ENFORCE(key_lengths[b] >= 1 && key_lengths[b] <= total_len && offsets[b] >= 0 &&
                        offsets[b] <= past_len && offsets[b] + seq <= present_len,
                    kInvalidArgument, node.Describe(), ": input 5 (seqlens_k) value ",
                    key_lengths[b] - 1, " of batch entry ", b,
                    " does not fit total_sequence_length ", total_len, ", sequence ", seq,
                    " and a past of ", past_len);
    }

    // Q, K and V per head in float: [B, S, heads, H] rows.
    const FloatView q_in(&query), k_in(key), v_in(value);
    const int64_t q_row = packed ? qs[2] : n * head, kv_row = packed ? qs[2] : nkv * head;
    std::vector<float> q(static_cast<size_t>(batch * seq * n * head));
    std::vector<float> k_new(static_cast<size_t>(batch * seq * nkv * head)), v_new(k_new.size());
    for (int64_t r = 0; r < batch * seq; ++r) {
      std::copy_n(q_in.data() + r * q_row, n * head, q.data() + r * n * head);
      const float* k_src = packed ? q_in.data() + r * q_row + n * head : k_in.data() + r * kv_row;
      const float* v_src =
          packed ? q_in.data() + r * q_row + (n + nkv) * head : v_in.data() + r * kv_row;
      std::copy_n(k_src, nkv * head, k_new.data() + r * nkv * head);
      std::copy_n(v_src, nkv * head, v_new.data() + r * nkv * head);
    }
    if (do_rotary_)
      ApplyRotary(cos_cache, sin_cache, position_ids, batch, seq, head, offsets, first_prompt, q,
                  k_new);

    // The caches: past_len_b rows of the past, the new rows, zeros after.
    const FloatView past_k(past_key), past_v(past_value);
    const int64_t cache = batch * nkv * present_len * head;
    std::vector<float> present_k(static_cast<size_t>(cache), 0.0f), present_v(present_k.size());
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < nkv; ++h) {
        const int64_t dst = (b * nkv + h) * present_len * head;
        if (offsets[b] > 0) {
          const int64_t src = (b * nkv + h) * past_len * head;
          std::copy_n(past_k.data() + src, offsets[b] * head, present_k.data() + dst);
          std::copy_n(past_v.data() + src, offsets[b] * head, present_v.data() + dst);
        }
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t from = ((b * seq + s) * nkv + h) * head;
          const int64_t to = dst + (offsets[b] + s) * head;
          std::copy_n(k_new.data() + from, head, present_k.data() + to);
          std::copy_n(v_new.data() + from, head, present_v.data() + to);
        }
      }

    AttentionProblem problem;
    problem.batch = batch;
    problem.heads = n;
    problem.kv_heads = nkv;
    problem.q_len = seq;
    problem.total = present_len;
    problem.head_size = problem.v_head_size = head;
    problem.scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(head));
    problem.q = {q.data(), seq * n * head, head, n * head};
    problem.k = {present_k.data(), nkv * present_len * head, present_len * head, head};
    problem.v = {present_v.data(), nkv * present_len * head, present_len * head, head};
    problem.causal = causal_;
    problem.causal_value = -std::numeric_limits<float>::infinity();
    problem.causal_offsets = offsets.data();
    problem.key_lengths = key_lengths.data();
    problem.local_window = local_window_;
    problem.softcap = softcap_;
    problem.excluded_scores_are_zero = true;

    // attention_bias columns are absolute key positions up to total_sequence_length; the
    // columns past it (present rows beyond every entry's keys) read zeros.
    std::vector<float> bias_values;
    if (attention_bias != nullptr) {
      const TensorShape& bs = attention_bias->Shape();
      PRISM_ENFORCE(bs.Rank() == 4 && (bs[0] == batch || bs[0] == 1) &&
                        (bs[1] == n || bs[1] == 1) && bs[2] == seq && bs[3] == total_len,
                    kInvalidArgument, node.Describe(), ": input 10 (attention_bias) must be [",
                    batch, " or 1, ", n, " or 1, ", seq, ", ", total_len, "], got ", bs.ToString());
      const FloatView bias_view(attention_bias);
      const int64_t rows = bs[0] * bs[1] * seq;
      bias_values.assign(static_cast<size_t>(rows * present_len), 0.0f);
      for (int64_t r = 0; r < rows; ++r)
        std::copy_n(bias_view.data() + r * total_len, total_len,
                    bias_values.data() + r * present_len);
      problem.bias = {bias_values.data(), bs[0] == 1 ? 0 : bs[1] * seq * present_len,
                      bs[1] == 1 ? 0 : seq * present_len, present_len};
    }
    std::vector<float> sinks;
    if (head_sink != nullptr) {
      PRISM_ENFORCE(head_sink->Shape().Rank() == 1 && head_sink->Shape()[0] == n, kInvalidArgument,
                    node.Describe(), ": input 11 (head_sink) must be [", n, "], got ",
                    head_sink->Shape().ToString());
      const FloatView sink_view(head_sink);
      sinks.assign(sink_view.data(), sink_view.data() + n);
    } else if (smooth_softmax_) {
      sinks.assign(static_cast<size_t>(n), 0.0f);
    }
    if (!sinks.empty()) problem.sinks = sinks.data();

    std::vector<float> y(static_cast<size_t>(batch * seq * n * head));
    problem.out = {y.data(), seq * n * head, head, n * head};
    const bool want_qk =
        qk_output_ != 0 && context.OutputCount() > 3 && context.IsOutputRequested(3);
    std::vector<float> qk;
    if (want_qk) {
      qk.resize(static_cast<size_t>(batch * n * seq * present_len));
      const HeadView<float> view{qk.data(), n * seq * present_len, seq * present_len, present_len};
      (qk_output_ == 1 ? problem.scores_out : problem.probs_out) = view;
    }
    if (!y.empty()) RunAttention(problem, context.IntraOpThreadPool());

    StoreFloats(y.data(), context.Output(0, TensorShape({batch, seq, n * head}), query.Type()));
    if (context.OutputCount() > 1 && context.IsOutputRequested(1))
      StoreFloats(present_k.data(),
                  context.Output(1, TensorShape({batch, nkv, present_len, head}), query.Type()));
    if (context.OutputCount() > 2 && context.IsOutputRequested(2))
      StoreFloats(present_v.data(),
                  context.Output(2, TensorShape({batch, nkv, present_len, head}), query.Type()));
    if (want_qk)
      StoreFloats(qk.data(),
                  context.Output(3, TensorShape({batch, n, seq, present_len}), query.Type()));
  }

 private:
  void ApplyRotary(const Tensor* cos_cache, const Tensor* sin_cache, const Tensor* position_ids,
                   int64_t batch, int64_t seq, int64_t head, const std::vector<int64_t>& offsets,
                   bool first_prompt, std::vector<float>& q, std::vector<float>& k) const {
    const Node& node = GetNode();
    PRISM_ENFORCE(cos_cache != nullptr && sin_cache != nullptr && cos_cache->Shape().Rank() == 2 &&
                      cos_cache->Shape() == sin_cache->Shape(),
                  kInvalidArgument, node.Describe(),
                  ": do_rotary needs inputs 7 (cos_cache) and 8 (sin_cache) of one 2-D shape");
    const int64_t max_position = cos_cache->Shape()[0], rotary_dim = 2 * cos_cache->Shape()[1];
    PRISM_ENFORCE(rotary_dim <= head, kInvalidArgument, node.Describe(), ": cos_cache ",
                  cos_cache->Shape().ToString(), " rotates ", rotary_dim,
                  " dims, more than the head size ", head);
    if (position_ids != nullptr)
      PRISM_ENFORCE(position_ids->Shape() == TensorShape({batch, seq}), kInvalidArgument,
                    node.Describe(), ": input 9 (position_ids) must be [", batch, ", ", seq,
                    "], got ", position_ids->Shape().ToString());
    const FloatView cos(cos_cache), sin(sin_cache);
    const int64_t half = rotary_dim / 2;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t position = position_ids != nullptr
                                     ? position_ids->Data<int64_t>()[b * seq + s]
                                     : (first_prompt ? s : offsets[b] + s);
        PRISM_ENFORCE(position >= 0 && position < max_position, kInvalidArgument, node.Describe(),
                      ": position ", position, " of batch entry ", b, " is outside cos_cache's ",
                      max_position, " rows");
        const float* c = cos.data() + position * half;
        const float* sn = sin.data() + position * half;
        for (int64_t h = 0; h < num_heads_; ++h)
          Rotate(q.data() + ((b * seq + s) * num_heads_ + h) * head, c, sn, rotary_dim,
                 interleaved_);
        for (int64_t h = 0; h < kv_num_heads_; ++h)
          Rotate(k.data() + ((b * seq + s) * kv_num_heads_ + h) * head, c, sn, rotary_dim,
                 interleaved_);
      }
  }

  int64_t num_heads_, kv_num_heads_;
  float scale_, softcap_;
  int64_t local_window_;
  bool causal_, do_rotary_, interleaved_, smooth_softmax_;
  int64_t qk_output_;
};

void RegisterGroupQueryAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat, E::kFloat16, E::kBFloat16};
  registry.Register(KernelDefBuilder("GroupQueryAttention")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", floats, {0, 1, 2, 7, 8, 10, 11, 14, 15}, {0, 3})
                        .Constraint("T_CACHE", floats, {3, 4}, {1, 2})
                        .Constraint("M", {E::kInt32}, {5, 6})
                        .Build(),
                    MakeKernelFactory<GroupQueryAttention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_group_query_attention, RegisterGroupQueryAttentionKernels);

}  // namespace prism::cpu::contrib

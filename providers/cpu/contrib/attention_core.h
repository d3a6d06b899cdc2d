// The float core of the com.microsoft attention kernels: per (batch, head) pair,
//   scores = scale * Q K^T + mask + attention_bias (then the causal limit),
//   probs = softmax(scores) by rows, out = probs V,
// with Q, K, V and out read and written through strides, so the kernels hand over their
// projections and caches in whatever layout they hold (packed QKV rows, [B, N, T, H] caches)
// without transposing. The two products go through mlas::Gemm; the pairs split over the
// intra-op pool. Additions happen in onnxruntime's order so the float results track its CPU EP.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/contrib/contrib_common.h"

namespace prism::cpu::contrib {

// A [batch, heads, rows, cols] view: element (b, h, r, c) at
// data[b * batch_stride + h * head_stride + r * row_stride + c].
template <typename P>
struct HeadView {
  P* data = nullptr;
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
  int64_t row_stride = 0;
  P* At(int64_t b, int64_t h) const { return data + b * batch_stride + h * head_stride; }
};

// An additive [.., q_len, total] term broadcast over batch and heads (a stride of 0 repeats).
struct AdditiveTerm {
  const float* data = nullptr;  // nullptr: none
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
  int64_t row_stride = 0;
};

struct AttentionProblem {
  int64_t batch = 0;
  int64_t heads = 0;     // query heads
  int64_t kv_heads = 0;  // query head h reads key/value head h / (heads / kv_heads)
  int64_t q_len = 0;
  int64_t total = 0;  // keys per query row (past + new)
  int64_t head_size = 0;
  int64_t v_head_size = 0;
  float scale = 1.0f;
  HeadView<const float> q, k, v;
  HeadView<float> out;
  AdditiveTerm mask;  // added first (onnxruntime's prepared mask)
  AdditiveTerm bias;  // then attention_bias
  // Causal: query row i of batch b sees keys j <= i + causal_offset; the others get
  // causal_value (onnxruntime's CPU Attention writes the float lowest there).
  bool causal = false;
  int64_t causal_offset = 0;
  float causal_value = std::numeric_limits<float>::lowest();
  // onnxruntime's Attention and MultiHeadAttention limit every query row but the last, which
  // sees every key (the same thing unless there are more keys than past + queries).
  bool causal_spares_last_row = false;
  // Optional: the scores after the additions and the causal limit, before the softmax.
  HeadView<float> scores_out;
  // Optional: the probabilities after the softmax.
  HeadView<float> probs_out;
  // GroupQueryAttention's extras. softcap > 0: softcap * tanh(score / softcap) right after the
  // scaling, before the additions. Per batch entry: the causal offset (overrides causal_offset)
  // and the number of valid keys (the rest get probability 0). local_window >= 0 keeps only
  // keys j > i + offset - local_window (onnxruntime's window of w keys; 0 keeps none). sinks
  // (per query head) add e^sink to each softmax denominator (smooth softmax). Excluded keys
  // read 0 in scores_out when excluded_scores_are_zero (GroupQueryAttention's qk output).
  float softcap = 0.0f;
  const int64_t* causal_offsets = nullptr;
  const int64_t* key_lengths = nullptr;
  int64_t local_window = -1;
  const float* sinks = nullptr;
  bool excluded_scores_are_zero = false;
};

// Softmax of one row in place, max-subtracted, through the dispatched vector kernels (maximum,
// then e^(x - max) and their sum in one pass); keys at -inf get exactly 0 (a row of them all is
// all 0). sink (when given) is one more logit in the denominator.
inline void SoftmaxRow(float* row, int64_t count, const float* sink = nullptr) {
  if (count == 0) return;
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  float largest = kernels.max_f32(row, count);
  if (sink != nullptr) largest = std::max(largest, *sink);
  if (std::isinf(largest) && largest < 0) {
    std::fill_n(row, count, 0.0f);
    return;
  }
  float sum = kernels.exp_shifted_sum_f32(row, row, count, largest);
  if (sink != nullptr) sum += std::exp(*sink - largest);
  kernels.scale_f32(row, row, count, sum > 0.0f ? 1.0f / sum : 0.0f);
}

inline void RunAttention(const AttentionProblem& p, ThreadPool* pool) {
  const int64_t group = p.heads / p.kv_heads;
  const int64_t pairs = p.batch * p.heads;
  const double cost = 2.0 * static_cast<double>(p.q_len) * static_cast<double>(p.total) *
                          static_cast<double>(p.head_size + p.v_head_size) +
                      12.0 * static_cast<double>(p.q_len * p.total);
  ThreadPool::TryParallelFor(pool, pairs, cost, [&](int64_t first, int64_t last) {
    std::vector<float> scores(static_cast<size_t>(p.q_len * p.total));
    for (int64_t pair = first; pair < last; ++pair) {
      const int64_t b = pair / p.heads, h = pair % p.heads, kv = h / group;
      float* out = p.out.At(b, h);
      if (p.total == 0) {  // no key: the output rows are zeros
        for (int64_t i = 0; i < p.q_len; ++i)
          std::fill_n(out + i * p.out.row_stride, p.v_head_size, 0.0f);
        continue;
      }
      if (p.head_size == 0)
        std::fill(scores.begin(), scores.end(), 0.0f);
      else
        mlas::Gemm<float>(false, true, p.q_len, p.total, p.head_size, p.scale, p.q.At(b, h),
                          p.q.row_stride, p.k.At(b, kv), p.k.row_stride, 0.0f, scores.data(),
                          p.total);
      const int64_t offset = p.causal_offsets != nullptr ? p.causal_offsets[b] : p.causal_offset;
      const int64_t length =
          p.key_lengths != nullptr ? std::min(p.key_lengths[b], p.total) : p.total;
      constexpr float kExcluded = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < p.q_len; ++i) {
        float* row = scores.data() + i * p.total;
        if (p.softcap > 0.0f)
          for (int64_t j = 0; j < p.total; ++j) row[j] = p.softcap * std::tanh(row[j] / p.softcap);
        if (p.mask.data != nullptr) {
          const float* m = p.mask.data + b * p.mask.batch_stride + h * p.mask.head_stride +
                           i * p.mask.row_stride;
          for (int64_t j = 0; j < p.total; ++j) row[j] += m[j];
        }
        if (p.bias.data != nullptr) {
          const float* m = p.bias.data + b * p.bias.batch_stride + h * p.bias.head_stride +
                           i * p.bias.row_stride;
          for (int64_t j = 0; j < p.total; ++j) row[j] += m[j];
        }
        if (p.causal && !(p.causal_spares_last_row && i + 1 == p.q_len))
          for (int64_t j = std::max<int64_t>(0, i + offset + 1); j < p.total; ++j)
            row[j] = p.causal_value;
        if (p.local_window >= 0)
          std::fill(row, row + std::clamp<int64_t>(i + offset - p.local_window + 1, 0, p.total),
                    kExcluded);
        std::fill(row + std::max<int64_t>(length, 0), row + p.total, kExcluded);
      }
      if (p.scores_out.data != nullptr)
        for (int64_t i = 0; i < p.q_len; ++i) {
          const float* row = scores.data() + i * p.total;
          float* out_row = p.scores_out.At(b, h) + i * p.scores_out.row_stride;
          for (int64_t j = 0; j < p.total; ++j)
            out_row[j] = p.excluded_scores_are_zero && row[j] == kExcluded ? 0.0f : row[j];
        }
      for (int64_t i = 0; i < p.q_len; ++i)
        SoftmaxRow(scores.data() + i * p.total, p.total,
                   p.sinks != nullptr ? p.sinks + h : nullptr);
      if (p.probs_out.data != nullptr)
        for (int64_t i = 0; i < p.q_len; ++i)
          std::copy_n(scores.data() + i * p.total, p.total,
                      p.probs_out.At(b, h) + i * p.probs_out.row_stride);
      if (p.v_head_size > 0)
        mlas::Gemm<float>(false, false, p.q_len, p.v_head_size, p.total, 1.0f, scores.data(),
                          p.total, p.v.At(b, kv), p.v.row_stride, 0.0f, out, p.out.row_stride);
    }
  });
}

// A tensor's values as floats (a copy only for the half types); nullptr stays empty.
class FloatView {
 public:
  explicit FloatView(const Tensor* tensor) {
    if (tensor == nullptr) return;
    if (tensor->Type() == ElementType::kFloat) {
      data_ = tensor->Data<float>();
      return;
    }
    if (tensor->Type() == ElementType::kFloat16)
      copy_ = Widen<Float16, float>(*tensor);
    else
      copy_ = Widen<BFloat16, float>(*tensor);
    data_ = copy_.data();
  }
  const float* data() const { return data_; }

 private:
  const float* data_ = nullptr;
  std::vector<float> copy_;
};

// Writes floats into a float, float16 or bfloat16 tensor of as many elements.
inline void StoreFloats(const float* values, Tensor& tensor) {
  const auto count = static_cast<size_t>(tensor.NumElements());
  if (tensor.Type() == ElementType::kFloat16) {
    Float16* out = tensor.MutableData<Float16>();
    for (size_t i = 0; i < count; ++i) out[i] = Float16(values[i]);
  } else if (tensor.Type() == ElementType::kBFloat16) {
    BFloat16* out = tensor.MutableData<BFloat16>();
    for (size_t i = 0; i < count; ++i) out[i] = BFloat16(values[i]);
  } else {
    std::copy_n(values, count, tensor.MutableData<float>());
  }
}

// An int32 key mask as onnxruntime's CPU attention kernels read it, turned into an additive
// [B, S or 1, total] term of 0 and filter (the masked keys): [B] right padding (keys at or past
// the length), [2B] the ends then the starts (keys before the start too), [B, total] and
// [B, S, total] raw masks (0 masks, > 0 attends). Other shapes are refused naming label.
// MultiHeadAttention's has no [2B] form (accepts_starts false).
inline AdditiveTerm PrepareKeyMask(const Node& node, const Tensor& mask, const char* label,
                                   bool accepts_starts, int64_t batch, int64_t seq, int64_t total,
                                   float filter, std::vector<float>& values) {
  const TensorShape& ms = mask.Shape();
  const int32_t* m = mask.Data<int32_t>();
  const auto refuse = [&]() {
    const std::string starts = accepts_starts ? ", [" + std::to_string(2 * batch) + "]" : "";
    PRISM_THROW(kInvalidArgument, node.Describe(), ": ", label, " must be [", batch, "]", starts,
                ", [", batch, ", ", total, "] or [", batch, ", ", seq, ", ", total, "], got ",
                ms.ToString());
  };
  if (ms.Rank() == 4)
    PRISM_THROW(kNotImplemented, node.Describe(), ": a 4-D ", label, " ", ms.ToString(),
                " is not supported (nor by onnxruntime's CPU kernel)");
  if (ms.Rank() == 3) {
    if (ms[0] != batch || ms[1] != seq || ms[2] != total) refuse();
    values.resize(static_cast<size_t>(batch * seq * total));
    for (size_t i = 0; i < values.size(); ++i) values[i] = m[i] > 0 ? 0.0f : filter;
    return {values.data(), seq * total, 0, total};
  }
  values.assign(static_cast<size_t>(batch * total), 0.0f);
  if (ms.Rank() == 2) {
    if (ms[0] != batch || ms[1] != total) refuse();
    for (size_t i = 0; i < values.size(); ++i) values[i] = m[i] > 0 ? 0.0f : filter;
  } else if (ms.Rank() == 1 && (ms[0] == batch || (accepts_starts && ms[0] == 2 * batch))) {
    for (int64_t b = 0; b < batch; ++b) {
      float* row = values.data() + b * total;
      const int64_t end = std::clamp<int64_t>(m[b], 0, total);
      std::fill(row + end, row + total, filter);
      if (ms[0] == 2 * batch) {
        const int64_t start = std::clamp<int64_t>(m[batch + b], 0, total);
        std::fill(row, row + start, filter);
      }
    }
  } else {
    refuse();
  }
  return {values.data(), total, 0, 0};
}

}  // namespace prism::cpu::contrib

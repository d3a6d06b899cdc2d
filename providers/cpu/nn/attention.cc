// Attention (opsets 23, 24, 25): softmax(softcap(Q' K'^T) + bias) V per batch and head, as the
// ONNX reference computes it (the node tests' expected outputs come from it):
// - 3-D Q/K/V [B, seq, heads * size] are split by q_num_heads / kv_num_heads; 4-D ones are
//   [B, heads, seq, size]. Q' and K' are scaled by sqrt(scale) each (scale defaults to
//   1/sqrt(head size)), that factor rounded to Q's type first.
// - past_key/past_value are prepended along the sequence (present_key/present_value out).
// - Grouped-query attention: with fewer KV heads, query head h reads KV head h / (q/kv).
// - The additive bias: attn_mask (bool: true attends, false is -inf; numbers are added), padded
//   with -inf to the key length and broadcast numpy-style over [B, heads, q, kv]; is_causal
//   masks key j > i + offset (offset: the past length, or nonpad_kv_seqlen[b] - q_len);
//   nonpad_kv_seqlen (24+) masks keys at or past it; left/right_window_size (25) keep
//   i + offset - left <= j <= i + offset + right.
// - softcap > 0 applies softcap * tanh(x / softcap) before the bias. A row whose bias is -inf
//   everywhere has no key to attend: its probabilities (and output) are 0.
// - qk_matmul_output: mode 0 and 1 the (softcapped) scores, 2 the scores plus bias, 3 the
//   probabilities (the reference's numbering).
// float Q/K/V run the float attention core (providers/cpu/contrib/attention_core.h: the two
// products through the SGEMM, vector softmax, (batch, head) pairs over the intra-op pool), the
// sliding windows (25) and qk_matmul_output modes 0-2 excepted; those, and the other types,
// compute in double and round to the output types once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;
using MaskTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t, uint32_t, uint64_t, bool>;
constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

template <typename T>
struct ReadDoubles {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        out[i] = data[i] ? 0.0 : kNegativeInfinity;  // attend, or not
      else
        out[i] = ToDouble(data[i]);
    }
  }
};

template <typename T>
struct WriteDoubles {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = FromCompute<T>(values[i]);
  }
};

template <typename T>
struct RoundThrough {
  double operator()(double value) const { return ToDouble(FromCompute<T>(value)); }
};

template <typename T>
struct RoundThroughImpl {
  void operator()(double value, double& out) const { out = RoundThrough<T>{}(value); }
};

std::vector<double> Doubles(const Tensor& tensor, const Node& node) {
  std::vector<double> out;
  DispatchByType<ReadDoubles, MaskTypes>(tensor.Type(), node.OpType(), tensor, out);
  return out;
}

// A [B, seq, heads * size] tensor's values as [B, heads, seq, size] (4-D ones as they are).
std::vector<double> AsHeads(const std::vector<double>& values, const std::vector<int64_t>& dims,
                            int64_t heads) {
  if (dims.size() == 4) return values;
  const int64_t batch = dims[0];
  const int64_t seq = dims[1];
  const int64_t size = dims[2] / heads;
  std::vector<double> out(values.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < seq; ++s)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t d = 0; d < size; ++d)
          out[((b * heads + h) * seq + s) * size + d] =
              values[((b * seq + s) * heads + h) * size + d];
  return out;
}

// past [B, heads, past, size] followed by now [B, heads, seq, size] along the sequence.
std::vector<double> Concatenate(const std::vector<double>* past, int64_t past_length,
                                const std::vector<double>& now, int64_t batch, int64_t heads,
                                int64_t seq, int64_t size) {
  if (past == nullptr) return now;
  const int64_t total = past_length + seq;
  std::vector<double> out(static_cast<size_t>(batch * heads * total * size));
  for (int64_t bh = 0; bh < batch * heads; ++bh) {
    std::copy_n(past->data() + bh * past_length * size, past_length * size,
                out.data() + bh * total * size);
    std::copy_n(now.data() + bh * seq * size, seq * size,
                out.data() + bh * total * size + past_length * size);
  }
  return out;
}

// A 3-D [B, seq, heads * size] or 4-D [B, heads, seq, size] input's sequence length and head
// size.
void SeqAndSize(const std::vector<int64_t>& dims, int64_t heads, int64_t& seq, int64_t& size) {
  seq = dims.size() == 4 ? dims[2] : dims[1];
  size = dims.size() == 4 ? dims[3] : dims[2] / heads;
}

// past_key [B, kv_heads, past, head] and past_value [B, kv_heads, past, v_head], checked; the past
// length (0 without them).
int64_t CheckedPastLength(const Node& node, const Tensor* past_key, const Tensor* past_value,
                          int64_t batch, int64_t kv_heads, int64_t head, int64_t v_head) {
  if (past_key == nullptr) return 0;
  const auto& pk = past_key->Shape();
  const auto& pv = past_value->Shape();
  PRISM_ENFORCE(pk.Rank() == 4 && pk[0] == batch && pk[1] == kv_heads && pk[3] == head &&
                    pv.Rank() == 4 && pv[0] == batch && pv[1] == kv_heads && pv[2] == pk[2] &&
                    pv[3] == v_head,
                kInvalidArgument, node.Describe(), ": past_key ", pk.ToString(), " and past_value ",
                pv.ToString(), " must be [", batch, ", ", kv_heads, ", past, ", head, "] and [",
                batch, ", ", kv_heads, ", past, ", v_head, "]");
  return pk[2];
}

// nonpad_kv_seqlen's lengths, checked to lie in [0, total]; empty without it.
std::vector<int64_t> CheckedNonpadLengths(const Node& node, const Tensor* nonpad, int64_t batch,
                                          int64_t total) {
  std::vector<int64_t> lengths;
  if (nonpad == nullptr) return lengths;
  PRISM_ENFORCE(nonpad->Shape().Rank() == 1 && nonpad->Shape()[0] == batch, kInvalidArgument,
                node.Describe(), ": nonpad_kv_seqlen must have shape [", batch, "], got ",
                nonpad->Shape().ToString());
  lengths.assign(nonpad->Data<int64_t>(), nonpad->Data<int64_t>() + batch);
  // Lengths of the keys: the window and causal arithmetic needs them in range (the fuzzer fed
  // INT64_MIN).
  for (int64_t b = 0; b < batch; ++b)
    PRISM_ENFORCE(lengths[b] >= 0 && lengths[b] <= total, kInvalidArgument, node.Describe(),
                  ": nonpad_kv_seqlen[", b, "] is ", lengths[b], ", outside [0, ", total,
                  "] (the number of keys)");
  return lengths;
}

// attn_mask broadcast right-aligned over [B, heads, q, kv]: its dims (1 where it has none) and
// element strides (0 where it broadcasts; its last dim may be shorter than the keys).
struct MaskLayout {
  std::vector<int64_t> dims = std::vector<int64_t>(4, 1);
  std::vector<int64_t> strides = std::vector<int64_t>(4, 0);
};

MaskLayout CheckedMaskLayout(const Node& node, const Tensor& mask, int64_t batch, int64_t q_heads,
                             int64_t q_len, int64_t total) {
  MaskLayout layout;
  const auto& dims = mask.Shape().Dims();
  PRISM_ENFORCE(dims.size() >= 2 && dims.size() <= 4, kInvalidArgument, node.Describe(),
                ": attn_mask must have rank 2 to 4, got ", mask.Shape().ToString());
  std::copy(dims.begin(), dims.end(), layout.dims.end() - static_cast<int64_t>(dims.size()));
  const int64_t want[4] = {batch, q_heads, q_len, total};
  for (int a = 0; a < 4; ++a)
    PRISM_ENFORCE(
        layout.dims[a] == 1 || layout.dims[a] == want[a] || (a == 3 && layout.dims[a] < total),
        kInvalidArgument, node.Describe(), ": attn_mask ", mask.Shape().ToString(),
        " does not broadcast to [", batch, ", ", q_heads, ", ", q_len, ", ", total, "]");
  int64_t stride = 1;
  for (int a = 3; a >= 0; --a) {
    layout.strides[a] = layout.dims[a] == 1 && a != 3 ? 0 : stride;
    stride *= layout.dims[a];
  }
  return layout;
}

// A float input's [B, heads, seq, size] view: 3-D inputs are read in place through strides.
contrib::HeadView<const float> FloatHeads(const Tensor& tensor, int64_t heads, int64_t seq,
                                          int64_t size) {
  const float* data = tensor.Data<float>();
  if (tensor.Shape().Rank() == 4) return {data, heads * seq * size, seq * size, size};
  return {data, seq * heads * size, size, heads * size};
}

// The sizes of one call, checked.
struct Geometry {
  int64_t batch, q_heads, kv_heads, q_len, head, v_head, past, total;
};

// The inputs of one call (the optional ones nullptr when absent).
struct Inputs {
  const Tensor& q;
  const Tensor& k;
  const Tensor& v;
  const Tensor* mask;
  const Tensor* past_key;
  const Tensor* past_value;
};

class Attention final : public OpKernel {
 public:
  explicit Attention(const OpKernelInfo& info) : OpKernel(info) {
    is_causal_ = info.IntOr("is_causal", 0) != 0;
    if (info.HasAttr("scale")) scale_ = info.FloatOr("scale", 1.0f);
    softcap_ = info.FloatOr("softcap", 0.0f);
    mode_ = info.IntOr("qk_matmul_output_mode", 0);
    q_heads_ = info.IntOr("q_num_heads", 0);
    kv_heads_ = info.IntOr("kv_num_heads", 0);
    left_window_ = info.IntOr("left_window_size", -1);
    right_window_ = info.IntOr("right_window_size", -1);
    const Node& node = info.GetNode();
    PRISM_ENFORCE(mode_ >= 0 && mode_ <= 3, kInvalidArgument, node.Describe(),
                  ": qk_matmul_output_mode ", mode_, " is not 0, 1, 2 or 3");
    PRISM_ENFORCE(left_window_ >= -1 && right_window_ >= -1, kInvalidArgument, node.Describe(),
                  ": left_window_size and right_window_size must be -1 or nonnegative, got ",
                  left_window_, " and ", right_window_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& q_in = context.RequiredInput(0);
    const Tensor& k_in = context.RequiredInput(1);
    const Tensor& v_in = context.RequiredInput(2);
    const Tensor* mask = context.Input(3);
    const Tensor* past_key = context.Input(4);
    const Tensor* past_value = context.Input(5);
    const Tensor* nonpad = context.InputCount() > 6 ? context.Input(6) : nullptr;
    const size_t rank = q_in.Shape().Rank();
    PRISM_ENFORCE(
        (rank == 3 || rank == 4) && k_in.Shape().Rank() == rank && v_in.Shape().Rank() == rank,
        kInvalidArgument, node.Describe(), ": Q, K and V must all be 3-D or all 4-D, got ",
        q_in.Shape().ToString(), ", ", k_in.Shape().ToString(), " and ", v_in.Shape().ToString());
    PRISM_ENFORCE((past_key == nullptr) == (past_value == nullptr), kInvalidArgument,
                  node.Describe(), ": past_key and past_value must be given together");
    PRISM_ENFORCE(nonpad == nullptr || past_key == nullptr, kInvalidArgument, node.Describe(),
                  ": nonpad_kv_seqlen cannot be combined with past_key/past_value");
    int64_t q_heads = q_heads_, kv_heads = kv_heads_;
    if (rank == 3) {
      PRISM_ENFORCE(q_heads > 0 && kv_heads > 0, kInvalidArgument, node.Describe(),
                    ": 3-D inputs need q_num_heads and kv_num_heads");
      PRISM_ENFORCE(q_in.Shape()[2] % q_heads == 0 && k_in.Shape()[2] % kv_heads == 0 &&
                        v_in.Shape()[2] % kv_heads == 0,
                    kInvalidArgument, node.Describe(), ": hidden sizes ", q_in.Shape()[2], ", ",
                    k_in.Shape()[2], ", ", v_in.Shape()[2], " do not split into ", q_heads,
                    " query and ", kv_heads, " key/value heads");
    } else {
      q_heads = q_in.Shape()[1];
      kv_heads = k_in.Shape()[1];
      PRISM_ENFORCE(v_in.Shape()[1] == kv_heads, kInvalidArgument, node.Describe(), ": K has ",
                    kv_heads, " heads but V has ", v_in.Shape()[1]);
    }
    const int64_t batch = q_in.Shape()[0];
    PRISM_ENFORCE(k_in.Shape()[0] == batch && v_in.Shape()[0] == batch, kInvalidArgument,
                  node.Describe(), ": Q, K and V must share the batch size ", batch);
    PRISM_ENFORCE(q_heads % kv_heads == 0, kInvalidArgument, node.Describe(), ": ", q_heads,
                  " query heads are not a multiple of ", kv_heads, " key/value heads");

    int64_t q_len = 0, head = 0, kv_len = 0, k_head = 0, v_len = 0, v_head = 0;
    SeqAndSize(q_in.Shape().Dims(), q_heads, q_len, head);
    SeqAndSize(k_in.Shape().Dims(), kv_heads, kv_len, k_head);
    SeqAndSize(v_in.Shape().Dims(), kv_heads, v_len, v_head);
    PRISM_ENFORCE(k_head == head && v_len == kv_len, kInvalidArgument, node.Describe(),
                  ": K's head size ", k_head, " must equal Q's ", head, " and V's sequence ", v_len,
                  " K's ", kv_len);
    const int64_t past =
        CheckedPastLength(node, past_key, past_value, batch, kv_heads, head, v_head);
    const int64_t total = past + kv_len;
    const std::vector<int64_t> nonpad_lengths = CheckedNonpadLengths(node, nonpad, batch, total);
    MaskLayout mask_layout;
    if (mask != nullptr) mask_layout = CheckedMaskLayout(node, *mask, batch, q_heads, q_len, total);
    const Geometry geometry{batch, q_heads, kv_heads, q_len, head, v_head, past, total};

    const bool wants_qk = context.OutputCount() > 3 && context.IsOutputRequested(3);
    if (q_in.Type() == ElementType::kFloat && v_in.Type() == ElementType::kFloat &&
        (!wants_qk || mode_ == 3) && left_window_ < 0 && right_window_ < 0) {
      ComputeFloat(context, geometry, {q_in, k_in, v_in, mask, past_key, past_value}, mask_layout,
                   nonpad_lengths);
      return;
    }

    std::vector<double> q = AsHeads(Doubles(q_in, node), q_in.Shape().Dims(), q_heads);
    std::vector<double> k = AsHeads(Doubles(k_in, node), k_in.Shape().Dims(), kv_heads);
    std::vector<double> v = AsHeads(Doubles(v_in, node), v_in.Shape().Dims(), kv_heads);
    if (past_key != nullptr) {
      const std::vector<double> past_k = Doubles(*past_key, node);
      const std::vector<double> past_v = Doubles(*past_value, node);
      k = Concatenate(&past_k, past, k, batch, kv_heads, kv_len, head);
      v = Concatenate(&past_v, past, v, batch, kv_heads, kv_len, v_head);
    }

    // present_key / present_value: the whole cache.
    if (context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      Tensor& out = context.Output(1, TensorShape({batch, kv_heads, total, head}), k_in.Type());
      DispatchByType<WriteDoubles, FloatTypes>(k_in.Type(), node.OpType(), k, out);
    }
    if (context.OutputCount() > 2 && context.IsOutputRequested(2)) {
      Tensor& out = context.Output(2, TensorShape({batch, kv_heads, total, v_head}), v_in.Type());
      DispatchByType<WriteDoubles, FloatTypes>(v_in.Type(), node.OpType(), v, out);
    }

    std::vector<double> mask_values;
    if (mask != nullptr) mask_values = Doubles(*mask, node);
    const std::vector<int64_t>& mask_dims = mask_layout.dims;
    const std::vector<int64_t>& mask_strides = mask_layout.strides;
    const auto bias_at = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
      double bias = 0;
      if (mask != nullptr) {
        if (j >= mask_dims[3]) {
          bias = kNegativeInfinity;  // padding beyond the mask's keys
        } else {
          const int64_t at = (mask_dims[0] == 1 ? 0 : b) * mask_strides[0] +
                             (mask_dims[1] == 1 ? 0 : h) * mask_strides[1] +
                             (mask_dims[2] == 1 ? 0 : i) * mask_strides[2] +
                             (mask_dims[3] == 1 ? 0 : j);
          bias = mask_values[static_cast<size_t>(at)];
        }
      }
      const int64_t offset = !nonpad_lengths.empty() ? nonpad_lengths[b] - q_len : past;
      if (is_causal_ && j > i + offset) bias += kNegativeInfinity;
      if (left_window_ >= 0 && i + offset - j > left_window_) bias += kNegativeInfinity;
      if (right_window_ >= 0 && j - (i + offset) > right_window_) bias += kNegativeInfinity;
      if (!nonpad_lengths.empty() && j >= nonpad_lengths[b]) bias += kNegativeInfinity;
      return bias;
    };

    double scale =
        scale_ ? static_cast<double>(*scale_) : 1.0 / std::sqrt(static_cast<double>(head));
    double root = 0;
    DispatchByType<RoundThroughImpl, FloatTypes>(q_in.Type(), node.OpType(), std::sqrt(scale),
                                                 root);
    const int64_t group = q_heads / kv_heads;
    std::vector<double> y(static_cast<size_t>(batch * q_heads * q_len * v_head), 0.0);
    std::vector<double> qk_out(static_cast<size_t>(batch * q_heads * q_len * total), 0.0);
    std::vector<double> scores(static_cast<size_t>(total)), biases(static_cast<size_t>(total));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < q_heads; ++h) {
        const int64_t kv = h / group;
        const double* k_head_data = k.data() + (b * kv_heads + kv) * total * head;
        const double* v_head_data = v.data() + (b * kv_heads + kv) * total * v_head;
        for (int64_t i = 0; i < q_len; ++i) {
          const double* q_row = q.data() + ((b * q_heads + h) * q_len + i) * head;
          double* qk_row = qk_out.data() + ((b * q_heads + h) * q_len + i) * total;
          double largest = kNegativeInfinity;
          bool attends = false;
          for (int64_t j = 0; j < total; ++j) {
            double dot = 0;
            for (int64_t d = 0; d < head; ++d)
              dot += (q_row[d] * root) * (k_head_data[j * head + d] * root);
            if (softcap_ > 0) dot = softcap_ * std::tanh(dot / softcap_);
            biases[j] = bias_at(b, h, i, j);
            attends = attends || biases[j] != kNegativeInfinity;
            scores[j] = dot + biases[j];
            qk_row[j] = mode_ == 2 ? scores[j] : dot;
            largest = std::max(largest, scores[j]);
          }
          double* y_row = y.data() + ((b * q_heads + h) * q_len + i) * v_head;
          if (!attends) {  // no key to attend: probabilities and output are 0
            if (mode_ == 3) std::fill_n(qk_row, total, 0.0);
            continue;
          }
          const double shift = std::isinf(largest) && largest < 0 ? 0.0 : largest;
          double sum = 0;
          for (int64_t j = 0; j < total; ++j) {
            scores[j] = std::exp(scores[j] - shift);
            sum += scores[j];
          }
          if (sum == 0) sum = 1;
          for (int64_t j = 0; j < total; ++j) {
            scores[j] /= sum;
            if (mode_ == 3) qk_row[j] = scores[j];
            for (int64_t d = 0; d < v_head; ++d)
              y_row[d] += scores[j] * v_head_data[j * v_head + d];
          }
        }
      }
    }

    std::vector<int64_t> y_dims = {batch, q_heads, q_len, v_head};
    if (rank == 3) {  // back to [B, seq, heads * v_head]
      std::vector<double> merged(y.size());
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < q_heads; ++h)
          for (int64_t s = 0; s < q_len; ++s)
            for (int64_t d = 0; d < v_head; ++d)
              merged[((b * q_len + s) * q_heads + h) * v_head + d] =
                  y[((b * q_heads + h) * q_len + s) * v_head + d];
      y.swap(merged);
      y_dims = {batch, q_len, q_heads * v_head};
    }
    Tensor& y_out = context.Output(0, TensorShape(y_dims), q_in.Type());
    DispatchByType<WriteDoubles, FloatTypes>(q_in.Type(), node.OpType(), y, y_out);
    if (context.OutputCount() > 3 && context.IsOutputRequested(3)) {
      Tensor& out = context.Output(3, TensorShape({batch, q_heads, q_len, total}), q_in.Type());
      DispatchByType<WriteDoubles, FloatTypes>(q_in.Type(), node.OpType(), qk_out, out);
    }
  }

 private:
  // float Q, K, V through the float attention core. K and V are read in place without a past;
  // with one (or when present_key/present_value are asked for) they are gathered into the
  // present outputs (or a scratch copy): past rows, then the new ones.
  void ComputeFloat(OpKernelContext& context, const Geometry& g, const Inputs& in,
                    const MaskLayout& mask_layout, const std::vector<int64_t>& nonpad) const {
    const Node& node = GetNode();
    const Tensor& q_in = in.q;
    const Tensor& k_in = in.k;
    const Tensor& v_in = in.v;
    const Tensor* mask = in.mask;
    const Tensor* past_key = in.past_key;
    const Tensor* past_value = in.past_value;
    const int64_t kv_len = g.total - g.past;
    contrib::AttentionProblem p;
    p.batch = g.batch;
    p.heads = g.q_heads;
    p.kv_heads = g.kv_heads;
    p.q_len = g.q_len;
    p.total = g.total;
    p.head_size = g.head;
    p.v_head_size = g.v_head;
    p.scale = scale_ ? *scale_ : 1.0f / std::sqrt(static_cast<float>(g.head));
    p.softcap = static_cast<float>(softcap_);
    p.q = FloatHeads(q_in, g.q_heads, g.q_len, g.head);

    // K and V: [B, kv_heads, total, size], the past's rows first.
    std::vector<float> key_scratch, value_scratch;
    const auto gather = [&](const Tensor& now, const Tensor* past, int output, int64_t size,
                            std::vector<float>& scratch) -> contrib::HeadView<const float> {
      const bool wanted =
          context.OutputCount() > static_cast<size_t>(output) && context.IsOutputRequested(output);
      const contrib::HeadView<const float> fresh = FloatHeads(now, g.kv_heads, kv_len, size);
      if (past == nullptr && !wanted) return fresh;
      float* cache = nullptr;
      if (wanted) {
        cache = context
                    .Output(output, TensorShape({g.batch, g.kv_heads, g.total, size}),
                            ElementType::kFloat)
                    .MutableData<float>();
      } else {
        scratch.resize(static_cast<size_t>(g.batch * g.kv_heads * g.total * size));
        cache = scratch.data();
      }
      for (int64_t b = 0; b < g.batch; ++b)
        for (int64_t h = 0; h < g.kv_heads; ++h) {
          float* rows = cache + (b * g.kv_heads + h) * g.total * size;
          if (past != nullptr)
            std::copy_n(past->Data<float>() + (b * g.kv_heads + h) * g.past * size, g.past * size,
                        rows);
          const float* source = fresh.At(b, h);
          for (int64_t s = 0; s < kv_len; ++s)
            std::copy_n(source + s * fresh.row_stride, size, rows + (g.past + s) * size);
        }
      return {cache, g.kv_heads * g.total * size, g.total * size, size};
    };
    p.k = gather(k_in, past_key, 1, g.head, key_scratch);
    p.v = gather(v_in, past_value, 2, g.v_head, value_scratch);

    // The mask as an additive float term [1 or B, 1 or heads, q, total]: rows expanded, keys
    // past a shorter mask excluded (as the double path reads it), batch and heads broadcast by
    // strides.
    std::vector<float> mask_values;
    if (mask != nullptr) {
      const std::vector<double> given = Doubles(*mask, node);
      const std::vector<int64_t>& d = mask_layout.dims;
      const std::vector<int64_t>& stride = mask_layout.strides;
      mask_values.resize(static_cast<size_t>(d[0] * d[1] * g.q_len * g.total));
      float* out = mask_values.data();
      for (int64_t b = 0; b < d[0]; ++b)
        for (int64_t h = 0; h < d[1]; ++h)
          for (int64_t i = 0; i < g.q_len; ++i)
            for (int64_t j = 0; j < g.total; ++j) {
              const int64_t at =
                  b * stride[0] + h * stride[1] + (d[2] == 1 ? 0 : i) * stride[2] + j;
              *out++ = j >= d[3] ? -std::numeric_limits<float>::infinity()
                                 : static_cast<float>(given[static_cast<size_t>(at)]);
            }
      p.mask = {mask_values.data(), d[0] == 1 ? 0 : d[1] * g.q_len * g.total,
                d[1] == 1 ? 0 : g.q_len * g.total, g.total};
    }

    p.causal = is_causal_;
    p.causal_value = -std::numeric_limits<float>::infinity();
    p.causal_offset = g.past;
    std::vector<int64_t> causal_offsets;
    if (!nonpad.empty()) {
      causal_offsets.resize(nonpad.size());
      for (size_t b = 0; b < nonpad.size(); ++b) causal_offsets[b] = nonpad[b] - g.q_len;
      p.causal_offsets = causal_offsets.data();
      p.key_lengths = nonpad.data();
    }

    const bool three_d = q_in.Shape().Rank() == 3;
    const TensorShape y_shape = three_d ? TensorShape({g.batch, g.q_len, g.q_heads * g.v_head})
                                        : TensorShape({g.batch, g.q_heads, g.q_len, g.v_head});
    float* y = context.Output(0, y_shape, ElementType::kFloat).MutableData<float>();
    p.out = three_d ? contrib::HeadView<float>{y, g.q_len * g.q_heads * g.v_head, g.v_head,
                                               g.q_heads * g.v_head}
                    : contrib::HeadView<float>{y, g.q_heads * g.q_len * g.v_head,
                                               g.q_len * g.v_head, g.v_head};
    if (context.OutputCount() > 3 && context.IsOutputRequested(3)) {  // mode 3: probabilities
      float* probs =
          context
              .Output(3, TensorShape({g.batch, g.q_heads, g.q_len, g.total}), ElementType::kFloat)
              .MutableData<float>();
      p.probs_out = {probs, g.q_heads * g.q_len * g.total, g.q_len * g.total, g.total};
    }
    if (g.batch * g.q_heads * g.q_len > 0) contrib::RunAttention(p, context.IntraOpThreadPool());
  }

  bool is_causal_ = false;
  std::optional<float> scale_;
  double softcap_ = 0;
  int64_t mode_ = 0;
  int64_t q_heads_ = 0, kv_heads_ = 0;
  int64_t left_window_ = -1, right_window_ = -1;
};

void RegisterAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> masks = {E::kUint8, E::kUint16, E::kUint32, E::kUint64,   E::kInt8,
                                E::kInt16, E::kInt32,  E::kInt64,  E::kBFloat16, E::kFloat16,
                                E::kFloat, E::kDouble, E::kBool};
  const auto factory = MakeKernelFactory<Attention>();
  for (const auto& [since, end] : {std::pair{23, 23}, std::pair{24, 24}, std::pair{25, INT_MAX}})
    registry.Register(KernelDefBuilder("Attention")
                          .Versions(since, end)
                          .Constraint("T1", floats, {0, 1, 4}, {0, 1, 3})
                          .Constraint("T2", floats, {2, 5}, {2})
                          .Constraint("U", masks, {3})
                          .Build(),
                      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_attention, RegisterAttentionKernels);

}  // namespace prism::cpu

// Convolution and pooling output sizes (pads, strides, dilations, auto_pad, ceil_mode), global
// pooling and batch normalization.
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

// ceil(a / b) for b > 0, without the overflow of (a + b - 1) / b for large a.
int64_t CeilDiv(int64_t a, int64_t b) {
  return a / b + (a > 0 && a % b != 0 ? 1 : 0);
}

// Spatial output dims of a window sliding over input dims 2.. of x.
std::vector<Dim> SlidingOutput(InferenceContext& context, const SymbolicShape& x,
                               const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t spatial = x.dims.size() - 2;
  if (kernel.size() != spatial)
    context.Fail(MakeString("kernel has ", kernel.size(), " spatial dims, input ", x.ToString(),
                            " has ", spatial));
  const std::vector<int64_t> strides =
      context.IntsAttr("strides").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations =
      context.IntsAttr("dilations").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads =
      context.IntsAttr("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
    context.Fail(MakeString("strides, dilations and pads must have ", spatial, ", ", spatial,
                            " and ", 2 * spatial, " values for input ", x.ToString()));
  const Attribute* auto_pad_attribute = context.Attr("auto_pad");
  const std::string auto_pad = auto_pad_attribute ? auto_pad_attribute->s : "NOTSET";
  std::vector<Dim> out;
  for (size_t i = 0; i < spatial; ++i) {
    if (strides[i] <= 0) context.Fail(MakeString("strides must be positive, given ", strides[i]));
    if (dilations[i] <= 0)
      context.Fail(MakeString("dilations must be positive, given ", dilations[i]));
    if (kernel[i] <= 0) context.Fail(MakeString("kernel dims must be positive, given ", kernel[i]));
    if (pads[i] < 0 || pads[i + spatial] < 0)
      context.Fail(
          MakeString("pads must not be negative, given ", pads[i], " and ", pads[i + spatial]));
    const Dim& in = x.dims[i + 2];
    if (!in.IsKnown()) {
      out.emplace_back();
      continue;
    }
    const WideInt wide_window = static_cast<WideInt>(kernel[i] - 1) * dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(KnownDim(CeilDiv(in.value, strides[i])));
      continue;
    }
    const bool valid = auto_pad == "VALID";
    const int64_t begin = valid ? 0 : pads[i];
    const int64_t end = valid ? 0 : pads[i + spatial];
    const WideInt wide_span = static_cast<WideInt>(in.value) + begin + end - wide_window;
    if (wide_span < 0)
      context.Fail(MakeString("window (kernel ", kernel[i], ", dilation ", dilations[i],
                              ") is larger than the padded input ", in.value, "+", begin, "+", end,
                              " on spatial axis ", i));
    const std::optional<int64_t> narrow_span = WideValue(wide_span);
    if (!narrow_span)
      context.Fail(MakeString("the padded input ", in.value, "+", begin, "+", end,
                              " on spatial axis ", i, " does not fit int64"));
    const int64_t span = *narrow_span;
    int64_t size = span / strides[i] + 1;
    if (ceil_mode && !valid) {
      size = CeilDiv(span, strides[i]) + 1;
      const WideInt lead = static_cast<WideInt>(in.value) + begin;
      if (size - 1 >= lead / strides[i] + (lead % strides[i] != 0 ? 1 : 0))
        --size;  // as the CPU kernel
    }
    out.push_back(KnownDim(size));
  }
  return out;
}

void Conv(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* w = context.InputShape(1);
  // ConvInteger accumulates in int32; Conv and DeformConv keep X's type.
  const auto elem =
      context.GetNode().OpType() == "ConvInteger" ? ElementType::kInt32 : context.InputElem(0);
  if (!x || !w) return context.SetOutput(0, elem, std::nullopt);
  if (x->dims.size() < 3 || w->dims.size() != x->dims.size())
    context.Fail(MakeString("X ", x->ToString(), " and W ", w->ToString(),
                            " must have one rank of 3 or more"));
  const int64_t group = context.IntAttr("group", 1);
  if (group <= 0) context.Fail(MakeString("group must be positive, given ", group));
  const Dim& channels = x->dims[1];
  const Dim& per_group = w->dims[1];
  if (channels.IsKnown() && per_group.IsKnown()) {
    const std::optional<int64_t> expected = CheckedMul(per_group.value, group);
    if (!expected || channels.value != *expected)
      context.Fail(MakeString("X has ", channels.value, " channels but W ", w->ToString(),
                              " with group ", group, " expects ",
                              expected ? std::to_string(*expected) : "more than fit in int64"));
  }
  std::vector<int64_t> kernel;
  if (auto attribute = context.IntsAttr("kernel_shape")) {
    kernel = *attribute;
  } else {
    for (size_t d = 2; d < w->dims.size(); ++d) {
      if (!w->dims[d].IsKnown()) {
        SymbolicShape partial{{x->dims[0], w->dims[0]}};
        partial.dims.resize(x->dims.size());
        return context.SetOutput(0, elem, partial);
      }
      kernel.push_back(w->dims[d].value);
    }
  }
  SymbolicShape out{{x->dims[0], w->dims[0]}};
  for (const Dim& dim : SlidingOutput(context, *x, kernel, false)) out.dims.push_back(dim);
  context.SetOutput(0, elem, out);
}

void Pool(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() < 3) context.Fail(MakeString("X ", x->ToString(), " needs rank 3 or more"));
  const auto kernel = context.IntsAttr("kernel_shape");
  if (!kernel) context.Fail("attribute kernel_shape is required");
  SymbolicShape out{{x->dims[0], x->dims[1]}};
  for (const Dim& dim : SlidingOutput(context, *x, *kernel, context.IntAttr("ceil_mode", 0) != 0))
    out.dims.push_back(dim);
  context.SetOutput(0, context.InputElem(0), out);
  if (context.GetNode().OpType() == "MaxPool") context.SetOutput(1, ElementType::kInt64, out);
}

void GlobalPool(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() < 3) context.Fail(MakeString("X ", x->ToString(), " needs rank 3 or more"));
  SymbolicShape out{{x->dims[0], x->dims[1]}};
  out.dims.resize(x->dims.size(), KnownDim(1));
  context.SetOutput(0, context.InputElem(0), out);
}

void BatchNormalization(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, context.InputElem(0), x ? std::optional<SymbolicShape>(*x) : std::nullopt);
  // Training-mode outputs (running mean/var, saved stats) have the channel count's shape.
  const ElementType stats = context.HasInput(3) ? context.InputElem(3) : context.InputElem(0);
  std::optional<SymbolicShape> channel;
  if (x && x->dims.size() >= 2) channel = SymbolicShape{{x->dims[1]}};
  for (size_t o = 1; o < context.GetNode().OutputCount(); ++o) context.SetOutput(o, stats, channel);
}

// The ops that keep X's shape and type: InstanceNormalization, GroupNormalization,
// MeanVarianceNormalization, LpNormalization, LRN, RotaryEmbedding, SwiGLU, TensorScatter.
// RMSNormalization's Y has the scale's type.
void ShapeOfX(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const ElementType elem = context.GetNode().OpType() == "RMSNormalization" ? context.InputElem(1)
                                                                            : context.InputElem(0);
  context.SetOutput(0, elem, x ? std::optional<SymbolicShape>(*x) : std::nullopt);
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the target's shape with reduction
// none, a scalar otherwise; SoftmaxCrossEntropyLoss's log_prob has the scores' shape.
void Loss(InferenceContext& context) {
  const Attribute* reduction = context.Attr("reduction");
  const bool none = reduction != nullptr && reduction->s == "none";
  const SymbolicShape* target = context.InputShape(1);
  std::optional<SymbolicShape> loss;
  if (!none)
    loss = SymbolicShape{};
  else if (target)
    loss = *target;
  context.SetOutput(0, context.InputElem(0), loss);
  if (context.GetNode().OutputCount() > 1) {
    const SymbolicShape* scores = context.InputShape(0);
    context.SetOutput(1, context.InputElem(0),
                      scores ? std::optional<SymbolicShape>(*scores) : std::nullopt);
  }
}

// Attention: Y [B, q_heads, q_len, v_head] (3-D: [B, q_len, q_heads * v_head]), present_key
// and present_value [B, kv_heads, past + kv_len, size], qk_matmul_output [B, q_heads, q_len,
// past + kv_len].
void Attention(InferenceContext& context) {
  const SymbolicShape* q = context.InputShape(0);
  const SymbolicShape* k = context.InputShape(1);
  const SymbolicShape* v = context.InputShape(2);
  const SymbolicShape* past = context.HasInput(4) ? context.InputShape(4) : nullptr;
  const size_t outputs = context.GetNode().OutputCount();
  if (!q || !k || !v || q->dims.size() != k->dims.size() || q->dims.size() != v->dims.size() ||
      (q->dims.size() != 3 && q->dims.size() != 4) || (context.HasInput(4) && !past)) {
    for (size_t o = 0; o < outputs; ++o)
      context.SetOutput(o, context.InputElem(o == 2 ? 2 : 0), std::nullopt);
    return;
  }
  const bool three = q->dims.size() == 3;
  const Dim batch = q->dims[0];
  const auto divided = [](const Dim& dim, int64_t by) {
    return dim.IsKnown() && by > 0 ? KnownDim(dim.value / by) : Dim{};
  };
  const int64_t q_heads_attr = context.IntAttr("q_num_heads", 0);
  const int64_t kv_heads_attr = context.IntAttr("kv_num_heads", 0);
  const Dim q_heads = three ? (q_heads_attr > 0 ? KnownDim(q_heads_attr) : Dim{}) : q->dims[1];
  const Dim kv_heads = three ? (kv_heads_attr > 0 ? KnownDim(kv_heads_attr) : Dim{}) : k->dims[1];
  const Dim q_len = three ? q->dims[1] : q->dims[2];
  const Dim kv_len = three ? k->dims[1] : k->dims[2];
  const Dim head = three ? divided(k->dims[2], kv_heads_attr) : k->dims[3];
  const Dim v_head = three ? divided(v->dims[2], kv_heads_attr) : v->dims[3];
  Dim total = kv_len;
  if (past) {
    const Dim& past_len = past->dims.size() == 4 ? past->dims[2] : Dim{};
    total = AddDims(past_len, kv_len);
  }
  SymbolicShape y{{batch, q_heads, q_len, v_head}};
  if (three) {
    const Dim hidden =
        q_heads.IsKnown() && v_head.IsKnown() ? MulDim(q_heads, v_head.value) : Dim{};
    y = SymbolicShape{{batch, q_len, hidden}};
  }
  context.SetOutput(0, context.InputElem(0), y);
  if (outputs > 1)
    context.SetOutput(1, context.InputElem(0), SymbolicShape{{batch, kv_heads, total, head}});
  if (outputs > 2)
    context.SetOutput(2, context.InputElem(2), SymbolicShape{{batch, kv_heads, total, v_head}});
  if (outputs > 3)
    context.SetOutput(3, context.InputElem(0), SymbolicShape{{batch, q_heads, q_len, total}});
}

// ConvTranspose: [N, M, out...] with out from output_shape, auto_pad SAME_* (in * stride) or
// the explicit pads (see the kernel's equations); unknown dims stay unknown.
void ConvTranspose(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* w = context.InputShape(1);
  if (!x || !w || x->dims.size() < 3 || w->dims.size() != x->dims.size())
    return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const size_t rank = x->dims.size() - 2;
  const int64_t group = context.IntAttr("group", 1);
  const Dim channels = MulDim(w->dims[1], group);
  SymbolicShape out{{x->dims[0], channels}};
  const auto ints = [&](const char* name, size_t count, int64_t fallback) {
    std::vector<int64_t> values = context.IntsAttr(name).value_or(std::vector<int64_t>{});
    if (values.empty()) values.assign(count, fallback);
    return values;
  };
  std::vector<int64_t> output_shape = ints("output_shape", 0, 0);
  if (output_shape.size() == rank + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  const Attribute* auto_pad = context.Attr("auto_pad");
  const std::string pad_mode = auto_pad ? auto_pad->s : "NOTSET";
  const std::vector<int64_t> strides = ints("strides", rank, 1);
  const std::vector<int64_t> dilations = ints("dilations", rank, 1);
  const std::vector<int64_t> pads = ints("pads", 2 * rank, 0);
  const std::vector<int64_t> output_padding = ints("output_padding", rank, 0);
  std::vector<int64_t> kernel = ints("kernel_shape", 0, 0);
  if (strides.size() != rank || dilations.size() != rank || pads.size() != 2 * rank ||
      output_padding.size() != rank || (!output_shape.empty() && output_shape.size() != rank))
    context.Fail("strides, dilations, pads, output_padding or output_shape do not fit the rank");
  for (size_t a = 0; a < rank; ++a) {
    const Dim& in = x->dims[a + 2];
    if (!output_shape.empty()) {
      out.dims.push_back(KnownDim(output_shape[a]));
    } else if (pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
      out.dims.push_back(MulDim(in, strides[a]));
    } else {
      const int64_t k = !kernel.empty() ? kernel[a] : w->dims[a + 2].value;
      const bool known = in.IsKnown() && (!kernel.empty() || w->dims[a + 2].IsKnown());
      const WideInt pad = pad_mode == "VALID" ? 0 : static_cast<WideInt>(pads[a]) + pads[a + rank];
      out.dims.push_back(known ? WideDim(static_cast<WideInt>(strides[a]) * (in.value - 1) +
                                         output_padding[a] +
                                         (static_cast<WideInt>(k) - 1) * dilations[a] + 1 - pad)
                               : Dim{});
    }
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// NonMaxSuppression: [selected, 3] int64, the count known only at run time.
void NonMaxSuppression(InferenceContext& context) {
  context.SetOutput(0, ElementType::kInt64, SymbolicShape{{Dim{}, KnownDim(3)}});
}

// GridSample: [N, C, grid's output dims...].
void GridSample(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* grid = context.InputShape(1);
  if (!x || !grid || x->dims.size() < 3 || grid->dims.size() != x->dims.size())
    return context.SetOutput(0, context.InputElem(0), std::nullopt);
  SymbolicShape out{{x->dims[0], x->dims[1]}};
  out.dims.insert(out.dims.end(), grid->dims.begin() + 1, grid->dims.end() - 1);
  context.SetOutput(0, context.InputElem(0), out);
}

// CausalConvWithState: output has input's shape; present_state is [B, C, k - 1].
void CausalConvWithState(InferenceContext& context) {
  const SymbolicShape* input = context.InputShape(0);
  const SymbolicShape* weight = context.InputShape(1);
  context.SetOutput(0, context.InputElem(0),
                    input ? std::optional<SymbolicShape>(*input) : std::nullopt);
  if (context.GetNode().OutputCount() < 2) return;
  if (!input || !weight || input->dims.size() != 3 || weight->dims.size() != 3)
    return context.SetOutput(1, context.InputElem(0), std::nullopt);
  const Dim& k = weight->dims[2];
  context.SetOutput(
      1, context.InputElem(0),
      SymbolicShape{{input->dims[0], input->dims[1], k.IsKnown() ? KnownDim(k.value - 1) : Dim{}}});
}

// LinearAttention: output [B, T, q_heads * d_v]; present_state [B, kv_heads, d_k, d_v], of
// past_state's type (query's without it).
void LinearAttention(InferenceContext& context) {
  const SymbolicShape* q = context.InputShape(0);
  const SymbolicShape* v = context.InputShape(2);
  const int64_t q_heads = context.IntAttr("q_num_heads", 0);
  const int64_t kv_heads = context.IntAttr("kv_num_heads", 0);
  const ElementType state_type = context.HasInput(3) ? context.InputElem(3) : context.InputElem(0);
  if (!q || !v || q->dims.size() != 3 || v->dims.size() != 3 || q_heads <= 0 || kv_heads <= 0) {
    context.SetOutput(0, context.InputElem(0), std::nullopt);
    if (context.GetNode().OutputCount() > 1) context.SetOutput(1, state_type, std::nullopt);
    return;
  }
  const auto per = [](const Dim& dim, int64_t heads) {
    return dim.IsKnown() ? KnownDim(dim.value / heads) : Dim{};
  };
  const Dim dk = per(q->dims[2], q_heads), dv = per(v->dims[2], kv_heads);
  context.SetOutput(0, context.InputElem(0),
                    SymbolicShape{{q->dims[0], q->dims[1], MulDim(dv, q_heads)}});
  if (context.GetNode().OutputCount() > 1)
    context.SetOutput(1, state_type, SymbolicShape{{q->dims[0], KnownDim(kv_heads), dk, dv}});
}

// AffineGrid: [N, (D,) H, W, 2 or 3] from the size input's values.
void AffineGrid(InferenceContext& context) {
  const auto size = context.InputInts(1);
  if (!size || (size->size() != 4 && size->size() != 5)) {
    const SymbolicShape* size_shape = context.InputShape(1);
    if (size_shape && size_shape->dims.size() == 1 && size_shape->dims[0].IsKnown()) {
      const int64_t count = size_shape->dims[0].value;
      SymbolicShape unknown{std::vector<Dim>(static_cast<size_t>(count))};
      if (count >= 4) unknown.dims.back() = KnownDim(count - 2);
      return context.SetOutput(0, context.InputElem(0), unknown);
    }
    return context.SetOutput(0, context.InputElem(0), std::nullopt);
  }
  SymbolicShape out{{KnownDim((*size)[0])}};
  for (size_t i = 2; i < size->size(); ++i) out.dims.push_back(KnownDim((*size)[i]));
  out.dims.push_back(KnownDim(static_cast<int64_t>(size->size()) - 2));
  context.SetOutput(0, context.InputElem(0), out);
}

// Col2Im: [N, C, image_shape...] with C = input dim 1 / prod(block_shape).
void Col2Im(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const auto image = context.InputInts(1);
  const auto block = context.InputInts(2);
  if (!x || x->dims.size() != 3 || !image) {
    const SymbolicShape* image_shape = context.InputShape(1);
    if (image_shape && image_shape->dims.size() == 1 && image_shape->dims[0].IsKnown() &&
        image_shape->dims[0].value + 2 <= static_cast<int64_t>(kMaxTensorRank))
      return context.SetOutput(
          0, context.InputElem(0),
          SymbolicShape{std::vector<Dim>(static_cast<size_t>(image_shape->dims[0].value + 2))});
    return context.SetOutput(0, context.InputElem(0), std::nullopt);
  }
  Dim channels;
  if (block && x->dims[1].IsKnown()) {
    std::optional<int64_t> taps = 1;
    for (int64_t b : *block) taps = taps ? CheckedMul(*taps, b) : std::nullopt;
    if (taps && *taps > 0) channels = KnownDim(x->dims[1].value / *taps);
  }
  SymbolicShape out{{x->dims[0], channels}};
  for (int64_t d : *image) out.dims.push_back(KnownDim(d));
  context.SetOutput(0, context.InputElem(0), out);
}

// MaxUnpool: output_shape's values when given, else [N, C, (in - 1) * stride - pads + kernel].
void MaxUnpool(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const auto kernel = context.IntsAttr("kernel_shape");
  if (!kernel) context.Fail("attribute kernel_shape is required");
  const size_t rank = kernel->size();
  if (context.HasInput(2)) {
    if (auto given = context.InputInts(2)) {
      SymbolicShape out;
      for (int64_t dim : *given) out.dims.push_back(KnownDim(dim));
      return context.SetOutput(0, context.InputElem(0), out);
    }
    SymbolicShape unknown;
    unknown.dims.resize(rank + 2);
    return context.SetOutput(0, context.InputElem(0), unknown);
  }
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() != rank + 2)
    context.Fail(MakeString("X ", x->ToString(), " must have rank ", rank + 2,
                            " for a kernel_shape of ", rank, " values"));
  const std::vector<int64_t> strides =
      context.IntsAttr("strides").value_or(std::vector<int64_t>(rank, 1));
  const std::vector<int64_t> pads =
      context.IntsAttr("pads").value_or(std::vector<int64_t>(2 * rank, 0));
  if (strides.size() != rank || pads.size() != 2 * rank)
    context.Fail(MakeString("strides and pads must have ", rank, " and ", 2 * rank, " values"));
  SymbolicShape out{{x->dims[0], x->dims[1]}};
  for (size_t d = 0; d < rank; ++d) {
    const Dim& in = x->dims[d + 2];
    out.dims.push_back(in.IsKnown()
                           ? WideDim(static_cast<WideInt>(in.value - 1) * strides[d] - pads[d] -
                                     static_cast<WideInt>(pads[d + rank]) + (*kernel)[d])
                           : Dim());
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// RoiAlign: [num_rois, C, output_height, output_width].
void RoiAlign(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* rois = context.InputShape(1);
  const SymbolicShape* batch_indices = context.InputShape(2);
  SymbolicShape out;
  out.dims.resize(4);
  if (rois && rois->dims.size() == 2) out.dims[0] = rois->dims[0];
  if (!out.dims[0].IsKnown() && batch_indices && batch_indices->dims.size() == 1)
    out.dims[0] = batch_indices->dims[0];
  if (x && x->dims.size() == 4) out.dims[1] = x->dims[1];
  out.dims[2] = KnownDim(context.IntAttr("output_height", 1));
  out.dims[3] = KnownDim(context.IntAttr("output_width", 1));
  context.SetOutput(0, context.InputElem(0), out);
}

// FlexAttention: [B, Hq, L, Ev] from Q [B, Hq, L, E] and V [B, Hkv, S, Ev].
void FlexAttention(InferenceContext& context) {
  const SymbolicShape* q = context.InputShape(0);
  const SymbolicShape* v = context.InputShape(2);
  SymbolicShape out;
  out.dims.resize(4);
  if (q) {
    if (q->dims.size() != 4) context.Fail(MakeString("Q ", q->ToString(), " must be rank 4"));
    out.dims[0] = q->dims[0];
    out.dims[1] = q->dims[1];
    out.dims[2] = q->dims[2];
  }
  if (v) {
    if (v->dims.size() != 4) context.Fail(MakeString("V ", v->ToString(), " must be rank 4"));
    out.dims[3] = v->dims[3];
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// The optimizer steps of ai.onnx.preview.training: the new X's and states keep the shapes and
// types of the inputs they replace (inputs after R and T: n X's, n G's, then the states;
// outputs: n X's, then the states).
void OptimizerStep(InferenceContext& context) {
  const size_t states = context.GetNode().OpType() == "Adam" ? 2 : 1;
  if (context.InputCount() < 2) return;
  const size_t n = (context.InputCount() - 2) / (2 + states);
  for (size_t o = 0; o < n * (1 + states); ++o) {
    const size_t group = o / n, i = o % n;
    const size_t input = 2 + (group == 0 ? i : (1 + group) * n + i);
    const SymbolicShape* shape = context.InputShape(input);
    context.SetOutput(o, context.InputElem(input),
                      shape ? std::optional<SymbolicShape>(*shape) : std::nullopt);
  }
}

// The Gradient expansion's internal ops: OnesLike/ZerosLike keep x's shape and type, SumToShape
// gives g's type with x's shape.
void LikeInput(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, context.InputElem(0), x ? std::optional<SymbolicShape>(*x) : std::nullopt);
}

void SumToShape(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(1);
  context.SetOutput(0, context.InputElem(0), x ? std::optional<SymbolicShape>(*x) : std::nullopt);
}

}  // namespace

void RegisterNnShapes() {
  RegisterShapeInference("com.prism.internal", "OnesLike", LikeInput);
  RegisterShapeInference("com.prism.internal", "ZerosLike", LikeInput);
  RegisterShapeInference("com.prism.internal", "SumToShape", SumToShape);
  for (const char* op : {"Adagrad", "Adam", "Momentum"})
    RegisterShapeInference("ai.onnx.preview.training", op, OptimizerStep);
  RegisterShapeInference("ai.onnx.preview", "FlexAttention", FlexAttention);
  RegisterShapeInference("MaxUnpool", MaxUnpool);
  RegisterShapeInference("RoiAlign", RoiAlign);
  RegisterShapeInference("DeformConv", Conv);
  RegisterShapeInference("Col2Im", Col2Im);
  RegisterShapeInference("AffineGrid", AffineGrid);
  RegisterShapeInference("LinearAttention", LinearAttention);
  RegisterShapeInference("CausalConvWithState", CausalConvWithState);
  RegisterShapeInference("GridSample", GridSample);
  RegisterShapeInference("NonMaxSuppression", NonMaxSuppression);
  RegisterShapeInference("ConvTranspose", ConvTranspose);
  RegisterShapeInference("Attention", Attention);
  RegisterShapeInference("NegativeLogLikelihoodLoss", Loss);
  RegisterShapeInference("SoftmaxCrossEntropyLoss", Loss);
  for (const char* op :
       {"InstanceNormalization", "GroupNormalization", "MeanVarianceNormalization",
        "LpNormalization", "LRN", "RMSNormalization", "RotaryEmbedding", "SwiGLU", "TensorScatter"})
    RegisterShapeInference(op, ShapeOfX);
  RegisterShapeInference("Conv", Conv);
  RegisterShapeInference("ConvInteger", Conv);
  RegisterShapeInference("MaxPool", Pool);
  RegisterShapeInference("AveragePool", Pool);
  RegisterShapeInference("LpPool", Pool);
  RegisterShapeInference("GlobalAveragePool", GlobalPool);
  RegisterShapeInference("GlobalMaxPool", GlobalPool);
  RegisterShapeInference("GlobalLpPool", GlobalPool);
  RegisterShapeInference("BatchNormalization", BatchNormalization);
}

}  // namespace prism

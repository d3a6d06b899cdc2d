// Types and shapes of the com.microsoft quantized ops and FusedConv with CPU kernels in
// providers/cpu/contrib (quantize_contrib.cc, qlinear_ops.cc, dynamic_quantize_matmul.cc,
// qgemm.cc, matmul_nbits.cc, fused_conv.cc, nhwc_max_pool.cc) and com.microsoft QLinearConv
// (nn/conv.cc).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

const char* const kMs = "com.microsoft";

std::optional<SymbolicShape> ShapeOf(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.HasInput(i) ? context.InputShape(i) : nullptr;
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

// QuantizeLinear: y has x's shape and y_zero_point's type (uint8 without it).
void QuantizeLinear(InferenceContext& context) {
  const ElementType elem = context.HasInput(2) ? context.InputElem(2) : ElementType::kUint8;
  context.SetOutput(0, elem, ShapeOf(context, 0));
}

// DequantizeLinear: y has x's shape and x_scale's type.
void DequantizeLinear(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(1), ShapeOf(context, 0));
}

// QLinearAdd, QLinearMul: A and B (inputs 0 and 3) broadcast.
void QLinearBinary(InferenceContext& context) {
  const std::optional<SymbolicShape> a = ShapeOf(context, 0), b = ShapeOf(context, 3);
  std::optional<SymbolicShape> shape;
  if (a && b) shape = Broadcast(context, *a, *b);
  context.SetOutput(0, context.InputElem(0), shape);
}

// QLinearSigmoid, QLinearLeakyRelu: X's type and shape.
void SameAsX(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(0), ShapeOf(context, 0));
}

// Spatial output dims of a sliding window (pooling or convolution) over NCHW spatial dims;
// unknown where an input dim is unknown.
std::vector<Dim> SlidingOutput(const InferenceContext& context, const std::vector<Dim>& spatial,
                               const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t rank = spatial.size();
  if (kernel.size() != rank)
    context.Fail("kernel_shape has " + std::to_string(kernel.size()) + " values for " +
                 std::to_string(rank) + " spatial axes");
  const auto strides = context.IntsAttr("strides").value_or(std::vector<int64_t>(rank, 1));
  const auto dilations = context.IntsAttr("dilations").value_or(std::vector<int64_t>(rank, 1));
  const auto pads = context.IntsAttr("pads").value_or(std::vector<int64_t>(2 * rank, 0));
  const Attribute* auto_pad_attribute = context.Attr("auto_pad");
  const std::string auto_pad = auto_pad_attribute ? auto_pad_attribute->s : "NOTSET";
  if (strides.size() != rank || dilations.size() != rank || pads.size() != 2 * rank)
    context.Fail("strides, dilations or pads do not match " + std::to_string(rank) +
                 " spatial axes");
  std::vector<Dim> out;
  for (size_t i = 0; i < rank; ++i) {
    if (!spatial[i].IsKnown() || strides[i] <= 0 || dilations[i] <= 0) {
      out.emplace_back();
      continue;
    }
    // In 128 bits: kernel, dilations, strides and pads are attributes (any int64), and a size
    // outside int64 becomes an unknown dim (the kernel then refuses the node).
    const WideInt in = spatial[i].value, stride = strides[i];
    const WideInt window = (WideInt{kernel[i]} - 1) * dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(WideDim((in + stride - 1) / stride));
      continue;
    }
    const bool valid = auto_pad == "VALID";
    const WideInt begin = valid ? 0 : pads[i], end = valid ? 0 : pads[i + rank];
    const WideInt span = in + begin + end - window;
    if (span < 0)
      context.Fail("spatial axis " + std::to_string(i) + " of size " +
                   std::to_string(spatial[i].value) + " is smaller than the window");
    WideInt size = span / stride + 1;
    if (ceil_mode && !valid) {
      size = (span + stride - 1) / stride + 1;
      // The last window must start inside the input or its begin padding.
      if ((size - 1) * stride >= in + begin) --size;
    }
    out.push_back(WideDim(size));
  }
  return out;
}

// QLinearAveragePool: AveragePool's shape, NHWC with channels_last.
void QLinearAveragePool(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() < 3) context.Fail("X " + x->ToString() + " needs rank 3 or more");
  const bool channels_last = context.IntAttr("channels_last", 0) != 0;
  const auto kernel = context.IntsAttr("kernel_shape");
  if (!kernel) context.Fail("attribute kernel_shape is required");
  const Dim channels = channels_last ? x->dims.back() : x->dims[1];
  std::vector<Dim> spatial(x->dims.begin() + (channels_last ? 1 : 2),
                           x->dims.end() - (channels_last ? 1 : 0));
  SymbolicShape out{{x->dims[0]}};
  if (!channels_last) out.dims.push_back(channels);
  for (const Dim& dim :
       SlidingOutput(context, spatial, *kernel, context.IntAttr("ceil_mode", 0) != 0))
    out.dims.push_back(dim);
  if (channels_last) out.dims.push_back(channels);
  context.SetOutput(0, context.InputElem(0), out);
}

// QLinearGlobalAveragePool: 1 on every spatial axis.
void QLinearGlobalAveragePool(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() < 3) context.Fail("X " + x->ToString() + " needs rank 3 or more");
  const bool channels_last = context.IntAttr("channels_last", 0) != 0;
  SymbolicShape out = *x;
  for (size_t d = 1; d < out.dims.size(); ++d) {
    const bool is_channel = channels_last ? d + 1 == out.dims.size() : d == 1;
    if (!is_channel) out.dims[d] = KnownDim(1);
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// QLinearConcat: the X inputs (2, 5, 8, ...) joined along axis.
void QLinearConcat(InferenceContext& context) {
  const ElementType elem = context.InputElem(2);
  const size_t count = context.InputCount();
  if (count < 5 || (count - 2) % 3 != 0)
    context.Fail("takes Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples, got " +
                 std::to_string(count) + " inputs");
  std::optional<SymbolicShape> out = ShapeOf(context, 2);
  if (!out) return context.SetOutput(0, elem, std::nullopt);
  const auto rank = static_cast<int64_t>(out->dims.size());
  int64_t axis = context.IntAttr("axis", 0);
  if (axis < -rank || axis >= rank)
    context.Fail("axis " + std::to_string(axis) + " is out of range for " + out->ToString());
  if (axis < 0) axis += rank;
  const auto a = static_cast<size_t>(axis);
  for (size_t i = 5; i < count; i += 3) {
    const std::optional<SymbolicShape> x = ShapeOf(context, i);
    if (!x) return context.SetOutput(0, elem, std::nullopt);
    if (x->dims.size() != out->dims.size())
      context.Fail("input " + std::to_string(i) + " " + x->ToString() + " has another rank than " +
                   out->ToString());
    Dim& joined = out->dims[a];
    joined = AddDims(joined, x->dims[a]);
    for (size_t d = 0; d < x->dims.size(); ++d)
      if (d != a && !out->dims[d].IsKnown()) out->dims[d] = x->dims[d];
  }
  context.SetOutput(0, elem, out);
}

// DynamicQuantizeMatMul: A [..., K] times B [K, N] gives float [..., N].
void DynamicQuantizeMatMul(InferenceContext& context) {
  std::optional<SymbolicShape> a = ShapeOf(context, 0);
  const std::optional<SymbolicShape> b = ShapeOf(context, 1);
  if (!a || !b) return context.SetOutput(0, ElementType::kFloat, std::nullopt);
  if (a->dims.empty() || b->dims.size() != 2)
    context.Fail("A must have rank >= 1 and B must be 2-D, got A " + a->ToString() + " and B " +
                 b->ToString());
  a->dims.back() = b->dims[1];
  context.SetOutput(0, ElementType::kFloat, a);
}

// QGemm: op(A) [M, K] times op(B) [K, N] gives [M, N], float without y_zero_point (input 8),
// else y_zero_point's type.
void QGemm(InferenceContext& context) {
  const ElementType elem = context.HasInput(8) ? context.InputElem(8) : ElementType::kFloat;
  const std::optional<SymbolicShape> a = ShapeOf(context, 0), b = ShapeOf(context, 3);
  if ((a && a->dims.size() != 2) || (b && b->dims.size() != 2))
    context.Fail("A and B must be 2-D, got A " + (a ? a->ToString() : std::string("?")) +
                 " and B " + (b ? b->ToString() : std::string("?")));
  if (!a || !b) return context.SetOutput(0, elem, std::nullopt);
  const bool trans_a = context.IntAttr("transA", 0) != 0;
  const bool trans_b = context.IntAttr("transB", 0) != 0;
  const Dim& a_k = a->dims[trans_a ? 0 : 1];
  const Dim& b_k = b->dims[trans_b ? 1 : 0];
  if (a_k.IsKnown() && b_k.IsKnown() && a_k.value != b_k.value)
    context.Fail("inner dimensions differ: A " + a->ToString() + " and B " + b->ToString() +
                 (trans_a ? " (transA)" : "") + (trans_b ? " (transB)" : ""));
  context.SetOutput(0, elem, SymbolicShape{{a->dims[trans_a ? 1 : 0], b->dims[trans_b ? 0 : 1]}});
}

// MatMulNBits: A [..., K] gives A's type [..., N] (attribute N).
void MatMulNBits(InferenceContext& context) {
  std::optional<SymbolicShape> a = ShapeOf(context, 0);
  if (a) {
    if (a->dims.empty()) context.Fail("A must have rank >= 1");
    a->dims.back() = KnownDim(context.IntAttr("N", -1));
    if (!a->dims.back().IsKnown()) context.Fail("attribute N is required");
  }
  context.SetOutput(0, context.InputElem(0), a);
}

// A convolution's kernel shape: the kernel_shape attribute, else W's spatial dims (from dim 2);
// nothing when it has neither and one of those dims is unknown.
std::optional<std::vector<int64_t>> ConvKernelShape(InferenceContext& context,
                                                    const SymbolicShape& w) {
  if (auto attribute = context.IntsAttr("kernel_shape")) return *attribute;
  std::vector<int64_t> kernel;
  for (size_t d = 2; d < w.dims.size(); ++d) {
    if (!w.dims[d].IsKnown()) return std::nullopt;
    kernel.push_back(w.dims[d].value);
  }
  return kernel;
}

// FusedConv: Conv's shape.
void FusedConv(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0), w = ShapeOf(context, 1);
  const ElementType elem = context.InputElem(0);
  if (!x || !w) return context.SetOutput(0, elem, std::nullopt);
  if (x->dims.size() < 3 || w->dims.size() != x->dims.size())
    context.Fail("X " + x->ToString() + " and W " + w->ToString() +
                 " must have one rank of 3 or more");
  const std::optional<std::vector<int64_t>> kernel = ConvKernelShape(context, *w);
  if (!kernel) {
    SymbolicShape partial{{x->dims[0], w->dims[0]}};
    partial.dims.resize(x->dims.size());
    return context.SetOutput(0, elem, partial);
  }
  SymbolicShape out{{x->dims[0], w->dims[0]}};
  const std::vector<Dim> spatial(x->dims.begin() + 2, x->dims.end());
  for (const Dim& dim : SlidingOutput(context, spatial, *kernel, false)) out.dims.push_back(dim);
  context.SetOutput(0, elem, out);
}

// The spatial dims of a channels-last shape [N, spatial..., C].
std::vector<Dim> SpatialOfChannelsLast(const SymbolicShape& shape) {
  return std::vector<Dim>(shape.dims.begin() + 1, shape.dims.end() - 1);
}

// QLinearConv (com.microsoft): ONNX QLinearConv's shape, [N, spatial..., M] with channels_last;
// Y's type is y_zero_point's.
void QLinearConvContrib(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0), w = ShapeOf(context, 3);
  const ElementType elem = context.HasInput(7) ? context.InputElem(7) : context.InputElem(0);
  const bool channels_last = context.IntAttr("channels_last", 0) != 0;
  if (!x || !w) return context.SetOutput(0, elem, std::nullopt);
  if (x->dims.size() < 3 || w->dims.size() != x->dims.size())
    context.Fail("x " + x->ToString() + " and w " + w->ToString() +
                 " must have one rank of 3 or more");
  const std::optional<std::vector<int64_t>> kernel = ConvKernelShape(context, *w);
  if (!kernel) return context.SetOutput(0, elem, std::nullopt);
  const std::vector<Dim> spatial = channels_last
                                       ? SpatialOfChannelsLast(*x)
                                       : std::vector<Dim>(x->dims.begin() + 2, x->dims.end());
  SymbolicShape out{{x->dims[0]}};
  if (!channels_last) out.dims.push_back(w->dims[0]);
  for (const Dim& dim : SlidingOutput(context, spatial, *kernel, false)) out.dims.push_back(dim);
  if (channels_last) out.dims.push_back(w->dims[0]);
  context.SetOutput(0, elem, out);
}

// NhwcMaxPool: MaxPool's shape on [N, spatial..., C].
void NhwcMaxPool(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (x->dims.size() < 3) context.Fail("X " + x->ToString() + " needs rank 3 or more");
  const auto kernel = context.IntsAttr("kernel_shape");
  if (!kernel) context.Fail("attribute kernel_shape is required");
  SymbolicShape out{{x->dims[0]}};
  for (const Dim& dim : SlidingOutput(context, SpatialOfChannelsLast(*x), *kernel,
                                      context.IntAttr("ceil_mode", 0) != 0))
    out.dims.push_back(dim);
  out.dims.push_back(x->dims.back());
  context.SetOutput(0, context.InputElem(0), out);
}

}  // namespace

void RegisterContribQuantShapes() {
  RegisterShapeInference(kMs, "QLinearConv", QLinearConvContrib);
  RegisterShapeInference(kMs, "NhwcMaxPool", NhwcMaxPool);
  RegisterShapeInference(kMs, "QuantizeLinear", QuantizeLinear);
  RegisterShapeInference(kMs, "DequantizeLinear", DequantizeLinear);
  RegisterShapeInference(kMs, "QLinearAdd", QLinearBinary);
  RegisterShapeInference(kMs, "QLinearMul", QLinearBinary);
  RegisterShapeInference(kMs, "QLinearSigmoid", SameAsX);
  RegisterShapeInference(kMs, "QLinearLeakyRelu", SameAsX);
  RegisterShapeInference(kMs, "QLinearAveragePool", QLinearAveragePool);
  RegisterShapeInference(kMs, "QLinearGlobalAveragePool", QLinearGlobalAveragePool);
  RegisterShapeInference(kMs, "QLinearConcat", QLinearConcat);
  RegisterShapeInference(kMs, "DynamicQuantizeMatMul", DynamicQuantizeMatMul);
  RegisterShapeInference(kMs, "MatMulNBits", MatMulNBits);
  RegisterShapeInference(kMs, "QGemm", QGemm);
  RegisterShapeInference(kMs, "FusedConv", FusedConv);
}

}  // namespace prism

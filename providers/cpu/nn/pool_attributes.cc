#include "providers/cpu/nn/pool_attributes.h"

#include <algorithm>

#include "common/status.h"

namespace prism::cpu {
namespace {

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

AutoPad ParseAutoPad(const std::string& text, const Node& node) {
  if (text.empty() || text == "NOTSET") return AutoPad::kNotSet;
  if (text == "SAME_UPPER") return AutoPad::kSameUpper;
  if (text == "SAME_LOWER") return AutoPad::kSameLower;
  if (text == "VALID") return AutoPad::kValid;
  PRISM_THROW(kInvalidArgument, node.Describe(), ": auto_pad must be NOTSET, SAME_UPPER, ",
              "SAME_LOWER or VALID, got '", text, "'");
}

int64_t CheckedAdd(int64_t a, int64_t b, const Node& node) {
  int64_t sum = 0;
  PRISM_ENFORCE(!__builtin_add_overflow(a, b, &sum), kInvalidArgument, node.Describe(),
                ": pooling sizes overflow int64 (", a, " + ", b, ")");
  return sum;
}

// ceil(a / b) for a >= 0, b > 0 (without forming a + b - 1, which overflows for a huge b).
int64_t CeilDiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace

PoolAttributes PoolAttributes::Parse(const OpKernelInfo& info) {
  const Node& node = info.GetNode();
  PoolAttributes attrs;
  PRISM_ENFORCE(info.HasAttr("kernel_shape"), kInvalidArgument, node.Describe(),
                ": attribute kernel_shape is required");
  attrs.kernel_shape = info.Ints("kernel_shape");
  const size_t rank = attrs.kernel_shape.size();
  PRISM_ENFORCE(rank > 0, kInvalidArgument, node.Describe(), ": kernel_shape must not be empty");
  for (int64_t k : attrs.kernel_shape)
    PRISM_ENFORCE(k > 0, kInvalidArgument, node.Describe(),
                  ": kernel_shape values must be > 0, got ", Join(attrs.kernel_shape));

  attrs.strides = info.IntsOr("strides", std::vector<int64_t>(rank, 1));
  attrs.dilations = info.IntsOr("dilations", std::vector<int64_t>(rank, 1));
  attrs.pads = info.IntsOr("pads", std::vector<int64_t>(2 * rank, 0));
  // Some exporters write empty lists for "not given".
  if (attrs.strides.empty()) attrs.strides.assign(rank, 1);
  if (attrs.dilations.empty()) attrs.dilations.assign(rank, 1);
  if (attrs.pads.empty()) attrs.pads.assign(2 * rank, 0);

  PRISM_ENFORCE(attrs.strides.size() == rank, kInvalidArgument, node.Describe(), ": strides ",
                Join(attrs.strides), " must have ", rank, " values (one per kernel axis)");
  PRISM_ENFORCE(attrs.dilations.size() == rank, kInvalidArgument, node.Describe(), ": dilations ",
                Join(attrs.dilations), " must have ", rank, " values (one per kernel axis)");
  PRISM_ENFORCE(attrs.pads.size() == 2 * rank, kInvalidArgument, node.Describe(), ": pads ",
                Join(attrs.pads), " must have ", 2 * rank, " values (begin and end per axis)");
  for (int64_t s : attrs.strides)
    PRISM_ENFORCE(s > 0, kInvalidArgument, node.Describe(), ": strides must be > 0, got ",
                  Join(attrs.strides));
  for (int64_t d : attrs.dilations)
    PRISM_ENFORCE(d > 0, kInvalidArgument, node.Describe(), ": dilations must be > 0, got ",
                  Join(attrs.dilations));
  for (int64_t p : attrs.pads)
    PRISM_ENFORCE(p >= 0, kInvalidArgument, node.Describe(), ": pads must be >= 0, got ",
                  Join(attrs.pads));

  attrs.auto_pad = ParseAutoPad(info.StringOr("auto_pad", "NOTSET"), node);
  attrs.ceil_mode = info.IntOr("ceil_mode", 0) != 0;
  attrs.count_include_pad = info.IntOr("count_include_pad", 0) != 0;
  attrs.storage_order = info.IntOr("storage_order", 0);
  PRISM_ENFORCE(attrs.storage_order == 0 || attrs.storage_order == 1, kInvalidArgument,
                node.Describe(), ": storage_order must be 0 (row major) or 1 (column major), got ",
                attrs.storage_order);
  return attrs;
}

PoolGeometry PoolAttributes::Geometry(const TensorShape& input_shape, const Node& node) const {
  const size_t rank = SpatialRank();
  PRISM_ENFORCE(input_shape.Rank() == rank + 2, kInvalidArgument, node.Describe(),
                ": input X has shape ", input_shape.ToString(), " but kernel_shape ",
                Join(kernel_shape), " needs rank ", rank + 2, " (N, C and ", rank,
                " spatial dims)");
  PoolGeometry geometry;
  geometry.input.assign(input_shape.Dims().begin() + 2, input_shape.Dims().end());
  geometry.output.resize(rank);
  geometry.pad_begin.resize(rank);
  geometry.pad_end.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = geometry.input[i];
    int64_t window = 0;
    PRISM_ENFORCE(!__builtin_mul_overflow(dilations[i], kernel_shape[i] - 1, &window),
                  kInvalidArgument, node.Describe(),
                  ": dilated kernel size overflows int64 on spatial axis ", i);
    window = CheckedAdd(window, 1, node);
    const int64_t stride = strides[i];
    int64_t begin = 0;
    int64_t end = 0;
    int64_t out = 0;
    switch (auto_pad) {
      case AutoPad::kNotSet:
        begin = pads[i];
        end = pads[i + rank];
        break;
      case AutoPad::kValid:
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out = CeilDiv(in, stride);
        const int64_t total =
            std::max<int64_t>(0, CheckedAdd((out - 1) * stride, window, node) - in);
        begin = auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        end = total - begin;
        break;
      }
    }
    if (auto_pad == AutoPad::kNotSet || auto_pad == AutoPad::kValid) {
      const int64_t span = CheckedAdd(CheckedAdd(in, begin, node), end, node) - window;
      PRISM_ENFORCE(span >= 0, kInvalidArgument, node.Describe(), ": pooling window (", window,
                    " with kernel ", kernel_shape[i], " and dilation ", dilations[i],
                    ") is larger than the padded input (", in, " + pads ", begin, "+", end,
                    ") on spatial axis ", i, " of X ", input_shape.ToString());
      // For VALID the spec's ceil formula, ceil((in - window + 1) / stride), equals the floor one.
      if (ceil_mode && auto_pad == AutoPad::kNotSet) {
        out = CeilDiv(span, stride) + 1;
        // The last window must start inside the input or the left padding.
        if (out - 1 >= CeilDiv(in + begin, stride)) --out;
      } else {
        out = span / stride + 1;
      }
    }
    geometry.output[i] = out;
    geometry.pad_begin[i] = begin;
    geometry.pad_end[i] = end;
  }
  return geometry;
}

}  // namespace prism::cpu

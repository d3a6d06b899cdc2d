#include "providers/cuda/kernels/conv_geometry.h"

#include <algorithm>

#include "common/status.h"

namespace prism::cuda {
namespace {

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::vector<int64_t> IntsOf(const Node& node, const char* name) {
  const Attribute* attribute = node.FindAttribute(name);
  return attribute != nullptr ? attribute->ints : std::vector<int64_t>{};
}

// Bounds that keep the size arithmetic far from int64 overflow (cuDNN takes int anyway).
constexpr int64_t kLimit = int64_t{1} << 31;

// The common part of both ops' geometry: spatial vectors filled and checked.
ConvGeometry SpatialBase(const ConvAttributes& a, const TensorShape& x, const TensorShape& w,
                         const Node& node) {
  PRISM_ENFORCE(x.Rank() >= 3, kInvalidArgument, node.Describe(),
                ": input X must have rank >= 3 (N, C, spatial...), got ", x.ToString());
  PRISM_ENFORCE(w.Rank() == x.Rank(), kInvalidArgument, node.Describe(), ": weight W ",
                w.ToString(), " must have the rank of X ", x.ToString());
  const size_t rank = x.Rank() - 2;
  ConvGeometry g;
  g.batch = x[0];
  g.in_channels = x[1];
  g.group = a.group;
  g.input.assign(x.Dims().begin() + 2, x.Dims().end());
  g.kernel.assign(w.Dims().begin() + 2, w.Dims().end());
  if (!a.kernel_shape.empty())
    PRISM_ENFORCE(a.kernel_shape == g.kernel, kInvalidArgument, node.Describe(), ": kernel_shape ",
                  Join(a.kernel_shape), " does not match the spatial dims of W ", w.ToString());
  g.strides = a.strides.empty() ? std::vector<int64_t>(rank, 1) : a.strides;
  g.dilations = a.dilations.empty() ? std::vector<int64_t>(rank, 1) : a.dilations;
  PRISM_ENFORCE(g.strides.size() == rank && g.dilations.size() == rank, kInvalidArgument,
                node.Describe(), ": strides ", Join(g.strides), " and dilations ",
                Join(g.dilations), " must have ", rank, " values");
  for (size_t d = 0; d < rank; ++d)
    PRISM_ENFORCE(g.strides[d] >= 1 && g.strides[d] <= kLimit && g.dilations[d] >= 1 &&
                      g.dilations[d] <= kLimit && g.kernel[d] >= 1 && g.kernel[d] <= kLimit,
                  kInvalidArgument, node.Describe(), ": strides ", Join(g.strides), ", dilations ",
                  Join(g.dilations), " and W ", w.ToString(), " must be positive and below 2^31");
  g.output.resize(rank);
  g.pad_begin.resize(rank);
  g.pad_end.resize(rank);
  return g;
}

std::vector<int64_t> PadsOrZero(const ConvAttributes& a, size_t rank, const Node& node) {
  std::vector<int64_t> pads = a.pads.empty() ? std::vector<int64_t>(2 * rank, 0) : a.pads;
  PRISM_ENFORCE(pads.size() == 2 * rank, kInvalidArgument, node.Describe(), ": pads ", Join(pads),
                " must have ", 2 * rank, " values");
  for (int64_t p : pads)
    PRISM_ENFORCE(p >= 0 && p <= kLimit, kInvalidArgument, node.Describe(),
                  ": pads must be >= 0 and below 2^31, got ", Join(pads));
  return pads;
}

}  // namespace

ConvAttributes ConvAttributes::FromNode(const Node& node) {
  ConvAttributes a;
  if (const Attribute* group = node.FindAttribute("group")) a.group = group->i;
  PRISM_ENFORCE(a.group >= 1, kInvalidArgument, node.Describe(), ": group must be >= 1, got ",
                a.group);
  a.kernel_shape = IntsOf(node, "kernel_shape");
  a.strides = IntsOf(node, "strides");
  a.dilations = IntsOf(node, "dilations");
  a.pads = IntsOf(node, "pads");
  a.output_padding = IntsOf(node, "output_padding");
  a.output_shape = IntsOf(node, "output_shape");
  const Attribute* auto_pad = node.FindAttribute("auto_pad");
  const std::string text = auto_pad != nullptr ? auto_pad->s : "NOTSET";
  if (text == "NOTSET" || text.empty())
    a.auto_pad = ConvAutoPad::kNotSet;
  else if (text == "SAME_UPPER")
    a.auto_pad = ConvAutoPad::kSameUpper;
  else if (text == "SAME_LOWER")
    a.auto_pad = ConvAutoPad::kSameLower;
  else if (text == "VALID")
    a.auto_pad = ConvAutoPad::kValid;
  else
    PRISM_THROW(kInvalidArgument, node.Describe(), ": auto_pad '", text,
                "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  return a;
}

TensorShape ConvGeometry::OutputShape() const {
  std::vector<int64_t> dims = {batch, out_channels};
  dims.insert(dims.end(), output.begin(), output.end());
  return TensorShape(dims);
}

ConvGeometry ComputeConvGeometry(const ConvAttributes& a, const TensorShape& x,
                                 const TensorShape& w, const Node& node) {
  ConvGeometry g = SpatialBase(a, x, w, node);
  const size_t rank = g.input.size();
  g.out_channels = w[0];
  PRISM_ENFORCE(g.in_channels % a.group == 0 && w[1] == g.in_channels / a.group, kInvalidArgument,
                node.Describe(), ": X ", x.ToString(), " has ", g.in_channels, " channels but W ",
                w.ToString(), " has ", w[1], " per group with group ", a.group,
                " (X channels must equal W.shape[1] * group)");
  PRISM_ENFORCE(g.out_channels % a.group == 0, kInvalidArgument, node.Describe(),
                ": output channels ", g.out_channels, " of W ", w.ToString(),
                " are not divisible by group ", a.group);
  const std::vector<int64_t> pads =
      a.auto_pad == ConvAutoPad::kNotSet ? PadsOrZero(a, rank, node) : std::vector<int64_t>();
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = g.input[d];
    const int64_t window = (g.kernel[d] - 1) * g.dilations[d] + 1;
    const int64_t stride = g.strides[d];
    switch (a.auto_pad) {
      case ConvAutoPad::kNotSet:
        g.pad_begin[d] = pads[d];
        g.pad_end[d] = pads[d + rank];
        break;
      case ConvAutoPad::kValid:
        break;
      case ConvAutoPad::kSameUpper:
      case ConvAutoPad::kSameLower: {
        const int64_t out = (in + stride - 1) / stride;
        const int64_t total = std::max<int64_t>(0, (out - 1) * stride + window - in);
        // The odd cell goes at the end for SAME_UPPER, at the beginning for SAME_LOWER.
        g.pad_begin[d] = a.auto_pad == ConvAutoPad::kSameUpper ? total / 2 : total - total / 2;
        g.pad_end[d] = total - g.pad_begin[d];
        break;
      }
    }
    const int64_t padded = in + g.pad_begin[d] + g.pad_end[d];
    PRISM_ENFORCE(padded >= window, kInvalidArgument, node.Describe(), ": spatial axis ", d,
                  " of X ", x.ToString(), " with pads ", g.pad_begin[d], "+", g.pad_end[d],
                  " is smaller than the dilated kernel extent ", window);
    g.output[d] = (padded - window) / stride + 1;
  }
  return g;
}

ConvGeometry ComputeConvTransposeGeometry(const ConvAttributes& a, const TensorShape& x,
                                          const TensorShape& w, const Node& node) {
  ConvGeometry g = SpatialBase(a, x, w, node);
  const size_t rank = g.input.size();
  PRISM_ENFORCE(x[1] == w[0] && x[1] % a.group == 0, kInvalidArgument, node.Describe(), ": X ",
                x.ToString(), " has ", x[1], " channels but W ", w.ToString(), " expects ", w[0],
                " (and group ", a.group, " must divide them)");
  PRISM_ENFORCE(w[1] <= kLimit && a.group <= kLimit, kInvalidArgument, node.Describe(), ": W ",
                w.ToString(), " with group ", a.group, " is out of range");
  g.out_channels = w[1] * a.group;
  std::vector<int64_t> pads = PadsOrZero(a, rank, node);
  const std::vector<int64_t> output_padding =
      a.output_padding.empty() ? std::vector<int64_t>(rank, 0) : a.output_padding;
  PRISM_ENFORCE(output_padding.size() == rank, kInvalidArgument, node.Describe(),
                ": output_padding ", Join(output_padding), " must have ", rank, " values");
  for (int64_t p : output_padding)
    PRISM_ENFORCE(p >= 0 && p <= kLimit, kInvalidArgument, node.Describe(),
                  ": output_padding must be >= 0, got ", Join(output_padding));
  // output_shape may list the spatial dims only, or N and C too.
  std::vector<int64_t> wanted = a.output_shape;
  if (wanted.size() == rank + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
  PRISM_ENFORCE(wanted.empty() || wanted.size() == rank, kInvalidArgument, node.Describe(),
                ": output_shape ", Join(a.output_shape), " must have ", rank, " values");
  for (int64_t o : wanted)
    PRISM_ENFORCE(o >= 0 && o <= kLimit, kInvalidArgument, node.Describe(),
                  ": output_shape values must be in [0, 2^31), got ", Join(a.output_shape));
  const bool same = a.auto_pad == ConvAutoPad::kSameUpper || a.auto_pad == ConvAutoPad::kSameLower;
  if (wanted.empty() && same)
    for (size_t d = 0; d < rank; ++d) wanted.push_back(g.input[d] * g.strides[d]);
  if (a.auto_pad == ConvAutoPad::kValid) std::fill(pads.begin(), pads.end(), 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t full = g.strides[d] * (g.input[d] - 1) + output_padding[d] +
                         (g.kernel[d] - 1) * g.dilations[d] + 1;
    if (!wanted.empty()) {
      const int64_t total = full - wanted[d];
      // As the CPU EP: SAME_UPPER puts the smaller half first; floor division, so an
      // output_shape larger than the full result puts the extra cells at the end.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      g.pad_begin[d] = a.auto_pad == ConvAutoPad::kSameUpper ? half : total - half;
      g.output[d] = wanted[d];
    } else {
      g.pad_begin[d] = pads[d];
      g.output[d] = full - pads[d] - pads[d + rank];
    }
    g.pad_end[d] = full - g.pad_begin[d] - g.output[d];
    PRISM_ENFORCE(g.output[d] >= 0, kInvalidArgument, node.Describe(),
                  ": the output would have negative size ", g.output[d], " on spatial axis ", d);
  }
  return g;
}

bool PadSplit::NeedsCopy() const {
  for (size_t d = 0; d < symmetric.size(); ++d)
    if (explicit_begin[d] != 0 || explicit_end[d] != 0) return true;
  return false;
}

std::vector<int64_t> PadSplit::PaddedInput(const std::vector<int64_t>& input) const {
  std::vector<int64_t> padded(input.size());
  for (size_t d = 0; d < input.size(); ++d)
    padded[d] = input[d] + explicit_begin[d] + explicit_end[d];
  return padded;
}

PadSplit SplitPads(const std::vector<int64_t>& pad_begin, const std::vector<int64_t>& pad_end) {
  PadSplit split;
  const size_t rank = pad_begin.size();
  split.explicit_begin.resize(rank);
  split.explicit_end.resize(rank);
  split.symmetric.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    split.symmetric[d] = std::min(pad_begin[d], pad_end[d]);
    split.explicit_begin[d] = pad_begin[d] - split.symmetric[d];
    split.explicit_end[d] = pad_end[d] - split.symmetric[d];
  }
  return split;
}

std::vector<int64_t> ConvTransposeFullOutput(const ConvGeometry& g) {
  std::vector<int64_t> full(g.input.size());
  for (size_t d = 0; d < full.size(); ++d)
    full[d] = g.strides[d] * (g.input[d] - 1) + (g.kernel[d] - 1) * g.dilations[d] + 1;
  return full;
}

std::string ConvAttributeDeclineReason(const Node& node) {
  const Attribute* auto_pad = node.FindAttribute("auto_pad");
  if (auto_pad != nullptr && !auto_pad->s.empty() && auto_pad->s != "NOTSET" &&
      auto_pad->s != "SAME_UPPER" && auto_pad->s != "SAME_LOWER" && auto_pad->s != "VALID")
    return "auto_pad '" + auto_pad->s + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID";
  const Attribute* group = node.FindAttribute("group");
  if (group != nullptr && group->i < 1) return "group " + std::to_string(group->i) + " is below 1";
  // cuDNN convolves 1 to 3 spatial axes (1-D runs as 2-D with a unit axis). The spatial rank
  // comes from kernel_shape, else X's or W's static rank.
  int64_t spatial = -1;
  if (const Attribute* kernel = node.FindAttribute("kernel_shape"); kernel && !kernel->ints.empty())
    spatial = static_cast<int64_t>(kernel->ints.size());
  for (size_t i = 0; spatial < 0 && i < 2 && i < node.InputCount(); ++i) {
    const NodeArg* arg = node.Inputs()[i];
    if (arg != nullptr && arg->shape) spatial = static_cast<int64_t>(arg->shape->dims.size()) - 2;
  }
  if (spatial < 0)
    return "the spatial rank is unknown (no kernel_shape attribute and no static rank of X or W); "
           "CUDAExecutionProvider's cuDNN convolution takes 1 to 3 spatial axes";
  if (spatial < 1 || spatial > 3)
    return "kernel_shape/input has " + std::to_string(spatial) +
           " spatial axes; CUDAExecutionProvider's cuDNN convolution takes 1 to 3";
  return "";
}

}  // namespace prism::cuda

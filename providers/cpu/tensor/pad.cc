// Pad: grows (or, with negative pads, crops) each axis by pads [x1_begin, x2_begin, ...,
// x1_end, x2_end, ...]. Modes: constant (the 'value' attribute before opset 11, then the optional
// 'constant_value' input; 0, false or "" by default), edge (repeat the border element), reflect
// (mirror without repeating the border, as numpy's 'reflect', periodically for pads wider than
// the axis), and wrap (opset 19, circular). Opset 18 adds the optional 'axes' input, which
// names the axes the pads apply to. Opset 1 names the pads 'paddings'.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

enum class PadMode { kConstant, kEdge, kReflect, kWrap };

// The source index along one axis for output index `c`, or -1 where the constant goes.
int64_t SourceIndex(int64_t c, int64_t begin, int64_t n, PadMode mode) {
  const int64_t src = c - begin;
  if (src >= 0 && src < n) return src;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return src < 0 ? 0 : n - 1;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      const int64_t m = ((src % period) + period) % period;
      return m < n ? m : period - m;
    }
    case PadMode::kWrap:
      return ((src % n) + n) % n;
  }
  return -1;
}

class Pad final : public OpKernel {
 public:
  explicit Pad(const OpKernelInfo& info) : OpKernel(info), opset_(info.GetNode().OpsetVersion()) {
    const std::string mode = info.StringOr("mode", "constant");
    const Node& node = info.GetNode();
    if (mode == "constant")
      mode_ = PadMode::kConstant;
    else if (mode == "edge")
      mode_ = PadMode::kEdge;
    else if (mode == "reflect")
      mode_ = PadMode::kReflect;
    else if (mode == "wrap" && opset_ >= 19)
      mode_ = PadMode::kWrap;
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": unsupported mode '", mode,
                  "' (expected constant, reflect, edge", opset_ >= 19 ? " or wrap" : "", ")");
    if (opset_ < 11) {
      const char* pads_name = opset_ < 2 ? "paddings" : "pads";
      PRISM_ENFORCE(info.HasAttr(pads_name), kInvalidArgument, node.Describe(), ": attribute '",
                    pads_name, "' is required");
      pads_attr_ = info.Ints(pads_name);
      value_attr_ = info.FloatOr("value", 0.0f);
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const TensorShape& shape = data.Shape();
    const size_t rank = shape.Rank();
    const int64_t r = static_cast<int64_t>(rank);

    std::vector<int64_t> pads = pads_attr_;
    std::vector<int64_t> axes;
    if (opset_ >= 11) {
      pads = ReadIntList(context.RequiredInput(1), node.Describe() + " input 'pads'");
      if (const Tensor* t = opset_ >= 18 ? context.Input(3) : nullptr)
        axes = ReadIntList(*t, node.Describe() + " input 'axes'");
    }
    if (axes.empty())
      for (int64_t a = 0; a < r; ++a) axes.push_back(a);
    PRISM_ENFORCE(pads.size() == 2 * axes.size(), kInvalidArgument, node.Describe(),
                  ": 'pads' has ", pads.size(), " entries but ", 2 * axes.size(),
                  " are needed for ", axes.size(), " axes of input shape ", shape.ToString());
    std::vector<int64_t> begin(rank, 0), end(rank, 0);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      PRISM_ENFORCE(axes[i] >= -r && axes[i] < r, kInvalidArgument, node.Describe(), ": axis ",
                    axes[i], " is out of range [", -r, ", ", r - 1, "] for input of shape ",
                    shape.ToString());
      const size_t a = static_cast<size_t>(axes[i] < 0 ? axes[i] + r : axes[i]);
      PRISM_ENFORCE(!seen[a], kInvalidArgument, node.Describe(), ": axis ", axes[i],
                    " is given more than once");
      seen[a] = true;
      begin[a] = pads[i];
      end[a] = pads[i + axes.size()];
    }
    std::vector<int64_t> out_dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      // Pads come from the model or a feed: the sum is formed in 128 bits (found by the model
      // fuzzer: pads of INT64_MIN overflowed it).
      const __int128 size = static_cast<__int128>(shape[d]) + begin[d] + end[d];
      PRISM_ENFORCE(size >= 0, kInvalidArgument, node.Describe(), ": pads ", begin[d], " and ",
                    end[d], " crop more than axis ", d, " of input shape ", shape.ToString(),
                    " holds");
      PRISM_ENFORCE(size <= INT64_MAX, kInvalidArgument, node.Describe(), ": pads ", begin[d],
                    " and ", end[d], " make axis ", d, " of input shape ", shape.ToString(),
                    " larger than int64");
      out_dims[d] = static_cast<int64_t>(size);
      PRISM_ENFORCE(mode_ == PadMode::kConstant || shape[d] > 0 || out_dims[d] == 0,
                    kInvalidArgument, node.Describe(), ": cannot pad empty axis ", d,
                    " of input shape ", shape.ToString(), " in a mode that copies from the input");
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), data.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);
    const Tensor value = ConstantValue(context, data.Type());
    if (rank == 0) {
      CopyElements(data, 0, output, 0, 1);
      return;
    }

    std::vector<int64_t> in_strides(rank, 1);
    for (size_t d = rank - 1; d-- > 0;) in_strides[d] = in_strides[d + 1] * shape[d + 1];
    const size_t last = rank - 1;
    const int64_t n = shape[last];
    const int64_t out_row = out_dims[last];
    const int64_t rows = output.NumElements() / out_row;
    // The interior of each row: output positions whose source lies inside the input row.
    const int64_t inner_first = std::clamp<int64_t>(begin[last], 0, out_row);
    const int64_t inner_last = std::clamp<int64_t>(begin[last] + n, 0, out_row);
    std::vector<int64_t> index(last, 0);
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t out_base = row * out_row;
      int64_t source = 0;
      bool constant_row = false;
      for (size_t d = 0; d < last && !constant_row; ++d) {
        const int64_t s = SourceIndex(index[d], begin[d], shape[d], mode_);
        if (s < 0)
          constant_row = true;
        else
          source += s * in_strides[d];
      }
      if (constant_row) {
        FillElements(output, out_base, out_row, value);
      } else {
        for (int64_t c = 0; c < inner_first; ++c)
          PadOne(data, source, output, out_base, c, begin[last], n, value);
        CopyElements(data, source + inner_first - begin[last], output, out_base + inner_first,
                     inner_last - inner_first);
        for (int64_t c = std::max(inner_last, inner_first); c < out_row; ++c)
          PadOne(data, source, output, out_base, c, begin[last], n, value);
      }
      for (size_t d = last; d-- > 0;) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  }

 private:
  void PadOne(const Tensor& data, int64_t source, Tensor& output, int64_t out_base, int64_t c,
              int64_t begin, int64_t n, const Tensor& value) const {
    const int64_t s = SourceIndex(c, begin, n, mode_);
    if (s < 0)
      FillElements(output, out_base + c, 1, value);
    else
      CopyElements(data, source + s, output, out_base + c, 1);
  }

  // The constant as a one-element tensor of the data's type.
  Tensor ConstantValue(OpKernelContext& context, ElementType type) const {
    Tensor value(type, TensorShape({1}), GetCpuAllocator());
    if (type != ElementType::kString && value.SizeInBytes() > 0)
      std::fill_n(static_cast<uint8_t*>(value.MutableRawData()), value.SizeInBytes(), 0);
    if (mode_ != PadMode::kConstant) return value;
    if (opset_ < 11) {
      if (type == ElementType::kFloat)
        value.MutableData<float>()[0] = value_attr_;
      else if (type == ElementType::kDouble)
        value.MutableData<double>()[0] = value_attr_;
      else if (type == ElementType::kFloat16)
        value.MutableData<Float16>()[0] = Float16(value_attr_);
      return value;
    }
    const Tensor* given = context.Input(2);
    if (given == nullptr || given->NumElements() == 0) return value;
    PRISM_ENFORCE(given->NumElements() == 1, kInvalidArgument, GetNode().Describe(),
                  ": input 'constant_value' must hold one value, got shape ",
                  given->Shape().ToString());
    CopyElements(*given, 0, value, 0, 1);
    return value;
  }

  int opset_;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_attr_;
  float value_attr_ = 0.0f;
};

void RegisterPadKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<Pad>();
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  registry.Register(
      KernelDefBuilder("Pad").Versions(1, 1).Constraint("T", floats, {0}, {0}).Build(), factory);
  registry.Register(
      KernelDefBuilder("Pad").Versions(2, 10).Constraint("T", floats, {0}, {0}).Build(), factory);
  const std::vector<E> numeric = {E::kUint8,   E::kUint16, E::kUint32, E::kUint64,
                                  E::kInt8,    E::kInt16,  E::kInt32,  E::kInt64,
                                  E::kFloat16, E::kFloat,  E::kDouble};
  registry.Register(KernelDefBuilder("Pad")
                        .Versions(11, 12)
                        .Constraint("T", numeric, {0, 2}, {0})
                        .CpuInput(1)
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("Pad")
                        .Versions(13, 17)
                        .Constraint("T", AllTensorTypesWithComplexOf(G::kBfloat16), {0, 2}, {0})
                        .CpuInput(1)
                        .Build(),
                    factory);
  for (const auto& [since, end, types] :
       {std::tuple{18, 18, G::kBfloat16}, std::tuple{19, 20, G::kBfloat16},
        std::tuple{21, 22, G::kInt4}, std::tuple{23, 23, G::kFloat4},
        std::tuple{24, 24, G::kFloat8E8M0}, std::tuple{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Pad")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0, 2}, {0})
                          .Constraint("Tind", {E::kInt32, E::kInt64}, {3})
                          .CpuInput(1)
                          .CpuInput(3)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_pad, RegisterPadKernels);

}  // namespace prism::cpu

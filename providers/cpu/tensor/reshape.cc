// Reshape: a view of the input with another shape of the same element count. The output
// shares the input's buffer, which is safe because values are immutable once produced.
#include <climits>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

// Resolves the requested shape against the input: 0 copies the input's dim (unless
// allow_zero), a single -1 is inferred from the element count.
TensorShape ResolveReshape(const TensorShape& input, const std::vector<int64_t>& requested,
                           bool allow_zero, const Node& node) {
  std::vector<int64_t> dims(requested.size());
  int inferred = -1;
  bool has_zero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t d = requested[i];
    if (d == -1) {
      PRISM_ENFORCE(inferred < 0, kInvalidArgument, node.Describe(),
                    ": the shape has more than one -1 (dims ", inferred, " and ", i, ")");
      inferred = static_cast<int>(i);
      dims[i] = 1;
    } else if (d == 0 && !allow_zero) {
      PRISM_ENFORCE(i < input.Rank(), kInvalidArgument, node.Describe(), ": shape dim ", i,
                    " is 0 (copy the input dim) but the input ", input.ToString(), " has only ",
                    input.Rank(), " dims");
      dims[i] = input[i];
    } else {
      PRISM_ENFORCE(d >= 0, kInvalidArgument, node.Describe(), ": shape dim ", i, " is ", d,
                    "; only -1 (infer) and non-negative dims are allowed");
      has_zero = has_zero || d == 0;
      dims[i] = d;
    }
  }
  PRISM_ENFORCE(!(allow_zero && has_zero && inferred >= 0), kInvalidArgument, node.Describe(),
                ": with allowzero=1 the shape may not contain both 0 and -1");
  if (inferred >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) == inferred) continue;
      PRISM_ENFORCE(!__builtin_mul_overflow(known, dims[i], &known), kInvalidArgument,
                    node.Describe(), ": the requested shape's element count overflows int64");
    }
    PRISM_ENFORCE(known != 0, kInvalidArgument, node.Describe(), ": cannot infer the -1 dim of ",
                  "the requested shape for input ", input.ToString(),
                  " because the other dims multiply to 0");
    PRISM_ENFORCE(input.Size() % known == 0, kInvalidArgument, node.Describe(), ": cannot reshape ",
                  input.ToString(), " (", input.Size(), " elements) into a shape whose known dims ",
                  "multiply to ", known);
    dims[static_cast<size_t>(inferred)] = input.Size() / known;
  }
  TensorShape shape(dims);  // validates overflow of the product
  PRISM_ENFORCE(shape.Size() == input.Size(), kInvalidArgument, node.Describe(),
                ": cannot reshape ", input.ToString(), " (", input.Size(), " elements) to ",
                shape.ToString(), " (", shape.Size(), " elements)");
  return shape;
}

std::string RequestedString(const std::vector<int64_t>& requested) {
  std::string text = "[";
  for (size_t i = 0; i < requested.size(); ++i)
    text += (i ? "," : "") + std::to_string(requested[i]);
  return text + "]";
}

class Reshape final : public OpKernel {
 public:
  explicit Reshape(const OpKernelInfo& info)
      : OpKernel(info),
        from_attribute_(info.GetNode().OpsetVersion() < 5),
        allow_zero_(info.IntOr("allowzero", 0) != 0) {
    if (from_attribute_) shape_attr_ = info.Ints("shape");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& data = context.RequiredInput(0);
    const std::vector<int64_t> requested =
        from_attribute_ ? shape_attr_
                        : ReadIntList(context.RequiredInput(1), "Reshape shape input");
    TensorShape shape;
    try {
      shape = ResolveReshape(data.Shape(), requested, allow_zero_, GetNode());
    } catch (const Exception& e) {
      throw Exception(e.Code(),
                      MakeString(e.what(), " (requested shape ", RequestedString(requested), ")"));
    }
    context.SetOutput(0, Value(data.Reshaped(shape)));
  }

 private:
  bool from_attribute_;
  bool allow_zero_;
  std::vector<int64_t> shape_attr_;
};

void RegisterReshapeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Reshape>();
  registry.Register(
      KernelDefBuilder("Reshape")
          .Versions(1, 4)
          .Constraint("T", {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}, {0},
                      {0})
          .Build(),
      factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{5, 12, G::kNoBfloat16}, Range{13, 13, G::kBfloat16}, Range{14, 18, G::kBfloat16},
        Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4},
        Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Reshape")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_reshape, RegisterReshapeKernels);

}  // namespace prism::cpu

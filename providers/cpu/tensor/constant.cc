// Constant: outputs the tensor held by exactly one of its attributes (value, value_float(s),
// value_int(s), value_string(s); sparse_value is not supported). The output shares the
// attribute's buffer.
#include <climits>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

template <typename T>
Tensor MakeAttributeTensor(const std::vector<int64_t>& dims, const std::vector<T>& values) {
  Tensor tensor(ElementTypeOf<T>(), TensorShape(dims), GetCpuAllocator());
  T* out = tensor.MutableData<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

class Constant final : public OpKernel {
 public:
  explicit Constant(const OpKernelInfo& info) : OpKernel(info), value_(Build(info)) {}

  void Compute(OpKernelContext& context) const override { context.SetOutput(0, Value(value_)); }

 private:
  static Tensor Build(const OpKernelInfo& info) {
    const Node& node = info.GetNode();
    static const char* const kNames[] = {"value",        "sparse_value", "value_float",
                                         "value_floats", "value_int",    "value_ints",
                                         "value_string", "value_strings"};
    std::string present;
    int count = 0;
    for (const char* name : kNames) {
      if (!info.HasAttr(name)) continue;
      present += (count++ == 0 ? "" : ", ") + std::string(name);
    }
    PRISM_ENFORCE(count == 1, kInvalidArgument, node.Describe(),
                  ": exactly one of value, sparse_value, value_float(s), value_int(s), "
                  "value_string(s) must be set, got ",
                  count == 0 ? std::string("none") : present);
    PRISM_ENFORCE(!info.HasAttr("sparse_value"), kNotImplemented, node.Describe(),
                  ": Constant with a sparse_value (sparse tensor) is not supported");
    if (info.HasAttr("value")) return info.TensorAttr("value");
    if (info.HasAttr("value_float"))
      return MakeAttributeTensor<float>({}, {info.Float("value_float")});
    if (info.HasAttr("value_floats")) {
      const std::vector<float> values = info.Floats("value_floats");
      return MakeAttributeTensor<float>({static_cast<int64_t>(values.size())}, values);
    }
    if (info.HasAttr("value_int")) return MakeAttributeTensor<int64_t>({}, {info.Int("value_int")});
    if (info.HasAttr("value_ints")) {
      const std::vector<int64_t> values = info.Ints("value_ints");
      return MakeAttributeTensor<int64_t>({static_cast<int64_t>(values.size())}, values);
    }
    if (info.HasAttr("value_string")) {
      return MakeAttributeTensor<std::string>({}, {info.String("value_string")});
    }
    const std::vector<std::string> values = info.Strings("value_strings");
    return MakeAttributeTensor<std::string>({static_cast<int64_t>(values.size())}, values);
  }

  const Tensor value_;
};

void RegisterConstantKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Constant>();
  registry.Register(
      KernelDefBuilder("Constant")
          .Versions(1, 8)
          .Constraint("T", {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}, {},
                      {0})
          .Build(),
      factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{9, 10, G::kNoBfloat16}, Range{11, 11, G::kNoBfloat16}, Range{12, 12, G::kNoBfloat16},
        Range{13, 18, G::kBfloat16}, Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4},
        Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Constant")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_constant, RegisterConstantKernels);

}  // namespace prism::cpu

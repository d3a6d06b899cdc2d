#include "input_generator.h"

#include <random>

namespace prism::perf {

GeneratedInputs GenerateInputs(const std::vector<ValueInfo>& inputs,
                               const std::map<std::string, int64_t>& free_dims, unsigned seed) {
  GeneratedInputs generated;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  for (const ValueInfo& input : inputs) {
    PRISM_ENFORCE(input.type.kind == TypeKind::kTensor, kNotImplemented, "input '", input.name,
                  "' is ", input.type.ToString(), "; prism_perf generates tensors only");
    std::vector<int64_t> dims;
    for (const Dim& dim : input.shape) {
      if (dim.IsKnown()) {
        dims.push_back(dim.value);
        continue;
      }
      auto it = free_dims.find(dim.param);
      if (it != free_dims.end()) {
        dims.push_back(it->second);
      } else {
        dims.push_back(1);
        generated.notes.push_back(MakeString("input '", input.name, "': symbolic dim '",
                                             dim.param.empty() ? "?" : dim.param,
                                             "' set to 1 (use -f NAME:VALUE)"));
      }
    }
    Tensor tensor(input.type.elem, TensorShape(dims), GetCpuAllocator());
    const int64_t count = tensor.NumElements();
    void* data = tensor.MutableRawData();
    switch (input.type.elem) {
      case ElementType::kFloat:
        for (int64_t i = 0; i < count; ++i) static_cast<float*>(data)[i] = normal(rng);
        break;
      case ElementType::kDouble:
        for (int64_t i = 0; i < count; ++i) static_cast<double*>(data)[i] = normal(rng);
        break;
      case ElementType::kFloat16:
        for (int64_t i = 0; i < count; ++i) static_cast<Float16*>(data)[i] = Float16(normal(rng));
        break;
      case ElementType::kBFloat16:
        for (int64_t i = 0; i < count; ++i) static_cast<BFloat16*>(data)[i] = BFloat16(normal(rng));
        break;
      case ElementType::kInt64:
        for (int64_t i = 0; i < count; ++i) static_cast<int64_t*>(data)[i] = small(rng);
        break;
      case ElementType::kInt32:
        for (int64_t i = 0; i < count; ++i) static_cast<int32_t*>(data)[i] = small(rng);
        break;
      case ElementType::kBool:
        for (int64_t i = 0; i < count; ++i) static_cast<bool*>(data)[i] = small(rng) >= 5;
        break;
      case ElementType::kString:
        for (int64_t i = 0; i < count; ++i) static_cast<std::string*>(data)[i] = MakeString("s", i);
        break;
      default:
        // Other integer types: small values fit every width.
        for (size_t b = 0; b < tensor.SizeInBytes(); ++b) static_cast<uint8_t*>(data)[b] = 0;
        break;
    }
    generated.names.push_back(input.name);
    generated.values.emplace_back(std::move(tensor));
  }
  return generated;
}

}  // namespace prism::perf

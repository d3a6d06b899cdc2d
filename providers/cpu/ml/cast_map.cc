// CastMap (ai.onnx.ml 1): a map(int64, string|float) becomes a [1, n] tensor of its values cast
// to cast_to (TO_FLOAT, TO_STRING, TO_INT64), as onnxruntime computes it:
//   - map_form DENSE: n is the map's size, the values in ascending key order;
//   - map_form SPARSE: n is max_map and the value of key k lands at column k; keys from max_map
//     on are ignored, a negative key is refused, and the other columns hold 0 (TO_FLOAT,
//     TO_INT64) or "0.f" (TO_STRING: onnxruntime's filler).
// Conversions follow onnxruntime's C++ library calls: a float becomes a string as
// std::to_string writes it ("%f": "1.500000"), an int64 by truncation (NaN and values outside
// int64 give INT64_MIN, x86's result); a string becomes a float or an int64 as std::stof and
// std::stoll read it (leading blanks skipped, the longest number prefix taken, decimal for
// int64), and one they refuse (no number, or out of range) fails naming the key and the value.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

using E = ElementType;

enum class CastTo { kFloat, kString, kInt64 };

CastTo ParseCastTo(const Node& node, const std::string& text) {
  if (text == "TO_FLOAT") return CastTo::kFloat;
  if (text == "TO_STRING") return CastTo::kString;
  if (text == "TO_INT64") return CastTo::kInt64;
  PRISM_THROW(kInvalidArgument, node.Describe(),
              ": attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, got '", text, "'");
}

ElementType OutputType(CastTo cast) {
  return cast == CastTo::kFloat ? E::kFloat : cast == CastTo::kString ? E::kString : E::kInt64;
}

int64_t FloatToInt64(float value) {
  // 2^63 is exact in float; NaN fails both comparisons.
  constexpr float kLimit = 9223372036854775808.0f;
  if (!(value >= -kLimit && value < kLimit)) return INT64_MIN;
  return static_cast<int64_t>(value);
}

// std::to_string(float): "%f" of the value (at most 47 characters for a float).
std::string FloatToString(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%f", static_cast<double>(value));
  return buffer;
}

class CastMap final : public OpKernel {
 public:
  explicit CastMap(const OpKernelInfo& info)
      : OpKernel(info),
        cast_(ParseCastTo(info.GetNode(), info.StringOr("cast_to", "TO_FLOAT"))),
        max_map_(info.IntOr("max_map", 1)) {
    const Node& node = info.GetNode();
    const std::string form = info.StringOr("map_form", "DENSE");
    PRISM_ENFORCE(form == "DENSE" || form == "SPARSE", kInvalidArgument, node.Describe(),
                  ": attribute 'map_form' must be DENSE or SPARSE, got '", form, "'");
    sparse_ = form == "SPARSE";
    PRISM_ENFORCE(!sparse_ || max_map_ > 0, kInvalidArgument, node.Describe(),
                  ": attribute 'max_map' must be > 0 with map_form SPARSE, got ", max_map_);
    const ElementType declared = info.OutputType(0);
    PRISM_ENFORCE(declared == E::kUndefined || declared == OutputType(cast_), kInvalidArgument,
                  node.Describe(), ": output Y is declared tensor(", ElementTypeName(declared),
                  ") but cast_to '", info.StringOr("cast_to", "TO_FLOAT"), "' makes tensor(",
                  ElementTypeName(OutputType(cast_)), ")");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Value* input = context.InputValue(0);
    PRISM_ENFORCE(input != nullptr && input->IsMap(), kInvalidArgument, node.Describe(),
                  ": input X must be a map(int64, tensor(string|float)), got ",
                  input == nullptr ? "nothing" : input->Describe());
    const TensorMap& map = input->GetMap();
    PRISM_ENFORCE(map.KeyType() == E::kInt64 &&
                      (map.ValueElementType() == E::kString || map.ValueElementType() == E::kFloat),
                  kInvalidArgument, node.Describe(),
                  ": input X must be a map(int64, tensor(string|float)), got ", input->Describe());
    const int64_t size = map.Size();
    const int64_t* keys = map.keys.Data<int64_t>();
    const int64_t width = sparse_ ? max_map_ : size;
    Tensor& y = context.Output(0, TensorShape({1, width}), OutputType(cast_));
    if (sparse_) {
      PRISM_ENFORCE(size == 0 || keys[0] >= 0, kInvalidArgument, node.Describe(),
                    ": input X has the negative key ", size > 0 ? keys[0] : 0,
                    "; map_form SPARSE places each value at the column of its key");
      FillDefault(y);
    }
    for (int64_t i = 0; i < size; ++i) {
      const int64_t column = sparse_ ? keys[i] : i;
      if (column >= width) break;  // keys ascend: the rest are beyond max_map too
      Convert(map, i, y, column);
    }
  }

 private:
  // Y[0, column] = the cast of the map's pair i.
  void Convert(const TensorMap& map, int64_t i, Tensor& y, int64_t column) const {
    if (map.ValueElementType() == E::kFloat) {
      const float value = map.values.Data<float>()[i];
      switch (cast_) {
        case CastTo::kFloat:
          y.MutableData<float>()[column] = value;
          return;
        case CastTo::kInt64:
          y.MutableData<int64_t>()[column] = FloatToInt64(value);
          return;
        case CastTo::kString:
          y.MutableData<std::string>()[column] = FloatToString(value);
          return;
      }
    }
    const std::string& text = map.values.Data<std::string>()[i];
    const int64_t key = map.keys.Data<int64_t>()[i];
    switch (cast_) {
      case CastTo::kString:
        y.MutableData<std::string>()[column] = text;
        return;
      case CastTo::kFloat: {
        char* end = nullptr;
        errno = 0;
        const float value = std::strtof(text.c_str(), &end);
        PRISM_ENFORCE(end != text.c_str() && errno != ERANGE, kInvalidArgument,
                      GetNode().Describe(), ": input X maps key ", key, " to '", text,
                      "', which is not a float in range (cast_to TO_FLOAT)");
        y.MutableData<float>()[column] = value;
        return;
      }
      case CastTo::kInt64: {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        PRISM_ENFORCE(end != text.c_str() && errno != ERANGE, kInvalidArgument,
                      GetNode().Describe(), ": input X maps key ", key, " to '", text,
                      "', which is not an int64 in range (cast_to TO_INT64)");
        y.MutableData<int64_t>()[column] = static_cast<int64_t>(value);
        return;
      }
    }
  }

  void FillDefault(Tensor& y) const {
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      switch (cast_) {
        case CastTo::kFloat:
          y.MutableData<float>()[i] = 0.0f;
          break;
        case CastTo::kInt64:
          y.MutableData<int64_t>()[i] = 0;
          break;
        case CastTo::kString:
          y.MutableData<std::string>()[i] = "0.f";
          break;
      }
    }
  }

  CastTo cast_;
  int64_t max_map_;
  bool sparse_ = false;
};

void RegisterCastMapKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("CastMap")
                        .Domain("ai.onnx.ml")
                        .Versions(1)
                        .MapConstraint("T1", {{E::kInt64, E::kString}, {E::kInt64, E::kFloat}}, {0})
                        .Constraint("T2", {E::kString, E::kFloat, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<CastMap>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_cast_map, RegisterCastMapKernels);

}  // namespace prism::cpu

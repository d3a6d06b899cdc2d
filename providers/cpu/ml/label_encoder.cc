// LabelEncoder (ai.onnx.ml 1, 2, 4): maps each element of X through a key -> value table, and
// elements without a key to a default. Opset 1 maps strings to their index in classes_strings
// and int64 indices back to those strings; opset 2 takes keys_* / values_* lists of string,
// int64 or float; opset 4 adds keys_tensor / values_tensor / default_tensor of string, int64,
// int32, int16, float or double. From opset 4 a NaN key matches a NaN element; before, NaN matches
// no key (as onnxruntime).
#include <climits>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

using E = ElementType;

// A typed list of keys, values or a default, whatever attribute it came from.
using Column = std::variant<std::vector<std::string>, std::vector<int64_t>, std::vector<float>,
                            std::vector<double>, std::vector<int32_t>, std::vector<int16_t>>;

template <typename T>
std::vector<T> TensorValues(const Tensor& tensor) {
  const T* data = tensor.Data<T>();
  return std::vector<T>(data, data + tensor.NumElements());
}

E ColumnType(const Column& column) {
  switch (column.index()) {
    case 0:
      return E::kString;
    case 1:
      return E::kInt64;
    case 2:
      return E::kFloat;
    case 3:
      return E::kDouble;
    case 4:
      return E::kInt32;
    default:
      return E::kInt16;
  }
}

size_t ColumnSize(const Column& column) {
  return std::visit([](const auto& values) { return values.size(); }, column);
}

Column ColumnFromTensor(const Node& node, const std::string& name, const Tensor& tensor) {
  switch (tensor.Type()) {
    case E::kString:
      return TensorValues<std::string>(tensor);
    case E::kInt64:
      return TensorValues<int64_t>(tensor);
    case E::kFloat:
      return TensorValues<float>(tensor);
    case E::kDouble:
      return TensorValues<double>(tensor);
    case E::kInt32:
      return TensorValues<int32_t>(tensor);
    case E::kInt16:
      return TensorValues<int16_t>(tensor);
    default:
      PRISM_THROW(kInvalidArgument, node.Describe(), ": attribute '", name,
                  "' must hold string, int64, int32, int16, float or double, got ",
                  ElementTypeName(tensor.Type()));
  }
}

// The one keys (or values) attribute the node sets; `prefix` is "keys" or "values".
Column ReadColumn(const OpKernelInfo& info, const std::string& prefix, bool allow_tensor) {
  const Node& node = info.GetNode();
  std::vector<Column> found;
  std::vector<std::string> names;
  if (info.HasAttr(prefix + "_strings")) {
    found.emplace_back(info.Strings(prefix + "_strings"));
    names.push_back(prefix + "_strings");
  }
  if (info.HasAttr(prefix + "_int64s")) {
    found.emplace_back(info.Ints(prefix + "_int64s"));
    names.push_back(prefix + "_int64s");
  }
  if (info.HasAttr(prefix + "_floats")) {
    found.emplace_back(info.Floats(prefix + "_floats"));
    names.push_back(prefix + "_floats");
  }
  if (allow_tensor && info.HasAttr(prefix + "_tensor")) {
    found.push_back(
        ColumnFromTensor(node, prefix + "_tensor", info.TensorAttr(prefix + "_tensor")));
    names.push_back(prefix + "_tensor");
  }
  PRISM_ENFORCE(found.size() == 1, kInvalidArgument, node.Describe(), ": exactly one of ", prefix,
                "_strings, ", prefix, "_int64s, ", prefix, "_floats",
                allow_tensor ? ", " + prefix + "_tensor" : std::string(), " must be set, got ",
                found.size());
  return std::move(found[0]);
}

// The default of the values' type: default_tensor (opset 4), else default_string / default_int64
// / default_float, else the spec's "_Unused", -1 or -0.0.
Column ReadDefault(const OpKernelInfo& info, E value_type) {
  const Node& node = info.GetNode();
  if (info.HasAttr("default_tensor") && node.OpsetVersion() >= 4) {
    const Tensor& tensor = info.TensorAttr("default_tensor");
    PRISM_ENFORCE(tensor.NumElements() == 1 && tensor.Type() == value_type, kInvalidArgument,
                  node.Describe(), ": attribute 'default_tensor' must hold one ",
                  ElementTypeName(value_type), " (the values' type), got ", tensor.Describe());
    return ColumnFromTensor(node, "default_tensor", tensor);
  }
  switch (value_type) {
    case E::kString:
      return std::vector<std::string>{info.StringOr("default_string", "_Unused")};
    case E::kInt64:
      return std::vector<int64_t>{info.IntOr("default_int64", -1)};
    case E::kInt32:
      return std::vector<int32_t>{-1};
    case E::kInt16:
      return std::vector<int16_t>{-1};
    case E::kFloat:
      return std::vector<float>{info.FloatOr("default_float", -0.0f)};
    default:
      return std::vector<double>{-0.0};
  }
}

class Encoder {
 public:
  virtual ~Encoder() = default;
  virtual void Encode(const Tensor& x, Tensor& y) const = 0;
};

template <typename K, typename V>
class TypedEncoder final : public Encoder {
 public:
  TypedEncoder(const std::vector<K>& keys, const std::vector<V>& values, V fallback,
               bool nan_matches)
      : fallback_(std::move(fallback)) {
    for (size_t i = 0; i < keys.size(); ++i) {
      if constexpr (std::is_floating_point_v<K>) {
        // NaN never equals itself, so a NaN key is kept apart (the first one wins, as emplace).
        if (std::isnan(keys[i])) {
          if (!nan_value_ && nan_matches) nan_value_ = std::make_unique<V>(values[i]);
          continue;
        }
      }
      table_.emplace(keys[i], values[i]);
    }
  }

  void Encode(const Tensor& x, Tensor& y) const override {
    const K* in = x.Data<K>();
    V* out = y.MutableData<V>();
    const int64_t count = x.NumElements();
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_floating_point_v<K>) {
        if (std::isnan(in[i])) {
          out[i] = nan_value_ ? *nan_value_ : fallback_;
          continue;
        }
      }
      auto it = table_.find(in[i]);
      out[i] = it == table_.end() ? fallback_ : it->second;
    }
  }

 private:
  std::unordered_map<K, V> table_;
  std::unique_ptr<V> nan_value_;
  V fallback_;
};

template <typename K>
std::unique_ptr<Encoder> MakeEncoderForKeys(const std::vector<K>& keys, const Column& values,
                                            const Column& fallback, bool nan_matches) {
  return std::visit(
      [&](const auto& typed_values) -> std::unique_ptr<Encoder> {
        using V = typename std::decay_t<decltype(typed_values)>::value_type;
        return std::make_unique<TypedEncoder<K, V>>(
            keys, typed_values, std::get<std::vector<V>>(fallback).at(0), nan_matches);
      },
      values);
}

std::unique_ptr<Encoder> MakeEncoder(const Column& keys, const Column& values,
                                     const Column& fallback, bool nan_matches) {
  return std::visit(
      [&](const auto& typed_keys) {
        return MakeEncoderForKeys(typed_keys, values, fallback, nan_matches);
      },
      keys);
}

class LabelEncoder final : public OpKernel {
 public:
  explicit LabelEncoder(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    if (node.OpsetVersion() < 2) {
      // Opset 1: strings -> their index in classes_strings, and indices -> those strings.
      const std::vector<std::string> classes = info.Strings("classes_strings");
      std::vector<int64_t> indices(classes.size());
      for (size_t i = 0; i < classes.size(); ++i) indices[i] = static_cast<int64_t>(i);
      AddEncoder(E::kString, E::kInt64, classes, indices,
                 std::vector<int64_t>{info.IntOr("default_int64", -1)});
      AddEncoder(E::kInt64, E::kString, indices, classes,
                 std::vector<std::string>{info.StringOr("default_string", "_Unused")});
      return;
    }
    const bool allow_tensor = node.OpsetVersion() >= 4;
    const Column keys = ReadColumn(info, "keys", allow_tensor);
    const Column values = ReadColumn(info, "values", allow_tensor);
    PRISM_ENFORCE(ColumnSize(keys) == ColumnSize(values), kInvalidArgument, node.Describe(),
                  ": keys and values must have the same length, got ", ColumnSize(keys), " and ",
                  ColumnSize(values));
    const E value_type = ColumnType(values);
    AddEncoder(ColumnType(keys), value_type, keys, values, ReadDefault(info, value_type));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    for (const Route& route : routes_) {
      if (route.key_type != x.Type()) continue;
      Tensor& y = context.Output(0, x.Shape(), route.value_type);
      route.encoder->Encode(x, y);
      return;
    }
    std::string expected;
    for (const Route& route : routes_)
      expected += (expected.empty() ? "" : " or ") + std::string(ElementTypeName(route.key_type));
    PRISM_THROW(kInvalidArgument, node.Describe(), ": input X must have the keys' type ", expected,
                ", got ", ElementTypeName(x.Type()));
  }

 private:
  struct Route {
    E key_type;
    E value_type;
    std::unique_ptr<Encoder> encoder;
  };

  void AddEncoder(E key_type, E value_type, const Column& keys, const Column& values,
                  const Column& fallback) {
    const bool nan_matches = GetNode().OpsetVersion() >= 4;
    routes_.push_back({key_type, value_type, MakeEncoder(keys, values, fallback, nan_matches)});
  }

  std::vector<Route> routes_;
};

void RegisterLabelEncoderKernels(KernelRegistry& registry) {
  const std::vector<E> v1 = {E::kString, E::kInt64};
  const std::vector<E> v2 = {E::kString, E::kInt64, E::kFloat};
  const std::vector<E> v4 = {E::kString, E::kInt64, E::kFloat, E::kInt32, E::kInt16, E::kDouble};
  const std::vector<std::pair<std::pair<int, int>, std::vector<E>>> ranges = {
      {{1, 1}, v1}, {{2, 3}, v2}, {{4, INT_MAX}, v4}};
  for (const auto& [versions, types] : ranges)
    registry.Register(KernelDefBuilder("LabelEncoder")
                          .Domain("ai.onnx.ml")
                          .Versions(versions.first, versions.second)
                          .Constraint("T1", types, {0})
                          .Constraint("T2", types, {}, {0})
                          .Build(),
                      MakeKernelFactory<LabelEncoder>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_label_encoder, RegisterLabelEncoderKernels);

}  // namespace prism::cpu

// Feature transforms of ai.onnx.ml (opset 1): Binarizer, ArrayFeatureExtractor, Scaler,
// Normalizer, Imputer, FeatureVectorizer, OneHotEncoder, CategoryMapper. Rows are the last axis
// ([N, C] or [C]); the float-output ops compute in double and round once.
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using E = ElementType;
using MlNumericTypes = TypeList<float, double, int64_t, int32_t>;
const std::vector<E> kMlNumeric = {E::kFloat, E::kDouble, E::kInt64, E::kInt32};

KernelDefBuilder MlKernel(const std::string& op) {
  return std::move(KernelDefBuilder(op).Domain("ai.onnx.ml").Versions(1));
}

// Every element of X as double.
template <typename T>
struct ToDoublesImpl {
  void operator()(const Tensor& x, std::vector<double>& out) const {
    const T* in = x.Data<T>();
    out.resize(static_cast<size_t>(x.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(in[i]);
  }
};

std::vector<double> AsDoubles(const Node& node, const Tensor& x) {
  std::vector<double> out;
  DispatchByType<ToDoublesImpl, MlNumericTypes>(x.Type(), node.OpType(), x, out);
  return out;
}

void WriteFloats(const std::vector<double>& values, Tensor& y) {
  float* out = y.MutableData<float>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
}

// The row length of X ([N, C] or [C]): C.
int64_t RowLength(const Node& node, const Tensor& x) {
  PRISM_ENFORCE(x.Shape().Rank() == 1 || x.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                ": input X must be [N, C] or [C], got ", x.Shape().ToString());
  return x.Shape()[x.Shape().Rank() - 1];
}

// Binarizer: 1 where X > threshold, else 0 (NaN gives 0), in X's type.
template <typename T>
struct BinarizeImpl {
  void operator()(const Tensor& x, Tensor& y, float threshold) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i)
      out[i] = static_cast<double>(in[i]) > static_cast<double>(threshold) ? T(1) : T(0);
  }
};

class Binarizer final : public OpKernel {
 public:
  explicit Binarizer(const OpKernelInfo& info)
      : OpKernel(info), threshold_(info.FloatOr("threshold", 0.0f)) {}
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<BinarizeImpl, MlNumericTypes>(x.Type(), GetNode().OpType(), x, y, threshold_);
  }

 private:
  float threshold_;
};

// ArrayFeatureExtractor: Y[..., j] = X[..., indices[j]] (indices flattened); X of rank 1 gives
// [1, k], as onnxruntime.
template <typename T>
struct GatherLastImpl {
  void operator()(const Tensor& x, const std::vector<int64_t>& indices, Tensor& y) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    const int64_t stride = x.Shape()[x.Shape().Rank() - 1];
    const int64_t rows = stride == 0 ? 0 : x.NumElements() / stride;
    const int64_t k = static_cast<int64_t>(indices.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < k; ++j) out[r * k + j] = in[r * stride + indices[j]];
  }
};

class ArrayFeatureExtractor final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& index_tensor = context.RequiredInput(1);
    PRISM_ENFORCE(x.Shape().Rank() >= 1, kInvalidArgument, node.Describe(),
                  ": input X must have rank >= 1, got a scalar");
    PRISM_ENFORCE(index_tensor.Type() == E::kInt64, kInvalidArgument, node.Describe(),
                  ": input Y (indices) must be int64, got ", ElementTypeName(index_tensor.Type()));
    const int64_t stride = x.Shape()[x.Shape().Rank() - 1];
    const int64_t* raw = index_tensor.Data<int64_t>();
    std::vector<int64_t> indices(raw, raw + index_tensor.NumElements());
    PRISM_ENFORCE(!indices.empty(), kInvalidArgument, node.Describe(),
                  ": input Y (indices) must not be empty");
    for (int64_t index : indices)
      PRISM_ENFORCE(index >= 0 && index < stride, kInvalidArgument, node.Describe(), ": index ",
                    index, " of input Y is outside [0, ", stride, ") (the last axis of X ",
                    x.Shape().ToString(), ")");
    std::vector<int64_t> dims = x.Shape().Dims();
    if (dims.size() == 1) dims.insert(dims.begin(), 1);
    dims.back() = static_cast<int64_t>(indices.size());
    Tensor& y = context.Output(0, TensorShape(dims), x.Type());
    DispatchByType<GatherLastImpl, TypeList<float, double, int64_t, int32_t, std::string>>(
        x.Type(), node.OpType(), x, indices, y);
  }
};

// Per-column parameters: one value for every column, or one per column.
double PerColumn(const std::vector<float>& values, int64_t column) {
  return values.size() == 1 ? values[0] : values[static_cast<size_t>(column)];
}

void CheckPerColumn(const Node& node, const std::string& name, size_t size, int64_t columns) {
  PRISM_ENFORCE(size == 1 || static_cast<int64_t>(size) == columns, kInvalidArgument,
                node.Describe(), ": attribute '", name, "' must have 1 or ", columns,
                " (the columns of X) values, got ", size);
}

// Scaler: Y = (X - offset) * scale, as float.
class Scaler final : public OpKernel {
 public:
  explicit Scaler(const OpKernelInfo& info)
      : OpKernel(info),
        offset_(info.HasAttr("offset") ? info.Floats("offset") : std::vector<float>{0.0f}),
        scale_(info.HasAttr("scale") ? info.Floats("scale") : std::vector<float>{1.0f}) {}
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const int64_t columns = RowLength(node, x);
    CheckPerColumn(node, "offset", offset_.size(), columns);
    CheckPerColumn(node, "scale", scale_.size(), columns);
    std::vector<double> values = AsDoubles(node, x);
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t c = static_cast<int64_t>(i) % columns;
      values[i] = (values[i] - PerColumn(offset_, c)) * PerColumn(scale_, c);
    }
    WriteFloats(values, context.Output(0, x.Shape(), E::kFloat));
  }

 private:
  std::vector<float> offset_, scale_;
};

// Normalizer: each row divided by its MAX (largest value), L1 or L2 norm, as float; a zero norm
// leaves the row alone (onnxruntime).
class Normalizer final : public OpKernel {
 public:
  explicit Normalizer(const OpKernelInfo& info)
      : OpKernel(info), norm_(info.StringOr("norm", "MAX")) {
    PRISM_ENFORCE(norm_ == "MAX" || norm_ == "L1" || norm_ == "L2", kInvalidArgument,
                  info.GetNode().Describe(), ": attribute 'norm' must be MAX, L1 or L2, got '",
                  norm_, "'");
  }
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const int64_t columns = RowLength(node, x);
    std::vector<double> values = AsDoubles(node, x);
    for (size_t begin = 0; columns > 0 && begin < values.size();
         begin += static_cast<size_t>(columns)) {
      auto first = values.begin() + static_cast<std::ptrdiff_t>(begin);
      auto last = first + columns;
      double norm = 0;
      if (norm_ == "MAX") {
        norm = *std::max_element(first, last);
      } else if (norm_ == "L1") {
        for (auto it = first; it != last; ++it) norm += std::abs(*it);
      } else {
        for (auto it = first; it != last; ++it) norm += *it * *it;
        norm = std::sqrt(norm);
      }
      if (norm != 0)
        for (auto it = first; it != last; ++it) *it /= norm;
    }
    WriteFloats(values, context.Output(0, x.Shape(), E::kFloat));
  }

 private:
  std::string norm_;
};

// Imputer: elements equal to the replaced value (NaN matches NaN) become the column's imputed
// value; floating inputs use the float attributes, integer ones the int64 attributes.
template <typename T>
struct ImputeImpl {
  void operator()(const Tensor& x, Tensor& y, const std::vector<double>& imputed, double replaced,
                  int64_t columns) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    const bool nan = std::isnan(replaced);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const double v = static_cast<double>(in[i]);
      const bool hit = nan ? std::isnan(v) : v == replaced;
      out[i] = hit ? static_cast<T>(imputed[imputed.size() == 1 ? 0 : i % columns]) : in[i];
    }
  }
};

class Imputer final : public OpKernel {
 public:
  explicit Imputer(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("imputed_value_floats")) {
      const std::vector<float> values = info.Floats("imputed_value_floats");
      floats_.assign(values.begin(), values.end());
    }
    if (info.HasAttr("imputed_value_int64s")) {
      const std::vector<int64_t> values = info.Ints("imputed_value_int64s");
      ints_.assign(values.begin(), values.end());
    }
    replaced_float_ = info.FloatOr("replaced_value_float", 0.0f);
    replaced_int_ = static_cast<double>(info.IntOr("replaced_value_int64", 0));
  }
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const bool floating = x.Type() == E::kFloat || x.Type() == E::kDouble;
    const std::vector<double>& imputed = floating ? floats_ : ints_;
    PRISM_ENFORCE(!imputed.empty(), kInvalidArgument, node.Describe(), ": input X is ",
                  ElementTypeName(x.Type()), ", so attribute '",
                  floating ? "imputed_value_floats" : "imputed_value_int64s",
                  "' must be set and not empty");
    const int64_t columns = x.Shape().Rank() == 0 ? 1 : x.Shape()[x.Shape().Rank() - 1];
    PRISM_ENFORCE(imputed.size() == 1 || static_cast<int64_t>(imputed.size()) == columns,
                  kInvalidArgument, node.Describe(), ": the imputed values must be 1 or ", columns,
                  " (the columns of X ", x.Shape().ToString(), "), got ", imputed.size());
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    DispatchByType<ImputeImpl, MlNumericTypes>(x.Type(), node.OpType(), x, y, imputed,
                                               floating ? replaced_float_ : replaced_int_, columns);
  }

 private:
  std::vector<double> floats_, ints_;
  double replaced_float_ = 0, replaced_int_ = 0;
};

// FeatureVectorizer: the inputs' rows ([N, C_i] or [N]) cut or zero-padded to inputdimensions[i]
// columns, side by side, as float.
class FeatureVectorizer final : public OpKernel {
 public:
  explicit FeatureVectorizer(const OpKernelInfo& info)
      : OpKernel(info), dimensions_(info.Ints("inputdimensions")) {
    for (int64_t d : dimensions_)
      PRISM_ENFORCE(d >= 0, kInvalidArgument, info.GetNode().Describe(),
                    ": attribute 'inputdimensions' must be >= 0, got ", d);
  }
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    PRISM_ENFORCE(context.InputCount() == dimensions_.size(), kInvalidArgument, node.Describe(),
                  ": attribute 'inputdimensions' has ", dimensions_.size(),
                  " entries, but the node has ", context.InputCount(), " inputs");
    int64_t rows = -1, width = 0;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor& x = context.RequiredInput(i);
      PRISM_ENFORCE(x.Shape().Rank() == 1 || x.Shape().Rank() == 2, kInvalidArgument,
                    node.Describe(), ": input ", i, " must be [N, C] or [N], got ",
                    x.Shape().ToString());
      PRISM_ENFORCE(rows < 0 || x.Shape()[0] == rows, kInvalidArgument, node.Describe(), ": input ",
                    i, " has ", x.Shape()[0], " rows, input 0 has ", rows);
      rows = x.Shape()[0];
      // inputdimensions is an attribute (any int64): the width is summed with checks, and the
      // output (whose size the session's limits check) is made before anything of its size.
      // (Negative dimensions were refused when the kernel was made.)
      PRISM_ENFORCE(!__builtin_add_overflow(width, dimensions_[i], &width), kInvalidArgument,
                    node.Describe(), ": inputdimensions up to [", i,
                    "]: their sum must be an int64");
    }
    Tensor& output = context.Output(0, TensorShape({rows, width}), E::kFloat);
    std::vector<double> out(static_cast<size_t>(output.NumElements()), 0.0);
    int64_t offset = 0;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Tensor& x = context.RequiredInput(i);
      const std::vector<double> values = AsDoubles(node, x);
      const int64_t columns = x.Shape().Rank() == 2 ? x.Shape()[1] : 1;
      const int64_t kept = std::min(columns, dimensions_[i]);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < kept; ++c)
          out[static_cast<size_t>(r * width + offset + c)] =
              values[static_cast<size_t>(r * columns + c)];
      offset += dimensions_[i];
    }
    WriteFloats(out, output);
  }

 private:
  std::vector<int64_t> dimensions_;
};

// OneHotEncoder: Y = X.shape + [categories], 1.0 at each element's category. Numbers are
// categories by their int64 value (cats_int64s), strings by cats_strings. An element of no
// category gives a zero row, or an error when zeros = 0.
class OneHotEncoder final : public OpKernel {
 public:
  explicit OneHotEncoder(const OpKernelInfo& info)
      : OpKernel(info), zeros_(info.IntOr("zeros", 1) != 0) {
    const Node& node = info.GetNode();
    if (info.HasAttr("cats_int64s")) {
      const std::vector<int64_t> cats = info.Ints("cats_int64s");
      for (size_t i = 0; i < cats.size(); ++i) int_index_.emplace(cats[i], static_cast<int64_t>(i));
      categories_ = static_cast<int64_t>(cats.size());
    }
    if (info.HasAttr("cats_strings")) {
      const std::vector<std::string> cats = info.Strings("cats_strings");
      for (size_t i = 0; i < cats.size(); ++i)
        string_index_.emplace(cats[i], static_cast<int64_t>(i));
      categories_ = static_cast<int64_t>(cats.size());
    }
    PRISM_ENFORCE(info.HasAttr("cats_int64s") != info.HasAttr("cats_strings") && categories_ > 0,
                  kInvalidArgument, node.Describe(),
                  ": exactly one of 'cats_int64s' and 'cats_strings' must be set, not empty");
  }
  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const bool strings = x.Type() == E::kString;
    PRISM_ENFORCE(strings ? !string_index_.empty() : !int_index_.empty(), kInvalidArgument,
                  node.Describe(), ": input X is ", ElementTypeName(x.Type()),
                  strings ? ", so attribute 'cats_strings' must be set"
                          : ", so attribute 'cats_int64s' must be set");
    std::vector<int64_t> dims = x.Shape().Dims();
    dims.push_back(categories_);
    Tensor& y = context.Output(0, TensorShape(dims), E::kFloat);
    float* out = y.MutableData<float>();
    std::fill(out, out + y.NumElements(), 0.0f);
    std::vector<double> numbers;
    if (!strings) numbers = AsDoubles(node, x);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      int64_t category = -1;
      if (strings) {
        auto it = string_index_.find(x.Data<std::string>()[i]);
        if (it != string_index_.end()) category = it->second;
      } else {
        const double v = numbers[static_cast<size_t>(i)];
        // Only integral values name a category (onnxruntime compares as int64).
        if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 9.2e18) {
          auto it = int_index_.find(static_cast<int64_t>(v));
          if (it != int_index_.end()) category = it->second;
        }
      }
      if (category >= 0) {
        out[i * categories_ + category] = 1.0f;
      } else {
        PRISM_ENFORCE(zeros_, kInvalidArgument, node.Describe(), ": element ", i,
                      " of input X has no category, and zeros = 0");
      }
    }
  }

 private:
  bool zeros_;
  int64_t categories_ = 0;
  std::unordered_map<int64_t, int64_t> int_index_;
  std::unordered_map<std::string, int64_t> string_index_;
};

// CategoryMapper: cats_strings[i] <-> cats_int64s[i]; strings map to int64 (default_int64),
// int64 to strings (default_string).
class CategoryMapper final : public OpKernel {
 public:
  explicit CategoryMapper(const OpKernelInfo& info)
      : OpKernel(info),
        default_int_(info.IntOr("default_int64", -1)),
        default_string_(info.StringOr("default_string", "_Unused")) {
    const Node& node = info.GetNode();
    const std::vector<std::string> strings = info.Strings("cats_strings");
    const std::vector<int64_t> ints = info.Ints("cats_int64s");
    PRISM_ENFORCE(strings.size() == ints.size(), kInvalidArgument, node.Describe(),
                  ": attributes 'cats_strings' and 'cats_int64s' must have the same length, got ",
                  strings.size(), " and ", ints.size());
    for (size_t i = 0; i < strings.size(); ++i) {
      to_int_.emplace(strings[i], ints[i]);
      to_string_.emplace(ints[i], strings[i]);
    }
  }
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    if (x.Type() == E::kString) {
      Tensor& y = context.Output(0, x.Shape(), E::kInt64);
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        auto it = to_int_.find(x.Data<std::string>()[i]);
        y.MutableData<int64_t>()[i] = it == to_int_.end() ? default_int_ : it->second;
      }
      return;
    }
    PRISM_ENFORCE(x.Type() == E::kInt64, kInvalidArgument, GetNode().Describe(),
                  ": input X must be string or int64, got ", ElementTypeName(x.Type()));
    Tensor& y = context.Output(0, x.Shape(), E::kString);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      auto it = to_string_.find(x.Data<int64_t>()[i]);
      y.MutableData<std::string>()[i] = it == to_string_.end() ? default_string_ : it->second;
    }
  }

 private:
  int64_t default_int_;
  std::string default_string_;
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, std::string> to_string_;
};

void RegisterFeatureKernels(KernelRegistry& registry) {
  registry.Register(MlKernel("Binarizer").Constraint("T", kMlNumeric, {0}, {0}).Build(),
                    MakeKernelFactory<Binarizer>());
  registry.Register(
      MlKernel("ArrayFeatureExtractor")
          .Constraint("T", {E::kFloat, E::kDouble, E::kInt64, E::kInt32, E::kString}, {0}, {0})
          .Build(),
      MakeKernelFactory<ArrayFeatureExtractor>());
  registry.Register(MlKernel("Scaler").Constraint("T", kMlNumeric, {0}).Build(),
                    MakeKernelFactory<Scaler>());
  registry.Register(MlKernel("Normalizer").Constraint("T", kMlNumeric, {0}).Build(),
                    MakeKernelFactory<Normalizer>());
  registry.Register(MlKernel("Imputer").Constraint("T", kMlNumeric, {0}, {0}).Build(),
                    MakeKernelFactory<Imputer>());
  registry.Register(MlKernel("FeatureVectorizer").Constraint("T1", kMlNumeric, {0}).Build(),
                    MakeKernelFactory<FeatureVectorizer>());
  registry.Register(
      MlKernel("OneHotEncoder")
          .Constraint("T", {E::kString, E::kInt64, E::kInt32, E::kFloat, E::kDouble}, {0})
          .Build(),
      MakeKernelFactory<OneHotEncoder>());
  registry.Register(MlKernel("CategoryMapper")
                        .Constraint("T1", {E::kString, E::kInt64}, {0})
                        .Constraint("T2", {E::kString, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<CategoryMapper>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_feature_ops, RegisterFeatureKernels);

}  // namespace prism::cpu

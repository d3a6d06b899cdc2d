// DictVectorizer (ai.onnx.ml 1): a map(K, V) becomes the tensor(V) [1, vocabulary size] whose
// element i is the map's value for the vocabulary's entry i (string_vocabulary for string keys,
// int64_vocabulary for int64 keys), or 0 ("" for strings) when the map has no such key. Keys
// outside the vocabulary are ignored, and an entry listed twice gets the value twice, as in
// onnxruntime.
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using E = ElementType;

// Writes the map's values to the output columns of their keys.
template <typename V>
struct ScatterValuesImpl {
  void operator()(const TensorMap& map, const std::vector<std::vector<int64_t>>& columns,
                  Tensor& y) const {
    const V* values = map.values.Data<V>();
    V* out = y.MutableData<V>();
    if constexpr (!std::is_same_v<V, std::string>)
      for (int64_t i = 0; i < y.NumElements(); ++i) out[i] = V(0);
    for (size_t pair = 0; pair < columns.size(); ++pair)
      for (int64_t column : columns[pair]) out[column] = values[pair];
  }
};

class DictVectorizer final : public OpKernel {
 public:
  explicit DictVectorizer(const OpKernelInfo& info) : OpKernel(info) {
    has_strings_ = info.HasAttr("string_vocabulary");
    has_ints_ = info.HasAttr("int64_vocabulary");
    if (has_strings_) {
      const std::vector<std::string> words = info.Strings("string_vocabulary");
      string_size_ = static_cast<int64_t>(words.size());
      for (size_t i = 0; i < words.size(); ++i)
        string_columns_[words[i]].push_back(static_cast<int64_t>(i));
    }
    if (has_ints_) {
      const std::vector<int64_t> words = info.Ints("int64_vocabulary");
      int_size_ = static_cast<int64_t>(words.size());
      for (size_t i = 0; i < words.size(); ++i)
        int_columns_[words[i]].push_back(static_cast<int64_t>(i));
    }
    const Node& node = info.GetNode();
    // Refused at load when the model states the key type (onnxruntime refuses at load too).
    if (node.HasInput(0)) CheckVocabulary(node.Inputs()[0]->type.key);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Value* input = context.InputValue(0);
    PRISM_ENFORCE(input != nullptr && input->IsMap(), kInvalidArgument, node.Describe(),
                  ": input X must be a map(string|int64, tensor(V)), got ",
                  input == nullptr ? "nothing" : input->Describe());
    const TensorMap& map = input->GetMap();
    CheckVocabulary(map.KeyType());
    std::vector<std::vector<int64_t>> columns(static_cast<size_t>(map.Size()));
    int64_t size = 0;
    if (map.KeyType() == E::kString) {
      size = string_size_;
      const std::string* keys = map.keys.Data<std::string>();
      for (size_t i = 0; i < columns.size(); ++i)
        if (auto it = string_columns_.find(keys[i]); it != string_columns_.end())
          columns[i] = it->second;
    } else {
      size = int_size_;
      const int64_t* keys = map.keys.Data<int64_t>();
      for (size_t i = 0; i < columns.size(); ++i)
        if (auto it = int_columns_.find(keys[i]); it != int_columns_.end()) columns[i] = it->second;
    }
    Tensor& y = context.Output(0, TensorShape({1, size}), map.ValueElementType());
    DispatchByType<ScatterValuesImpl, TypeList<float, double, int64_t, std::string>>(
        map.ValueElementType(), node.OpType(), map, columns, y);
  }

 private:
  void CheckVocabulary(ElementType key) const {
    if (key == E::kUndefined) return;
    const bool strings = key == E::kString;
    PRISM_ENFORCE(strings ? has_strings_ : has_ints_, kInvalidArgument, GetNode().Describe(),
                  ": input X has ", ElementTypeName(key), " keys, so the attribute '",
                  strings ? "string_vocabulary" : "int64_vocabulary", "' is required");
  }

  bool has_strings_ = false, has_ints_ = false;
  int64_t string_size_ = 0, int_size_ = 0;
  std::unordered_map<std::string, std::vector<int64_t>> string_columns_;
  std::unordered_map<int64_t, std::vector<int64_t>> int_columns_;
};

void RegisterDictVectorizerKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("DictVectorizer")
                        .Domain("ai.onnx.ml")
                        .Versions(1)
                        .MapConstraint("T1",
                                       {{E::kString, E::kInt64},
                                        {E::kInt64, E::kString},
                                        {E::kInt64, E::kFloat},
                                        {E::kInt64, E::kDouble},
                                        {E::kString, E::kFloat},
                                        {E::kString, E::kDouble}},
                                       {0})
                        .Constraint("T2", {E::kInt64, E::kFloat, E::kDouble, E::kString}, {}, {0})
                        .Build(),
                    MakeKernelFactory<DictVectorizer>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_dict_vectorizer, RegisterDictVectorizerKernels);

}  // namespace prism::cpu

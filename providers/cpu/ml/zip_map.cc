// ZipMap (ai.onnx.ml 1): each row of X [N, C] (or [C], one row) becomes a map from the C class
// labels (classlabels_strings or classlabels_int64s) to that row's scores; Z is the
// seq(map(string|int64, float)) of the N maps, as onnxruntime builds it: keys in ascending order,
// and of a label given twice the later column's score.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

using E = ElementType;

class ZipMap final : public OpKernel {
 public:
  explicit ZipMap(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    const std::vector<std::string> strings = info.HasAttr("classlabels_strings")
                                                 ? info.Strings("classlabels_strings")
                                                 : std::vector<std::string>{};
    const std::vector<int64_t> ints = info.IntsOr("classlabels_int64s", {});
    PRISM_ENFORCE(strings.empty() != ints.empty(), kInvalidArgument, node.Describe(),
                  ": exactly one of the attributes 'classlabels_strings' and "
                  "'classlabels_int64s' must list the class labels, got ",
                  strings.empty() ? "neither" : "both");
    if (!strings.empty()) {
      Prepare(strings, E::kString);
    } else {
      Prepare(ints, E::kInt64);
    }
    if (node.HasOutput(0)) {
      const ValueType& declared = node.Outputs()[0]->type;
      const ValueType made = ValueType::SequenceOfMaps(keys_.Type(), E::kFloat);
      PRISM_ENFORCE(
          !declared.IsSequenceOfMaps() || declared.key == E::kUndefined || declared.key == made.key,
          kInvalidArgument, node.Describe(), ": output Z is declared ", declared.ToString(),
          " but the labels make ", made.ToString());
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    PRISM_ENFORCE(x.Type() == E::kFloat, kInvalidArgument, node.Describe(),
                  ": input X must be tensor(float), got ", x.Describe());
    const size_t rank = x.Shape().Rank();
    PRISM_ENFORCE(rank == 1 || rank == 2, kInvalidArgument, node.Describe(),
                  ": input X must be [N, C] or [C], got shape ", x.Shape().ToString());
    const int64_t columns = x.Shape()[rank - 1];
    PRISM_ENFORCE(columns == label_count_, kInvalidArgument, node.Describe(), ": input X ",
                  x.Shape().ToString(), " has ", columns, " columns but the node has ",
                  label_count_, " class labels (", label_attribute_, ")");
    const int64_t rows = rank == 2 ? x.Shape()[0] : 1;
    const float* scores = x.Data<float>();
    MapSequence sequence{keys_.Type(), E::kFloat, {}};
    sequence.maps.reserve(static_cast<size_t>(rows));
    const int64_t size = static_cast<int64_t>(columns_.size());
    for (int64_t r = 0; r < rows; ++r) {
      Tensor values(E::kFloat, TensorShape({size}), GetCpuAllocator());
      float* out = values.MutableData<float>();
      for (int64_t k = 0; k < size; ++k) out[k] = scores[r * columns + columns_[k]];
      // The keys are shared by every map of every run: maps are never modified.
      sequence.maps.push_back(TensorMap{keys_, std::move(values)});
    }
    context.SetOutput(0, Value(std::move(sequence)));
  }

 private:
  // The map keys in ascending order, each with the column of its score (the last column that
  // carries the label).
  template <typename K>
  void Prepare(const std::vector<K>& labels, E type) {
    label_count_ = static_cast<int64_t>(labels.size());
    label_attribute_ = type == E::kString ? "classlabels_strings" : "classlabels_int64s";
    std::map<K, int64_t> column_of;
    for (size_t c = 0; c < labels.size(); ++c) column_of[labels[c]] = static_cast<int64_t>(c);
    keys_ = Tensor(type, TensorShape({static_cast<int64_t>(column_of.size())}), GetCpuAllocator());
    K* keys = keys_.MutableData<K>();
    for (const auto& [label, column] : column_of) {
      *keys++ = label;
      columns_.push_back(column);
    }
  }

  int64_t label_count_ = 0;
  std::string label_attribute_;
  Tensor keys_;
  std::vector<int64_t> columns_;
};

void RegisterZipMapKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("ZipMap")
          .Domain("ai.onnx.ml")
          .Versions(1)
          .SequenceOfMapsConstraint("T", {{E::kString, E::kFloat}, {E::kInt64, E::kFloat}}, {}, {0})
          .Build(),
      MakeKernelFactory<ZipMap>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_zip_map, RegisterZipMapKernels);

}  // namespace prism::cpu

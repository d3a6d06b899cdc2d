// Tree ensembles of ai.onnx.ml: TreeEnsemble (opset 5), TreeEnsembleRegressor and
// TreeEnsembleClassifier (opsets 1 and 3; 3 adds the *_as_tensor attributes). All three are read
// into one Forest (branches, leaves with their (target, weight) contributions, roots) and walked
// per row with the features as double, so float, double, float16 and integer inputs compare
// exactly against the thresholds. A NaN feature takes the true branch where its node's
// missing-value track says so, else the comparison decides (NaN compares false, except !=).
// Scores aggregate in double (SUM, AVERAGE, MIN, MAX), get their base values (a target no leaf
// reached scores 0, without its base value), and then the post transform, as onnxruntime
// computes them. Two places follow the spec where onnxruntime 1.23 does not: TreeEnsemble's
// post_transform 1 is SOFTMAX and 2 LOGISTIC (onnxruntime swaps them), and BRANCH_MEMBER tests
// the feature's value (onnxruntime casts it to an integer first).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using E = ElementType;

enum class Rule : uint8_t { kLeq = 0, kLt, kGte, kGt, kEq, kNeq, kMember };
enum class Aggregate { kAverage = 0, kSum, kMin, kMax };
enum class PostTransform { kNone = 0, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

struct Branch {
  int64_t feature = 0;
  double threshold = 0;
  Rule rule = Rule::kLeq;
  bool missing_true = false;
  size_t members_begin = 0, members_end = 0;  // a BRANCH_MEMBER node's set in Forest::members
  int64_t true_ref = 0, false_ref = 0;        // >= 0: a branch; < 0: leaf ~ref
};

struct Contribution {
  int64_t target = 0;
  double weight = 0;
};

struct Forest {
  std::vector<Branch> branches;
  std::vector<std::vector<Contribution>> leaves;
  std::vector<int64_t> roots;  // refs, one per tree
  std::vector<double> members;
  int64_t feature_count = 0;  // the largest feature id + 1

  static int64_t LeafRef(int64_t leaf) { return ~leaf; }

  bool TakesTrue(const Branch& branch, double x) const {
    if (branch.missing_true && std::isnan(x)) return true;
    switch (branch.rule) {
      case Rule::kLeq:
        return x <= branch.threshold;
      case Rule::kLt:
        return x < branch.threshold;
      case Rule::kGte:
        return x >= branch.threshold;
      case Rule::kGt:
        return x > branch.threshold;
      case Rule::kEq:
        return x == branch.threshold;
      case Rule::kNeq:
        return x != branch.threshold;
      case Rule::kMember:
        return std::find(members.begin() + static_cast<std::ptrdiff_t>(branch.members_begin),
                         members.begin() + static_cast<std::ptrdiff_t>(branch.members_end),
                         x) != members.begin() + static_cast<std::ptrdiff_t>(branch.members_end);
    }
    return false;
  }

  // The leaf a row reaches from root `ref`; a walk longer than the branch count is a cycle.
  int64_t Walk(const Node& node, int64_t ref, const double* row) const {
    size_t steps = 0;
    while (ref >= 0) {
      PRISM_ENFORCE(++steps <= branches.size(), kInvalidArgument, node.Describe(),
                    ": the tree's node ids form a cycle");
      const Branch& branch = branches[static_cast<size_t>(ref)];
      ref = TakesTrue(branch, row[branch.feature]) ? branch.true_ref : branch.false_ref;
    }
    return ~ref;
  }

  void CheckRef(const Node& node, int64_t ref, const char* what) const {
    const bool valid = ref >= 0 ? static_cast<size_t>(ref) < branches.size()
                                : static_cast<size_t>(~ref) < leaves.size();
    PRISM_ENFORCE(valid, kInvalidArgument, node.Describe(), ": ", what, " refers to ",
                  ref >= 0 ? "node " : "leaf ", ref >= 0 ? ref : ~ref, ", but there are ",
                  branches.size(), " nodes and ", leaves.size(), " leaves");
  }

  void Validate(const Node& node) const {
    for (const Branch& branch : branches) {
      CheckRef(node, branch.true_ref, "a true branch");
      CheckRef(node, branch.false_ref, "a false branch");
      PRISM_ENFORCE(branch.feature >= 0, kInvalidArgument, node.Describe(),
                    ": feature ids must be >= 0, got ", branch.feature);
    }
    for (int64_t root : roots) CheckRef(node, root, "a tree root");
  }
};

// The features of rows of X as double, one row at a time.
template <typename T>
struct ReadRowImpl {
  void operator()(const Tensor& x, int64_t row, int64_t columns, double* out) const {
    const T* in = x.Data<T>() + row * columns;
    for (int64_t c = 0; c < columns; ++c) out[c] = ToDouble(in[c]);
  }
};

using FeatureTypes = TypeList<float, double, Float16, int64_t, int32_t>;

// Per-target aggregation of the leaves' contributions of one row.
struct Scores {
  std::vector<double> value;
  std::vector<char> has_score;

  void Reset(size_t targets) {
    value.assign(targets, 0.0);
    has_score.assign(targets, 0);
  }
  void Add(Aggregate aggregate, const Contribution& c) {
    double& v = value[static_cast<size_t>(c.target)];
    char& seen = has_score[static_cast<size_t>(c.target)];
    switch (aggregate) {
      case Aggregate::kSum:
      case Aggregate::kAverage:
        v += c.weight;
        break;
      case Aggregate::kMin:
        v = seen ? std::min(v, c.weight) : c.weight;
        break;
      case Aggregate::kMax:
        v = seen ? std::max(v, c.weight) : c.weight;
        break;
    }
    seen = 1;
  }
};

double Logistic(double v) {
  const double e = 1.0 / (1.0 + std::exp(-std::abs(v)));
  return v < 0 ? 1.0 - e : e;
}

// onnxruntime's PROBIT: sqrt(2) * erf^-1(2p - 1) with Winitzki's approximation (a = 0.147), in
// float as there, so that scores match it to the last bits.
float ErfInv(float x) {
  const float sign = x < 0 ? -1.0f : 1.0f;
  x = (1 - x) * (1 + x);
  const float log = std::log(x);
  const float v = 2 / (3.14159265358979f * 0.147f) + 0.5f * log;
  const float v2 = 1 / 0.147f * log;
  return sign * std::sqrt(-v + std::sqrt(v * v - v2));
}

double Probit(double v) {
  return 1.41421356f * ErfInv(static_cast<float>(v) * 2 - 1);
}

void Softmax(std::vector<double>& v) {
  if (v.empty()) return;
  const double top = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double& x : v) sum += (x = std::exp(x - top));
  for (double& x : v) x /= sum;
}

// Softmax where zero scores (no evidence) stay zero; an all-zero row gets 0.5 everywhere (as
// onnx.reference).
void SoftmaxZero(std::vector<double>& v) {
  if (v.empty()) return;
  const double top = *std::max_element(v.begin(), v.end());
  const double scale = std::exp(-top);
  double sum = 0;
  for (double& x : v) {
    x = (x > 1e-7 || x < -1e-7) ? std::exp(x - top) : x * scale;
    sum += x;
  }
  for (double& x : v) x = sum == 0 ? 0.5 : x / sum;
}

void ApplyPostTransform(PostTransform transform, std::vector<double>& v) {
  switch (transform) {
    case PostTransform::kNone:
      return;
    case PostTransform::kSoftmax:
      return Softmax(v);
    case PostTransform::kSoftmaxZero:
      return SoftmaxZero(v);
    case PostTransform::kLogistic:
      for (double& x : v) x = Logistic(x);
      return;
    case PostTransform::kProbit:
      for (double& x : v) x = Probit(x);
      return;
  }
}

PostTransform PostTransformByName(const Node& node, const std::string& name) {
  static const std::map<std::string, PostTransform> names = {
      {"NONE", PostTransform::kNone},
      {"SOFTMAX", PostTransform::kSoftmax},
      {"LOGISTIC", PostTransform::kLogistic},
      {"SOFTMAX_ZERO", PostTransform::kSoftmaxZero},
      {"PROBIT", PostTransform::kProbit}};
  auto it = names.find(name);
  PRISM_ENFORCE(it != names.end(), kInvalidArgument, node.Describe(),
                ": attribute 'post_transform' must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or "
                "PROBIT, got '",
                name, "'");
  return it->second;
}

Aggregate AggregateByName(const Node& node, const std::string& name) {
  static const std::map<std::string, Aggregate> names = {{"AVERAGE", Aggregate::kAverage},
                                                         {"SUM", Aggregate::kSum},
                                                         {"MIN", Aggregate::kMin},
                                                         {"MAX", Aggregate::kMax}};
  auto it = names.find(name);
  PRISM_ENFORCE(it != names.end(), kInvalidArgument, node.Describe(),
                ": attribute 'aggregate_function' must be AVERAGE, SUM, MIN or MAX, got '", name,
                "'");
  return it->second;
}

// A floating-point tensor attribute as doubles.
std::vector<double> TensorAsDoubles(const Node& node, const std::string& name,
                                    const Tensor& tensor) {
  std::vector<double> out(static_cast<size_t>(tensor.NumElements()));
  switch (tensor.Type()) {
    case E::kFloat:
      for (size_t i = 0; i < out.size(); ++i) out[i] = tensor.Data<float>()[i];
      break;
    case E::kDouble:
      for (size_t i = 0; i < out.size(); ++i) out[i] = tensor.Data<double>()[i];
      break;
    case E::kFloat16:
      for (size_t i = 0; i < out.size(); ++i) out[i] = tensor.Data<Float16>()[i].ToFloat();
      break;
    default:
      PRISM_THROW(kInvalidArgument, node.Describe(), ": attribute '", name,
                  "' must be a float, double or float16 tensor, got ", tensor.Describe());
  }
  return out;
}

// A list attribute given as floats (`name`) or, from opset 3, as a tensor (`name`_as_tensor);
// empty when neither is set.
std::vector<double> FloatsOrTensor(const OpKernelInfo& info, const std::string& name) {
  const Node& node = info.GetNode();
  const bool as_list = info.HasAttr(name);
  const bool as_tensor = info.HasAttr(name + "_as_tensor");
  PRISM_ENFORCE(!(as_list && as_tensor), kInvalidArgument, node.Describe(), ": attributes '", name,
                "' and '", name, "_as_tensor' must not both be set");
  if (as_tensor) {
    PRISM_ENFORCE(node.OpsetVersion() >= 3, kInvalidArgument, node.Describe(), ": attribute '",
                  name, "_as_tensor' needs ai.onnx.ml opset 3, the model imports ",
                  node.OpsetVersion());
    return TensorAsDoubles(node, name + "_as_tensor", info.TensorAttr(name + "_as_tensor"));
  }
  if (!as_list) return {};
  const std::vector<float> values = info.Floats(name);
  return std::vector<double>(values.begin(), values.end());
}

void CheckLength(const Node& node, const std::string& name, size_t got, size_t expected,
                 const std::string& like) {
  PRISM_ENFORCE(got == expected, kInvalidArgument, node.Describe(), ": attribute '", name,
                "' must have one value per entry of '", like, "' (", expected, "), got ", got);
}

// Reads the opset 1/3 tree layout (nodes_* lists keyed by (tree id, node id)) into `forest`;
// the leaves are the LEAF nodes, whose contributions `prefix`_* (target_ or class_) give.
void ReadLegacyForest(const OpKernelInfo& info, const std::string& prefix, Forest& forest,
                      std::vector<double>& all_weights) {
  const Node& node = info.GetNode();
  const std::vector<int64_t> tree_ids = info.Ints("nodes_treeids");
  const std::vector<int64_t> node_ids = info.Ints("nodes_nodeids");
  const std::vector<int64_t> features = info.Ints("nodes_featureids");
  const std::vector<std::string> modes = info.Strings("nodes_modes");
  const std::vector<int64_t> true_ids = info.Ints("nodes_truenodeids");
  const std::vector<int64_t> false_ids = info.Ints("nodes_falsenodeids");
  const std::vector<int64_t> missing = info.IntsOr("nodes_missing_value_tracks_true", {});
  std::vector<double> thresholds = FloatsOrTensor(info, "nodes_values");
  const size_t count = tree_ids.size();
  if (thresholds.empty()) thresholds.assign(count, 0.0);
  for (const auto& [name, size] :
       std::vector<std::pair<std::string, size_t>>{{"nodes_nodeids", node_ids.size()},
                                                   {"nodes_featureids", features.size()},
                                                   {"nodes_modes", modes.size()},
                                                   {"nodes_truenodeids", true_ids.size()},
                                                   {"nodes_falsenodeids", false_ids.size()},
                                                   {"nodes_values", thresholds.size()}})
    CheckLength(node, name, size, count, "nodes_treeids");
  if (!missing.empty())
    CheckLength(node, "nodes_missing_value_tracks_true", missing.size(), count, "nodes_treeids");

  static const std::map<std::string, Rule> rules = {
      {"BRANCH_LEQ", Rule::kLeq}, {"BRANCH_LT", Rule::kLt}, {"BRANCH_GTE", Rule::kGte},
      {"BRANCH_GT", Rule::kGt},   {"BRANCH_EQ", Rule::kEq}, {"BRANCH_NEQ", Rule::kNeq}};
  std::map<std::pair<int64_t, int64_t>, int64_t> ref_of;  // (tree, node) -> ref
  std::map<int64_t, int64_t> root_of;                     // tree -> its first node's ref
  for (size_t i = 0; i < count; ++i) {
    int64_t ref = 0;
    if (modes[i] == "LEAF") {
      ref = Forest::LeafRef(static_cast<int64_t>(forest.leaves.size()));
      forest.leaves.emplace_back();
    } else {
      auto rule = rules.find(modes[i]);
      PRISM_ENFORCE(rule != rules.end(), kInvalidArgument, node.Describe(),
                    ": attribute 'nodes_modes' must hold BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, "
                    "BRANCH_GT, BRANCH_EQ, BRANCH_NEQ or LEAF, got '",
                    modes[i], "'");
      Branch branch;
      PRISM_ENFORCE(features[i] >= 0 && features[i] < std::numeric_limits<int64_t>::max(),
                    kInvalidArgument, node.Describe(), ": node ", i, " reads feature ", features[i],
                    ", which is not a column index");
      branch.feature = features[i];
      branch.threshold = thresholds[i];
      branch.rule = rule->second;
      branch.missing_true = !missing.empty() && missing[i] != 0;
      ref = static_cast<int64_t>(forest.branches.size());
      forest.branches.push_back(branch);
      forest.feature_count = std::max(forest.feature_count, features[i] + 1);
    }
    PRISM_ENFORCE(ref_of.emplace(std::make_pair(tree_ids[i], node_ids[i]), ref).second,
                  kInvalidArgument, node.Describe(), ": node (tree ", tree_ids[i], ", node ",
                  node_ids[i], ") is defined twice");
    root_of.emplace(tree_ids[i], ref);
  }
  auto find = [&](int64_t tree, int64_t id, const char* what) {
    auto it = ref_of.find({tree, id});
    PRISM_ENFORCE(it != ref_of.end(), kInvalidArgument, node.Describe(), ": ", what, " (tree ",
                  tree, ", node ", id, ") does not exist");
    return it->second;
  };
  for (size_t i = 0, b = 0; i < count; ++i) {
    if (modes[i] == "LEAF") continue;
    forest.branches[b].true_ref = find(tree_ids[i], true_ids[i], "true branch");
    forest.branches[b].false_ref = find(tree_ids[i], false_ids[i], "false branch");
    ++b;
  }
  for (const auto& [tree, ref] : root_of) forest.roots.push_back(ref);

  const std::vector<int64_t> leaf_trees = info.Ints(prefix + "treeids");
  const std::vector<int64_t> leaf_nodes = info.Ints(prefix + "nodeids");
  const std::vector<int64_t> targets = info.Ints(prefix + "ids");
  all_weights = FloatsOrTensor(info, prefix + "weights");
  CheckLength(node, prefix + "nodeids", leaf_nodes.size(), leaf_trees.size(), prefix + "treeids");
  CheckLength(node, prefix + "ids", targets.size(), leaf_trees.size(), prefix + "treeids");
  CheckLength(node, prefix + "weights", all_weights.size(), leaf_trees.size(), prefix + "treeids");
  for (size_t i = 0; i < leaf_trees.size(); ++i) {
    const int64_t ref = find(leaf_trees[i], leaf_nodes[i], (prefix + "nodeids entry").c_str());
    PRISM_ENFORCE(ref < 0, kInvalidArgument, node.Describe(), ": ", prefix, "nodeids entry ", i,
                  " (tree ", leaf_trees[i], ", node ", leaf_nodes[i], ") is not a LEAF node");
    forest.leaves[static_cast<size_t>(~ref)].push_back({targets[i], all_weights[i]});
  }
  forest.Validate(node);
}

void CheckTargets(const Node& node, const Forest& forest, int64_t target_count, const char* what) {
  for (const auto& leaf : forest.leaves)
    for (const Contribution& c : leaf)
      PRISM_ENFORCE(c.target >= 0 && c.target < target_count, kInvalidArgument, node.Describe(),
                    ": ", what, " ", c.target, " is outside [0, ", target_count, ")");
}

// X as rows of features: [N, F] (or [F], one row); checks that every feature id is inside F.
std::pair<int64_t, int64_t> RowsAndColumns(const Node& node, const Tensor& x,
                                           const Forest& forest) {
  const TensorShape& shape = x.Shape();
  PRISM_ENFORCE(shape.Rank() == 1 || shape.Rank() == 2, kInvalidArgument, node.Describe(),
                ": input X must be [N, F] or [F], got ", shape.ToString());
  const int64_t rows = shape.Rank() == 2 ? shape[0] : 1;
  const int64_t columns = shape[shape.Rank() - 1];
  PRISM_ENFORCE(rows == 0 || forest.feature_count <= columns, kInvalidArgument, node.Describe(),
                ": the trees read feature ", forest.feature_count - 1, ", but input X ",
                shape.ToString(), " has ", columns, " features");
  return {rows, columns};
}

// Aggregated scores (with base values) of every row: rows x targets.
std::vector<double> Aggregated(const Node& node, const Tensor& x, const Forest& forest,
                               Aggregate aggregate, size_t targets,
                               const std::vector<double>& base_values, int64_t rows,
                               int64_t columns, std::vector<char>* has_score_out = nullptr) {
  std::vector<double> out(static_cast<size_t>(rows) * targets);
  if (has_score_out) has_score_out->assign(out.size(), 0);
  std::vector<double> row(static_cast<size_t>(columns));
  Scores scores;
  const double tree_count = static_cast<double>(forest.roots.size());
  for (int64_t r = 0; r < rows; ++r) {
    DispatchByType<ReadRowImpl, FeatureTypes>(x.Type(), node.OpType(), x, r, columns, row.data());
    scores.Reset(targets);
    for (int64_t root : forest.roots)
      for (const Contribution& c :
           forest.leaves[static_cast<size_t>(forest.Walk(node, root, row.data()))])
        scores.Add(aggregate, c);
    for (size_t t = 0; t < targets; ++t) {
      double v = scores.value[t];
      if (aggregate == Aggregate::kAverage) v /= tree_count;
      // A target that no leaf reached stays 0, base value or not (onnxruntime).
      if (!base_values.empty() && scores.has_score[t]) v += base_values[t];
      out[static_cast<size_t>(r) * targets + t] = v;
      if (has_score_out)
        (*has_score_out)[static_cast<size_t>(r) * targets + t] = scores.has_score[t];
    }
  }
  return out;
}

template <typename T>
struct WriteScoresImpl {
  void operator()(const std::vector<double>& values, Tensor& y) const {
    T* out = y.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = FromCompute<T>(values[i]);
  }
};

using ScoreTypes = TypeList<float, double, Float16>;

// Regression: post transform over each row's targets; a single target is only transformed by
// PROBIT (onnxruntime leaves one score alone for the other transforms).
void TransformRows(PostTransform transform, std::vector<double>& values, size_t targets) {
  if (transform == PostTransform::kNone || targets == 0) return;
  if (targets == 1 && transform != PostTransform::kProbit) return;
  std::vector<double> row(targets);
  for (size_t r = 0; r * targets < values.size(); ++r) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(r * targets), targets, row.begin());
    ApplyPostTransform(transform, row);
    std::copy(row.begin(), row.end(), values.begin() + static_cast<std::ptrdiff_t>(r * targets));
  }
}

// TreeEnsemble (opset 5).
class TreeEnsemble final : public OpKernel {
 public:
  explicit TreeEnsemble(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    const std::vector<double> splits =
        TensorAsDoubles(node, "nodes_splits", info.TensorAttr("nodes_splits"));
    const std::vector<int64_t> features = info.Ints("nodes_featureids");
    const Tensor& modes_tensor = info.TensorAttr("nodes_modes");
    PRISM_ENFORCE(modes_tensor.Type() == E::kUint8, kInvalidArgument, node.Describe(),
                  ": attribute 'nodes_modes' must be a uint8 tensor, got ",
                  modes_tensor.Describe());
    const std::vector<int64_t> true_ids = info.Ints("nodes_truenodeids");
    const std::vector<int64_t> false_ids = info.Ints("nodes_falsenodeids");
    const std::vector<int64_t> true_leafs = info.Ints("nodes_trueleafs");
    const std::vector<int64_t> false_leafs = info.Ints("nodes_falseleafs");
    const std::vector<int64_t> missing = info.IntsOr("nodes_missing_value_tracks_true", {});
    const std::vector<int64_t> leaf_targets = info.Ints("leaf_targetids");
    const std::vector<double> leaf_weights =
        TensorAsDoubles(node, "leaf_weights", info.TensorAttr("leaf_weights"));
    const std::vector<int64_t> roots = info.Ints("tree_roots");
    targets_ = info.Int("n_targets");
    PRISM_ENFORCE(targets_ >= 1, kInvalidArgument, node.Describe(),
                  ": attribute 'n_targets' must be >= 1, got ", targets_);
    const int64_t aggregate = info.IntOr("aggregate_function", 1);
    PRISM_ENFORCE(aggregate >= 0 && aggregate <= 3, kInvalidArgument, node.Describe(),
                  ": attribute 'aggregate_function' must be 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 "
                  "(MAX), got ",
                  aggregate);
    aggregate_ = static_cast<Aggregate>(aggregate);
    const int64_t transform = info.IntOr("post_transform", 0);
    PRISM_ENFORCE(transform >= 0 && transform <= 4, kInvalidArgument, node.Describe(),
                  ": attribute 'post_transform' must be 0 (NONE), 1 (SOFTMAX), 2 (LOGISTIC), 3 "
                  "(SOFTMAX_ZERO) or 4 (PROBIT), got ",
                  transform);
    transform_ = static_cast<PostTransform>(transform);

    const size_t count = features.size();
    CheckLength(node, "nodes_splits", splits.size(), count, "nodes_featureids");
    CheckLength(node, "nodes_modes", static_cast<size_t>(modes_tensor.NumElements()), count,
                "nodes_featureids");
    CheckLength(node, "nodes_truenodeids", true_ids.size(), count, "nodes_featureids");
    CheckLength(node, "nodes_falsenodeids", false_ids.size(), count, "nodes_featureids");
    CheckLength(node, "nodes_trueleafs", true_leafs.size(), count, "nodes_featureids");
    CheckLength(node, "nodes_falseleafs", false_leafs.size(), count, "nodes_featureids");
    if (!missing.empty())
      CheckLength(node, "nodes_missing_value_tracks_true", missing.size(), count,
                  "nodes_featureids");
    CheckLength(node, "leaf_weights", leaf_weights.size(), leaf_targets.size(), "leaf_targetids");

    // membership_values: one set per BRANCH_MEMBER node, in node order, each ended by a NaN.
    std::vector<std::pair<size_t, size_t>> sets;
    if (info.HasAttr("membership_values")) {
      forest_.members =
          TensorAsDoubles(node, "membership_values", info.TensorAttr("membership_values"));
      size_t begin = 0;
      for (size_t i = 0; i <= forest_.members.size(); ++i) {
        if (i == forest_.members.size() ? i > begin : std::isnan(forest_.members[i])) {
          sets.emplace_back(begin, i);
          begin = i + 1;
        } else if (i < forest_.members.size() && std::isnan(forest_.members[i])) {
          begin = i + 1;
        }
      }
    }
    const uint8_t* modes = modes_tensor.Data<uint8_t>();
    size_t next_set = 0;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(modes[i] <= 6, kInvalidArgument, node.Describe(), ": nodes_modes[", i,
                    "] must be 0 (BRANCH_LEQ) to 6 (BRANCH_MEMBER), got ",
                    static_cast<int>(modes[i]));
      Branch branch;
      branch.feature = features[i];
      branch.threshold = splits[i];
      branch.rule = static_cast<Rule>(modes[i]);
      branch.missing_true = !missing.empty() && missing[i] != 0;
      if (branch.rule == Rule::kMember) {
        PRISM_ENFORCE(next_set < sets.size(), kInvalidArgument, node.Describe(),
                      ": attribute 'membership_values' must hold one NaN-ended set per "
                      "BRANCH_MEMBER node, got ",
                      sets.size(), " sets for more member nodes");
        branch.members_begin = sets[next_set].first;
        branch.members_end = sets[next_set].second;
        ++next_set;
      }
      branch.true_ref = true_leafs[i] ? Forest::LeafRef(true_ids[i]) : true_ids[i];
      branch.false_ref = false_leafs[i] ? Forest::LeafRef(false_ids[i]) : false_ids[i];
      PRISM_ENFORCE(true_ids[i] >= 0 && false_ids[i] >= 0, kInvalidArgument, node.Describe(),
                    ": node ", i, " has a negative child id (", true_ids[i], ", ", false_ids[i],
                    ")");
      PRISM_ENFORCE(features[i] >= 0 && features[i] < std::numeric_limits<int64_t>::max(),
                    kInvalidArgument, node.Describe(), ": node ", i, " reads feature ", features[i],
                    ", which is not a column index");
      forest_.branches.push_back(branch);
      forest_.feature_count = std::max(forest_.feature_count, features[i] + 1);
    }
    for (size_t j = 0; j < leaf_targets.size(); ++j)
      forest_.leaves.push_back({{leaf_targets[j], leaf_weights[j]}});
    for (int64_t root : roots) {
      PRISM_ENFORCE(root >= 0 && static_cast<size_t>(root) < count, kInvalidArgument,
                    node.Describe(), ": tree root ", root, " is outside [0, ", count, ")");
      const size_t r = static_cast<size_t>(root);
      // A tree that is one leaf: both children the same leaf.
      const bool single_leaf = true_leafs[r] && false_leafs[r] && true_ids[r] == false_ids[r];
      forest_.roots.push_back(single_leaf ? Forest::LeafRef(true_ids[r]) : root);
    }
    forest_.Validate(node);
    CheckTargets(node, forest_, targets_, "leaf_targetids entry");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const auto [rows, columns] = RowsAndColumns(node, x, forest_);
    std::vector<double> values =
        Aggregated(node, x, forest_, aggregate_, static_cast<size_t>(targets_), {}, rows, columns);
    TransformRows(transform_, values, static_cast<size_t>(targets_));
    Tensor& y = context.Output(0, TensorShape({rows, targets_}), x.Type());
    DispatchByType<WriteScoresImpl, ScoreTypes>(x.Type(), node.OpType(), values, y);
  }

 private:
  Forest forest_;
  int64_t targets_ = 1;
  Aggregate aggregate_ = Aggregate::kSum;
  PostTransform transform_ = PostTransform::kNone;
};

class TreeEnsembleRegressor final : public OpKernel {
 public:
  explicit TreeEnsembleRegressor(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    std::vector<double> weights;
    ReadLegacyForest(info, "target_", forest_, weights);
    targets_ = info.IntOr("n_targets", 1);
    PRISM_ENFORCE(targets_ >= 1, kInvalidArgument, node.Describe(),
                  ": attribute 'n_targets' must be >= 1, got ", targets_);
    CheckTargets(node, forest_, targets_, "target_ids entry");
    aggregate_ = AggregateByName(node, info.StringOr("aggregate_function", "SUM"));
    transform_ = PostTransformByName(node, info.StringOr("post_transform", "NONE"));
    base_values_ = FloatsOrTensor(info, "base_values");
    PRISM_ENFORCE(base_values_.empty() || base_values_.size() == static_cast<size_t>(targets_),
                  kInvalidArgument, node.Describe(),
                  ": attribute 'base_values' must have n_targets (", targets_, ") values, got ",
                  base_values_.size());
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const auto [rows, columns] = RowsAndColumns(node, x, forest_);
    std::vector<double> values = Aggregated(
        node, x, forest_, aggregate_, static_cast<size_t>(targets_), base_values_, rows, columns);
    TransformRows(transform_, values, static_cast<size_t>(targets_));
    Tensor& y = context.Output(0, TensorShape({rows, targets_}), E::kFloat);
    WriteScoresImpl<float>{}(values, y);
  }

 private:
  Forest forest_;
  int64_t targets_ = 1;
  Aggregate aggregate_ = Aggregate::kSum;
  PostTransform transform_ = PostTransform::kNone;
  std::vector<double> base_values_;
};

// The two scores of a binary classifier (two labels, every weight on one class id) from the
// score s of that id: [1 - s, s] (probabilities: no weight is negative) or [-s, s] (margins).
// LOGISTIC maps each, PROBIT takes [1 - s, s] (as onnx.reference; onnxruntime writes one
// value), and SOFTMAX / SOFTMAX_ZERO leave them as they are (onnxruntime).
void BinaryScores(PostTransform transform, bool weights_positive, double s, double* z) {
  if (transform == PostTransform::kProbit) {
    z[0] = Probit(1 - s);
    z[1] = Probit(s);
  } else if (transform == PostTransform::kLogistic) {
    z[0] = Logistic(-s);
    z[1] = Logistic(s);
  } else {
    z[0] = weights_positive ? 1 - s : -s;
    z[1] = s;
  }
}

class TreeEnsembleClassifier final : public OpKernel {
 public:
  explicit TreeEnsembleClassifier(const OpKernelInfo& info) : OpKernel(info) {
    const Node& node = info.GetNode();
    std::vector<double> weights;
    ReadLegacyForest(info, "class_", forest_, weights);
    const bool has_ints = info.HasAttr("classlabels_int64s");
    const bool has_strings = info.HasAttr("classlabels_strings");
    PRISM_ENFORCE(has_ints != has_strings, kInvalidArgument, node.Describe(),
                  ": exactly one of 'classlabels_int64s' and 'classlabels_strings' must be set");
    if (has_ints)
      int_labels_ = info.Ints("classlabels_int64s");
    else
      string_labels_ = info.Strings("classlabels_strings");
    classes_ = has_ints ? int_labels_.size() : string_labels_.size();
    PRISM_ENFORCE(classes_ >= 2, kInvalidArgument, node.Describe(),
                  ": the class labels must name at least 2 classes, got ", classes_);
    CheckTargets(node, forest_, static_cast<int64_t>(classes_), "class_ids entry");
    transform_ = PostTransformByName(node, info.StringOr("post_transform", "NONE"));
    base_values_ = FloatsOrTensor(info, "base_values");
    PRISM_ENFORCE(base_values_.empty() || base_values_.size() == classes_ ||
                      (classes_ == 2 && base_values_.size() == 1),
                  kInvalidArgument, node.Describe(), ": attribute 'base_values' must have ",
                  classes_, " values (one per class), got ", base_values_.size());
    std::set<int64_t> ids;
    for (const auto& leaf : forest_.leaves)
      for (const Contribution& c : leaf) ids.insert(c.target);
    binary_ = classes_ == 2 && ids.size() == 1;
    if (binary_) binary_class_ = static_cast<size_t>(*ids.begin());
    weights_positive_ =
        std::all_of(weights.begin(), weights.end(), [](double w) { return w >= 0; });
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const auto [rows, columns] = RowsAndColumns(node, x, forest_);
    std::vector<char> has_score;
    std::vector<double> sums =
        Aggregated(node, x, forest_, Aggregate::kSum, classes_, {}, rows, columns, &has_score);
    const int64_t score_columns = static_cast<int64_t>(classes_);
    std::vector<double> z(static_cast<size_t>(rows * score_columns));
    std::vector<size_t> winners(static_cast<size_t>(rows));
    std::vector<double> row(classes_);
    for (int64_t r = 0; r < rows; ++r) {
      const double* s = sums.data() + r * static_cast<int64_t>(classes_);
      const char* seen = has_score.data() + r * static_cast<int64_t>(classes_);
      double* out = z.data() + r * score_columns;
      if (!binary_) {
        for (size_t c = 0; c < classes_; ++c)
          row[c] = s[c] + (base_values_.size() == classes_ ? base_values_[c] : 0.0);
        // The label: the highest score among the classes that have one (a base value counts).
        size_t best = 0;
        bool found = false;
        for (size_t c = 0; c < classes_; ++c) {
          const bool scored = seen[c] || base_values_.size() == classes_;
          if (scored && (!found || row[c] > row[best])) {
            best = c;
            found = true;
          }
        }
        winners[static_cast<size_t>(r)] = best;
        ApplyPostTransform(transform_, row);
        std::copy(row.begin(), row.end(), out);
        continue;
      }
      // Binary: all weights go to one class id; its score (with its base value) decides
      // between the labels: above 0.5 for probabilities, above 0 for margins (onnxruntime).
      double score = s[binary_class_];
      if (base_values_.size() == 1) score += base_values_[0];
      if (base_values_.size() == 2) score += base_values_[binary_class_];
      winners[static_cast<size_t>(r)] = (weights_positive_ ? score > 0.5 : score > 0) ? 1 : 0;
      BinaryScores(transform_, weights_positive_, score, out);
    }
    Tensor& labels = context.Output(0, TensorShape({rows}), has_ints() ? E::kInt64 : E::kString);
    for (int64_t r = 0; r < rows; ++r) {
      const size_t w = winners[static_cast<size_t>(r)];
      if (has_ints())
        labels.MutableData<int64_t>()[r] = int_labels_[w];
      else
        labels.MutableData<std::string>()[r] = string_labels_[w];
    }
    Tensor& scores = context.Output(1, TensorShape({rows, score_columns}), E::kFloat);
    WriteScoresImpl<float>{}(z, scores);
  }

 private:
  bool has_ints() const { return !int_labels_.empty(); }
  Forest forest_;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  size_t classes_ = 0;
  PostTransform transform_ = PostTransform::kNone;
  std::vector<double> base_values_;
  bool binary_ = false;
  size_t binary_class_ = 0;
  bool weights_positive_ = true;
};

void RegisterTreeEnsembleKernels(KernelRegistry& registry) {
  const std::vector<E> features = {E::kFloat, E::kDouble, E::kInt64, E::kInt32};
  registry.Register(KernelDefBuilder("TreeEnsemble")
                        .Domain("ai.onnx.ml")
                        .Versions(5)
                        .Constraint("T", {E::kFloat, E::kDouble, E::kFloat16}, {0}, {0})
                        .Build(),
                    MakeKernelFactory<TreeEnsemble>());
  for (const auto& [since, end] : {std::pair{1, 2}, std::pair{3, 4}}) {
    registry.Register(KernelDefBuilder("TreeEnsembleRegressor")
                          .Domain("ai.onnx.ml")
                          .Versions(since, end)
                          .Constraint("T", features, {0})
                          .Build(),
                      MakeKernelFactory<TreeEnsembleRegressor>());
    registry.Register(KernelDefBuilder("TreeEnsembleClassifier")
                          .Domain("ai.onnx.ml")
                          .Versions(since, end)
                          .Constraint("T1", features, {0})
                          .Constraint("T2", {E::kString, E::kInt64}, {}, {0})
                          .Build(),
                      MakeKernelFactory<TreeEnsembleClassifier>());
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_tree_ensemble, RegisterTreeEnsembleKernels);

}  // namespace prism::cpu

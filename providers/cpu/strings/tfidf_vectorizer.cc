// TfIdfVectorizer (opset 9): counts, per row of X ([C] or [N, C]; int32, int64 or string), the
// n-grams of the pool found in it, and writes them at their ngram_indexes coordinates of Y
// ([max(ngram_indexes) + 1] or [N, max(ngram_indexes) + 1], float).
//
// An n-gram of length n with skip s takes the items at i, i + (s + 1), ..., i + (n - 1)(s + 1);
// every start i and every skip 0..max_skip_count is tried, for every length in
// [min_gram_length, max_gram_length]. A 1-gram is counted once per position, whatever the skip.
// The pool holds the 1-grams from ngram_counts[0], the 2-grams from ngram_counts[1], and so on;
// the k-th n-gram of the pool (all lengths in order) is written at ngram_indexes[k].
// Y[j] sums, over the pool's n-grams k with ngram_indexes[k] = j, count_k (mode TF),
// weights[k] where count_k > 0 (IDF) or count_k * weights[k] (TFIDF); weights default to 1.
// weights is indexed by the pool's n-gram, as the spec says and onnxruntime 1.31 does (the ONNX
// reference indexes it by the output coordinate j instead; the two agree whenever ngram_indexes
// is 0, 1, 2, ...). Where several n-grams share a coordinate, IDF sums their weights
// (onnxruntime keeps the weight of the last one found). N = 0 gives an empty [0, size] result.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

enum class Weighting { kTf, kIdf, kTfIdf };

Weighting ParseMode(const std::string& mode, const Node& node) {
  if (mode == "TF") return Weighting::kTf;
  if (mode == "IDF") return Weighting::kIdf;
  if (mode == "TFIDF") return Weighting::kTfIdf;
  PRISM_THROW(kInvalidArgument, node.Describe(), ": mode must be TF, IDF or TFIDF, got '", mode,
              "'");
}

// The pool's n-grams as a trie over item tokens: an int64 pool's tokens are the values, a string
// pool's are the indexes of its distinct strings (an input string not in the pool gets a token
// no child has).
struct TrieNode {
  std::unordered_map<int64_t, int32_t> children;
  int64_t ngram = -1;  // the n-gram's index in the pool when one ends here
};

class TfIdfVectorizer final : public OpKernel {
 public:
  explicit TfIdfVectorizer(const OpKernelInfo& info)
      : OpKernel(info),
        weighting_(ParseMode(info.String("mode"), info.GetNode())),
        min_length_(info.Int("min_gram_length")),
        max_length_(info.Int("max_gram_length")),
        max_skip_(info.Int("max_skip_count")),
        ngram_indexes_(info.Ints("ngram_indexes")),
        weights_(info.HasAttr("weights") ? info.Floats("weights") : std::vector<float>{}) {
    const Node& node = info.GetNode();
    const std::string& name = node.Describe();
    PRISM_ENFORCE(min_length_ >= 1 && max_length_ >= min_length_, kInvalidArgument, name,
                  ": need 1 <= min_gram_length <= max_gram_length, got ", min_length_, " and ",
                  max_length_);
    PRISM_ENFORCE(max_skip_ >= 0, kInvalidArgument, name, ": max_skip_count must be >= 0, got ",
                  max_skip_);
    PRISM_ENFORCE(!ngram_indexes_.empty(), kInvalidArgument, name,
                  ": ngram_indexes must not be empty");
    for (const int64_t index : ngram_indexes_)
      PRISM_ENFORCE(index >= 0, kInvalidArgument, name, ": ngram_indexes must be >= 0, got ",
                    index);
    output_size_ = *std::max_element(ngram_indexes_.begin(), ngram_indexes_.end()) + 1;
    PRISM_ENFORCE(weights_.empty() || weights_.size() == ngram_indexes_.size(), kInvalidArgument,
                  name, ": weights must have one value per ngram_indexes entry (",
                  ngram_indexes_.size(), "), got ", weights_.size());
    const bool has_ints = info.HasAttr("pool_int64s");
    const bool has_strings = info.HasAttr("pool_strings");
    PRISM_ENFORCE(has_ints != has_strings, kInvalidArgument, name,
                  ": exactly one of pool_int64s and pool_strings must be set, got ",
                  has_ints ? "both" : "neither");
    string_pool_ = has_strings;
    std::vector<int64_t> pool;
    if (has_ints) {
      pool = info.Ints("pool_int64s");
    } else {
      for (const std::string& item : info.Strings("pool_strings"))
        pool.push_back(
            vocabulary_.emplace(item, static_cast<int64_t>(vocabulary_.size())).first->second);
    }
    BuildTrie(pool, info.Ints("ngram_counts"), name);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() == 1 || shape.Rank() == 2, kInvalidArgument, node.Describe(),
                  ": input X must be [C] or [N, C], got ", x.Describe());
    const bool string_input = x.Type() == ElementType::kString;
    PRISM_ENFORCE(string_input == string_pool_, kInvalidArgument, node.Describe(), ": ",
                  string_pool_ ? "pool_strings" : "pool_int64s", " needs ",
                  string_pool_ ? "a string" : "an int32 or int64", " input X, got ", x.Describe());
    const int64_t rows = shape.Rank() == 2 ? shape[0] : 1;
    const int64_t columns = shape.Rank() == 2 ? shape[1] : shape[0];
    const TensorShape out_shape =
        shape.Rank() == 2 ? TensorShape({rows, output_size_}) : TensorShape({output_size_});
    float* out = context.Output(0, out_shape, ElementType::kFloat).MutableData<float>();
    const std::vector<int64_t> tokens = Tokens(x);
    const double cost = static_cast<double>(columns) * (static_cast<double>(max_skip_) + 1.0) *
                            static_cast<double>(max_length_) +
                        static_cast<double>(output_size_);
    ThreadPool::TryParallelFor(context.IntraOpThreadPool(), rows, cost,
                               [&](int64_t begin, int64_t end) {
                                 std::vector<uint32_t> counts(ngram_indexes_.size());
                                 for (int64_t row = begin; row < end; ++row) {
                                   std::fill(counts.begin(), counts.end(), 0u);
                                   CountRow(tokens.data() + row * columns, columns, counts);
                                   Weigh(counts, out + row * output_size_);
                                 }
                               });
  }

 private:
  void BuildTrie(const std::vector<int64_t>& pool, const std::vector<int64_t>& ngram_counts,
                 const std::string& name) {
    trie_.emplace_back();  // the root
    const int64_t total = static_cast<int64_t>(pool.size());
    int64_t ngram = 0;
    for (size_t k = 0; k < ngram_counts.size(); ++k) {
      const int64_t length = static_cast<int64_t>(k) + 1;
      const int64_t begin = ngram_counts[k];
      const int64_t end = k + 1 < ngram_counts.size() ? ngram_counts[k + 1] : total;
      PRISM_ENFORCE(0 <= begin && begin <= end && end <= total, kInvalidArgument, name,
                    ": ngram_counts[", k, "] = ", begin, " and the next start ", end,
                    " do not delimit a range of the pool's ", total, " items");
      PRISM_ENFORCE((end - begin) % length == 0, kInvalidArgument, name, ": the ", end - begin,
                    " pool items of the ", length, "-grams are not a whole number of ", length,
                    "-grams");
      for (int64_t start = begin; start < end; start += length, ++ngram) {
        PRISM_ENFORCE(ngram < static_cast<int64_t>(ngram_indexes_.size()), kInvalidArgument, name,
                      ": the pool has more n-grams than ngram_indexes has entries (",
                      ngram_indexes_.size(), ")");
        if (length < min_length_ || length > max_length_) continue;  // never counted
        int32_t node = 0;
        for (int64_t i = start; i < start + length; ++i) {
          const auto [child, added] =
              trie_[node].children.emplace(pool[i], static_cast<int32_t>(trie_.size()));
          node = child->second;  // read before emplace_back moves the nodes
          if (added) trie_.emplace_back();
        }
        PRISM_ENFORCE(trie_[node].ngram < 0, kInvalidArgument, name, ": the pool's n-grams ",
                      trie_[node].ngram, " and ", ngram, " are the same ", length, "-gram");
        trie_[node].ngram = ngram;
      }
    }
  }

  // X's items as trie tokens.
  std::vector<int64_t> Tokens(const Tensor& x) const {
    std::vector<int64_t> tokens(static_cast<size_t>(x.NumElements()));
    if (x.Type() == ElementType::kInt64) {
      std::copy_n(x.Data<int64_t>(), tokens.size(), tokens.begin());
    } else if (x.Type() == ElementType::kInt32) {
      std::copy_n(x.Data<int32_t>(), tokens.size(), tokens.begin());
    } else {
      const std::string* in = x.Data<std::string>();
      const auto unknown = static_cast<int64_t>(vocabulary_.size());
      for (size_t i = 0; i < tokens.size(); ++i) {
        const auto found = vocabulary_.find(in[i]);
        tokens[i] = found == vocabulary_.end() ? unknown : found->second;
      }
    }
    return tokens;
  }

  void CountRow(const int64_t* row, int64_t columns, std::vector<uint32_t>& counts) const {
    for (int64_t start = 0; start < columns; ++start) {
      for (int64_t skip = 0; skip <= max_skip_; ++skip) {
        const int64_t step = skip + 1;
        // Beyond this only 1-grams fit, and those are counted with skip 0.
        if (skip > 0 && start + step >= columns) break;
        int32_t node = 0;
        int64_t length = 1;
        for (int64_t i = start; i < columns && length <= max_length_; i += step, ++length) {
          const auto child = trie_[node].children.find(row[i]);
          if (child == trie_[node].children.end()) break;
          node = child->second;
          const int64_t ngram = trie_[node].ngram;
          if (ngram >= 0 && length >= min_length_ && (length > 1 || skip == 0))
            ++counts[static_cast<size_t>(ngram)];
        }
      }
    }
  }

  // counts: per pool n-gram; out: the row's output coordinates.
  void Weigh(const std::vector<uint32_t>& counts, float* out) const {
    std::fill(out, out + output_size_, 0.0f);
    for (size_t k = 0; k < counts.size(); ++k) {
      if (counts[k] == 0) continue;
      const float weight = weights_.empty() ? 1.0f : weights_[k];
      const float count = static_cast<float>(counts[k]);
      out[ngram_indexes_[k]] += weighting_ == Weighting::kTf    ? count
                                : weighting_ == Weighting::kIdf ? weight
                                                                : count * weight;
    }
  }

  Weighting weighting_;
  int64_t min_length_, max_length_, max_skip_;
  std::vector<int64_t> ngram_indexes_;
  std::vector<float> weights_;
  int64_t output_size_ = 0;
  bool string_pool_ = false;
  std::unordered_map<std::string, int64_t> vocabulary_;
  std::vector<TrieNode> trie_;
};

void RegisterTfIdfVectorizerKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("TfIdfVectorizer")
                        .Versions(9)
                        .Constraint("T", {E::kString, E::kInt32, E::kInt64}, {0})
                        .Constraint("T1", {E::kFloat}, {}, {0})
                        .Build(),
                    MakeKernelFactory<TfIdfVectorizer>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(strings_tfidf_vectorizer, RegisterTfIdfVectorizerKernels);

}  // namespace prism::cpu

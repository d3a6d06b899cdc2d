// Linear models of ai.onnx.ml (opset 1): LinearRegressor, LinearClassifier and SVMRegressor.
// Rows of X ([N, F] or [F]) are read as double; scores are computed in double and written as
// float. Post transforms follow onnxruntime: a single score (one target) is only transformed by
// PROBIT; a binary classifier (one coefficient row, two labels) scores [1 - s, s] (LOGISTIC:
// [logistic(-s), logistic(s)], PROBIT: [probit(1 - s), probit(s)]) and picks the second label
// when s > 0.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using E = ElementType;
const std::vector<E> kFeatureTypes = {E::kFloat, E::kDouble, E::kInt64, E::kInt32};

template <typename T>
struct ReadAllImpl {
  void operator()(const Tensor& x, std::vector<double>& out) const {
    const T* in = x.Data<T>();
    out.resize(static_cast<size_t>(x.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(in[i]);
  }
};

// X as doubles with its row count and row length ([N, F] or [F]).
struct Rows {
  std::vector<double> values;
  int64_t count = 0;
  int64_t length = 0;
  const double* Row(int64_t r) const { return values.data() + r * length; }
};

Rows ReadRows(const Node& node, const Tensor& x) {
  PRISM_ENFORCE(x.Shape().Rank() == 1 || x.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                ": input X must be [N, F] or [F], got ", x.Shape().ToString());
  Rows rows;
  rows.count = x.Shape().Rank() == 2 ? x.Shape()[0] : 1;
  rows.length = x.Shape()[x.Shape().Rank() - 1];
  DispatchByType<ReadAllImpl, TypeList<float, double, int64_t, int32_t>>(x.Type(), node.OpType(), x,
                                                                         rows.values);
  return rows;
}

double Dot(const double* a, const float* b, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += a[i] * static_cast<double>(b[i]);
  return sum;
}

double Logistic(double v) {
  const double e = 1.0 / (1.0 + std::exp(-std::abs(v)));
  return v < 0 ? 1.0 - e : e;
}

// onnxruntime's PROBIT (Winitzki's erf^-1, a = 0.147, in float).
double Probit(double p) {
  float x = static_cast<float>(p) * 2 - 1;
  const float sign = x < 0 ? -1.0f : 1.0f;
  x = (1 - x) * (1 + x);
  const float log = std::log(x);
  const float v = 2 / (3.14159265358979f * 0.147f) + 0.5f * log;
  const float v2 = 1 / 0.147f * log;
  return 1.41421356f * sign * std::sqrt(-v + std::sqrt(v * v - v2));
}

enum class PostTransform { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

PostTransform ReadPostTransform(const OpKernelInfo& info) {
  const std::string name = info.StringOr("post_transform", "NONE");
  if (name == "NONE") return PostTransform::kNone;
  if (name == "SOFTMAX") return PostTransform::kSoftmax;
  if (name == "LOGISTIC") return PostTransform::kLogistic;
  if (name == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (name == "PROBIT") return PostTransform::kProbit;
  PRISM_THROW(kInvalidArgument, info.GetNode().Describe(),
              ": attribute 'post_transform' must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or "
              "PROBIT, got '",
              name, "'");
}

// The transform of one row of scores; a single score only by PROBIT (onnxruntime).
void Transform(PostTransform transform, double* v, size_t n) {
  if (n == 1 && transform != PostTransform::kProbit) return;
  switch (transform) {
    case PostTransform::kNone:
      return;
    case PostTransform::kLogistic:
      for (size_t i = 0; i < n; ++i) v[i] = Logistic(v[i]);
      return;
    case PostTransform::kProbit:
      for (size_t i = 0; i < n; ++i) v[i] = Probit(v[i]);
      return;
    case PostTransform::kSoftmax:
    case PostTransform::kSoftmaxZero: {
      // SOFTMAX_ZERO keeps zero scores (no evidence) at zero; an all-zero row gets 0.5.
      const bool keep_zeros = transform == PostTransform::kSoftmaxZero;
      const double top = *std::max_element(v, v + n);
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        const bool zero = keep_zeros && v[i] <= 1e-7 && v[i] >= -1e-7;
        v[i] = zero ? v[i] * std::exp(-top) : std::exp(v[i] - top);
        sum += v[i];
      }
      for (size_t i = 0; i < n; ++i) v[i] = sum == 0 ? 0.5 : v[i] / sum;
      return;
    }
  }
}

void WriteFloats(const std::vector<double>& values, Tensor& y) {
  float* out = y.MutableData<float>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
}

// LinearRegressor: Y[n, t] = X[n] . coefficients[t] + intercepts[t].
class LinearRegressor final : public OpKernel {
 public:
  explicit LinearRegressor(const OpKernelInfo& info)
      : OpKernel(info),
        coefficients_(info.Floats("coefficients")),
        intercepts_(info.HasAttr("intercepts") ? info.Floats("intercepts") : std::vector<float>{}),
        targets_(info.IntOr("targets", 1)),
        transform_(ReadPostTransform(info)) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(targets_ >= 1 && coefficients_.size() % static_cast<size_t>(targets_) == 0,
                  kInvalidArgument, node.Describe(), ": attribute 'coefficients' (",
                  coefficients_.size(), " values) must hold 'targets' (", targets_,
                  ") rows of equal length");
    PRISM_ENFORCE(intercepts_.empty() || intercepts_.size() == static_cast<size_t>(targets_),
                  kInvalidArgument, node.Describe(), ": attribute 'intercepts' must have ",
                  targets_, " values (one per target), got ", intercepts_.size());
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Rows rows = ReadRows(node, context.RequiredInput(0));
    const int64_t features = static_cast<int64_t>(coefficients_.size()) / targets_;
    PRISM_ENFORCE(rows.length == features, kInvalidArgument, node.Describe(), ": input X has ",
                  rows.length, " features, the coefficients ", features, " per target");
    std::vector<double> out(static_cast<size_t>(rows.count * targets_));
    for (int64_t r = 0; r < rows.count; ++r) {
      double* y = out.data() + r * targets_;
      for (int64_t t = 0; t < targets_; ++t)
        y[t] = Dot(rows.Row(r), coefficients_.data() + t * features, features) +
               (intercepts_.empty() ? 0.0 : intercepts_[static_cast<size_t>(t)]);
      Transform(transform_, y, static_cast<size_t>(targets_));
    }
    WriteFloats(out, context.Output(0, TensorShape({rows.count, targets_}), E::kFloat));
  }

 private:
  std::vector<float> coefficients_, intercepts_;
  int64_t targets_;
  PostTransform transform_;
};

// LinearClassifier: one score per coefficient row (per class), the label of the highest score;
// one row with two labels is a binary classifier.
class LinearClassifier final : public OpKernel {
 public:
  explicit LinearClassifier(const OpKernelInfo& info)
      : OpKernel(info),
        coefficients_(info.Floats("coefficients")),
        intercepts_(info.HasAttr("intercepts") ? info.Floats("intercepts") : std::vector<float>{}),
        transform_(ReadPostTransform(info)) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(info.HasAttr("classlabels_ints") != info.HasAttr("classlabels_strings"),
                  kInvalidArgument, node.Describe(),
                  ": exactly one of 'classlabels_ints' and 'classlabels_strings' must be set");
    if (info.HasAttr("classlabels_ints"))
      int_labels_ = info.Ints("classlabels_ints");
    else
      string_labels_ = info.Strings("classlabels_strings");
    labels_ = std::max(int_labels_.size(), string_labels_.size());
    rows_ = intercepts_.empty() ? labels_ : intercepts_.size();
    PRISM_ENFORCE(rows_ >= 1 && coefficients_.size() % rows_ == 0, kInvalidArgument,
                  node.Describe(), ": attribute 'coefficients' (", coefficients_.size(),
                  " values) must hold one row per intercept (", rows_, ")");
    PRISM_ENFORCE(rows_ == labels_ || (rows_ == 1 && labels_ == 2), kInvalidArgument,
                  node.Describe(), ": ", rows_,
                  " coefficient rows need as many class labels (or 2 for one row), got ", labels_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Rows rows = ReadRows(node, context.RequiredInput(0));
    const int64_t features = static_cast<int64_t>(coefficients_.size() / rows_);
    PRISM_ENFORCE(rows.length == features, kInvalidArgument, node.Describe(), ": input X has ",
                  rows.length, " features, the coefficients ", features, " per class");
    const size_t columns = labels_;
    std::vector<double> z(static_cast<size_t>(rows.count) * columns);
    std::vector<size_t> winners(static_cast<size_t>(rows.count));
    std::vector<double> scores(rows_);
    for (int64_t r = 0; r < rows.count; ++r) {
      for (size_t c = 0; c < rows_; ++c)
        scores[c] =
            Dot(rows.Row(r), coefficients_.data() + c * static_cast<size_t>(features), features) +
            (intercepts_.empty() ? 0.0 : intercepts_[c]);
      double* out = z.data() + static_cast<size_t>(r) * columns;
      if (rows_ == 1 && labels_ == 2) {
        const double s = scores[0];
        winners[static_cast<size_t>(r)] = s > 0 ? 1 : 0;
        if (transform_ == PostTransform::kLogistic) {
          out[0] = Logistic(-s);
          out[1] = Logistic(s);
        } else if (transform_ == PostTransform::kProbit) {
          out[0] = Probit(1 - s);
          out[1] = Probit(s);
        } else {
          out[0] = 1 - s;
          out[1] = s;
        }
        continue;
      }
      winners[static_cast<size_t>(r)] =
          static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
      Transform(transform_, scores.data(), rows_);
      std::copy(scores.begin(), scores.end(), out);
    }
    Tensor& labels =
        context.Output(0, TensorShape({rows.count}), int_labels_.empty() ? E::kString : E::kInt64);
    for (int64_t r = 0; r < rows.count; ++r) {
      const size_t w = winners[static_cast<size_t>(r)];
      if (int_labels_.empty())
        labels.MutableData<std::string>()[r] = string_labels_[w];
      else
        labels.MutableData<int64_t>()[r] = int_labels_[w];
    }
    WriteFloats(
        z, context.Output(1, TensorShape({rows.count, static_cast<int64_t>(columns)}), E::kFloat));
  }

 private:
  std::vector<float> coefficients_, intercepts_;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  size_t labels_ = 0, rows_ = 0;
  PostTransform transform_;
};

enum class Kernel { kLinear, kPoly, kRbf, kSigmoid };

// The SVM kernel's parameters and K(a, b).
struct SvmKernel {
  Kernel type = Kernel::kLinear;
  double gamma = 0, coef0 = 0, degree = 0;

  static SvmKernel Read(const OpKernelInfo& info) {
    SvmKernel k;
    const std::string name = info.StringOr("kernel_type", "LINEAR");
    if (name == "LINEAR")
      k.type = Kernel::kLinear;
    else if (name == "POLY")
      k.type = Kernel::kPoly;
    else if (name == "RBF")
      k.type = Kernel::kRbf;
    else if (name == "SIGMOID")
      k.type = Kernel::kSigmoid;
    else
      PRISM_THROW(kInvalidArgument, info.GetNode().Describe(),
                  ": attribute 'kernel_type' must be LINEAR, POLY, RBF or SIGMOID, got '", name,
                  "'");
    if (info.HasAttr("kernel_params")) {
      const std::vector<float> params = info.Floats("kernel_params");
      PRISM_ENFORCE(params.size() == 3, kInvalidArgument, info.GetNode().Describe(),
                    ": attribute 'kernel_params' must be [gamma, coef0, degree], got ",
                    params.size(), " values");
      k.gamma = params[0];
      k.coef0 = params[1];
      k.degree = std::trunc(params[2]);
    }
    return k;
  }

  double operator()(const double* a, const float* b, int64_t n) const {
    switch (type) {
      case Kernel::kLinear:
        return Dot(a, b, n);
      case Kernel::kPoly:
        return std::pow(Dot(a, b, n) * gamma + coef0, degree);
      case Kernel::kSigmoid:
        return std::tanh(Dot(a, b, n) * gamma + coef0);
      case Kernel::kRbf: {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double d = a[i] - static_cast<double>(b[i]);
          sum += d * d;
        }
        return std::exp(-gamma * sum);
      }
    }
    return 0;
  }
};

// SVMRegressor: sum_j coefficients[j] K(x, sv_j) + rho (or x . coefficients + rho without support
// vectors); one_class gives +1 / -1.
class SVMRegressor final : public OpKernel {
 public:
  explicit SVMRegressor(const OpKernelInfo& info)
      : OpKernel(info),
        kernel_(SvmKernel::Read(info)),
        coefficients_(info.Floats("coefficients")),
        supports_(info.IntOr("n_supports", 0)),
        one_class_(info.IntOr("one_class", 0) != 0),
        transform_(ReadPostTransform(info)) {
    const Node& node = info.GetNode();
    const std::vector<float> rho = info.Floats("rho");
    PRISM_ENFORCE(rho.size() == 1, kInvalidArgument, node.Describe(),
                  ": attribute 'rho' must have 1 value, got ", rho.size());
    rho_ = rho[0];
    PRISM_ENFORCE(supports_ >= 0, kInvalidArgument, node.Describe(),
                  ": attribute 'n_supports' must be >= 0, got ", supports_);
    if (supports_ > 0) {
      support_vectors_ = info.Floats("support_vectors");
      PRISM_ENFORCE(coefficients_.size() == static_cast<size_t>(supports_) &&
                        support_vectors_.size() % static_cast<size_t>(supports_) == 0,
                    kInvalidArgument, node.Describe(), ": ", supports_,
                    " support vectors need as many coefficients (got ", coefficients_.size(),
                    ") and support_vectors of n_supports rows (got ", support_vectors_.size(),
                    " values)");
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Rows rows = ReadRows(node, context.RequiredInput(0));
    const int64_t features = supports_ > 0
                                 ? static_cast<int64_t>(support_vectors_.size()) / supports_
                                 : static_cast<int64_t>(coefficients_.size());
    PRISM_ENFORCE(rows.length == features, kInvalidArgument, node.Describe(), ": input X has ",
                  rows.length, " features, the model ", features);
    std::vector<double> out(static_cast<size_t>(rows.count));
    for (int64_t r = 0; r < rows.count; ++r) {
      double s = 0;
      if (supports_ > 0) {
        for (int64_t j = 0; j < supports_; ++j)
          s += coefficients_[static_cast<size_t>(j)] *
               kernel_(rows.Row(r), support_vectors_.data() + j * features, features);
      } else {
        s = Dot(rows.Row(r), coefficients_.data(), features);  // no support vectors: linear
      }
      s += rho_;
      if (one_class_) s = s > 0 ? 1 : -1;
      Transform(transform_, &s, 1);
      out[static_cast<size_t>(r)] = s;
    }
    WriteFloats(out, context.Output(0, TensorShape({rows.count, 1}), E::kFloat));
  }

 private:
  SvmKernel kernel_;
  std::vector<float> coefficients_, support_vectors_;
  int64_t supports_;
  bool one_class_;
  double rho_ = 0;
  PostTransform transform_;
};

// libsvm's pairwise coupling: class probabilities from the pairwise ones r[i][j] (r[i][j] +
// r[j][i] = 1), by the fixed-point iteration of Wu, Lin and Weng (2004), as onnxruntime.
std::vector<double> CoupledProbabilities(size_t k, const std::vector<double>& r) {
  std::vector<double> q(k * k), qp(k), p(k, 1.0 / static_cast<double>(k));
  for (size_t t = 0; t < k; ++t) {
    q[t * k + t] = 0;
    for (size_t j = 0; j < t; ++j) {
      q[t * k + t] += r[j * k + t] * r[j * k + t];
      q[t * k + j] = q[j * k + t];
    }
    for (size_t j = t + 1; j < k; ++j) {
      q[t * k + t] += r[j * k + t] * r[j * k + t];
      q[t * k + j] = -r[j * k + t] * r[t * k + j];
    }
  }
  const double eps = 0.005 / static_cast<double>(k);
  for (size_t iteration = 0; iteration < std::max<size_t>(100, k); ++iteration) {
    double pqp = 0;
    for (size_t t = 0; t < k; ++t) {
      qp[t] = 0;
      for (size_t j = 0; j < k; ++j) qp[t] += q[t * k + j] * p[j];
      pqp += p[t] * qp[t];
    }
    double max_error = 0;
    for (size_t t = 0; t < k; ++t) max_error = std::max(max_error, std::abs(qp[t] - pqp));
    if (max_error < eps) break;
    for (size_t t = 0; t < k; ++t) {
      const double diff = (-qp[t] + pqp) / q[t * k + t];
      p[t] += diff;
      pqp = (pqp + diff * (diff * q[t * k + t] + 2 * qp[t])) / (1 + diff) / (1 + diff);
      for (size_t j = 0; j < k; ++j) {
        qp[j] = (qp[j] + diff * q[t * k + j]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
  return p;
}

// SVMClassifier. With support vectors (vectors_per_class), one-vs-one: each class pair (i, j)
// scores rho[pair] + the kernel sums of both classes' vectors, and votes for i when above 0; the
// label is the most voted class, the scores are the pair scores (two classes: [-s, s]; LOGISTIC
// [logistic(-s), logistic(s)]; SOFTMAX and SOFTMAX_ZERO [1 - s, s], as onnxruntime), or
// with prob_a / prob_b the class probabilities (Platt scaling, pairwise coupling). Without
// support vectors, a linear model: one score x . coefficients[c] + rho[0] per class.
class SVMClassifier final : public OpKernel {
 public:
  explicit SVMClassifier(const OpKernelInfo& info)
      : OpKernel(info),
        kernel_(SvmKernel::Read(info)),
        coefficients_(info.Floats("coefficients")),
        rho_(info.Floats("rho")),
        transform_(ReadPostTransform(info)) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(info.HasAttr("classlabels_ints") != info.HasAttr("classlabels_strings"),
                  kInvalidArgument, node.Describe(),
                  ": exactly one of 'classlabels_ints' and 'classlabels_strings' must be set");
    if (info.HasAttr("classlabels_ints"))
      int_labels_ = info.Ints("classlabels_ints");
    else
      string_labels_ = info.Strings("classlabels_strings");
    classes_ = std::max(int_labels_.size(), string_labels_.size());
    PRISM_ENFORCE(classes_ >= 2, kInvalidArgument, node.Describe(),
                  ": the class labels must name at least 2 classes, got ", classes_);
    const std::vector<int64_t> per_class = info.IntsOr("vectors_per_class", {});
    for (int64_t count : per_class) {
      PRISM_ENFORCE(count >= 0, kInvalidArgument, node.Describe(),
                    ": attribute 'vectors_per_class' must be >= 0, got ", count);
      starts_.push_back(vectors_);
      vectors_ += count;
    }
    counts_ = per_class;
    const size_t pairs = classes_ * (classes_ - 1) / 2;
    if (vectors_ > 0) {
      PRISM_ENFORCE(per_class.size() == classes_, kInvalidArgument, node.Describe(),
                    ": attribute 'vectors_per_class' must have one count per class (", classes_,
                    "), got ", per_class.size());
      support_vectors_ = info.Floats("support_vectors");
      PRISM_ENFORCE(support_vectors_.size() % static_cast<size_t>(vectors_) == 0 &&
                        coefficients_.size() == (classes_ - 1) * static_cast<size_t>(vectors_) &&
                        rho_.size() == pairs,
                    kInvalidArgument, node.Describe(), ": ", vectors_, " support vectors of ",
                    classes_, " classes need (classes - 1) * vectors coefficients (got ",
                    coefficients_.size(), "), ", pairs, " rho values (got ", rho_.size(),
                    ") and support_vectors of whole rows (got ", support_vectors_.size(),
                    " values)");
      features_ = static_cast<int64_t>(support_vectors_.size()) / vectors_;
      if (info.HasAttr("prob_a")) {
        prob_a_ = info.Floats("prob_a");
        prob_b_ = info.HasAttr("prob_b") ? info.Floats("prob_b") : std::vector<float>{};
        PRISM_ENFORCE(prob_a_.size() == pairs && prob_b_.size() == pairs, kInvalidArgument,
                      node.Describe(),
                      ": attributes 'prob_a' and 'prob_b' must have one value "
                      "per class pair (",
                      pairs, "), got ", prob_a_.size(), " and ", prob_b_.size());
      }
    } else {
      PRISM_ENFORCE(coefficients_.size() % classes_ == 0 && !rho_.empty(), kInvalidArgument,
                    node.Describe(), ": a linear SVM needs one coefficient row per class (",
                    classes_, " rows, got ", coefficients_.size(), " values) and rho");
      features_ = static_cast<int64_t>(coefficients_.size() / classes_);
    }
    weights_positive_ =
        std::all_of(coefficients_.begin(), coefficients_.end(), [](float c) { return c >= 0; });
  }

  // Score columns: class pairs (2 for two classes) without probabilities, else classes.
  size_t ScoreColumns() const {
    if (vectors_ > 0 && prob_a_.empty()) return classes_ > 2 ? classes_ * (classes_ - 1) / 2 : 2;
    return classes_;
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Rows rows = ReadRows(node, context.RequiredInput(0));
    PRISM_ENFORCE(rows.length == features_, kInvalidArgument, node.Describe(), ": input X has ",
                  rows.length, " features, the model ", features_);
    const size_t columns = ScoreColumns();
    std::vector<double> z(static_cast<size_t>(rows.count) * columns);
    std::vector<size_t> winners(static_cast<size_t>(rows.count));
    for (int64_t r = 0; r < rows.count; ++r)
      winners[static_cast<size_t>(r)] =
          ScoreRow(rows.Row(r), z.data() + static_cast<size_t>(r) * columns);
    Tensor& labels =
        context.Output(0, TensorShape({rows.count}), int_labels_.empty() ? E::kString : E::kInt64);
    for (int64_t r = 0; r < rows.count; ++r) {
      const size_t w = winners[static_cast<size_t>(r)];
      if (int_labels_.empty())
        labels.MutableData<std::string>()[r] = string_labels_[w];
      else
        labels.MutableData<int64_t>()[r] = int_labels_[w];
    }
    WriteFloats(
        z, context.Output(1, TensorShape({rows.count, static_cast<int64_t>(columns)}), E::kFloat));
  }

 private:
  // Writes the row's scores to `out` and returns the winning class.
  size_t ScoreRow(const double* x, double* out) const {
    std::vector<double> scores;
    std::vector<int64_t> votes;
    if (vectors_ == 0) {
      for (size_t c = 0; c < classes_; ++c)
        scores.push_back(rho_[0] + Dot(x, coefficients_.data() + c * features_, features_));
    } else {
      std::vector<double> k(static_cast<size_t>(vectors_));
      for (int64_t v = 0; v < vectors_; ++v)
        k[static_cast<size_t>(v)] = kernel_(x, support_vectors_.data() + v * features_, features_);
      votes.assign(classes_, 0);
      size_t pair = 0;
      for (size_t i = 0; i < classes_; ++i) {
        for (size_t j = i + 1; j < classes_; ++j, ++pair) {
          // Class i's vectors weigh with coefficient row j - 1, class j's with row i.
          double s = rho_[pair];
          for (int64_t v = 0; v < counts_[i]; ++v)
            s += coefficients_[(j - 1) * vectors_ + starts_[i] + v] * k[starts_[i] + v];
          for (int64_t v = 0; v < counts_[j]; ++v)
            s += coefficients_[i * vectors_ + starts_[j] + v] * k[starts_[j] + v];
          scores.push_back(s);
          ++votes[s > 0 ? i : j];
        }
      }
    }
    const bool probabilities = vectors_ > 0 && !prob_a_.empty();
    if (probabilities) {
      // Platt: P(i beats j) = 1 - logistic(s * A + B), clipped away from 0 and 1.
      std::vector<double> pairwise(classes_ * classes_, 0.0);
      size_t pair = 0;
      for (size_t i = 0; i < classes_; ++i)
        for (size_t j = i + 1; j < classes_; ++j, ++pair) {
          double p = 1 - Logistic(scores[pair] * prob_a_[pair] + prob_b_[pair]);
          p = std::min(std::max(p, 1e-7), 1 - 1e-7);
          pairwise[i * classes_ + j] = p;
          pairwise[j * classes_ + i] = 1 - p;
        }
      scores = CoupledProbabilities(classes_, pairwise);
    }
    // The label: the most voted class (probabilities or not, as onnxruntime); the highest
    // score for a linear model.
    size_t winner =
        votes.empty()
            ? static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin())
            : static_cast<size_t>(std::max_element(votes.begin(), votes.end()) - votes.begin());
    // A linear model of two classes picks the second label when the top score is above 0 (0.5
    // when no coefficient is negative), else the top class (onnxruntime).
    if (votes.empty() && classes_ == 2 &&
        (weights_positive_ ? scores[winner] >= 0.5 : scores[winner] > 0))
      winner = 1;
    // Two classes, one pair score without probabilities: [-s, s].
    if (scores.size() == 1) {
      const double s = scores[0];
      if (transform_ == PostTransform::kLogistic) {
        out[0] = Logistic(-s);
        out[1] = Logistic(s);
      } else if (transform_ == PostTransform::kProbit) {
        out[0] = Probit(1 - s);
        out[1] = Probit(s);
      } else {
        // NONE: margins [-s, s]; SOFTMAX / SOFTMAX_ZERO: [1 - s, s] (onnxruntime's outputs).
        out[0] = transform_ == PostTransform::kNone ? -s : 1 - s;
        out[1] = s;
      }
    } else {
      Transform(transform_, scores.data(), scores.size());
      std::copy(scores.begin(), scores.end(), out);
    }
    return winner;
  }

  SvmKernel kernel_;
  std::vector<float> coefficients_, rho_, support_vectors_, prob_a_, prob_b_;
  std::vector<int64_t> int_labels_, counts_, starts_;
  std::vector<std::string> string_labels_;
  size_t classes_ = 0;
  int64_t vectors_ = 0, features_ = 0;
  bool weights_positive_ = true;
  PostTransform transform_;
};

void RegisterLinearModelKernels(KernelRegistry& registry) {
  auto ml = [](const char* op) {
    return std::move(KernelDefBuilder(op).Domain("ai.onnx.ml").Versions(1));
  };
  registry.Register(ml("LinearRegressor").Constraint("T", kFeatureTypes, {0}).Build(),
                    MakeKernelFactory<LinearRegressor>());
  registry.Register(ml("LinearClassifier")
                        .Constraint("T1", kFeatureTypes, {0})
                        .Constraint("T2", {E::kString, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<LinearClassifier>());
  registry.Register(ml("SVMRegressor").Constraint("T", kFeatureTypes, {0}).Build(),
                    MakeKernelFactory<SVMRegressor>());
  registry.Register(ml("SVMClassifier")
                        .Constraint("T1", kFeatureTypes, {0})
                        .Constraint("T2", {E::kString, E::kInt64}, {}, {0})
                        .Build(),
                    MakeKernelFactory<SVMClassifier>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(ml_linear_models, RegisterLinearModelKernels);

}  // namespace prism::cpu

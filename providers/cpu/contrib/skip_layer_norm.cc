// Normalizations of the com.microsoft fusions (version 1):
//   SkipLayerNormalization(input, skip, gamma, beta?, bias?): s = input + skip + bias, then
//     LayerNormalization of s over the last axis; outputs output, mean, inv_std_var (both
//     [.., 1], float) and input_skip_bias_sum (s). epsilon defaults to 1e-12.
//   SkipSimplifiedLayerNormalization(input, skip, gamma, bias?): the same with RMS normalization
//     (s / sqrt(mean(s^2) + epsilon) * gamma); its mean output is written as zeros.
//   SimplifiedLayerNormalization(X, scale) (onnxruntime registers it in the ONNX domain, version
//     1; Prism also accepts it in com.microsoft): RMS normalization over the axes [axis, rank),
//     scale broadcast to X; Y has the scale's type, inv_std_var is float with X's shape and 1 on
//     the normalized axes. epsilon defaults to 1e-5; only stash_type 1 (float) is supported.
// input is [B, S, H] or [T, H]; skip has input's shape or [1, S, H] / [S, H] (shared by every
// batch entry); gamma, beta and bias are [H]. Sums and statistics are accumulated in double, the
// half types widen to float; float sums its statistics in eight float lanes per row, combined in
// double; rows are split over the intra-op pool.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {
namespace {

using NormTypes = TypeList<float, double, Float16, BFloat16>;

struct SkipNormJob {
  const Tensor* input;
  const Tensor* skip;
  const Tensor* gamma;
  const Tensor* beta;  // nullptr: none (always for the simplified form)
  const Tensor* bias;  // nullptr: none
  Tensor* output;
  float* mean;         // nullptr: not requested
  float* inv_std_var;  // nullptr: not requested
  Tensor* sum;         // nullptr: not requested
  int64_t rows;
  int64_t hidden;
  int64_t skip_rows;  // skip row of input row r: r % skip_rows
  double epsilon;
  bool simplified;
  ThreadPool* pool;
};

// The sum of count floats, in eight independent lanes (vectorizable without reassociating a
// single chain) combined in double.
double LaneSum(const float* values, int64_t count) {
  float lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    for (int l = 0; l < 8; ++l) lanes[l] += values[i + l];
  double total = 0;
  for (float lane : lanes) total += lane;
  for (; i < count; ++i) total += values[i];
  return total;
}

// The sum of (values - mean)^2 over count floats, the same way.
double LaneSquares(const float* values, int64_t count, float mean) {
  float lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    for (int l = 0; l < 8; ++l) {
      const float d = values[i + l] - mean;
      lanes[l] += d * d;
    }
  double total = 0;
  for (float lane : lanes) total += lane;
  for (; i < count; ++i) {
    const double d = static_cast<double>(values[i]) - mean;
    total += d * d;
  }
  return total;
}

// float: the sum goes into the output row and is normalized there, in loops the compiler
// vectorizes; the statistics sum in eight float lanes per row, combined in double.
void SkipNormFloat(const SkipNormJob& job) {
  const float* gamma = job.gamma->Data<float>();
  const float* beta = job.beta != nullptr ? job.beta->Data<float>() : nullptr;
  const float* bias = job.bias != nullptr ? job.bias->Data<float>() : nullptr;
  const float* input = job.input->Data<float>();
  const float* skip = job.skip->Data<float>();
  float* output = job.output->MutableData<float>();
  float* sum_out = job.sum != nullptr ? job.sum->MutableData<float>() : nullptr;
  const int64_t hidden = job.hidden;
  ThreadPool::TryParallelFor(
      job.pool, job.rows, 6.0 * static_cast<double>(hidden), [&](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
          const float* in_row = input + r * hidden;
          const float* skip_row = skip + (r % job.skip_rows) * hidden;
          float* row = output + r * hidden;
          for (int64_t c = 0; c < hidden; ++c) row[c] = in_row[c] + skip_row[c];
          if (bias != nullptr)
            for (int64_t c = 0; c < hidden; ++c) row[c] += bias[c];
          if (sum_out != nullptr) std::copy_n(row, hidden, sum_out + r * hidden);
          const double mean =
              job.simplified ? 0.0 : LaneSum(row, hidden) / static_cast<double>(hidden);
          const double squares = LaneSquares(row, hidden, static_cast<float>(mean));
          const double inv_std =
              1.0 / std::sqrt(squares / static_cast<double>(hidden) + job.epsilon);
          const float mean_f = static_cast<float>(mean), inv_f = static_cast<float>(inv_std);
          if (beta == nullptr) {
            for (int64_t c = 0; c < hidden; ++c) row[c] = (row[c] - mean_f) * inv_f * gamma[c];
          } else {
            for (int64_t c = 0; c < hidden; ++c)
              row[c] = (row[c] - mean_f) * inv_f * gamma[c] + beta[c];
          }
          if (job.mean != nullptr) job.mean[r] = mean_f;
          if (job.inv_std_var != nullptr) job.inv_std_var[r] = static_cast<float>(inv_std);
        }
      });
}

template <typename T>
struct SkipNormImpl {
  void operator()(const SkipNormJob& job) const {
    if constexpr (std::is_same_v<T, float>) {
      SkipNormFloat(job);
      return;
    }
    using C = FloatComputeTypeOf<T>;
    const std::vector<C> gamma = Widen<T>(*job.gamma);
    const std::vector<C> beta = job.beta != nullptr ? Widen<T>(*job.beta) : std::vector<C>();
    const std::vector<C> bias = job.bias != nullptr ? Widen<T>(*job.bias) : std::vector<C>();
    const T* input = job.input->Data<T>();
    const T* skip = job.skip->Data<T>();
    T* output = job.output->MutableData<T>();
    T* sum_out = job.sum != nullptr ? job.sum->MutableData<T>() : nullptr;
    const int64_t hidden = job.hidden;
    ThreadPool::TryParallelFor(
        job.pool, job.rows, 10.0 * static_cast<double>(hidden), [&](int64_t first, int64_t last) {
          std::vector<C> sum(static_cast<size_t>(hidden));
          for (int64_t r = first; r < last; ++r) {
            const T* in_row = input + r * hidden;
            const T* skip_row = skip + (r % job.skip_rows) * hidden;
            for (int64_t c = 0; c < hidden; ++c)
              sum[c] =
                  static_cast<C>(ToCompute(in_row[c])) + static_cast<C>(ToCompute(skip_row[c]));
            if (!bias.empty())
              for (int64_t c = 0; c < hidden; ++c) sum[c] += bias[c];
            if (sum_out != nullptr)
              for (int64_t c = 0; c < hidden; ++c) sum_out[r * hidden + c] = FromCompute<T>(sum[c]);
            double mean = 0;
            if (!job.simplified) {
              for (int64_t c = 0; c < hidden; ++c) mean += sum[c];
              mean /= static_cast<double>(hidden);
            }
            double squares = 0;
            for (int64_t c = 0; c < hidden; ++c) {
              const double d = static_cast<double>(sum[c]) - mean;
              squares += d * d;
            }
            const double inv_std =
                1.0 / std::sqrt(squares / static_cast<double>(hidden) + job.epsilon);
            const C mean_c = static_cast<C>(mean), inv_c = static_cast<C>(inv_std);
            T* out_row = output + r * hidden;
            if (beta.empty()) {
              for (int64_t c = 0; c < hidden; ++c)
                out_row[c] = FromCompute<T>((sum[c] - mean_c) * inv_c * gamma[c]);
            } else {
              for (int64_t c = 0; c < hidden; ++c)
                out_row[c] = FromCompute<T>((sum[c] - mean_c) * inv_c * gamma[c] + beta[c]);
            }
            if (job.mean != nullptr) job.mean[r] = static_cast<float>(mean);
            if (job.inv_std_var != nullptr) job.inv_std_var[r] = static_cast<float>(inv_std);
          }
        });
  }
};

// SkipLayerNormalization (simplified = false) and SkipSimplifiedLayerNormalization.
template <bool kSimplified>
class SkipNormalization final : public OpKernel {
 public:
  explicit SkipNormalization(const OpKernelInfo& info)
      : OpKernel(info), epsilon_(info.FloatOr("epsilon", 1e-12f)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const std::string where = node.Describe();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& skip = context.RequiredInput(1);
    const Tensor& gamma = context.RequiredInput(2);
    const Tensor* beta = kSimplified ? nullptr : context.Input(3);
    const Tensor* bias = context.Input(kSimplified ? 3 : 4);
    const TensorShape& shape = input.Shape();
    PRISM_ENFORCE(shape.Rank() == 2 || shape.Rank() == 3, kInvalidArgument, where,
                  ": input 0 (input) must be 3-D [batch, sequence, hidden] or 2-D [tokens, "
                  "hidden], got ",
                  shape.ToString());
    const int64_t hidden = shape[shape.Rank() - 1];
    const int64_t rows = shape.SizeToDimension(shape.Rank() - 1);
    // skip: input's shape, or one [S, H] block shared by the batch ([1, S, H] or [S, H]).
    const TensorShape& skip_shape = skip.Shape();
    int64_t skip_rows = rows;
    if (skip_shape != shape) {
      const bool shared =
          shape.Rank() == 3 &&
          ((skip_shape.Rank() == 3 && skip_shape[0] == 1 && skip_shape[1] == shape[1] &&
            skip_shape[2] == hidden) ||
           (skip_shape.Rank() == 2 && skip_shape[0] == shape[1] && skip_shape[1] == hidden));
      PRISM_ENFORCE(shared, kInvalidArgument, where, ": input 1 (skip) must have input's shape ",
                    shape.ToString(), " or be [1, S, H] / [S, H] for a 3-D input, got ",
                    skip_shape.ToString());
      skip_rows = shape[1];
    }
    EnforceChannelVector(node, gamma, "input 2 (gamma)", hidden, shape);
    if (beta != nullptr) EnforceChannelVector(node, *beta, "input 3 (beta)", hidden, shape);
    if (bias != nullptr)
      EnforceChannelVector(node, *bias, kSimplified ? "input 3 (bias)" : "input 4 (bias)", hidden,
                           shape);
    for (const Tensor* t : {&skip, &gamma, beta, bias})
      PRISM_ENFORCE(t == nullptr || t->Type() == input.Type(), kInvalidArgument, where,
                    ": every input must have input's type ", ElementTypeName(input.Type()),
                    ", got ", t->Describe());

    Tensor& output = context.Output(0, shape, input.Type());
    std::vector<int64_t> stats_dims = shape.Dims();
    stats_dims.back() = 1;
    const auto stats = [&](size_t index) -> float* {
      if (index >= context.OutputCount() || !context.IsOutputRequested(index)) return nullptr;
      Tensor& t = context.Output(index, TensorShape(stats_dims), ElementType::kFloat);
      float* data = t.MutableData<float>();
      std::fill(data, data + t.NumElements(), 0.0f);
      return data;
    };
    float* mean = stats(1);
    float* inv_std_var = stats(2);
    Tensor* sum = context.OutputCount() > 3 && context.IsOutputRequested(3)
                      ? &context.Output(3, shape, input.Type())
                      : nullptr;
    if (output.NumElements() == 0) return;
    const SkipNormJob job{&input,
                          &skip,
                          &gamma,
                          beta,
                          bias,
                          &output,
                          kSimplified ? nullptr : mean,  // the simplified form leaves zeros
                          inv_std_var,
                          sum,
                          rows,
                          hidden,
                          skip_rows,
                          static_cast<double>(epsilon_),
                          kSimplified,
                          context.IntraOpThreadPool()};
    DispatchByType<SkipNormImpl, NormTypes>(input.Type(), node.OpType(), job);
  }

 private:
  float epsilon_;
};

// Offsets of the multi-indices of dims[begin, end) against strides, row major.
std::vector<int64_t> OffsetsOver(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& strides, size_t begin, size_t end) {
  int64_t count = 1;
  for (size_t i = begin; i < end; ++i) count *= dims[i];
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(end - begin, 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < count; ++n) {
    offsets[n] = offset;
    for (size_t k = end - begin; k-- > 0;) {
      offset += strides[begin + k];
      if (++index[k] < dims[begin + k]) break;
      offset -= strides[begin + k] * dims[begin + k];
      index[k] = 0;
    }
  }
  return offsets;
}

template <typename T>
struct ReadDoubles {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(data[i]);
  }
};

template <typename T>
struct WriteDoubles {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = FromCompute<T>(values[i]);
  }
};

class SimplifiedLayerNormalization final : public OpKernel {
 public:
  explicit SimplifiedLayerNormalization(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", -1)), epsilon_(info.FloatOr("epsilon", 1e-5f)) {
    const int64_t stash_type = info.IntOr("stash_type", 1);
    PRISM_ENFORCE(stash_type == 1, kNotImplemented, info.GetNode().Describe(),
                  ": attribute stash_type ", stash_type,
                  " is not supported (only 1, float statistics)");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(),
                  ": attribute axis ", axis_, " is out of range [", -rank, ", ", rank,
                  ") for input 0 (X) of shape ", shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    // scale broadcasts to X (numpy rules, aligned on the trailing axes).
    const TensorShape& scale_shape = scale.Shape();
    PRISM_ENFORCE(scale_shape.Rank() <= shape.Rank(), kInvalidArgument, node.Describe(),
                  ": input 1 (scale) of shape ", scale_shape.ToString(),
                  " cannot be broadcast to X of shape ", shape.ToString());
    std::vector<int64_t> strides(shape.Rank(), 0);
    int64_t stride = 1;
    for (size_t k = 0; k < scale_shape.Rank(); ++k) {
      const size_t s_axis = scale_shape.Rank() - 1 - k, x_axis = shape.Rank() - 1 - k;
      const int64_t dim = scale_shape[s_axis];
      PRISM_ENFORCE(dim == shape[x_axis] || dim == 1, kInvalidArgument, node.Describe(),
                    ": input 1 (scale) of shape ", scale_shape.ToString(),
                    " cannot be broadcast to X of shape ", shape.ToString(), " (dim ", dim,
                    " against ", shape[x_axis], ")");
      strides[x_axis] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
    const std::vector<int64_t> row_offsets = OffsetsOver(shape.Dims(), strides, 0, axis);
    const std::vector<int64_t> col_offsets = OffsetsOver(shape.Dims(), strides, axis, shape.Rank());
    std::vector<double> x_values, scale_values;
    DispatchByType<ReadDoubles, NormTypes>(x.Type(), node.OpType(), x, x_values);
    DispatchByType<ReadDoubles, NormTypes>(scale.Type(), node.OpType(), scale, scale_values);

    const int64_t rows = shape.SizeToDimension(axis);
    const int64_t cols = shape.SizeFromDimension(axis);
    std::vector<double> y_values(x_values.size());
    std::vector<double> inv_std_var(static_cast<size_t>(rows));
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), rows, 6.0 * static_cast<double>(cols),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const double* row = x_values.data() + r * cols;
            double squares = 0;
            for (int64_t c = 0; c < cols; ++c) squares += row[c] * row[c];
            // The statistic is stashed as float (stash_type 1) before it scales the row.
            const double inv =
                static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(cols) + epsilon_));
            inv_std_var[r] = inv;
            const double* scale_row = scale_values.data() + row_offsets[r];
            for (int64_t c = 0; c < cols; ++c)
              y_values[r * cols + c] = row[c] * inv * scale_row[col_offsets[c]];
          }
        });
    Tensor& y = context.Output(0, shape, scale.Type());
    DispatchByType<WriteDoubles, NormTypes>(scale.Type(), node.OpType(), y_values, y);
    if (context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      std::vector<int64_t> stats_dims = shape.Dims();
      for (size_t i = axis; i < stats_dims.size(); ++i) stats_dims[i] = 1;
      Tensor& stats = context.Output(1, TensorShape(stats_dims), ElementType::kFloat);
      WriteDoubles<float>{}(inv_std_var, stats);
    }
  }

 private:
  int64_t axis_;
  double epsilon_;
};

void RegisterSkipLayerNormKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat, E::kDouble, E::kFloat16, E::kBFloat16};
  registry.Register(KernelDefBuilder("SkipLayerNormalization")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", floats, {0, 1, 2, 3, 4}, {0, 3})
                        .Build(),
                    MakeKernelFactory<SkipNormalization<false>>());
  registry.Register(KernelDefBuilder("SkipSimplifiedLayerNormalization")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", floats, {0, 1, 2, 3}, {0, 3})
                        .Build(),
                    MakeKernelFactory<SkipNormalization<true>>());
  for (const char* domain : {"", kMsDomain})
    registry.Register(KernelDefBuilder("SimplifiedLayerNormalization")
                          .Domain(domain)
                          .Versions(1)
                          .Constraint("T", floats, {0})
                          .Constraint("V", floats, {1}, {0})
                          .Build(),
                      MakeKernelFactory<SimplifiedLayerNormalization>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_skip_layer_norm, RegisterSkipLayerNormKernels);

}  // namespace prism::cpu::contrib

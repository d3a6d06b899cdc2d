// Normalization over the trailing axes [axis, rank) of X.
// LayerNormalization (opset 17): standardizes X, then applies Scale and the optional B, both
// unidirectionally broadcast to X; the optional Mean and InvStdDev outputs have X's shape with 1
// on the normalized axes. RMSNormalization (opset 23): divides X by the root mean square,
// sqrt(mean(X^2) + epsilon), then applies Scale; Y has Scale's type (V).
// Statistics are accumulated in double (at least the stash_type precision).
#include <climits>
#include <cmath>
#include <utility>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

// Offsets of a parameter broadcast to X, split as row part (axes < axis) plus column part
// (axes >= axis): the offset of element (r, c) of X seen as [rows, cols] is
// row_offsets[r] + col_offsets[c].
struct BroadcastOffsets {
  std::vector<int64_t> row_offsets;
  std::vector<int64_t> col_offsets;
};

// Offsets of the multi-indices of dims[begin, end) against the given strides, row major.
std::vector<int64_t> OffsetsOver(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& strides, size_t begin, size_t end) {
  int64_t count = 1;
  for (size_t i = begin; i < end; ++i) count *= dims[i];
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(end - begin, 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < count; ++n) {
    offsets[n] = offset;
    for (size_t k = end - begin; k-- > 0;) {  // odometer, updating the offset incrementally
      const size_t axis = begin + k;
      offset += strides[axis];
      if (++index[k] < dims[axis]) break;
      offset -= strides[axis] * dims[axis];
      index[k] = 0;
    }
  }
  return offsets;
}

BroadcastOffsets BroadcastTo(const TensorShape& param, const TensorShape& x, size_t axis,
                             const char* name, const Node& node) {
  const size_t rank = x.Rank();
  PRISM_ENFORCE(param.Rank() <= rank, kInvalidArgument, node.Describe(), ": ", name, " of shape ",
                param.ToString(), " cannot be broadcast to X of shape ", x.ToString(), " (rank ",
                param.Rank(), " > ", rank, ")");
  // Strides of param aligned to X's trailing axes; 0 where param has 1 (or lacks the axis).
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < param.Rank(); ++k) {
    const size_t p_axis = param.Rank() - 1 - k;
    const size_t x_axis = rank - 1 - k;
    const int64_t dim = param[p_axis];
    PRISM_ENFORCE(dim == x[x_axis] || dim == 1, kInvalidArgument, node.Describe(), ": ", name,
                  " of shape ", param.ToString(), " cannot be broadcast to X of shape ",
                  x.ToString(), " (dim ", dim, " against ", x[x_axis], ")");
    strides[x_axis] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  return {OffsetsOver(x.Dims(), strides, 0, axis), OffsetsOver(x.Dims(), strides, axis, rank)};
}

template <typename T>
struct ReadDoublesImpl {
  void operator()(const Tensor& tensor, std::vector<double>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(data[i]);
  }
};

template <typename T>
struct WriteDoublesImpl {
  void operator()(const std::vector<double>& values, Tensor& tensor) const {
    T* data = tensor.MutableData<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = FromCompute<T>(values[i]);
  }
};

struct LayerNormJob {
  const Tensor* x;
  Tensor* y;
  int64_t rows;
  int64_t cols;
  double epsilon;
  const std::vector<double>* scale;
  const BroadcastOffsets* scale_offsets;
  const std::vector<double>* bias;  // nullptr without B
  const BroadcastOffsets* bias_offsets;
  std::vector<double>* mean;
  std::vector<double>* inv_std_dev;
  ThreadPool* pool;  // rows are split over it (nullptr: this thread)
};

template <typename T>
struct LayerNormImpl {
  void operator()(const LayerNormJob& job) const {
    const T* in = job.x->Data<T>();
    T* out = job.y->MutableData<T>();
    const double count = static_cast<double>(job.cols);
    const double cost = 8.0 * static_cast<double>(job.cols);
    ThreadPool::TryParallelFor(job.pool, job.rows, cost, [&](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const T* row = in + r * job.cols;
        double sum = 0;
        for (int64_t c = 0; c < job.cols; ++c) sum += ToDouble(row[c]);
        const double mean = sum / count;
        double squares = 0;
        for (int64_t c = 0; c < job.cols; ++c) {
          const double d = ToDouble(row[c]) - mean;
          squares += d * d;
        }
        const double inv_std_dev = 1.0 / std::sqrt(squares / count + job.epsilon);
        (*job.mean)[r] = mean;
        (*job.inv_std_dev)[r] = inv_std_dev;
        const int64_t scale_row = job.scale_offsets->row_offsets[r];
        const int64_t bias_row = job.bias != nullptr ? job.bias_offsets->row_offsets[r] : 0;
        for (int64_t c = 0; c < job.cols; ++c) {
          double value = (ToDouble(row[c]) - mean) * inv_std_dev *
                         (*job.scale)[scale_row + job.scale_offsets->col_offsets[c]];
          if (job.bias != nullptr)
            value += (*job.bias)[bias_row + job.bias_offsets->col_offsets[c]];
          out[r * job.cols + c] = FromCompute<T>(value);
        }
      }
    });
  }
};

class LayerNormalization final : public OpKernel {
 public:
  explicit LayerNormalization(const OpKernelInfo& info) : OpKernel(info) {
    axis_ = info.IntOr("axis", -1);
    epsilon_ = info.FloatOr("epsilon", 1e-5f);
    const int64_t stash_type = info.IntOr("stash_type", 1);
    stats_type_ =
        info.OutputType(1) != ElementType::kUndefined ? info.OutputType(1)
        : info.OutputType(2) != ElementType::kUndefined
            ? info.OutputType(2)
            : (stash_type == static_cast<int64_t>(ElementType::kBFloat16) ? ElementType::kBFloat16
                                                                          : ElementType::kFloat);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* bias = context.Input(2);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank, ") for X of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);

    const BroadcastOffsets scale_offsets = BroadcastTo(scale.Shape(), shape, axis, "Scale", node);
    BroadcastOffsets bias_offsets;
    if (bias != nullptr) bias_offsets = BroadcastTo(bias->Shape(), shape, axis, "B", node);
    std::vector<double> scale_values;
    std::vector<double> bias_values;
    DispatchByType<ReadDoublesImpl, FloatTypes>(scale.Type(), node.OpType(), scale, scale_values);
    if (bias != nullptr)
      DispatchByType<ReadDoublesImpl, FloatTypes>(bias->Type(), node.OpType(), *bias, bias_values);

    const int64_t rows = shape.SizeToDimension(axis);
    std::vector<double> mean(static_cast<size_t>(rows));
    std::vector<double> inv_std_dev(static_cast<size_t>(rows));
    Tensor& y = context.Output(0, shape, x.Type());
    const LayerNormJob job{&x,
                           &y,
                           rows,
                           shape.SizeFromDimension(axis),
                           static_cast<double>(epsilon_),
                           &scale_values,
                           &scale_offsets,
                           bias != nullptr ? &bias_values : nullptr,
                           &bias_offsets,
                           &mean,
                           &inv_std_dev,
                           context.IntraOpThreadPool()};
    DispatchByType<LayerNormImpl, FloatTypes>(x.Type(), node.OpType(), job);

    std::vector<int64_t> stats_dims = shape.Dims();
    for (size_t i = axis; i < stats_dims.size(); ++i) stats_dims[i] = 1;
    auto write = [&](size_t index, const std::vector<double>& values) {
      if (index >= context.OutputCount() || !context.IsOutputRequested(index)) return;
      Tensor& out = context.Output(index, TensorShape(stats_dims), stats_type_);
      DispatchByType<WriteDoublesImpl, FloatTypes>(stats_type_, node.OpType(), values, out);
    };
    write(1, mean);
    write(2, inv_std_dev);
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  ElementType stats_type_ = ElementType::kFloat;
};

class RMSNormalization final : public OpKernel {
 public:
  explicit RMSNormalization(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", -1)), epsilon_(info.FloatOr("epsilon", 1e-5f)) {
    const int64_t stash_type = info.IntOr("stash_type", 1);
    PRISM_ENFORCE(stash_type == 1 || stash_type == 11, kInvalidArgument, info.GetNode().Describe(),
                  ": stash_type ", stash_type, " is not float (1) or double (11)");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank, ") for X of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const BroadcastOffsets scale_offsets = BroadcastTo(scale.Shape(), shape, axis, "scale", node);
    std::vector<double> x_values, scale_values;
    DispatchByType<ReadDoublesImpl, FloatTypes>(x.Type(), node.OpType(), x, x_values);
    DispatchByType<ReadDoublesImpl, FloatTypes>(scale.Type(), node.OpType(), scale, scale_values);
    const int64_t rows = shape.SizeToDimension(axis);
    const int64_t cols = shape.SizeFromDimension(axis);
    std::vector<double> y_values(x_values.size());
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), rows, 6.0 * static_cast<double>(cols),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const double* row = x_values.data() + r * cols;
            double squares = 0;
            for (int64_t c = 0; c < cols; ++c) squares += row[c] * row[c];
            const double inverse_rms =
                1.0 / std::sqrt(squares / static_cast<double>(cols) + epsilon_);
            const int64_t scale_row = scale_offsets.row_offsets[r];
            for (int64_t c = 0; c < cols; ++c)
              y_values[r * cols + c] =
                  row[c] * inverse_rms * scale_values[scale_row + scale_offsets.col_offsets[c]];
          }
        });
    Tensor& y = context.Output(0, shape, scale.Type());
    DispatchByType<WriteDoublesImpl, FloatTypes>(scale.Type(), node.OpType(), y_values, y);
  }

 private:
  int64_t axis_;
  double epsilon_;
};

void RegisterLayerNormalizationKernels(KernelRegistry& registry) {
  using E = ElementType;
  // Opsets 1-16 have no LayerNormalization; onnxruntime registers its own there (the op its
  // LayerNormFusion writes into models of those opsets), and so does Prism, for the same reason.
  for (const auto& [since, end] : {std::pair{1, 16}, std::pair{17, INT_MAX}})
    registry.Register(
        KernelDefBuilder("LayerNormalization")
            .Versions(since, end)
            .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0, 1, 2}, {0})
            .Constraint("U", {E::kFloat, E::kBFloat16}, {}, {1, 2})
            .Build(),
        MakeKernelFactory<LayerNormalization>());
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  registry.Register(KernelDefBuilder("RMSNormalization")
                        .Versions(23)
                        .Constraint("T", floats, {0})
                        .Constraint("V", floats, {1}, {0})
                        .Build(),
                    MakeKernelFactory<RMSNormalization>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_layer_norm, RegisterLayerNormalizationKernels);

}  // namespace prism::cpu

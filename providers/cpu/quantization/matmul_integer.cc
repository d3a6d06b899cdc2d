// MatMulInteger (opset 10) and QLinearMatMul (opsets 10 and 21): numpy matmul (batch dims
// broadcast, 1-D operands promoted and dropped) of (a - a_zero_point) and (b - b_zero_point).
// A's zero point (and scale) is a scalar or one per row: 1-D of length M, or [..., M, 1] whose
// batch dims broadcast; B's is a scalar or one per column: 1-D of length N, or [..., 1, N].
//   MatMulInteger: the exact sum as int32 (wrapping in 32 bits, as the spec allows).
//   QLinearMatMul: y = saturate(round_half_even(sum * (a_scale * b_scale / y_scale)) + y_zp),
//                  the multiplier rounded to the scales' type after each step (float before 21),
//                  the product in double; y_scale and y_zero_point are per tensor. float8
//                  operands (21+) are dequantized exactly and the sum is encoded as y's float8
//                  type (round to nearest even, saturating).
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/quantize_common.h"

namespace prism::cpu {
namespace {

using E = ElementType;
using quantization::ElementAsDouble;

// The product's geometry.
struct MatMulGeometry {
  int64_t m = 1;
  int64_t k = 1;
  int64_t n = 1;
  std::vector<int64_t> batch;  // broadcast batch dims of the output
  int64_t batch_count = 1;
  TensorShape output_shape;
};

MatMulGeometry Geometry(const Node& node, const Tensor& a, const Tensor& b) {
  const std::string where = node.Describe();
  std::vector<int64_t> a_dims = a.Shape().Dims();
  std::vector<int64_t> b_dims = b.Shape().Dims();
  PRISM_ENFORCE(!a_dims.empty() && !b_dims.empty(), kInvalidArgument, where,
                ": inputs must have rank 1 or more, got a ", a.Shape().ToString(), " and b ",
                b.Shape().ToString());
  const bool a_vector = a_dims.size() == 1;
  const bool b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  MatMulGeometry g;
  g.m = a_dims[a_dims.size() - 2];
  g.k = a_dims.back();
  g.n = b_dims.back();
  PRISM_ENFORCE(b_dims[b_dims.size() - 2] == g.k, kInvalidArgument, where,
                ": inner dims differ: a ", a.Shape().ToString(), " and b ", b.Shape().ToString());
  const size_t a_batch = a_dims.size() - 2;
  const size_t b_batch = b_dims.size() - 2;
  const size_t rank = std::max(a_batch, b_batch);
  g.batch.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a_batch >= rank ? a_dims[i + a_batch - rank] : 1;
    const int64_t db = i + b_batch >= rank ? b_dims[i + b_batch - rank] : 1;
    PRISM_ENFORCE(da == db || da == 1 || db == 1, kInvalidArgument, where, ": batch dims of a ",
                  a.Shape().ToString(), " and b ", b.Shape().ToString(), " do not broadcast");
    g.batch[i] = da == 1 ? db : da;
    g.batch_count *= g.batch[i];
  }
  std::vector<int64_t> out = g.batch;
  if (!a_vector) out.push_back(g.m);
  if (!b_vector) out.push_back(g.n);
  g.output_shape = TensorShape(out);
  return g;
}

// For each output batch index, the flat batch index into an operand whose batch dims are
// `dims` (right-aligned against the output's, size 1 broadcast).
std::vector<int64_t> BatchIndices(const std::vector<int64_t>& out_batch,
                                  const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : out_batch) count *= d;
  std::vector<int64_t> indices(static_cast<size_t>(count), 0);
  std::vector<int64_t> position(out_batch.size(), 0);
  const size_t offset = out_batch.size() - dims.size();
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t index = 0;
    for (size_t i = 0; i < dims.size(); ++i)
      index = index * dims[i] + (dims[i] == 1 ? 0 : position[i + offset]);
    indices[static_cast<size_t>(flat)] = index;
    for (size_t i = out_batch.size(); i-- > 0;) {
      if (++position[i] < out_batch[i]) break;
      position[i] = 0;
    }
  }
  return indices;
}

// A per-tensor, per-row (A) or per-column (B) parameter (zero point or scale).
class RowOrColumnParameter {
 public:
  // per_row: A's parameter ([..., M, 1] or [M]); else B's ([..., 1, N] or [N]).
  RowOrColumnParameter(const Node& node, const std::string& name, const Tensor* tensor,
                       bool per_row, const MatMulGeometry& g, bool a_or_b_vector)
      : tensor_(tensor) {
    if (tensor == nullptr || tensor->NumElements() == 1) return;
    const std::vector<int64_t>& dims = tensor->Shape().Dims();
    const int64_t length = per_row ? g.m : g.n;
    const char* what = per_row ? "rows of a" : "columns of b";
    bool ok = !a_or_b_vector;
    if (ok && dims.size() == 1) {
      ok = dims[0] == length;
      batch_.assign(g.batch_count, 0);
    } else if (ok && dims.size() >= 2 && dims.size() - 2 <= g.batch.size()) {
      ok = dims[dims.size() - (per_row ? 2 : 1)] == length &&
           dims[dims.size() - (per_row ? 1 : 2)] == 1;
      const std::vector<int64_t> batch_dims(dims.begin(), dims.end() - 2);
      for (size_t i = 0; ok && i < batch_dims.size(); ++i)
        ok = batch_dims[i] == 1 || batch_dims[i] == g.batch[i + g.batch.size() - batch_dims.size()];
      if (ok) batch_ = BatchIndices(g.batch, batch_dims);
    } else {
      ok = false;
    }
    PRISM_ENFORCE(ok, kInvalidArgument, node.Describe(), ": ", name,
                  " must be a scalar or one value per ", what, " (", length, ": shape [", length,
                  "] or [..., ", per_row ? MakeString(length, ", 1") : MakeString("1, ", length),
                  "]), got ", tensor->Shape().ToString());
    stride_ = length;
  }

  // The value for output batch `batch` and row or column `index`.
  double Get(int64_t batch, int64_t index) const {
    if (tensor_ == nullptr) return 0.0;
    if (batch_.empty()) return ElementAsDouble(*tensor_, 0);
    return ElementAsDouble(*tensor_, batch_[static_cast<size_t>(batch)] * stride_ + index);
  }

 private:
  const Tensor* tensor_;
  std::vector<int64_t> batch_;  // empty: one value
  int64_t stride_ = 0;
};

// sum_k (a[m, k] - a_zp[m]) * (b[k, n] - b_zp[n]) for every batch, row and column, passed to
// emit(flat_output_index, sum, batch, m, n). Acc is int64_t (integer operands) or double.
template <typename Acc, typename Emit>
void ForEachProduct(const Node& node, const Tensor& a, const Tensor& b, const Tensor* a_zero,
                    const Tensor* b_zero, const MatMulGeometry& g, Emit&& emit) {
  const std::vector<int64_t> a_batch_dims(
      a.Shape().Dims().begin(), a.Shape().Dims().end() - std::min<size_t>(2, a.Shape().Rank()));
  const std::vector<int64_t> b_batch_dims(
      b.Shape().Dims().begin(), b.Shape().Dims().end() - std::min<size_t>(2, b.Shape().Rank()));
  const std::vector<int64_t> a_index = BatchIndices(g.batch, a_batch_dims);
  const std::vector<int64_t> b_index = BatchIndices(g.batch, b_batch_dims);
  const RowOrColumnParameter a_zp(node, "a_zero_point", a_zero, true, g, a.Shape().Rank() == 1);
  const RowOrColumnParameter b_zp(node, "b_zero_point", b_zero, false, g, b.Shape().Rank() == 1);
  std::vector<Acc> a_shifted(static_cast<size_t>(g.m * g.k));
  std::vector<Acc> b_shifted(static_cast<size_t>(g.k * g.n));
  std::vector<Acc> row(static_cast<size_t>(g.n));
  for (int64_t batch = 0; batch < g.batch_count; ++batch) {
    const int64_t a_base = a_index[static_cast<size_t>(batch)] * g.m * g.k;
    const int64_t b_base = b_index[static_cast<size_t>(batch)] * g.k * g.n;
    for (int64_t m = 0; m < g.m; ++m) {
      const double zero = a_zp.Get(batch, m);
      for (int64_t k = 0; k < g.k; ++k)
        a_shifted[static_cast<size_t>(m * g.k + k)] =
            static_cast<Acc>(ElementAsDouble(a, a_base + m * g.k + k) - zero);
    }
    for (int64_t k = 0; k < g.k; ++k)
      for (int64_t n = 0; n < g.n; ++n)
        b_shifted[static_cast<size_t>(k * g.n + n)] =
            static_cast<Acc>(ElementAsDouble(b, b_base + k * g.n + n) - b_zp.Get(batch, n));
    for (int64_t m = 0; m < g.m; ++m) {
      std::fill(row.begin(), row.end(), Acc(0));
      for (int64_t k = 0; k < g.k; ++k) {
        const Acc left = a_shifted[static_cast<size_t>(m * g.k + k)];
        const Acc* right = b_shifted.data() + k * g.n;
        for (int64_t n = 0; n < g.n; ++n) row[static_cast<size_t>(n)] += left * right[n];
      }
      for (int64_t n = 0; n < g.n; ++n)
        emit((batch * g.m + m) * g.n + n, row[static_cast<size_t>(n)], batch, m, n);
    }
  }
}

void CheckZeroType(const Node& node, const Tensor* zero, const Tensor& values, const char* name,
                   const char* of) {
  if (zero == nullptr) return;
  PRISM_ENFORCE(zero->Type() == values.Type(), kInvalidArgument, node.Describe(), ": ", name,
                " must have the type of ", of, " (", ElementTypeName(values.Type()), "), got ",
                ElementTypeName(zero->Type()));
}

class MatMulInteger final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const Tensor* a_zero = context.Input(2);
    const Tensor* b_zero = context.Input(3);
    CheckZeroType(GetNode(), a_zero, a, "a_zero_point", "A");
    CheckZeroType(GetNode(), b_zero, b, "b_zero_point", "B");
    const MatMulGeometry g = Geometry(GetNode(), a, b);
    Tensor& y = context.Output(0, g.output_shape, E::kInt32);
    if (y.NumElements() == 0) return;
    int32_t* out = y.MutableData<int32_t>();
    ForEachProduct<int64_t>(GetNode(), a, b, a_zero, b_zero, g,
                            [&](int64_t index, int64_t sum, int64_t, int64_t, int64_t) {
                              // Wraps in 32 bits (C++20 conversions are modular).
                              out[index] = static_cast<int32_t>(sum);
                            });
  }
};

class QLinearMatMul final : public OpKernel {
 public:
  explicit QLinearMatMul(const OpKernelInfo& info)
      : OpKernel(info), opset_(info.GetNode().OpsetVersion()) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const std::string where = node.Describe();
    const Tensor& a = context.RequiredInput(0);
    const Tensor& a_scale = context.RequiredInput(1);
    const Tensor* a_zero = context.Input(2);
    const Tensor& b = context.RequiredInput(3);
    const Tensor& b_scale = context.RequiredInput(4);
    const Tensor* b_zero = context.Input(5);
    const Tensor& y_scale = context.RequiredInput(6);
    const Tensor* y_zero = context.Input(7);
    CheckZeroType(node, a_zero, a, "a_zero_point", "a");
    CheckZeroType(node, b_zero, b, "b_zero_point", "b");
    PRISM_ENFORCE(a_scale.Type() == b_scale.Type() && a_scale.Type() == y_scale.Type(),
                  kInvalidArgument, where,
                  ": a_scale, b_scale and y_scale must share one type, got ",
                  ElementTypeName(a_scale.Type()), ", ", ElementTypeName(b_scale.Type()), " and ",
                  ElementTypeName(y_scale.Type()));
    PRISM_ENFORCE(
        y_scale.NumElements() == 1 && (y_zero == nullptr || y_zero->NumElements() == 1),
        kInvalidArgument, where,
        ": y_scale and y_zero_point must be scalars (per-tensor output quantization), got ",
        y_scale.Shape().ToString(),
        y_zero != nullptr ? MakeString(" and ", y_zero->Shape().ToString()) : "");
    const E out_type = y_zero != nullptr ? y_zero->Type() : a.Type();
    const MatMulGeometry g = Geometry(node, a, b);
    const RowOrColumnParameter a_scales(node, "a_scale", &a_scale, true, g, a.Shape().Rank() == 1);
    const RowOrColumnParameter b_scales(node, "b_scale", &b_scale, false, g, b.Shape().Rank() == 1);
    Tensor& y = context.Output(0, g.output_shape, out_type);
    if (y.NumElements() == 0) return;
    const E precision = opset_ >= 21 ? y_scale.Type() : E::kFloat;
    const double out_scale = ElementAsDouble(y_scale, 0);
    const double out_zero = y_zero != nullptr ? ElementAsDouble(*y_zero, 0) : 0.0;
    const quantization::QuantizedWriter writer(y, /*saturate=*/true);
    const auto multiplier = [&](int64_t batch, int64_t m, int64_t n) {
      const double scales = quantization::RoundToPrecision(
          precision, a_scales.Get(batch, m) * b_scales.Get(batch, n));
      return quantization::RoundToPrecision(precision, scales / out_scale);
    };
    ForEachProduct<double>(node, a, b, a_zero, b_zero, g,
                           [&](int64_t index, double sum, int64_t batch, int64_t m, int64_t n) {
                             writer.Store(index, sum * multiplier(batch, m, n), out_zero);
                           });
  }

 private:
  int opset_;
};

void RegisterMatMulIntegerKernels(KernelRegistry& registry) {
  const std::vector<E> int8 = {E::kInt8, E::kUint8};
  registry.Register(KernelDefBuilder("MatMulInteger")
                        .Versions(10)
                        .Constraint("T1", int8, {0, 2})
                        .Constraint("T2", int8, {1, 3})
                        .Constraint("T3", {E::kInt32}, {}, {0})
                        .Build(),
                    MakeKernelFactory<MatMulInteger>());
  const auto qlinear = MakeKernelFactory<QLinearMatMul>();
  registry.Register(KernelDefBuilder("QLinearMatMul")
                        .Versions(10, 20)
                        .Constraint("T1", int8, {0, 2})
                        .Constraint("T2", int8, {3, 5})
                        .Constraint("T3", int8, {7}, {0})
                        .Build(),
                    qlinear);
  const std::vector<E> types21 = {E::kInt8,           E::kUint8,      E::kFloat8E4M3FN,
                                  E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ};
  registry.Register(KernelDefBuilder("QLinearMatMul")
                        .Versions(21)
                        .Constraint("TS", {E::kFloat, E::kFloat16, E::kBFloat16}, {1, 4, 6})
                        .Constraint("T1", types21, {0, 2})
                        .Constraint("T2", types21, {3, 5})
                        .Constraint("T3", types21, {7}, {0})
                        .Build(),
                    qlinear);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(quantization_matmul, RegisterMatMulIntegerKernels);

}  // namespace prism::cpu

// FusedMatMul (com.microsoft, version 1): Y = alpha * op(A) @ op(B) with numpy.matmul batch
// broadcasting, where op transposes the last two axes (transA, transB) after an optional batch
// transpose (transBatchA, transBatchB: an operand stored [d0, d1, .., d(r-2), d(r-1)] is read as
// [d1, .., d(r-2), d0, d(r-1)]; onnxruntime requires both operands of one rank >= 3 then).
// A 1-D operand is promoted as in MatMul (its trans flag is ignored, as onnxruntime does).
// Transposes are never materialized: every batch entry is a strided matrix handed to mlas::Gemm
// with its leading dimension. float16/bfloat16 compute in float and round once. A constant 2-D
// float B is prepacked at session creation.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "mlas/packed_gemm.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/packed_b_weight.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {
namespace {

// One input seen as a batch of stored matrices (rows x cols, leading dimension ld).
struct Operand {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t ld = 1;
  bool trans = false;
  std::vector<int64_t> batch_dims;
  int64_t batch_stride = 0;  // elements between consecutive batch entries
};

Operand AsOperand(const TensorShape& shape, bool trans, bool trans_batch, bool is_b) {
  const std::vector<int64_t>& d = shape.Dims();
  const size_t r = d.size();
  Operand op;
  if (r == 1) {  // A: a row [1, K]; B: a column [K, 1]
    op.rows = is_b ? d[0] : 1;
    op.cols = is_b ? 1 : d[0];
    op.ld = op.cols;
    return op;
  }
  op.trans = trans;
  op.cols = d[r - 1];
  if (trans_batch && r >= 3) {
    op.rows = d[0];
    op.batch_dims.assign(d.begin() + 1, d.end() - 1);
    op.ld = TensorShape(std::vector<int64_t>(d.begin() + 1, d.end())).Size();
    op.batch_stride = op.cols;
  } else {
    op.rows = d[r - 2];
    op.batch_dims.assign(d.begin(), d.end() - 2);
    op.ld = op.cols;
    op.batch_stride = op.rows * op.cols;
  }
  return op;
}

struct Plan {
  Operand a, b;
  int64_t m = 0, n = 0, k = 0;
  TensorShape output_shape;
  int64_t batch = 1;
  bool fold_batch_into_m = false;  // B has one matrix and A's rows are contiguous
  std::vector<int64_t> a_offsets, b_offsets;
  float alpha = 1.0f;
  ThreadPool* pool = nullptr;
};

Plan MakePlan(const Node& node, const TensorShape& a_shape, const TensorShape& b_shape,
              bool trans_a, bool trans_b, bool trans_batch_a, bool trans_batch_b) {
  PRISM_ENFORCE(a_shape.Rank() >= 1 && b_shape.Rank() >= 1, kInvalidArgument, node.Describe(),
                ": inputs A and B must have rank >= 1, got ", a_shape.ToString(), " and ",
                b_shape.ToString());
  if (trans_batch_a || trans_batch_b)
    PRISM_ENFORCE(a_shape.Rank() == b_shape.Rank() && a_shape.Rank() >= 3, kInvalidArgument,
                  node.Describe(),
                  ": attributes transBatchA/transBatchB need A and B of one rank >= 3, got A ",
                  a_shape.ToString(), " and B ", b_shape.ToString());
  Plan plan;
  plan.a = AsOperand(a_shape, trans_a, trans_batch_a, false);
  plan.b = AsOperand(b_shape, trans_b, trans_batch_b, true);
  plan.m = plan.a.trans ? plan.a.cols : plan.a.rows;
  plan.k = plan.a.trans ? plan.a.rows : plan.a.cols;
  const int64_t b_k = plan.b.trans ? plan.b.cols : plan.b.rows;
  plan.n = plan.b.trans ? plan.b.rows : plan.b.cols;
  PRISM_ENFORCE(plan.k == b_k, kInvalidArgument, node.Describe(), ": inner dimensions differ: A ",
                a_shape.ToString(), " gives K = ", plan.k, " but B ", b_shape.ToString(),
                " gives K = ", b_k, " (transA ", trans_a, ", transB ", trans_b, ", transBatchA ",
                trans_batch_a, ", transBatchB ", trans_batch_b, ")");

  const std::vector<int64_t>& ab = plan.a.batch_dims;
  const std::vector<int64_t>& bb = plan.b.batch_dims;
  const size_t batch_rank = std::max(ab.size(), bb.size());
  std::vector<int64_t> a_padded(batch_rank, 1), b_padded(batch_rank, 1), out_dims(batch_rank);
  std::copy(ab.begin(), ab.end(), a_padded.end() - static_cast<std::ptrdiff_t>(ab.size()));
  std::copy(bb.begin(), bb.end(), b_padded.end() - static_cast<std::ptrdiff_t>(bb.size()));
  for (size_t i = 0; i < batch_rank; ++i) {
    PRISM_ENFORCE(a_padded[i] == b_padded[i] || a_padded[i] == 1 || b_padded[i] == 1,
                  kInvalidArgument, node.Describe(), ": batch dimensions of A ", a_shape.ToString(),
                  " and B ", b_shape.ToString(), " cannot be broadcast (", a_padded[i], " vs ",
                  b_padded[i], ")");
    out_dims[i] = a_padded[i] == 1 ? b_padded[i] : a_padded[i];
  }
  plan.batch = TensorShape(out_dims).Size();
  if (a_shape.Rank() > 1) out_dims.push_back(plan.m);
  if (b_shape.Rank() > 1) out_dims.push_back(plan.n);
  plan.output_shape = TensorShape(out_dims);

  plan.fold_batch_into_m = TensorShape(bb).Size() == 1 && !plan.a.trans && !trans_batch_a;
  if (plan.fold_batch_into_m || plan.batch == 0) return plan;
  // Per output batch entry, the offsets of its A and B matrices (broadcast dims stay put).
  std::vector<int64_t> a_strides(batch_rank, 0), b_strides(batch_rank, 0);
  for (int64_t i = static_cast<int64_t>(batch_rank) - 1, as = 1, bs = 1; i >= 0; --i) {
    a_strides[i] = a_padded[i] == 1 ? 0 : as;
    b_strides[i] = b_padded[i] == 1 ? 0 : bs;
    as *= a_padded[i];
    bs *= b_padded[i];
  }
  plan.a_offsets.resize(static_cast<size_t>(plan.batch));
  plan.b_offsets.resize(static_cast<size_t>(plan.batch));
  std::vector<int64_t> index(batch_rank, 0);
  int64_t a_entry = 0, b_entry = 0;
  for (int64_t e = 0; e < plan.batch; ++e) {
    plan.a_offsets[e] = a_entry * plan.a.batch_stride;
    plan.b_offsets[e] = b_entry * plan.b.batch_stride;
    for (size_t i = batch_rank; i-- > 0;) {
      a_entry += a_strides[i];
      b_entry += b_strides[i];
      if (++index[i] < out_dims[i]) break;
      a_entry -= a_strides[i] * index[i];
      b_entry -= b_strides[i] * index[i];
      index[i] = 0;
    }
  }
  return plan;
}

template <typename C>
void RunPlan(const Plan& plan, const C* a, const C* b, C* y) {
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  const C alpha = static_cast<C>(plan.alpha);
  if (k == 0) {  // an empty sum
    std::fill(y, y + plan.batch * m * n, C{0});
    return;
  }
  if (plan.fold_batch_into_m) {
    mlas::Gemm<C>(false, plan.b.trans, plan.batch * m, n, k, alpha, a, plan.a.ld, b, plan.b.ld,
                  C{0}, y, n, plan.pool);
    return;
  }
  // Enough products for every thread: each thread takes whole products; fewer: each product
  // splits over the pool itself.
  const bool by_entry = plan.pool != nullptr && plan.batch >= plan.pool->DegreeOfParallelism();
  ThreadPool::TryParallelFor(
      by_entry ? plan.pool : nullptr, plan.batch,
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k),
      [&](int64_t first, int64_t last) {
        for (int64_t e = first; e < last; ++e)
          mlas::Gemm<C>(plan.a.trans, plan.b.trans, m, n, k, alpha, a + plan.a_offsets[e],
                        plan.a.ld, b + plan.b_offsets[e], plan.b.ld, C{0}, y + e * m * n, n,
                        by_entry ? nullptr : plan.pool);
      });
}

template <typename T>
struct FusedMatMulImpl {
  void operator()(const Plan& plan, const Tensor& a, const Tensor& b, Tensor& y) const {
    if constexpr (kIsHalfType<T>) {
      const std::vector<float> a_float = Widen<T>(a), b_float = Widen<T>(b);
      std::vector<float> y_float(static_cast<size_t>(y.NumElements()));
      RunPlan<float>(plan, a_float.data(), b_float.data(), y_float.data());
      T* out = y.MutableData<T>();
      for (size_t i = 0; i < y_float.size(); ++i) out[i] = T(y_float[i]);
    } else {
      RunPlan<T>(plan, a.Data<T>(), b.Data<T>(), y.MutableData<T>());
    }
  }
};

class FusedMatMul final : public OpKernel {
 public:
  explicit FusedMatMul(const OpKernelInfo& info)
      : OpKernel(info),
        alpha_(info.FloatOr("alpha", 1.0f)),
        trans_a_(info.IntOr("transA", 0) != 0),
        trans_b_(info.IntOr("transB", 0) != 0),
        trans_batch_a_(info.IntOr("transBatchA", 0) != 0),
        trans_batch_b_(info.IntOr("transBatchB", 0) != 0) {}

  // A constant 2-D float B is packed once, as MatMul's (packed_b_weight.h), in op(B) order.
  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    if (input_index != 1 || trans_batch_a_ || trans_batch_b_) return "";
    return PackedBFormat(weight, trans_b_);
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackB(weight, trans_b_);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_ = PackedBOf(packed);
    packed_b_shape_ = packed.shape;
  }

  void Compute(OpKernelContext& context) const override {
    if (packed_b_ != nullptr) return ComputeWithPackedB(context);
    const Node& node = GetNode();
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    PRISM_ENFORCE(a.Type() == b.Type(), kInvalidArgument, node.Describe(),
                  ": inputs A and B must have one type, got ", a.Describe(), " and ", b.Describe());
    Plan plan =
        MakePlan(node, a.Shape(), b.Shape(), trans_a_, trans_b_, trans_batch_a_, trans_batch_b_);
    plan.alpha = alpha_;
    plan.pool = context.IntraOpThreadPool();
    Tensor& y = context.Output(0, plan.output_shape, a.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<FusedMatMulImpl, TypeList<float, double, Float16, BFloat16>>(
        a.Type(), node.OpType(), plan, a, b, y);
  }

 private:
  void ComputeWithPackedB(OpKernelContext& context) const {
    const Node& node = GetNode();
    const Tensor& a = context.RequiredInput(0);
    PRISM_ENFORCE(a.Type() == ElementType::kFloat, kInvalidArgument, node.Describe(),
                  ": inputs A and B must have one type, got ", a.Describe(), " and float");
    Plan plan = MakePlan(node, a.Shape(), packed_b_shape_, trans_a_, trans_b_, false, false);
    Tensor& y = context.Output(0, plan.output_shape, a.Type());
    if (y.NumElements() == 0) return;
    float* out = y.MutableData<float>();
    if (plan.k == 0) {
      std::fill(out, out + y.NumElements(), 0.0f);
      return;
    }
    const float* a_data = a.Data<float>();
    ThreadPool* pool = context.IntraOpThreadPool();
    if (plan.fold_batch_into_m) {
      mlas::GemmPackedB(false, plan.batch * plan.m, a_data, plan.a.ld, alpha_, *packed_b_, 0.0f,
                        out, plan.n, pool);
      return;
    }
    for (int64_t e = 0; e < plan.batch; ++e)  // transA over a batch: one product per entry
      mlas::GemmPackedB(plan.a.trans, plan.m, a_data + plan.a_offsets[e], plan.a.ld, alpha_,
                        *packed_b_, 0.0f, out + e * plan.m * plan.n, plan.n, pool);
  }

  std::shared_ptr<const mlas::PackedMatrixB> packed_b_;
  TensorShape packed_b_shape_;
  float alpha_;
  bool trans_a_, trans_b_, trans_batch_a_, trans_batch_b_;
};

void RegisterFusedMatMulKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("FusedMatMul")
          .Domain(kMsDomain)
          .Versions(1)
          .Constraint("T", {E::kFloat, E::kDouble, E::kFloat16, E::kBFloat16}, {0, 1}, {0})
          .Build(),
      MakeKernelFactory<FusedMatMul>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_fused_matmul, RegisterFusedMatMulKernels);

}  // namespace prism::cpu::contrib

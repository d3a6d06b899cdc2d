// MatMul: numpy.matmul semantics. A 1-D operand is promoted to a matrix (a row for A, a column
// for B) and the promoted dim is dropped from the result; leading (batch) dims broadcast.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "mlas/packed_gemm.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/packed_b_weight.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// Everything Compute needs once the shapes are known: the output shape, the matrix sizes and
// the element offsets of the A and B matrices for each output batch entry.
struct MatMulPlan {
  ThreadPool* pool = nullptr;  // the session's intra-op pool (nullptr: this thread)
  TensorShape output_shape;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  // True when B has no batch: the batch of A then folds into one (batch * M) x K product.
  bool fold_batch_into_m = false;
  int64_t batch = 1;
  std::vector<int64_t> a_offsets;
  std::vector<int64_t> b_offsets;
};

MatMulPlan PlanMatMul(const Node& node, const TensorShape& a_shape, const TensorShape& b_shape) {
  PRISM_ENFORCE(a_shape.Rank() >= 1 && b_shape.Rank() >= 1, kInvalidArgument, node.Describe(),
                ": MatMul inputs must have rank >= 1, got A ", a_shape.ToString(), " and B ",
                b_shape.ToString());
  const std::vector<int64_t>& a_dims = a_shape.Dims();
  const std::vector<int64_t>& b_dims = b_shape.Dims();
  const bool a_is_vector = a_dims.size() == 1;
  const bool b_is_vector = b_dims.size() == 1;

  MatMulPlan plan;
  plan.m = a_is_vector ? 1 : a_dims[a_dims.size() - 2];
  plan.k = a_dims.back();
  const int64_t b_k = b_is_vector ? b_dims[0] : b_dims[b_dims.size() - 2];
  plan.n = b_is_vector ? 1 : b_dims.back();
  PRISM_ENFORCE(plan.k == b_k, kInvalidArgument, node.Describe(),
                ": MatMul inner dimensions differ: A ", a_shape.ToString(), " has K = ", plan.k,
                " but B ", b_shape.ToString(), " has K = ", b_k);

  // Batch dims: everything before the last two (none for a 1-D operand), right-aligned.
  const std::vector<int64_t> a_batch(a_dims.begin(), a_dims.end() - (a_is_vector ? 1 : 2));
  const std::vector<int64_t> b_batch(b_dims.begin(), b_dims.end() - (b_is_vector ? 1 : 2));
  const size_t batch_rank = std::max(a_batch.size(), b_batch.size());
  std::vector<int64_t> a_padded(batch_rank, 1);
  std::vector<int64_t> b_padded(batch_rank, 1);
  std::copy(a_batch.begin(), a_batch.end(), a_padded.end() - a_batch.size());
  std::copy(b_batch.begin(), b_batch.end(), b_padded.end() - b_batch.size());

  std::vector<int64_t> out_dims(batch_rank);
  for (size_t i = 0; i < batch_rank; ++i) {
    const int64_t a_dim = a_padded[i];
    const int64_t b_dim = b_padded[i];
    PRISM_ENFORCE(a_dim == b_dim || a_dim == 1 || b_dim == 1, kInvalidArgument, node.Describe(),
                  ": MatMul batch dimensions of A ", a_shape.ToString(), " and B ",
                  b_shape.ToString(), " cannot be broadcast (", a_dim, " vs ", b_dim, ")");
    out_dims[i] = (a_dim == 1) ? b_dim : a_dim;
  }
  if (!a_is_vector) out_dims.push_back(plan.m);
  if (!b_is_vector) out_dims.push_back(plan.n);
  plan.output_shape = TensorShape(out_dims);

  const TensorShape out_batch_shape(
      std::vector<int64_t>(out_dims.begin(), out_dims.begin() + batch_rank));
  plan.batch = out_batch_shape.Size();
  const int64_t b_batch_size = TensorShape(b_batch).Size();
  if (b_batch_size == 1) {
    // Every A matrix meets the same B, and A's batch equals the output's: one tall product.
    plan.fold_batch_into_m = true;
    return plan;
  }
  if (plan.batch == 0) return plan;

  // Offsets (in matrices) by odometer over the output batch; broadcast dims get stride 0.
  std::vector<int64_t> a_strides(batch_rank, 0);
  std::vector<int64_t> b_strides(batch_rank, 0);
  int64_t a_stride = 1;
  int64_t b_stride = 1;
  for (size_t i = batch_rank; i-- > 0;) {
    a_strides[i] = a_padded[i] == 1 ? 0 : a_stride;
    b_strides[i] = b_padded[i] == 1 ? 0 : b_stride;
    a_stride *= a_padded[i];
    b_stride *= b_padded[i];
  }
  plan.a_offsets.resize(plan.batch);
  plan.b_offsets.resize(plan.batch);
  std::vector<int64_t> index(batch_rank, 0);
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  for (int64_t entry = 0; entry < plan.batch; ++entry) {
    plan.a_offsets[entry] = a_offset * plan.m * plan.k;
    plan.b_offsets[entry] = b_offset * plan.k * plan.n;
    for (size_t i = batch_rank; i-- > 0;) {
      ++index[i];
      a_offset += a_strides[i];
      b_offset += b_strides[i];
      if (index[i] < out_dims[i]) break;
      a_offset -= a_strides[i] * index[i];
      b_offset -= b_strides[i] * index[i];
      index[i] = 0;
    }
  }
  return plan;
}

template <typename T>
void RunMatMul(const MatMulPlan& plan, const T* a, const T* b, T* y) {
  const int64_t m = plan.m;
  const int64_t n = plan.n;
  const int64_t k = plan.k;
  if (plan.fold_batch_into_m) {
    mlas::Gemm<T>(false, false, plan.batch * m, n, k, T(1), a, k, b, n, T(0), y, n, plan.pool);
    return;
  }
  // Enough products for every thread: each thread takes whole products (no operand is packed
  // twice); fewer: each product splits over the pool itself.
  const bool by_entry = plan.pool != nullptr && plan.batch >= plan.pool->DegreeOfParallelism();
  const double cost =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  ThreadPool::TryParallelFor(
      by_entry ? plan.pool : nullptr, plan.batch, cost, [&](int64_t first, int64_t last) {
        for (int64_t entry = first; entry < last; ++entry) {
          mlas::Gemm<T>(false, false, m, n, k, T(1), a + plan.a_offsets[entry], k,
                        b + plan.b_offsets[entry], n, T(0), y + entry * m * n, n,
                        by_entry ? nullptr : plan.pool);
        }
      });
}

template <typename T>
struct MatMulImpl {
  void operator()(const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor& y) const {
    RunMatMul<T>(plan, a.Data<T>(), b.Data<T>(), y.MutableData<T>());
  }
};

// float16 and bfloat16 compute in float and round once at the end.
template <typename Half>
struct HalfMatMulImpl {
  void operator()(const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor& y) const {
    const auto widen = [](const Tensor& t) {
      const Half* src = t.Data<Half>();
      std::vector<float> out(static_cast<size_t>(t.NumElements()));
      for (size_t i = 0; i < out.size(); ++i) out[i] = src[i].ToFloat();
      return out;
    };
    const std::vector<float> a_float = widen(a);
    const std::vector<float> b_float = widen(b);
    std::vector<float> y_float(static_cast<size_t>(y.NumElements()));
    RunMatMul<float>(plan, a_float.data(), b_float.data(), y_float.data());
    Half* out = y.MutableData<Half>();
    for (size_t i = 0; i < y_float.size(); ++i) out[i] = Half(y_float[i]);
  }
};

template <typename T>
struct MatMulDispatch {
  void operator()(const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor& y) const {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      HalfMatMulImpl<T>{}(plan, a, b, y);
    } else {
      MatMulImpl<T>{}(plan, a, b, y);
    }
  }
};

using MatMulTypes =
    TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

class MatMul final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  // A constant 2-D float B is packed once (packed_b_weight.h).
  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return input_index == 1 ? PackedBFormat(weight, false) : "";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackB(weight, false);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_ = PackedBOf(packed);
    packed_b_shape_ = packed.shape;
  }

  void Compute(OpKernelContext& context) const override {
    if (packed_b_ != nullptr) return ComputeWithPackedB(context);
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    PRISM_ENFORCE(a.Type() == b.Type(), kInvalidArgument, GetNode().Describe(),
                  ": MatMul inputs must have the same element type, got A ",
                  ElementTypeName(a.Type()), " and B ", ElementTypeName(b.Type()));
    MatMulPlan plan = PlanMatMul(GetNode(), a.Shape(), b.Shape());
    plan.pool = context.IntraOpThreadPool();
    Tensor& y = context.Output(0, plan.output_shape, a.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<MatMulDispatch, MatMulTypes>(a.Type(), "MatMul", plan, a, b, y);
  }

 private:
  void ComputeWithPackedB(OpKernelContext& context) const {
    const Tensor& a = context.RequiredInput(0);
    PRISM_ENFORCE(a.Type() == ElementType::kFloat, kInvalidArgument, GetNode().Describe(),
                  ": MatMul inputs must have the same element type, got A ",
                  ElementTypeName(a.Type()), " and B float");
    const MatMulPlan plan = PlanMatMul(GetNode(), a.Shape(), packed_b_shape_);
    Tensor& y = context.Output(0, plan.output_shape, a.Type());
    if (y.NumElements() == 0) return;
    // B is 2-D, so A's batch always folds into the rows.
    mlas::GemmPackedB(false, plan.batch * plan.m, a.Data<float>(), plan.k, 1.0f, *packed_b_, 0.0f,
                      y.MutableData<float>(), plan.n, context.IntraOpThreadPool());
  }

  std::shared_ptr<const mlas::PackedMatrixB> packed_b_;
  TensorShape packed_b_shape_;
};

void RegisterMatMulKernels(KernelRegistry& registry) {
  using ET = ElementType;
  const std::vector<ET> types_v1 = {ET::kFloat16, ET::kFloat, ET::kDouble};
  std::vector<ET> types_v9 = types_v1;
  types_v9.insert(types_v9.end(), {ET::kUint32, ET::kUint64, ET::kInt32, ET::kInt64});
  std::vector<ET> types_v13 = types_v9;
  types_v13.push_back(ET::kBFloat16);

  const auto factory = MakeKernelFactory<MatMul>();
  registry.Register(
      KernelDefBuilder("MatMul").Versions(1, 8).Constraint("T", types_v1, {0, 1}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("MatMul").Versions(9, 12).Constraint("T", types_v9, {0, 1}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("MatMul").Versions(13).Constraint("T", types_v13, {0, 1}, {0}).Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_matmul, RegisterMatMulKernels);

}  // namespace prism::cpu

// MatMul and Gemm in float32 through cuBLAS (row-major operands are read as their column-major
// transposes: C^T = op(B)^T op(A)^T). MatMul takes rank >= 2 operands whose batch dims are equal,
// or one side's batch dims all 1 (strided batched GEMM with a zero stride); other broadcasts and
// 1-D operands stay on the CPU EP.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_kernels.h"
#include "providers/cuda/kernels/device_kernels.h"

namespace prism::cuda {
namespace {

int64_t BatchOf(const TensorShape& shape) {
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < shape.Rank(); ++d) batch *= shape[d];
  return batch;
}

void CheckInt(int64_t value, const Node& node, const char* what) {
  PRISM_ENFORCE(value <= INT32_MAX, kNotImplemented, node.Describe(),
                ": CUDAExecutionProvider's cuBLAS call takes ", what, " up to 2^31-1, got ", value);
}

class MatMulKernel final : public OpKernel {
 public:
  explicit MatMulKernel(const OpKernelInfo& info) : OpKernel(info), provider_(ProviderOf(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const TensorShape& as = a.Shape();
    const TensorShape& bs = b.Shape();
    PRISM_ENFORCE(as.Rank() >= 2 && bs.Rank() >= 2, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider's MatMul needs operands of rank >= 2, got ",
                  as.ToString(), " and ", bs.ToString());
    const int64_t m = as[as.Rank() - 2], k = as[as.Rank() - 1];
    const int64_t n = bs[bs.Rank() - 1];
    PRISM_ENFORCE(bs[bs.Rank() - 2] == k, kInvalidArgument, GetNode().Describe(),
                  ": MatMul inner dims differ: ", as.ToString(), " x ", bs.ToString());
    const int64_t batch_a = BatchOf(as), batch_b = BatchOf(bs);
    // Output batch dims: the longer operand's (equal dims, or the other side all 1s).
    const TensorShape& batch_source = as.Rank() >= bs.Rank() ? as : bs;
    std::vector<int64_t> dims(batch_source.Dims().begin(), batch_source.Dims().end() - 2);
    if (batch_a != 1 && batch_b != 1) {
      PRISM_ENFORCE(as.Rank() == bs.Rank() && batch_a == batch_b &&
                        std::equal(as.Dims().begin(), as.Dims().end() - 2, bs.Dims().begin()),
                    kNotImplemented, GetNode().Describe(),
                    ": CUDAExecutionProvider's MatMul needs equal batch dims (or one side's all "
                    "1), got ",
                    as.ToString(), " and ", bs.ToString());
    } else if (batch_a == 1 && batch_b != 1) {
      dims.assign(bs.Dims().begin(), bs.Dims().end() - 2);
    }
    dims.push_back(m);
    dims.push_back(n);
    Tensor& y = context.Output(0, TensorShape(dims), ElementType::kFloat);
    const int64_t batch = std::max(batch_a, batch_b);
    if (y.Shape().Size() == 0) return;
    if (k == 0) {
      PRISM_CUDA_CALL(cudaMemsetAsync(y.MutableRawData(), 0, y.SizeInBytes(), provider_.Stream()));
      return;
    }
    const float one = 1.0f, zero = 0.0f;
    CheckInt(n, GetNode(), "dims");
    CheckInt(k, GetNode(), "dims");
    provider_.WithCublas([&](cublasHandle_t handle) {
      if (batch_b == 1) {
        // One GEMM over all of A's rows: (batch_a * m) x k times k x n.
        CheckInt(batch_a * m, GetNode(), "rows");
        PRISM_CUBLAS_CALL(cublasSgemm(
            handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(batch_a * m),
            static_cast<int>(k), &one, b.Data<float>(), static_cast<int>(n), a.Data<float>(),
            static_cast<int>(k), &zero, y.MutableData<float>(), static_cast<int>(n)));
      } else {
        CheckInt(m, GetNode(), "dims");
        CheckInt(batch, GetNode(), "batches");
        PRISM_CUBLAS_CALL(cublasSgemmStridedBatched(
            handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
            static_cast<int>(k), &one, b.Data<float>(), static_cast<int>(n), k * n, a.Data<float>(),
            static_cast<int>(k), batch_a == 1 ? 0 : m * k, &zero, y.MutableData<float>(),
            static_cast<int>(n), m * n, static_cast<int>(batch)));
      }
    });
  }

 private:
  const CudaExecutionProvider& provider_;
};

class GemmKernel final : public OpKernel {
 public:
  explicit GemmKernel(const OpKernelInfo& info)
      : OpKernel(info),
        provider_(ProviderOf(info)),
        trans_a_(info.IntOr("transA", 0) != 0),
        trans_b_(info.IntOr("transB", 0) != 0),
        alpha_(info.FloatOr("alpha", 1.0f)),
        beta_(info.FloatOr("beta", 1.0f)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    const Tensor* c = context.Input(2);
    PRISM_ENFORCE(a.Shape().Rank() == 2 && b.Shape().Rank() == 2, kInvalidArgument,
                  GetNode().Describe(), ": Gemm takes 2-D A and B, got ", a.Shape().ToString(),
                  " and ", b.Shape().ToString());
    const int64_t m = trans_a_ ? a.Shape()[1] : a.Shape()[0];
    const int64_t k = trans_a_ ? a.Shape()[0] : a.Shape()[1];
    const int64_t kb = trans_b_ ? b.Shape()[1] : b.Shape()[0];
    const int64_t n = trans_b_ ? b.Shape()[0] : b.Shape()[1];
    PRISM_ENFORCE(k == kb, kInvalidArgument, GetNode().Describe(),
                  ": Gemm inner dims differ: ", a.Shape().ToString(), (trans_a_ ? "^T" : ""), " x ",
                  b.Shape().ToString(), (trans_b_ ? "^T" : ""));
    CheckInt(m, GetNode(), "dims");
    CheckInt(n, GetNode(), "dims");
    CheckInt(k, GetNode(), "dims");
    Tensor& y = context.Output(0, TensorShape({m, n}), ElementType::kFloat);
    if (y.Shape().Size() == 0) return;
    float beta = 0.0f;
    if (c != nullptr && beta_ != 0.0f) {
      // Y = C broadcast to [m, n], then Y = alpha op(A) op(B) + beta Y.
      const TensorShape& cs = c->Shape();
      PRISM_ENFORCE(cs.Rank() <= 2, kInvalidArgument, GetNode().Describe(),
                    ": Gemm's C must be broadcastable to [", m, ",", n, "], got ", cs.ToString());
      BroadcastIndex index;
      index.rank = 2;
      index.out_dims[0] = m;
      index.out_dims[1] = n;
      const int64_t c_rows = cs.Rank() == 2 ? cs[0] : 1;
      const int64_t c_cols = cs.Rank() >= 1 ? cs[cs.Rank() - 1] : 1;
      PRISM_ENFORCE((c_rows == 1 || c_rows == m) && (c_cols == 1 || c_cols == n), kInvalidArgument,
                    GetNode().Describe(), ": Gemm's C ", cs.ToString(), " does not broadcast to [",
                    m, ",", n, "]");
      index.a_strides[0] = c_rows == 1 ? 0 : c_cols;
      index.a_strides[1] = c_cols == 1 ? 0 : 1;
      PRISM_CUDA_CALL(LaunchBinaryFloat(BinaryOp::kCopyA, c->Data<float>(), nullptr,
                                        y.MutableData<float>(), m * n, index, false,
                                        provider_.Stream()));
      beta = beta_;
    }
    if (k == 0) {
      // op(A) op(B) is all zeros: Y = beta C (or zeros).
      if (beta == 0.0f) {
        PRISM_CUDA_CALL(
            cudaMemsetAsync(y.MutableRawData(), 0, y.SizeInBytes(), provider_.Stream()));
      } else {
        CheckInt(m * n, GetNode(), "elements");
        provider_.WithCublas([&](cublasHandle_t handle) {
          PRISM_CUBLAS_CALL(
              cublasSscal(handle, static_cast<int>(m * n), &beta, y.MutableData<float>(), 1));
        });
      }
      return;
    }
    provider_.WithCublas([&](cublasHandle_t handle) {
      PRISM_CUBLAS_CALL(cublasSgemm(
          handle, trans_b_ ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a_ ? CUBLAS_OP_T : CUBLAS_OP_N,
          static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha_, b.Data<float>(),
          static_cast<int>(trans_b_ ? k : n), a.Data<float>(), static_cast<int>(trans_a_ ? m : k),
          &beta, y.MutableData<float>(), static_cast<int>(n)));
    });
  }

 private:
  const CudaExecutionProvider& provider_;
  bool trans_a_, trans_b_;
  float alpha_, beta_;
};

bool KnownRankAtLeast2(const NodeArg* arg) {
  return arg != nullptr && arg->shape && arg->shape->dims.size() >= 2;
}

bool SameDim(const Dim& a, const Dim& b) {
  return (a.IsKnown() && b.IsKnown() && a.value == b.value) ||
         (!a.IsKnown() && !b.IsKnown() && !a.param.empty() && a.param == b.param);
}

bool AllOnes(const SymbolicShape& shape) {
  for (size_t d = 0; d + 2 < shape.dims.size(); ++d)
    if (!(shape.dims[d].IsKnown() && shape.dims[d].value == 1)) return false;
  return true;
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("MatMul")
                        .Versions(1)
                        .Constraint("T", {ElementType::kFloat}, {0, 1}, {0})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<MatMulKernel>(info); });
  registry.Register(KernelDefBuilder("Gemm")
                        .Versions(7)
                        .Constraint("T", {ElementType::kFloat}, {0, 1, 2}, {0})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<GemmKernel>(info); });
}

std::string MatMulDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "MatMul") return "";
  const NodeArg* a = node.InputCount() > 0 ? node.Inputs()[0] : nullptr;
  const NodeArg* b = node.InputCount() > 1 ? node.Inputs()[1] : nullptr;
  if (!KnownRankAtLeast2(a) || !KnownRankAtLeast2(b))
    return "CUDAExecutionProvider's MatMul needs operands of known rank >= 2 (1-D operands and "
           "unknown ranks run on the CPU EP)";
  const SymbolicShape& as = *a->shape;
  const SymbolicShape& bs = *b->shape;
  if (AllOnes(as) || AllOnes(bs)) return "";
  bool equal = as.dims.size() == bs.dims.size();
  for (size_t d = 0; equal && d + 2 < as.dims.size(); ++d) equal = SameDim(as.dims[d], bs.dims[d]);
  if (!equal)
    return "CUDAExecutionProvider's MatMul needs equal batch dims or one side's all 1, got " +
           as.ToString() + " and " + bs.ToString();
  return "";
}

}  // namespace prism::cuda

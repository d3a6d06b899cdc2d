// Float reductions over any set of axes: a thread per output when each output reduces few
// elements, a block per output (tree reduction in shared memory) when it reduces many.
// LogSumExp takes the maximum first, then sums exp(x - max).
#include <cfloat>

#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kBlockPerOutputFrom = 256;  // reduced elements per output

__device__ int64_t Offset(int64_t linear, int rank, const int64_t* dims, const int64_t* strides) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (linear % dims[d]) * strides[d];
    linear /= dims[d];
  }
  return offset;
}

enum class Combine : int { kSum, kProd, kMax, kMin };

__device__ Combine CombineOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return Combine::kProd;
    case ReduceOp::kMax:
      return Combine::kMax;
    case ReduceOp::kMin:
      return Combine::kMin;
    default:
      return Combine::kSum;
  }
}

__device__ float Identity(Combine combine) {
  switch (combine) {
    case Combine::kProd:
      return 1.0f;
    case Combine::kMax:
      return -INFINITY;
    case Combine::kMin:
      return INFINITY;
    default:
      return 0.0f;
  }
}

__device__ float Apply(Combine combine, float a, float b) {
  switch (combine) {
    case Combine::kProd:
      return a * b;
    case Combine::kMax:
      return (a != a || b != b) ? a + b : fmaxf(a, b);  // NaN propagates
    case Combine::kMin:
      return (a != a || b != b) ? a + b : fminf(a, b);
    default:
      return a + b;
  }
}

// The value an element contributes (max: the row maximum, for LogSumExp).
__device__ float Transform(ReduceOp op, float x, float max) {
  switch (op) {
    case ReduceOp::kSumSquare:
    case ReduceOp::kL2:
      return x * x;
    case ReduceOp::kL1:
      return fabsf(x);
    case ReduceOp::kLogSumExp:
      return expf(x - max);
    default:
      return x;
  }
}

__device__ float Finish(ReduceOp op, float accumulated, int64_t count, float max) {
  switch (op) {
    case ReduceOp::kMean:
      return accumulated / static_cast<float>(count);
    case ReduceOp::kL2:
      return sqrtf(accumulated);
    case ReduceOp::kLogSum:
      return logf(accumulated);
    case ReduceOp::kLogSumExp:
      // All -inf (or nothing to reduce): the result is max itself, not NaN.
      return isinf(max) ? max : max + logf(accumulated);
    default:
      return accumulated;
  }
}

__device__ float BlockCombine(Combine combine, float value, float* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      shared[threadIdx.x] = Apply(combine, shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  const float result = shared[0];
  __syncthreads();
  return result;
}

__global__ void ReducePerThread(ReduceOp op, const float* x, float* out, int64_t out_count,
                                int64_t reduced_count, ReduceIndex index) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < out_count;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float* base = x + Offset(o, index.kept_rank, index.kept_dims, index.kept_strides);
    float max = 0.0f;
    if (op == ReduceOp::kLogSumExp) {
      max = -INFINITY;
      for (int64_t r = 0; r < reduced_count; ++r)
        max = Apply(Combine::kMax, max,
                    base[Offset(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)]);
    }
    const Combine combine = CombineOf(op);
    float accumulated = Identity(combine);
    for (int64_t r = 0; r < reduced_count; ++r)
      accumulated = Apply(
          combine, accumulated,
          Transform(op,
                    base[Offset(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)],
                    max));
    out[o] = Finish(op, accumulated, reduced_count, max);
  }
}

__global__ void ReducePerBlock(ReduceOp op, const float* x, float* out, int64_t out_count,
                               int64_t reduced_count, ReduceIndex index) {
  __shared__ float shared[kThreads];
  for (int64_t o = blockIdx.x; o < out_count; o += gridDim.x) {
    const float* base = x + Offset(o, index.kept_rank, index.kept_dims, index.kept_strides);
    float max = 0.0f;
    if (op == ReduceOp::kLogSumExp) {
      float local = -INFINITY;
      for (int64_t r = threadIdx.x; r < reduced_count; r += blockDim.x)
        local =
            Apply(Combine::kMax, local,
                  base[Offset(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)]);
      max = BlockCombine(Combine::kMax, local, shared);
    }
    const Combine combine = CombineOf(op);
    float local = Identity(combine);
    for (int64_t r = threadIdx.x; r < reduced_count; r += blockDim.x)
      local = Apply(
          combine, local,
          Transform(op,
                    base[Offset(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)],
                    max));
    const float accumulated = BlockCombine(combine, local, shared);
    if (threadIdx.x == 0) out[o] = Finish(op, accumulated, reduced_count, max);
  }
}

}  // namespace

cudaError_t LaunchReduceFloat(ReduceOp op, const float* x, float* out, int64_t out_count,
                              int64_t reduced_count, const ReduceIndex& index,
                              cudaStream_t stream) {
  if (out_count == 0) return cudaSuccess;
  if (index.kept_rank < 0 || index.kept_rank > 8 || index.reduced_rank < 0 ||
      index.reduced_rank > 8)
    return cudaErrorInvalidValue;
  if (reduced_count >= kBlockPerOutputFrom) {
    const int64_t blocks = out_count < 65535 * 16 ? out_count : 65535 * 16;
    ReducePerBlock<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(op, x, out, out_count,
                                                                           reduced_count, index);
  } else {
    const int64_t blocks = (out_count + kThreads - 1) / kThreads;
    ReducePerThread<<<static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8), kThreads, 0,
                      stream>>>(op, x, out, out_count, reduced_count, index);
  }
  return cudaGetLastError();
}

}  // namespace prism::cuda

// Elementwise float kernels with broadcasting: one thread per output element, grid-stride loop.
#include "providers/cuda/kernels/device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

__device__ float ApplyBinary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kMax: return (a != a || b != b) ? a + b : fmaxf(a, b);  // NaN propagates
    case BinaryOp::kMin: return (a != a || b != b) ? a + b : fminf(a, b);
    case BinaryOp::kPow: return powf(a, b);
    case BinaryOp::kCopyA: return a;
  }
  return 0.0f;
}

__global__ void BinaryKernel(BinaryOp op, const float* a, const float* b, float* y, int64_t count,
                             BroadcastIndex index, bool same_shape) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (same_shape) {
      y[i] = ApplyBinary(op, a[i], b != nullptr ? b[i] : 0.0f);
      continue;
    }
    int64_t rest = i, a_offset = 0, b_offset = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % index.out_dims[d];
      rest /= index.out_dims[d];
      a_offset += coordinate * index.a_strides[d];
      b_offset += coordinate * index.b_strides[d];
    }
    y[i] = ApplyBinary(op, a[a_offset], b != nullptr ? b[b_offset] : 0.0f);
  }
}

__device__ float ApplyUnary(UnaryOp op, float x, float alpha) {
  switch (op) {
    case UnaryOp::kRelu: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case UnaryOp::kSigmoid: return 1.0f / (1.0f + expf(-x));
    case UnaryOp::kTanh: return tanhf(x);
    case UnaryOp::kExp: return expf(x);
    case UnaryOp::kLog: return logf(x);
    case UnaryOp::kSqrt: return sqrtf(x);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return fabsf(x);
    case UnaryOp::kErf: return erff(x);
    case UnaryOp::kLeakyRelu: return x >= 0.0f ? x : alpha * x;
    case UnaryOp::kElu: return x >= 0.0f ? x : alpha * (expf(x) - 1.0f);
    case UnaryOp::kGeluErf: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case UnaryOp::kGeluTanh:
      return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
  return 0.0f;
}

__global__ void UnaryKernel(UnaryOp op, const float* x, float* y, int64_t count, float alpha) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = ApplyUnary(op, x[i], alpha);
}

}  // namespace

cudaError_t LaunchBinaryFloat(BinaryOp op, const float* a, const float* b, float* y,
                              int64_t count, const BroadcastIndex& index, bool same_shape,
                              cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  BinaryKernel<<<Blocks(count), kThreads, 0, stream>>>(op, a, b, y, count, index, same_shape);
  return cudaGetLastError();
}

cudaError_t LaunchUnaryFloat(UnaryOp op, const float* x, float* y, int64_t count, float alpha,
                             cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  UnaryKernel<<<Blocks(count), kThreads, 0, stream>>>(op, x, y, count, alpha);
  return cudaGetLastError();
}

}  // namespace prism::cuda

// Elementwise float kernels with broadcasting: one thread per output element, grid-stride loop.
#include <cstdint>

#include "providers/cuda/kernels/device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <BinaryOp kOp>
__device__ __forceinline__ float ApplyBinary(float a, float b) {
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kDiv) return a / b;
  if constexpr (kOp == BinaryOp::kMax) return (a != a || b != b) ? a + b : fmaxf(a, b);  // NaN
  if constexpr (kOp == BinaryOp::kMin) return (a != a || b != b) ? a + b : fminf(a, b);
  if constexpr (kOp == BinaryOp::kPow) return powf(a, b);
  return a;  // kCopyA
}

// Output dims after merging neighbours that every operand walks in the same way, and dropping
// unit dims: [B, S, H] + [H] becomes [B*S, H] with b's strides (0, 1), so most broadcasts
// need one or two index divisions per element.
BroadcastIndex Collapse(const BroadcastIndex& index) {
  BroadcastIndex out;
  for (int d = 0; d < index.rank; ++d) {
    if (index.out_dims[d] == 1) continue;
    const int last = out.rank - 1;
    if (last >= 0 && out.a_strides[last] == index.a_strides[d] * index.out_dims[d] &&
        out.b_strides[last] == index.b_strides[d] * index.out_dims[d]) {
      out.out_dims[last] *= index.out_dims[d];
      out.a_strides[last] = index.a_strides[d];
      out.b_strides[last] = index.b_strides[d];
      continue;
    }
    out.out_dims[out.rank] = index.out_dims[d];
    out.a_strides[out.rank] = index.a_strides[d];
    out.b_strides[out.rank] = index.b_strides[d];
    ++out.rank;
  }
  return out;
}

// Index arithmetic in IndexT: 32-bit divisions are several times cheaper than 64-bit ones.
template <BinaryOp kOp, typename IndexT>
__global__ void BinaryKernel(const float* a, const float* b, float* y, IndexT count,
                             BroadcastIndex index, bool same_shape) {
  for (IndexT i = blockIdx.x * static_cast<IndexT>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<IndexT>(gridDim.x) * blockDim.x) {
    if (same_shape) {
      y[i] = ApplyBinary<kOp>(a[i], b != nullptr ? b[i] : 0.0f);
      continue;
    }
    IndexT rest = i, a_offset = 0, b_offset = 0;
    for (int d = index.rank - 1; d > 0; --d) {
      const IndexT dim = static_cast<IndexT>(index.out_dims[d]);
      const IndexT coordinate = rest % dim;
      rest /= dim;
      a_offset += coordinate * static_cast<IndexT>(index.a_strides[d]);
      b_offset += coordinate * static_cast<IndexT>(index.b_strides[d]);
    }
    if (index.rank > 0) {
      a_offset += rest * static_cast<IndexT>(index.a_strides[0]);
      b_offset += rest * static_cast<IndexT>(index.b_strides[0]);
    }
    y[i] = ApplyBinary<kOp>(a[a_offset], b != nullptr ? b[b_offset] : 0.0f);
  }
}

// Four outputs per thread along a row of n (a multiple of 4) for the common layouts after
// Collapse: each operand walks a row either contiguously (column stride 1, row stride a multiple
// of 4, 16-byte aligned: one float4 load) or not at all (column stride 0: one value per row).
// That covers same-shape operands, a scalar, and a bias row or column broadcast over a matrix.
template <BinaryOp kOp>
__global__ void Binary4Kernel(const float* a, const float* b, float* y, uint32_t vectors,
                              uint32_t n, uint32_t a_row, bool a_walks, uint32_t b_row,
                              bool b_walks) {
  for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
       v += gridDim.x * blockDim.x) {
    const uint32_t element = v * 4;
    const uint32_t row = element / n;
    const uint32_t column = element - row * n;
    const float* a_at = a + row * a_row;
    const float* b_at = b + row * b_row;
    const float4 x = a_walks ? *reinterpret_cast<const float4*>(a_at + column)
                             : make_float4(*a_at, *a_at, *a_at, *a_at);
    const float4 z = b_walks ? *reinterpret_cast<const float4*>(b_at + column)
                             : make_float4(*b_at, *b_at, *b_at, *b_at);
    float4 out;
    out.x = ApplyBinary<kOp>(x.x, z.x);
    out.y = ApplyBinary<kOp>(x.y, z.y);
    out.z = ApplyBinary<kOp>(x.z, z.z);
    out.w = ApplyBinary<kOp>(x.w, z.w);
    *reinterpret_cast<float4*>(y + element) = out;
  }
}

bool Aligned16(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
}

// Launches Binary4Kernel when the collapsed broadcast has its layout; false when it has not.
template <BinaryOp kOp>
bool TryLaunchBinary4(const float* a, const float* b, float* y, int64_t count,
                      const BroadcastIndex& collapsed, cudaStream_t stream) {
  if (b == nullptr || count > INT32_MAX || count % 4 != 0 || !Aligned16(y)) return false;
  if (collapsed.rank < 1 || collapsed.rank > 2) return false;
  const bool two = collapsed.rank == 2;
  const int64_t n = collapsed.out_dims[collapsed.rank - 1];
  const int64_t a_column = collapsed.a_strides[collapsed.rank - 1];
  const int64_t b_column = collapsed.b_strides[collapsed.rank - 1];
  const int64_t a_row = two ? collapsed.a_strides[0] : 0;
  const int64_t b_row = two ? collapsed.b_strides[0] : 0;
  auto fits = [](const float* operand, int64_t column, int64_t row) {
    if (column == 0) return true;
    return column == 1 && row % 4 == 0 && Aligned16(operand);
  };
  if (n % 4 != 0 || !fits(a, a_column, a_row) || !fits(b, b_column, b_row)) return false;
  const int64_t vectors = count / 4;
  Binary4Kernel<kOp><<<Blocks(vectors), kThreads, 0, stream>>>(
      a, b, y, static_cast<uint32_t>(vectors), static_cast<uint32_t>(n),
      static_cast<uint32_t>(a_row), a_column == 1, static_cast<uint32_t>(b_row), b_column == 1);
  return true;
}

template <BinaryOp kOp>
cudaError_t LaunchBinary(const float* a, const float* b, float* y, int64_t count,
                         const BroadcastIndex& index, bool same_shape, cudaStream_t stream) {
  const BroadcastIndex collapsed = Collapse(index);
  if (TryLaunchBinary4<kOp>(a, b, y, count, collapsed, stream)) return cudaGetLastError();
  // A broadcast that collapses to one dim walked by both operands alike is elementwise.
  const bool flat =
      same_shape ||
      (collapsed.rank <= 1 &&
       (collapsed.rank == 0 || (collapsed.a_strides[0] == 1 && collapsed.b_strides[0] == 1)));
  if (count <= INT32_MAX)
    BinaryKernel<kOp, uint32_t><<<Blocks(count), kThreads, 0, stream>>>(
        a, b, y, static_cast<uint32_t>(count), collapsed, flat && collapsed.rank != 0);
  else
    BinaryKernel<kOp, int64_t><<<Blocks(count), kThreads, 0, stream>>>(a, b, y, count, collapsed,
                                                                       flat && collapsed.rank != 0);
  return cudaGetLastError();
}

__device__ float ApplyUnary(UnaryOp op, float x, float alpha) {
  switch (op) {
    case UnaryOp::kRelu:
      return x > 0.0f ? x : (x != x ? x : 0.0f);
    case UnaryOp::kSigmoid:
      return 1.0f / (1.0f + expf(-x));
    case UnaryOp::kTanh:
      return tanhf(x);
    case UnaryOp::kExp:
      return expf(x);
    case UnaryOp::kLog:
      return logf(x);
    case UnaryOp::kSqrt:
      return sqrtf(x);
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return fabsf(x);
    case UnaryOp::kErf:
      return erff(x);
    case UnaryOp::kLeakyRelu:
      return x >= 0.0f ? x : alpha * x;
    case UnaryOp::kElu:
      return x >= 0.0f ? x : alpha * (expf(x) - 1.0f);
    case UnaryOp::kGeluErf:
      return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
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

cudaError_t LaunchBinaryFloat(BinaryOp op, const float* a, const float* b, float* y, int64_t count,
                              const BroadcastIndex& index, bool same_shape, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  switch (op) {
    case BinaryOp::kAdd:
      return LaunchBinary<BinaryOp::kAdd>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kSub:
      return LaunchBinary<BinaryOp::kSub>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kMul:
      return LaunchBinary<BinaryOp::kMul>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kDiv:
      return LaunchBinary<BinaryOp::kDiv>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kMax:
      return LaunchBinary<BinaryOp::kMax>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kMin:
      return LaunchBinary<BinaryOp::kMin>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kPow:
      return LaunchBinary<BinaryOp::kPow>(a, b, y, count, index, same_shape, stream);
    case BinaryOp::kCopyA:
      return LaunchBinary<BinaryOp::kCopyA>(a, b, y, count, index, same_shape, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnaryFloat(UnaryOp op, const float* x, float* y, int64_t count, float alpha,
                             cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  UnaryKernel<<<Blocks(count), kThreads, 0, stream>>>(op, x, y, count, alpha);
  return cudaGetLastError();
}

}  // namespace prism::cuda

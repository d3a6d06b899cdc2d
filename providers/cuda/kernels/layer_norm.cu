// LayerNormalization (and SkipLayerNormalization's residual sum first) over contiguous rows: one
// block per row, two passes over the row for mean and variance (no cancellation from E[x^2]).
// Rows of up to 2048 values are read once into registers; longer ones are read three times.
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

// Sum over the block: warp shuffles, then the warps' partial sums (shared holds kThreads / 32).
__device__ float BlockSum(float value, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) shared[warp] = value;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += shared[w];
  __syncthreads();
  return total;
}

__device__ float Input(const LayerNormArgs& args, int64_t row, int64_t j) {
  float value = args.x[row * args.cols + j];
  if (args.skip != nullptr) value += args.skip[(row % args.skip_rows) * args.cols + j];
  if (args.bias != nullptr) value += args.bias[j];
  return value;
}

__global__ void LayerNormKernel(LayerNormArgs args) {
  __shared__ float shared[kThreads / 32];
  const int64_t row = blockIdx.x;
  const int64_t base = row * args.cols;
  float local = 0.0f;
  for (int64_t j = threadIdx.x; j < args.cols; j += blockDim.x) {
    const float value = Input(args, row, j);
    if (args.sum != nullptr) args.sum[base + j] = value;
    local += value;
  }
  const float mean = args.simplified ? 0.0f : BlockSum(local, shared) / args.cols;
  local = 0.0f;
  for (int64_t j = threadIdx.x; j < args.cols; j += blockDim.x) {
    const float centered = Input(args, row, j) - mean;
    local += centered * centered;
  }
  const float variance = BlockSum(local, shared) / args.cols;
  const float inv_std = rsqrtf(variance + args.epsilon);
  for (int64_t j = threadIdx.x; j < args.cols; j += blockDim.x) {
    float value = (Input(args, row, j) - mean) * inv_std * args.scale[j];
    if (args.shift != nullptr) value += args.shift[j];
    args.y[base + j] = value;
  }
  if (threadIdx.x == 0) {
    if (args.mean != nullptr) args.mean[row] = mean;
    if (args.inv_std_dev != nullptr) args.inv_std_dev[row] = inv_std;
  }
}

// The same computation with the row's kPerThread values per thread kept in registers.
template <int kPerThread>
__global__ void RegisterLayerNormKernel(LayerNormArgs args) {
  __shared__ float shared[kThreads / 32];
  const int64_t row = blockIdx.x;
  const int64_t base = row * args.cols;
  const int cols = static_cast<int>(args.cols);
  float values[kPerThread];
  float local = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int j = threadIdx.x + k * kThreads;
    values[k] = 0.0f;
    if (j < cols) {
      values[k] = Input(args, row, j);
      if (args.sum != nullptr) args.sum[base + j] = values[k];
      local += values[k];
    }
  }
  const float mean = args.simplified ? 0.0f : BlockSum(local, shared) / args.cols;
  local = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int j = threadIdx.x + k * kThreads;
    if (j < cols) {
      const float centered = values[k] - mean;
      local += centered * centered;
    }
  }
  const float variance = BlockSum(local, shared) / args.cols;
  const float inv_std = rsqrtf(variance + args.epsilon);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int j = threadIdx.x + k * kThreads;
    if (j >= cols) continue;
    float value = (values[k] - mean) * inv_std * args.scale[j];
    if (args.shift != nullptr) value += args.shift[j];
    args.y[base + j] = value;
  }
  if (threadIdx.x == 0) {
    if (args.mean != nullptr) args.mean[row] = mean;
    if (args.inv_std_dev != nullptr) args.inv_std_dev[row] = inv_std;
  }
}

}  // namespace

cudaError_t LaunchLayerNorm(const LayerNormArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return cudaSuccess;
  if (args.rows > 0x7fffffff || args.cols <= 0 || (args.skip != nullptr && args.skip_rows <= 0))
    return cudaErrorInvalidValue;
  const unsigned blocks = static_cast<unsigned>(args.rows);
  if (args.cols <= kThreads)
    RegisterLayerNormKernel<1><<<blocks, kThreads, 0, stream>>>(args);
  else if (args.cols <= 2 * kThreads)
    RegisterLayerNormKernel<2><<<blocks, kThreads, 0, stream>>>(args);
  else if (args.cols <= 4 * kThreads)
    RegisterLayerNormKernel<4><<<blocks, kThreads, 0, stream>>>(args);
  else if (args.cols <= 8 * kThreads)
    RegisterLayerNormKernel<8><<<blocks, kThreads, 0, stream>>>(args);
  else
    LayerNormKernel<<<blocks, kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace prism::cuda

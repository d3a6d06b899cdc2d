// LayerNormalization (and SkipLayerNormalization's residual sum first) over contiguous rows: one
// block per row, two passes over the row for mean and variance (no cancellation from E[x^2]).
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

__device__ float BlockSum(float value, float* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  const float result = shared[0];
  __syncthreads();
  return result;
}

__device__ float Input(const LayerNormArgs& args, int64_t row, int64_t j) {
  float value = args.x[row * args.cols + j];
  if (args.skip != nullptr) value += args.skip[(row % args.skip_rows) * args.cols + j];
  if (args.bias != nullptr) value += args.bias[j];
  return value;
}

__global__ void LayerNormKernel(LayerNormArgs args) {
  __shared__ float shared[kThreads];
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

}  // namespace

cudaError_t LaunchLayerNorm(const LayerNormArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return cudaSuccess;
  if (args.rows > 0x7fffffff || args.cols <= 0 || (args.skip != nullptr && args.skip_rows <= 0))
    return cudaErrorInvalidValue;
  LayerNormKernel<<<static_cast<unsigned>(args.rows), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace prism::cuda

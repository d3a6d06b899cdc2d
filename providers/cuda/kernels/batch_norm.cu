// Inference BatchNormalization: one thread per element, the channel's statistics read directly.
#include "providers/cuda/kernels/cnn_device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

__global__ void BatchNormKernel(const float* x, float* y, int64_t count, int64_t plane,
                                int64_t channels, const float* scale, const float* bias,
                                const float* mean, const float* var, float epsilon) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = (i / plane) % channels;
    y[i] = (x[i] - mean[c]) / sqrtf(var[c] + epsilon) * scale[c] + bias[c];
  }
}

}  // namespace

cudaError_t LaunchBatchNormInference(const float* x, float* y, int64_t count, int64_t plane,
                                     int64_t channels, const float* scale, const float* bias,
                                     const float* mean, const float* var, float epsilon,
                                     cudaStream_t stream) {
  if (count == 0 || plane == 0 || channels == 0) return cudaSuccess;
  BatchNormKernel<<<Blocks(count), kThreads, 0, stream>>>(x, y, count, plane, channels, scale, bias,
                                                          mean, var, epsilon);
  return cudaGetLastError();
}

}  // namespace prism::cuda

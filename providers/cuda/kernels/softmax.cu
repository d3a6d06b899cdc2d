// Softmax and LogSoftmax over the last axis: one block of 256 threads per row, max and sum reduced
// in shared memory, the row read three times (max, sum of exponentials, output).
#include <cfloat>

#include "providers/cuda/kernels/device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

__device__ float BlockReduce(float value, float* shared, bool take_max) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      const float other = shared[threadIdx.x + stride];
      shared[threadIdx.x] = take_max ? fmaxf(shared[threadIdx.x], other)
                                     : shared[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const float result = shared[0];
  __syncthreads();
  return result;
}

__global__ void SoftmaxKernel(const float* x, float* y, int64_t cols, bool log) {
  __shared__ float shared[kThreads];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float local_max = -FLT_MAX;
  bool has_nan = false;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    local_max = fmaxf(local_max, row[j]);
    has_nan = has_nan || row[j] != row[j];
  }
  const float row_max = BlockReduce(local_max, shared, true);
  const float nan_seen = BlockReduce(has_nan ? 1.0f : 0.0f, shared, true);
  float local_sum = 0.0f;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) local_sum += expf(row[j] - row_max);
  const float sum = BlockReduce(local_sum, shared, false);
  const float log_sum = logf(sum);
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    if (nan_seen != 0.0f)
      out[j] = __int_as_float(0x7fc00000);  // a NaN in the row makes the whole row NaN
    else
      out[j] = log ? row[j] - row_max - log_sum : expf(row[j] - row_max) / sum;
  }
}

}  // namespace

cudaError_t LaunchSoftmaxFloat(const float* x, float* y, int64_t rows, int64_t cols, bool log,
                               cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  // rows beyond the grid's x limit are refused by the caller (2^31 - 1 rows).
  SoftmaxKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols, log);
  return cudaGetLastError();
}

}  // namespace prism::cuda

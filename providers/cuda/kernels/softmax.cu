// Softmax and LogSoftmax over the last axis. Rows of up to 1024 values: one warp per row, the row
// held in registers and reduced with warp shuffles (one read, one write). Longer rows: one block
// of 256 threads per row, max and sum reduced in shared memory, the row read three times. Both
// give the same results: a NaN anywhere in a row makes the whole row NaN.
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
      shared[threadIdx.x] =
          take_max ? fmaxf(shared[threadIdx.x], other) : shared[threadIdx.x] + other;
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

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;

__device__ __forceinline__ float WarpMax(float value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

__device__ __forceinline__ float WarpSum(float value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// kPerLane values per lane: rows of up to 32 * kPerLane columns.
template <int kPerLane>
__global__ void WarpSoftmaxKernel(const float* x, float* y, int64_t rows, int cols, bool log) {
  const int64_t row_index = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarp;
  if (row_index >= rows) return;  // whole warps leave together
  const int lane = threadIdx.x % kWarp;
  const float* row = x + row_index * cols;
  float* out = y + row_index * cols;
  float values[kPerLane];
  float local_max = -FLT_MAX;
  bool has_nan = false;
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) {
    const int j = lane + k * kWarp;
    values[k] = j < cols ? row[j] : -FLT_MAX;
    local_max = fmaxf(local_max, values[k]);
    has_nan = has_nan || values[k] != values[k];
  }
  const float row_max = WarpMax(local_max);
  const bool nan_seen = __any_sync(0xffffffffu, has_nan);
  float local_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerLane; ++k)
    if (lane + k * kWarp < cols) local_sum += expf(values[k] - row_max);
  const float sum = WarpSum(local_sum);
  const float log_sum = logf(sum);
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) {
    const int j = lane + k * kWarp;
    if (j >= cols) continue;
    if (nan_seen)
      out[j] = __int_as_float(0x7fc00000);
    else
      out[j] = log ? values[k] - row_max - log_sum : expf(values[k] - row_max) / sum;
  }
}

template <int kPerLane>
cudaError_t LaunchWarpSoftmax(const float* x, float* y, int64_t rows, int cols, bool log,
                              cudaStream_t stream) {
  const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  WarpSoftmaxKernel<kPerLane>
      <<<static_cast<unsigned>(blocks), kWarpsPerBlock * kWarp, 0, stream>>>(x, y, rows, cols, log);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSoftmaxFloat(const float* x, float* y, int64_t rows, int64_t cols, bool log,
                               cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  // rows beyond the grid's x limit are refused by the caller (2^31 - 1 rows).
  if (cols <= 32) return LaunchWarpSoftmax<1>(x, y, rows, static_cast<int>(cols), log, stream);
  if (cols <= 64) return LaunchWarpSoftmax<2>(x, y, rows, static_cast<int>(cols), log, stream);
  if (cols <= 128) return LaunchWarpSoftmax<4>(x, y, rows, static_cast<int>(cols), log, stream);
  if (cols <= 256) return LaunchWarpSoftmax<8>(x, y, rows, static_cast<int>(cols), log, stream);
  if (cols <= 512) return LaunchWarpSoftmax<16>(x, y, rows, static_cast<int>(cols), log, stream);
  if (cols <= 1024) return LaunchWarpSoftmax<32>(x, y, rows, static_cast<int>(cols), log, stream);
  SoftmaxKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols, log);
  return cudaGetLastError();
}

}  // namespace prism::cuda

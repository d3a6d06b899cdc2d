// MaxPool, AveragePool (one thread per output, the window's taps looked up directly, so ceil
// mode, asymmetric pads and dilations follow ONNX exactly) and GlobalMaxPool/GlobalAveragePool
// (one block per plane).
#include <cfloat>

#include "providers/cuda/kernels/cnn_device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

__device__ int64_t CeilDiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Taps t in [0, kernel) with start + t * dilation < limit.
__device__ int64_t TapsBelow(int64_t start, int64_t limit, int64_t kernel, int64_t dilation) {
  if (limit <= start) return 0;
  const int64_t taps = CeilDiv(limit - start, dilation);
  return taps < kernel ? taps : kernel;
}

// One output cell's window, per axis: first and end tap inside the input, the start position,
// and the taps inside input + pads (count_include_pad's divisor).
struct Window {
  int64_t start[kMaxCnnSpatialRank];
  int64_t first[kMaxCnnSpatialRank];
  int64_t end[kMaxCnnSpatialRank];
  int64_t padded_taps;
};

__device__ Window WindowOf(const PoolWindowGeometry& g, int64_t out_index) {
  Window w;
  w.padded_taps = 1;
  int64_t rest = out_index;
  for (int d = kMaxCnnSpatialRank - 1; d >= 0; --d) {
    const int64_t o = rest % g.out_dims[d];
    rest /= g.out_dims[d];
    const int64_t start = o * g.strides[d] - g.pad_begin[d];
    const int64_t first = start >= 0 ? 0 : CeilDiv(-start, g.dilations[d]);
    w.start[d] = start;
    w.first[d] = first < g.kernel[d] ? first : g.kernel[d];
    w.end[d] = TapsBelow(start, g.in_dims[d], g.kernel[d], g.dilations[d]);
    w.padded_taps *= TapsBelow(start, g.in_dims[d] + g.pad_end[d], g.kernel[d], g.dilations[d]);
  }
  return w;
}

template <bool kMax>
__global__ void PoolKernel(const float* x, float* y, PoolWindowGeometry g, int64_t count,
                           bool count_include_pad) {
  const int64_t out_plane = g.out_dims[0] * g.out_dims[1] * g.out_dims[2];
  const int64_t in_plane = g.in_dims[0] * g.in_dims[1] * g.in_dims[2];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float* plane = x + (i / out_plane) * in_plane;
    const Window w = WindowOf(g, i % out_plane);
    float best = -FLT_MAX;
    float sum = 0.0f;
    int64_t taps = 0;
    for (int64_t t0 = w.first[0]; t0 < w.end[0]; ++t0) {
      const int64_t p0 = w.start[0] + t0 * g.dilations[0];
      for (int64_t t1 = w.first[1]; t1 < w.end[1]; ++t1) {
        const int64_t p1 = w.start[1] + t1 * g.dilations[1];
        const float* row = plane + (p0 * g.in_dims[1] + p1) * g.in_dims[2];
        for (int64_t t2 = w.first[2]; t2 < w.end[2]; ++t2) {
          const float v = row[w.start[2] + t2 * g.dilations[2]];
          if (kMax) {
            best = (v > best || v != v) ? v : best;  // NaN propagates
          } else {
            sum += v;
            ++taps;
          }
        }
      }
    }
    if (kMax) {
      y[i] = best;
    } else {
      // A window without counted cells has no average: 0 / 0 gives NaN, as on the CPU EP.
      const int64_t divisor = count_include_pad ? w.padded_taps : taps;
      y[i] = sum / static_cast<float>(divisor);
    }
  }
}

// One block per plane: a strided pass and a shared-memory tree reduction.
template <bool kMax>
__global__ void GlobalPoolKernel(const float* x, float* y, int64_t plane_size) {
  __shared__ float partial[kThreads];
  const float* plane = x + blockIdx.x * plane_size;
  float acc = kMax ? -FLT_MAX : 0.0f;
  for (int64_t i = threadIdx.x; i < plane_size; i += blockDim.x) {
    const float v = plane[i];
    if (kMax)
      acc = (v > acc || v != v) ? v : acc;
    else
      acc += v;
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const float a = partial[threadIdx.x], b = partial[threadIdx.x + half];
      partial[threadIdx.x] = kMax ? ((b > a || b != b) && a == a ? b : a) : a + b;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = kMax ? partial[0] : partial[0] / static_cast<float>(plane_size);
}

}  // namespace

cudaError_t LaunchMaxPool(const float* x, float* y, const PoolWindowGeometry& geometry,
                          cudaStream_t stream) {
  const int64_t count =
      geometry.planes * geometry.out_dims[0] * geometry.out_dims[1] * geometry.out_dims[2];
  if (count == 0) return cudaSuccess;
  PoolKernel<true><<<Blocks(count), kThreads, 0, stream>>>(x, y, geometry, count, false);
  return cudaGetLastError();
}

cudaError_t LaunchAveragePool(const float* x, float* y, const PoolWindowGeometry& geometry,
                              bool count_include_pad, cudaStream_t stream) {
  const int64_t count =
      geometry.planes * geometry.out_dims[0] * geometry.out_dims[1] * geometry.out_dims[2];
  if (count == 0) return cudaSuccess;
  PoolKernel<false>
      <<<Blocks(count), kThreads, 0, stream>>>(x, y, geometry, count, count_include_pad);
  return cudaGetLastError();
}

cudaError_t LaunchGlobalPool(const float* x, float* y, int64_t planes, int64_t plane_size, bool max,
                             cudaStream_t stream) {
  if (planes == 0) return cudaSuccess;
  // Planes go on the grid's x axis (up to 2^31 - 1 blocks).
  if (planes > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const unsigned blocks = static_cast<unsigned>(planes);
  if (max)
    GlobalPoolKernel<true><<<blocks, kThreads, 0, stream>>>(x, y, plane_size);
  else
    GlobalPoolKernel<false><<<blocks, kThreads, 0, stream>>>(x, y, plane_size);
  return cudaGetLastError();
}

}  // namespace prism::cuda

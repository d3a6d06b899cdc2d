// What follows a cuDNN convolution: bias, FusedConv's Z and activation in one elementwise pass;
// and the shifted copies around it (a zero-padded X for asymmetric pads, a crop of a full
// ConvTranspose result).
#include "providers/cuda/kernels/cnn_device_kernels.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

__device__ float Activate(ConvActivationKind kind, float v, float alpha, float beta) {
  switch (kind) {
    case ConvActivationKind::kNone:
      return v;
    case ConvActivationKind::kRelu:
      return v < 0.0f ? 0.0f : v;  // NaN stays NaN
    case ConvActivationKind::kTanh:
      return tanhf(v);
    case ConvActivationKind::kSigmoid:
      return 1.0f / (1.0f + expf(-v));
    case ConvActivationKind::kLeakyRelu:
      return v < 0.0f ? alpha * v : v;
    case ConvActivationKind::kClip:
      return fminf(fmaxf(v, alpha), beta);
    case ConvActivationKind::kHardSigmoid: {
      const float h = alpha * v + beta;
      return h != h ? h : fmaxf(0.0f, fminf(1.0f, h));
    }
  }
  return v;
}

__global__ void ConvEpilogueKernel(float* y, int64_t count, int64_t plane, int64_t channels,
                                   const float* bias, const float* z, ConvActivationKind kind,
                                   float alpha, float beta) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = y[i];
    if (bias != nullptr) v += bias[(i / plane) % channels];
    if (z != nullptr) v += z[i];
    y[i] = Activate(kind, v, alpha, beta);
  }
}

__global__ void ShiftCopyKernel(const float* in, float* out, ShiftCopyGeometry g, int64_t count) {
  const int64_t out_plane = g.out_dims[0] * g.out_dims[1] * g.out_dims[2];
  const int64_t in_plane = g.in_dims[0] * g.in_dims[1] * g.in_dims[2];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i % out_plane;
    const int64_t p = i / out_plane;
    int64_t source = 0;
    bool inside = true;
    int64_t position[kMaxCnnSpatialRank];
    for (int d = kMaxCnnSpatialRank - 1; d >= 0; --d) {
      position[d] = rest % g.out_dims[d] - g.offset[d];
      rest /= g.out_dims[d];
      if (position[d] < 0 || position[d] >= g.in_dims[d]) inside = false;
    }
    if (inside) source = (position[0] * g.in_dims[1] + position[1]) * g.in_dims[2] + position[2];
    out[i] = inside ? in[p * in_plane + source] : 0.0f;
  }
}

}  // namespace

cudaError_t LaunchConvEpilogue(float* y, int64_t count, int64_t plane, int64_t channels,
                               const float* bias, const float* z, ConvActivationKind kind,
                               float alpha, float beta, cudaStream_t stream) {
  if (count == 0 || plane == 0 || channels == 0) return cudaSuccess;
  ConvEpilogueKernel<<<Blocks(count), kThreads, 0, stream>>>(y, count, plane, channels, bias, z,
                                                             kind, alpha, beta);
  return cudaGetLastError();
}

cudaError_t LaunchShiftCopy(const float* in, float* out, const ShiftCopyGeometry& geometry,
                            cudaStream_t stream) {
  const int64_t count =
      geometry.planes * geometry.out_dims[0] * geometry.out_dims[1] * geometry.out_dims[2];
  if (count == 0) return cudaSuccess;
  ShiftCopyKernel<<<Blocks(count), kThreads, 0, stream>>>(in, out, geometry, count);
  return cudaGetLastError();
}

}  // namespace prism::cuda

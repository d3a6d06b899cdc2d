// Device code of the CUDA EP's CNN kernels (conv_epilogue.cu, pool.cu, batch_norm.cu), behind
// plain launch functions like device_kernels.h: no Prism headers cross into device code. Every
// launch is asynchronous on the given stream and returns the launch error.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace prism::cuda {

// FusedConv's activations (com.microsoft): alpha/beta as its activation_params.
enum class ConvActivationKind : int {
  kNone,
  kRelu,
  kTanh,
  kSigmoid,
  kLeakyRelu,    // alpha
  kClip,         // [alpha, beta] = [min, max]
  kHardSigmoid,  // max(0, min(1, alpha * x + beta))
};

// y[i] = act(y[i] + bias[channel] + z[i]) for count elements of [N, channels, plane] (bias and z
// may be null).
cudaError_t LaunchConvEpilogue(float* y, int64_t count, int64_t plane, int64_t channels,
                               const float* bias, const float* z, ConvActivationKind kind,
                               float alpha, float beta, cudaStream_t stream);

constexpr int kMaxCnnSpatialRank = 3;

// Per (n, c) plane: out[o] = in[o - offset] where that lies inside in, else 0, over up to 3
// spatial axes (unused axes have dims 1 and offset 0). A zero-padded copy (offset = the begin
// pad) or a crop (offset = -the first kept position).
struct ShiftCopyGeometry {
  int64_t planes = 0;
  int64_t in_dims[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t out_dims[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t offset[kMaxCnnSpatialRank] = {0, 0, 0};
};
cudaError_t LaunchShiftCopy(const float* in, float* out, const ShiftCopyGeometry& geometry,
                            cudaStream_t stream);

// MaxPool / AveragePool windows over up to 3 spatial axes (unused axes: dims 1, kernel 1,
// stride 1, dilation 1, pads 0), with ONNX's (onnxruntime's) semantics: taps outside the input
// are skipped; MaxPool of a window without taps gives the lowest float; AveragePool divides by
// the taps inside the input, or with count_include_pad by the taps inside input + pads.
struct PoolWindowGeometry {
  int64_t planes = 0;
  int64_t in_dims[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t out_dims[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t kernel[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t strides[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t dilations[kMaxCnnSpatialRank] = {1, 1, 1};
  int64_t pad_begin[kMaxCnnSpatialRank] = {0, 0, 0};
  int64_t pad_end[kMaxCnnSpatialRank] = {0, 0, 0};
};
cudaError_t LaunchMaxPool(const float* x, float* y, const PoolWindowGeometry& geometry,
                          cudaStream_t stream);
cudaError_t LaunchAveragePool(const float* x, float* y, const PoolWindowGeometry& geometry,
                              bool count_include_pad, cudaStream_t stream);

// y[p] = max (or mean) of the plane_size values of plane p, for planes planes.
cudaError_t LaunchGlobalPool(const float* x, float* y, int64_t planes, int64_t plane_size, bool max,
                             cudaStream_t stream);

// Inference BatchNormalization over [N, channels, plane]:
// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
cudaError_t LaunchBatchNormInference(const float* x, float* y, int64_t count, int64_t plane,
                                     int64_t channels, const float* scale, const float* bias,
                                     const float* mean, const float* var, float epsilon,
                                     cudaStream_t stream);

}  // namespace prism::cuda

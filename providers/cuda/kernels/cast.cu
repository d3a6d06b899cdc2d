// Cast between float, float16, double, int8, uint8, int32, int64 and bool: one kernel per type
// pair. float16 goes through float (double through __double2half, rounding once); anything to
// bool is "!= 0" (NaN is true, as numpy and onnxruntime give), bool to a number is 0 or 1.
#include <type_traits>

#include <cuda_fp16.h>

#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <typename To, typename From>
__device__ To Convert(From value) {
  if constexpr (std::is_same_v<From, To>) {
    return value;
  } else if constexpr (std::is_same_v<From, __half>) {
    return Convert<To>(__half2float(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (std::is_same_v<To, __half>) {
    if constexpr (std::is_same_v<From, double>)
      return __double2half(value);
    else
      return __float2half(static_cast<float>(value));
  } else {
    return static_cast<To>(value);
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* in, To* out, int64_t count) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = Convert<To>(in[i]);
}

template <typename From, typename To>
cudaError_t LaunchPair(const void* in, void* out, int64_t count, cudaStream_t stream) {
  CastKernel<From, To><<<Blocks(count), kThreads, 0, stream>>>(static_cast<const From*>(in),
                                                               static_cast<To*>(out), count);
  return cudaGetLastError();
}

template <typename From>
cudaError_t LaunchFrom(const void* in, void* out, CastType to, int64_t count, cudaStream_t stream) {
  switch (to) {
    case CastType::kFloat:
      return LaunchPair<From, float>(in, out, count, stream);
    case CastType::kFloat16:
      return LaunchPair<From, __half>(in, out, count, stream);
    case CastType::kDouble:
      return LaunchPair<From, double>(in, out, count, stream);
    case CastType::kInt8:
      return LaunchPair<From, int8_t>(in, out, count, stream);
    case CastType::kUint8:
      return LaunchPair<From, uint8_t>(in, out, count, stream);
    case CastType::kInt32:
      return LaunchPair<From, int32_t>(in, out, count, stream);
    case CastType::kInt64:
      return LaunchPair<From, int64_t>(in, out, count, stream);
    case CastType::kBool:
      return LaunchPair<From, bool>(in, out, count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(const void* in, CastType from, void* out, CastType to, int64_t count,
                       cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  switch (from) {
    case CastType::kFloat:
      return LaunchFrom<float>(in, out, to, count, stream);
    case CastType::kFloat16:
      return LaunchFrom<__half>(in, out, to, count, stream);
    case CastType::kDouble:
      return LaunchFrom<double>(in, out, to, count, stream);
    case CastType::kInt8:
      return LaunchFrom<int8_t>(in, out, to, count, stream);
    case CastType::kUint8:
      return LaunchFrom<uint8_t>(in, out, to, count, stream);
    case CastType::kInt32:
      return LaunchFrom<int32_t>(in, out, to, count, stream);
    case CastType::kInt64:
      return LaunchFrom<int64_t>(in, out, to, count, stream);
    case CastType::kBool:
      return LaunchFrom<bool>(in, out, to, count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace prism::cuda

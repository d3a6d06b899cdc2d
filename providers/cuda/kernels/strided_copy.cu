// One strided copy kernel for every pure data-movement op: each thread walks output coordinates
// and moves one element of 1, 2, 4 or 8 bytes (typed as an unsigned integer of that size).
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <typename Element>
__global__ void StridedCopyKernel(const Element* in, Element* out, int64_t count,
                                  StridedCopy copy) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, in_offset = copy.in_offset, out_offset = copy.out_offset;
    for (int d = copy.rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % copy.dims[d];
      rest /= copy.dims[d];
      in_offset += coordinate * copy.in_strides[d];
      out_offset += coordinate * copy.out_strides[d];
    }
    out[out_offset] = in[in_offset];
  }
}

template <typename Element>
cudaError_t Launch(const void* in, void* out, int64_t count, const StridedCopy& copy,
                   cudaStream_t stream) {
  StridedCopyKernel<Element><<<Blocks(count), kThreads, 0, stream>>>(
      static_cast<const Element*>(in), static_cast<Element*>(out), count, copy);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(const void* in, void* out, int element_size, const StridedCopy& copy,
                              cudaStream_t stream) {
  if (copy.rank < 0 || copy.rank > kMaxCopyRank) return cudaErrorInvalidValue;
  int64_t count = 1;
  for (int d = 0; d < copy.rank; ++d) count *= copy.dims[d];
  if (count == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Launch<uint8_t>(in, out, count, copy, stream);
    case 2:
      return Launch<uint16_t>(in, out, count, copy, stream);
    case 4:
      return Launch<uint32_t>(in, out, count, copy, stream);
    case 8:
      return Launch<uint64_t>(in, out, count, copy, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace prism::cuda

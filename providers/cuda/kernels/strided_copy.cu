// One strided copy kernel for every pure data-movement op: each thread walks output coordinates
// and moves one element of 1, 2, 4 or 8 bytes (typed as an unsigned integer of that size).
#include <cstdint>

#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

// Index arithmetic in IndexT/OffsetT: 32-bit divisions are several times cheaper than 64-bit
// ones, and most copies fit (Launch checks).
template <typename Element, typename IndexT, typename OffsetT>
__global__ void StridedCopyKernel(const Element* in, Element* out, IndexT count, StridedCopy copy) {
  for (IndexT i = blockIdx.x * static_cast<IndexT>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<IndexT>(gridDim.x) * blockDim.x) {
    IndexT rest = i;
    OffsetT in_offset = static_cast<OffsetT>(copy.in_offset);
    OffsetT out_offset = static_cast<OffsetT>(copy.out_offset);
    for (int d = copy.rank - 1; d >= 0; --d) {
      const IndexT dim = static_cast<IndexT>(copy.dims[d]);
      const OffsetT coordinate = static_cast<OffsetT>(rest % dim);
      rest /= dim;
      in_offset += coordinate * static_cast<OffsetT>(copy.in_strides[d]);
      out_offset += coordinate * static_cast<OffsetT>(copy.out_strides[d]);
    }
    out[out_offset] = in[in_offset];
  }
}

// The largest |offset| a copy reaches on one side.
int64_t OffsetBound(int64_t offset, const int64_t* strides, const int64_t* dims, int rank) {
  int64_t bound = offset < 0 ? -offset : offset;
  for (int d = 0; d < rank; ++d)
    bound += (strides[d] < 0 ? -strides[d] : strides[d]) * (dims[d] - 1);
  return bound;
}

template <typename Element>
cudaError_t Launch(const void* in, void* out, int64_t count, const StridedCopy& copy,
                   cudaStream_t stream) {
  const bool fits32 =
      count <= INT32_MAX &&
      OffsetBound(copy.in_offset, copy.in_strides, copy.dims, copy.rank) <= INT32_MAX &&
      OffsetBound(copy.out_offset, copy.out_strides, copy.dims, copy.rank) <= INT32_MAX;
  if (fits32)
    StridedCopyKernel<Element, uint32_t, int32_t><<<Blocks(count), kThreads, 0, stream>>>(
        static_cast<const Element*>(in), static_cast<Element*>(out), static_cast<uint32_t>(count),
        copy);
  else
    StridedCopyKernel<Element, int64_t, int64_t><<<Blocks(count), kThreads, 0, stream>>>(
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

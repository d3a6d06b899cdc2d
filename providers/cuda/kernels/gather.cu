// Gather along one axis, by element size; indices int32 or int64. An out-of-range index cannot be
// reported from a kernel, so it raises a device flag that the host reads back after the launch.
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <typename Element, typename Index>
__global__ void GatherKernel(const Element* in, Element* out, const Index* indices, int64_t count,
                             int64_t axis_dim, int64_t index_count, int64_t inner,
                             int* error_flag) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t within = i % inner;
    const int64_t rest = i / inner;
    const int64_t j = rest % index_count;
    const int64_t outer = rest / index_count;
    int64_t index = static_cast<int64_t>(indices[j]);
    if (index < 0) index += axis_dim;
    if (index < 0 || index >= axis_dim) {
      *error_flag = 1;
      out[i] = Element(0);
      continue;
    }
    out[i] = in[(outer * axis_dim + index) * inner + within];
  }
}

template <typename Element>
cudaError_t LaunchTyped(const void* in, void* out, const void* indices, bool indices_int64,
                        int64_t count, int64_t axis_dim, int64_t index_count, int64_t inner,
                        int* error_flag, cudaStream_t stream) {
  if (indices_int64)
    GatherKernel<<<Blocks(count), kThreads, 0, stream>>>(
        static_cast<const Element*>(in), static_cast<Element*>(out),
        static_cast<const int64_t*>(indices), count, axis_dim, index_count, inner, error_flag);
  else
    GatherKernel<<<Blocks(count), kThreads, 0, stream>>>(
        static_cast<const Element*>(in), static_cast<Element*>(out),
        static_cast<const int32_t*>(indices), count, axis_dim, index_count, inner, error_flag);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchGather(const void* in, void* out, int element_size, const void* indices,
                         bool indices_int64, int64_t outer, int64_t axis_dim, int64_t index_count,
                         int64_t inner, int* error_flag, cudaStream_t stream) {
  const int64_t count = outer * index_count * inner;
  if (count == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return LaunchTyped<uint8_t>(in, out, indices, indices_int64, count, axis_dim, index_count,
                                  inner, error_flag, stream);
    case 2:
      return LaunchTyped<uint16_t>(in, out, indices, indices_int64, count, axis_dim, index_count,
                                   inner, error_flag, stream);
    case 4:
      return LaunchTyped<uint32_t>(in, out, indices, indices_int64, count, axis_dim, index_count,
                                   inner, error_flag, stream);
    case 8:
      return LaunchTyped<uint64_t>(in, out, indices, indices_int64, count, axis_dim, index_count,
                                   inner, error_flag, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace prism::cuda

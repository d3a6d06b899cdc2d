// Where with numpy broadcasting of its three operands, by element size.
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <typename Element>
__global__ void WhereKernel(const bool* cond, const Element* x, const Element* y, Element* out,
                            int64_t count, WhereIndex index) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, c = 0, a = 0, b = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % index.out_dims[d];
      rest /= index.out_dims[d];
      c += coordinate * index.cond_strides[d];
      a += coordinate * index.x_strides[d];
      b += coordinate * index.y_strides[d];
    }
    out[i] = cond[c] ? x[a] : y[b];
  }
}

template <typename Element>
cudaError_t Launch(const bool* cond, const void* x, const void* y, void* out, int64_t count,
                   const WhereIndex& index, cudaStream_t stream) {
  WhereKernel<<<Blocks(count), kThreads, 0, stream>>>(cond, static_cast<const Element*>(x),
                                                      static_cast<const Element*>(y),
                                                      static_cast<Element*>(out), count, index);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchWhere(const bool* cond, const void* x, const void* y, void* out, int element_size,
                        int64_t count, const WhereIndex& index, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Launch<uint8_t>(cond, x, y, out, count, index, stream);
    case 2:
      return Launch<uint16_t>(cond, x, y, out, count, index, stream);
    case 4:
      return Launch<uint32_t>(cond, x, y, out, count, index, stream);
    case 8:
      return Launch<uint64_t>(cond, x, y, out, count, index, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace prism::cuda

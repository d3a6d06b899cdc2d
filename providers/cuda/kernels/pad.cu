// Pad (constant, edge, reflect), by element size: each output element finds its source
// coordinate per dim, or takes the pad value.
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <typename Element>
__global__ void PadKernel(const Element* in, Element* out, int64_t count, PadIndex index,
                          PadMode mode, Element value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, offset = 0, stride = 1;
    bool outside = false;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t dim = index.in_dims[d];
      int64_t source = rest % index.out_dims[d] - index.pads_begin[d];
      rest /= index.out_dims[d];
      if (source < 0 || source >= dim) {
        if (mode == PadMode::kConstant || dim == 0) {
          outside = true;
          break;
        }
        if (mode == PadMode::kEdge) {
          source = source < 0 ? 0 : dim - 1;
        } else {
          // Mirror without repeating the edge: period 2 * (dim - 1).
          const int64_t period = 2 * (dim - 1);
          source = source % period;
          if (source < 0) source += period;
          if (source >= dim) source = period - source;
        }
      }
      offset += source * stride;
      stride *= dim;
    }
    out[i] = outside ? value : in[offset];
  }
}

template <typename Element>
cudaError_t Launch(const void* in, void* out, int64_t count, const PadIndex& index, PadMode mode,
                   uint64_t value_bits, cudaStream_t stream) {
  const Element value = static_cast<Element>(value_bits);
  PadKernel<<<Blocks(count), kThreads, 0, stream>>>(
      static_cast<const Element*>(in), static_cast<Element*>(out), count, index, mode, value);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPad(const void* in, void* out, int element_size, const PadIndex& index,
                      PadMode mode, uint64_t value_bits, cudaStream_t stream) {
  if (index.rank < 1 || index.rank > 8) return cudaErrorInvalidValue;
  int64_t count = 1;
  for (int d = 0; d < index.rank; ++d) count *= index.out_dims[d];
  if (count == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Launch<uint8_t>(in, out, count, index, mode, value_bits, stream);
    case 2:
      return Launch<uint16_t>(in, out, count, index, mode, value_bits, stream);
    case 4:
      return Launch<uint32_t>(in, out, count, index, mode, value_bits, stream);
    case 8:
      return Launch<uint64_t>(in, out, count, index, mode, value_bits, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace prism::cuda

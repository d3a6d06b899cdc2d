#include "providers/cuda/kernels/movement_common.h"

#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"

namespace prism::cuda {

const std::vector<ElementType>& MovableTypes() {
  using E = ElementType;
  static const std::vector<ElementType> types = {
      E::kFloat, E::kFloat16, E::kBFloat16, E::kDouble, E::kInt8,   E::kInt16, E::kInt32,
      E::kInt64, E::kUint8,   E::kUint16,   E::kUint32, E::kUint64, E::kBool};
  return types;
}

int ElementSize(ElementType type) {
  for (ElementType movable : MovableTypes())
    if (movable == type) return ElementBits(type) / 8;
  return 0;
}

StridedCopy SimplifyCopy(const StridedCopy& copy) {
  StridedCopy simple;
  simple.in_offset = copy.in_offset;
  simple.out_offset = copy.out_offset;
  for (int d = 0; d < copy.rank; ++d) {
    if (copy.dims[d] == 0) {  // nothing to copy: one empty dim says so
      simple.rank = 1;
      simple.dims[0] = 0;
      return simple;
    }
    if (copy.dims[d] == 1) continue;
    const int last = simple.rank - 1;
    if (last >= 0 && simple.in_strides[last] == copy.in_strides[d] * copy.dims[d] &&
        simple.out_strides[last] == copy.out_strides[d] * copy.dims[d]) {
      simple.dims[last] *= copy.dims[d];
      simple.in_strides[last] = copy.in_strides[d];
      simple.out_strides[last] = copy.out_strides[d];
      continue;
    }
    simple.dims[simple.rank] = copy.dims[d];
    simple.in_strides[simple.rank] = copy.in_strides[d];
    simple.out_strides[simple.rank] = copy.out_strides[d];
    ++simple.rank;
  }
  return simple;
}

void RunStridedCopy(const void* in, void* out, ElementType type, const StridedCopy& copy,
                    const CudaExecutionProvider& provider, const Node& node) {
  const int size = ElementSize(type);
  PRISM_ENFORCE(size > 0, kNotImplemented, node.Describe(),
                ": CUDAExecutionProvider moves elements of 1, 2, 4 or 8 bytes, not ",
                ElementTypeName(type));
  PRISM_ENFORCE(copy.rank >= 0 && copy.rank <= kMaxCopyRank, kNotImplemented, node.Describe(),
                ": CUDAExecutionProvider copies up to rank ", kMaxCopyRank, ", got ", copy.rank);
  const StridedCopy simple = SimplifyCopy(copy);
  if (simple.rank == 1 && simple.dims[0] == 0) return;
  const bool one_run = simple.rank == 0 || (simple.rank == 1 && simple.in_strides[0] == 1 &&
                                            simple.out_strides[0] == 1);
  if (one_run) {
    const int64_t count = simple.rank == 0 ? 1 : simple.dims[0];
    PRISM_CUDA_CALL(cudaMemcpyAsync(static_cast<char*>(out) + simple.out_offset * size,
                                    static_cast<const char*>(in) + simple.in_offset * size,
                                    static_cast<size_t>(count) * size, cudaMemcpyDeviceToDevice,
                                    provider.Stream()));
    return;
  }
  PRISM_CUDA_CALL(LaunchStridedCopy(in, out, size, simple, provider.Stream()));
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

std::vector<int64_t> ReadHostInts(const Tensor& tensor, const std::string& what) {
  PRISM_ENFORCE(tensor.Location().IsCpuAccessible(), kEpFail, what,
                " must be in CPU memory, found in ", tensor.Location().ToString());
  return cpu::ReadIntList(tensor, what);
}

void BroadcastStrides(const TensorShape& operand, const TensorShape& output, int64_t* strides) {
  const size_t offset = output.Rank() - operand.Rank();
  int64_t stride = 1;
  for (size_t d = output.Rank(); d-- > 0;) {
    if (d < offset) {
      strides[d] = 0;
      continue;
    }
    const int64_t dim = operand[d - offset];
    strides[d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

}  // namespace prism::cuda

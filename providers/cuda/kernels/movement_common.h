// Host helpers shared by the CUDA EP's data-movement kernels: the element types they move (by
// size), strided copies with their dims simplified first, and the small integer inputs (shapes,
// axes) they read in CPU memory.
#pragma once

#include <string>
#include <vector>

#include "framework/tensor.h"
#include "graph/node.h"
#include "providers/cuda/kernels/movement_device.h"

namespace prism::cuda {

class CudaExecutionProvider;

// Every element type of 1, 2, 4 or 8 bytes (no strings, sub-byte or complex types).
const std::vector<ElementType>& MovableTypes();
// 1, 2, 4 or 8 for MovableTypes(), 0 otherwise.
int ElementSize(ElementType type);

// Drops size-1 dims and merges dims that are contiguous in both source and target, so that most
// copies become one or two dims (a single run of both becomes one cudaMemcpyAsync).
StridedCopy SimplifyCopy(const StridedCopy& copy);

// Runs copy (after SimplifyCopy) on the EP's stream; type must be one of MovableTypes(). rank
// must be at most kMaxCopyRank before simplifying.
void RunStridedCopy(const void* in, void* out, ElementType type, const StridedCopy& copy,
                    const CudaExecutionProvider& provider, const Node& node);

// Row-major element strides of dims.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims);

// A 1-D (or scalar) int64/int32 tensor in CPU memory as a list.
std::vector<int64_t> ReadHostInts(const Tensor& tensor, const std::string& what);

// Operand strides over the output's dims (0 where the operand is broadcast), aligned right: what
// the broadcasting kernels (binary math, Where) read each operand with.
void BroadcastStrides(const TensorShape& operand, const TensorShape& output, int64_t* strides);

}  // namespace prism::cuda

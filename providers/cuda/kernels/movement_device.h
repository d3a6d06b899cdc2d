// Device code for data movement, normalization and reductions (kernels/*.cu, nvcc, C++17), behind
// plain launch functions like device_kernels.h: no Prism headers here. Data-movement launches copy
// elements by size (1, 2, 4 or 8 bytes), so one kernel serves every element type of that size.
// Every launch is asynchronous on the given stream and returns the launch error.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace prism::cuda {

// Rank of a strided copy's iteration space: Tile splits each of up to 8 dims in two.
constexpr int kMaxCopyRank = 16;

// out[out_offset + sum(c[d] * out_strides[d])] = in[in_offset + sum(c[d] * in_strides[d])] for
// every coordinate c of dims (row-major). Strides count elements and may be 0 (broadcast) or
// negative (Slice with negative steps). Serves Transpose, Expand, Tile, Slice, Concat and Split.
struct StridedCopy {
  int rank = 0;
  int64_t dims[kMaxCopyRank] = {};
  int64_t in_strides[kMaxCopyRank] = {};
  int64_t out_strides[kMaxCopyRank] = {};
  int64_t in_offset = 0;
  int64_t out_offset = 0;
};

// element_size: 1, 2, 4 or 8 (anything else is cudaErrorInvalidValue).
cudaError_t LaunchStridedCopy(const void* in, void* out, int element_size, const StridedCopy& copy,
                              cudaStream_t stream);

// Gather along one axis: out[o, j, i] = in[o, index(j), i] for o < outer, j < index_count,
// i < inner, with in's axis of length axis_dim. Negative indices count from the back; an index
// outside [-axis_dim, axis_dim) writes zeros and sets *error_flag (device memory) to 1.
cudaError_t LaunchGather(const void* in, void* out, int element_size, const void* indices,
                         bool indices_int64, int64_t outer, int64_t axis_dim, int64_t index_count,
                         int64_t inner, int* error_flag, cudaStream_t stream);

// Element types Cast converts between on the device.
enum class CastType : int { kFloat, kFloat16, kDouble, kInt8, kUint8, kInt32, kInt64, kBool };
cudaError_t LaunchCast(const void* in, CastType from, void* out, CastType to, int64_t count,
                       cudaStream_t stream);

// Where with broadcasting: y[i] = cond[.] ? x[.] : other[.]; strides per output dim (0 where an
// operand is broadcast), up to rank 8.
struct WhereIndex {
  int rank = 0;
  int64_t out_dims[8] = {};
  int64_t cond_strides[8] = {};
  int64_t x_strides[8] = {};
  int64_t y_strides[8] = {};
};
cudaError_t LaunchWhere(const bool* cond, const void* x, const void* y, void* out, int element_size,
                        int64_t count, const WhereIndex& index, cudaStream_t stream);

// Pad: out coordinate c reads in coordinate c - pads_begin; outside the input, mode constant
// writes value_bytes (the pad value's element_size bytes), edge clamps, reflect mirrors (without
// repeating the edge; each input dim used by reflect is >= 2 and its pads are < the dim).
enum class PadMode : int { kConstant, kEdge, kReflect };
struct PadIndex {
  int rank = 0;
  int64_t out_dims[8] = {};
  int64_t in_dims[8] = {};
  int64_t pads_begin[8] = {};
};
cudaError_t LaunchPad(const void* in, void* out, int element_size, const PadIndex& index,
                      PadMode mode, uint64_t value_bits, cudaStream_t stream);

// LayerNormalization over rows of cols floats: y = (x [+ skip] [+ bias] - mean) * inv_std *
// scale [+ shift]. skip is read at row % skip_rows (skip_rows divides rows); sum, mean and
// inv_std_dev are written when non-null (sum: x + skip + bias, as SkipLayerNormalization's
// fourth output).
struct LayerNormArgs {
  const float* x = nullptr;
  const float* skip = nullptr;
  int64_t skip_rows = 0;
  const float* bias = nullptr;
  const float* scale = nullptr;
  const float* shift = nullptr;
  float* y = nullptr;
  float* sum = nullptr;
  float* mean = nullptr;
  float* inv_std_dev = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  float epsilon = 1e-5f;
  bool simplified = false;  // RMS normalization (no mean subtracted)
};
cudaError_t LaunchLayerNorm(const LayerNormArgs& args, cudaStream_t stream);

enum class ReduceOp : int {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kSumSquare,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
};
// Reduces float x into out_count outputs: output o reads the elements at kept_offset(o) +
// reduced_offset(r) for r < reduced_count, where kept_offset walks kept_dims with kept_strides
// and reduced_offset walks reduced_dims with reduced_strides (element strides of x).
struct ReduceIndex {
  int kept_rank = 0;
  int64_t kept_dims[8] = {};
  int64_t kept_strides[8] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[8] = {};
  int64_t reduced_strides[8] = {};
};
cudaError_t LaunchReduceFloat(ReduceOp op, const float* x, float* out, int64_t out_count,
                              int64_t reduced_count, const ReduceIndex& index, cudaStream_t stream);

}  // namespace prism::cuda

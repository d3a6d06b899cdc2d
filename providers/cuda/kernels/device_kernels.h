// The CUDA EP's device code (kernels/*.cu, compiled by nvcc as C++17), behind plain launch
// functions: no Prism headers cross into device code. Every launch is asynchronous on the given
// stream; a launch error is returned, not thrown.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace prism::cuda {

constexpr int kMaxBroadcastRank = 8;

// Where each output element reads its two operands: output dims (row-major) and, per dim, each
// operand's stride (0 where it is broadcast).
struct BroadcastIndex {
  int rank = 0;
  int64_t out_dims[kMaxBroadcastRank] = {};
  int64_t a_strides[kMaxBroadcastRank] = {};
  int64_t b_strides[kMaxBroadcastRank] = {};
};

enum class BinaryOp : int { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kCopyA };
enum class UnaryOp : int {
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kNeg,
  kAbs,
  kErf,
  kLeakyRelu,  // alpha
  kElu,        // alpha
  kGeluErf,
  kGeluTanh,
};

// y[i] = a[.] op b[.] for count outputs; same_shape: both operands read at i.
cudaError_t LaunchBinaryFloat(BinaryOp op, const float* a, const float* b, float* y, int64_t count,
                              const BroadcastIndex& index, bool same_shape, cudaStream_t stream);
cudaError_t LaunchUnaryFloat(UnaryOp op, const float* x, float* y, int64_t count, float alpha,
                             cudaStream_t stream);
// Softmax (log_softmax) over each of rows contiguous rows of cols floats.
cudaError_t LaunchSoftmaxFloat(const float* x, float* y, int64_t rows, int64_t cols, bool log,
                               cudaStream_t stream);

}  // namespace prism::cuda

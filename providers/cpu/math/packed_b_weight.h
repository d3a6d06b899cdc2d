// The constant float B of MatMul and Gemm kept as mlas::PackedMatrixB (prepacked at session
// creation, see OpKernel::PrePack): one format per orientation, so that MatMul and Gemm with
// transB = 0 share the packing of one weight.
#pragma once

#include <memory>
#include <string>

#include "framework/op_kernel.h"
#include "mlas/packed_gemm.h"

namespace prism::cpu {

// The format name for a 2-D float weight, "" for any other (those are read at run time).
inline std::string PackedBFormat(const Tensor& weight, bool trans_b) {
  if (weight.Type() != ElementType::kFloat || weight.Shape().Rank() != 2) return "";
  return trans_b ? "mlas.PackedMatrixB.f32(B^T)" : "mlas.PackedMatrixB.f32(B)";
}

// op(B) packed; unpack restores the weight as stored.
inline PrePackedWeight PackB(const Tensor& weight, bool trans_b) {
  const int64_t rows = weight.Shape()[0], cols = weight.Shape()[1];
  const int64_t k = trans_b ? cols : rows, n = trans_b ? rows : cols;
  auto packed = std::make_shared<const mlas::PackedMatrixB>(
      mlas::PackedMatrixB::Pack(trans_b, k, n, weight.Data<float>(), cols));
  PrePackedWeight result;
  result.data = packed;
  result.bytes = packed->Bytes();
  result.type = weight.Type();
  result.shape = weight.Shape();
  result.unpack = [packed, trans_b, rows, cols] {
    Tensor original(ElementType::kFloat, TensorShape({rows, cols}), GetCpuAllocator());
    packed->Unpack(trans_b, original.MutableData<float>(), cols);
    return original;
  };
  return result;
}

inline std::shared_ptr<const mlas::PackedMatrixB> PackedBOf(const PrePackedWeight& weight) {
  return std::static_pointer_cast<const mlas::PackedMatrixB>(weight.data);
}

}  // namespace prism::cpu

// A constant 2-D int8 or uint8 B of MatMulInteger, QLinearMatMul, DynamicQuantizeMatMul and QGemm
// kept as mlas::PackedQuantB (prepacked at session creation, see OpKernel::PrePack), with the
// PrePackedWeight it came in (whose unpack rebuilds B for the kernels' reference loops).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "framework/op_kernel.h"
#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "mlas/transpose_bytes.h"

namespace prism::cpu {

struct PackedQuantWeight {
  std::shared_ptr<const mlas::PackedQuantB> packed;  // nullptr: B is read at run time
  PrePackedWeight weight;

  void Use(PrePackedWeight prepacked) {
    packed = std::static_pointer_cast<const mlas::PackedQuantB>(prepacked.data);
    weight = std::move(prepacked);
  }
};

// The format name for a 2-D int8/uint8 weight, "" for any other. Whether a B outside the pair
// bound is stored split depends on the active kernels (mlas/qgemm.h), so that is in the name.
inline std::string PackedQuantBFormat(const Tensor& weight) {
  const ElementType type = weight.Type();
  if ((type != ElementType::kInt8 && type != ElementType::kUint8) || weight.Shape().Rank() != 2)
    return "";
  return MakeString("mlas.PackedQuantB.", type == ElementType::kInt8 ? "s8" : "u8",
                    mlas::QgemmPairsSaturate(mlas::ActiveKernels()) ? "(wide)" : "");
}

// B (k x n bytes, row stride n) packed for the active kernels, as the PrePackedWeight of
// `weight` (its type and shape); the unpack writes B back as k x n bytes and rebuild(bytes, out)
// turns them into weight's bytes.
template <typename Rebuild>
PrePackedWeight PackQuantBAs(const Tensor& weight, int64_t k, int64_t n, const void* b,
                             Rebuild rebuild) {
  const ElementType type = weight.Type();
  auto packed = std::make_shared<const mlas::PackedQuantB>(mlas::PackedQuantB::Pack(
      k, n, b, n, type == ElementType::kInt8, mlas::QgemmPairsSaturate(mlas::ActiveKernels())));
  PrePackedWeight result;
  result.data = packed;
  result.bytes = packed->Bytes();
  result.type = type;
  result.shape = weight.Shape();
  result.unpack = [packed, type, shape = weight.Shape(), k, n, rebuild] {
    std::vector<uint8_t> b_bytes(static_cast<size_t>(k * n));
    packed->Unpack(b_bytes.data(), n);
    Tensor original(type, shape, GetCpuAllocator());
    rebuild(b_bytes, static_cast<uint8_t*>(original.MutableRawData()));
    return original;
  };
  return result;
}

inline PrePackedWeight PackQuantB(const Tensor& weight) {
  const int64_t k = weight.Shape()[0], n = weight.Shape()[1];
  return PackQuantBAs(
      weight, k, n, weight.RawData(),
      [](const std::vector<uint8_t>& b, uint8_t* out) { std::copy(b.begin(), b.end(), out); });
}

// A 2-D weight stored N x K (QGemm's transB) packed as its transpose, B = weight^T (K x N); the
// unpack rebuilds the N x K original.
inline PrePackedWeight PackQuantBTransposed(const Tensor& weight) {
  const int64_t n = weight.Shape()[0], k = weight.Shape()[1];
  const auto* stored = static_cast<const uint8_t*>(weight.RawData());
  std::vector<uint8_t> b(static_cast<size_t>(k * n));
  // In 16 x 16 byte blocks: byte by byte, resnet50_qdq's 1000 x 2048 classifier took 8% of its
  // session creation's instructions.
  mlas::TransposeBytes(stored, k, n, k, b.data(), n);
  return PackQuantBAs(weight, k, n, b.data(),
                      [k, n](const std::vector<uint8_t>& b_bytes, uint8_t* out) {
                        mlas::TransposeBytes(b_bytes.data(), n, k, n, out, k);
                      });
}

}  // namespace prism::cpu

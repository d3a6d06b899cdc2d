// A float GEMM whose B operand was packed once, ahead of the runs: the prepacked form of a
// constant weight (MatMul's and Gemm's B). B is stored as column panels of kPanelWidth floats,
// each panel k rows long and contiguous, the last one zero-padded, which is the order the
// SGEMM's micro-kernel reads it in (sgemm.h: the packing it does per block of B for a stored B,
// over the whole depth here). A product then reads the panels in place instead of re-packing B on
// every call, as a general GEMM must.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace prism {
class ThreadPool;
}

namespace prism::mlas {

struct SgemmEpilogue;  // sgemm.h

class PackedMatrixB {
 public:
  static constexpr int64_t kPanelWidth = 16;

  // Packs op(B), k x n: B stored k x n with leading dimension ldb, or n x k when trans_b.
  static PackedMatrixB Pack(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb);

  // Writes op(B) back (the inverse of Pack with the same trans_b and ldb).
  void Unpack(bool trans_b, float* b, int64_t ldb) const;

  int64_t K() const { return k_; }
  int64_t N() const { return n_; }
  int64_t Panels() const { return (n_ + kPanelWidth - 1) / kPanelWidth; }
  const float* Panel(int64_t p) const { return data_.get() + p * k_ * kPanelWidth; }
  size_t Bytes() const { return static_cast<size_t>(Panels() * k_ * kPanelWidth) * sizeof(float); }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  int64_t k_ = 0;
  int64_t n_ = 0;
  std::unique_ptr<float, Free> data_;
};

// C = alpha * op(A) * B + beta * C with B packed: op(A) is m x k, stored m x k (lda) or, with
// trans_a, k x m. C is m x n (ldc) and is not read when beta is 0. pool: blocks of C split over
// it (nullptr: the calling thread alone). The active ISA level's SGEMM (SgemmPackedB, sgemm.h);
// the epilogue, when given, runs on each finished block of C (SgemmEpilogue).
void GemmPackedB(bool trans_a, int64_t m, const float* a, int64_t lda, float alpha,
                 const PackedMatrixB& b, float beta, float* c, int64_t ldc,
                 ThreadPool* pool = nullptr, const SgemmEpilogue* epilogue = nullptr);

}  // namespace prism::mlas

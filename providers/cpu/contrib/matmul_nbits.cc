// MatMulNBits (com.microsoft, version 1), bits = 2, 4 or 8: Y = A @ dequantize(B)^T (+ bias),
// where B holds N rows of K unsigned `bits`-bit values in blocks of block_size (16..256, a
// power of two): B is uint8 [N, ceil(K / block_size), block_size * bits / 8], 8 / bits values a
// byte, the first in the lowest bits. Each block has a scale (A's type, [N * blocks]) and a zero
// point: uint8 packed the same way per row ([N * ceil(blocks * bits / 8)]), or of A's type
// ([N * blocks]), or 2^(bits - 1) when absent; dequantized value = (q - zero_point) * scale. B is
// dequantized to float once per session when it is a constant, then each call is a float
// GEMM; accuracy_level (which lets onnxruntime quantize A to int8) is accepted and ignored:
// Prism always computes in float. float16 A, scales and Y compute in float and round once.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mlas/gemm.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

float AsFloat(const Tensor& tensor, int64_t i) {
  return tensor.Type() == E::kFloat16 ? tensor.Data<Float16>()[i].ToFloat()
                                      : tensor.Data<float>()[i];
}

class MatMulNBits final : public OpKernel {
 public:
  explicit MatMulNBits(const OpKernelInfo& info)
      : OpKernel(info),
        k_(info.Int("K")),
        n_(info.Int("N")),
        bits_(info.IntOr("bits", 4)),
        block_size_(info.Int("block_size")),
        accuracy_level_(info.IntOr("accuracy_level", 0)),
        // Constant B, scales and zero points are dequantized once.
        constant_weights_(info.ConstantInput(1) != nullptr && info.ConstantInput(2) != nullptr &&
                          (info.GetNode().InputCount() <= 3 || !info.GetNode().HasInput(3) ||
                           info.ConstantInput(3) != nullptr)) {
    const std::string where = GetNode().Describe();
    PRISM_ENFORCE(bits_ == 2 || bits_ == 4 || bits_ == 8, kNotImplemented, where, ": bits ", bits_,
                  " is not supported (2, 4 or 8)");
    PRISM_ENFORCE(block_size_ >= 16 && block_size_ <= 256 && (block_size_ & (block_size_ - 1)) == 0,
                  kInvalidArgument, where, ": block_size must be a power of two in [16, 256], got ",
                  block_size_);
    PRISM_ENFORCE(k_ >= 1 && n_ >= 1, kInvalidArgument, where, ": K and N must be >= 1, got K ", k_,
                  ", N ", n_);
    // N * (K rounded up to whole blocks) bounds every size below (B's bytes, the scales, the
    // dequantized weights): it must be an int64.
    int64_t padded_k = 0, padded_weights = 0;
    PRISM_ENFORCE(!__builtin_mul_overflow(Blocks(), block_size_, &padded_k) &&
                      !__builtin_mul_overflow(n_, padded_k, &padded_weights),
                  kInvalidArgument, where, ": K ", k_, " and N ", n_, " are too large");
    PRISM_ENFORCE(accuracy_level_ >= 0 && accuracy_level_ <= 4, kInvalidArgument, where,
                  ": accuracy_level must be in [0, 4], got ", accuracy_level_);
  }

  // ceil(K / block_size), without forming K + block_size - 1.
  int64_t Blocks() const { return k_ / block_size_ + (k_ % block_size_ != 0 ? 1 : 0); }

  void Compute(OpKernelContext& context) const override {
    const std::string where = GetNode().Describe();
    const Tensor& a = context.RequiredInput(0);
    PRISM_ENFORCE(a.Shape().Rank() >= 1 && a.Shape()[a.Shape().Rank() - 1] == k_, kInvalidArgument,
                  where, ": A's last dimension must be K = ", k_, ", got A ", a.Shape().ToString());
    PRISM_ENFORCE(context.Input(4) == nullptr, kNotImplemented, where,
                  ": g_idx (input 4) is not supported");
    const Tensor* bias = context.Input(5);
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Type() == a.Type() && bias->NumElements() == n_, kInvalidArgument, where,
                    ": bias must be ", ElementTypeName(a.Type()), " of N = ", n_, " elements, got ",
                    bias->Describe());
    const std::vector<float>& weights = DequantizedB(context, a.Type());
    std::vector<int64_t> out_dims = a.Shape().Dims();
    out_dims.back() = n_;
    Tensor& y = context.Output(0, TensorShape(out_dims), a.Type());
    const int64_t m = a.NumElements() / k_;
    if (m == 0) return;
    std::vector<float> a_float(static_cast<size_t>(a.NumElements()));
    for (size_t i = 0; i < a_float.size(); ++i) a_float[i] = AsFloat(a, static_cast<int64_t>(i));
    std::vector<float> y_float(static_cast<size_t>(m * n_), 0.0f);
    float beta = 0.0f;
    if (bias != nullptr) {  // seed every row with the bias and let the GEMM add onto it
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = 0; col < n_; ++col)
          y_float[static_cast<size_t>(row * n_ + col)] = AsFloat(*bias, col);
      beta = 1.0f;
    }
    // Y[m, n] = A[m, k] * W[n, k]^T.
    mlas::Gemm<float>(false, true, m, n_, k_, 1.0f, a_float.data(), k_, weights.data(), k_, beta,
                      y_float.data(), n_, context.IntraOpThreadPool());
    if (y.Type() == E::kFloat) {
      std::copy(y_float.begin(), y_float.end(), y.MutableData<float>());
    } else {
      Float16* out = y.MutableData<Float16>();
      for (size_t i = 0; i < y_float.size(); ++i) out[i] = Float16(y_float[i]);
    }
  }

 private:
  // B dequantized to float [N, K]; cached when B, scales and zero points are constants.
  const std::vector<float>& DequantizedB(OpKernelContext& context, E a_type) const {
    if (constant_weights_) {
      std::call_once(cached_once_, [&] { cached_ = Dequantize(context, a_type); });
      return cached_;
    }
    thread_local std::vector<float> scratch;
    scratch = Dequantize(context, a_type);
    return scratch;
  }

  std::vector<float> Dequantize(OpKernelContext& context, E a_type) const {
    const std::string where = GetNode().Describe();
    const Tensor& b = context.RequiredInput(1);
    const Tensor& scales = context.RequiredInput(2);
    const Tensor* zeros = context.Input(3);
    const int64_t blocks = Blocks();
    const int64_t blob = block_size_ * bits_ / 8;
    PRISM_ENFORCE(b.Type() == E::kUint8 && b.NumElements() == n_ * blocks * blob, kInvalidArgument,
                  where, ": B must be uint8 [N, ceil(K / block_size), block_size * bits / 8] = [",
                  n_, ", ", blocks, ", ", blob, "], got ", b.Describe());
    PRISM_ENFORCE(scales.Type() == a_type && scales.NumElements() == n_ * blocks, kInvalidArgument,
                  where, ": scales must be ", ElementTypeName(a_type),
                  " of N * blocks = ", n_ * blocks, " elements, got ", scales.Describe());
    const int64_t per_byte = 8 / bits_;
    const uint32_t mask = (1u << bits_) - 1u;
    // Element i of a row packed per_byte a byte, the first in the lowest bits.
    const auto unpack = [&](const uint8_t* row, int64_t i) {
      return static_cast<int>((row[i / per_byte] >> ((i % per_byte) * bits_)) & mask);
    };
    const int64_t packed_row = (blocks + per_byte - 1) / per_byte;
    const bool packed_zeros = zeros != nullptr && zeros->Type() == E::kUint8;
    if (zeros != nullptr)
      PRISM_ENFORCE(packed_zeros ? zeros->NumElements() == n_ * packed_row
                                 : zeros->Type() == a_type && zeros->NumElements() == n_ * blocks,
                    kInvalidArgument, where,
                    ": zero_points must be uint8 of N * ceil(blocks * bits / 8) = ",
                    n_ * packed_row, " elements or ", ElementTypeName(a_type),
                    " of N * blocks = ", n_ * blocks, ", got ", zeros->Describe());
    const uint8_t* packed = b.Data<uint8_t>();
    std::vector<float> weights(static_cast<size_t>(n_ * k_));
    for (int64_t row = 0; row < n_; ++row) {
      for (int64_t block = 0; block < blocks; ++block) {
        const float scale = AsFloat(scales, row * blocks + block);
        float zero = static_cast<float>(1 << (bits_ - 1));
        if (packed_zeros) {
          zero = static_cast<float>(unpack(zeros->Data<uint8_t>() + row * packed_row, block));
        } else if (zeros != nullptr) {
          zero = AsFloat(*zeros, row * blocks + block);
        }
        const uint8_t* data = packed + (row * blocks + block) * blob;
        for (int64_t i = 0; i < block_size_ && block * block_size_ + i < k_; ++i) {
          weights[static_cast<size_t>(row * k_ + block * block_size_ + i)] =
              (static_cast<float>(unpack(data, i)) - zero) * scale;
        }
      }
    }
    return weights;
  }

  int64_t k_;
  int64_t n_;
  int64_t bits_;
  int64_t block_size_;
  int64_t accuracy_level_;
  bool constant_weights_;
  mutable std::once_flag cached_once_;
  mutable std::vector<float> cached_;
};

void RegisterMatMulNBitsKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("MatMulNBits")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", {E::kFloat, E::kFloat16}, {0, 2, 5}, {0})
                        .Constraint("T2", {E::kUint8}, {1})
                        .Constraint("T3", {E::kUint8, E::kFloat, E::kFloat16}, {3})
                        .Build(),
                    MakeKernelFactory<MatMulNBits>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_matmul_nbits, RegisterMatMulNBitsKernels);

}  // namespace prism::cpu::contrib

// ConvInteger and QLinearConv on the int8 GEMM (mlas/qgemm.h). Each image is transposed to
// channels-last (one row of C bytes per pixel) and lowered per group to rows of the GEMM's A:
// one row per output position, its depth ordered (kernel offset, channel), padding filled with
// x_zero_point (zero once shifted). A 1x1, stride-1, unpadded convolution reads the transposed
// image directly. The weights are packed once per group as the GEMM's B (depth x output
// channels, the same depth order); the products land channels-last (output position x output
// channel) and go back to NCHW a GEMM tile at a time as each tile is finished (still in cache),
// requantized per output channel for QLinearConv (plus its int32 bias), as int32 for
// ConvInteger. A 2-D depthwise convolution (one
// input and one output channel per group) runs directly instead, a row of int32 sums per output
// row, the taps of each kernel offset over the output columns whose input lies inside.
// Channels-last operands (Int8ConvArgs::channels_last) skip both transposes: the image is
// already the GEMM's channels-last source and the tiles are already Y's layout; a depthwise one
// sums each output pixel's channels at once, tap by tap. Where the level's kernel can
// (mlas::QgemmCanRequantize: AVX-512 VNNI, depth <= 4608, multipliers >= 2^-14) the requantization
// runs in the GEMM's store, in float exactly as in double (no int32 sums at all). The lowering
// runs inside the GEMM's tasks, a row block at a time (mlas::QgemmRowSource).
//
// Every type pair (uint8/int8 x, uint8/int8 w) and every zero point runs here: the GEMM computes
// each pair as u8 x s8 with the zero points folded in exactly (qgemm.h), in 32-bit wrapping
// arithmetic, which is the reference's int32 accumulation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/allocator.h"
#include "framework/op_kernel.h"
#include "mlas/qgemm.h"

namespace prism {
class ThreadPool;
}

namespace prism::cpu::quantization {

// The resolved geometry of one convolution (N-D, grouped).
struct Int8ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  std::vector<int64_t> in_spatial;
  std::vector<int64_t> kernel;
  std::vector<int64_t> out_spatial;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;

  int64_t InPerGroup() const { return in_channels / group; }
  int64_t OutPerGroup() const { return out_channels / group; }
};

// W [M, C/group, kernel...] (int8 or uint8) packed per group as the GEMM's B:
// B_g[(kernel offset, channel), output channel of the group].
class PackedConvWeights {
 public:
  static std::shared_ptr<const PackedConvWeights> Pack(const Tensor& w, int64_t group);

  // W as it was given (PrePackedWeight::unpack).
  Tensor Unpack() const;

  const mlas::PackedQuantB& Group(int64_t g) const { return groups_[static_cast<size_t>(g)]; }
  // A depthwise W (one input and one output channel per group) as given, which the direct
  // depthwise loop reads; empty for other convolutions.
  const std::vector<uint8_t>& Depthwise() const { return depthwise_; }
  int64_t GroupCount() const { return static_cast<int64_t>(groups_.size()); }
  ElementType Type() const { return type_; }
  const TensorShape& Shape() const { return shape_; }
  size_t Bytes() const;

 private:
  ElementType type_ = ElementType::kInt8;
  TensorShape shape_;
  std::vector<mlas::PackedQuantB> groups_;
  std::vector<uint8_t> depthwise_;
};

// The prepack format name of a conv weight for `group` ("" when it is not an 8-bit W of rank
// >= 3 whose output channels divide by group), and the packing itself.
std::string PackedConvWeightsFormat(const Tensor& w, int64_t group);
PrePackedWeight PrePackConvWeights(const Tensor& w, int64_t group);

// What RunInt8Conv derives from W and the quantization parameters alone (for a channels-last
// depthwise convolution: the shifted taps, the float multipliers and the depthwise kernel's packed
// operands), kept between runs by a kernel whose W, scales, zero points and bias are all
// constants: built by the first run that needs it, shared by the later and concurrent ones. (Per
// run, a 7x7 layer of 960 channels spent twice its multiply-adds' time deriving them.)
class Int8ConvCache {
 public:
  struct Depthwise;  // int8_conv.cc
  Int8ConvCache();
  ~Int8ConvCache();
  Int8ConvCache(const Int8ConvCache&) = delete;
  Int8ConvCache& operator=(const Int8ConvCache&) = delete;

  // The depthwise operands, from `build` at the first call (a throw leaves it unbuilt).
  const Depthwise& GetDepthwise(const std::function<std::unique_ptr<Depthwise>()>& build) const;

 private:
  mutable std::once_flag depthwise_once_;
  mutable std::unique_ptr<Depthwise> depthwise_;
};

// One call's operands and output stage.
struct Int8ConvArgs {
  const void* x = nullptr;
  bool x_signed = false;
  int32_t x_zero = 0;
  const PackedConvWeights* w = nullptr;
  const int32_t* w_zero_per_channel = nullptr;  // M values, or nullptr: w_zero for all
  int32_t w_zero = 0;
  // ConvInteger: the int32 output.
  int32_t* y_int32 = nullptr;
  // QLinearConv: the 8-bit output, y = clamp(round_half_even((acc + bias[m]) * multiplier[m]) +
  // y_zero) in double (the reference's arithmetic); multipliers must be finite.
  void* y_8bit = nullptr;
  bool y_signed = false;
  const int32_t* bias = nullptr;  // M values or nullptr
  const double* multipliers = nullptr;
  double y_zero = 0.0;
  // X is [N, spatial..., C] and Y [N, spatial..., M] (com.microsoft QLinearConv channels_last;
  // the 8-bit output only): X is read in place as the channels-last image and each requantized
  // tile lands in Y's rows as it is.
  bool channels_last = false;
  // Where the operands derived from W and the quantization parameters are kept between runs
  // (only when those are the same on every run); nullptr: derived on each call.
  const Int8ConvCache* cache = nullptr;
};

void RunInt8Conv(const Int8ConvGeometry& geometry, const Int8ConvArgs& args, ThreadPool* pool,
                 const AllocatorPtr& scratch);

}  // namespace prism::cpu::quantization

// PackedConvWeights (providers/cpu/quantization/int8_conv.h), the prepacked int8 convolution
// weight: each group's packing byte for byte against PackedQuantB::Pack of B[(k, c), m] =
// W[m, c, k] built one byte at a time, for 1 x 1, 3 x 3, 1-D and 3-D kernels, groups, depthwise,
// out-channel and channel counts off the 16-byte blocks, int8 and uint8; and Unpack giving W
// back.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "providers/cpu/quantization/int8_conv.h"

namespace prism::cpu::quantization {
namespace {

TEST(PackedConvWeightsTest, GroupsMatchThePackingOfTheTransposeBuiltByteByByte) {
  struct Case {
    std::vector<int64_t> shape;  // [M, C / group, kernel...]
    int64_t group;
  };
  const Case cases[] = {{{64, 32, 1, 1}, 1},  {{20, 17, 3, 3}, 1}, {{48, 8, 3, 3}, 2},
                        {{33, 5, 7}, 1},      {{16, 1, 3, 3}, 16}, {{18, 6, 2, 1, 3}, 3},
                        {{130, 40, 1, 1}, 1}, {{3, 3, 5, 5}, 1}};
  std::mt19937 engine(5);
  const bool widen = mlas::QgemmPairsSaturate(mlas::ActiveKernels());
  for (const Case& c : cases)
    for (ElementType type : {ElementType::kInt8, ElementType::kUint8}) {
      Tensor w(type, TensorShape(c.shape), GetCpuAllocator());
      auto* bytes = static_cast<uint8_t*>(w.MutableRawData());
      for (int64_t i = 0; i < w.NumElements(); ++i) bytes[i] = static_cast<uint8_t>(engine());
      const auto packed = PackedConvWeights::Pack(w, c.group);
      const int64_t out_channels = c.shape[0], channels = c.shape[1];
      const int64_t kernel_size = w.NumElements() / (out_channels * channels);
      const int64_t per_group = out_channels / c.group, depth = channels * kernel_size;
      SCOPED_TRACE(::testing::Message()
                   << w.Shape().ToString() << " group " << c.group << " " << ElementTypeName(type));
      ASSERT_EQ(packed->GroupCount(), c.group);
      for (int64_t g = 0; g < c.group; ++g) {
        std::vector<uint8_t> b(static_cast<size_t>(depth * per_group));
        for (int64_t m = 0; m < per_group; ++m)
          for (int64_t ch = 0; ch < channels; ++ch)
            for (int64_t k = 0; k < kernel_size; ++k)
              b[static_cast<size_t>((k * channels + ch) * per_group + m)] =
                  bytes[(g * per_group + m) * depth + ch * kernel_size + k];
        const mlas::PackedQuantB expected = mlas::PackedQuantB::Pack(
            depth, per_group, b.data(), per_group, type == ElementType::kInt8, widen);
        const mlas::PackedQuantB& actual = packed->Group(g);
        ASSERT_EQ(actual.Bytes(), expected.Bytes());
        ASSERT_EQ(actual.Wide(), expected.Wide());
        const int64_t data_bytes = (per_group + mlas::kQgemmPanelCols - 1) / mlas::kQgemmPanelCols *
                                   expected.PanelStride();
        for (int64_t i = 0; i < data_bytes; ++i)
          ASSERT_EQ(actual.Data()[i], expected.Data()[i]) << "group " << g << " byte " << i;
      }
      const Tensor back = packed->Unpack();
      ASSERT_EQ(back.Shape(), w.Shape());
      const auto* restored = static_cast<const uint8_t*>(back.RawData());
      for (int64_t i = 0; i < w.NumElements(); ++i) ASSERT_EQ(restored[i], bytes[i]) << i;
    }
}

}  // namespace
}  // namespace prism::cpu::quantization

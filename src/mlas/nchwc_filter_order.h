// The order onnxruntime's NchwcTransformer stores a com.microsoft.nchwc Conv's W in (the bytes of
// the initializer, not Prism's packed form), so that a model saved after Prism's layout pass runs
// in onnxruntime and one saved by onnxruntime runs in Prism. The recorded shape stays OIHW
// [Mp, Cin_w, KH, KW]; only the order of the floats changes (b = the block, Mp % b == 0):
//   kOIHWBiBo (blocked input, Cin_w % b == 0): [Mp/b][Cin_w/b][KH][KW][b_in][b_out];
//   kOIHWBo   (NCHW input, Cin_w < b; depthwise, Cin_w == 1): [Mp/b][Cin_w][KH][KW][b_out].
#pragma once

#include <cstdint>

namespace prism::mlas {

enum class NchwcFilterOrder { kOIHWBiBo, kOIHWBo };

struct NchwcFilterDims {
  int64_t output_channels;  // Mp, a multiple of block
  int64_t input_channels;   // Cin_w, a multiple of block for kOIHWBiBo
  int64_t kernel_h, kernel_w;
  int64_t block;
};

// OIHW [filters, inputs, KH, KW], at most dims' counts, -> the order of the padded filter dims
// describes, zero where it has no source value (padded filters and input channels): padding and
// reordering in one pass.
void NchwcOrderPaddedFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* oihw,
                            int64_t filters, int64_t inputs, float* ordered);

// OIHW -> the order, and back (bit for bit). Both buffers hold Mp * Cin_w * KH * KW floats.
void NchwcOrderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* oihw,
                      float* ordered);
void NchwcUnorderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* ordered,
                        float* oihw);

}  // namespace prism::mlas

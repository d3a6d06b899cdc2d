// The NCHWc ("channel-blocked") layout's kernels: reorders, direct convolution and pooling on
// tensors whose channels are cut into blocks of b = NchwcBlockSize() lanes (16 on the AVX-512
// level, 8 on AVX2 and baseline). An NCHWc tensor has the logical shape [N, Cp, H, W], Cp the
// channels rounded up to a multiple of b; physically channel c of pixel (h, w) of image n is at
// ((n * Cp / b + c / b) * H + h) * W * b + w * b + c % b. The padded lanes hold finite values
// nobody reads meaningfully (every filter is zero there; ReorderOutput drops them).
//
// Every function exists in two forms: one on the active level's kernels and one on a given
// level's table (the tests run every level against a reference). Work is split into independent
// items (NchwcConvWorkItems, NchwcPoolWorkItems) that callers hand out to threads as contiguous
// ranges; the kernels batch the consecutive items of one range (rows of one image and group of
// output blocks) so that a filter block stays in cache across them.
#pragma once

#include <cstdint>

namespace prism::mlas {

struct IsaKernels;

int64_t NchwcBlockSize();
int64_t NchwcBlockSize(const IsaKernels& kernels);

// One image's reorders over a range of channel blocks [block_begin, block_end): NCHW
// [channels][spatial] -> NCHWc [Cp / b][spatial][b] (padded lanes zero), and back (keeping the
// first `channels` channels).
void NchwcReorderInput(const float* nchw, int64_t channels, int64_t spatial, float* nchwc,
                       int64_t block_begin, int64_t block_end);
void NchwcReorderOutput(const float* nchwc, int64_t channels, int64_t spatial, float* nchw,
                        int64_t block_begin, int64_t block_end);
void NchwcReorderInput(const IsaKernels& kernels, const float* nchw, int64_t channels,
                       int64_t spatial, float* nchwc, int64_t block_begin, int64_t block_end);
void NchwcReorderOutput(const IsaKernels& kernels, const float* nchwc, int64_t channels,
                        int64_t spatial, float* nchw, int64_t block_begin, int64_t block_end);

// A 2-D convolution of one of three kinds:
// - blocked input, groups == 1: input NCHWc [N, Cp, H, W] (input_channels = Cp, a multiple of b);
// - NCHW input (input_is_nchw, groups == 1): plain [N, C, H, W], input_channels = C (any count,
//   typically a network's 3 colours);
// - depthwise: groups == input_channels == output_channels (Cp), NCHWc input, one filter tap set
//   per channel.
// The output is NCHWc [N, Mp, output_h, output_w], output_channels = Mp a multiple of b.
struct NchwcConvShape {
  int64_t batch = 1, input_channels = 0, output_channels = 0, groups = 1;
  bool input_is_nchw = false;
  int64_t input_h = 0, input_w = 0, output_h = 0, output_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  bool IsDepthwise() const { return groups != 1; }
};

// Whether the kernels take this shape (one of the three kinds, positive sizes, channel counts
// multiples of the block); the op checks it and names what is wrong.
bool NchwcConvShapeSupported(const IsaKernels& kernels, const NchwcConvShape& shape);

// The filter, OIHW [output_channels, input_channels / groups, KH, KW], repacked once (prepack):
// blocked input, per group of nb output blocks of a work item, [Cp/b][KH][KW][b_in][nb][b_out];
// NCHW input the same with one input group of C channels; depthwise [Cp/b][KH][KW][b].
int64_t NchwcPackedFilterFloats(const NchwcConvShape& shape);
int64_t NchwcPackedFilterFloats(const IsaKernels& kernels, const NchwcConvShape& shape);
void NchwcPackFilter(const NchwcConvShape& shape, const float* oihw, float* packed);
void NchwcPackFilter(const IsaKernels& kernels, const NchwcConvShape& shape, const float* oihw,
                     float* packed);

// The same packing from the filter in onnxruntime's order (mlas/nchwc_filter_order.h: OIHWBiBo
// for a blocked input, OIHWBo for an NCHW input or depthwise; the nchwc Conv's W), in one pass:
// both orders keep a tap's b output lanes contiguous, so it copies rows of b floats.
void NchwcPackOrderedFilter(const IsaKernels& kernels, const NchwcConvShape& shape,
                            const float* ordered, float* packed);

// The inverse: the OIHW filter back from its packed form, bit for bit.
void NchwcUnpackFilter(const IsaKernels& kernels, const NchwcConvShape& shape, const float* packed,
                       float* oihw);

// What the convolution does when it stores: Y = activation(conv + bias + sum).
struct NchwcConvEpilogue {
  const float* bias = nullptr;  // output_channels floats, or none
  const float* sum = nullptr;   // NCHWc, shaped like the output, or none
  int activation = 0;           // isa_kernels.h kActivationNone / Relu / LeakyRelu / Clip
  float alpha = 0, beta = 0;    // LeakyRelu's slope; Clip's bounds
};

// Work items: image x group of output blocks x output row (depthwise: image x block x row).
int64_t NchwcConvWorkItems(const NchwcConvShape& shape);
int64_t NchwcConvWorkItems(const IsaKernels& kernels, const NchwcConvShape& shape);
// Whether a direct (not depthwise) convolution's filters outweigh one image's input. Its items
// are then taken group of output blocks by group (a range reads only its groups' filters), else
// row by row across the groups (a range reads only its band of the input).
bool NchwcConvFiltersFirst(const NchwcConvShape& shape);
// How many consecutive items a thread should take at once: a group's whole plane where the
// filters come first (a range that cut a group's rows read that group's filters once per piece,
// for fewer positions each: resnet50's 3x3 512-channel layers at 7x7 took 1.45x onnxruntime's
// time at 2 threads, in pieces of 3 and 4 rows), else 1.
int64_t NchwcConvItemGrain(const NchwcConvShape& shape);
void NchwcConv(const NchwcConvShape& shape, const float* input, const float* packed_filter,
               const NchwcConvEpilogue& epilogue, float* output, int64_t begin, int64_t end);
void NchwcConv(const IsaKernels& kernels, const NchwcConvShape& shape, const float* input,
               const float* packed_filter, const NchwcConvEpilogue& epilogue, float* output,
               int64_t begin, int64_t end);

enum class NchwcPoolKind { kMax, kAverageIncludePad, kAverageExcludePad };

// A 2-D pooling, NCHWc in and out (channels = Cp). The window of output (oh, ow) starts at
// (oh * stride_h - pad_top, ow * stride_w - pad_left); the padded input is [-pad_top, input_h +
// pad_bottom) x [-pad_left, input_w + pad_right): kAverageIncludePad divides by the window's taps
// inside it, kAverageExcludePad by those inside the input (ONNX's ceil_mode windows may reach past
// both: those taps count for neither). A global pool is a window covering the plane.
struct NchwcPoolShape {
  int64_t batch = 1, channels = 0, input_h = 0, input_w = 0, output_h = 0, output_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  NchwcPoolKind kind = NchwcPoolKind::kMax;
};

// Work items: image x channel block x output row.
int64_t NchwcPoolWorkItems(const NchwcPoolShape& shape);
int64_t NchwcPoolWorkItems(const IsaKernels& kernels, const NchwcPoolShape& shape);
void NchwcPool(const NchwcPoolShape& shape, const float* input, float* output, int64_t begin,
               int64_t end);
void NchwcPool(const IsaKernels& kernels, const NchwcPoolShape& shape, const float* input,
               float* output, int64_t begin, int64_t end);

// The most output blocks one convolution work item computes (blocked and NCHW input): the
// register tile's width in blocks. The ceil(blocks / 4) groups share the blocks evenly.
constexpr int64_t kNchwcConvBlocksPerItem = 4;

}  // namespace prism::mlas

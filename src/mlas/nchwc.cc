#include "mlas/nchwc.h"

#include <algorithm>
#include <cstring>

#include "mlas/isa_kernels.h"

namespace prism::mlas {

int64_t NchwcBlockSize(const IsaKernels& kernels) {
  return kernels.nchwc_block;
}
int64_t NchwcBlockSize() {
  return NchwcBlockSize(ActiveKernels());
}

void NchwcReorderInput(const IsaKernels& kernels, const float* nchw, int64_t channels,
                       int64_t spatial, float* nchwc, int64_t block_begin, int64_t block_end) {
  kernels.nchwc_reorder_input_f32(nchw, channels, spatial, nchwc, block_begin, block_end);
}
void NchwcReorderInput(const float* nchw, int64_t channels, int64_t spatial, float* nchwc,
                       int64_t block_begin, int64_t block_end) {
  NchwcReorderInput(ActiveKernels(), nchw, channels, spatial, nchwc, block_begin, block_end);
}
void NchwcReorderOutput(const IsaKernels& kernels, const float* nchwc, int64_t channels,
                        int64_t spatial, float* nchw, int64_t block_begin, int64_t block_end) {
  kernels.nchwc_reorder_output_f32(nchwc, channels, spatial, nchw, block_begin, block_end);
}
void NchwcReorderOutput(const float* nchwc, int64_t channels, int64_t spatial, float* nchw,
                        int64_t block_begin, int64_t block_end) {
  NchwcReorderOutput(ActiveKernels(), nchwc, channels, spatial, nchw, block_begin, block_end);
}

bool NchwcConvShapeSupported(const IsaKernels& kernels, const NchwcConvShape& s) {
  const int64_t b = kernels.nchwc_block;
  const bool sizes = s.batch > 0 && s.input_channels > 0 && s.output_channels > 0 &&
                     s.input_h > 0 && s.input_w > 0 && s.output_h > 0 && s.output_w > 0 &&
                     s.kernel_h > 0 && s.kernel_w > 0 && s.stride_h > 0 && s.stride_w > 0 &&
                     s.dilation_h > 0 && s.dilation_w > 0 && s.pad_top >= 0 && s.pad_left >= 0 &&
                     s.pad_bottom >= 0 && s.pad_right >= 0;
  if (!sizes || s.output_channels % b != 0) return false;
  if (s.groups == 1) return s.input_is_nchw || s.input_channels % b == 0;
  return !s.input_is_nchw && s.groups == s.input_channels && s.groups == s.output_channels;
}

int64_t NchwcPackedFilterFloats(const IsaKernels& kernels, const NchwcConvShape& s) {
  (void)kernels;
  // Every kind: one float per weight, the layouts differ only in order.
  return s.output_channels * (s.IsDepthwise() ? 1 : s.input_channels) * s.kernel_h * s.kernel_w;
}
int64_t NchwcPackedFilterFloats(const NchwcConvShape& shape) {
  return NchwcPackedFilterFloats(ActiveKernels(), shape);
}

namespace {

// The packed filter of a blocked or NCHW-input convolution: the output blocks in the work
// items' groups of up to kNchwcConvBlocksPerItem (shared evenly); per group of nb blocks
// [g][KH][KW][lane][nb][b_out] with g < groups input groups of lanes_in channels each (b, or all
// C channels of an NCHW input), so that a tile's filter vectors for one input channel are
// adjacent. Output block `first + j` of group bg starts at first * block_floats + j * b.
struct PackedFilterLayout {
  int64_t b, taps, cin, lanes_in, groups, blocks, block_groups, block_floats;

  PackedFilterLayout(const IsaKernels& kernels, const NchwcConvShape& s)
      : b(kernels.nchwc_block),
        taps(s.kernel_h * s.kernel_w),
        cin(s.input_channels),
        lanes_in(s.input_is_nchw ? s.input_channels : kernels.nchwc_block),
        groups(cin / lanes_in),
        blocks(s.output_channels / b),
        block_groups((blocks + kNchwcConvBlocksPerItem - 1) / kNchwcConvBlocksPerItem),
        block_floats(groups * taps * lanes_in * b) {}
  int64_t First(int64_t group) const { return group * blocks / block_groups; }
  int64_t Blocks(int64_t group) const { return First(group + 1) - First(group); }
  // Where the b output lanes of (input group g, tap t, lane) of block j of a group of nb start,
  // from the group's start.
  int64_t Row(int64_t g, int64_t t, int64_t lane, int64_t j, int64_t nb) const {
    return (((g * taps + t) * lanes_in + lane) * nb + j) * b;
  }
};

// Calls at(oihw_index, packed_index) for every weight.
template <typename Fn>
void ForEachFilterWeight(const IsaKernels& kernels, const NchwcConvShape& s, Fn at) {
  const int64_t b = kernels.nchwc_block;
  const int64_t taps = s.kernel_h * s.kernel_w;
  if (s.IsDepthwise()) {
    // [Cp/b][KH][KW][b] from [Cp][1][KH][KW].
    for (int64_t c = 0; c < s.output_channels; ++c)
      for (int64_t t = 0; t < taps; ++t) at(c * taps + t, (c / b * taps + t) * b + c % b);
    return;
  }
  const PackedFilterLayout layout(kernels, s);
  for (int64_t bg = 0; bg < layout.block_groups; ++bg) {
    const int64_t first = layout.First(bg), nb = layout.Blocks(bg);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t o = 0; o < b; ++o) {
        const int64_t m = (first + j) * b + o;
        for (int64_t c = 0; c < layout.cin; ++c)
          for (int64_t t = 0; t < taps; ++t) {
            const int64_t g = c / layout.lanes_in, lane = c % layout.lanes_in;
            at((m * layout.cin + c) * taps + t,
               first * layout.block_floats + layout.Row(g, t, lane, j, nb) + o);
          }
      }
  }
}

}  // namespace

void NchwcPackFilter(const IsaKernels& kernels, const NchwcConvShape& s, const float* oihw,
                     float* packed) {
  ForEachFilterWeight(kernels, s, [&](int64_t from, int64_t to) { packed[to] = oihw[from]; });
}

void NchwcUnpackFilter(const IsaKernels& kernels, const NchwcConvShape& s, const float* packed,
                       float* oihw) {
  ForEachFilterWeight(kernels, s, [&](int64_t to, int64_t from) { oihw[to] = packed[from]; });
}

void NchwcPackOrderedFilter(const IsaKernels& kernels, const NchwcConvShape& s,
                            const float* ordered, float* packed) {
  const int64_t taps = s.kernel_h * s.kernel_w;
  if (s.IsDepthwise()) {  // [Cp/b][1][KH][KW][b] is already [Cp/b][KH][KW][b]
    std::memcpy(packed, ordered, static_cast<size_t>(s.output_channels * taps) * sizeof(float));
    return;
  }
  const PackedFilterLayout layout(kernels, s);
  const size_t row_bytes = static_cast<size_t>(layout.b) * sizeof(float);
  for (int64_t bg = 0; bg < layout.block_groups; ++bg) {
    const int64_t first = layout.First(bg), nb = layout.Blocks(bg);
    float* group_out = packed + first * layout.block_floats;
    for (int64_t j = 0; j < nb; ++j) {
      // This output block's rows in onnxruntime's order: blocked input [g][t][lane] (OIHWBiBo),
      // NCHW input [c][t] (OIHWBo, c the lane of the one group).
      const float* block_in = ordered + (first + j) * layout.block_floats;
      for (int64_t g = 0; g < layout.groups; ++g)
        for (int64_t t = 0; t < taps; ++t)
          for (int64_t lane = 0; lane < layout.lanes_in; ++lane) {
            const int64_t from =
                s.input_is_nchw ? lane * taps + t : (g * taps + t) * layout.lanes_in + lane;
            std::memcpy(group_out + layout.Row(g, t, lane, j, nb), block_in + from * layout.b,
                        row_bytes);
          }
    }
  }
}

void NchwcPackFilter(const NchwcConvShape& shape, const float* oihw, float* packed) {
  NchwcPackFilter(ActiveKernels(), shape, oihw, packed);
}

int64_t NchwcConvWorkItems(const IsaKernels& kernels, const NchwcConvShape& s) {
  const int64_t blocks = s.output_channels / kernels.nchwc_block;
  const int64_t block_groups =
      s.IsDepthwise() ? blocks : (blocks + kNchwcConvBlocksPerItem - 1) / kNchwcConvBlocksPerItem;
  return s.batch * block_groups * s.output_h;
}
int64_t NchwcConvWorkItems(const NchwcConvShape& shape) {
  return NchwcConvWorkItems(ActiveKernels(), shape);
}

bool NchwcConvFiltersFirst(const NchwcConvShape& s) {
  return !s.IsDepthwise() && s.output_channels * s.input_channels * s.kernel_h * s.kernel_w >
                                 s.input_h * s.input_w * s.input_channels;
}

int64_t NchwcConvItemGrain(const NchwcConvShape& s) {
  return NchwcConvFiltersFirst(s) ? s.output_h : 1;
}

void NchwcConv(const IsaKernels& kernels, const NchwcConvShape& shape, const float* input,
               const float* packed_filter, const NchwcConvEpilogue& epilogue, float* output,
               int64_t begin, int64_t end) {
  kernels.nchwc_conv_f32(shape, input, packed_filter, epilogue, output, begin, end);
}
void NchwcConv(const NchwcConvShape& shape, const float* input, const float* packed_filter,
               const NchwcConvEpilogue& epilogue, float* output, int64_t begin, int64_t end) {
  NchwcConv(ActiveKernels(), shape, input, packed_filter, epilogue, output, begin, end);
}

int64_t NchwcPoolWorkItems(const IsaKernels& kernels, const NchwcPoolShape& s) {
  return s.batch * (s.channels / kernels.nchwc_block) * s.output_h;
}
int64_t NchwcPoolWorkItems(const NchwcPoolShape& shape) {
  return NchwcPoolWorkItems(ActiveKernels(), shape);
}

void NchwcPool(const IsaKernels& kernels, const NchwcPoolShape& shape, const float* input,
               float* output, int64_t begin, int64_t end) {
  kernels.nchwc_pool_f32(shape, input, output, begin, end);
}
void NchwcPool(const NchwcPoolShape& shape, const float* input, float* output, int64_t begin,
               int64_t end) {
  NchwcPool(ActiveKernels(), shape, input, output, begin, end);
}

}  // namespace prism::mlas

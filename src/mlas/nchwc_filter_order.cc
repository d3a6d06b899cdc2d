#include "mlas/nchwc_filter_order.h"

#include <algorithm>

namespace prism::mlas {
namespace {

// Calls visit(oihw_index, ordered_index) for every float of the filter, in the order's own
// sequence, with no division in the loops (per-float divisions by the block made reordering
// resnet50's 25 M weights cost tens of milliseconds of session creation).
template <typename Visit>
void ForEachFilterFloat(NchwcFilterOrder order, const NchwcFilterDims& d, Visit visit) {
  const int64_t b = d.block, taps = d.kernel_h * d.kernel_w;
  const int64_t cin = d.input_channels;
  const int64_t filter_floats = cin * taps;  // one output channel's floats in OIHW
  int64_t ordered = 0;
  for (int64_t o0 = 0; o0 < d.output_channels; o0 += b) {
    if (order == NchwcFilterOrder::kOIHWBiBo) {
      for (int64_t i0 = 0; i0 < cin; i0 += b)
        for (int64_t k = 0; k < taps; ++k)
          for (int64_t i = i0; i < i0 + b; ++i) {
            const int64_t first = (o0 * cin + i) * taps + k;  // oihw of (o0, i, k)
            for (int64_t lane = 0; lane < b; ++lane) visit(first + lane * filter_floats, ordered++);
          }
    } else {
      for (int64_t i = 0; i < cin; ++i)
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t first = (o0 * cin + i) * taps + k;
          for (int64_t lane = 0; lane < b; ++lane) visit(first + lane * filter_floats, ordered++);
        }
    }
  }
}

}  // namespace

void NchwcOrderPaddedFilter(NchwcFilterOrder order, const NchwcFilterDims& d, const float* oihw,
                            int64_t filters, int64_t inputs, float* ordered) {
  const int64_t b = d.block, taps = d.kernel_h * d.kernel_w;
  const int64_t cin = d.input_channels;
  const int64_t filter_floats = inputs * taps;  // one source filter's floats
  // One tap's b output lanes of input channel i: source filters o0 .. o0 + b - 1.
  const auto lanes = [&](int64_t o0, int64_t i, int64_t k) {
    const int64_t real = i < inputs ? std::clamp<int64_t>(filters - o0, 0, b) : 0;
    const float* source = oihw + (o0 * inputs + i) * taps + k;
    for (int64_t lane = 0; lane < real; ++lane) *ordered++ = source[lane * filter_floats];
    for (int64_t lane = real; lane < b; ++lane) *ordered++ = 0.0f;
  };
  for (int64_t o0 = 0; o0 < d.output_channels; o0 += b) {
    if (order == NchwcFilterOrder::kOIHWBiBo) {
      for (int64_t i0 = 0; i0 < cin; i0 += b)
        for (int64_t k = 0; k < taps; ++k)
          for (int64_t i = i0; i < i0 + b; ++i) lanes(o0, i, k);
    } else {
      for (int64_t i = 0; i < cin; ++i)
        for (int64_t k = 0; k < taps; ++k) lanes(o0, i, k);
    }
  }
}

void NchwcOrderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* oihw,
                      float* ordered) {
  ForEachFilterFloat(order, dims, [&](int64_t from, int64_t to) { ordered[to] = oihw[from]; });
}

void NchwcUnorderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* ordered,
                        float* oihw) {
  ForEachFilterFloat(order, dims, [&](int64_t to, int64_t from) { oihw[to] = ordered[from]; });
}

}  // namespace prism::mlas

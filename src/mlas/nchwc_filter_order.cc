#include "mlas/nchwc_filter_order.h"

namespace prism::mlas {
namespace {

// Calls visit(oihw_index, ordered_index) for every float of the filter.
template <typename Visit>
void ForEachFilterFloat(NchwcFilterOrder order, const NchwcFilterDims& d, Visit visit) {
  const int64_t b = d.block, taps = d.kernel_h * d.kernel_w;
  const int64_t in_blocks = order == NchwcFilterOrder::kOIHWBiBo ? d.input_channels / b : 0;
  for (int64_t o = 0; o < d.output_channels; ++o)
    for (int64_t i = 0; i < d.input_channels; ++i)
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t oihw = (o * d.input_channels + i) * taps + k;
        const int64_t ordered =
            order == NchwcFilterOrder::kOIHWBiBo
                ? (((o / b * in_blocks + i / b) * taps + k) * b + i % b) * b + o % b
                : ((o / b * d.input_channels + i) * taps + k) * b + o % b;
        visit(oihw, ordered);
      }
}

}  // namespace

void NchwcOrderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* oihw,
                      float* ordered) {
  ForEachFilterFloat(order, dims, [&](int64_t from, int64_t to) { ordered[to] = oihw[from]; });
}

void NchwcUnorderFilter(NchwcFilterOrder order, const NchwcFilterDims& dims, const float* ordered,
                        float* oihw) {
  ForEachFilterFloat(order, dims, [&](int64_t to, int64_t from) { oihw[to] = ordered[from]; });
}

}  // namespace prism::mlas

// onnxruntime's NCHWc filter orders (mlas/nchwc_filter_order.h) on a block of 2, checked by hand
// against the layouts of onnxruntime's MlasReorderFilterOIHWBiBo / MlasReorderFilterOIHWBo.
#include <gtest/gtest.h>

#include <vector>

#include "mlas/nchwc_filter_order.h"

namespace prism::mlas {
namespace {

// W[o][i][t] = 100 o + 10 i + t, so a value names its place.
std::vector<float> Named(int64_t o_count, int64_t i_count, int64_t taps) {
  std::vector<float> w;
  for (int64_t o = 0; o < o_count; ++o)
    for (int64_t i = 0; i < i_count; ++i)
      for (int64_t t = 0; t < taps; ++t) w.push_back(static_cast<float>(100 * o + 10 * i + t));
  return w;
}

TEST(NchwcFilterOrder, BlockedInputIsOihwBiBo) {
  // 4 filters, 2 input channels, 2 taps, block 2: [O/2][I/2][taps][b_in][b_out].
  const NchwcFilterDims dims{4, 2, 1, 2, 2};
  const std::vector<float> oihw = Named(4, 2, 2);
  std::vector<float> ordered(oihw.size());
  NchwcOrderFilter(NchwcFilterOrder::kOIHWBiBo, dims, oihw.data(), ordered.data());
  EXPECT_EQ(ordered, (std::vector<float>{0, 100, 10, 110, 1, 101, 11, 111,  //
                                         200, 300, 210, 310, 201, 301, 211, 311}));
  std::vector<float> back(oihw.size());
  NchwcUnorderFilter(NchwcFilterOrder::kOIHWBiBo, dims, ordered.data(), back.data());
  EXPECT_EQ(back, oihw);
}

TEST(NchwcFilterOrder, NchwInputAndDepthwiseAreOihwBo) {
  // 2 filters, 3 input channels, 2 taps, block 2: [O/2][I][taps][b_out].
  const NchwcFilterDims dims{2, 3, 2, 1, 2};
  const std::vector<float> oihw = Named(2, 3, 2);
  std::vector<float> ordered(oihw.size());
  NchwcOrderFilter(NchwcFilterOrder::kOIHWBo, dims, oihw.data(), ordered.data());
  EXPECT_EQ(ordered, (std::vector<float>{0, 100, 1, 101, 10, 110, 11, 111, 20, 120, 21, 121}));
  std::vector<float> back(oihw.size());
  NchwcUnorderFilter(NchwcFilterOrder::kOIHWBo, dims, ordered.data(), back.data());
  EXPECT_EQ(back, oihw);
}

// Padding and ordering in one pass equals padding with zeros, then ordering: filters and input
// channels short of the blocks (ragged in both), both orders, block 4.
TEST(NchwcFilterOrder, PaddedOrderEqualsPadThenOrder) {
  struct Case {
    NchwcFilterOrder order;
    int64_t filters, inputs, padded_inputs;
  };
  for (const Case& c :
       {Case{NchwcFilterOrder::kOIHWBiBo, 6, 5, 8}, Case{NchwcFilterOrder::kOIHWBiBo, 8, 8, 8},
        Case{NchwcFilterOrder::kOIHWBo, 5, 3, 3}, Case{NchwcFilterOrder::kOIHWBo, 7, 1, 1}}) {
    const int64_t padded_filters = 8, kh = 3, kw = 2, taps = kh * kw;
    const NchwcFilterDims dims{padded_filters, c.padded_inputs, kh, kw, 4};
    const std::vector<float> source = Named(c.filters, c.inputs, taps);
    std::vector<float> padded(static_cast<size_t>(padded_filters * c.padded_inputs * taps), 0.0f);
    for (int64_t o = 0; o < c.filters; ++o)
      for (int64_t i = 0; i < c.inputs; ++i)
        for (int64_t t = 0; t < taps; ++t)
          padded[static_cast<size_t>((o * c.padded_inputs + i) * taps + t)] =
              source[static_cast<size_t>((o * c.inputs + i) * taps + t)];
    std::vector<float> expected(padded.size()), got(padded.size(), -1.0f);
    NchwcOrderFilter(c.order, dims, padded.data(), expected.data());
    NchwcOrderPaddedFilter(c.order, dims, source.data(), c.filters, c.inputs, got.data());
    EXPECT_EQ(got, expected) << "filters " << c.filters << ", inputs " << c.inputs;
  }
}

}  // namespace
}  // namespace prism::mlas

// DepthToSpace/SpaceToDepth (both modes), Compress, ReverseSequence, NonZero, OneHot, TopK,
// Dropout, Unique, CastLike: the corners beyond the node tests, values worked out by hand
// (numpy semantics where the spec defers to it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

// x [1, 8, 1, 2] with blocksize 2. CRD: channel c * 4 + i * 2 + j goes to (c, i, w * 2 + j);
// DCR: channel (i * 2 + j) * 2 + c does.
TEST(DepthSpaceTest, BothModesAndTheirInverses) {
  OpTester crd("DepthToSpace", 13);
  crd.Input<float>("input", {1, 8, 1, 2}, Iota(16)).Attr("blocksize", int64_t{2});
  crd.Attr("mode", std::string("CRD"));
  crd.Output<float>("output", {1, 2, 2, 4}, {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15});
  crd.Run();
  OpTester dcr("DepthToSpace", 13);
  dcr.Input<float>("input", {1, 8, 1, 2}, Iota(16)).Attr("blocksize", int64_t{2});
  dcr.Output<float>("output", {1, 2, 2, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  dcr.Run();
  OpTester back("SpaceToDepth", 13);  // the inverse of the DCR case
  back.Input<float>("input", {1, 2, 2, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  back.Attr("blocksize", int64_t{2});
  back.Output<float>("output", {1, 8, 1, 2}, Iota(16));
  back.Run();
  OpTester back_crd("SpaceToDepth", 28);  // and of the CRD case
  back_crd.Input<float>("input", {1, 2, 2, 4},
                        {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15});
  back_crd.Attr("blocksize", int64_t{2}).Attr("mode", std::string("CRD"));
  back_crd.Output<float>("output", {1, 8, 1, 2}, Iota(16));
  back_crd.Run();
  OpTester odd("DepthToSpace", 13);
  odd.Input<float>("input", {1, 3, 1, 1}, {1, 2, 3}).Attr("blocksize", int64_t{2});
  odd.Output<float>("output", {1, 1, 2, 2}, {0, 0, 0, 0});
  odd.ExpectFailure("are not a multiple of blocksize^2 = 4");
  // A blocksize whose square overflows int64 (2^32) is refused, not wrapped to 0.
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    OpTester huge(op, 13);
    huge.Input<float>("input", {1, 4, 2, 2}, Iota(16)).Attr("blocksize", int64_t{1} << 32);
    huge.Output<float>("output", {1, 4, 2, 2}, Iota(16));
    huge.ExpectFailure("blocksize 4294967296 is too large");
  }
}

TEST(CompressTest, FlattenedShortConditionAndErrors) {
  OpTester flat("Compress", 11);  // no axis: the flattened input; a short condition stops early
  flat.Input<int32_t>("input", {2, 2}, {1, 2, 3, 4})
      .Input<bool>("condition", {3}, {false, true, true});
  flat.Output<int32_t>("output", {2}, {2, 3});
  flat.Run();
  OpTester negative("Compress", 11);
  negative.Input<float>("input", {2, 3}, Iota(6)).Input<bool>("condition", {2}, {false, true});
  negative.Attr("axis", int64_t{-1});
  negative.Output<float>("output", {2, 1}, {1, 4});
  negative.Run();
  OpTester extra("Compress", 11);  // extra false entries are fine, an extra true is not
  extra.Input<float>("input", {2}, {5, 6}).Input<bool>("condition", {3}, {true, false, true});
  extra.Output<float>("output", {1}, {5});
  extra.ExpectFailure("selects entry 2 but the compressed axis has only 2 entries");
}

TEST(ReverseSequenceTest, BatchMajorWithInnerDims) {
  // batch_axis 0, time_axis 1: x [2, 3, 2]; batch 0 reverses 2 steps, batch 1 all 3.
  OpTester test("ReverseSequence", 10);
  test.Input<float>("input", {2, 3, 2}, Iota(12)).Input<int64_t>("sequence_lens", {2}, {2, 3});
  test.Attr("batch_axis", int64_t{0}).Attr("time_axis", int64_t{1});
  test.Output<float>("Y", {2, 3, 2}, {2, 3, 0, 1, 4, 5, 10, 11, 8, 9, 6, 7});
  test.Run();
  OpTester too_long("ReverseSequence", 10);
  too_long.Input<float>("input", {2, 2}, Iota(4)).Input<int64_t>("sequence_lens", {2}, {3, 1});
  too_long.Output<float>("Y", {2, 2}, Iota(4));
  too_long.ExpectFailure("sequence_lens[0] = 3 is outside [0, 2]");
}

TEST(NonZeroTest, ScalarsNaNAndNegativeZero) {
  OpTester scalar("NonZero", 13);
  scalar.Input<float>("X", {}, {5});
  scalar.Output<int64_t>("Y", {1, 1}, {0});
  scalar.Run();
  OpTester special("NonZero", 13);  // NaN counts, -0 does not
  special.Input<float>("X", {3}, {-0.0f, std::nanf(""), 0.0f});
  special.Output<int64_t>("Y", {1, 1}, {1});
  special.Run();
  OpTester none("NonZero", 13);
  none.Input<int32_t>("X", {2, 2}, {0, 0, 0, 0});
  none.Output<int64_t>("Y", {2, 0}, {});
  none.Run();
}

TEST(OneHotTest, AxisNegativeIndicesOutOfRangeAndFloatDepth) {
  OpTester test("OneHot", 11);  // axis 0 on indices [2]; -1 is the last class, 5 is off
  test.Input<int64_t>("indices", {3}, {-1, 5, 0}).Input<float>("depth", {}, {3.7f});
  test.Input<float>("values", {2}, {0, 1}).Attr("axis", int64_t{0});
  test.Output<float>("output", {3, 3}, {0, 0, 1, 0, 0, 0, 1, 0, 0});
  test.Run();
  OpTester strings("OneHot", 11);
  strings.Input<float>("indices", {1}, {1.9f}).Input<int64_t>("depth", {1}, {2});
  strings.Input<std::string>("values", {2}, {"no", "yes"});
  strings.Output<std::string>("output", {1, 2}, {"no", "yes"});
  strings.Run();
  OpTester zero("OneHot", 11);
  zero.Input<int64_t>("indices", {1}, {0}).Input<int64_t>("depth", {}, {0});
  zero.Input<float>("values", {2}, {0, 1});
  zero.Output<float>("output", {1, 0}, {});
  zero.ExpectFailure("depth 0 must be positive");
}

TEST(TopKTest, TiesNaNSmallestAndInnerAxis) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester ties("TopK", 11);  // equal values: the lower index first
  ties.Input<float>("X", {5}, {2, 5, 5, 1, 5}).Input<int64_t>("K", {1}, {3});
  ties.Output<float>("Values", {3}, {5, 5, 5}).Output<int64_t>("Indices", {3}, {1, 2, 4});
  ties.Run();
  OpTester largest_nan("TopK", 11);  // NaN is the largest
  largest_nan.Input<float>("X", {3}, {1, nan, 3}).Input<int64_t>("K", {1}, {2});
  largest_nan.Output<float>("Values", {2}, {nan, 3}).Output<int64_t>("Indices", {2}, {1, 2});
  largest_nan.Run();
  OpTester smallest("TopK", 11);
  smallest.Input<float>("X", {3}, {1, nan, 3}).Input<int64_t>("K", {1}, {3});
  smallest.Attr("largest", int64_t{0});
  smallest.Output<float>("Values", {3}, {1, 3, nan}).Output<int64_t>("Indices", {3}, {0, 2, 1});
  smallest.Run();
  OpTester inner("TopK", 11);  // axis 0 of [3, 2]
  inner.Input<int32_t>("X", {3, 2}, {1, 6, 5, 2, 3, 4}).Input<int64_t>("K", {1}, {1});
  inner.Attr("axis", int64_t{0});
  inner.Output<int32_t>("Values", {1, 2}, {5, 6}).Output<int64_t>("Indices", {1, 2}, {1, 0});
  inner.Run();
  OpTester zero("TopK", 11);
  zero.Input<float>("X", {2}, {1, 2}).Input<int64_t>("K", {1}, {0});
  zero.Output<float>("Values", {0}, {}).Output<int64_t>("Indices", {0}, {});
  zero.Run();
  OpTester big("TopK", 11);
  big.Input<float>("X", {2}, {1, 2}).Input<int64_t>("K", {1}, {3});
  big.Output<float>("Values", {3}, {0, 0, 0}).Output<int64_t>("Indices", {3}, {0, 0, 0});
  big.ExpectFailure("k 3 is outside [0, 2]");
}

TEST(DropoutTest, InferenceIsIdentityTrainingFollowsNumpysSeededDraws) {
  OpTester old("Dropout", 7);  // the mask of opsets 7-9 has the input's type
  old.Input<double>("data", {2}, {1.5, -2}).Attr("ratio", 0.5f);
  old.Output<double>("output", {2}, {1.5, -2}).Output<double>("mask", {2}, {1, 1});
  old.Run();
  // Training mode with seed 0: numpy.random.seed(0); uniform(size=4) is 0.549, 0.715, 0.603,
  // 0.545, so ratio 0.6 keeps elements 1 and 2, scaled by 2.5.
  OpTester training("Dropout", 13);
  training.Input<float>("data", {4}, {1, 2, 3, 4}).Input<float>("ratio", {}, {0.6f});
  training.Input<bool>("training_mode", {}, {true}).Attr("seed", int64_t{0});
  training.Output<float>("output", {4}, {0, 5, 7.5f, 0});
  training.Output<bool>("mask", {4}, {false, true, true, false});
  training.Run();
  OpTester zero("Dropout", 13);  // ratio 0 keeps everything even in training mode
  zero.Input<float>("data", {2}, {1, 2}).Input<float>("ratio", {}, {0});
  zero.Input<bool>("training_mode", {}, {true});
  zero.Output<float>("output", {2}, {1, 2}).Output<bool>("mask", {2}, {true, true});
  zero.Run();
  OpTester one("Dropout", 13);
  one.Input<float>("data", {2}, {1, 2}).Input<float>("ratio", {}, {1});
  one.Input<bool>("training_mode", {}, {true});
  one.Output<float>("output", {2}, {0, 0});
  one.ExpectFailure("must be in [0, 1) in training mode");
}

TEST(UniqueTest, AxisUnsortedAndNaN) {
  // Rows of [3, 2]: [1, 2], [0, 5], [1, 2]; along axis 0, sorted lexicographically.
  OpTester rows("Unique", 11);
  rows.Input<float>("X", {3, 2}, {1, 2, 0, 5, 1, 2}).Attr("axis", int64_t{0});
  rows.Output<float>("Y", {2, 2}, {0, 5, 1, 2}).Output<int64_t>("indices", {2}, {1, 0});
  rows.Output<int64_t>("inverse_indices", {3}, {1, 0, 1}).Output<int64_t>("counts", {2}, {1, 2});
  rows.Run();
  OpTester unsorted("Unique", 11);  // first-occurrence order
  unsorted.Input<int64_t>("X", {5}, {3, 1, 3, 2, 1}).Attr("sorted", int64_t{0});
  unsorted.Output<int64_t>("Y", {3}, {3, 1, 2}).Output<int64_t>("indices", {3}, {0, 1, 3});
  unsorted.Output<int64_t>("inverse_indices", {5}, {0, 1, 0, 2, 1});
  unsorted.Output<int64_t>("counts", {3}, {2, 2, 1});
  unsorted.Run();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester nans("Unique", 11);  // NaNs collapse into one entry, after the numbers
  nans.Input<float>("X", {4}, {nan, 1, nan, -1});
  nans.Output<float>("Y", {3}, {-1, 1, nan}).Output<int64_t>("indices", {3}, {3, 1, 0});
  nans.Output<int64_t>("inverse_indices", {4}, {2, 1, 2, 0});
  nans.Output<int64_t>("counts", {3}, {1, 1, 2});
  nans.Run();
}

TEST(CastLikeTest, TakesTheTargetTypeAndSaturate) {
  OpTester test("CastLike", 15);
  test.Input<float>("input", {3}, {1.9f, -2.5f, 300}).Input<int32_t>("target_type", {0}, {});
  test.Output<int32_t>("output", {3}, {1, -2, 300});
  test.Run();
  OpTester strings("CastLike", 15);
  strings.Input<std::string>("input", {2}, {"7", " -3 "}).Input<int64_t>("target_type", {1}, {0});
  strings.Output<int64_t>("output", {2}, {7, -3});
  strings.Run();
}

}  // namespace
}  // namespace prism::testing

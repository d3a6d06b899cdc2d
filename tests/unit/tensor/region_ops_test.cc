// Slice, Split, Pad, Tile, Range, Trilu, EyeLike: the corners beyond the node tests, with values
// worked out by hand (numpy semantics where the spec defers to it).
#include <gtest/gtest.h>

#include <climits>
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

// --- Slice ---

TEST(SliceTest, ClampsLikeNumpy) {
  // x[-100:100] is everything; x[INT64_MAX:] is empty; x[::-1] with end INT64_MIN is reversed.
  OpTester all("Slice", 13);
  all.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {1}, {-100});
  all.Input<int64_t>("ends", {1}, {100});
  all.Output<float>("output", {4}, Iota(4));
  all.Run();
  OpTester none("Slice", 13);
  none.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {1}, {INT64_MAX});
  none.Input<int64_t>("ends", {1}, {INT64_MAX});
  none.Output<float>("output", {0}, {});
  none.Run();
  OpTester reversed("Slice", 13);
  reversed.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {1}, {-1});
  reversed.Input<int64_t>("ends", {1}, {INT64_MIN}).Input<int64_t>("axes", {1}, {0});
  reversed.Input<int64_t>("steps", {1}, {-1});
  reversed.Output<float>("output", {4}, {3, 2, 1, 0});
  reversed.Run();
  OpTester strided("Slice", 13);  // x[1:8:3] of 8 elements: 1, 4, 7
  strided.Input<float>("data", {8}, Iota(8)).Input<int64_t>("starts", {1}, {1});
  strided.Input<int64_t>("ends", {1}, {8}).Input<int64_t>("axes", {1}, {-1});
  strided.Input<int64_t>("steps", {1}, {3});
  strided.Output<float>("output", {3}, {1, 4, 7});
  strided.Run();
  // Steps at the ends of int64 take one element (found by the model fuzzer: the element count
  // was computed as (span + step - 1) / step, which overflowed).
  for (const int64_t step : {INT64_MAX, INT64_MIN}) {
    OpTester extreme("Slice", 13);
    extreme.Input<float>("data", {5}, Iota(5));
    extreme.Input<int64_t>("starts", {1}, {step > 0 ? 0 : 4});
    extreme.Input<int64_t>("ends", {1}, {step > 0 ? INT64_MAX : INT64_MIN});
    extreme.Input<int64_t>("axes", {1}, {0}).Input<int64_t>("steps", {1}, {step});
    extreme.Output<float>("output", {1}, {step > 0 ? 0.0f : 4.0f});
    extreme.Run();
  }
}

// [2, 3, 4]: a middle axis sliced, the trailing axis whole (one contiguous run per row).
TEST(SliceTest, MiddleAxisAndUnsortedAxes) {
  OpTester test("Slice", 10);
  test.Input<float>("data", {2, 3, 4}, Iota(24));
  test.Input<int32_t>("starts", {2}, {1, 1}).Input<int32_t>("ends", {2}, {3, 2});
  test.Input<int32_t>("axes", {2}, {1, 0});
  test.Output<float>("output", {1, 2, 4}, {16, 17, 18, 19, 20, 21, 22, 23});
  test.Run();
}

TEST(SliceTest, Opset1AttributesAndEmptyInput) {
  OpTester attrs("Slice", 1);
  attrs.Input<int32_t>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  attrs.Attr("starts", std::vector<int64_t>{1}).Attr("ends", std::vector<int64_t>{1000});
  attrs.Attr("axes", std::vector<int64_t>{1});
  attrs.Output<int32_t>("output", {2, 2}, {2, 3, 5, 6});
  attrs.Run();
  OpTester empty("Slice", 13);
  empty.Input<float>("data", {0, 3}, {}).Input<int64_t>("starts", {1}, {-1});
  empty.Input<int64_t>("ends", {1}, {-5}).Input<int64_t>("axes", {1}, {0});
  empty.Input<int64_t>("steps", {1}, {-1});
  empty.Output<float>("output", {0, 3}, {});
  empty.Run();
}

TEST(SliceTest, Errors) {
  OpTester zero("Slice", 13);
  zero.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {1}, {0});
  zero.Input<int64_t>("ends", {1}, {4}).Input<int64_t>("axes", {1}, {0});
  zero.Input<int64_t>("steps", {1}, {0});
  zero.Output<float>("output", {4}, Iota(4));
  zero.ExpectFailure("step for axis 0 is 0");
  OpTester twice("Slice", 13);
  twice.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {2}, {0, 1});
  twice.Input<int64_t>("ends", {2}, {4, 4}).Input<int64_t>("axes", {2}, {0, -1});
  twice.Output<float>("output", {4}, Iota(4));
  twice.ExpectFailure("more than once");
  OpTester lengths("Slice", 13);
  lengths.Input<float>("data", {4}, Iota(4)).Input<int64_t>("starts", {2}, {0, 1});
  lengths.Input<int64_t>("ends", {1}, {4});
  lengths.Output<float>("output", {4}, Iota(4));
  lengths.ExpectFailure("'starts' has 2 entries but 'ends' has 1");
}

// --- Split ---

TEST(SplitTest, Opset18NumOutputsGivesASmallerLastPart) {
  OpTester test("Split", 18);
  test.Input<float>("input", {7}, Iota(7)).Attr("num_outputs", int64_t{3});
  test.Output<float>("a", {3}, {0, 1, 2}).Output<float>("b", {3}, {3, 4, 5});
  test.Output<float>("c", {1}, {6});
  test.Run();
}

TEST(SplitTest, EqualPartsBefore18AndNegativeAxis) {
  OpTester test("Split", 13);
  test.Input<int64_t>("input", {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}).Attr("axis", int64_t{-1});
  test.Output<int64_t>("a", {2, 2}, {0, 1, 4, 5}).Output<int64_t>("b", {2, 2}, {2, 3, 6, 7});
  test.Run();
  OpTester uneven("Split", 13);
  uneven.Input<float>("input", {3}, Iota(3));
  uneven.Output<float>("a", {1}, {0}).Output<float>("b", {1}, {1});
  uneven.ExpectFailure("does not split evenly into 2 outputs");
}

TEST(SplitTest, ZeroSizedPartsAndErrors) {
  OpTester zero("Split", 13);
  zero.Input<float>("input", {3}, Iota(3)).Input<int64_t>("split", {3}, {0, 3, 0});
  zero.Output<float>("a", {0}, {}).Output<float>("b", {3}, Iota(3)).Output<float>("c", {0}, {});
  zero.Run();
  OpTester sum("Split", 13);
  sum.Input<float>("input", {3}, Iota(3)).Input<int64_t>("split", {2}, {1, 1});
  sum.Output<float>("a", {1}, {0}).Output<float>("b", {1}, {1});
  sum.ExpectFailure("'split' sums to 2 but axis 0 of input shape [3] has size 3");
  // Found by the model fuzzer: entries whose sum overflows int64 are refused, not summed.
  OpTester huge("Split", 13);
  huge.Input<float>("input", {3}, Iota(3)).Input<int64_t>("split", {2}, {INT64_MAX, 3});
  huge.Output<float>("a", {1}, {0}).Output<float>("b", {1}, {1});
  huge.ExpectFailure("'split' sums to more than axis 0 of input shape [3] has (3)");
  OpTester missing("Split", 18);
  missing.Input<float>("input", {4}, Iota(4));
  missing.Output<float>("a", {2}, {0, 1}).Output<float>("b", {2}, {2, 3});
  missing.ExpectFailure("needs the 'split' input or the 'num_outputs' attribute");
}

// --- Pad ---

TEST(PadTest, EveryModeAgainstNumpy) {
  // np.pad([1, 2, 3], (4, 4), mode) for each mode.
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"constant", {0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0}},
      {"edge", {1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3}},
      {"reflect", {1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}},
      {"wrap", {3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1}},
  };
  for (const auto& [mode, expected] : cases) {
    SCOPED_TRACE(mode);
    OpTester test("Pad", 19);
    test.Input<float>("data", {3}, {1, 2, 3}).Input<int64_t>("pads", {2}, {4, 4});
    test.Attr("mode", mode);
    test.Output<float>("output", {11}, expected);
    test.Run();
  }
  OpTester single("Pad", 13);  // reflect of a single element repeats it, as numpy does
  single.Input<float>("data", {1}, {5}).Input<int64_t>("pads", {2}, {2, 2});
  single.Attr("mode", std::string("reflect"));
  single.Output<float>("output", {5}, {5, 5, 5, 5, 5});
  single.Run();
}

TEST(PadTest, TwoDimsReflectAndNegativePadsCrop) {
  // np.pad(arange(6).reshape(2, 3), ((1, 0), (0, 2)), 'reflect')
  OpTester reflect("Pad", 13);
  reflect.Input<float>("data", {2, 3}, Iota(6)).Input<int64_t>("pads", {4}, {1, 0, 0, 2});
  reflect.Attr("mode", std::string("reflect"));
  reflect.Output<float>("output", {3, 5}, {3, 4, 5, 4, 3, 0, 1, 2, 1, 0, 3, 4, 5, 4, 3});
  reflect.Run();
  OpTester crop("Pad", 11);  // drop the first column, add a row of 9 at the end
  crop.Input<float>("data", {2, 3}, Iota(6)).Input<int64_t>("pads", {4}, {0, -1, 1, 0});
  crop.Input<float>("constant_value", {}, {9});
  crop.Output<float>("output", {3, 2}, {1, 2, 4, 5, 9, 9});
  crop.Run();
}

TEST(PadTest, Opset18AxesAndStringsAndOpset2Value) {
  OpTester axes("Pad", 18);
  axes.Input<int32_t>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("pads", {2}, {1, 1});
  axes.Input<int32_t>("constant_value", {}, {-7}).Input<int32_t>("axes", {1}, {-2});
  axes.Output<int32_t>("output", {4, 2}, {-7, -7, 1, 2, 3, 4, -7, -7});
  axes.Run();
  OpTester strings("Pad", 13);
  strings.Input<std::string>("data", {2}, {"a", "b"}).Input<int64_t>("pads", {2}, {1, 1});
  strings.Output<std::string>("output", {4}, {"", "a", "b", ""});
  strings.Run();
  OpTester value("Pad", 2);
  value.Input<double>("data", {1}, {1}).Attr("pads", std::vector<int64_t>{1, 0});
  value.Attr("value", 2.5f);
  value.Output<double>("output", {2}, {2.5, 1});
  value.Run();
}

TEST(PadTest, Errors) {
  OpTester too_much("Pad", 13);
  too_much.Input<float>("data", {2}, {1, 2}).Input<int64_t>("pads", {2}, {-2, -1});
  too_much.Output<float>("output", {0}, {});
  too_much.ExpectFailure("crop more than axis 0");
  OpTester empty_edge("Pad", 13);
  empty_edge.Input<float>("data", {0}, {}).Input<int64_t>("pads", {2}, {1, 1});
  empty_edge.Attr("mode", std::string("edge"));
  empty_edge.Output<float>("output", {2}, {0, 0});
  empty_edge.ExpectFailure("cannot pad empty axis 0");
  OpTester wrap_early("Pad", 18);
  wrap_early.Input<float>("data", {2}, {1, 2}).Input<int64_t>("pads", {2}, {1, 1});
  wrap_early.Attr("mode", std::string("wrap"));
  wrap_early.Output<float>("output", {4}, {2, 1, 2, 1});
  wrap_early.ExpectFailure("unsupported mode 'wrap'");
  OpTester count("Pad", 13);
  count.Input<float>("data", {2}, {1, 2}).Input<int64_t>("pads", {1}, {1});
  count.Output<float>("output", {3}, {0, 1, 2});
  count.ExpectFailure("'pads' has 1 entries but 2 are needed");
}

// --- Tile, Range, Trilu, EyeLike ---

TEST(TileTest, ThreeAxesZeroRepeatsAndErrors) {
  OpTester test("Tile", 13);
  test.Input<float>("input", {1, 2, 1}, {1, 2}).Input<int64_t>("repeats", {3}, {2, 1, 3});
  test.Output<float>("output", {2, 2, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  test.Run();
  OpTester zero("Tile", 13);
  zero.Input<float>("input", {2}, {1, 2}).Input<int64_t>("repeats", {1}, {0});
  zero.Output<float>("output", {0}, {});
  zero.Run();
  OpTester scalar("Tile", 13);
  scalar.Input<float>("input", {}, {4}).Input<int64_t>("repeats", {0}, {});
  scalar.Output<float>("output", {}, {4});
  scalar.Run();
  OpTester negative("Tile", 13);
  negative.Input<float>("input", {2}, {1, 2}).Input<int64_t>("repeats", {1}, {-1});
  negative.Output<float>("output", {0}, {});
  negative.ExpectFailure("repeat count -1 for axis 0 is negative");
  OpTester rank("Tile", 13);
  rank.Input<float>("input", {2}, {1, 2}).Input<int64_t>("repeats", {2}, {1, 1});
  rank.Output<float>("output", {2}, {1, 2});
  rank.ExpectFailure("has 2 entries but input 'input' has rank 1");
  // Found by the model fuzzer: the output dim 3 * 6557241061746409475 overflowed int64 (UBSan)
  // before the shape was validated.
  OpTester huge("Tile", 13);
  huge.Input<float>("input", {3}, {1, 2, 3}).Input<int64_t>("repeats", {1}, {6557241061746409475});
  huge.Output<float>("output", {0}, {});
  huge.ExpectFailure("axis 0 of size 3 repeated 6557241061746409475 times does not fit int64");
}

TEST(RangeTest, CountsAndSigns) {
  OpTester up("Range", 11);  // ceil((10 - 1) / 4) = 3
  up.Input<int32_t>("start", {}, {1}).Input<int32_t>("limit", {}, {10});
  up.Input<int32_t>("delta", {}, {4});
  up.Output<int32_t>("output", {3}, {1, 5, 9});
  up.Run();
  OpTester empty("Range", 11);  // the wrong direction gives nothing
  empty.Input<float>("start", {}, {1}).Input<float>("limit", {}, {5});
  empty.Input<float>("delta", {}, {-1});
  empty.Output<float>("output", {0}, {});
  empty.Run();
  OpTester fraction("Range", 11);  // start + i * delta, not a running sum
  fraction.Input<double>("start", {}, {0}).Input<double>("limit", {}, {0.35});
  fraction.Input<double>("delta", {}, {0.1});
  fraction.Output<double>("output", {4}, {0, 0.1, 0.2, 0.30000000000000004});
  fraction.Run();
  OpTester wide("Range", 11);  // the distance exceeds int64 but the count does not
  wide.Input<int64_t>("start", {}, {INT64_MIN}).Input<int64_t>("limit", {}, {INT64_MAX});
  wide.Input<int64_t>("delta", {}, {INT64_MAX});
  wide.Output<int64_t>("output", {3}, {INT64_MIN, -1, INT64_MAX - 1});
  wide.Run();
  OpTester zero("Range", 11);
  zero.Input<int64_t>("start", {}, {0}).Input<int64_t>("limit", {}, {5});
  zero.Input<int64_t>("delta", {}, {0});
  zero.Output<int64_t>("output", {0}, {});
  zero.ExpectFailure("delta is 0");
}

TEST(TriluTest, LowerUpperShiftedAndBatched) {
  const std::vector<float> x = Iota(12);  // [2, 2, 3]
  OpTester lower("Trilu", 14);
  lower.Input<float>("input", {2, 2, 3}, x).Attr("upper", int64_t{0});
  lower.Output<float>("output", {2, 2, 3}, {0, 0, 0, 3, 4, 0, 6, 0, 0, 9, 10, 0});
  lower.Run();
  OpTester below("Trilu", 14);  // upper with k = -1 keeps one diagonal below
  below.Input<float>("input", {2, 2, 3}, x).Input<int64_t>("k", {}, {-1});
  below.Output<float>("output", {2, 2, 3}, x);
  below.Run();
  OpTester far("Trilu", 14);  // k beyond the matrix: all zero (and no overflow)
  far.Input<float>("input", {2, 3}, Iota(6)).Input<int64_t>("k", {}, {INT64_MAX});
  far.Output<float>("output", {2, 3}, {0, 0, 0, 0, 0, 0});
  far.Run();
  OpTester far_lower("Trilu", 14);
  far_lower.Input<float>("input", {2, 3}, Iota(6)).Input<int64_t>("k", {}, {INT64_MIN});
  far_lower.Attr("upper", int64_t{0});
  far_lower.Output<float>("output", {2, 3}, {0, 0, 0, 0, 0, 0});
  far_lower.Run();
}

TEST(EyeLikeTest, OffDiagonalsBeyondTheMatrixAndErrors) {
  OpTester below("EyeLike", 9);
  below.Input<int32_t>("input", {3, 2}, {9, 9, 9, 9, 9, 9}).Attr("k", int64_t{-1});
  below.Output<int32_t>("output", {3, 2}, {0, 0, 1, 0, 0, 1});
  below.Run();
  OpTester beyond("EyeLike", 9);
  beyond.Input<float>("input", {2, 2}, {1, 1, 1, 1}).Attr("k", int64_t{5});
  beyond.Output<float>("output", {2, 2}, {0, 0, 0, 0});
  beyond.Run();
  // k at the int64 limits: no diagonal inside, and no -k or i + k formed on the way.
  for (int64_t k : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    OpTester extreme("EyeLike", 9);
    extreme.Input<float>("input", {2, 3}, {1, 1, 1, 1, 1, 1}).Attr("k", k);
    extreme.Output<float>("output", {2, 3}, {0, 0, 0, 0, 0, 0});
    extreme.Run();
  }
  OpTester rank("EyeLike", 9);
  rank.Input<float>("input", {2}, {1, 1});
  rank.Output<float>("output", {2}, {0, 0});
  rank.ExpectFailure("must be 2-D");
}

}  // namespace
}  // namespace prism::testing

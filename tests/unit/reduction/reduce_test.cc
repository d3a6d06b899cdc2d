// The Reduce* family: every (op, version range, type) on hand-computed values, the empty set,
// NaN and infinity, integer wrap-around, axes given every way, and random shapes over every axis
// combination against a naive reference that walks the full index space.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../math/math_test_util.h"

namespace prism::testing {
namespace {

using Classic = TypeSet<Float16, float, double, int32_t, int64_t, uint32_t, uint64_t>;
using ClassicBf16 = TypeSet<Float16, float, double, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;
using FloatsBf16 = TypeSet<Float16, float, double, BFloat16>;
using Bytes =
    TypeSet<Float16, float, double, int32_t, int64_t, uint32_t, uint64_t, int8_t, uint8_t>;
using BytesBf16 = TypeSet<Float16, float, double, BFloat16, int32_t, int64_t, uint32_t, uint64_t,
                          int8_t, uint8_t>;

// data [2, 3] = {1..6} reduced over axis 1, as floats and as integers (where the float result is
// truncated toward zero: sqrt, log).
struct Expected {
  const char* op;
  std::vector<double> floats;
  std::vector<double> ints;
  int axes_input_since;
};

const std::vector<Expected>& Table() {
  static const std::vector<Expected> table = {
      {"ReduceSum", {6, 15}, {6, 15}, 13},
      {"ReduceMean", {2, 5}, {2, 5}, 18},
      {"ReduceProd", {6, 120}, {6, 120}, 18},
      {"ReduceMax", {3, 6}, {3, 6}, 18},
      {"ReduceMin", {1, 4}, {1, 4}, 18},
      {"ReduceL1", {6, 15}, {6, 15}, 18},
      {"ReduceL2", {std::sqrt(14.0), std::sqrt(77.0)}, {3, 8}, 18},
      {"ReduceSumSquare", {14, 77}, {14, 77}, 18},
      {"ReduceLogSum", {std::log(6.0), std::log(15.0)}, {1, 2}, 18},
      {"ReduceLogSumExp",
       {std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)),
        std::log(std::exp(4.0) + std::exp(5.0) + std::exp(6.0))},
       {3, 6},
       18},
  };
  return table;
}

const Expected& Find(const std::string& op) {
  for (const Expected& e : Table())
    if (op == e.op) return e;
  throw std::runtime_error("no table entry for " + op);
}

template <typename T>
void CheckOne(const std::string& op, int opset) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const Expected& e = Find(op);
  const std::vector<double>& values = kIsFloatLike<T> ? e.floats : e.ints;
  OpTester test(op, opset);
  test.Input<T>("data", {2, 3}, Vals<T>({1, 2, 3, 4, 5, 6}));
  if (opset >= e.axes_input_since)
    test.Input<int64_t>("axes", {1}, {1});
  else
    test.Attr("axes", std::vector<int64_t>{1});
  test.Attr("keepdims", int64_t{0});
  std::vector<T> expected;
  for (double v : values) expected.push_back(FromDouble<T>(v));
  test.Output<T>("reduced", {2}, expected);
  test.Run();
}

template <typename List>
void CheckAll(const std::string& op, int opset) {
  List::ForEach([&](auto* type) { CheckOne<std::remove_pointer_t<decltype(type)>>(op, opset); });
}

TEST(ReduceTest, EveryOpVersionRangeAndType) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    CheckAll<Classic>(op, 1);
    CheckAll<Classic>(op, 11);
    CheckAll<ClassicBf16>(op, 13);
    if (std::string(op) != "ReduceSum") CheckAll<ClassicBf16>(op, 18);
  }
  for (const char* op : {"ReduceLogSum", "ReduceLogSumExp"}) CheckAll<FloatsBf16>(op, 28);
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    CheckAll<Classic>(op, 1);
    CheckAll<Classic>(op, 11);
    CheckAll<Bytes>(op, 12);
    CheckAll<BytesBf16>(op, 13);
    CheckAll<BytesBf16>(op, 18);
    CheckAll<BytesBf16>(op, 20);
  }
}

TEST(ReduceTest, LogReductionsDropIntegersAtOpset28) {
  OpTester test("ReduceLogSum", 28);
  test.Input<int32_t>("data", {2}, {1, 2});
  test.Output<int32_t>("reduced", {1}, {1});
  test.ExpectFailure("int32");
}

TEST(ReduceTest, BoolMaxIsAnyAndMinIsAll) {
  const std::vector<bool> rows = {true, true, true, false, false, true, false, false};
  OpTester max("ReduceMax", 20);
  max.Input<bool>("data", {4, 2}, rows).Input<int64_t>("axes", {1}, {1});
  max.Output<bool>("reduced", {4, 1}, {true, true, true, false});
  max.Run();
  OpTester min("ReduceMin", 20);
  min.Input<bool>("data", {4, 2}, rows).Input<int64_t>("axes", {1}, {-1});
  min.Output<bool>("reduced", {4, 1}, {true, false, false, false});
  min.Run();
  OpTester empty("ReduceMin", 20);
  empty.Input<bool>("data", {0, 2}, std::vector<bool>{}).Input<int64_t>("axes", {1}, {0});
  empty.Output<bool>("reduced", {1, 2}, {true, true});
  empty.Run();
}

// Every op over an empty axis: the identity of the reduction (spec test values), for float and
// for the integer types where the value exists.
TEST(ReduceTest, EmptySetGivesTheIdentity) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<const char*, double>> cases = {
      {"ReduceSum", 0},       {"ReduceProd", 1},      {"ReduceMax", -inf},
      {"ReduceMin", inf},     {"ReduceL1", 0},        {"ReduceL2", 0},
      {"ReduceSumSquare", 0}, {"ReduceLogSum", -inf}, {"ReduceLogSumExp", -inf}};
  for (const auto& [op, value] : cases) {
    SCOPED_TRACE(op);
    OpTester test(op, 20);
    test.Input<float>("data", {2, 0, 4}, {}).Input<int64_t>("axes", {1}, {1});
    test.Output<float>("reduced", {2, 1, 4}, std::vector<float>(8, static_cast<float>(value)));
    test.Run();
  }
  OpTester max("ReduceMax", 13);
  max.Input<int32_t>("data", {0, 2}, {}).Attr("axes", std::vector<int64_t>{0});
  max.Output<int32_t>("reduced", {1, 2}, std::vector<int32_t>(2, INT32_MIN));
  max.Run();
  OpTester min("ReduceMin", 13);
  min.Input<uint8_t>("data", {0, 2}, {}).Attr("axes", std::vector<int64_t>{0});
  min.Output<uint8_t>("reduced", {1, 2}, std::vector<uint8_t>(2, 255));
  min.Run();
  OpTester prod("ReduceProd", 18);
  prod.Input<int64_t>("data", {3, 0}, {}).Input<int64_t>("axes", {1}, {1});
  prod.Attr("keepdims", int64_t{0});
  prod.Output<int64_t>("reduced", {3}, {1, 1, 1});
  prod.Run();
  OpTester empty_out("ReduceSum", 13);  // a kept dim of 0: nothing to compute
  empty_out.Input<float>("data", {0, 3}, {}).Input<int64_t>("axes", {1}, {1});
  empty_out.Output<float>("reduced", {0, 1}, {});
  empty_out.Run();
}

// NaN anywhere in a reduced group makes Max and Min NaN, in the contiguous-row path (a row longer
// than the four partial accumulators, NaN in each lane) and in the kept-inner path.
TEST(ReduceTest, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    for (int position = 0; position < 6; ++position) {
      SCOPED_TRACE(::testing::Message() << op << " NaN at " << position);
      std::vector<float> row = {3, -1, 7, 2, 5, 0};
      row[static_cast<size_t>(position)] = nan;
      std::vector<float> data = row;
      data.insert(data.end(), {1, 2, 3, 4, 5, 6});
      OpTester last(op, 18);
      last.Input<float>("data", {2, 6}, data).Input<int64_t>("axes", {1}, {1});
      last.Output<float>("reduced", {2, 1}, {nan, std::string(op) == "ReduceMax" ? 6.f : 1.f});
      last.Run();
    }
    OpTester kept(op, 13);  // reduce axis 0 of [3, 2]: NaN in column 1 only
    kept.Input<double>("data", {3, 2}, {1, 2, 5, std::nan(""), -4, 0});
    kept.Attr("axes", std::vector<int64_t>{0}).Attr("keepdims", int64_t{0});
    kept.Output<double>("reduced", {2},
                        {std::string(op) == "ReduceMax" ? 5.0 : -4.0, std::nan("")});
    kept.Run();
  }
  OpTester sum("ReduceSum", 13);
  sum.Input<Float16>("data", {3}, Vals<Float16>({1, std::nan(""), 2}));
  sum.Output<Float16>("reduced", {1}, Vals<Float16>({std::nan("")}));
  sum.Run();
}

TEST(ReduceTest, LogSumExpIsStableAndHandlesInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  OpTester large("ReduceLogSumExp", 18);
  large.Input<float>("data", {2, 2}, {1000, 1000, -1000, -1001}).Input<int64_t>("axes", {1}, {1});
  large.Attr("keepdims", int64_t{0});
  large.Output<float>("reduced", {2}, {1000 + std::log(2.f), -1000 + std::log1p(std::exp(-1.f))});
  large.Run();
  OpTester infinite("ReduceLogSumExp", 18);
  infinite.Input<float>("data", {3, 2}, {inf, 1, -inf, -inf, -inf, 0});
  infinite.Input<int64_t>("axes", {1}, {1}).Attr("keepdims", int64_t{0});
  infinite.Output<float>("reduced", {3}, {inf, -inf, 0});
  infinite.Run();
}

TEST(ReduceTest, IntegerSumsAndProductsWrapLikeTheType) {
  OpTester sum("ReduceSum", 13);
  sum.Input<int32_t>("data", {2}, {INT32_MAX, 1});
  sum.Output<int32_t>("reduced", {1}, {INT32_MIN});
  sum.Run();
  OpTester prod("ReduceProd", 18);
  prod.Input<int64_t>("data", {2}, {int64_t{1} << 62, 4});
  prod.Output<int64_t>("reduced", {1}, {0});
  prod.Run();
  OpTester square("ReduceSumSquare", 18);
  square.Input<uint32_t>("data", {2}, {65536, 3});
  square.Output<uint32_t>("reduced", {1}, {9});
  square.Run();
  OpTester l1("ReduceL1", 18);
  l1.Input<int64_t>("data", {3}, {-5, INT64_MAX, -3});
  l1.Output<int64_t>("reduced", {1}, {INT64_MIN + 7});
  l1.Run();
  OpTester sum64("ReduceSum", 13);  // exact where a double accumulator would round
  sum64.Input<int64_t>("data", {2}, {(int64_t{1} << 60) + 1, 2});
  sum64.Output<int64_t>("reduced", {1}, {(int64_t{1} << 60) + 3});
  sum64.Run();
}

TEST(ReduceTest, AxesEveryWay) {
  // ReduceSum-13 takes axes as an input; an empty list reduces all, or nothing with the flag.
  OpTester all("ReduceSum", 13);
  all.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("axes", {0}, {});
  all.Output<float>("reduced", {1, 1}, {10});
  all.Run();
  OpTester noop("ReduceSum", 13);
  noop.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("axes", {0}, {});
  noop.Attr("noop_with_empty_axes", int64_t{1});
  noop.Output<float>("reduced", {2, 2}, {1, 2, 3, 4});
  noop.Run();
  OpTester negative("ReduceProd", 11);
  negative.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Attr("axes", std::vector<int64_t>{-2});
  negative.Output<float>("reduced", {1, 2}, {3, 8});
  negative.Run();
  OpTester constant("ReduceMax", 18);
  constant.Input<float>("data", {2, 2}, {1, 2, 3, 4});
  constant.Input<int64_t>("axes", {2}, {1, 0}, /*constant=*/true);
  constant.Attr("keepdims", int64_t{0});
  constant.Output<float>("reduced", {}, {4});
  constant.Run();
  OpTester scalar("ReduceL2", 18);
  scalar.Input<float>("data", {}, {-3});
  scalar.Output<float>("reduced", {}, {3});
  scalar.Run();
  OpTester twice("ReduceMin", 18);
  twice.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("axes", {2}, {0, -2});
  twice.Output<float>("reduced", {1, 2}, {1, 2});
  twice.ExpectFailure("more than once");
  OpTester out_of_range("ReduceSumSquare", 13);
  out_of_range.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Attr("axes", std::vector<int64_t>{-3});
  out_of_range.Output<float>("reduced", {2, 1}, {1, 2});
  out_of_range.ExpectFailure("axis -3 is out of range [-2, 1]");
}

// The reference: every input index, mapped to its output index, in long double.
std::vector<double> NaiveReduce(const std::string& op, const std::vector<int64_t>& dims,
                                const std::vector<bool>& reduce, const std::vector<float>& x) {
  std::vector<int64_t> out_strides(dims.size(), 0);
  int64_t out_size = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (reduce[d]) continue;
    out_strides[d] = out_size;
    out_size *= dims[d];
  }
  const bool is_max = op == "ReduceMax";
  std::vector<long double> acc(static_cast<size_t>(out_size),
                               is_max ? -INFINITY : (op == "ReduceProd" ? 1 : 0));
  std::vector<long double> maxima(static_cast<size_t>(out_size), -INFINITY);
  int64_t count = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduce[d]) count *= dims[d];
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < x.size(); ++i) {
      int64_t rest = static_cast<int64_t>(i), o = 0;
      for (size_t d = dims.size(); d-- > 0;) {
        o += (rest % dims[d]) * out_strides[d];
        rest /= dims[d];
      }
      const long double v = x[i];
      if (pass == 0) {
        maxima[o] = std::max(maxima[o], v);
      } else if (is_max) {
        acc[o] = std::max(acc[o], v);
      } else if (op == "ReduceProd") {
        acc[o] *= v;
      } else if (op == "ReduceLogSumExp") {
        acc[o] += std::exp(v - maxima[o]);
      } else {
        acc[o] += v;
      }
    }
  }
  std::vector<double> out;
  for (int64_t o = 0; o < out_size; ++o) {
    long double r = acc[o];
    if (op == "ReduceMean") r /= count;
    if (op == "ReduceLogSumExp") r = maxima[o] + std::log(r);
    out.push_back(static_cast<double>(r));
  }
  return out;
}

// Random [3, 4, 5, 6] over every subset of axes, and a large tensor that the thread pool splits
// (both the contiguous-row and the kept-inner paths), against the naive reference.
TEST(ReduceTest, RandomShapesEveryAxisSubsetMatchNaiveReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  const auto check = [&](const std::vector<int64_t>& dims, unsigned mask) {
    int64_t size = 1;
    for (int64_t d : dims) size *= d;
    std::vector<float> x(static_cast<size_t>(size));
    for (float& v : x) v = dist(rng);
    std::vector<int64_t> axes;
    std::vector<bool> reduce(dims.size(), mask == 0);
    for (size_t d = 0; d < dims.size(); ++d)
      if (mask & (1u << d)) {
        axes.push_back(static_cast<int64_t>(d) - (d % 2 ? static_cast<int64_t>(dims.size()) : 0));
        reduce[d] = true;
      }
    std::vector<int64_t> out_dims;
    for (size_t d = 0; d < dims.size(); ++d) out_dims.push_back(reduce[d] ? 1 : dims[d]);
    for (const char* op :
         {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceProd", "ReduceLogSumExp"}) {
      SCOPED_TRACE(::testing::Message() << op << " mask " << mask << " size " << size);
      const std::vector<double> expected = NaiveReduce(op, dims, reduce, x);
      std::vector<float> expected_f(expected.begin(), expected.end());
      OpTester test(op, 18);
      test.Input<float>("data", dims, x)
          .Input<int64_t>("axes", {static_cast<int64_t>(axes.size())}, axes);
      test.Output<float>("reduced", out_dims, expected_f);
      test.SetTolerance(1e-5, 1e-4, "float32 output of a double accumulation vs long double");
      test.Run();
    }
  };
  for (unsigned mask = 0; mask < 16; ++mask) check({3, 4, 5, 6}, mask);
  check({64, 3, 700}, 0b101);
  check({64, 3, 700}, 0b010);
  check({2000, 300}, 0b01);
  check({300, 2000}, 0b10);
}

}  // namespace
}  // namespace prism::testing

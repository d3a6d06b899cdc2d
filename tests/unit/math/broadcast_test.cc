// The reusable numpy broadcasting helper (providers/cpu/common/broadcast.h): result shapes,
// error messages, the spans it walks, and the legacy opset < 7 broadcast shape.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "common/status.h"
#include "providers/cpu/common/broadcast.h"

namespace prism::cpu {
namespace {

struct Span {
  int64_t output_offset;
  int64_t count;
  std::vector<int64_t> offsets;
  std::vector<int64_t> steps;
};

std::vector<Span> CollectSpans(const Broadcaster& plan) {
  std::vector<Span> spans;
  plan.ForEachSpan(
      [&](int64_t output_offset, int64_t count, const int64_t* offsets, const int64_t* steps) {
        spans.push_back({output_offset, count,
                         std::vector<int64_t>(offsets, offsets + plan.InputCount()),
                         std::vector<int64_t>(steps, steps + plan.InputCount())});
      });
  return spans;
}

// The element of an input (by its own shape) that output index `flat` reads, computed the
// slow obvious way.
int64_t NaiveOffset(const TensorShape& input, const TensorShape& output, int64_t flat) {
  std::vector<int64_t> index(output.Rank());
  for (size_t d = output.Rank(); d-- > 0;) {
    index[d] = flat % output[d];
    flat /= output[d];
  }
  int64_t offset = 0;
  const size_t lead = output.Rank() - input.Rank();
  for (size_t k = 0; k < input.Rank(); ++k) {
    const int64_t i = input[k] == 1 ? 0 : index[k + lead];
    offset = offset * input[k] + i;
  }
  return offset;
}

// Every output element must read exactly the element the naive formula gives.
void ExpectSpansMatchNaive(const std::vector<TensorShape>& shapes) {
  const Broadcaster plan(shapes);
  int64_t covered = 0;
  for (const Span& span : CollectSpans(plan)) {
    EXPECT_EQ(span.output_offset, covered);
    for (int64_t k = 0; k < span.count; ++k) {
      for (size_t i = 0; i < shapes.size(); ++i) {
        EXPECT_EQ(span.offsets[i] + k * span.steps[i],
                  NaiveOffset(shapes[i], plan.OutputShape(), span.output_offset + k))
            << "input " << i << " output element " << span.output_offset + k;
      }
    }
    covered += span.count;
  }
  EXPECT_EQ(covered, plan.OutputShape().Size());
}

TEST(BroadcastShapesTest, NumpyRules) {
  EXPECT_EQ(BroadcastShapes({TensorShape{2, 3}, TensorShape{3}}), (TensorShape{2, 3}));
  EXPECT_EQ(BroadcastShapes({TensorShape{2, 1, 3}, TensorShape{4, 1}}), (TensorShape{2, 4, 3}));
  EXPECT_EQ(BroadcastShapes({TensorShape{}, TensorShape{}}), TensorShape{});
  EXPECT_EQ(BroadcastShapes({TensorShape{}, TensorShape{5}}), TensorShape{5});
  EXPECT_EQ(BroadcastShapes({TensorShape{0, 3}, TensorShape{1}}), (TensorShape{0, 3}));
  EXPECT_EQ(BroadcastShapes({TensorShape{1}, TensorShape{0}}), TensorShape{0});
  EXPECT_EQ(BroadcastShapes({TensorShape{2, 1}, TensorShape{1, 3}, TensorShape{1}}),
            (TensorShape{2, 3}));
  EXPECT_EQ(BroadcastShapes({TensorShape{7}}), TensorShape{7});
}

TEST(BroadcastShapesTest, IncompatibleShapesAreNamed) {
  try {
    BroadcastShapes({TensorShape{2, 3}, TensorShape{4}}, "Add node 'n'");
    FAIL() << "expected an exception";
  } catch (const Exception& e) {
    EXPECT_EQ(e.Code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("Add node 'n': "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2,3] and [4]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BroadcastShapes({TensorShape{0}, TensorShape{2}}), Exception);
  EXPECT_THROW(BroadcastShapes({TensorShape{3}, TensorShape{1}, TensorShape{2}}), Exception);
}

TEST(BroadcasterTest, EqualShapesAreOneSpan) {
  const Broadcaster plan({TensorShape{2, 3, 4}, TensorShape{2, 3, 4}});
  const auto spans = CollectSpans(plan);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].count, 24);
  EXPECT_EQ(spans[0].steps, (std::vector<int64_t>{1, 1}));
}

TEST(BroadcasterTest, RowBroadcastSpansRows) {
  const Broadcaster plan({TensorShape{2, 3}, TensorShape{3}});
  const auto spans = CollectSpans(plan);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].output_offset, 3);
  EXPECT_EQ(spans[1].offsets, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(spans[1].steps, (std::vector<int64_t>{1, 1}));
}

TEST(BroadcasterTest, ScalarsGiveOneElement) {
  const Broadcaster plan({TensorShape{}, TensorShape{1, 1}});
  EXPECT_EQ(plan.OutputShape(), (TensorShape{1, 1}));
  const auto spans = CollectSpans(plan);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].count, 1);
  EXPECT_EQ(spans[0].steps, (std::vector<int64_t>{0, 0}));
}

TEST(BroadcasterTest, EmptyOutputCallsNothing) {
  const Broadcaster plan({TensorShape{0, 3}, TensorShape{3}});
  EXPECT_EQ(plan.OutputShape(), (TensorShape{0, 3}));
  EXPECT_TRUE(CollectSpans(plan).empty());
}

TEST(BroadcasterTest, OffsetsMatchNaiveIndexing) {
  ExpectSpansMatchNaive({TensorShape{2, 1, 3}, TensorShape{4, 1}});
  ExpectSpansMatchNaive({TensorShape{3, 1}, TensorShape{1, 4}});
  ExpectSpansMatchNaive({TensorShape{2, 3, 4, 5}, TensorShape{3, 1, 1}});
  ExpectSpansMatchNaive({TensorShape{2, 3, 4, 5}, TensorShape{4, 5}, TensorShape{2, 1, 1, 5}});
  ExpectSpansMatchNaive({TensorShape{5}, TensorShape{}});
  ExpectSpansMatchNaive({TensorShape{1, 2, 1, 3}, TensorShape{2, 2, 1, 1}});
  ExpectSpansMatchNaive({TensorShape{1, 1, 6}, TensorShape{1, 1, 1}, TensorShape{6}});
}

TEST(LegacyBroadcastShapeTest, AxisAndSuffixMatching) {
  EXPECT_EQ(LegacyBroadcastShape({2, 3, 4, 5}, {3, 4}, 1), (TensorShape{1, 3, 4, 1}));
  EXPECT_EQ(LegacyBroadcastShape({2, 3, 4, 5}, {2}, 0), (TensorShape{2, 1, 1, 1}));
  EXPECT_EQ(LegacyBroadcastShape({2, 3, 4, 5}, {4, 5}, std::nullopt), (TensorShape{1, 1, 4, 5}));
  EXPECT_EQ(LegacyBroadcastShape({2, 3, 4, 5}, {}, std::nullopt), (TensorShape{1, 1, 1, 1}));
  EXPECT_EQ(LegacyBroadcastShape({2, 3, 4, 5}, {1, 1}, std::nullopt), (TensorShape{1, 1, 1, 1}));
  EXPECT_EQ(LegacyBroadcastShape({2, 3}, {3}, -1), (TensorShape{1, 3}));
}

TEST(LegacyBroadcastShapeTest, MismatchesThrow) {
  EXPECT_THROW(LegacyBroadcastShape({2, 3}, {2}, std::nullopt), Exception);  // suffix is 3
  EXPECT_THROW(LegacyBroadcastShape({2, 3}, {3}, 0), Exception);
  EXPECT_THROW(LegacyBroadcastShape({2, 3}, {3}, 2), Exception);
  EXPECT_THROW(LegacyBroadcastShape({3}, {2, 3}, std::nullopt), Exception);
}

}  // namespace
}  // namespace prism::cpu

namespace prism::cpu {
namespace {

// Long spans split over the pool give the same result as one thread, for every broadcast form.
TEST(BroadcasterTest, SpansSplitOverAPoolMatchOneThread) {
  ThreadPool pool(3);
  const std::vector<std::pair<TensorShape, TensorShape>> cases = {
      {TensorShape({3, 70000}), TensorShape({3, 70000})},  // both move
      {TensorShape({3, 70000}), TensorShape({3, 1})},      // b repeats along the span
      {TensorShape({1}), TensorShape({2, 90000})},         // a is one element
  };
  for (const auto& [shape_a, shape_b] : cases) {
    const Broadcaster plan({shape_a, shape_b});
    std::vector<float> a(static_cast<size_t>(shape_a.Size()));
    std::vector<float> b(static_cast<size_t>(shape_b.Size()));
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 977) * 0.5f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 311) - 100.0f;
    const size_t size = static_cast<size_t>(plan.OutputShape().Size());
    std::vector<float> serial(size, -1.0f);
    std::vector<float> parallel(size, -2.0f);
    auto fn = [](float x, float y) { return x * y + 1.0f; };
    BroadcastBinary(plan, a.data(), b.data(), serial.data(), fn);
    BroadcastBinary(plan, a.data(), b.data(), parallel.data(), fn, &pool);
    EXPECT_EQ(serial, parallel) << shape_a.ToString() << " x " << shape_b.ToString();
  }
}

}  // namespace
}  // namespace prism::cpu

// Prism's SGEMM (mlas/sgemm.h) on every instruction-set level this machine runs, each chosen
// explicitly through its IsaKernels table, against a double-precision reference: random shapes
// with ragged edges (sizes that are not multiples of the 6 x 16 tile, 12 x 32 on AVX-512, or of
// the cache blocks: 1,
// primes, one past a block), every transpose, alpha and beta, leading dimensions wider than the
// matrices (whose padding must stay untouched), the matrix-vector paths, prepacked B, and splits
// over thread pools against the single-threaded result.
#include "mlas/sgemm.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"
#include "mlas/packed_gemm.h"

namespace prism::mlas {
namespace {

struct Shape {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
};

std::ostream& operator<<(std::ostream& out, const Shape& s) {
  return out << "m=" << s.m << " n=" << s.n << " k=" << s.k << " transA=" << s.trans_a
             << " transB=" << s.trans_b << " alpha=" << s.alpha << " beta=" << s.beta;
}

// Operands with padded leading dimensions and C's padding filled with a sentinel.
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
};

Operands MakeOperands(const Shape& s, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Operands o;
  o.lda = (s.trans_a ? s.m : s.k) + 3;
  o.ldb = (s.trans_b ? s.k : s.n) + 2;
  o.ldc = s.n + 5;
  o.a.resize(static_cast<size_t>((s.trans_a ? s.k : s.m) * o.lda));
  o.b.resize(static_cast<size_t>((s.trans_b ? s.n : s.k) * o.ldb));
  o.c.resize(static_cast<size_t>(s.m * o.ldc));
  for (float& x : o.a) x = value(generator);
  for (float& x : o.b) x = value(generator);
  for (float& x : o.c) x = value(generator);
  return o;
}

// Checks c (the result) against alpha * op(A) op(B) + beta * c_before in double; the tolerance
// scales with the sum of |terms| (float rounding of a k-term sum).
void ExpectProduct(const Shape& s, const Operands& o, const std::vector<float>& c_before,
                   const std::vector<float>& c) {
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < o.ldc; ++j) {
      const size_t at = static_cast<size_t>(i * o.ldc + j);
      if (j >= s.n) {
        ASSERT_EQ(c[at], c_before[at])
            << s << ": padding column " << j << " of row " << i << " was written";
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        const double av = s.trans_a ? o.a[p * o.lda + i] : o.a[i * o.lda + p];
        const double bv = s.trans_b ? o.b[j * o.ldb + p] : o.b[p * o.ldb + j];
        sum += av * bv;
        magnitude += std::fabs(av * bv);
      }
      const double expected = s.alpha * sum + (s.beta != 0 ? s.beta * double(c_before[at]) : 0);
      const double tolerance =
          2e-7 * (s.k + 4) * (std::fabs(s.alpha) * magnitude + std::fabs(s.beta) + 1);
      ASSERT_NEAR(c[at], expected, tolerance) << s << " at (" << i << ", " << j << ")";
    }
  }
}

void CheckSgemm(const IsaKernels& kernels, const Shape& s, ThreadPool* pool, uint32_t seed) {
  Operands o = MakeOperands(s, seed);
  const std::vector<float> c_before = o.c;
  Sgemm(kernels, s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda, o.b.data(), o.ldb,
        s.beta, o.c.data(), o.ldc, pool);
  ExpectProduct(s, o, c_before, o.c);
}

void CheckPacked(const IsaKernels& kernels, const Shape& s, ThreadPool* pool, uint32_t seed) {
  Operands o = MakeOperands(s, seed);
  const std::vector<float> c_before = o.c;
  const PackedMatrixB packed = PackedMatrixB::Pack(s.trans_b, s.k, s.n, o.b.data(), o.ldb);
  SgemmPackedB(kernels, s.trans_a, s.m, o.a.data(), o.lda, s.alpha, packed, s.beta, o.c.data(),
               o.ldc, pool);
  ExpectProduct(s, o, c_before, o.c);
}

// Ragged sizes around the tile (6 x 16) and the cache blocks (144 rows, 256 deep, deeper with B
// prepacked).
std::vector<Shape> RaggedShapes() {
  std::vector<Shape> shapes;
  const int64_t sizes[] = {1, 2, 5, 6, 7, 13, 16, 17, 31, 67};
  int index = 0;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : {1, 3, 8, 13, 67}) {
        const int t = index++;
        shapes.push_back({(t & 1) != 0, (t & 2) != 0, m, n, k, t % 5 == 0 ? -0.5f : 1.0f,
                          t % 3 == 0 ? 0.0f : (t % 3 == 1 ? 1.0f : 0.75f)});
      }
  // Several blocks of depth (256), of rows (144) and a tail of each; primes.
  for (int t = 0; t < 4; ++t) {
    const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
    shapes.push_back({ta, tb, 257, 67, 13, 1.0f, 0.0f});
    shapes.push_back({ta, tb, 13, 257, 257, 2.0f, 0.5f});
    shapes.push_back({ta, tb, 150, 35, 520, 1.0f, 1.0f});
    shapes.push_back({ta, tb, 289, 97, 300, -1.0f, 0.0f});
    // With B prepacked, AVX2 blocks as deep as 384 KiB of A allows, k split evenly: three blocks
    // of 500 for a 144-row block, two of 769 for 64 rows.
    shapes.push_back({ta, tb, 150, 35, 1500, 1.0f, 0.75f});
    shapes.push_back({ta, tb, 64, 21, 1537, 0.5f, 1.0f});
  }
  return shapes;
}

TEST(SgemmTest, EveryLevelMatchesTheReferenceOnRaggedShapes) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    uint32_t seed = 1;
    for (const Shape& s : RaggedShapes()) CheckSgemm(KernelsFor(level), s, nullptr, seed++);
  }
}

TEST(SgemmTest, EveryLevelMatchesTheReferenceWithPackedB) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    uint32_t seed = 100;
    for (const Shape& s : RaggedShapes()) CheckPacked(KernelsFor(level), s, nullptr, seed++);
  }
}

TEST(SgemmTest, MatrixVectorPaths) {
  // One row or one column of C, in every layout, with strided vectors (padded leading dimensions).
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    uint32_t seed = 200;
    for (int t = 0; t < 4; ++t) {
      const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
      for (int64_t size : {1, 7, 31, 32, 33, 70, 300})
        for (int64_t k : {1, 5, 16, 17, 300}) {
          CheckSgemm(KernelsFor(level), {ta, tb, 1, size, k, 1.5f, 0.0f}, nullptr, seed++);
          CheckSgemm(KernelsFor(level), {ta, tb, size, 1, k, 1.0f, 0.5f}, nullptr, seed++);
        }
    }
  }
}

TEST(SgemmTest, ColumnBlocksBeyondTheFirst) {
  // More columns than one column block (kSgemmColumnBlock) of B.
  const Shape s{false, false, 7, kSgemmColumnBlock + 37, 5, 1.0f, 0.5f};
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    CheckSgemm(KernelsFor(level), s, nullptr, 7);
    CheckPacked(KernelsFor(level), s, nullptr, 8);
  }
}

TEST(SgemmTest, ThreadPoolSplitsMatchTheReference) {
  ThreadPool two(2), three(3);
  const Shape shapes[] = {
      {false, false, 300, 200, 100, 1.0f, 0.0f}, {true, false, 97, 413, 70, 0.5f, 1.0f},
      {false, true, 601, 45, 33, 1.0f, 0.25f},   {true, true, 128, 768, 64, -1.0f, 0.0f},
      {false, false, 1, 4000, 300, 1.0f, 0.0f},  {false, true, 3000, 1, 400, 1.0f, 2.0f}};
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    uint32_t seed = 300;
    for (const Shape& s : shapes)
      for (ThreadPool* pool : {&two, &three}) {
        CheckSgemm(KernelsFor(level), s, pool, seed);
        CheckPacked(KernelsFor(level), s, pool, seed++);
      }
  }
}

TEST(SgemmTest, ThreadedResultEqualsTheSingleThreadedOne) {
  // Each element's sum runs in the same order whatever the split: the results are identical.
  ThreadPool pool(2);
  const Shape s{false, false, 200, 300, 700, 1.0f, 0.0f};
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    Operands single = MakeOperands(s, 11);
    Operands threaded = single;
    Sgemm(KernelsFor(level), false, false, s.m, s.n, s.k, 1.0f, single.a.data(), single.lda,
          single.b.data(), single.ldb, 0.0f, single.c.data(), single.ldc, nullptr);
    Sgemm(KernelsFor(level), false, false, s.m, s.n, s.k, 1.0f, threaded.a.data(), threaded.lda,
          threaded.b.data(), threaded.ldb, 0.0f, threaded.c.data(), threaded.ldc, &pool);
    EXPECT_EQ(single.c, threaded.c);
  }
}

TEST(SgemmTest, ZeroBetaNeverReadsC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (int64_t m : {1, 7})
      for (int64_t n : {1, 20}) {
        std::vector<float> a(static_cast<size_t>(m * 9), 1.0f), b(static_cast<size_t>(9 * n), 2.0f);
        std::vector<float> c(static_cast<size_t>(m * n), nan);
        Sgemm(KernelsFor(level), false, false, m, n, 9, 1.0f, a.data(), 9, b.data(), n, 0.0f,
              c.data(), n, nullptr);
        for (float x : c) ASSERT_EQ(x, 18.0f) << m << "x" << n;
      }
  }
}

TEST(SgemmTest, PackingFormats) {
  // The panel formats of isa_kernels.h, element by element, on every level.
  const int64_t m = 14, n = 21, k = 11;
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(1000 + i);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& kernels = KernelsFor(level);
    for (bool trans : {false, true}) {
      // A: panels of 6 rows (the last of 2), each k step's rows together.
      std::vector<float> packed(static_cast<size_t>(m * k), -1.0f);
      kernels.sgemm_pack_a(trans, m, k, a.data(), trans ? m : k, packed.data());
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p) {
          const int64_t panel = i / 6, rows = std::min<int64_t>(6, m - panel * 6);
          const float expected = trans ? a[p * m + i] : a[i * k + p];
          ASSERT_EQ(packed[panel * 6 * k + p * rows + i % 6], expected) << i << "," << p;
        }
      // B: panels of 16 columns, zero-padded, panel_stride apart.
      const int64_t stride = 16 * k + 8;
      std::vector<float> panels(static_cast<size_t>(2 * stride), -1.0f);
      kernels.sgemm_pack_b(trans, k, n, b.data(), trans ? k : n, panels.data(), stride);
      for (int64_t j = 0; j < 32; ++j)
        for (int64_t p = 0; p < k; ++p) {
          const float expected = j >= n ? 0.0f : (trans ? b[j * k + p] : b[p * n + j]);
          ASSERT_EQ(panels[(j / 16) * stride + p * 16 + j % 16], expected) << j << "," << p;
        }
    }
  }
}

// The AVX-512 level's 12 x 32 tile against the baseline's kernels on random shapes around its
// edges: rows left over from 12 (packed A's second 6-row panel short or absent), a last single
// 16-column panel, columns not a multiple of 16 (masked), several depth and row blocks, every
// transpose (A packed when transposed, in place otherwise), beta 0 / 1 / other, padded leading
// dimensions whose padding must stay untouched, and prepacked B.
TEST(SgemmTest, Avx512MatchesTheBaselineOnRandomShapes) {
  if (!IsaUsable(CpuIsa::kAvx512)) GTEST_SKIP() << "the AVX-512 level is not on this CPU or build";
  const IsaKernels& wide = KernelsFor(CpuIsa::kAvx512);
  const IsaKernels& baseline = KernelsFor(CpuIsa::kBaseline);
  std::mt19937 random(42);
  auto size = [&random](int64_t most) {
    return std::uniform_int_distribution<int64_t>(2, most)(random);
  };
  const float betas[] = {0.0f, 1.0f, -0.75f};
  for (int trial = 0; trial < 120; ++trial) {
    const bool large = trial % 8 == 0;
    Shape s{(trial & 1) != 0,       (trial & 2) != 0,       size(large ? 300 : 40),
            size(large ? 300 : 70), size(large ? 600 : 40), trial % 5 == 0 ? -1.5f : 1.0f,
            betas[trial % 3]};
    SCOPED_TRACE(::testing::Message() << s);
    Operands o = MakeOperands(s, static_cast<uint32_t>(trial));
    std::vector<float> expected = o.c, got = o.c, got_packed = o.c;
    Sgemm(baseline, s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda, o.b.data(),
          o.ldb, s.beta, expected.data(), o.ldc, nullptr);
    Sgemm(wide, s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda, o.b.data(), o.ldb,
          s.beta, got.data(), o.ldc, nullptr);
    const PackedMatrixB packed = PackedMatrixB::Pack(s.trans_b, s.k, s.n, o.b.data(), o.ldb);
    SgemmPackedB(wide, s.trans_a, s.m, o.a.data(), o.lda, s.alpha, packed, s.beta,
                 got_packed.data(), o.ldc, nullptr);
    for (size_t at = 0; at < expected.size(); ++at) {
      const int64_t row = static_cast<int64_t>(at) / o.ldc,
                    column = static_cast<int64_t>(at) % o.ldc;
      if (column >= s.n) {
        ASSERT_EQ(got[at], o.c[at]) << "padding (" << row << ", " << column << ") was written";
        ASSERT_EQ(got_packed[at], o.c[at]) << "padding (" << row << ", " << column << ")";
        continue;
      }
      // Both sum in float, in different orders: |terms| <= 1, so k * 2e-7 * (k + 4) bounds it.
      const double tolerance = 2e-7 * (s.k + 4) * (std::fabs(s.alpha) * s.k + 2);
      ASSERT_NEAR(got[at], expected[at], tolerance) << "(" << row << ", " << column << ")";
      ASSERT_NEAR(got_packed[at], expected[at], tolerance) << "(" << row << ", " << column << ")";
    }
  }
}

TEST(SgemmTest, PeakProbeReportsARate) {
  for (CpuIsa level : Levels()) {
    const double gflops = ProbeFmaPeakGflops(KernelsFor(level), 0.02);
    EXPECT_GT(gflops, 0.1) << IsaName(level);
    std::cout << IsaName(level) << " FP32 peak probe: " << gflops << " GFLOP/s\n";
  }
}

}  // namespace
}  // namespace prism::mlas

namespace prism::mlas {
namespace {

// The epilogue sees every element of C exactly once, after its product is complete, at the block
// coordinates it is given, from every thread of the split: it records (row, column) of each
// element it visits and adds row + column to it.
struct Visits {
  int64_t m, n;
  std::vector<std::atomic<int>> seen;
  Visits(int64_t rows, int64_t cols) : m(rows), n(cols), seen(static_cast<size_t>(rows * cols)) {}
  static void Apply(const void* context, int64_t row, int64_t rows, int64_t column, int64_t columns,
                    float* block, int64_t ldc) {
    auto& visits = *static_cast<Visits*>(const_cast<void*>(context));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c) {
        visits.seen[static_cast<size_t>((row + r) * visits.n + column + c)]++;
        block[r * ldc + c] += static_cast<float>(row + r + column + c);
      }
  }
};

TEST(SgemmTest, EpilogueVisitsEveryFinishedElementOnce) {
  ThreadPool two(2), three(3);
  const Shape shapes[] = {{false, false, 300, 700, 600, 1.0f, 0.0f},
                          {false, true, 37, 29, 1100, 1.0f, 0.0f},
                          {true, false, 1, 45, 20, 1.0f, 0.0f},
                          {false, false, 50, 1, 33, 1.0f, 0.0f},
                          {false, false, 13, 17, 0, 1.0f, 0.0f}};
  for (CpuIsa level : Levels()) {
    for (const Shape& s : shapes) {
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two, &three}) {
        SCOPED_TRACE(testing::Message() << IsaName(level) << " " << s << " threads "
                                        << (pool ? pool->DegreeOfParallelism() : 1));
        Operands o = MakeOperands(s, 5);
        std::vector<float> plain = o.c;
        Sgemm(KernelsFor(level), s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda,
              o.b.data(), o.ldb, s.beta, plain.data(), o.ldc, pool);
        Visits visits(s.m, s.n);
        const SgemmEpilogue epilogue{&Visits::Apply, &visits};
        Sgemm(KernelsFor(level), s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda,
              o.b.data(), o.ldb, s.beta, o.c.data(), o.ldc, pool, &epilogue);
        for (int64_t i = 0; i < s.m; ++i)
          for (int64_t j = 0; j < s.n; ++j) {
            ASSERT_EQ(visits.seen[static_cast<size_t>(i * s.n + j)].load(), 1)
                << "element (" << i << ", " << j << ")";
            const size_t at = static_cast<size_t>(i * o.ldc + j);
            ASSERT_EQ(o.c[at], plain[at] + static_cast<float>(i + j))
                << "(" << i << ", " << j << ")";
          }
      }
    }
  }
}

}  // namespace
}  // namespace prism::mlas

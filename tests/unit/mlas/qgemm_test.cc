// Prism's int8 GEMM (mlas/qgemm.h) on every instruction-set level this machine runs, each chosen
// explicitly through its IsaKernels table (and, where a level runs a VNNI kernel here, again
// without it: its vpmaddubsw kernel), against a plain int64 reference and against the
// portable (baseline) level: random shapes with ragged edges (m, n, k not multiples of the tiles,
// panels or cache blocks, k odd), all four type pairs (u8/s8 A, s8/u8 B), nonzero zero points
// (scalar and per column), the extreme values that would saturate vpmaddubsw's int16 pairs
// (a = 255, b = -128 everywhere), the pair-bound check of the packer, leading dimensions wider
// than the matrices, and splits over thread pools.
#include "mlas/qgemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

// Every kernel variant this build and CPU run: each level's table and, where the level runs a
// VNNI kernel here, the same table without it (its vpmaddubsw kernel, with wide packing).
struct Variant {
  std::string name;
  IsaKernels kernels;
};

std::vector<Variant> Variants() {
  const CpuIsa all[] = {CpuIsa::kBaseline, CpuIsa::kAvx2Fma, CpuIsa::kAvx512};
  std::vector<Variant> variants;
  for (CpuIsa level : all) {
    if (!IsaUsable(level)) {
      std::cout << "[ SKIPPED  ] level " << IsaName(level) << ": not on this CPU or build\n";
      continue;
    }
    variants.push_back({IsaName(level), KernelsFor(level)});
    if (QgemmUsesAmx(KernelsFor(level))) {
      IsaKernels without = KernelsFor(level);
      without.qgemm_amx_usable = nullptr;
      variants.push_back({std::string(IsaName(level)) + " without AMX", without});
    } else if (KernelsFor(level).qgemm_amx != nullptr) {
      std::cout << "[ SKIPPED  ] " << IsaName(level) << "'s AMX kernel: not on this CPU\n";
    }
    if (QgemmUsesVnni(KernelsFor(level))) {
      IsaKernels without = KernelsFor(level);
      without.qgemm_vnni_usable = nullptr;
      without.qgemm_amx_usable = nullptr;
      variants.push_back({std::string(IsaName(level)) + " without VNNI", without});
    } else if (KernelsFor(level).qgemm_block_vnni != nullptr) {
      std::cout << "[ SKIPPED  ] " << IsaName(level) << "'s VNNI kernel: not on this CPU\n";
    }
  }
  return variants;
}

struct Problem {
  int64_t m = 0, n = 0, k = 0;
  bool a_signed = false, b_signed = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<uint8_t> a, b;  // raw bytes (int8 values stored as their two's complement)
  int32_t a_zero = 0;
  std::vector<int32_t> b_zero;  // empty: b_zero_scalar
  int32_t b_zero_scalar = 0;
};

std::ostream& operator<<(std::ostream& out, const Problem& p) {
  return out << "m=" << p.m << " n=" << p.n << " k=" << p.k << " a_signed=" << p.a_signed
             << " b_signed=" << p.b_signed << " a_zero=" << p.a_zero
             << " b_zero=" << (p.b_zero.empty() ? "scalar " : "per column ") << p.b_zero_scalar;
}

int32_t Value(uint8_t byte, bool is_signed) {
  return is_signed ? static_cast<int8_t>(byte) : byte;
}

int32_t ZeroValue(std::mt19937& generator, bool is_signed) {
  std::uniform_int_distribution<int> value(is_signed ? -128 : 0, is_signed ? 127 : 255);
  return value(generator);
}

Problem MakeProblem(int64_t m, int64_t n, int64_t k, bool a_signed, bool b_signed, bool per_column,
                    uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_signed = a_signed;
  p.b_signed = b_signed;
  p.lda = k + 3;
  p.ldb = n + 2;
  p.ldc = n + 5;
  p.a.resize(static_cast<size_t>(m * p.lda));
  p.b.resize(static_cast<size_t>(k * p.ldb));
  for (uint8_t& x : p.a) x = static_cast<uint8_t>(byte(generator));
  for (uint8_t& x : p.b) x = static_cast<uint8_t>(byte(generator));
  p.a_zero = ZeroValue(generator, a_signed);
  p.b_zero_scalar = ZeroValue(generator, b_signed);
  if (per_column)
    for (int64_t j = 0; j < n; ++j) p.b_zero.push_back(ZeroValue(generator, b_signed));
  return p;
}

// The exact sums in int64, wrapped to int32 (as MatMulInteger allows).
std::vector<int32_t> Reference(const Problem& p) {
  std::vector<int32_t> c(static_cast<size_t>(p.m * p.ldc), 0);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const int64_t b_zero = p.b_zero.empty() ? p.b_zero_scalar : p.b_zero[j];
      int64_t sum = 0;
      for (int64_t q = 0; q < p.k; ++q)
        sum += (Value(p.a[i * p.lda + q], p.a_signed) - int64_t{p.a_zero}) *
               (Value(p.b[q * p.ldb + j], p.b_signed) - b_zero);
      c[static_cast<size_t>(i * p.ldc + j)] = static_cast<int32_t>(sum);
    }
  return c;
}

constexpr int32_t kSentinel = 0x5a5a5a5a;

std::vector<int32_t> RunQgemm(const IsaKernels& kernels, const Problem& p, ThreadPool* pool) {
  const PackedQuantB packed =
      PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, p.b_signed, QgemmPairsSaturate(kernels));
  QgemmZeroPoints zero;
  zero.a = p.a_zero;
  zero.b_scalar = p.b_zero_scalar;
  zero.b_per_column = p.b_zero.empty() ? nullptr : p.b_zero.data();
  // One row more than C: a kernel that stores rows past m (the padded rows of A's last panel)
  // writes into it.
  std::vector<int32_t> c(static_cast<size_t>((p.m + 1) * p.ldc), kSentinel);
  QgemmPackedB(kernels, p.m, p.a.data(), p.lda, p.a_signed, packed, zero, c.data(), p.ldc, pool);
  for (int64_t j = 0; j < p.ldc; ++j)
    EXPECT_EQ(c[static_cast<size_t>(p.m * p.ldc + j)], kSentinel) << p << " row m, j=" << j;
  c.resize(static_cast<size_t>(p.m * p.ldc));
  // The padding past n stays untouched; the reference has zeros there.
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = p.n; j < p.ldc; ++j) {
      EXPECT_EQ(c[static_cast<size_t>(i * p.ldc + j)], kSentinel) << p << " i=" << i << " j=" << j;
      c[static_cast<size_t>(i * p.ldc + j)] = 0;
    }
  return c;
}

void ExpectEqual(const std::vector<int32_t>& expected, const std::vector<int32_t>& actual,
                 const Problem& p, const char* what) {
  ASSERT_EQ(expected.size(), actual.size());
  int64_t mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != actual[i] && mismatches++ < 3)
      ADD_FAILURE() << what << ": " << p << " at row " << i / p.ldc << " column " << i % p.ldc
                    << ": expected " << expected[i] << ", got " << actual[i];
  EXPECT_EQ(mismatches, 0) << what << ": " << p;
}

TEST(Int8GemmTest, EveryLevelMatchesTheReferenceOnRaggedShapes) {
  // Sizes around the tiles (4 and 12 rows, 16 and 32 columns), the depth group (4) and the
  // cache blocks (144 rows, 512 columns, depth 1024).
  const int64_t ms[] = {1, 3, 4, 5, 12, 13, 25, 145};
  const int64_t ns[] = {1, 15, 16, 17, 33, 47, 513};
  const int64_t ks[] = {1, 2, 3, 5, 8, 31, 64, 255, 1025};
  std::mt19937 picker(7);
  const IsaKernels& portable = KernelsFor(CpuIsa::kBaseline);
  for (int round = 0; round < 40; ++round) {
    const int64_t m = ms[picker() % std::size(ms)], n = ns[picker() % std::size(ns)];
    const int64_t k = ks[picker() % std::size(ks)];
    Problem p = MakeProblem(m, n, k, picker() % 2, picker() % 2, picker() % 2, 100 + round);
    // A third of the rounds with B's zero point at 0 after the shift (int8 0, uint8 128): the
    // kernels' stores then have no row term (the AVX-512 tile's direct store to C).
    if (round % 3 == 0) {
      p.b_zero.clear();
      p.b_zero_scalar = p.b_signed ? 0 : 128;
    }
    const std::vector<int32_t> expected = Reference(p);
    const std::vector<int32_t> base = RunQgemm(portable, p, nullptr);
    ExpectEqual(expected, base, p, "baseline");
    for (const Variant& v : Variants()) {
      SCOPED_TRACE(v.name);
      ExpectEqual(base, RunQgemm(v.kernels, p, nullptr), p, "variant against baseline");
    }
  }
}

// Blocks of at most 4 rows (a matrix-vector product, or the last row block of a larger m:
// 146 = 144 + 2) run the VNNI level's few-row tiles: every row count 1 to 4 against 1 to 4
// panels and their ragged ends, even and odd depth-group counts (its two accumulator sets),
// with and without B's zero-point term.
TEST(Int8GemmTest, FewRowBlocksMatchTheReference) {
  uint32_t seed = 500;
  for (const int64_t m : {1, 2, 3, 4, 146})
    for (const int64_t n : {1, 16, 17, 48, 63, 64, 65, 130})
      for (const int64_t k : {1, 4, 7, 8, 33}) {
        ++seed;
        Problem p = MakeProblem(m, n, k, false, true, seed % 2 == 0, seed);
        if (seed % 3 == 0) {
          p.b_zero.clear();
          p.b_zero_scalar = 0;
        }
        const std::vector<int32_t> expected = Reference(p);
        for (const Variant& v : Variants())
          ExpectEqual(expected, RunQgemm(v.kernels, p, nullptr), p, v.name.c_str());
      }
}

// vpmaddubsw's worst case: 255 * -128 twice overflows int16. Every level must still be exact:
// the saturating ones through the wide packing (vpmaddwd on int16).
TEST(Int8GemmTest, ExtremeValuesAreExactOnEveryLevel) {
  for (const bool b_signed : {true, false}) {
    for (const uint8_t b_byte : {uint8_t{0x80}, uint8_t{0x7f}, uint8_t{0x00}, uint8_t{0xff}}) {
      Problem p = MakeProblem(13, 37, 67, false, b_signed, false, 3);
      std::fill(p.a.begin(), p.a.end(), uint8_t{255});
      std::fill(p.b.begin(), p.b.end(), b_byte);
      p.a_zero = 0;
      p.b_zero_scalar = 0;
      const std::vector<int32_t> expected = Reference(p);
      for (const Variant& v : Variants()) {
        SCOPED_TRACE(v.name);
        ExpectEqual(expected, RunQgemm(v.kernels, p, nullptr), p, "extreme");
      }
    }
  }
  // int8 A at its ends too (shifted to 0 and 255).
  Problem p = MakeProblem(9, 20, 33, true, true, true, 4);
  for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = i % 3 == 0 ? 0x80 : 0x7f;
  for (size_t i = 0; i < p.b.size(); ++i) p.b[i] = i % 2 == 0 ? 0x80 : 0x7f;
  const std::vector<int32_t> expected = Reference(p);
  for (const Variant& v : Variants())
    ExpectEqual(expected, RunQgemm(v.kernels, p, nullptr), p, v.name.c_str());
}

TEST(Int8GemmTest, PackerChecksThePairBound) {
  // |b| <= 64 everywhere: within the bound, never wide.
  std::vector<uint8_t> small(40 * 17);
  for (size_t i = 0; i < small.size(); ++i)
    small[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int>(i % 129) - 64));
  const PackedQuantB within = PackedQuantB::Pack(40, 17, small.data(), 17, true, true);
  EXPECT_TRUE(within.WithinPairBound());
  EXPECT_FALSE(within.Wide());
  // 127 beside -128 in one pair is still within (255 * 127 and 255 * -128 fit int16) ...
  std::vector<uint8_t> mixed = {0x7f, 0x80, 0x80, 0x7f};  // k = 4, n = 1
  EXPECT_TRUE(PackedQuantB::Pack(4, 1, mixed.data(), 1, true, true).WithinPairBound());
  // ... but 65 + 64 (positive parts 129) is not, nor -65 - 64; the odd last row has no pair.
  std::vector<uint8_t> over = {65, 64};
  EXPECT_FALSE(PackedQuantB::Pack(2, 1, over.data(), 1, true, true).WithinPairBound());
  std::vector<uint8_t> under = {static_cast<uint8_t>(-65), static_cast<uint8_t>(-64)};
  EXPECT_FALSE(PackedQuantB::Pack(2, 1, under.data(), 1, true, true).WithinPairBound());
  std::vector<uint8_t> lone = {64, 64, 127};
  EXPECT_TRUE(PackedQuantB::Pack(3, 1, lone.data(), 1, true, true).WithinPairBound());
  // A wide packing is made only for kernels that saturate.
  const PackedQuantB narrow = PackedQuantB::Pack(2, 1, over.data(), 1, true, false);
  EXPECT_FALSE(narrow.Wide());
  EXPECT_TRUE(PackedQuantB::Pack(2, 1, over.data(), 1, true, true).Wide());
}

// A B outside the pair bound packed narrow (for kernels that do not saturate) is refused by
// kernels that do, rather than summed wrongly.
TEST(Int8GemmTest, SaturatingKernelsRefuseANarrowBOutsideTheBound) {
  std::vector<uint8_t> b = {100, 100, 100, 100};  // k = 4, n = 1: 100 + 100 > 128
  const PackedQuantB packed = PackedQuantB::Pack(4, 1, b.data(), 1, true, false);
  ASSERT_FALSE(packed.Wide());
  std::vector<uint8_t> a = {255, 255, 255, 255};
  int32_t c = 0;
  for (const Variant& v : Variants()) {
    if (!QgemmPairsSaturate(v.kernels)) continue;
    EXPECT_THROW(QgemmPackedB(v.kernels, 1, a.data(), 4, false, packed, {}, &c, 1, nullptr),
                 std::invalid_argument)
        << v.name;
  }
}

// The packing byte for byte against the layout of qgemm.h written out one value at a time (the
// packer's first form): whole panels and depth groups (its 64-byte path, 128 wide), a ragged
// last panel and group, signed and unsigned B, wide and narrow, a leading dimension wider than
// n; the column sums and the pair-bound flag with them. (Full-range random weights break the
// bound in nearly every block, which packs them wide rather than mixed: a last panel of one
// column breaks it in fewer, so the ragged panels here keep four columns or more.)
TEST(Int8GemmTest, PackingMatchesTheLayoutByteForByte) {
  const int64_t shapes[][2] = {{4, 16}, {8, 32}, {37, 50}, {64, 48}, {3, 15}, {1, 1}, {70, 20}};
  uint32_t seed = 30;
  for (const auto& shape : shapes)
    for (const bool b_signed : {true, false})
      for (const bool seven_bit : {true, false})
        for (const bool widen_if_needed : {false, true}) {
          const int64_t k = shape[0], n = shape[1];
          Problem p = MakeProblem(1, n, k, false, b_signed, false, ++seed);
          if (seven_bit)  // within the pair bound after the shift to int8
            for (uint8_t& x : p.b)
              x = static_cast<uint8_t>(((x & 0x7f) - 64) ^ (b_signed ? 0 : 0x80));
          const PackedQuantB packed =
              PackedQuantB::Pack(k, n, p.b.data(), p.ldb, b_signed, widen_if_needed);
          const uint8_t flip = b_signed ? 0 : 0x80;
          bool within = true;
          for (int64_t q = 0; q + 1 < k; q += 2)
            for (int64_t j = 0; j < n; ++j) {
              const int b0 = static_cast<int8_t>(p.b[q * p.ldb + j] ^ flip);
              const int b1 = static_cast<int8_t>(p.b[(q + 1) * p.ldb + j] ^ flip);
              within = within && std::max(b0, 0) + std::max(b1, 0) <= 128 &&
                       std::min(b0, 0) + std::min(b1, 0) >= -128;
            }
          const bool wide = widen_if_needed && !within;
          SCOPED_TRACE(::testing::Message()
                       << "k " << k << " n " << n << " signed " << b_signed << " wide " << wide);
          ASSERT_EQ(packed.WithinPairBound(), within);
          ASSERT_EQ(packed.Wide(), wide);
          const int64_t panels = (n + kQgemmPanelCols - 1) / kQgemmPanelCols;
          std::vector<int8_t> expected(static_cast<size_t>(panels * packed.PanelStride()), 0);
          std::vector<int32_t> sums(static_cast<size_t>(panels * kQgemmPanelCols), 0);
          for (int64_t q = 0; q < k; ++q)
            for (int64_t j = 0; j < n; ++j) {
              const auto v = static_cast<int8_t>(p.b[q * p.ldb + j] ^ flip);
              // A B with paired groups stores a panel's groups in its order (GroupOrder).
              const int64_t panel = j / kQgemmPanelCols, g = q / kQgemmDepthGroup;
              int64_t stored = g;
              if (packed.GroupOrder() != nullptr) {
                const int64_t first = g / QgemmDepthBlockGroups() * QgemmDepthBlockGroups();
                const int32_t* order = packed.GroupOrder() + panel * packed.Groups();
                stored = first;
                while (first + order[stored] != g) ++stored;
              }
              const int64_t group = panel * packed.PanelStride() + stored * packed.GroupBytes();
              if (wide) {
                // Depth pair q / 2 % 2 of the group, column j % 16's two int16 (little-endian).
                const auto at = static_cast<size_t>(group + q % 4 / 2 * 64 +
                                                    j % kQgemmPanelCols * 4 + q % 2 * 2);
                expected[at] = v;
                expected[at + 1] = static_cast<int8_t>(v < 0 ? -1 : 0);
              } else {
                expected[static_cast<size_t>(group + j % kQgemmPanelCols * 4 + q % 4)] = v;
              }
              sums[static_cast<size_t>(j)] += v;
            }
          for (size_t i = 0; i < expected.size(); ++i)
            ASSERT_EQ(packed.Data()[i], expected[i]) << "byte " << i;
          for (size_t j = 0; j < sums.size(); ++j)
            ASSERT_EQ(packed.ColumnSums()[j], sums[j]) << "column " << j;
        }
}

TEST(Int8GemmTest, UnpackRestoresB) {
  for (const bool b_signed : {true, false})
    for (const bool wide : {false, true}) {
      const Problem p = MakeProblem(1, 37, 19, false, b_signed, false, 9);
      const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, b_signed, wide);
      EXPECT_EQ(packed.Wide(), wide);
      std::vector<uint8_t> back(p.b.size(), 0);
      packed.Unpack(back.data(), p.ldb);
      for (int64_t q = 0; q < p.k; ++q)
        for (int64_t j = 0; j < p.n; ++j)
          ASSERT_EQ(back[q * p.ldb + j], p.b[q * p.ldb + j]) << q << ", " << j;
    }
}

// A wide packing read by every level (the non-saturating ones too, VNNI levels through their
// qgemm_block) gives the same sums.
TEST(Int8GemmTest, WidePackingIsReadByEveryLevel) {
  const Problem p = MakeProblem(29, 50, 45, false, true, true, 11);
  const std::vector<int32_t> expected = Reference(p);
  const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, true, true);
  ASSERT_TRUE(packed.Wide());
  QgemmZeroPoints zero{p.a_zero, p.b_zero.data(), 0};
  for (const Variant& v : Variants()) {
    std::vector<int32_t> c(static_cast<size_t>(p.m * p.ldc), 0);
    QgemmPackedB(v.kernels, p.m, p.a.data(), p.lda, false, packed, zero, c.data(), p.ldc, nullptr);
    ExpectEqual(expected, c, p, v.name.c_str());
  }
}

// Weights within the pair bound (7-bit) but for a few planted pairs of two large weights of one
// sign, as trained weights are: the packer stores B mixed (narrow, the outside blocks zeroed and
// kept as wide fix-ups), and every level gives the exact sums: ragged panels and depth groups,
// fix-ups in a second depth block (k past 4608), per-column zero points, int8 and uint8 B, one
// thread and a pool; Unpack restores B. A B with many outside blocks is wide instead.
// B's values within the pair bound everywhere (7-bit: -64..63).
void MakeNarrow(Problem& p) {
  const uint8_t flip = p.b_signed ? 0 : 0x80;
  for (uint8_t& x : p.b) x = static_cast<uint8_t>(((x & 0x7f) - 64) ^ flip);
}

// B narrow but for pairs (q, q + 1) outside the bound (100 + 100, -128 + -100, 127 + 127,
// -128 + -128 or 127 + 2) planted in a few (column, pair) places, one of them the last pair (past
// the first depth block when k is that deep): packed mixed on levels whose kernels saturate.
void MakeMixed(Problem& p, uint32_t seed) {
  MakeNarrow(p);
  const uint8_t flip = p.b_signed ? 0 : 0x80;
  std::mt19937 planter(seed);
  const int64_t plants = std::max<int64_t>(1, p.k * p.n / 1500);
  for (int64_t i = 0; i <= plants; ++i) {
    int64_t q = static_cast<int64_t>(planter() % static_cast<uint32_t>(p.k / 2)) * 2;
    if (i == plants) q = (p.k - 2) / 2 * 2;
    const int64_t j = static_cast<int64_t>(planter() % static_cast<uint32_t>(p.n));
    // Pairs just past the bound and at the extremes (a mixed B splits each in two halves).
    const int8_t planted[][2] = {{-128, -100}, {100, 100}, {127, 127}, {-128, -128}, {127, 2}};
    const auto& pair = planted[planter() % 5];
    p.b[q * p.ldb + j] = static_cast<uint8_t>(pair[0] ^ flip);
    p.b[(q + 1) * p.ldb + j] = static_cast<uint8_t>(pair[1] ^ flip);
  }
}

// A B packed for the saturating kernels, checked: Unpack gives B back, and the product (a uint8
// A with per-column B zero points) matches the reference on every level, on one thread and on
// `pool`.
void ExpectUnpackAndProductExact(const Problem& p, const PackedQuantB& packed, ThreadPool* pool) {
  std::vector<uint8_t> back(p.b.size(), 0);
  packed.Unpack(back.data(), p.ldb);
  for (int64_t q = 0; q < p.k; ++q)
    for (int64_t j = 0; j < p.n; ++j)
      ASSERT_EQ(back[q * p.ldb + j], p.b[q * p.ldb + j]) << p << " at " << q << ", " << j;
  const std::vector<int32_t> expected = Reference(p);
  QgemmZeroPoints zero;
  zero.a = p.a_zero;
  zero.b_per_column = p.b_zero.data();
  for (const Variant& v : Variants())
    for (ThreadPool* with : {static_cast<ThreadPool*>(nullptr), pool}) {
      std::vector<int32_t> c(static_cast<size_t>(p.m * p.ldc), 0);
      QgemmPackedB(v.kernels, p.m, p.a.data(), p.lda, false, packed, zero, c.data(), p.ldc, with);
      ExpectEqual(expected, c, p, v.name.c_str());
    }
}

// B whose depth groups mostly pair (mlas/qgemm.h): about two in three groups of small weights
// (-16..15: any two pair), the others 7-bit (-64..63: they pair only sometimes).
void MakePairable(Problem& p, uint32_t seed) {
  const uint8_t flip = p.b_signed ? 0 : 0x80;
  std::mt19937 chooser(seed);
  for (int64_t g = 0; g * kQgemmDepthGroup < p.k; ++g) {
    const bool heavy = chooser() % 3 == 0;
    for (int64_t q = g * kQgemmDepthGroup; q < std::min(p.k, (g + 1) * kQgemmDepthGroup); ++q)
      for (int64_t j = 0; j < p.n; ++j) {
        uint8_t& x = p.b[static_cast<size_t>(q * p.ldb + j)];
        x = static_cast<uint8_t>((heavy ? (x & 0x7f) - 64 : (x & 0x1f) - 16) ^ flip);
      }
  }
}

// Checks a B's paired groups: each (panel, depth block)'s order a permutation of its groups, and
// every stored pair within the bound that lets the kernels add their int16 sums (per column and
// depth pair, the positive parts of the four weights at most 128, the negative ones at least
// -128). Returns how many groups are paired.
int64_t CheckPairs(const PackedQuantB& packed) {
  if (packed.GroupOrder() == nullptr) return 0;
  const int64_t panels = (packed.N() + kQgemmPanelCols - 1) / kQgemmPanelCols;
  const int64_t groups = packed.Groups();
  int64_t paired_total = 0;
  for (int64_t panel = 0; panel < panels; ++panel)
    for (int64_t block = 0; block < packed.DepthBlocks(); ++block) {
      const int64_t first = block * QgemmDepthBlockGroups();
      const int64_t count = std::min(QgemmDepthBlockGroups(), groups - first);
      const int32_t* order = packed.GroupOrder() + panel * groups + first;
      std::vector<int32_t> sorted(order, order + count);
      std::sort(sorted.begin(), sorted.end());
      for (int64_t s = 0; s < count; ++s)
        EXPECT_EQ(sorted[static_cast<size_t>(s)], s) << "panel " << panel << " block " << block;
      const int64_t paired = packed.PairedGroups()[panel * packed.DepthBlocks() + block];
      EXPECT_EQ(paired % 2, 0);
      EXPECT_LE(paired, count);
      paired_total += paired;
      const int8_t* stored =
          packed.Data() + panel * packed.PanelStride() + first * kQgemmGroupBytes;
      for (int64_t s = 0; s + 1 < paired; s += 2)
        for (int64_t lane = 0; lane < 2 * kQgemmPanelCols; ++lane) {
          int positive = 0, negative = 0;
          for (int64_t member = 0; member < 2; ++member)
            for (int64_t t = 0; t < 2; ++t) {
              const int w = stored[(s + member) * kQgemmGroupBytes + 2 * lane + t];
              positive += std::max(w, 0);
              negative += std::min(w, 0);
            }
          EXPECT_LE(positive, 128) << "panel " << panel << " pair " << s << " lane " << lane;
          EXPECT_GE(negative, -128) << "panel " << panel << " pair " << s << " lane " << lane;
        }
    }
  return paired_total;
}

// Paired groups (mlas/qgemm.h) on every level: the pairing's invariants, B unpacked again, and
// the product exact against the reference, on one thread and split; narrow and mixed B, depths
// of one to three groups past a whole tile, past one depth block, and few-row tails.
TEST(Int8GemmTest, PairedGroupsAreExactOnEveryLevel) {
  ThreadPool three(3);
  const int64_t shapes[][3] = {{29, 50, 45}, {5, 48, 64},  {145, 33, 130}, {14, 35, 8195},
                               {1, 70, 600}, {3, 17, 36},  {13, 16, 8},    {2, 32, 300},
                               {12, 16, 4},  {26, 64, 576}};
  uint32_t seed = 1300;
  int64_t paired_products = 0;
  for (const auto& shape : shapes)
    for (const bool b_signed : {true, false})
      for (const bool mixed : {false, true}) {
        // Mixed only where a plant or three stay a small share of the blocks (else B is wide).
        if (mixed && shape[1] * shape[2] < 500) continue;
        Problem p = MakeProblem(shape[0], shape[1], shape[2], false, b_signed, true, ++seed);
        MakePairable(p, seed);
        if (mixed) {  // a few pairs outside the bound planted as MakeMixed does
          std::mt19937 planter(seed);
          for (int plant = 0; plant < (p.k * p.n >= 2000 ? 3 : 1); ++plant) {
            const int64_t q = static_cast<int64_t>(planter() % static_cast<uint32_t>(p.k / 2)) * 2;
            const int64_t j = static_cast<int64_t>(planter() % static_cast<uint32_t>(p.n));
            const uint8_t flip = b_signed ? 0 : 0x80;
            p.b[static_cast<size_t>(q * p.ldb + j)] = static_cast<uint8_t>(100 ^ flip);
            p.b[static_cast<size_t>((q + 1) * p.ldb + j)] = static_cast<uint8_t>(100 ^ flip);
          }
        }
        const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, b_signed, true);
        ASSERT_FALSE(packed.Wide()) << p;
        EXPECT_EQ(packed.Mixed(), mixed) << p;
        const int64_t paired = CheckPairs(packed);
        EXPECT_EQ(paired, packed.PairedGroupCount()) << p;
        // Groups of small weights pair with each other: with 8 or more groups, some pairs.
        if (packed.Groups() >= 8) {
          EXPECT_GT(paired, 0) << p;
        }
        if (packed.Groups() == 1) {
          EXPECT_EQ(packed.GroupOrder(), nullptr) << p;
        }
        ExpectUnpackAndProductExact(p, packed, &three);
        paired_products += paired > 0;
      }
  EXPECT_GT(paired_products, 0);
  // A B packed for kernels that do not saturate is stored in depth order.
  Problem p = MakeProblem(4, 32, 64, false, true, false, 3);
  MakePairable(p, 3);
  EXPECT_EQ(PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, true, false).GroupOrder(), nullptr);
}

TEST(Int8GemmTest, MixedPackingIsExactOnEveryLevel) {
  ThreadPool three(3);
  const int64_t shapes[][3] = {
      {29, 50, 45}, {5, 48, 64}, {145, 33, 130}, {14, 35, 8195}, {1, 70, 600}};
  uint32_t seed = 700;
  for (const auto& shape : shapes)
    for (const bool b_signed : {true, false}) {
      Problem p = MakeProblem(shape[0], shape[1], shape[2], false, b_signed, true, ++seed);
      MakeMixed(p, seed);
      const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, b_signed, true);
      ASSERT_FALSE(packed.WithinPairBound()) << p;
      ASSERT_TRUE(packed.Mixed()) << p;
      ASSERT_FALSE(packed.Wide()) << p;
      ExpectUnpackAndProductExact(p, packed, &three);
    }
  // Full-range random weights break the bound nearly everywhere: wide.
  const Problem full = MakeProblem(9, 40, 64, false, true, false, 5);
  const PackedQuantB wide = PackedQuantB::Pack(full.k, full.n, full.b.data(), full.ldb, true, true);
  EXPECT_TRUE(wide.Wide());
  EXPECT_FALSE(wide.Mixed());
}

// Mixed or wide by the share of blocks outside the bound and the number of panels (qgemm.cc's
// PackWide: mixed up to 0.75 of the blocks for one panel, where widening A weighs the most, and
// up to about 0.45 for many): 6 of 10 depth groups outside in every panel is mixed for one panel
// and wide for eight; 8 of 10 is wide for one. Every form exact.
TEST(Int8GemmTest, MixedOrWideByShareAndPanels) {
  ThreadPool three(3);
  struct Case {
    int64_t n;
    int64_t groups_outside;
    bool wide;
  };
  for (const Case c : {Case{16, 6, false}, Case{128, 6, true}, Case{16, 8, true}})
    for (const bool b_signed : {true, false}) {
      Problem p = MakeProblem(7, c.n, 40, false, b_signed, true, 40 + static_cast<uint32_t>(c.n));
      MakeNarrow(p);
      const uint8_t flip = b_signed ? 0 : 0x80;
      for (int64_t g = 0; g < c.groups_outside; ++g)  // one pair past the bound in each panel
        for (int64_t j = 0; j < c.n; j += kQgemmPanelCols) {
          p.b[static_cast<size_t>(4 * g * p.ldb + j)] = static_cast<uint8_t>(100 ^ flip);
          p.b[static_cast<size_t>((4 * g + 1) * p.ldb + j)] = static_cast<uint8_t>(100 ^ flip);
        }
      const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, b_signed, true);
      ASSERT_FALSE(packed.WithinPairBound()) << p;
      EXPECT_EQ(packed.Wide(), c.wide) << p;
      EXPECT_EQ(packed.Mixed(), !c.wide) << p;
      ExpectUnpackAndProductExact(p, packed, &three);
    }
}

// Deeper than one depth block (4096): the later blocks add to C (QgemmStore::accumulate) and
// only the last adds the zero points.
TEST(Int8GemmTest, DepthBeyondOneBlock) {
  for (const bool b_signed : {true, false}) {
    const Problem p = MakeProblem(14, 35, 8195, true, b_signed, true, 31);
    const std::vector<int32_t> expected = Reference(p);
    for (const Variant& v : Variants())
      ExpectEqual(expected, RunQgemm(v.kernels, p, nullptr), p, v.name.c_str());
  }
}

TEST(Int8GemmTest, ThreadPoolSplitsMatchTheReference) {
  ThreadPool two(2), three(3);
  // Matrix-vector products (1 and 2 rows) split by columns too (their work counts as 4 rows').
  const int64_t shapes[][3] = {
      {300, 257, 700}, {1000, 40, 300}, {20, 1100, 400}, {1, 1000, 700}, {2, 600, 1000}};
  for (const auto& s : shapes) {
    const Problem p = MakeProblem(s[0], s[1], s[2], true, false, true, 21);
    const std::vector<int32_t> expected = Reference(p);
    for (const Variant& v : Variants())
      for (ThreadPool* pool : {&two, &three})
        ExpectEqual(expected, RunQgemm(v.kernels, p, pool), p, v.name.c_str());
  }
}

// tile_done: every element of C is in exactly one reported tile, and the tile's sums are final
// when it is reported (after the last depth block), on one thread and split over a pool; tiles
// past one row block (144) and one column block (512), two depth blocks, and an empty depth.
TEST(Int8GemmTest, TileDoneReportsEachFinishedElementOnce) {
  ThreadPool three(3);
  const int64_t shapes[][3] = {{300, 600, 70}, {14, 35, 8195}, {5, 7, 0}};
  for (const auto& s : shapes) {
    const Problem p = MakeProblem(s[0], s[1], s[2], false, true, true, 41);
    const std::vector<int32_t> expected = Reference(p);
    for (const Variant& v : Variants())
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &three}) {
        const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, p.b_signed,
                                                       QgemmPairsSaturate(v.kernels));
        QgemmZeroPoints zero;
        zero.a = p.a_zero;
        zero.b_per_column = p.b_zero.data();
        std::vector<int32_t> c(static_cast<size_t>(p.m * p.ldc), kSentinel);
        std::vector<int> visits(static_cast<size_t>(p.m * p.n), 0);
        int64_t wrong = 0;
        std::mutex mutex;
        QgemmPackedB(v.kernels, p.m, p.a.data(), p.lda, p.a_signed, packed, zero, c.data(), p.ldc,
                     pool, [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
                       const std::lock_guard<std::mutex> lock(mutex);
                       for (int64_t i = row; i < row + rows; ++i)
                         for (int64_t j = col; j < col + cols; ++j) {
                           ++visits[static_cast<size_t>(i * p.n + j)];
                           const auto at = static_cast<size_t>(i * p.ldc + j);
                           wrong += c[at] != expected[at];
                         }
                     });
        EXPECT_EQ(wrong, 0) << v.name << " " << p << (pool ? " pool" : "");
        for (size_t i = 0; i < visits.size(); ++i)
          ASSERT_EQ(visits[i], 1) << v.name << " " << p << " element " << i;
      }
  }
}

// Whether the kernel that multiplies b on this level requantizes in its store.
bool Requantizes(const IsaKernels& kernels, const PackedQuantB& b) {
  if (QgemmUsesAmx(kernels) && !b.Wide() && !b.Mixed()) return true;
  return QgemmUsesVnni(kernels) && !b.Wide() && !b.Mixed() ? kernels.qgemm_vnni_requantizes
                                                           : kernels.qgemm_block_requantizes;
}

// The requantizing product (QgemmPackedBRequantize: the AVX-512 VNNI kernel's store rounds the
// product to odd in single precision) against the double-precision requantization of the exact
// sums, byte for byte: ragged m and n (row tails of 1 to 4 rows on the few-row tiles and of 5 to
// 11 on the 12-row one, columns past 32-column tiles and 512-column blocks), B's zero point zero
// and per column (the row term), bias or none, uint8 and int8 outputs, an output stride wider than
// n (the bytes past n untouched), on one thread and a pool. The multipliers include fl(1/6) and
// fl(1/10) with sums that are multiples of 3 and 5: products within a float ulp of a tie, which a
// product rounded to nearest float would round the wrong way. Levels without the store must refuse
// (QgemmCanRequantize false).
TEST(Int8GemmTest, RequantizingStoreMatchesTheDoublePrecisionRequantization) {
  ThreadPool two(2);
  // Tails past whole 12-row tiles of 1 to 4 rows (the few-row tiles) and of 5 or more. 30 x 64
  // x 2800 on the pool: column blocks over an A lowered from the row source in two parts (rows 0
  // and 24 on), read in place; 26 x 48 x 27: a row source's rows padded to whole groups.
  const int64_t shapes[][3] = {{1, 32, 1},     {13, 33, 1},    {145, 70, 1}, {37, 545, 64},
                               {300, 96, 20},  {5, 17, 300},   {14, 40, 8},  {15, 64, 12},
                               {16, 33, 64},   {4, 64, 16},    {21, 96, 36}, {198, 64, 576},
                               {1, 1024, 520}, {30, 64, 2800}, {26, 48, 27}};
  uint32_t seed = 900;
  int64_t checked = 0;
  // Products checked on qgemm_block (not the VNNI kernel), by B's form.
  int64_t wide_checked = 0, mixed_checked = 0, narrow_checked = 0, paired_checked = 0;
  enum class Form { kFull, kNarrow, kMixed, kPaired };
  for (const auto& s : shapes)
    for (const bool per_column : {false, true})
      for (const bool to_int8 : {false, true})
        for (const Form form : {Form::kFull, Form::kNarrow, Form::kMixed, Form::kPaired}) {
          Problem p = MakeProblem(s[0], s[1], s[2], false, true, per_column, ++seed);
          std::mt19937 generator(seed);
          if (p.k == 1 && form != Form::kFull) continue;
          if (form == Form::kNarrow) MakeNarrow(p);
          if (form == Form::kMixed) MakeMixed(p, seed);
          if (form == Form::kPaired) MakePairable(p, seed);
          if (p.k == 1) {
            // sums (a - a_zero)(b - b_zero) with b - b_zero a multiple of 3 or 5: near-ties.
            p.a_zero = 0;
            p.b_zero.clear();
            p.b_zero_scalar = 0;
            for (int64_t j = 0; j < p.n; ++j)
              p.b[static_cast<size_t>(j)] =
                  static_cast<uint8_t>(static_cast<int8_t>((j % 2 ? 5 : 3) * (1 + j % 7)));
          } else if (!per_column) {
            p.b_zero_scalar = 0;
          }
          std::vector<float> multipliers(static_cast<size_t>(p.n));
          // Columns 32-63, 96-127, ... get multipliers from 0.5 to 256, whose products can
          // leave int32 (the AMX store clamps those 32-column blocks as floats, the others by
          // its saturating packs alone).
          std::uniform_real_distribution<float> log_scale(-14.0f, -1.0f);
          std::uniform_real_distribution<float> large_log_scale(-1.0f, 8.0f);
          for (int64_t j = 0; j < p.n; ++j)
            multipliers[static_cast<size_t>(j)] = p.k == 1 ? (j % 2 ? 1.0f / 10.0f : 1.0f / 6.0f)
                                                  : (j / 32) % 2
                                                      ? std::exp2(large_log_scale(generator))
                                                      : std::exp2(log_scale(generator));
          std::vector<int32_t> bias(static_cast<size_t>(p.n));
          std::uniform_int_distribution<int32_t> bias_value(-3000, 3000);
          for (int32_t& b : bias) b = p.k == 1 ? 0 : bias_value(generator);
          const bool with_bias = p.k != 1 && seed % 2 == 0;
          const int32_t zero_point = to_int8 ? -3 : 117;
          const std::vector<int32_t> sums = Reference(p);
          const int64_t stride = p.n + 3;
          std::vector<uint8_t> expected(static_cast<size_t>(p.m * stride), 0xA5);
          for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) {
              const auto total = static_cast<int32_t>(
                  static_cast<uint32_t>(sums[static_cast<size_t>(i * p.ldc + j)]) +
                  static_cast<uint32_t>(with_bias ? bias[static_cast<size_t>(j)] : 0));
              const double rounded =
                  std::nearbyint(static_cast<double>(total) * static_cast<double>(multipliers[j]));
              const double value =
                  std::clamp(rounded + zero_point, to_int8 ? -128.0 : 0.0, to_int8 ? 127.0 : 255.0);
              expected[static_cast<size_t>(i * stride + j)] =
                  static_cast<uint8_t>(static_cast<int32_t>(value));
            }
          for (const Variant& v : Variants()) {
            const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, p.b_signed,
                                                           QgemmPairsSaturate(v.kernels));
            QgemmZeroPoints zero;
            zero.a = p.a_zero;
            zero.b_scalar = p.b_zero_scalar;
            zero.b_per_column = p.b_zero.empty() ? nullptr : p.b_zero.data();
            QgemmRequantize output;
            output.multipliers = multipliers.data();
            output.bias = with_bias ? bias.data() : nullptr;
            output.zero_point = zero_point;
            output.to_int8 = to_int8;
            output.out_stride = stride;
            if (!QgemmCanRequantize(v.kernels, packed, multipliers.data())) {
              EXPECT_FALSE(Requantizes(v.kernels, packed)) << v.name << " " << p;
              std::vector<uint8_t> out(expected.size());
              output.out = out.data();
              EXPECT_THROW(QgemmPackedBRequantize(v.kernels, p.m, p.a.data(), p.lda, p.a_signed,
                                                  packed, zero, output, nullptr),
                           std::invalid_argument)
                  << v.name;
              continue;
            }
            // A's rows also from a row source (a convolution's lowering), which the kernel then
            // reads from the source's buffer.
            const QgemmRowSource source = [&p](int64_t begin, int64_t end, uint8_t* rows,
                                               int64_t row_stride) {
              for (int64_t r = begin; r < end; ++r)
                std::copy_n(p.a.data() + r * p.lda, p.k, rows + (r - begin) * row_stride);
            };
            for (const bool from_source : {false, true})
              for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
                std::vector<uint8_t> out(expected.size(), 0xA5);
                output.out = out.data();
                QgemmPackedBRequantize(v.kernels, p.m, from_source ? nullptr : p.a.data(), p.lda,
                                       p.a_signed, packed, zero, output, pool,
                                       from_source ? &source : nullptr);
                int64_t mismatches = 0;
                for (size_t i = 0; i < out.size(); ++i)
                  if (out[i] != expected[i] && mismatches++ < 3)
                    ADD_FAILURE() << v.name << " " << p << " to_int8=" << to_int8 << " at row "
                                  << i / stride << " column " << i % stride << ": expected "
                                  << int{expected[i]} << ", got " << int{out[i]};
                EXPECT_EQ(mismatches, 0) << v.name << " " << p << (pool ? " pool" : "")
                                         << (from_source ? " from a row source" : "");
                ++checked;
                if (packed.PairedGroupCount() > 0) ++paired_checked;
                if (!QgemmUsesVnni(v.kernels) || packed.Wide() || packed.Mixed())
                  ++(packed.Wide()    ? wide_checked
                     : packed.Mixed() ? mixed_checked
                                      : narrow_checked);
              }
          }
        }
  if (checked == 0) std::cout << "[ SKIPPED  ] no level here requantizes in its store\n";
  // Where a level's qgemm_block requantizes and saturates (AVX2), every form of B reached it.
  for (const Variant& v : Variants())
    if (v.kernels.qgemm_block_requantizes && QgemmPairsSaturate(v.kernels)) {
      EXPECT_GT(wide_checked, 0);
      EXPECT_GT(mixed_checked, 0);
      EXPECT_GT(narrow_checked, 0);
      EXPECT_GT(paired_checked, 0);
    }
}

// A's rows from a row source (QgemmRowSource: a convolution lowering a row block at a time
// inside the product's tasks) give the product of A in place on every level, on one thread and
// split over a pool, row blocks (m > n) and column blocks (n > m), with the row term; each
// source call asks for rows inside [0, m) and writes exactly the buffer it is given.
TEST(Int8GemmTest, RowSourceMatchesAInPlace) {
  ThreadPool three(3);
  const int64_t shapes[][3] = {{300, 40, 70}, {20, 600, 90}, {145, 33, 5}, {1000, 64, 36}};
  for (const auto& s : shapes) {
    const Problem p = MakeProblem(s[0], s[1], s[2], true, false, true, 61);
    const std::vector<int32_t> expected = Reference(p);
    for (const Variant& v : Variants())
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &three}) {
        const PackedQuantB packed = PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, p.b_signed,
                                                       QgemmPairsSaturate(v.kernels));
        QgemmZeroPoints zero;
        zero.a = p.a_zero;
        zero.b_per_column = p.b_zero.data();
        std::atomic<int64_t> bad_ranges{0};
        const QgemmRowSource source = [&](int64_t begin, int64_t end, uint8_t* rows,
                                          int64_t row_stride) {
          if (begin < 0 || end > p.m || begin >= end || row_stride != (p.k + 3) / 4 * 4)
            ++bad_ranges;
          for (int64_t r = begin; r < end; ++r)
            std::copy_n(p.a.data() + r * p.lda, p.k, rows + (r - begin) * row_stride);
        };
        std::vector<int32_t> c(static_cast<size_t>(p.m * p.ldc), 0);
        QgemmPackedB(v.kernels, p.m, nullptr, p.k, p.a_signed, packed, zero, c.data(), p.ldc, pool,
                     {}, &source);
        EXPECT_EQ(bad_ranges.load(), 0) << v.name << " " << p;
        ExpectEqual(expected, c, p, v.name.c_str());
      }
  }
}

// Multipliers where the single-precision steps would not be exact (|m| < 2^-14, a float sum
// past 2^24 could land inside the output range) or not finite, and a depth past one block: the
// requantizing product is refused, and the convolution keeps its double-precision path.
TEST(Int8GemmTest, RequantizingStoreRefusesWhatItCannotDoExactly) {
  const Problem p = MakeProblem(3, 20, 8, false, true, false, 77);
  const Problem deep = MakeProblem(3, 20, 4609, false, true, false, 78);
  for (const Variant& v : Variants()) {
    const PackedQuantB packed =
        PackedQuantB::Pack(p.k, p.n, p.b.data(), p.ldb, p.b_signed, QgemmPairsSaturate(v.kernels));
    const PackedQuantB packed_deep = PackedQuantB::Pack(
        deep.k, deep.n, deep.b.data(), deep.ldb, deep.b_signed, QgemmPairsSaturate(v.kernels));
    std::vector<float> multipliers(20, 0.01f);
    const bool supported = Requantizes(v.kernels, packed);
    EXPECT_EQ(QgemmCanRequantize(v.kernels, packed, multipliers.data()), supported) << v.name;
    // Past one depth block only the AMX kernel (the whole depth in one call) requantizes.
    EXPECT_EQ(QgemmCanRequantize(v.kernels, packed_deep, multipliers.data()),
              QgemmUsesAmx(v.kernels))
        << v.name;
    multipliers[19] = 0x1p-15f;
    EXPECT_FALSE(QgemmCanRequantize(v.kernels, packed, multipliers.data())) << v.name;
    multipliers[19] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(QgemmCanRequantize(v.kernels, packed, multipliers.data())) << v.name;
  }
}

}  // namespace
}  // namespace prism::mlas

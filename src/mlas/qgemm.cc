#include "mlas/qgemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

// The cache blocks: a 144-row block of A and a 512-column block of B, up to 4608 deep (1152
// depth groups). Deep blocks win here: every further depth block re-reads and re-writes C
// through the tiles' stores (C's rows, 4 KiB apart at n = 1024, alias in L1), which cost more
// than streaming B's panels from L2 does (measured 2026-11-26 on the Zen 5 VMs: depth 512 lost
// about 25% against 1024 at 1024^3; 4096 gained about 5% over 1024 at 128 x 768 x 3072).
// 4608 is resnet's deepest convolution (3x3 x 512 channels), which the requantizing store
// (QgemmCanRequantize) then multiplies in one depth block.
constexpr int64_t kQgemmDepthBlockGroups = 1152;
constexpr int64_t kQgemmRowBlock = 144;
constexpr int64_t kQgemmColumnBlock = 512;
// Whether a B with `outside` of its `panels` x `groups` (panel, depth group) blocks outside the
// pair bound is packed wide (qgemm.h), else mixed. Per row, panel and group, in units of a narrow
// group's work: mixed costs 1 + (share outside) (a fix-up is one more group); wide about 1.45 (4
// vpmaddwd and 4 adds a row against 2 + 2 + 2) plus widening A into int16, about 0.3 of a group
// shared by all the panels. So wide from 0.75 of the blocks outside for one panel, 0.525 for
// four, toward 0.45. Measured (callgrind instructions of the one-node models, wide -> mixed):
// mobilenetv2_qdq's conv_2 (K 32, N 16, 62.5% outside) 59.3 M -> 49.7 M, its conv_11 (K 144,
// N 32, 34.7%) 19.7 M -> 17.9 M, resnet50_qdq's conv_1 (K 64, N 64, 42%) 65.9 M -> 68.3 M with
// times within noise (mixed 0.98x, medians of 10 alternating rounds); full-range random weights
// (nearly every block outside) stay wide. The rule before (wide past a third of the blocks)
// packed those three wide.
bool PackWide(int64_t outside, int64_t panels, int64_t groups) {
  return outside * 20 * panels > panels * groups * (9 * panels + 6);
}

// Below this many multiply-adds per thread a product is not split (waking a worker costs
// microseconds). The VNNI kernels do about four times the SGEMM's multiply-adds per cycle; the
// vpmaddubsw and wide (vpmaddwd) ones 1.5 to 2 times, so they split from a quarter of it, as the
// SGEMM does from 1 Mi (mobilenetv2_qdq at 2 threads on the AVX2 machine: 13.3-15.9 ms a run
// with 4 Mi against 10.2-14.5 with 1 Mi, interleaved; resnet50_qdq the same).
constexpr double kMinMultiplyAddsPerThreadVnni = 1 << 22;
constexpr double kMinMultiplyAddsPerThread = 1 << 20;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// A growable 64-byte-aligned byte buffer kept between products (packed A, per calling thread).
class ByteWorkspace {
 public:
  ~ByteWorkspace() { std::free(data_); }
  uint8_t* Get(int64_t bytes) {
    if (bytes > capacity_) {
      std::free(data_);
      data_ =
          static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>(RoundUp(bytes, 64))));
      if (data_ == nullptr) {
        capacity_ = 0;
        throw std::bad_alloc();
      }
      capacity_ = bytes;
    }
    return data_;
  }

 private:
  uint8_t* data_ = nullptr;
  int64_t capacity_ = 0;
};

thread_local ByteWorkspace packed_a_workspace;
// Rows of A from a QgemmRowSource, before they are packed (per thread: the pool's tasks write
// their own).
thread_local ByteWorkspace source_workspace;

// One row of A into its panel: each depth group's 4 bytes at out + g * group_stride, the last
// group zero-padded, every byte xor-ed with flip.
void PackARow(const uint8_t* source, uint32_t flip, int64_t k, int64_t groups, int64_t first_group,
              int64_t group_stride, uint8_t* out) {
  const uint32_t flip4 = flip * 0x01010101u;
  const int64_t full = k / kQgemmDepthGroup;
  for (int64_t g = first_group; g < full; ++g) {
    uint32_t word;
    std::memcpy(&word, source + g * kQgemmDepthGroup, sizeof word);
    word ^= flip4;
    std::memcpy(out + g * group_stride, &word, sizeof word);
  }
  if (full < groups) {
    uint8_t tail[4] = {0, 0, 0, 0};
    for (int64_t t = 0; t < k - full * kQgemmDepthGroup; ++t)
      tail[t] = static_cast<uint8_t>(source[full * kQgemmDepthGroup + t] ^ flip);
    std::memcpy(out + full * group_stride, tail, sizeof tail);
  }
}

// Packs panels [first, last) of A's rows (tile_rows rows each, a multiple of 4; zero rows past
// m), panel `first` at `packed` and the others after it, with each byte xor-ed with flip (0x80
// turns int8 into the shifted uint8); `a` holds A's rows from row a_row0 on. Four whole rows at a
// time go through SSE2: 16 bytes (four groups) of each, a 4 x 4 transpose of 32-bit words, and one
// 16-byte store per group (the four rows' words are adjacent in a group).
void PackAPanels(const uint8_t* a, int64_t a_row0, int64_t lda, uint32_t flip, int64_t m, int64_t k,
                 int64_t groups, int64_t tile_rows, int64_t first, int64_t last, uint8_t* packed) {
  const int64_t group_stride = tile_rows * kQgemmDepthGroup;
  const int64_t full = k / kQgemmDepthGroup;
  for (int64_t panel = first; panel < last; ++panel) {
    uint8_t* base = packed + (panel - first) * groups * group_stride;
    for (int64_t r = 0; r < tile_rows; r += 4) {
      const int64_t row = panel * tile_rows + r;
      int64_t done = 0;  // groups of these four rows already packed
#if defined(__SSE2__)
      if (row + 4 <= m) {
        const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
        for (; done + 4 <= full; done += 4) {
          __m128i q[4];
          for (int i = 0; i < 4; ++i)
            q[i] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                     a + (row + i - a_row0) * lda + done * kQgemmDepthGroup)),
                                 flips);
          const __m128i t0 = _mm_unpacklo_epi32(q[0], q[1]), t1 = _mm_unpacklo_epi32(q[2], q[3]);
          const __m128i t2 = _mm_unpackhi_epi32(q[0], q[1]), t3 = _mm_unpackhi_epi32(q[2], q[3]);
          const __m128i groups_of_four[4] = {_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
                                             _mm_unpacklo_epi64(t2, t3),
                                             _mm_unpackhi_epi64(t2, t3)};
          for (int j = 0; j < 4; ++j)
            _mm_storeu_si128(
                reinterpret_cast<__m128i*>(base + (done + j) * group_stride + r * kQgemmDepthGroup),
                groups_of_four[j]);
        }
      }
#endif
      for (int64_t i = 0; i < 4; ++i) {
        uint8_t* out = base + (r + i) * kQgemmDepthGroup;
        if (row + i >= m) {
          for (int64_t g = 0; g < groups; ++g) std::memset(out + g * group_stride, 0, 4);
          continue;
        }
        PackARow(a + (row + i - a_row0) * lda, flip, k, groups, done, group_stride, out);
      }
    }
  }
}

// The sum of a row's k bytes, each xor-ed with flip (16 at a time with SSE2's psadbw, which
// every x86-64 has).
uint32_t RowSum(const uint8_t* row, int64_t k, uint8_t flip) {
  uint64_t sum = 0;
  int64_t p = 0;
#if defined(__SSE2__)
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  __m128i sums = _mm_setzero_si128();
  for (; p + 16 <= k; p += 16) {
    const __m128i bytes =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + p)), flips);
    sums = _mm_add_epi64(sums, _mm_sad_epu8(bytes, _mm_setzero_si128()));
  }
  sum = static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
        static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
#endif
  for (; p < k; ++p) sum += static_cast<uint8_t>(row[p] ^ flip);
  return static_cast<uint32_t>(sum);
}

// One depth group (4 rows of B) of one whole panel (16 columns) into its 64 bytes: column j's
// 4 bytes at j * 4, each byte xor-ed with flip. SSE2 (every x86-64 has it): two byte interleaves
// and two word interleaves.
void PackFullGroup(const uint8_t* row0, int64_t ldb, uint8_t flip, int8_t* out) {
#if defined(__SSE2__)
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  __m128i r[4];
  for (int t = 0; t < 4; ++t)
    r[t] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row0 + t * ldb)), flips);
  const __m128i low01 = _mm_unpacklo_epi8(r[0], r[1]), low23 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i high01 = _mm_unpackhi_epi8(r[0], r[1]), high23 = _mm_unpackhi_epi8(r[2], r[3]);
  auto* target = reinterpret_cast<__m128i*>(out);
  _mm_storeu_si128(target, _mm_unpacklo_epi16(low01, low23));
  _mm_storeu_si128(target + 1, _mm_unpackhi_epi16(low01, low23));
  _mm_storeu_si128(target + 2, _mm_unpacklo_epi16(high01, high23));
  _mm_storeu_si128(target + 3, _mm_unpackhi_epi16(high01, high23));
#else
  for (int64_t j = 0; j < kQgemmPanelCols; ++j)
    for (int64_t t = 0; t < kQgemmDepthGroup; ++t)
      out[j * kQgemmDepthGroup + t] = static_cast<int8_t>(row0[t * ldb + j] ^ flip);
#endif
}

// The same group stored wide (qgemm.h): the depth pair (0, 1) of the 16 columns as int16 in the
// first 64 bytes, the pair (2, 3) in the next 64. Whole groups this way, not byte by byte: on a
// level without VNNI nearly every quantized weight matrix is wide, and a byte loop took about a
// fifth of a quantized resnet50's session creation on an AVX2 machine.
void PackFullGroupWide(const uint8_t* row0, int64_t ldb, uint8_t flip, int8_t* out) {
  alignas(16) int8_t whole[kQgemmGroupBytes];
  PackFullGroup(row0, ldb, flip, whole);
#if defined(__SSE2__)
  // Four columns a vector: their words (depth pair 0, pair 1) alternate; gather the pair-0 words
  // into the low half and the pair-1 words into the high half, then sign-extend each half's bytes.
  auto* target = reinterpret_cast<__m128i*>(out);
  for (int q = 0; q < 4; ++q) {
    __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(whole) + q);
    words = _mm_shufflehi_epi16(_mm_shufflelo_epi16(words, 0xD8), 0xD8);  // w0 w2 w1 w3 ...
    words = _mm_shuffle_epi32(words, 0xD8);  // pair-0 words, then pair-1 words
    _mm_storeu_si128(target + q, _mm_srai_epi16(_mm_unpacklo_epi8(words, words), 8));
    _mm_storeu_si128(target + 4 + q, _mm_srai_epi16(_mm_unpackhi_epi8(words, words), 8));
  }
#else
  auto* wide = reinterpret_cast<int16_t*>(out);
  for (int64_t j = 0; j < kQgemmPanelCols; ++j)
    for (int64_t t = 0; t < kQgemmDepthGroup; ++t)
      wide[t / 2 * 2 * kQgemmPanelCols + j * 2 + t % 2] = whole[j * kQgemmDepthGroup + t];
#endif
}

// Where depth row `row` of column j lies in a wide panel's group (in int16 from the group's
// start): pair row / 2 % 2, column j, the pair's first or second value.
int64_t WideOffset(int64_t row, int64_t j) {
  return row % kQgemmDepthGroup / 2 * 2 * kQgemmPanelCols + j % kQgemmPanelCols * 2 + row % 2;
}

// Bytes to int16 (zero-extended): a packed A panel made wide.
void WidenBytes(const uint8_t* bytes, int64_t count, uint8_t* out) {
  auto* wide = reinterpret_cast<int16_t*>(out);
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; i + 16 <= count; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(wide + i), _mm_unpacklo_epi8(v, zero));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(wide + i + 8), _mm_unpackhi_epi8(v, zero));
  }
#endif
  for (; i < count; ++i) wide[i] = bytes[i];
}

thread_local ByteWorkspace narrow_panel_workspace;

// PackAPanels for a wide product: each panel packed in bytes, then widened to int16 into its
// place (panel `first` at `packed`, the others wide_panel_bytes apart).
void PackAPanelsWide(const uint8_t* a, int64_t a_row0, int64_t lda, uint32_t flip, int64_t m,
                     int64_t k, int64_t groups, int64_t tile_rows, int64_t first, int64_t last,
                     uint8_t* packed) {
  const int64_t narrow_bytes = groups * tile_rows * kQgemmDepthGroup;
  uint8_t* narrow = narrow_panel_workspace.Get(narrow_bytes);
  for (int64_t panel = first; panel < last; ++panel) {
    PackAPanels(a, a_row0, lda, flip, m, k, groups, tile_rows, panel, panel + 1, narrow);
    WidenBytes(narrow, narrow_bytes, packed + (panel - first) * 2 * narrow_bytes);
  }
}

// Per column and depth pair of one narrow group (64 bytes), the positive parts' sum and the
// negative parts' sum's magnitude: 16 columns x 2 pairs each, as bytes saturated at 255 (the
// bound is 128 a lane for the two groups together, so a saturated lane fails it as the true one
// does; bytes halve the pairing's work against int16 lanes). Branch-free: the pairing runs at
// session creation for every convolution's weights.
struct GroupPairLoads {
  uint8_t positive[2 * kQgemmPanelCols];
  uint8_t negative[2 * kQgemmPanelCols];  // magnitudes
  int16_t largest;  // the largest lane of either sign: the ordering key for pairing
};

void PairLoads(const int8_t* group, GroupPairLoads& loads) {
#if defined(__SSE2__)
  // Per 16 bytes (8 lanes): the negative bytes' mask, the positive parts and the negative parts'
  // magnitudes, each lane's two bytes summed as int16 (the even bytes masked or shifted, plus
  // the odd ones); two parts' lanes packed to 16 saturated bytes.
  const __m128i zero = _mm_setzero_si128();
  const __m128i low_bytes = _mm_set1_epi16(0xff);
  __m128i largest = zero;
  for (int64_t half = 0; half < 2; ++half) {
    __m128i positive[2], negative[2];
    for (int64_t part = 0; part < 2; ++part) {
      const __m128i w =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + 32 * half + 16 * part));
      const __m128i below = _mm_cmpgt_epi8(zero, w);
      const __m128i positive_bytes = _mm_andnot_si128(below, w);
      // 0 - w for the negative bytes: magnitudes 1..128 as unsigned bytes.
      const __m128i magnitude_bytes = _mm_and_si128(below, _mm_sub_epi8(zero, w));
      positive[part] = _mm_add_epi16(_mm_and_si128(positive_bytes, low_bytes),
                                     _mm_srli_epi16(positive_bytes, 8));
      negative[part] = _mm_add_epi16(_mm_and_si128(magnitude_bytes, low_bytes),
                                     _mm_srli_epi16(magnitude_bytes, 8));
      largest = _mm_max_epi16(largest, _mm_max_epi16(positive[part], negative[part]));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(loads.positive + 16 * half),
                     _mm_packus_epi16(positive[0], positive[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(loads.negative + 16 * half),
                     _mm_packus_epi16(negative[0], negative[1]));
  }
  largest = _mm_max_epi16(largest, _mm_srli_si128(largest, 8));
  largest = _mm_max_epi16(largest, _mm_srli_si128(largest, 4));
  largest = _mm_max_epi16(largest, _mm_srli_si128(largest, 2));
  loads.largest = static_cast<int16_t>(_mm_cvtsi128_si32(largest));
#else
  int largest = 0;
  for (int64_t v = 0; v < 2 * kQgemmPanelCols; ++v) {
    const int w0 = group[2 * v], w1 = group[2 * v + 1];
    const int positive = std::max(w0, 0) + std::max(w1, 0);
    const int negative = -(std::min(w0, 0) + std::min(w1, 0));
    loads.positive[v] = static_cast<uint8_t>(std::min(positive, 255));
    loads.negative[v] = static_cast<uint8_t>(std::min(negative, 255));
    largest = std::max(largest, std::max(positive, negative));
  }
  loads.largest = static_cast<int16_t>(largest);
#endif
}

// Whether two groups' vpmaddubsw sums may be added in int16 (qgemm.h's paired groups): every
// lane's positive parts at most 128 together, and the negative parts' magnitudes too.
bool GroupsPair(const GroupPairLoads& x, const GroupPairLoads& y) {
#if defined(__SSE2__)
  __m128i outside = _mm_setzero_si128();
  const __m128i bound = _mm_set1_epi8(static_cast<char>(128));
  for (int64_t half = 0; half < 2; ++half) {
    const auto at = [half](const uint8_t* lanes) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(lanes + 16 * half));
    };
    // Saturating unsigned adds; what exceeds 128 is left by the saturating subtraction.
    outside = _mm_or_si128(
        outside, _mm_or_si128(_mm_subs_epu8(_mm_adds_epu8(at(x.positive), at(y.positive)), bound),
                              _mm_subs_epu8(_mm_adds_epu8(at(x.negative), at(y.negative)), bound)));
  }
  return _mm_movemask_epi8(_mm_cmpeq_epi8(outside, _mm_setzero_si128())) == 0xffff;
#else
  int outside = 0;
  for (int64_t v = 0; v < 2 * kQgemmPanelCols; ++v)
    outside |= static_cast<int>(x.positive[v] + y.positive[v] > 128) |
               static_cast<int>(x.negative[v] + y.negative[v] > 128);
  return outside == 0;
#endif
}

// Groups are paired only within windows of this many consecutive ones, and the pairs kept in
// window order: the kernels then read A's groups moving forward a window (32 x 4 bytes of a row)
// at a time, which the caches' prefetchers follow. Pairs chosen over a whole depth block sent
// the reads of A all over it: resnet50_qdq's 3x3 convolutions of 2304 and 4608 (A's panel past
// L1) ran 1.18x slower than unpaired; windows of 32 keep 98% of the pairs (66.3% of the
// multiply-adds' groups against 67.7%).
constexpr int64_t kPairWindowGroups = 32;

// Chooses the pairs among `count` narrow groups (64 bytes apart from `groups`), window by window
// (above): in each, the lightest unpaired group with the heaviest that fits it, else the heaviest
// stays single (it fits no lighter one either, in the usual case). The window is ordered by load
// in steps of 8 (a counting sort into 33 buckets, free of data-dependent branches: an insertion
// sort's mispredictions cost 10% of a quantized resnet50's session creation; the coarse order
// pairs as many groups). Writes the order (the pairs' members adjacent, first, window after
// window; then the single groups in depth order) and returns how many groups are paired.
int64_t ChoosePairs(const int8_t* groups, int64_t count, int32_t* order) {
  constexpr int kLoadStep = 8;  // loads are 0..256: buckets 0..32
  constexpr int kBuckets = 256 / kLoadStep + 1;
  std::vector<uint8_t> paired(static_cast<size_t>(count), 0);
  GroupPairLoads loads[kPairWindowGroups];
  int32_t by_load[kPairWindowGroups];
  int64_t written = 0;
  for (int64_t first = 0; first < count; first += kPairWindowGroups) {
    const int64_t size = std::min(kPairWindowGroups, count - first);
    int32_t starts[kBuckets + 1] = {};
    for (int64_t w = 0; w < size; ++w) {
      PairLoads(groups + (first + w) * kQgemmGroupBytes, loads[w]);
      ++starts[loads[w].largest / kLoadStep + 1];
    }
    for (int b = 1; b <= kBuckets; ++b) starts[b] += starts[b - 1];
    for (int64_t w = 0; w < size; ++w)
      by_load[starts[loads[w].largest / kLoadStep]++] = static_cast<int32_t>(w);
    for (int64_t light = 0, heavy = size - 1; light < heavy; --heavy) {
      const int32_t x = by_load[light], y = by_load[heavy];
      if (!GroupsPair(loads[x], loads[y])) continue;
      paired[static_cast<size_t>(first + x)] = paired[static_cast<size_t>(first + y)] = 1;
      order[written++] = static_cast<int32_t>(first + std::min(x, y));
      order[written++] = static_cast<int32_t>(first + std::max(x, y));
      ++light;
    }
  }
  const int64_t paired_count = written;
  for (int64_t g = 0; g < count; ++g)
    if (paired[static_cast<size_t>(g)] == 0) order[written++] = static_cast<int32_t>(g);
  return paired_count;
}

// One row pair (p, p + 1) of B (each byte xor-ed with flip, as int8): both rows added to the
// column sums, and whether some column's pair breaks the pair bound (qgemm.h); with `blocks`,
// each panel's block there (panel q's at blocks[q * block_stride]) is marked when one of its
// columns does. Sixteen columns (one panel) at a time in SSE2: the positive parts and the
// negative parts' magnitudes added with unsigned saturation, above 128 breaking the bound; the
// sums sign-extended to int16 and int32. The loop the compiler vectorized from a column at a time
// was about a tenth of a quantized resnet50's session creation (callgrind: 157 M instructions in
// the packing).
bool ScanRowPair(const uint8_t* first, const uint8_t* second, int64_t n, uint8_t flip,
                 int32_t* sums, uint8_t* blocks, int64_t block_stride) {
  bool outside = false;
  int64_t j = 0;
#if defined(__SSE2__)
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  const __m128i zero = _mm_setzero_si128();
  const __m128i bound = _mm_set1_epi8(static_cast<char>(128));
  for (; j + kQgemmPanelCols <= n; j += kQgemmPanelCols) {
    const __m128i b0 =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(first + j)), flips);
    const __m128i b1 =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(second + j)), flips);
    const __m128i negative0 = _mm_cmpgt_epi8(zero, b0);
    const __m128i negative1 = _mm_cmpgt_epi8(zero, b1);
    const __m128i positive =
        _mm_adds_epu8(_mm_andnot_si128(negative0, b0), _mm_andnot_si128(negative1, b1));
    const __m128i magnitude = _mm_adds_epu8(_mm_and_si128(negative0, _mm_sub_epi8(zero, b0)),
                                            _mm_and_si128(negative1, _mm_sub_epi8(zero, b1)));
    const __m128i over =
        _mm_or_si128(_mm_subs_epu8(positive, bound), _mm_subs_epu8(magnitude, bound));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(over, zero)) != 0xFFFF) {
      outside = true;
      if (blocks != nullptr) blocks[j / kQgemmPanelCols * block_stride] = 1;
    }
    const __m128i low =
        _mm_add_epi16(_mm_unpacklo_epi8(b0, negative0), _mm_unpacklo_epi8(b1, negative1));
    const __m128i high =
        _mm_add_epi16(_mm_unpackhi_epi8(b0, negative0), _mm_unpackhi_epi8(b1, negative1));
    const __m128i low_sign = _mm_cmpgt_epi16(zero, low);
    const __m128i high_sign = _mm_cmpgt_epi16(zero, high);
    const __m128i parts[4] = {_mm_unpacklo_epi16(low, low_sign), _mm_unpackhi_epi16(low, low_sign),
                              _mm_unpacklo_epi16(high, high_sign),
                              _mm_unpackhi_epi16(high, high_sign)};
    for (int q = 0; q < 4; ++q) {
      auto* at = reinterpret_cast<__m128i*>(sums + j + 4 * q);
      _mm_storeu_si128(at, _mm_add_epi32(_mm_loadu_si128(at), parts[q]));
    }
  }
#endif
  for (; j < n; ++j) {
    const int b0 = static_cast<int8_t>(first[j] ^ flip);
    const int b1 = static_cast<int8_t>(second[j] ^ flip);
    sums[j] += b0 + b1;
    const int positive = (b0 > 0 ? b0 : 0) + (b1 > 0 ? b1 : 0);
    const int negative = (b0 < 0 ? b0 : 0) + (b1 < 0 ? b1 : 0);
    if (positive > 128 || negative < -128) {
      outside = true;
      if (blocks != nullptr) blocks[j / kQgemmPanelCols * block_stride] = 1;
    }
  }
  return outside;
}

}  // namespace

int64_t QgemmDepthBlockGroups() {
  return kQgemmDepthBlockGroups;
}

int64_t PackedQuantB::DepthBlocks() const {
  return (Groups() + kQgemmDepthBlockGroups - 1) / kQgemmDepthBlockGroups;
}

int64_t PackedQuantB::PairedGroupCount() const {
  int64_t total = 0;
  for (const int32_t paired : paired_groups_) total += paired;
  return total;
}

void PackedQuantB::Free::operator()(int8_t* p) const {
  std::free(p);
}

size_t PackedQuantB::Bytes() const {
  const int64_t panels = (n_ + kQgemmPanelCols - 1) / kQgemmPanelCols;
  return static_cast<size_t>(panels * PanelStride()) + column_sums_.size() * sizeof(int32_t) +
         (fixup_begin_.size() + fixup_group_.size() + group_order_.size() + paired_groups_.size()) *
             sizeof(int32_t) +
         fixup_data_.size();
}

PackedQuantB PackedQuantB::Pack(int64_t k, int64_t n, const void* b, int64_t ldb, bool b_signed,
                                bool widen_if_needed) {
  PackedQuantB packed;
  packed.k_ = k;
  packed.n_ = n;
  packed.signed_ = b_signed;
  const auto* bytes = static_cast<const uint8_t*>(b);
  const uint8_t flip = b_signed ? 0 : 0x80;
  const auto value = [&](int64_t p, int64_t j) {
    return static_cast<int8_t>(bytes[p * ldb + j] ^ flip);
  };
  const int64_t panels = (n + kQgemmPanelCols - 1) / kQgemmPanelCols;
  packed.column_sums_.assign(static_cast<size_t>(panels * kQgemmPanelCols), 0);
  // One pass over B's rows for the column sums and the pair bound (qgemm.h) over the pairs
  // (4g, 4g + 1) and (4g + 2, 4g + 3) of each column (ScanRowPair; the byte-by-byte loop with an
  // early exit took a sixth of a quantized resnet50's session creation).
  int32_t* sums = packed.column_sums_.data();
  // With widen_if_needed, the same pass marks which (panel, depth group) blocks break the bound
  // (few of them: the mixed form, qgemm.h).
  const int64_t group_count = (k + kQgemmDepthGroup - 1) / kQgemmDepthGroup;
  std::vector<uint8_t> outside_blocks(
      widen_if_needed ? static_cast<size_t>(panels * group_count) : 0, 0);
  int64_t p = 0;
  for (; p + 1 < k; p += 2) {
    const uint8_t* first = bytes + p * ldb;
    if (ScanRowPair(first, first + ldb, n, flip, sums,
                    widen_if_needed ? outside_blocks.data() + p / kQgemmDepthGroup : nullptr,
                    group_count))
      packed.within_pair_bound_ = false;
  }
  for (; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) sums[j] += value(p, j);
  int64_t outside_count = 0;
  for (const uint8_t flag : outside_blocks) outside_count += flag;
  packed.wide_ =
      widen_if_needed && !packed.within_pair_bound_ && PackWide(outside_count, panels, group_count);
  const bool mixed = widen_if_needed && !packed.within_pair_bound_ && !packed.wide_;
  const int64_t data_bytes = std::max<int64_t>(RoundUp(panels * packed.PanelStride(), 64), 64);
  void* memory = std::aligned_alloc(64, static_cast<size_t>(data_bytes));
  if (memory == nullptr) throw std::bad_alloc();
  packed.data_.reset(static_cast<int8_t*>(memory));
  // Whole panels of whole groups are written below; only a ragged B leaves padding to zero
  // (zeroing every B was 28 M of the 448 M instructions of resnet50_qdq's session creation).
  const int64_t used_bytes = panels * packed.PanelStride();
  if (n % kQgemmPanelCols != 0 || k % kQgemmDepthGroup != 0)
    std::memset(memory, 0, static_cast<size_t>(data_bytes));
  else
    std::memset(static_cast<int8_t*>(memory) + used_bytes, 0,
                static_cast<size_t>(data_bytes - used_bytes));
  const int64_t group_bytes = packed.GroupBytes();
  const int64_t panel_stride = packed.PanelStride();
  int8_t* data = packed.data_.get();
  // Whole depth groups of whole panels 64 bytes at a time (wide: 128); the rest (a ragged last
  // panel or group) value by value.
  const int64_t full_groups = k / kQgemmDepthGroup;
  const int64_t full_panels = n / kQgemmPanelCols;
  // Group by group, its four rows read left to right across the panels (panel by panel, the
  // 16-byte strips down all of B's rows missed the caches once B passed L2).
  for (int64_t g = 0; g < full_groups; ++g)
    for (int64_t panel = 0; panel < full_panels; ++panel) {
      const uint8_t* from = bytes + g * kQgemmDepthGroup * ldb + panel * kQgemmPanelCols;
      int8_t* to = data + panel * panel_stride + g * group_bytes;
      if (packed.wide_)
        PackFullGroupWide(from, ldb, flip, to);
      else
        PackFullGroup(from, ldb, flip, to);
    }
  for (int64_t row = 0; row < k; ++row) {
    const int64_t group_offset = row / kQgemmDepthGroup * group_bytes;
    const int64_t first_column =
        row < full_groups * kQgemmDepthGroup ? full_panels * kQgemmPanelCols : 0;
    for (int64_t j = first_column; j < n; ++j) {
      const int8_t v = value(row, j);
      int8_t* group = data + j / kQgemmPanelCols * panel_stride + group_offset;
      if (packed.wide_) {
        const auto wide = static_cast<int16_t>(v);
        std::memcpy(group + WideOffset(row, j) * 2, &wide, sizeof wide);
      } else {
        group[j % kQgemmPanelCols * kQgemmDepthGroup + row % kQgemmDepthGroup] = v;
      }
    }
  }
  if (mixed) {
    // Each outside block split in two narrow halves (qgemm.h): in place, each pair outside the
    // bound keeps w - trunc(w / 2); the fix-up holds trunc(w / 2) there and zeros elsewhere.
    packed.fixup_begin_.assign(static_cast<size_t>(panels + 1), 0);
    packed.fixup_group_.reserve(static_cast<size_t>(outside_count));
    packed.fixup_data_.reserve(static_cast<size_t>(outside_count * kQgemmGroupBytes));
    for (int64_t panel = 0; panel < panels; ++panel) {
      for (int64_t g = 0; g < group_count; ++g) {
        if (outside_blocks[static_cast<size_t>(panel * group_count + g)] == 0) continue;
        packed.fixup_group_.push_back(static_cast<int32_t>(g));
        int8_t* block = data + panel * panel_stride + g * group_bytes;
        int8_t rest[kQgemmGroupBytes] = {};
        for (int64_t lane = 0; lane < 2 * kQgemmPanelCols; ++lane) {
          int8_t* pair = block + 2 * lane;
          const int positive = std::max<int>(pair[0], 0) + std::max<int>(pair[1], 0);
          const int negative = std::min<int>(pair[0], 0) + std::min<int>(pair[1], 0);
          if (positive <= 128 && negative >= -128) continue;
          for (int64_t t = 0; t < 2; ++t) {
            rest[2 * lane + t] = static_cast<int8_t>(pair[t] / 2);
            pair[t] = static_cast<int8_t>(pair[t] - pair[t] / 2);
          }
        }
        packed.fixup_data_.insert(packed.fixup_data_.end(), rest, rest + kQgemmGroupBytes);
      }
      packed.fixup_begin_[static_cast<size_t>(panel + 1)] =
          static_cast<int32_t>(packed.fixup_group_.size());
    }
  }
  // Paired groups (qgemm.h) for the saturating kernels' narrow or mixed B, chosen on the stored
  // bytes (a mixed B's zeroed blocks pair with anything); each (panel, depth block)'s groups are
  // then stored in the chosen order.
  if (widen_if_needed && !packed.wide_ && group_count > 1) {
    const int64_t blocks = packed.DepthBlocks();
    packed.group_order_.resize(static_cast<size_t>(panels * group_count));
    packed.paired_groups_.assign(static_cast<size_t>(panels * blocks), 0);
    std::vector<int8_t> reordered(
        static_cast<size_t>(std::min(kQgemmDepthBlockGroups, group_count) * kQgemmGroupBytes));
    for (int64_t panel = 0; panel < panels; ++panel)
      for (int64_t block = 0; block < blocks; ++block) {
        const int64_t first = block * kQgemmDepthBlockGroups;
        const int64_t count = std::min(kQgemmDepthBlockGroups, group_count - first);
        int8_t* stored = data + panel * panel_stride + first * kQgemmGroupBytes;
        int32_t* order = packed.group_order_.data() + panel * group_count + first;
        packed.paired_groups_[static_cast<size_t>(panel * blocks + block)] =
            static_cast<int32_t>(ChoosePairs(stored, count, order));
        for (int64_t s = 0; s < count; ++s)
          std::memcpy(reordered.data() + s * kQgemmGroupBytes, stored + order[s] * kQgemmGroupBytes,
                      static_cast<size_t>(kQgemmGroupBytes));
        std::memcpy(stored, reordered.data(), static_cast<size_t>(count * kQgemmGroupBytes));
      }
  }
  return packed;
}

void PackedQuantB::Unpack(void* b, int64_t ldb) const {
  auto* bytes = static_cast<uint8_t*>(b);
  const uint8_t flip = signed_ ? 0 : 0x80;
  const int64_t group_bytes = GroupBytes();
  // Where each group of a panel is stored (its place in its block's order when paired).
  std::vector<int64_t> stored_at(static_cast<size_t>(Groups()));
  const int64_t panels = (n_ + kQgemmPanelCols - 1) / kQgemmPanelCols;
  for (int64_t panel = 0; panel < panels; ++panel) {
    for (int64_t s = 0; s < Groups(); ++s) {
      const int64_t first = s / kQgemmDepthBlockGroups * kQgemmDepthBlockGroups;
      const int64_t g = group_order_.empty()
                            ? s
                            : first + group_order_[static_cast<size_t>(panel * Groups() + s)];
      stored_at[static_cast<size_t>(g)] = s;
    }
    for (int64_t p = 0; p < k_; ++p)
      for (int64_t j = panel * kQgemmPanelCols; j < std::min(n_, (panel + 1) * kQgemmPanelCols);
           ++j) {
        const int8_t* group = data_.get() + panel * PanelStride() +
                              stored_at[static_cast<size_t>(p / kQgemmDepthGroup)] * group_bytes;
        int v = group[j % kQgemmPanelCols * kQgemmDepthGroup + p % kQgemmDepthGroup];
        if (wide_) {
          int16_t wide;
          std::memcpy(&wide, group + WideOffset(p, j) * 2, sizeof wide);
          v = wide;
        }
        bytes[p * ldb + j] = static_cast<uint8_t>(static_cast<uint8_t>(v) ^ flip);
      }
  }
  // A mixed B's outside blocks: the fix-ups' halves added back.
  for (int64_t panel = 0; panel + 1 < static_cast<int64_t>(fixup_begin_.size()); ++panel)
    for (int32_t f = fixup_begin_[static_cast<size_t>(panel)];
         f < fixup_begin_[static_cast<size_t>(panel + 1)]; ++f) {
      const int64_t g = fixup_group_[static_cast<size_t>(f)];
      const int8_t* rest = fixup_data_.data() + static_cast<int64_t>(f) * kQgemmGroupBytes;
      for (int64_t t = 0; t < kQgemmDepthGroup; ++t)
        for (int64_t j = 0; j < kQgemmPanelCols; ++j) {
          const int64_t row = g * kQgemmDepthGroup + t, column = panel * kQgemmPanelCols + j;
          if (row >= k_ || column >= n_) continue;
          uint8_t& byte = bytes[row * ldb + column];
          const int whole = static_cast<int8_t>(byte ^ flip) + rest[j * kQgemmDepthGroup + t];
          byte = static_cast<uint8_t>(static_cast<uint8_t>(whole) ^ flip);
        }
    }
}

bool QgemmUsesVnni(const IsaKernels& kernels) {
  return kernels.qgemm_block_vnni != nullptr && kernels.qgemm_vnni_usable != nullptr &&
         kernels.qgemm_vnni_usable();
}

bool QgemmUsesAmx(const IsaKernels& kernels) {
  return kernels.qgemm_amx != nullptr && kernels.qgemm_amx_usable != nullptr &&
         kernels.qgemm_amx_usable();
}

bool QgemmPairsSaturate(const IsaKernels& kernels) {
  return kernels.qgemm_block_saturates && !QgemmUsesVnni(kernels) && !QgemmUsesAmx(kernels);
}

bool QgemmCanRequantize(const IsaKernels& kernels, const PackedQuantB& b,
                        const float* multipliers) {
  const bool narrow = !b.Wide() && !b.Mixed() && b.GroupOrder() == nullptr;
  const bool vnni = QgemmUsesVnni(kernels) && narrow;
  // The AMX kernel takes the whole depth in one call, so any depth requantizes in its store.
  const bool amx = QgemmUsesAmx(kernels) && narrow;
  if (b.K() <= 0) return false;
  if (!amx && (!(vnni ? kernels.qgemm_vnni_requantizes : kernels.qgemm_block_requantizes) ||
               b.Groups() > kQgemmDepthBlockGroups))
    return false;
  for (int64_t j = 0; j < b.N(); ++j)
    if (!std::isfinite(multipliers[j]) || std::fabs(multipliers[j]) < 0x1p-14f) return false;
  return true;
}

namespace {

// Below this much work per thread an AMX product is not split, counted in outputs: each output
// costs about as much in the store (the terms, the requantization: half a cycle) as 128 of its
// multiply-adds in the tile unit, so a product of small depth is mostly its store
// (mobilenetv2_qdq's 1x1 convolutions of 16 to 32 channels, whose multiply-adds alone kept
// them on one thread).
constexpr double kMinAmxWorkPerThread = 1 << 16;
constexpr double kAmxMultiplyAddsPerOutput = 128;
// Rows of A made readable (lowered, copied) and multiplied by all of B's columns at once.
constexpr int64_t kAmxRowChunk = 128;

// How much of its work the busiest of `wanted` threads gets against an even share, when
// `extent` is cut in whole `unit`s.
double EvenShare(int64_t extent, int64_t unit, int64_t wanted) {
  const int64_t units = (extent + unit - 1) / unit;
  const int64_t busiest = std::min(extent, (units + wanted - 1) / wanted * unit);
  return static_cast<double>(extent) / static_cast<double>(busiest * wanted);
}

// Block `index` of `blocks` over `extent` cut in whole `unit`s: its [begin, end), the first
// (units % blocks) blocks one unit larger.
std::pair<int64_t, int64_t> BlockRange(int64_t extent, int64_t unit, int64_t blocks,
                                       int64_t index) {
  const int64_t units = (extent + unit - 1) / unit;
  const int64_t base = units / blocks, larger = units % blocks;
  const int64_t first = index * base + std::min(index, larger);
  const int64_t count = base + (index < larger ? 1 : 0);
  return {first * unit, std::min(extent, (first + count) * unit)};
}

// The zero points' terms of RunQgemm for the AMX kernel's store (column_term nullptr: none).
struct AmxTerms {
  const int32_t* column_term = nullptr;
  const int32_t* column_zero = nullptr;
  bool row_term = false;  // some column's B zero point is not zero: A's row sums are needed
  const QgemmRequantizeConstants* constants = nullptr;
};

// RunQgemm on the AMX kernel (IsaKernels::qgemm_amx), which reads A as rows and takes the whole
// depth at once: A's rows are read where they are when they are uint8 and whole depth groups,
// else written into a buffer first (a row source's lowering, an int8 A shifted by +128, a depth
// padded to whole groups with zeros), kAmxRowChunk rows at a time on the thread that multiplies
// them, or all at once when C is cut by columns.
void RunQgemmAmx(const IsaKernels& kernels, int64_t m, const uint8_t* a, int64_t lda, bool a_signed,
                 const PackedQuantB& b, const AmxTerms& terms, int32_t* c, int64_t ldc,
                 ThreadPool* pool, const QgemmTileDone& tile_done,
                 const QgemmRequantize* requantize, const QgemmRowSource* source) {
  const int64_t n = b.N(), k = b.K(), groups = b.Groups();
  const int64_t row_stride = RoundUp(k, kQgemmDepthGroup);
  const auto flip = static_cast<uint8_t>(a_signed ? 0x80 : 0);
  const bool in_place = source == nullptr && !a_signed && k % kQgemmDepthGroup == 0;
  std::vector<int32_t> row_sums(terms.row_term ? static_cast<size_t>(m) : 0);
  struct Rows {
    const uint8_t* first = nullptr;
    int64_t stride = 0;
  };
  // Rows [begin, end) readable as rows (into `buffer` unless in place), with their sums.
  const auto prepare = [&](int64_t begin, int64_t end, uint8_t* buffer) {
    Rows rows;
    if (in_place) {
      rows = Rows{a + begin * lda, lda};
    } else {
      if (source != nullptr) (*source)(begin, end, buffer, row_stride);
      for (int64_t r = 0; r < end - begin; ++r) {
        uint8_t* to = buffer + r * row_stride;
        if (source == nullptr) {
          const uint8_t* from = a + (begin + r) * lda;
          for (int64_t p = 0; p < k; ++p) to[p] = static_cast<uint8_t>(from[p] ^ flip);
        } else if (flip != 0) {
          for (int64_t p = 0; p < k; ++p) to[p] = static_cast<uint8_t>(to[p] ^ flip);
        }
        for (int64_t p = k; p < row_stride; ++p) to[p] = 0;
      }
      rows = Rows{buffer, row_stride};
    }
    if (terms.row_term)
      for (int64_t r = begin; r < end; ++r)
        row_sums[static_cast<size_t>(r)] =
            static_cast<int32_t>(RowSum(rows.first + (r - begin) * rows.stride, k, 0));
    return rows;
  };
  const int64_t b_panel_stride = b.PanelStride();
  // Rows [row, row + count) (at `rows`) times columns [col, col + cols) of B.
  const auto run = [&](int64_t row, int64_t count, const Rows& rows, int64_t col, int64_t cols) {
    QgemmStore store;
    if (terms.column_term != nullptr) {
      store.column_term = terms.column_term + col;
      store.column_zero = terms.column_zero + col;
      if (terms.row_term) store.row_sums = row_sums.data() + row;
    }
    if (requantize != nullptr) {
      store.out8 = requantize->out + row * requantize->out_stride + col;
      store.out8_stride = requantize->out_stride;
      store.out_scale = requantize->multipliers + col;
      store.out_constants = terms.constants;
    }
    kernels.qgemm_amx(count, cols, groups, rows.first, rows.stride,
                      b.Data() + col / kQgemmPanelCols * b_panel_stride, b_panel_stride, store,
                      c != nullptr ? c + row * ldc + col : nullptr, ldc);
    if (tile_done) tile_done(row, count, col, cols);
  };
  // Rows [begin, end) a chunk at a time: made readable on this thread, times all of B.
  const auto run_rows = [&](int64_t begin, int64_t end) {
    for (int64_t at = begin; at < end; at += kAmxRowChunk) {
      const int64_t count = std::min(kAmxRowChunk, end - at);
      const Rows rows =
          prepare(at, at + count, in_place ? nullptr : source_workspace.Get(count * row_stride));
      run(at, count, rows, 0, n);
    }
  };

  const int threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;
  const double work = static_cast<double>(std::max<int64_t>(m, 4)) * static_cast<double>(n) *
                      (1.0 + static_cast<double>(k) / kAmxMultiplyAddsPerOutput);
  const int64_t wanted =
      std::clamp<int64_t>(static_cast<int64_t>(work / kMinAmxWorkPerThread), 1, threads);
  if (wanted == 1) {
    run_rows(0, m);
    return;
  }
  // Cut along the side that shares out better in whole 32-row or 32-column units (two tiles of
  // the kernel), rows when equal; two blocks per thread, taken as threads come free.
  constexpr int64_t kUnit = 32;
  const bool by_columns = EvenShare(n, kUnit, wanted) > EvenShare(m, kUnit, wanted);
  const int64_t extent = by_columns ? n : m;
  const int64_t units = (extent + kUnit - 1) / kUnit;
  const int64_t blocks = std::min(2 * wanted, units);
  const auto block_range = [&](int64_t index) { return BlockRange(extent, kUnit, blocks, index); };
  if (!by_columns) {
    pool->ParallelFor(blocks, 1e12, [&](int64_t first, int64_t last) {
      for (int64_t index = first; index < last; ++index) {
        const auto [begin, end] = block_range(index);
        run_rows(begin, end);
      }
    });
    return;
  }
  // All of A made readable first (split over the pool from 32 KB), then the column blocks.
  uint8_t* buffer = in_place ? nullptr : packed_a_workspace.Get(m * row_stride);
  Rows all = in_place ? Rows{a, lda} : Rows{};
  const int64_t parts =
      in_place && !terms.row_term
          ? 0
          : std::clamp<int64_t>(m * k / (int64_t{1} << 15), 1,
                                std::min<int64_t>(threads, (m + kUnit - 1) / kUnit));
  if (parts == 1) {
    all = prepare(0, m, buffer);
  } else if (parts > 1) {
    const int64_t per_part = RoundUp((m + parts - 1) / parts, kUnit);
    pool->ParallelFor(parts, 1e12, [&](int64_t first, int64_t last) {
      for (int64_t part = first; part < last; ++part) {
        const int64_t begin = std::min(m, part * per_part);
        const int64_t end = std::min(m, begin + per_part);
        if (begin < end)
          prepare(begin, end, buffer == nullptr ? nullptr : buffer + begin * row_stride);
      }
    });
    if (!in_place) all = Rows{buffer, row_stride};
  }
  pool->ParallelFor(blocks, 1e12, [&](int64_t first, int64_t last) {
    for (int64_t index = first; index < last; ++index) {
      const auto [begin, end] = block_range(index);
      for (int64_t at = 0; at < m; at += kAmxRowChunk)
        run(at, std::min(kAmxRowChunk, m - at), Rows{all.first + at * all.stride, all.stride},
            begin, end - begin);
    }
  });
}

// QgemmPackedB, or with `requantize` QgemmPackedBRequantize (c unused); A's rows from `source`
// when it is given.
void RunQgemm(const IsaKernels& kernels, int64_t m, const void* a, int64_t lda, bool a_signed,
              const PackedQuantB& b, const QgemmZeroPoints& zero_points, int32_t* c, int64_t ldc,
              ThreadPool* pool, const QgemmTileDone& tile_done, const QgemmRequantize* requantize,
              const QgemmRowSource* source) {
  const int64_t n = b.N(), k = b.K();
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // an empty sum
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0);
    if (tile_done) tile_done(0, m, 0, n);
    return;
  }
  // A wide B runs the level's qgemm_block, which reads it (qgemm.h), with A widened too.
  // So does a mixed B (its fix-ups), with A narrow.
  const bool wide = b.Wide();
  const bool mixed = b.Mixed();
  const bool paired = b.GroupOrder() != nullptr;
  const bool vnni = QgemmUsesVnni(kernels) && !wide && !mixed && !paired;
  const bool amx = QgemmUsesAmx(kernels) && !wide && !mixed && !paired;
  const auto kernel = vnni ? kernels.qgemm_block_vnni : kernels.qgemm_block;
  if (!vnni && !amx && kernels.qgemm_block_saturates && !wide && !mixed && !b.WithinPairBound())
    throw std::invalid_argument(
        "int8 GEMM: B has weight pairs outside vpmaddubsw's int16 bound but was packed narrow "
        "(for kernels that do not saturate); pack it with widen_if_needed = "
        "QgemmPairsSaturate(kernels)");
  const int64_t tile_rows = kernels.qgemm_tile_rows;
  const int64_t groups = b.Groups();
  const int64_t a_value_bytes = wide ? 2 : 1;
  const int64_t a_panel_stride = groups * tile_rows * kQgemmDepthGroup * a_value_bytes;
  const int64_t a_panels = (m + tile_rows - 1) / tile_rows;
  const int threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;

  // The zero points in the shifted domain (u8 A, s8 B): the kernels add column_term[j] -
  // column_zero[j] * rowsum(A)[i] on the last depth block (isa_kernels.h's QgemmStore).
  const uint32_t a_zero = static_cast<uint32_t>(zero_points.a + (a_signed ? 128 : 0));
  std::vector<int32_t> column_zero(static_cast<size_t>(n));
  std::vector<int32_t> column_term(static_cast<size_t>(n));
  bool any_column_zero = false;
  for (int64_t j = 0; j < n; ++j) {
    const int32_t given =
        zero_points.b_per_column != nullptr ? zero_points.b_per_column[j] : zero_points.b_scalar;
    const auto zero = static_cast<uint32_t>(given - (b.Signed() ? 0 : 128));
    column_zero[static_cast<size_t>(j)] = static_cast<int32_t>(zero);
    column_term[static_cast<size_t>(j)] =
        static_cast<int32_t>(static_cast<uint32_t>(k) * a_zero * zero -
                             a_zero * static_cast<uint32_t>(b.ColumnSums()[j]));
    any_column_zero = any_column_zero || zero != 0;
  }
  // The requantization's bias joins the column terms (a wrapping add either way).
  if (requantize != nullptr && requantize->bias != nullptr)
    for (int64_t j = 0; j < n; ++j)
      column_term[static_cast<size_t>(j)] =
          static_cast<int32_t>(static_cast<uint32_t>(column_term[static_cast<size_t>(j)]) +
                               static_cast<uint32_t>(requantize->bias[j]));
  const bool corrected =
      any_column_zero || a_zero != 0 || (requantize != nullptr && requantize->bias != nullptr);
  QgemmRequantizeConstants constants;
  if (requantize != nullptr) {
    constants.low = static_cast<float>((requantize->to_int8 ? -128 : 0) - requantize->zero_point);
    constants.high = static_cast<float>((requantize->to_int8 ? 127 : 255) - requantize->zero_point);
    constants.zero_point = requantize->zero_point;
  }
  if (amx) {
    RunQgemmAmx(kernels, m, static_cast<const uint8_t*>(a), lda, a_signed, b,
                AmxTerms{corrected ? column_term.data() : nullptr, column_zero.data(),
                         any_column_zero, &constants},
                c, ldc, pool, tile_done, requantize, source);
    return;
  }

  // A packed into panels, with its row sums when a B zero point needs them (pack: panels
  // [first, last)); when and by whom depends on how C is split below.
  uint8_t* packed_a = packed_a_workspace.Get(a_panels * a_panel_stride);
  std::vector<int32_t> row_sums(any_column_zero ? static_cast<size_t>(m) : 0);
  const auto* a_bytes = static_cast<const uint8_t*>(a);
  const uint32_t flip = a_signed ? 0x80 : 0;
  // A requantizing product of a uint8 A whose depth is whole groups (for the VNNI kernel, on
  // whole 32-column tiles of B; for qgemm_block, a narrow or mixed B): the kernel can read A's
  // rows where they are (the caller's, or a row source's buffer) for its whole 12-row panels
  // (QgemmStore::a_rows), and then only a last partial panel is packed.
  // A row source's rows are written whole groups apart, their last group's padding zeroed (B's
  // is zero too), so they can be read in place whatever the depth (the first convolutions of
  // resnet and mobilenet, 3 channels: depths 147 and 27, were packed a second time).
  const int64_t source_stride = RoundUp(k, kQgemmDepthGroup);
  const bool in_place_ok =
      requantize != nullptr && !a_signed && (k % kQgemmDepthGroup == 0 || source != nullptr) &&
      tile_rows == 12 &&
      (vnni ? n % (2 * kQgemmPanelCols) == 0 : !wide && kernels.qgemm_block_reads_a_rows);
  const int64_t partial_panel = m % tile_rows != 0 ? a_panels - 1 : a_panels;
  // Where the rows of a pack read in place are: row r at rows + (r - row0) * stride.
  struct RowsInPlace {
    const uint8_t* rows = nullptr;
    int64_t row0 = 0;
    int64_t stride = 0;
  };
  // Packs panels [first, last) (only a partial last one when in_place) with their row sums; with
  // a row source, the rows are first written into this thread's buffer, or where `lowered` says
  // (all of A's rows, row r at lowered + r * source_stride).
  const auto pack = [&](int64_t first, int64_t last, bool in_place, uint8_t* lowered = nullptr) {
    const int64_t row0 = first * tile_rows, row_end = std::min(m, last * tile_rows);
    const uint8_t* rows = nullptr;
    int64_t stride = lda;
    if (source != nullptr) {
      uint8_t* buffer = lowered != nullptr ? lowered + row0 * source_stride
                                           : source_workspace.Get((row_end - row0) * source_stride);
      (*source)(row0, row_end, buffer, source_stride);
      // The 1 to 3 padding bytes of each row, stored inline: a memset call per row was 0.2% of a
      // mobilenetv2_qdq run's instructions (its first convolution's 12544 rows of 27 bytes).
      for (int64_t row = 0; row < row_end - row0 && source_stride != k; ++row)
        for (int64_t at = k; at < source_stride; ++at) buffer[row * source_stride + at] = 0;
      rows = buffer;
      stride = source_stride;
    } else {
      rows = a_bytes + row0 * lda;
    }
    if (wide)
      PackAPanelsWide(rows, row0, stride, flip, m, k, groups, tile_rows, first, last,
                      packed_a + first * a_panel_stride);
    else if (!in_place)
      PackAPanels(rows, row0, stride, flip, m, k, groups, tile_rows, first, last,
                  packed_a + first * a_panel_stride);
    else if (partial_panel >= first && partial_panel < last)
      PackAPanels(rows, row0, stride, flip, m, k, groups, tile_rows, partial_panel,
                  partial_panel + 1, packed_a + partial_panel * a_panel_stride);
    if (any_column_zero)
      for (int64_t row = row0; row < row_end; ++row)
        row_sums[static_cast<size_t>(row)] = static_cast<int32_t>(
            RowSum(rows + (row - row0) * stride, k, static_cast<uint8_t>(flip)));
    return in_place ? RowsInPlace{rows, row0, stride} : RowsInPlace{};
  };
  const int64_t group_bytes = b.GroupBytes();
  const int64_t b_panel_stride = b.PanelStride();
  // The blocked product of rows [row, row + rows) and columns [col, col + cols) of C; row is a
  // multiple of tile_rows, col of the panel width.
  const auto run_block = [&](int64_t row, int64_t rows, int64_t col, int64_t cols,
                             const RowsInPlace& in_place) {
    for (int64_t jc = 0; jc < cols; jc += kQgemmColumnBlock) {
      const int64_t nc = std::min(kQgemmColumnBlock, cols - jc);
      for (int64_t pc = 0; pc < groups; pc += kQgemmDepthBlockGroups) {
        const int64_t gc = std::min(kQgemmDepthBlockGroups, groups - pc);
        const int8_t* panels =
            b.Data() + (col + jc) / kQgemmPanelCols * b_panel_stride + pc * group_bytes;
        for (int64_t ic = 0; ic < rows; ic += kQgemmRowBlock) {
          const int64_t mc = std::min(kQgemmRowBlock, rows - ic);
          QgemmStore store;
          store.accumulate = pc > 0;
          if (mixed) {
            store.fixup_begin = b.FixupBegin() + (col + jc) / kQgemmPanelCols;
            store.fixup_group = b.FixupGroup();
            store.fixup_data = b.FixupData();
            store.fixup_group0 = pc;
          }
          if (paired) {
            store.group_order = b.GroupOrder() + (col + jc) / kQgemmPanelCols * groups + pc;
            store.group_order_stride = groups;
            store.paired_groups = b.PairedGroups() +
                                  (col + jc) / kQgemmPanelCols * b.DepthBlocks() +
                                  pc / kQgemmDepthBlockGroups;
            store.paired_groups_stride = b.DepthBlocks();
          }
          // The zero points with the last depth block's sums, while the tile is in registers.
          if (pc + gc == groups && corrected) {
            store.column_term = column_term.data() + col + jc;
            store.column_zero = column_zero.data() + col + jc;
            if (any_column_zero) store.row_sums = row_sums.data() + row + ic;
          }
          if (requantize != nullptr) {  // one depth block (QgemmCanRequantize)
            store.out8 = requantize->out + (row + ic) * requantize->out_stride + col + jc;
            store.out8_stride = requantize->out_stride;
            store.out_scale = requantize->multipliers + col + jc;
            store.out_constants = &constants;
            if (in_place.rows != nullptr) {
              store.a_rows = in_place.rows + (row + ic - in_place.row0) * in_place.stride;
              store.a_stride = in_place.stride;
            }
          }
          kernel(mc, nc, gc,
                 packed_a + (row + ic) / tile_rows * a_panel_stride +
                     pc * tile_rows * kQgemmDepthGroup * a_value_bytes,
                 a_panel_stride, panels, b_panel_stride, wide, store,
                 c != nullptr ? c + (row + ic) * ldc + col + jc : nullptr, ldc);
          if (pc + gc == groups && tile_done) tile_done(row + ic, mc, col + jc, nc);
        }
      }
    }
  };

  // Rows [begin, begin + size) packed and multiplied by all of B a row block at a time (each
  // block of A packed right before it is multiplied, still in cache) when B is one column block;
  // else packed at once.
  const int64_t chunk = RoundUp(kQgemmRowBlock, tile_rows);
  const auto pack_and_run = [&](int64_t begin, int64_t size) {
    const int64_t step_rows = n <= kQgemmColumnBlock ? chunk : RoundUp(size, tile_rows);
    for (int64_t at = begin; at < begin + size; at += step_rows) {
      const int64_t rows = std::min(step_rows, begin + size - at);
      const RowsInPlace in_place =
          pack(at / tile_rows, (at + rows + tile_rows - 1) / tile_rows, in_place_ok);
      run_block(at, rows, 0, n, in_place);
    }
  };

  // A whole, split over the pool by panels when it is large (the column blocks below all read
  // all of it); read in place where it can be: from a row source, its rows lowered into one
  // buffer of the calling thread's, written by the packing tasks (packed as well, they cost a
  // second copy of A and its reads from 12-row panels: resnet50_qdq's 14x14 3x3 convolutions
  // took 15-20% longer on one thread).
  const bool all_in_place = in_place_ok && source == nullptr;
  uint8_t* lowered = nullptr;
  RowsInPlace whole_in_place = all_in_place ? RowsInPlace{a_bytes, 0, lda} : RowsInPlace{};
  const auto pack_all = [&] {
    if (in_place_ok && source != nullptr) {
      lowered = source_workspace.Get(m * source_stride);
      whole_in_place = RowsInPlace{lowered, 0, source_stride};
    }
    // Split from 32 KB of A on (a convolution's lowering comes with it): the threads would
    // otherwise wait for one to pack (14x14 x 2304 took a third of such a conv at 2 threads).
    const int64_t pack_parts =
        std::clamp<int64_t>(m * k / (int64_t{1} << 15), 1, std::min<int64_t>(threads, a_panels));
    if (pack_parts == 1) {
      pack(0, a_panels, in_place_ok, lowered);
      return;
    }
    const int64_t per_part = (a_panels + pack_parts - 1) / pack_parts;
    pool->ParallelFor(pack_parts, 1e12, [&](int64_t first, int64_t last) {
      for (int64_t part = first; part < last; ++part)
        pack(part * per_part, std::min(a_panels, (part + 1) * per_part), in_place_ok, lowered);
    });
  };

  // Fewer than 4 rows take about a 4-row tile's time (the loads of B bound the 1- and 2-row
  // tiles, as in the SGEMM's split): counted as they come, resnet50_qdq's 1 x 2048 x 1000 QGemm
  // stayed on one thread (about 250 us at 2 threads, the second idle; 126-151 us split).
  const double multiply_adds =
      static_cast<double>(std::max<int64_t>(m, 4)) * static_cast<double>(n) * k;
  const int64_t wanted =
      std::clamp<int64_t>(static_cast<int64_t>(multiply_adds / (vnni ? kMinMultiplyAddsPerThreadVnni
                                                                     : kMinMultiplyAddsPerThread)),
                          1, threads);
  // Two blocks per thread, taken as threads come free (a thread slowed by another tenant leaves
  // its second block to the others), of whole units: 12-row panels of A or B's 16-column panels
  // (32-column pairs for the VNNI kernel, whose tiles are 32 wide), dealt so that block sizes
  // differ by at most one unit, the larger ones first: the threads then take equal shares where
  // the units allow. With 32-column units and the larger blocks last, mobilenetv2_qdq's 7x7 1x1
  // convolutions to 160 and 320 channels split 3:2 and 6:4 at 2 threads. C is cut by rows unless
  // they share out over the threads worse than 0.85 (the busiest thread's share against an even
  // one) and its columns better: row blocks each lower and pack their own rows of A, in one pass
  // over the pool, where column blocks all read the whole of A, packed in a pass before
  // (resnet50_qdq's 14x14 3x3 convolutions, 196 rows and 256 columns, were cut by columns: 1.04
  // ms at 2 threads, 0.89 by rows). An A read in place needs no packing pass: then C is cut along
  // its longer side (its 14x14 1x1 convolutions to 1024 channels, by rows, took 3% longer).
  const int64_t column_unit = (vnni ? 2 : 1) * kQgemmPanelCols;
  const double row_share = EvenShare(m, tile_rows, wanted);
  const double column_share = EvenShare(n, column_unit, wanted);
  const bool by_columns =
      wanted == 1 || all_in_place ? n >= m : row_share < 0.85 && column_share > row_share;
  const int64_t unit = by_columns ? column_unit : tile_rows;
  const int64_t extent = by_columns ? n : m;
  const int64_t units = (extent + unit - 1) / unit;  // rows: a_panels
  const int64_t blocks = wanted == 1 ? 1 : std::min(2 * wanted, units);
  const auto block_range = [&](int64_t index) { return BlockRange(extent, unit, blocks, index); };
  if (blocks == 1) {
    if (by_columns) {
      pack_all();
      run_block(0, m, 0, n, whole_in_place);
      return;
    }
    pack_and_run(0, m);  // a 3136 x 576 A is 1.8 MB: packed a row block at a time
    return;
  }
  if (by_columns) {
    pack_all();
    pool->ParallelFor(blocks, 1e12, [&](int64_t first, int64_t last) {
      for (int64_t index = first; index < last; ++index) {
        const auto [begin, end] = block_range(index);
        run_block(0, m, begin, end - begin, whole_in_place);
      }
    });
    return;
  }
  // Row blocks (whole panels): each packs its own panels of A
  // and multiplies them in the same task, one pass over the pool instead of two (each costs a
  // wake-up and a wait, which on a shared 2-core VM added up over a CNN's convolutions).
  pool->ParallelFor(blocks, 1e12, [&](int64_t first, int64_t last) {
    for (int64_t index = first; index < last; ++index) {
      const auto [begin, end] = block_range(index);
      pack_and_run(begin, end - begin);
    }
  });
}

}  // namespace

void QgemmPackedB(const IsaKernels& kernels, int64_t m, const void* a, int64_t lda, bool a_signed,
                  const PackedQuantB& b, const QgemmZeroPoints& zero_points, int32_t* c,
                  int64_t ldc, ThreadPool* pool, const QgemmTileDone& tile_done,
                  const QgemmRowSource* source) {
  RunQgemm(kernels, m, a, lda, a_signed, b, zero_points, c, ldc, pool, tile_done, nullptr,
           source != nullptr && *source ? source : nullptr);
}

void QgemmPackedBRequantize(const IsaKernels& kernels, int64_t m, const void* a, int64_t lda,
                            bool a_signed, const PackedQuantB& b,
                            const QgemmZeroPoints& zero_points, const QgemmRequantize& output,
                            ThreadPool* pool, const QgemmRowSource* source) {
  if (!QgemmCanRequantize(kernels, b, output.multipliers))
    throw std::invalid_argument(
        "int8 GEMM: the requantizing product needs a kernel that requantizes in its store (AVX2, "
        "AVX-512 VNNI), a depth of at most 4608 and multipliers with 2^-14 <= |multiplier| < inf "
        "(QgemmCanRequantize)");
  RunQgemm(kernels, m, a, lda, a_signed, b, zero_points, nullptr, 0, pool, {}, &output,
           source != nullptr && *source ? source : nullptr);
}

void Qgemm(int64_t m, const void* a, int64_t lda, bool a_signed, const PackedQuantB& b,
           const QgemmZeroPoints& zero_points, int32_t* c, int64_t ldc, ThreadPool* pool) {
  QgemmPackedB(ActiveKernels(), m, a, lda, a_signed, b, zero_points, c, ldc, pool);
}

}  // namespace prism::mlas

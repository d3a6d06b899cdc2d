// The AVX-512 unit's AMX int8 GEMM kernel (included by isa_kernels_impl.h there only): on CPUs
// with AMX-INT8 (Sapphire Rapids and later), tdpbusd multiplies a 16-row x 64-byte tile of A
// (uint8) by a 16 x 64-byte tile of B (int8, each row one depth group: 16 columns' 4 bytes, the
// packed panel's own layout) into a 16 x 16 tile of int32 sums, four products a lane summed in
// 32 bits with no intermediate saturation: exact for every input, like vpdpbusd, at about eight
// times its multiply-adds per cycle (1.5 T a second on one core of this project's Xeon,
// measured with independent tiles in registers).
//
// The tile: two 16-row tiles of A times two panels of B (four tiles of sums, tmm0-3; A in tmm4-5,
// B in tmm6-7), over the whole depth, 16 groups a step. Every tile is 16 rows of 64 bytes (one
// configuration, loaded at each call: the tile state is per thread and another library may
// have changed it); a last step of fewer groups multiplies copies padded with zeros (B's
// rows) and with whatever follows (A's bytes, against those zero rows). A last row tile of
// fewer than 16 rows is read ending at the block's last row (its first rows computed and
// stored twice, the same values), or, where the block has fewer than 16 rows, from a copy.
// The sums go through memory (tilestored) to the AVX-512 epilogue: the zero points' terms, and
// either int32 to C or the requantizing store of qgemm_avx512.h's assembly, written here with
// intrinsics.
//
// Only these functions are compiled with the AMX targets (the pragma below); they run only after
// CpuHasAmxInt8, which also asks Linux for the tiles' state (arch_prctl ARCH_REQ_XCOMP_PERM),
// once per process.

#if PRISM_QGEMM_AMX

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#pragma GCC push_options
#pragma GCC target("amx-tile,amx-int8")

// ldtilecfg's 64-byte operand (palette 1).
struct alignas(64) AmxTileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

// The store's operands of one pair of panels (32 columns from col), loaded once for all the
// rows: the columns inside C, the zero points' terms (the column terms as 16 int32 a panel,
// zero past n, which the kernel loads into the sum tiles as their first value), the
// multipliers and the constants.
struct AmxColumnPair {
  __mmask16 mask[2];
  __mmask32 byte_mask = 0;
  bool two = false;  // columns past the first 16
  bool terms = false, row_term = false;
  // Whether a product may leave int32 (some |multiplier| >= 0.5): then the requantization clamps
  // as floats; else the saturating packs to bytes clamp (|sum * multiplier| < 2^30).
  bool clamp = false;
  bool signed_out = false;
  alignas(64) int32_t term_row[32];
  __m512i zero[2];
  __m512 scale[2];
  __m512 low, high;
  __m512i zero_point, one;

  AmxColumnPair(const QgemmStore& store, int64_t col, int64_t cols) {
    const auto mask_of = [](int64_t width) {
      return width >= 16 ? static_cast<__mmask16>(0xffff)
                         : static_cast<__mmask16>((1u << width) - 1u);
    };
    mask[0] = mask_of(std::min<int64_t>(16, cols));
    two = cols > 16;
    mask[1] = two ? mask_of(cols - 16) : static_cast<__mmask16>(0);
    byte_mask = static_cast<__mmask32>(mask[0]) | (static_cast<__mmask32>(mask[1]) << 16);
    terms = store.column_term != nullptr;
    row_term = terms && store.row_sums != nullptr;
    const __m512 half = _mm512_set1_ps(0.5f);
    __mmask16 large = 0;
    for (int h = 0; h < 2; ++h) {
      _mm512_store_si512(term_row + 16 * h,
                         terms ? _mm512_maskz_loadu_epi32(mask[h], store.column_term + col + 16 * h)
                               : _mm512_setzero_si512());
      zero[h] = row_term ? _mm512_maskz_loadu_epi32(mask[h], store.column_zero + col + 16 * h)
                         : _mm512_setzero_si512();
      scale[h] = store.out8 != nullptr
                     ? _mm512_maskz_loadu_ps(mask[h], store.out_scale + col + 16 * h)
                     : _mm512_setzero_ps();
      large |= _mm512_cmp_ps_mask(_mm512_abs_ps(scale[h]), half, _CMP_NLT_UQ);
    }
    clamp = large != 0;
    const QgemmRequantizeConstants none;
    const QgemmRequantizeConstants& k = store.out8 != nullptr ? *store.out_constants : none;
    signed_out = k.low + static_cast<float>(k.zero_point) < 0.0f;
    low = _mm512_set1_ps(k.low);
    high = _mm512_set1_ps(k.high);
    zero_point = _mm512_set1_epi32(k.zero_point);
    one = _mm512_set1_epi32(1);
  }
};

// The requantization's operands of one pair of panels as values: AmxColumnPair's fields read
// through a reference would be read again after every byte store (a char store may alias them).
struct AmxRequantizeOperands {
  __m512 scale[2];
  __m512 low, high;
  __m512i zero_point, one;
  bool clamp;
};

// Half h of a row's sums requantized (qgemm_avx512.h's store: the product rounded toward zero,
// its last bit set when the fused remainder is not zero, i.e. rounded to odd, then half to even
// to an integer), plus the zero point; clamped as floats only where clamp says.
[[gnu::always_inline]] inline __m512i AmxRequantize16(__m512i value, const AmxRequantizeOperands& k,
                                                      int h) {
  const __m512 sum = _mm512_cvtepi32_ps(value);
  const __m512 truncated =
      _mm512_mul_round_ps(sum, k.scale[h], _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512 remainder = _mm512_fmsub_ps(sum, k.scale[h], truncated);
  const __mmask16 inexact = _mm512_cmp_ps_mask(remainder, _mm512_setzero_ps(), _CMP_NEQ_UQ);
  __m512 odd = _mm512_castsi512_ps(_mm512_mask_or_epi32(_mm512_castps_si512(truncated), inexact,
                                                        _mm512_castps_si512(truncated), k.one));
  if (k.clamp) odd = _mm512_min_ps(_mm512_max_ps(odd, k.low), k.high);
  return _mm512_add_epi32(_mm512_cvtps_epi32(odd), k.zero_point);
}

// Rows [0, rows) of `sums` (32 columns a row, the column terms in them) stored as rows row0.. of
// the block, columns col..: requantized to bytes (store.out8; both halves packed with signed
// saturation to int16, then to uint8 or int8, which is the clamp, one 32-byte store) or as
// int32 to C. Every operand the rows share is a local first (see AmxRequantizeOperands).
[[gnu::always_inline]] inline void AmxStoreTileRows(const int32_t* sums, int64_t rows, int64_t row0,
                                                    int64_t col, const AmxColumnPair& pair,
                                                    const QgemmStore& store, int32_t* c,
                                                    int64_t ldc) {
  const bool row_term = pair.row_term, two = pair.two;
  const int32_t* const row_sums = store.row_sums;
  const __m512i zero[2] = {pair.zero[0], pair.zero[1]};
  const auto subtract_row_term = [&](__m512i* value, int64_t row) {
    const __m512i row_sum = _mm512_set1_epi32(row_sums[row]);
    for (int h = 0; h < 2; ++h)
      value[h] = _mm512_sub_epi32(value[h], _mm512_mullo_epi32(zero[h], row_sum));
  };
  if (store.out8 == nullptr) {
    const bool accumulate = store.accumulate;
    const __mmask16 mask[2] = {pair.mask[0], pair.mask[1]};
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t row = row0 + r;
      __m512i value[2] = {_mm512_load_si512(sums + r * 32), _mm512_load_si512(sums + r * 32 + 16)};
      if (row_term) subtract_row_term(value, row);
      for (int h = 0; h < 2; ++h) {
        if (h == 1 && !two) break;
        int32_t* out = c + row * ldc + col + 16 * h;
        if (accumulate)
          value[h] = _mm512_add_epi32(value[h], _mm512_maskz_loadu_epi32(mask[h], out));
        _mm512_mask_storeu_epi32(out, mask[h], value[h]);
      }
    }
    return;
  }
  const AmxRequantizeOperands k{
      {pair.scale[0], pair.scale[1]}, pair.low, pair.high, pair.zero_point, pair.one, pair.clamp};
  const bool signed_out = pair.signed_out;
  const __mmask32 byte_mask = pair.byte_mask;
  uint8_t* out = store.out8 + row0 * store.out8_stride + col;
  const int64_t out_stride = store.out8_stride;
  // The packs keep lane order within 128 bits: dword 4q + i of the result holds the bytes of
  // half i's lane group q.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  for (int64_t r = 0; r < rows; ++r, out += out_stride) {
    __m512i value[2] = {_mm512_load_si512(sums + r * 32), _mm512_load_si512(sums + r * 32 + 16)};
    if (row_term) subtract_row_term(value, row0 + r);
    const __m512i first = AmxRequantize16(value[0], k, 0);
    const __m512i second = two ? AmxRequantize16(value[1], k, 1) : first;
    const __m512i words = _mm512_packs_epi32(first, second);
    const __m512i bytes =
        signed_out ? _mm512_packs_epi16(words, words) : _mm512_packus_epi16(words, words);
    _mm256_mask_storeu_epi8(out, byte_mask,
                            _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, bytes)));
  }
}

[[gnu::noinline]] void QgemmBlockAmx(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                                     int64_t lda, const int8_t* b, int64_t b_panel_stride,
                                     const QgemmStore& store, int32_t* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  AmxTileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytes_per_row[t] = 64;
    config.rows[t] = 16;
  }
  _tile_loadconfig(&config);
  constexpr int64_t kStepGroups = 16;  // depth groups a tile of A (64 bytes) spans
  const int64_t full_steps = groups / kStepGroups;
  const int64_t rest = groups % kStepGroups;
  const int64_t rest_offset = full_steps * kStepGroups * kQgemmDepthGroup;  // bytes into a row
  // A block of fewer than 16 rows: copied into 16 rows (the rest zero), `a_stride` apart.
  thread_local std::vector<uint8_t> few_rows;
  int64_t a_stride = lda;
  if (m < 16) {
    a_stride = (groups * kQgemmDepthGroup + 63) / 64 * 64;
    few_rows.assign(static_cast<size_t>(16 * a_stride), 0);
    for (int64_t r = 0; r < m; ++r)
      std::memcpy(few_rows.data() + r * a_stride, a + r * lda,
                  static_cast<size_t>(groups * kQgemmDepthGroup));
    a = few_rows.data();
  }
  const int64_t row_tiles = (std::max<int64_t>(m, 16) + 15) / 16;
  // Tile t's first row: the last one ends at the block's last row.
  const auto tile_row = [&](int64_t t) { return std::min(t * 16, std::max<int64_t>(m, 16) - 16); };
  alignas(64) int32_t sums[32 * 32];
  alignas(64) int8_t b_rest[2][16 * 64];
  alignas(64) uint8_t a_rest[2][16 * 64];
  const __mmask64 rest_bytes = rest == 0 ? 0 : (~__mmask64{0}) >> (64 - rest * kQgemmDepthGroup);
  const int64_t panels = (n + 15) / 16;
  for (int64_t p = 0; p < panels; p += 2) {
    const bool two_panels = p + 1 < panels;
    const int8_t* b0 = b + p * b_panel_stride;
    const int8_t* b1 = b0 + b_panel_stride;
    if (rest != 0) {  // the last step's groups of both panels, padded with zero rows
      std::memset(b_rest, 0, sizeof b_rest);
      std::memcpy(b_rest[0], b0 + rest_offset * 16, static_cast<size_t>(rest * 64));
      if (two_panels) std::memcpy(b_rest[1], b1 + rest_offset * 16, static_cast<size_t>(rest * 64));
    }
    const int64_t col = p * 16;
    const AmxColumnPair pair(store, col, std::min<int64_t>(32, n - col));
    // A depth of one step: B's tiles stay loaded for all the row tiles (a tile has no renamed
    // copies: each load would wait for the products that read the one before).
    const bool one_step = full_steps + (rest != 0 ? 1 : 0) == 1;
    if (one_step) {
      _tile_loadd(6, rest != 0 ? b_rest[0] : b0, 64);
      if (two_panels) _tile_loadd(7, rest != 0 ? b_rest[1] : b1, 64);
      // One row tile at a time, double-buffered: tile t + 1's products (sums in tiles 0-1 or
      // 2-3, A in 4 or 5) are issued before tile t's sums are stored and requantized, so that the
      // tile unit multiplies while the vector units requantize (a small depth's store is most of
      // its time: mobilenetv2_qdq's 1x1 convolutions of 16 to 32 channels).
      const auto issue = [&](int64_t t) {
        const uint8_t* rows = a + tile_row(t) * a_stride;
        int64_t stride = a_stride;
        if (rest != 0) {
          uint8_t* copy = a_rest[t % 2];
          for (int64_t r = 0; r < 16; ++r)
            _mm512_store_si512(copy + r * 64,
                               _mm512_maskz_loadu_epi8(rest_bytes, rows + r * a_stride));
          rows = copy;
          stride = 64;
        }
        if (t % 2 == 0) {
          _tile_loadd(0, pair.term_row, 0);
          _tile_loadd(4, rows, stride);
          _tile_dpbusd(0, 4, 6);
          if (two_panels) {
            _tile_loadd(1, pair.term_row + 16, 0);
            _tile_dpbusd(1, 4, 7);
          }
        } else {
          _tile_loadd(2, pair.term_row, 0);
          _tile_loadd(5, rows, stride);
          _tile_dpbusd(2, 5, 6);
          if (two_panels) {
            _tile_loadd(3, pair.term_row + 16, 0);
            _tile_dpbusd(3, 5, 7);
          }
        }
      };
      issue(0);
      for (int64_t t = 0; t < row_tiles; ++t) {
        if (t + 1 < row_tiles) issue(t + 1);
        if (t % 2 == 0) {
          _tile_stored(0, sums, 128);
          if (two_panels) _tile_stored(1, sums + 16, 128);
        } else {
          _tile_stored(2, sums, 128);
          if (two_panels) _tile_stored(3, sums + 16, 128);
        }
        const int64_t row = tile_row(t);
        AmxStoreTileRows(sums, std::min<int64_t>(16, m - row), row, col, pair, store, c, ldc);
      }
      continue;
    }
    for (int64_t t = 0; t < row_tiles; t += 2) {
      const bool two_tiles = t + 1 < row_tiles;
      const int64_t row0 = tile_row(t), row1 = two_tiles ? tile_row(t + 1) : 0;
      const uint8_t* a0 = a + row0 * a_stride;
      const uint8_t* a1 = a + row1 * a_stride;
      // The sums start at the column terms (every row the same: a stride of 0).
      _tile_loadd(0, pair.term_row, 0);
      _tile_loadd(1, pair.term_row + 16, 0);
      _tile_loadd(2, pair.term_row, 0);
      _tile_loadd(3, pair.term_row + 16, 0);
      for (int64_t s = 0; s < full_steps; ++s) {
        const int64_t at = s * 64;
        _tile_loadd(4, a0 + at, a_stride);
        if (!one_step) _tile_loadd(6, b0 + at * 16, 64);
        _tile_dpbusd(0, 4, 6);
        if (two_panels) {
          if (!one_step) _tile_loadd(7, b1 + at * 16, 64);
          _tile_dpbusd(1, 4, 7);
        }
        if (two_tiles) {
          _tile_loadd(5, a1 + at, a_stride);
          _tile_dpbusd(2, 5, 6);
          if (two_panels) _tile_dpbusd(3, 5, 7);
        }
      }
      if (rest != 0) {
        for (int64_t r = 0; r < 16; ++r) {
          _mm512_store_si512(a_rest[0] + r * 64,
                             _mm512_maskz_loadu_epi8(rest_bytes, a0 + r * a_stride + rest_offset));
          if (two_tiles)
            _mm512_store_si512(
                a_rest[1] + r * 64,
                _mm512_maskz_loadu_epi8(rest_bytes, a1 + r * a_stride + rest_offset));
        }
        _tile_loadd(4, a_rest[0], 64);
        if (!one_step) _tile_loadd(6, b_rest[0], 64);
        _tile_dpbusd(0, 4, 6);
        if (two_panels) {
          if (!one_step) _tile_loadd(7, b_rest[1], 64);
          _tile_dpbusd(1, 4, 7);
        }
        if (two_tiles) {
          _tile_loadd(5, a_rest[1], 64);
          _tile_dpbusd(2, 5, 6);
          if (two_panels) _tile_dpbusd(3, 5, 7);
        }
      }
      _tile_stored(0, sums, 128);
      _tile_stored(1, sums + 16, 128);
      _tile_stored(2, sums + 16 * 32, 128);
      _tile_stored(3, sums + 16 * 32 + 16, 128);
      AmxStoreTileRows(sums, std::min<int64_t>(16, m - row0), row0, col, pair, store, c, ldc);
      if (two_tiles)
        AmxStoreTileRows(sums + 16 * 32, std::min<int64_t>(16, m - row1), row1, col, pair, store, c,
                         ldc);
    }
  }
}

#pragma GCC pop_options

// AMX-INT8 on this CPU (CPUID 7: EDX bits 24 and 25), its tile state enabled by the OS (XCR0 bits
// 17 and 18), and Linux's leave for this process to use it (asked once).
bool CpuHasAmxInt8() {
  static const bool usable = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    if ((edx & (1u << 24)) == 0 || (edx & (1u << 25)) == 0) return false;
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & (3u << 17)) != (3u << 17)) return false;
    constexpr long kArchRequestXcompPermission = 0x1023;
    constexpr long kXfeatureTileData = 18;
    return syscall(SYS_arch_prctl, kArchRequestXcompPermission, kXfeatureTileData) == 0;
  }();
  return usable;
}

#endif  // PRISM_QGEMM_AMX

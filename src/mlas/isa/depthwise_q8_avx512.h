// The AVX-512 unit's 8-bit channels-last depthwise kernel for CPUs with AVX-512 VNNI
// (IsaKernels::depthwise_nhwc_q8_quads; included by isa_kernels_impl.h there only). Per block of
// 64 channels and pixel, four taps at a time: the four taps' 64 input bytes are interleaved
// (vpunpck{l,h}bw, then vpunpck{l,h}wd) into four vectors whose dword holds one channel's four
// bytes, and one vpdpbusd per vector multiplies them by the channel's four int8 weights (u8 x s8,
// four products summed in int32: exact). A last group of one tap spreads its bytes with vpshufb
// instead. The ymm kernel (DepthwiseNhwcQ8) widens every byte to int16 and multiplies pairs of
// taps: about twice the shuffles for half the channels a vector, and this machine's zmm
// shuffles run on one port. The sums are requantized as RequantizeLanesAvx2 does, in float,
// and two saturating packs put the four vectors back in channel order.
//
// An int8 input is read with its sign bit flipped (x + 128, as uint8); the packed terms hold the
// zero point moved with it (PackDepthwiseQ8Quads). Only this function is compiled with VNNI (the
// pragma below); it runs after CpuHasAvx512Vnni.

#if PRISM_QGEMM_VNNI

#pragma GCC push_options
#pragma GCC target("avx512vnni")

// vpshufb's controls for a last group of one tap: vector j's dword i takes byte 4j + i of its
// 128-bit lane (the channel's value), its other bytes zero; the same in every lane. Made once at
// compile time (the kernel runs once per output row and once per edge pixel).
struct DepthwiseQ8SpreadTable {
  alignas(64) int8_t control[4][64];
};
constexpr DepthwiseQ8SpreadTable MakeDepthwiseQ8Spread() {
  DepthwiseQ8SpreadTable table{};
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 64; ++i)
      table.control[j][i] = i % 4 == 0 ? static_cast<int8_t>(4 * j + i % 16 / 4) : int8_t{-1};
  return table;
}
alignas(64) constexpr DepthwiseQ8SpreadTable kDepthwiseQ8SpreadTable = MakeDepthwiseQ8Spread();
constexpr const int8_t (&kDepthwiseQ8Spread)[4][64] = kDepthwiseQ8SpreadTable.control;

template <bool kSigned>
void DepthwiseNhwcQ8QuadsOf(const DepthwiseQ8Row& r) {
  const int64_t taps = r.kernel_h * r.kernel_w, quads = (taps + 3) / 4;
  // The last group's taps past the last read the last tap's row again (their weights are zero).
  const uint8_t* at[kDepthwiseQ8MaxTaps + 3];
  for (int64_t t = 0; t < taps; ++t)
    at[t] = r.rows[t / r.kernel_w] + r.first + (t % r.kernel_w) * r.dilation;
  for (int64_t t = taps; t < quads * 4; ++t) at[t] = at[taps - 1];
  // A last group of one tap: vpshufb puts channel 16k + 4j + i's byte into dword i of vector j
  // (kDepthwiseQ8Spread).
  const bool single_last = taps % 4 == 1;
  const int64_t full_quads = single_last ? quads - 1 : quads;
  const RequantizeRangeAvx2 range = RequantizeRangeAvx2::For(r.y_zero, r.y_signed);
  const __m512 low = _mm512_set1_ps(range.low_bound), high = _mm512_set1_ps(range.high_bound);
  const __m512 shift = _mm512_set1_ps(kRequantizeShift);
  const __m512i offset = _mm512_set1_epi32(range.offset_bits);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const auto load = [&](const uint8_t* from, __mmask64 mask) {
    const __m512i bytes = _mm512_maskz_loadu_epi8(mask, from);
    return kSigned ? _mm512_xor_si512(bytes, flip) : bytes;
  };
  const auto requantize = [&](__m512i sums, __m512 scale) {
    const __m512 shifted = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), scale, shift);
    return _mm512_sub_epi32(_mm512_castps_si512(_mm512_min_ps(_mm512_max_ps(shifted, low), high)),
                            offset);
  };
  const int64_t blocks = (r.channels + kDepthwiseQ8QuadBlock - 1) / kDepthwiseQ8QuadBlock;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t c = b * kDepthwiseQ8QuadBlock;
    const int64_t valid = std::min<int64_t>(kDepthwiseQ8QuadBlock, r.channels - c);
    const __mmask64 mask = valid == 64 ? ~0ULL : (1ULL << valid) - 1;
    __m512i terms[4];
    __m512 scales[4];
    for (int j = 0; j < 4; ++j) {
      terms[j] = _mm512_load_si512(r.terms + (b * 4 + j) * 16);
      scales[j] = _mm512_load_ps(r.multipliers + (b * 4 + j) * 16);
    }
    const int8_t* block_weights = r.quad_weights + b * quads * 4 * 64;
    for (int64_t pixel = 0; pixel < r.pixels; ++pixel) {
      const int64_t from = pixel * r.step + c;
      __m512i sums[4] = {terms[0], terms[1], terms[2], terms[3]};
      const int8_t* w = block_weights;
      for (int64_t q = 0; q < full_quads; ++q, w += 4 * 64) {
        const __m512i x0 = load(at[4 * q] + from, mask), x1 = load(at[4 * q + 1] + from, mask);
        const __m512i x2 = load(at[4 * q + 2] + from, mask), x3 = load(at[4 * q + 3] + from, mask);
        const __m512i low01 = _mm512_unpacklo_epi8(x0, x1), high01 = _mm512_unpackhi_epi8(x0, x1);
        const __m512i low23 = _mm512_unpacklo_epi8(x2, x3), high23 = _mm512_unpackhi_epi8(x2, x3);
        sums[0] =
            _mm512_dpbusd_epi32(sums[0], _mm512_unpacklo_epi16(low01, low23), _mm512_load_si512(w));
        sums[1] = _mm512_dpbusd_epi32(sums[1], _mm512_unpackhi_epi16(low01, low23),
                                      _mm512_load_si512(w + 64));
        sums[2] = _mm512_dpbusd_epi32(sums[2], _mm512_unpacklo_epi16(high01, high23),
                                      _mm512_load_si512(w + 128));
        sums[3] = _mm512_dpbusd_epi32(sums[3], _mm512_unpackhi_epi16(high01, high23),
                                      _mm512_load_si512(w + 192));
      }
      if (single_last) {
        const __m512i x = load(at[4 * full_quads] + from, mask);
        for (int j = 0; j < 4; ++j)
          sums[j] = _mm512_dpbusd_epi32(
              sums[j], _mm512_shuffle_epi8(x, _mm512_load_si512(kDepthwiseQ8Spread[j])),
              _mm512_load_si512(w + 64 * j));
      }
      // Vectors j = 0, 1 hold channels 16k + {0-3, 4-7} of lane k, j = 2, 3 16k + {8-11, 12-15}:
      // the dword packs give each lane channels 16k + 0-7 and 8-15 as words, the word pack 16k +
      // 0-15 as bytes (the values already lie in the output's range).
      const __m512i words01 =
          _mm512_packs_epi32(requantize(sums[0], scales[0]), requantize(sums[1], scales[1]));
      const __m512i words23 =
          _mm512_packs_epi32(requantize(sums[2], scales[2]), requantize(sums[3], scales[3]));
      const __m512i bytes =
          r.y_signed ? _mm512_packs_epi16(words01, words23) : _mm512_packus_epi16(words01, words23);
      _mm512_mask_storeu_epi8(r.out + pixel * r.channels + c, mask, bytes);
    }
  }
}

void DepthwiseNhwcQ8Quads(const DepthwiseQ8Row& row) {
  row.x_signed ? DepthwiseNhwcQ8QuadsOf<true>(row) : DepthwiseNhwcQ8QuadsOf<false>(row);
}

#pragma GCC pop_options

#endif  // PRISM_QGEMM_VNNI

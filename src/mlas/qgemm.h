// Prism's int8 GEMM: C (int32) = sum_p (A[i, p] - a_zero) * (B[p, j] - b_zero[j]), row-major,
// A uint8 or int8 (activations, one zero point), B int8 or uint8 (weights, one zero point or one
// per column), on the kernels of one instruction-set level (isa_kernels.h), split over a pool.
//
// Every type pair is computed as u8 x s8: an int8 A is shifted by +128 (a ^ 0x80) and its zero
// point with it, a uint8 B by -128 and its zero point with it, which leaves each difference
// (a - a_zero), (b - b_zero) unchanged. The kernels sum raw products a * b; the zero points are
// added as they store the last depth block's sums (isa_kernels.h's QgemmStore), from A's row
// sums (taken while packing A, only when a B zero point is nonzero) and B's column sums (taken
// at packing B):
//   C = sum a b - b_zero[j] rowsum(a)[i] - a_zero colsum(b)[j] + k a_zero b_zero[j],
// all in 32-bit wrapping arithmetic (the exact sum modulo 2^32, which is the exact sum whenever
// it fits in int32, as MatMulInteger allows).
//
// Packing: B in panels of kQgemmPanelCols columns over its whole depth, the depth in groups of
// kQgemmDepthGroup (zero-padded): for each group, each column's 4 bytes in a row (64 bytes a
// group), which is the order of vpdpbusd (VNNI) and of vpmaddubsw + vpmaddwd. A is packed per
// call into panels of the level's qgemm_tile_rows rows (each group: each row's 4 bytes).
//
// Kernels per level (isa_kernels.h): portable, vpmaddubsw (AVX2, and AVX-512 without VNNI), and
// vpdpbusd where the CPU has VNNI (AVX-512 VNNI on the AVX-512 level, AVX-VNNI on the AVX2 one),
// which replaces the vpmaddubsw kernel.
//
// Input-range contract of the vpmaddubsw kernels: vpmaddubsw adds two adjacent u8 x s8 products
// into a saturating int16, which is exact only while
//   255 * (max(b0, 0) + max(b1, 0)) <= 32767 and 255 * (min(b0, 0) + min(b1, 0)) >= -32768,
// i.e. the positive parts of each pair of weights sum to at most 128 and the negative ones to
// at least -128 (always true for 7-bit weights, |b| <= 64: onnxruntime's reduce_range). The
// packer checks every pair of B; when one breaks it and the kernels that will read the packing
// saturate, it stores B wide: each weight as an int16, and the product widens A to int16 as it
// packs it, so that the level's qgemm_block multiplies pairs with vpmaddwd (two int16 products
// summed into an int32 lane: exact for every input). On Zen 3 that runs about 0.85 times the
// multiply-adds per cycle of the vpmaddubsw path (measured with independent chains in registers:
// vpmaddwd + vpaddd 16 products in 0.62 cycles, vpmaddubsw + vpmaddwd + vpaddd 32 in 1.05); the
// earlier exact form, B split into two 7-bit halves summed against the same A, ran half of it.
// The portable kernel reads both forms and never saturates; VNNI's vpdpbusd (four products summed
// in 32 bits) never saturates, and a wide B is never given to it: the product runs qgemm_block.
//
// Mixed form: where few (panel, depth group) blocks break the bound (at most 0.45 to 0.75 of
// them, fewer panels allowing more: qgemm.cc's PackWide; in a trained or quantize_static model's
// weights typically 1-8%: a per-channel scale puts a 127 in
// every channel, but rarely two large weights of one sign in a pair), B is packed narrow and each
// such block is split in two narrow halves: in its place each pair that breaks the bound keeps
// w - trunc(w / 2) of its weights, and the rest, trunc(w / 2), goes to a fix-up beside the panel
// (its depth group and 64 bytes, the narrow layout). Both halves keep every pair within the bound
// (|half| <= 64), so the level's qgemm_block runs its vpmaddubsw tile over the panel and then
// each fix-up as one more depth group read from A's group: the vpmaddubsw rate, exact for every
// input, at the cost of one group a fix-up. Otherwise (more blocks outside) B is wide. (The
// fix-ups were the wide layout once, with the block zeroed: vpmaddwd on A widened in registers,
// about twice a group's work; 5% of a quantize_static resnet50's instructions.)
//
// Paired groups (narrow or mixed B for saturating kernels): vpmaddubsw's int16 sums of two depth
// groups can be added before vpmaddwd widens them when, for every column and both depth pairs of
// the group, the positive parts of the four weights (two from each group) sum to at most 128 and
// the negative ones to at least -128 (255 x 128 fits in int16): 3 multiplies instead of 4 per
// column vector and pair of groups. Which groups pair is chosen per (panel, depth block) at
// packing (PackedQuantB::GroupOrder), within windows of 32 consecutive groups: the panel's
// groups are stored reordered, the pairs first (each two adjacent stored groups, window after
// window), then the single groups, and the kernels read A's group through the order table. In a
// trained model's weights about two thirds of the groups pair (a quantize_static resnet50,
// weighted by multiply-adds); for the depth loop on Zen 3 that is about 10% fewer cycles for a
// paired group with A and B in L1 (the loop is bound by the vector pipes, not only the
// multiplier), and nothing where the product waits on L2 (deep 3x3 convolutions at 14x14).
//
// Wide layout: depth group g of a panel is 128 bytes, the pair of depths (4g, 4g + 1) of its 16
// columns first (column j's two int16 at j * 4 bytes), then the pair (4g + 2, 4g + 3); a wide A
// panel holds in each group each row's 4 values as int16 (8 bytes a row).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace prism {
class ThreadPool;
}

namespace prism::mlas {

struct IsaKernels;

constexpr int64_t kQgemmPanelCols = 16;
constexpr int64_t kQgemmDepthGroup = 4;
// Bytes of one depth group of one panel (64), doubled in a wide packing (int16 weights).
constexpr int64_t kQgemmGroupBytes = kQgemmPanelCols * kQgemmDepthGroup;

// B (k x n, int8 or uint8) packed for the int8 GEMM, with its column sums; the same format on
// every level, wide or not (see above).
class PackedQuantB {
 public:
  // Packs B stored k x n (row p at b + p * ldb, bytes), int8 when b_signed else uint8.
  // widen_if_needed: whether the kernels that will read it saturate (QgemmPairsSaturate below);
  // only then is a B outside the pair bound stored wide.
  static PackedQuantB Pack(int64_t k, int64_t n, const void* b, int64_t ldb, bool b_signed,
                           bool widen_if_needed);

  // Writes B back as stored (the inverse of Pack with the same ldb).
  void Unpack(void* b, int64_t ldb) const;

  int64_t K() const { return k_; }
  int64_t N() const { return n_; }
  bool Signed() const { return signed_; }
  // Whether every pair of weights keeps vpmaddubsw exact (in the shifted s8 values).
  bool WithinPairBound() const { return within_pair_bound_; }
  // Whether B is stored as int16 (the exact form for saturating kernels).
  bool Wide() const { return wide_; }
  // Whether B is stored mixed: narrow, with the few blocks outside the bound in fix-ups.
  bool Mixed() const { return !fixup_begin_.empty(); }
  // A mixed B's fix-ups: panel p's are [FixupBegin()[p], FixupBegin()[p + 1]), each a depth
  // group (FixupGroup(), ascending within a panel) and the rest of that group's 16 columns in the
  // narrow layout (64 bytes at FixupData() + 64 f). nullptr when not mixed.
  const int32_t* FixupBegin() const { return Mixed() ? fixup_begin_.data() : nullptr; }
  const int32_t* FixupGroup() const { return fixup_group_.data(); }
  const int8_t* FixupData() const { return fixup_data_.data(); }
  // Paired groups (see above): panel p's stored group s (s counted from its depth block's first
  // group, blocks of QgemmDepthBlockGroups()) multiplies A's group GroupOrder()[p * Groups() +
  // block start + s] (also counted from the block's first); the block's first
  // PairedGroups()[p * DepthBlocks() + block] stored groups are pairs. nullptr: stored in depth
  // order, no pairs (wide, or packed for kernels that do not saturate).
  const int32_t* GroupOrder() const { return group_order_.empty() ? nullptr : group_order_.data(); }
  const int32_t* PairedGroups() const { return paired_groups_.data(); }
  int64_t DepthBlocks() const;
  // How many of the stored groups are in pairs (the tests check it).
  int64_t PairedGroupCount() const;
  int64_t Groups() const { return (k_ + kQgemmDepthGroup - 1) / kQgemmDepthGroup; }
  int64_t GroupBytes() const { return wide_ ? 2 * kQgemmGroupBytes : kQgemmGroupBytes; }
  int64_t PanelStride() const { return Groups() * GroupBytes(); }
  const int8_t* Data() const { return data_.get(); }
  // Sum over the depth of each column of the shifted (s8) B, padded with zeros to whole panels.
  const int32_t* ColumnSums() const { return column_sums_.data(); }
  size_t Bytes() const;

 private:
  struct Free {
    void operator()(int8_t* p) const;
  };
  int64_t k_ = 0;
  int64_t n_ = 0;
  bool signed_ = true;
  bool within_pair_bound_ = true;
  bool wide_ = false;
  std::unique_ptr<int8_t, Free> data_;
  std::vector<int32_t> column_sums_;
  std::vector<int32_t> fixup_begin_;
  std::vector<int32_t> fixup_group_;
  std::vector<int8_t> fixup_data_;
  std::vector<int32_t> group_order_;
  std::vector<int32_t> paired_groups_;
};

// Depth groups the product multiplies at once (its depth blocks; paired groups never cross one).
int64_t QgemmDepthBlockGroups();

// The zero points, as the operands' own values (uint8 0..255 or int8 -128..127, widened).
struct QgemmZeroPoints {
  int32_t a = 0;
  // nullptr: b_scalar for every column; else n values, one per column.
  const int32_t* b_per_column = nullptr;
  int32_t b_scalar = 0;
};

// Whether a product on these kernels runs their VNNI kernel (IsaKernels::qgemm_block_vnni: the
// level has one and this CPU the extension).
bool QgemmUsesVnni(const IsaKernels& kernels);
// Whether a product of a narrow B on these kernels runs their AMX kernel
// (IsaKernels::qgemm_amx: the level has one, this CPU AMX-INT8 and the OS its tile state).
bool QgemmUsesAmx(const IsaKernels& kernels);
// Whether B must be packed wide for these kernels (PackedQuantB::Pack's widen_if_needed): their
// kernel saturates (vpmaddubsw) and is not replaced by a VNNI one.
bool QgemmPairsSaturate(const IsaKernels& kernels);

// C (m x n int32, ldc) = (A - a_zero)(B - b_zero) for A stored m x k (lda, bytes; int8 when
// a_signed else uint8) and B packed (wide where QgemmPairsSaturate(kernels) asks: a B outside
// the pair bound packed narrow for other kernels is rejected with std::invalid_argument).
// pool: C's blocks split over it (nullptr: the caller alone).
// tile_done (may be empty): called once for each finished tile of C, rows [row, row + rows) and
// columns [col, col + cols), on the thread that computed it, right after its last depth block
// was stored (the tile still in cache): an output stage such as a requantization reads it there
// instead of in a pass over the whole of C. Tiles never overlap; calls may run concurrently.
// source (may be nullptr or empty): A's rows come from it instead of `a` (then unread): called
// with rows [begin, end), a buffer and a row stride (k rounded up to whole depth groups of 4),
// it writes each row's k bytes there (row r at (r - begin) * row_stride; the bytes past k are
// the product's), right before they are packed, on the thread that packs them (a convolution's
// lowering, done a row block at a time inside the product's own tasks instead of in a pass over
// the whole lowered matrix first). Calls may run concurrently.
using QgemmTileDone = std::function<void(int64_t row, int64_t rows, int64_t col, int64_t cols)>;
using QgemmRowSource =
    std::function<void(int64_t begin, int64_t end, uint8_t* rows, int64_t row_stride)>;
void QgemmPackedB(const IsaKernels& kernels, int64_t m, const void* a, int64_t lda, bool a_signed,
                  const PackedQuantB& b, const QgemmZeroPoints& zero_points, int32_t* c,
                  int64_t ldc, ThreadPool* pool, const QgemmTileDone& tile_done = {},
                  const QgemmRowSource* source = nullptr);

// The 8-bit output stage of QgemmPackedBRequantize: out[i * out_stride + j] =
// clamp(round_half_even(double(C[i, j] + bias[j]) * multipliers[j]) + zero_point) to int8
// (to_int8) or uint8, the sum wrapping in 32 bits (the int8 convolution's requantization; bias
// may be nullptr).
struct QgemmRequantize {
  const float* multipliers = nullptr;
  const int32_t* bias = nullptr;
  int32_t zero_point = 0;
  bool to_int8 = false;
  uint8_t* out = nullptr;
  int64_t out_stride = 0;
};

// Whether QgemmPackedBRequantize runs on these kernels for this B and these n multipliers: the
// kernel that multiplies B requantizes in its store (the VNNI one, for a narrow B where the CPU
// has VNNI: IsaKernels::qgemm_vnni_requantizes; else qgemm_block: qgemm_block_requantizes), B's
// depth is one cache block, and every multiplier is finite with |multiplier| >= 2^-14 (where the
// single-precision steps are exact; qgemm_avx512.h, isa_kernels_impl.h).
bool QgemmCanRequantize(const IsaKernels& kernels, const PackedQuantB& b, const float* multipliers);

// The product with its 8-bit output stage run in the kernel's store, on the tile in registers:
// C is never written. Only where QgemmCanRequantize says so (else std::invalid_argument).
void QgemmPackedBRequantize(const IsaKernels& kernels, int64_t m, const void* a, int64_t lda,
                            bool a_signed, const PackedQuantB& b,
                            const QgemmZeroPoints& zero_points, const QgemmRequantize& output,
                            ThreadPool* pool, const QgemmRowSource* source = nullptr);

// The same with the active level's kernels, B packed for them.
void Qgemm(int64_t m, const void* a, int64_t lda, bool a_signed, const PackedQuantB& b,
           const QgemmZeroPoints& zero_points, int32_t* c, int64_t ldc, ThreadPool* pool = nullptr);

}  // namespace prism::mlas

// SGEMM microbenchmarks (Google Benchmark): Prism's SGEMM (mlas/sgemm.h, the active ISA level)
// beside oneDNN's (dnnl_sgemm and, for the batched shapes, the matmul primitive) in the same
// binary, at 1 and 2 threads, reporting GFLOP/s and the percentage of the machine's FP32 peak
// measured by the repo's probe (ProbeFmaPeakGflops: independent multiply-add chains in
// registers, run just before each benchmark on as many threads as the benchmark uses; its summed
// rate is the `peak` column). Square sizes 64-2048 (and 1000, 2000), bert_base's MatMul shapes (M =
// 128 tokens) and one token's FFN product (M = 1: the matrix-vector path). The int8 GEMM
// (mlas/qgemm.h: uint8 A with a zero point times int8 B prepacked, int32 C) at 1024^3 and
// bert_base's shapes, reporting GOP/s (a multiply-add counts two) beside the SGEMM's GFLOP/s at the
// same size, and oneDNN's u8 x s8 -> s32 matmul primitive (weights in its own prepacked layout); at
// 1024^3 also with 7-bit weights (int8/prism_7bit: no wide packing on AVX2), and, on CPUs with
// AVX-512 VNNI, an int8 peak probe (int8_peak_probe/avx512_vnni: independent vpdpbusd chains; on
// AVX2 int8_peak_probe/avx2_maddubs and avx2_madd_wide, the narrow and wide kernels' steps,
// GOP/s).
//
//   build/prism_gemm_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// oneDNN picks its instruction set itself (AVX-512 where the CPU has it); ONEDNN_MAX_CPU_ISA=AVX2
// in the environment caps it at Prism's level (see benchmarks/RESULTS.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"
#include "mlas/packed_gemm.h"
#include "mlas/qgemm.h"
#include "mlas/sgemm.h"

#if defined(PRISM_BENCH_WITH_DNNL)
#include <omp.h>

#include <dnnl.h>
#include <dnnl.hpp>
#endif

namespace {

using prism::ThreadPool;
namespace mlas = prism::mlas;

double PeakGflops() {
  static const double peak = mlas::ProbeFmaPeakGflops(mlas::ActiveKernels(), 0.5);
  return peak;
}

#if defined(__x86_64__)
// The machine's AVX-512 peak, for libraries that use it (oneDNN does where the CPU has it): the
// same probe with 512-bit registers, compiled for AVX-512 here only and run only on CPUs that
// have it. 0 elsewhere.
__attribute__((target("avx512f"))) int64_t Avx512FmaProbe(int64_t iterations) {
#define PRISM_ZMM_FMA(r) "vfmadd231ps %%zmm12, %%zmm13, %%zmm" #r "\n\t"
#define PRISM_ZMM_ROUND \
  PRISM_ZMM_FMA(0)      \
  PRISM_ZMM_FMA(1)      \
  PRISM_ZMM_FMA(2)      \
  PRISM_ZMM_FMA(3)      \
  PRISM_ZMM_FMA(4)      \
  PRISM_ZMM_FMA(5)      \
  PRISM_ZMM_FMA(6)      \
  PRISM_ZMM_FMA(7) PRISM_ZMM_FMA(8) PRISM_ZMM_FMA(9) PRISM_ZMM_FMA(10) PRISM_ZMM_FMA(11)
  int64_t count = iterations;
  __asm__ volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
      "vpxord %%zmm2, %%zmm2, %%zmm2\n\t vpxord %%zmm3, %%zmm3, %%zmm3\n\t"
      "vpxord %%zmm4, %%zmm4, %%zmm4\n\t vpxord %%zmm5, %%zmm5, %%zmm5\n\t"
      "vpxord %%zmm6, %%zmm6, %%zmm6\n\t vpxord %%zmm7, %%zmm7, %%zmm7\n\t"
      "vpxord %%zmm8, %%zmm8, %%zmm8\n\t vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "1:\n\t" PRISM_ZMM_ROUND PRISM_ZMM_ROUND "dec %[count]\n\t jnz 1b\n\t vzeroupper\n\t"
      : [count] "+r"(count)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13");
#undef PRISM_ZMM_ROUND
#undef PRISM_ZMM_FMA
  return iterations * 24 * 32;
}
#endif

#if defined(__x86_64__)
// The machine's int8 peak where the CPU has AVX-512 VNNI: 24 independent vpdpbusd chains (64
// u8 x s8 multiply-adds each, counted as 128 operations), the int8 GEMM's instruction.
__attribute__((target("avx512f,avx512vnni"))) int64_t Avx512VnniProbe(int64_t iterations) {
#define PRISM_VNNI_DOT(r) "vpdpbusd %%zmm24, %%zmm25, %%zmm" #r "\n\t"
  int64_t count = iterations;
  __asm__ volatile(
      "vpxord %%zmm24, %%zmm24, %%zmm24\n\t vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
      "1:\n\t" PRISM_VNNI_DOT(0) PRISM_VNNI_DOT(1) PRISM_VNNI_DOT(2) PRISM_VNNI_DOT(3)
          PRISM_VNNI_DOT(4) PRISM_VNNI_DOT(5) PRISM_VNNI_DOT(6) PRISM_VNNI_DOT(7) PRISM_VNNI_DOT(8)
              PRISM_VNNI_DOT(9) PRISM_VNNI_DOT(10) PRISM_VNNI_DOT(11) PRISM_VNNI_DOT(12)
                  PRISM_VNNI_DOT(13) PRISM_VNNI_DOT(14) PRISM_VNNI_DOT(15) PRISM_VNNI_DOT(16)
                      PRISM_VNNI_DOT(17) PRISM_VNNI_DOT(18) PRISM_VNNI_DOT(19) PRISM_VNNI_DOT(20)
                          PRISM_VNNI_DOT(21) PRISM_VNNI_DOT(22)
                              PRISM_VNNI_DOT(23) "dec %[count]\n\t jnz 1b\n\t vzeroupper\n\t"
      : [count] "+r"(count)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
        "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25");
#undef PRISM_VNNI_DOT
  return iterations * 24 * 128;
}
#endif

#if defined(__x86_64__)
// AVX2's two int8 steps (mlas/qgemm.h), 12 independent chains each: vpmaddubsw + vpmaddwd with
// ones + vpaddd (32 u8 x s8 multiply-adds, 64 operations: the narrow kernel's step, exact within
// the pair bound) or vpmaddwd + vpaddd (16 int16 multiply-adds, 32 operations: the wide kernel's
// step, exact for every input).
__attribute__((target("avx2"))) int64_t Avx2Int8Probe(int64_t iterations, bool wide) {
#define PRISM_NARROW_STEP(r)                 \
  "vpmaddubsw %%ymm13, %%ymm12, %%ymm15\n\t" \
  "vpmaddwd %%ymm14, %%ymm15, %%ymm15\n\t"   \
  "vpaddd %%ymm15, %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_WIDE_STEP(r)                 \
  "vpmaddwd %%ymm13, %%ymm12, %%ymm15\n\t" \
  "vpaddd %%ymm15, %%ymm" #r ", %%ymm" #r "\n\t"
#define PRISM_TWELVE(STEP) \
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
  int64_t count = iterations;
  if (wide)
    __asm__ volatile(
        "vpcmpeqw %%ymm12, %%ymm12, %%ymm12\n\t vmovdqa %%ymm12, %%ymm13\n\t"
        "1:\n\t" PRISM_TWELVE(PRISM_WIDE_STEP) "dec %[count]\n\t jnz 1b\n\t vzeroupper\n\t"
        : [count] "+r"(count)
        :
        : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "xmm15");
  else
    __asm__ volatile(
        "vpcmpeqw %%ymm14, %%ymm14, %%ymm14\n\t vpsrlw $15, %%ymm14, %%ymm14\n\t"
        "vmovdqa %%ymm14, %%ymm12\n\t vmovdqa %%ymm14, %%ymm13\n\t"
        "1:\n\t" PRISM_TWELVE(PRISM_NARROW_STEP) "dec %[count]\n\t jnz 1b\n\t vzeroupper\n\t"
        : [count] "+r"(count)
        :
        : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#undef PRISM_TWELVE
#undef PRISM_WIDE_STEP
#undef PRISM_NARROW_STEP
  return iterations * 12 * (wide ? 32 : 64);
}
#endif

bool HasAvx2() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

void BM_Avx2Int8Probe(benchmark::State& state, bool wide) {
  int64_t ops = 0;
  for (auto _ : state) {
#if defined(__x86_64__)
    ops = Avx2Int8Probe(1 << 20, wide);
#endif
  }
  state.counters["GOPS"] = benchmark::Counter(static_cast<double>(ops) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

bool HasAvx512Vnni() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

void BM_VnniPeakProbe(benchmark::State& state) {
  int64_t ops = 0;
  for (auto _ : state) {
#if defined(__x86_64__)
    ops = Avx512VnniProbe(1 << 20);
#endif
  }
  state.counters["GOPS"] = benchmark::Counter(static_cast<double>(ops) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

bool HasAvx512() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

// The probe, as a benchmark of its own so that it is measured within the same run (noise and
// clock changes hit it as they hit the products).
void BM_PeakProbe(benchmark::State& state, bool avx512) {
  const int64_t iterations = 1 << 20;
  int64_t flops = 0;
  for (auto _ : state) {
#if defined(__x86_64__)
    flops = avx512 ? Avx512FmaProbe(iterations) : mlas::ActiveKernels().fma_probe_f32(iterations);
#else
    flops = mlas::ActiveKernels().fma_probe_f32(iterations);
#endif
  }
  state.counters["GFLOPS"] = benchmark::Counter(static_cast<double>(flops) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

struct Problem {
  int64_t batch, m, n, k;
  bool trans_b;
};

std::vector<float> RandomVector(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = value(generator);
  return v;
}

// The peak of `threads` threads running the probe at once (their summed rate), as measured now:
// what the threads can get of a machine whose cores other tenants share.
double PeakNow(int threads) {
  if (threads == 1) return mlas::ProbeFmaPeakGflops(mlas::ActiveKernels(), 0.05);
  const int64_t iterations = 1 << 18;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> others;
    const auto start = std::chrono::steady_clock::now();
    int64_t flops = 0;
    std::vector<int64_t> counts(static_cast<size_t>(threads), 0);
    for (int t = 1; t < threads; ++t)
      others.emplace_back(
          [&counts, t] { counts[t] = mlas::ActiveKernels().fma_probe_f32(iterations); });
    counts[0] = mlas::ActiveKernels().fma_probe_f32(iterations);
    for (std::thread& other : others) other.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (int64_t count : counts) flops += count;
    best = std::max(best, static_cast<double>(flops) / seconds * 1e-9);
  }
  return best;
}

// GFLOP/s, and the percentage of the peak that `threads` threads reached together in the probe
// just before this benchmark's timed loop (the shared machine's clock and load drift between
// benchmarks); the probe's rate is the `peak` column.
void SetRates(benchmark::State& state, const Problem& p, double peak) {
  const double flops = 2.0 * p.batch * p.m * p.n * p.k;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["%peak"] =
      benchmark::Counter(flops * 1e-7 / peak, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak"] = peak;
}

// Prism: each batch entry is one Sgemm; a batch splits whole products over the pool (as
// MatMul does), a single product splits its C.
void BM_Prism(benchmark::State& state, Problem p, int threads, bool packed_b) {
  auto a = RandomVector(static_cast<size_t>(p.batch * p.m * p.k), 1);
  auto b = RandomVector(static_cast<size_t>(p.batch * p.k * p.n), 2);
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const int64_t ldb = p.trans_b ? p.k : p.n;
  std::unique_ptr<mlas::PackedMatrixB> packed;
  if (packed_b)
    packed = std::make_unique<mlas::PackedMatrixB>(
        mlas::PackedMatrixB::Pack(p.trans_b, p.k, p.n, b.data(), ldb));
  auto product = [&](int64_t e, ThreadPool* on) {
    const float* ae = a.data() + e * p.m * p.k;
    float* ce = c.data() + e * p.m * p.n;
    if (packed)
      mlas::SgemmPackedB(kernels, false, p.m, ae, p.k, 1.0f, *packed, 0.0f, ce, p.n, on);
    else
      mlas::Sgemm(kernels, false, p.trans_b, p.m, p.n, p.k, 1.0f, ae, p.k, b.data() + e * p.k * p.n,
                  ldb, 0.0f, ce, p.n, on);
  };
  const double peak = PeakNow(threads);
  for (auto _ : state) {
    if (p.batch == 1) {
      product(0, pool.get());
    } else {
      ThreadPool::TryParallelFor(pool.get(), p.batch, 1e12, [&](int64_t first, int64_t last) {
        for (int64_t e = first; e < last; ++e) product(e, nullptr);
      });
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, p, peak);
}

#if defined(PRISM_BENCH_WITH_DNNL)
// oneDNN with the same threads (its OpenMP runtime): dnnl_sgemm for one product (row-major, as
// Prism's), the matmul primitive (3-D, created once) for a batch.
void BM_OneDnn(benchmark::State& state, Problem p, int threads) {
  omp_set_num_threads(threads);
  auto a = RandomVector(static_cast<size_t>(p.batch * p.m * p.k), 1);
  auto b = RandomVector(static_cast<size_t>(p.batch * p.k * p.n), 2);
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  const int64_t ldb = p.trans_b ? p.k : p.n;
  const double peak = PeakNow(threads);
  if (p.batch == 1) {
    for (auto _ : state) {
      dnnl_sgemm('N', p.trans_b ? 'T' : 'N', p.m, p.n, p.k, 1.0f, a.data(), p.k, b.data(), ldb,
                 0.0f, c.data(), p.n);
      benchmark::DoNotOptimize(c.data());
      benchmark::ClobberMemory();
    }
  } else {
    using dims = dnnl::memory::dims;
    using dt = dnnl::memory::data_type;
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const dnnl::memory::desc a_desc(dims{p.batch, p.m, p.k}, dt::f32, dims{p.m * p.k, p.k, 1});
    // B as stored: k x n rows, or n x k rows read transposed (strides swapped).
    const dnnl::memory::desc b_desc(dims{p.batch, p.k, p.n}, dt::f32,
                                    p.trans_b ? dims{p.k * p.n, 1, p.k} : dims{p.k * p.n, p.n, 1});
    const dnnl::memory::desc c_desc(dims{p.batch, p.m, p.n}, dt::f32, dims{p.m * p.n, p.n, 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_desc, b_desc, c_desc), engine);
    dnnl::matmul matmul(pd);
    dnnl::memory a_mem(a_desc, engine, a.data()), b_mem(b_desc, engine, b.data()),
        c_mem(c_desc, engine, c.data());
    for (auto _ : state) {
      matmul.execute(stream,
                     {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
      stream.wait();
      benchmark::ClobberMemory();
    }
  }
  SetRates(state, p, peak);
}
#endif

std::vector<uint8_t> RandomBytes(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> value(0, 255);
  std::vector<uint8_t> v(count);
  for (uint8_t& x : v) x = static_cast<uint8_t>(value(generator));
  return v;
}

// GOP/s of an int8 product (2 m n k operations), and its ratio to the FP32 peak of the probe.
void SetInt8Rates(benchmark::State& state, const Problem& p, double peak) {
  const double ops = 2.0 * p.m * p.n * p.k;
  state.counters["GOPS"] =
      benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["%fp32peak"] =
      benchmark::Counter(ops * 1e-7 / peak, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak"] = peak;
}

// Prism's int8 GEMM: uint8 A (zero point 3) times int8 B packed once (as MatMulInteger's
// constant weights are), int32 C. Full-range random weights: on a level whose kernel saturates
// (AVX2) they are packed wide (int16), the exact path.
// seven_bit: weights in [-64, 64] (onnxruntime's reduce_range), within vpmaddubsw's pair bound.
void BM_PrismInt8(benchmark::State& state, Problem p, int threads, bool seven_bit) {
  auto a = RandomBytes(static_cast<size_t>(p.m * p.k), 1);
  auto b = RandomBytes(static_cast<size_t>(p.k * p.n), 2);
  if (seven_bit)
    for (uint8_t& x : b) x = static_cast<uint8_t>(static_cast<int8_t>(x % 129 - 64));
  std::vector<int32_t> c(static_cast<size_t>(p.m * p.n));
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const mlas::PackedQuantB packed =
      mlas::PackedQuantB::Pack(p.k, p.n, b.data(), p.n, true, mlas::QgemmPairsSaturate(kernels));
  mlas::QgemmZeroPoints zero;
  zero.a = 3;
  const double peak = PeakNow(threads);
  for (auto _ : state) {
    mlas::QgemmPackedB(kernels, p.m, a.data(), p.k, false, packed, zero, c.data(), p.n, pool.get());
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["wide"] = packed.Wide() ? 1 : 0;
  SetInt8Rates(state, p, peak);
}

#if defined(PRISM_BENCH_WITH_DNNL)
// oneDNN's matmul primitive u8 x s8 -> s32 with the same threads, weights in the layout it picks
// (reordered once, outside the timed loop), A's zero point 3 as a runtime argument.
void BM_OneDnnInt8(benchmark::State& state, Problem p, int threads) {
  omp_set_num_threads(threads);
  auto a = RandomBytes(static_cast<size_t>(p.m * p.k), 1);
  auto b = RandomBytes(static_cast<size_t>(p.k * p.n), 2);
  std::vector<int32_t> c(static_cast<size_t>(p.m * p.n));
  using dims = dnnl::memory::dims;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc a_desc(dims{p.m, p.k}, dt::u8, tag::ab);
  const dnnl::memory::desc b_any(dims{p.k, p.n}, dt::s8, tag::any);
  const dnnl::memory::desc b_plain(dims{p.k, p.n}, dt::s8, tag::ab);
  const dnnl::memory::desc c_desc(dims{p.m, p.n}, dt::s32, tag::ab);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_desc, b_any, c_desc), attr, engine);
  dnnl::memory b_user(b_plain, engine, b.data());
  dnnl::memory b_mem(pd.weights_desc(), engine);
  dnnl::reorder(b_user, b_mem).execute(stream, b_user, b_mem);
  stream.wait();
  int32_t zero_value = 3;
  dnnl::memory zero_mem({{1}, dt::s32, tag::x}, engine, &zero_value);
  dnnl::memory a_mem(a_desc, engine, a.data()), c_mem(c_desc, engine, c.data());
  dnnl::matmul matmul(pd);
  const double peak = PeakNow(threads);
  for (auto _ : state) {
    matmul.execute(stream, {{DNNL_ARG_SRC, a_mem},
                            {DNNL_ARG_WEIGHTS, b_mem},
                            {DNNL_ARG_DST, c_mem},
                            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_mem}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  SetInt8Rates(state, p, peak);
}
#endif

std::string ShapeName(const Problem& p) {
  std::string name = p.batch > 1 ? std::to_string(p.batch) + "x" : "";
  name += std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  if (p.trans_b) name += "_bT";
  return name;
}

void RegisterAll() {
  benchmark::RegisterBenchmark("peak_probe/prism_level", BM_PeakProbe, false)
      ->Unit(benchmark::kMillisecond);
  if (HasAvx512())
    benchmark::RegisterBenchmark("peak_probe/avx512", BM_PeakProbe, true)
        ->Unit(benchmark::kMillisecond);
  if (HasAvx512Vnni())
    benchmark::RegisterBenchmark("int8_peak_probe/avx512_vnni", BM_VnniPeakProbe)
        ->Unit(benchmark::kMillisecond);
  if (HasAvx2()) {
    benchmark::RegisterBenchmark("int8_peak_probe/avx2_maddubs", BM_Avx2Int8Probe, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("int8_peak_probe/avx2_madd_wide", BM_Avx2Int8Probe, true)
        ->Unit(benchmark::kMillisecond);
  }
  // (M, N, K): square sizes, then bert_base's MatMuls for 128 tokens: the projections (K=768,
  // N=768), the FFN's up (N=3072) and down (K=3072) products, and attention's per-head products
  // over 12 heads (Q K^T with K read transposed, then scores times V).
  std::vector<Problem> problems;
  // 1000 and 2000 beside 1024 and 2048: leading dimensions that are not powers of two.
  for (int64_t s : {64, 128, 256, 512, 1024, 2048, 1000, 2000})
    problems.push_back({1, s, s, s, false});
  problems.push_back({1, 128, 768, 768, false});
  problems.push_back({1, 128, 3072, 768, false});
  problems.push_back({1, 128, 768, 3072, false});
  // One token through the FFN's up-projection: the matrix-vector path (M = 1).
  problems.push_back({1, 1, 3072, 768, false});
  problems.push_back({12, 128, 128, 64, true});
  problems.push_back({12, 128, 64, 128, false});
  for (const Problem& p : problems) {
    for (int threads : {1, 2}) {
      const std::string suffix = ShapeName(p) + "/threads:" + std::to_string(threads);
      benchmark::RegisterBenchmark(("sgemm/prism/" + suffix).c_str(), BM_Prism, p, threads, false)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
      // The weights of bert's projections and FFN are constant: their prepacked form too.
      if (p.batch == 1 && p.m == 128)
        benchmark::RegisterBenchmark(("sgemm/prism_packed_b/" + suffix).c_str(), BM_Prism, p,
                                     threads, true)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
#if defined(PRISM_BENCH_WITH_DNNL)
      benchmark::RegisterBenchmark(("sgemm/onednn/" + suffix).c_str(), BM_OneDnn, p, threads)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
#endif
    }
  }
  // The int8 GEMM at 1024^3 and bert_base's projection and FFN shapes (compare the SGEMM rows of
  // the same shape: GOPS against GFLOPS).
  const Problem int8_problems[] = {{1, 1024, 1024, 1024, false},
                                   {1, 128, 768, 768, false},
                                   {1, 128, 3072, 768, false},
                                   {1, 128, 768, 3072, false}};
  for (const Problem& p : int8_problems) {
    for (int threads : {1, 2}) {
      const std::string suffix = ShapeName(p) + "/threads:" + std::to_string(threads);
      benchmark::RegisterBenchmark(("int8/prism/" + suffix).c_str(), BM_PrismInt8, p, threads,
                                   false)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
      // 7-bit weights: no wide packing on a level that saturates (AVX2).
      if (p.m == 1024)
        benchmark::RegisterBenchmark(("int8/prism_7bit/" + suffix).c_str(), BM_PrismInt8, p,
                                     threads, true)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
#if defined(PRISM_BENCH_WITH_DNNL)
      benchmark::RegisterBenchmark(("int8/onednn/" + suffix).c_str(), BM_OneDnnInt8, p, threads)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
#endif
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterAll();
  benchmark::AddCustomContext("prism_isa", mlas::IsaName(mlas::ActiveIsa()));
  benchmark::AddCustomContext("fp32_peak_gflops_per_core(prism level, probe at start)",
                              std::to_string(PeakGflops()));
#if defined(PRISM_BENCH_WITH_DNNL)
  const dnnl_version_t* version = dnnl_version();
  benchmark::AddCustomContext("onednn", std::to_string(version->major) + "." +
                                            std::to_string(version->minor) + "." +
                                            std::to_string(version->patch));
#else
  benchmark::AddCustomContext("onednn", "not built (dnnl not found)");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

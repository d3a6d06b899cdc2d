#!/usr/bin/env bash
# The long jobs that do not fit CI's time budget, one command (docs/testing.md lists each part
# with its time; CI runs a short smoke of each):
#   tsan     ThreadSanitizer build (build-tsan/), concurrency, executor, partition, device I/O
#            and placement tests
#   asan     AddressSanitizer+UBSan build (build-asan/), every unit test and the conformance suites
#   models   every ../shared/bench model against onnxruntime (resnet50, bert_base included)
#   bench    benchmarks/compare.py on the default models (timings, not pass/fail)
#   isa      run-time instruction sets: no AVX outside the AVX2 and AVX-512 units (objdump), every
#            unit test and the node conformance suite under qemu-x86_64 -cpu Nehalem (a CPU
#            without AVX), and the whole suite with PRISM_CPU_ISA forced to baseline, to avx2 and
#            to avx512 (skipped, with a message, on a CPU without AVX-512)
#   isa-smoke  CI's share of isa: the leak check, every unit test under qemu Nehalem, the unit
#            tests with PRISM_CPU_ISA=baseline, and the kernel tests with avx2 and with avx512
#   fuzz     the libFuzzer targets (build-fuzz/, clang), each for $PRISM_FUZZ_SECONDS (default
#            1200 s), then their regression inputs; statistics appended to fuzz/STATS.md
#   fuzz-smoke  CI's share of fuzz: every seed once, then a fixed number of mutations from a
#            fixed seed per target (deterministic), and the regression inputs; not recorded
#   stress   scripts/stress.py for $PRISM_STRESS_SECONDS (default 600): 8 threads, one session per
#            bench model, valid feeds against onnxruntime, invalid feeds, terminated runs, RSS flat
#            after warm-up; then its three planted faults, each of which must fail it
#   serving  prismrt.serve on a local Ray instance: tests/serving with --extended (onnxruntime
#            backend, batching off, long loads with kills, 5xx answers, prism-serve), then the
#            planted faults of tests/serving/run_plants.py (CI runs the smoke: serving_smoke)
# Usage: scripts/run_extended.sh [PART...]
#   (default: tsan asan models isa; bench, fuzz, fuzz-smoke, stress and serving only when named)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/ccache_env.sh"
"$root/scripts/setup.sh" >/dev/null
shared="${PRISM_SHARED_DIR:-$root/../shared}"
export PRISM_SHARED_DIR="$(cd "$shared" && pwd)"
parts=("$@")
if [ "${#parts[@]}" -eq 0 ]; then parts=(tsan asan models isa); fi
build="$root/build"

# Runs gtest arguments under qemu on a CPU model without AVX (Nehalem: SSE4.2); the test EP
# plugin and the test data are found as in a native run.
under_nehalem() {
  (cd "$build" && qemu-x86_64 -cpu Nehalem ./prism_unit_tests "$@")
}

# Whether this CPU has the AVX-512 subsets of Prism's AVX-512 level (F, BW, DQ, VL).
cpu_has_avx512() {
  local flag
  for flag in avx512f avx512bw avx512dq avx512vl; do
    grep -qw "$flag" /proc/cpuinfo || return 1
  done
}

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

sanitized_build() {  # sanitized_build DIR SANITIZERS TARGET...
  local dir=$1 sanitizers=$2
  shift 2
  cmake -S "$root" -B "$dir" -DPRISM_SANITIZE="$sanitizers" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPRISM_WARNINGS_AS_ERRORS=ON -DPython_EXECUTABLE="$root/.venv/bin/python" "${launcher[@]}" \
    >/dev/null
  cmake --build "$dir" -j "$(nproc)" --target "$@"
}

for part in "${parts[@]}"; do
  start=$(date +%s)
  echo "== run_extended: $part"
  case "$part" in
    tsan)
      "$root/scripts/run_tsan.sh"
      ;;
    asan)
      dir="$root/build-asan"
      sanitized_build "$dir" address,undefined prism_unit_tests prism_provider_test prism_onnx_test
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1 ${ASAN_OPTIONS:-}"
      export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1 ${UBSAN_OPTIONS:-}"
      "$dir/prism_unit_tests"
      for suite in node simple pytorch-operator; do
        "$dir/prism_onnx_test" --suite "$suite" --ops-file "$root/tests/conformance/core_ops.txt" \
          --expected-failures "$root/tests/conformance/expected_failures.txt" \
          --report-dir "$dir/conformance-report/$suite"
      done
      ;;
    models)
      "$root/.venv/bin/python" -m pytest -q -p no:cacheprovider \
        "$root/tests/models/bench_models_test.py" --prism-build-dir "$root/build" \
        --models-suite full
      ;;
    bench)
      "$root/.venv/bin/python" "$root/benchmarks/compare.py" --build-dir "$root/build"
      ;;
    isa | isa-smoke)
      cmake --build "$build" -j "$(nproc)" --target prism_unit_tests prism prism_provider_test \
        prism_onnx_test
      python3 "$root/scripts/check_isa_leaks.py" "$build/libprism_core.so" "$build/libprism.so" \
        "$build/libprism_provider_test.so"
      under_nehalem --gtest_brief=1
      if [ "$part" = isa-smoke ]; then
        (cd "$build" && PRISM_CPU_ISA=baseline ./prism_unit_tests --gtest_brief=1)
        # The default level is the best one: the other levels' kernels, each forced.
        kernel_tests='*Mlas*:*Sgemm*:*CpuIsa*:*Gemm*:*MatMul*:*Conv*'
        (cd "$build" && PRISM_CPU_ISA=avx2 ./prism_unit_tests --gtest_brief=1 \
          --gtest_filter="$kernel_tests")
        if cpu_has_avx512; then
          (cd "$build" && PRISM_CPU_ISA=avx512 ./prism_unit_tests --gtest_brief=1 \
            --gtest_filter="$kernel_tests")
        else
          echo "run_extended: isa-smoke: this CPU lacks AVX-512 F/BW/DQ/VL: avx512 pass skipped"
        fi
      else
        (cd "$build" && qemu-x86_64 -cpu Nehalem ./prism_onnx_test --suite node \
          --ops-file "$root/tests/conformance/core_ops.txt" \
          --expected-failures "$root/tests/conformance/expected_failures.txt" \
          --report-dir "$build/conformance-report/node-nehalem")
        (cd "$build" && PRISM_CPU_ISA=baseline ctest -j "$(nproc)" --output-on-failure)
        (cd "$build" && PRISM_CPU_ISA=avx2 ctest -j "$(nproc)" --output-on-failure)
        if cpu_has_avx512; then
          (cd "$build" && PRISM_CPU_ISA=avx512 ctest -j "$(nproc)" --output-on-failure)
        else
          echo "run_extended: isa: this CPU lacks AVX-512 F/BW/DQ/VL: avx512 pass skipped"
        fi
      fi
      ;;
    fuzz)
      "$root/scripts/fuzz.sh" --seconds "${PRISM_FUZZ_SECONDS:-1200}"
      ;;
    fuzz-smoke)
      "$root/scripts/fuzz.sh" --smoke
      ;;
    stress)
      ctest --test-dir "$build" -R python_package_install --output-on-failure >/dev/null
      "$root/.venv/bin/python" "$root/scripts/stress.py" --build-dir "$build" \
        --seconds "${PRISM_STRESS_SECONDS:-600}"
      for plant in wrong_output accept_invalid leak; do
        seconds=20
        if [ "$plant" = leak ]; then seconds=150; fi
        if PRISM_STRESS_PLANT=$plant "$root/.venv/bin/python" "$root/scripts/stress.py" \
          --build-dir "$build" --models mnist_cnn,bert_tiny --seconds "$seconds" --warmup 20 \
          >"$build/stress-plant-$plant.log" 2>&1; then
          echo "run_extended: the stress run passed with the planted fault '$plant'" >&2
          exit 1
        fi
        echo "run_extended: planted fault '$plant' caught: $(grep -m1 FAIL "$build/stress-plant-$plant.log")"
      done
      ;;
    serving)
      ctest --test-dir "$build" -R python_package_install --output-on-failure >/dev/null
      "$root/.venv/bin/python" -m pytest -q -p no:cacheprovider --extended "$root/tests/serving"
      "$root/.venv/bin/python" "$root/tests/serving/run_plants.py"
      ;;
    *)
      echo "run_extended: unknown part '$part' (tsan, asan, models, bench, isa, isa-smoke, fuzz," \
        "fuzz-smoke, stress, serving)" >&2
      exit 2
      ;;
  esac
  echo "== run_extended: $part took $(( $(date +%s) - start )) s"
done

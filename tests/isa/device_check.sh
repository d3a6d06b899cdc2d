#!/usr/bin/env bash
# On a bare machine whose CPU has AVX-512 (the device tool's GPU machine; docs/testing.md,
# "AVX-512 on a lent machine"): unpacks what tests/isa/pack.sh carried in .isacarry/ at the
# paths the programs were built for (PRISM_SOURCE_DIR and PRISM_BINARY_DIR are compiled in),
# makes the bench models the unit tests read, then runs every unit test at the AVX-512 level (the
# kernel tests among them compare every level the CPU has; ISA_LEVELS="avx512 avx2 baseline"
# forces the others in turn; one gtest shard per core at once), the node, simple and
# pytorch-operator conformance suites at the best level, and the SGEMM and convolution benchmarks
# against oneDNN at one thread. Logs and benchmark JSON go to $OUT (or /tmp/isa-out).
#   tests/isa/device_check.sh [--no-bench]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
carry=$root/.isacarry
out=${OUT:-/tmp/isa-out}
mkdir -p "$out"
bench=1
[ "${1:-}" = --no-bench ] && bench=0
exec > >(tee "$out/summary.log") 2>&1
started=$SECONDS
stamp() { echo "== $* ($((SECONDS - started)) s)"; }

stamp "CPU"
grep -m1 "model name" /proc/cpuinfo
nproc
grep -m1 -o 'avx512[a-z_0-9]*' /proc/cpuinfo >/dev/null || echo "this CPU has no AVX-512"
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512.*|amx.*)$' | tr '\n' ' '
echo

# The compiled-in paths: the source tree at /work/main, the build at /work/main/build, the shared
# data beside it at /work/shared.
if [ "$root" != /work/main ]; then
  mkdir -p /work
  ln -sfn "$root" /work/main
fi
mkdir -p /work/main/build /work/shared /tmp/isa-lib
tar -C /tmp/isa-lib -xJf "$carry/build.tar.xz"
cp -a /tmp/isa-lib/build/. /work/main/build/
tar -C /work/shared -xJf "$carry/shared.tar.xz"
export LD_LIBRARY_PATH=/work/main/build:/tmp/isa-lib/lib
export PRISM_SHARED_DIR=/work/shared
build=/work/main/build
stamp "unpacked"
ldd "$build/prism_unit_tests" | grep "not found"

python=${PYTHON:-python3}
"$python" /work/shared/bench/make_models.py "$build/bench-models" --no-check \
  --models resnet50,mobilenetv2,squeezenet1_1,gemm_chain,bert_tiny >"$out/models.log" 2>&1 ||
  echo "make_models failed (see models.log)"
# The int8 models come packed (the pinned onnxruntime's quantization); made here only if not.
for model in resnet50_qdq mobilenetv2_qdq; do
  [ -f "$build/bench-models/$model.onnx" ] && continue
  timeout 120 "$python" "$root/benchmarks/make_derived_models.py" "$build/bench-models" \
    --models "$model" >>"$out/models.log" 2>&1 || echo "make_derived_models failed (see models.log)"
done
stamp "bench models made"

status=0
shards=$(nproc)
mkdir -p /tmp/isa-logs
for isa in ${ISA_LEVELS:-avx512}; do
  stamp "unit tests, PRISM_CPU_ISA=$isa, $shards shards"
  pids=()
  for ((i = 0; i < shards; i++)); do
    (cd "$build" && GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i PRISM_CPU_ISA=$isa \
      timeout 240 ./prism_unit_tests --gtest_brief=1 >"/tmp/isa-logs/unit-$isa-$i.log" 2>&1) &
    pids+=($!)
  done
  failed=0
  for ((i = 0; i < shards; i++)); do
    wait "${pids[$i]}" || { failed=1; echo "shard $i failed"; }
  done
  grep -h "^\[  PASSED  \]\|^\[  FAILED  \]\|^\[  SKIPPED \]" /tmp/isa-logs/unit-$isa-*.log |
    awk '{n[$1" "$2" "$3]+=$4} END {for (k in n) print k, n[k]}'
  grep -h "^\[  FAILED  \] [A-Za-z]" /tmp/isa-logs/unit-$isa-*.log | sort -u | head -40
  grep -h "PRISM_CPU_ISA\|warning" /tmp/isa-logs/unit-$isa-0.log | head -3
  [ $failed -eq 0 ] || status=1
done
stamp "conformance at the best level"
for suite in node simple pytorch-operator; do
  (cd "$build" && timeout 100 ./prism_onnx_test --suite "$suite" \
    --ops-file "$root/tests/conformance/core_ops.txt" \
    --expected-failures "$root/tests/conformance/expected_failures.txt" \
    --report-dir "/tmp/isa-logs/conformance-$suite" >"/tmp/isa-logs/conformance-$suite.log" 2>&1)
  rc=$?
  echo "conformance $suite: exit $rc; $(tail -n 3 "/tmp/isa-logs/conformance-$suite.log" | tr '\n' ' ')"
  [ $rc -eq 0 ] || status=1
done
tar -C /tmp/isa-logs -czf "$out/logs.tar.gz" .
stamp "tests done (status $status)"

if [ $bench -eq 1 ]; then
  (cd "$build" && timeout 100 ./prism_gemm_bench \
    --benchmark_filter='peak_probe|int8_peak|(sgemm|int8)/(prism|onednn)/(256x256x256|1024x1024x1024)/threads:1' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/gemm_avx512.json" --benchmark_out_format=json >/dev/null 2>&1)
  stamp "gemm bench: exit $?"
  (cd "$build" && timeout 150 ./prism_conv_bench --benchmark_filter='(blocked|nchwc|dnnl)/1/' \
    --benchmark_min_time=0.05 --benchmark_repetitions=2 --benchmark_report_aggregates_only=true \
    --benchmark_enable_random_interleaving=true \
    --benchmark_out="$out/conv_avx512.json" --benchmark_out_format=json >/dev/null 2>&1)
  stamp "conv bench: exit $?"
fi
exit $status
